#!/usr/bin/env python3
"""scripts/measure_links.py — measure a GPU machine's links into a ccsim
link-calibration file (links/NAME.json, docs/comm-model.md).

What it measures, with PyTorch on the GPUs of this machine:
  - per GPU: device-local copy rate (HBM), host-to-device and device-to-host
    copy rates (pinned memory) and a small copy's latency;
  - per pair of GPUs: peer copy rate and latency, and the pair's class from
    `nvidia-smi topo -m` (NV# -> nvlink, otherwise pcie);
  - with 2 or more GPUs: NCCL's ring all-reduce through torch.distributed
    (NCCL_ALGO=Ring, NCCL_PROTO=Simple, NVLink SHARP off), one process per
    GPU: the bus bandwidth 2(n-1)/n x S / t at --size, and the per-step
    latency (t(8 bytes) - NCCL's 8.4 us base latency) / (2(n-1)).
The link class's "bandwidth" in the file is the all-reduce bus bandwidth
(what ccsim's nccl model calls Simple's achieved rate); the raw copy rates go
under "measured".  With one GPU, the class gets the peer-less figures only
(no all-reduce: nothing to put in "links"), and the file says so; such a
file is a record, not a calibration (ccsim refuses a file without a link
class), and goes to links/raw/NAME.json by default.

Without a GPU (no torch, or torch without CUDA) it prints why and exits 0
without writing anything (exit 1 with --require-gpu).

  python3 scripts/measure_links.py --name h100-measured --out links/h100-measured.json
"""
import argparse
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import time

BASE_LAT_US = 8.4  # NCCL baseLat ring Simple (src/graph/tuning.cc L151 @5067397c)


def no_gpu(why, require):
    print("measure_links.py: no GPU here (%s): nothing measured, no file written" % why)
    sys.exit(1 if require else 0)


def timed(torch, fn, reps):
    fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(reps):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) / reps


def topo_classes(n):
    """(i, j) -> "nvlink" | "pcie", from nvidia-smi topo -m (pcie when absent)."""
    cls = {(i, j): "pcie" for i in range(n) for j in range(n) if i != j}
    if not shutil.which("nvidia-smi"):
        return cls, "nvidia-smi not found: every pair taken as pcie"
    out = subprocess.run(["nvidia-smi", "topo", "-m"], capture_output=True, text=True).stdout
    for line in out.splitlines():
        m = re.match(r"^\s*GPU(\d+)\s+(.*)$", line)
        if not m or int(m.group(1)) >= n:
            continue
        i, cells = int(m.group(1)), m.group(2).split()
        for j in range(min(n, len(cells))):
            if i != j and cells[j].startswith("NV"):
                cls[(i, j)] = "nvlink"
    return cls, "nvidia-smi topo -m"


def copies(torch, n, size, reps):
    f = {"gpus": [torch.cuda.get_device_name(i) for i in range(n)], "per_gpu": [], "pairs": []}
    for i in range(n):
        d = torch.device("cuda", i)
        a = torch.empty(size, dtype=torch.uint8, device=d)
        b = torch.empty_like(a)
        h = torch.empty(size, dtype=torch.uint8).pin_memory()
        small = torch.empty(8, dtype=torch.uint8, device=d)
        hs = torch.empty(8, dtype=torch.uint8).pin_memory()
        with torch.cuda.device(d):
            f["per_gpu"].append({
                "gpu": i,
                "hbm_copy_Bps": 2 * size / timed(torch, lambda: b.copy_(a), reps),  # read + write
                "h2d_Bps": size / timed(torch, lambda: a.copy_(h, non_blocking=True), reps),
                "d2h_Bps": size / timed(torch, lambda: h.copy_(a, non_blocking=True), reps),
                "h2d_latency_s": timed(torch, lambda: small.copy_(hs), reps * 10),
            })
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            a = torch.empty(size, dtype=torch.uint8, device=torch.device("cuda", i))
            b = torch.empty(size, dtype=torch.uint8, device=torch.device("cuda", j))
            s = torch.empty(8, dtype=torch.uint8, device=torch.device("cuda", i))
            t = torch.empty(8, dtype=torch.uint8, device=torch.device("cuda", j))
            with torch.cuda.device(i):
                f["pairs"].append({"src": i, "dst": j,
                                   "p2p_access": bool(torch.cuda.can_device_access_peer(i, j)),
                                   "copy_Bps": size / timed(torch, lambda: b.copy_(a), reps),
                                   "latency_s": timed(torch, lambda: t.copy_(s), reps * 10)})
    return f


def allreduce_worker(rank, n, size, reps, port, out):
    import torch
    import torch.distributed as dist
    os.environ.update({"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port)})
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=n)
    res = {}
    for nbytes in (8, size):
        x = torch.ones(max(nbytes // 4, 2), dtype=torch.float32, device="cuda")
        for _ in range(5):
            dist.all_reduce(x)
        torch.cuda.synchronize()
        dist.barrier()
        t0 = time.perf_counter()
        for _ in range(reps if nbytes > 8 else reps * 20):
            dist.all_reduce(x)
        torch.cuda.synchronize()
        res[nbytes] = (time.perf_counter() - t0) / (reps if nbytes > 8 else reps * 20)
    if rank == 0:
        with open(out, "w") as f:
            json.dump({str(k): v for k, v in res.items()}, f)
    dist.destroy_process_group()


def allreduce(torch, n, size, reps, tmp):
    import torch.multiprocessing as mp
    os.environ.update({"NCCL_ALGO": "Ring", "NCCL_PROTO": "Simple", "NCCL_NVLS_ENABLE": "0"})
    out = os.path.join(tmp, "allreduce.json")
    mp.spawn(allreduce_worker, args=(n, size, reps, 29500 + os.getpid() % 1000, out), nprocs=n)
    with open(out) as f:
        r = json.load(f)
    t_big, t_small = r[str(size)], r["8"]
    steps = 2 * (n - 1)
    return {"ranks": n, "size_bytes": size, "time_s": t_big, "busbw_Bps": steps / n * size / t_big,
            "small_time_s": t_small, "step_latency_s": max(0.0, (t_small - BASE_LAT_US * 1e-6) / steps),
            "env": "NCCL_ALGO=Ring NCCL_PROTO=Simple NCCL_NVLS_ENABLE=0"}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--name", default="measured")
    ap.add_argument("--out", help="the file to write (default links/NAME.json)")
    ap.add_argument("--size", type=int, default=256 << 20, help="bytes of the large copies and all-reduce")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--no-allreduce", action="store_true", help="copies only")
    ap.add_argument("--require-gpu", action="store_true", help="exit 1, not 0, where there is no GPU")
    o = ap.parse_args()
    try:
        import torch
    except ImportError:
        no_gpu("this Python has no torch", o.require_gpu)
    if not torch.cuda.is_available() or torch.cuda.device_count() == 0:
        no_gpu("torch %s sees no CUDA device" % torch.__version__, o.require_gpu)
    n = torch.cuda.device_count()
    cls, topo = topo_classes(n)
    meas = copies(torch, n, o.size, o.reps)
    meas["topology"] = topo
    links, cmd = {}, " ".join([os.path.basename(sys.argv[0])] + sys.argv[1:])
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    if n >= 2 and not o.no_allreduce:
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            ar = allreduce(torch, n, o.size, o.reps, tmp)
        meas["allreduce"] = ar
        kinds = set(cls.values())
        klass = "nvlink" if kinds == {"nvlink"} else "pcie"
        links[klass] = {
            "bandwidth": "%.6gGBps" % (ar["busbw_Bps"] / 1e9),
            "latency": "%.6gus" % (ar["step_latency_s"] * 1e6),
            "source": "measured by %s on %d x %s, %s: NCCL ring all-reduce (Simple) bus bandwidth at %d bytes; "
                      "latency (t(8 B) - 8.4 us) / 2(n-1)" % (cmd, n, meas["gpus"][0], date, o.size)}
    doc = {"name": o.name,
           "description": "measured by scripts/measure_links.py on %d x %s (%s)%s" % (
               n, meas["gpus"][0], date, "" if links else "; one GPU or --no-allreduce: no link class measured"),
           "links": links, "measured": meas}
    # a file without a link class is a record, not a calibration a platform
    # can name (ccsim refuses one): it goes under links/raw/
    where = ["links"] if links else ["links", "raw"]
    out = o.out or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", *where, o.name + ".json")
    with open(out, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    print("measure_links.py: wrote %s (%s)" % (out, ", ".join(links) or "copies only"))


if __name__ == "__main__":
    main()
