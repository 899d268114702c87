#!/usr/bin/python3
"""scripts/measure_device.py — measure what training and compression cost on a
device, for ccsim's time model (docs/devices.md describes the file it writes).

    /usr/bin/python3 scripts/measure_device.py --name h100-measured --roofline h100 \
        --out devices/h100-measured.json
    /usr/bin/python3 scripts/measure_device.py --quick --models lstm --sizes 10,12 \
        --compressors fp16,topk --out /tmp/d.json            (a minute on a CPU)

Runs on the first CUDA GPU when there is one, else on the CPU (--cpu forces
it).  What it measures:

  models       for every model profile (workloads/models/*.json, the same
               torch modules scripts/gen_profiles.py builds) and precision:
               forward and backward seconds of one training iteration at the
               batch (--batch, else the model's default below), and for every
               parameter tensor the moment its gradient is ready, counted from
               the start of backward.  GPU: a CUDA event recorded from a
               gradient hook on the current stream; CPU: perf_counter in the
               hook (CPU autograd runs the operators synchronously on the
               calling thread).  The iteration whose backward time is the
               median of --repeats is kept, whole, so its ready times are
               consistent with its backward time.
  precisions   fp32 (TF32 off), tf32 (TF32 matmul and cuDNN on), bf16 (autocast
               of forward and loss, fp32 master weights).  On the CPU there is
               no TF32: tf32 is skipped and the file says so.
  compressors  encode, decode and (summable formats) combine of fp32 vectors of
               2^k elements, implemented as GRACE-style frameworks do (torch
               operators on the whole flattened tensor; real packed wire
               formats where ccsim's are packed).  Two figures per size:
               "isolated_s", one call between two synchronizes (the median of
               --repeats), and "back_to_back_s", --repeats calls queued and
               synchronized once, per call.
  ddp_buckets  torch._utils._flatten_dense_tensors / _unflatten_dense_tensors
               of a bucket of 16 equal tensors, per bucket size.
  launch       one tiny operator (add on a 1-element tensor): isolated and back
               to back.

Provenance (device name, driver, torch and CUDA versions, clocks where
nvidia-smi reads them, threads, date, the exact command) goes into the file.
"""
import argparse
import datetime
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time

import torch
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import gen_profiles  # noqa: E402  (the model definitions ccsim's profiles come from)

from device_batches import DEFAULT_BATCH  # noqa: E402  (the batch per model when --batch is not given)

PRECISIONS = ("fp32", "tf32", "bf16")


class Timer:
    """Wall-clock seconds between synchronizes, on a GPU through CUDA events."""

    def __init__(self, device):
        self.device = device
        self.cuda = device.type == "cuda"

    def sync(self):
        if self.cuda:
            torch.cuda.synchronize(self.device)

    def mark(self):
        """A point in time, read after the next sync()."""
        if self.cuda:
            e = torch.cuda.Event(enable_timing=True)
            e.record()
            return e
        return time.perf_counter()

    def seconds(self, a, b):
        if self.cuda:
            return a.elapsed_time(b) / 1e3
        return b - a


# ---------------------------------------------------------------- models


def loss_of(name, out, inputs):
    """A real training loss for each model's output."""
    if name in ("lstm", "lstm-wt2", "gpt2-small"):
        ids = inputs[0]
        return F.cross_entropy(out.reshape(-1, out.shape[-1]).float(), ids.reshape(-1))
    if name in ("resnet50", "vgg16", "resnet101", "resnet50-cifar"):
        target = torch.arange(out.shape[0], device=out.device) % out.shape[1]
        return F.cross_entropy(out.float(), target)
    return out.float().pow(2).mean()  # bert-base: the pooler output


def set_precision(prec, device):
    if device.type == "cuda":
        tf32 = prec == "tf32"
        torch.backends.cuda.matmul.allow_tf32 = tf32
        torch.backends.cudnn.allow_tf32 = tf32


def measure_model(spec, prec, batch, repeats, warmup, device, timer):
    """Forward and backward seconds and per-tensor gradient-ready times."""
    torch.manual_seed(0)
    model = spec["build"]().to(device)
    model.train()
    with open(os.path.join(ROOT, "workloads", "models", spec["name"] + ".json")) as f:
        names = [layer["name"] for layer in json.load(f)["layers"]]
    params = dict(model.named_parameters())
    if sorted(names) != sorted(params):
        sys.exit("%s: the torch model's tensors differ from the profile's" % spec["name"])
    inputs = tuple(t.to(device) for t in spec["input"](batch))
    set_precision(prec, device)
    stamps = {}

    def hook(name):
        def h(grad):
            stamps[name] = timer.mark()  # a tied tensor fires once per use: the last counts
            return grad
        return h

    handles = [params[n].register_hook(hook(n)) for n in names]
    runs = []
    try:
        for it in range(warmup + repeats):
            model.zero_grad(set_to_none=True)
            stamps.clear()
            timer.sync()
            t0 = timer.mark()
            if prec == "bf16":
                with torch.autocast(device_type=device.type, dtype=torch.bfloat16):
                    out = model(*inputs)
                    loss = loss_of(spec["name"], out, inputs)
            else:
                out = model(*inputs)
                loss = loss_of(spec["name"], out, inputs)
            t1 = timer.mark()
            loss.backward()
            t2 = timer.mark()
            timer.sync()
            if it < warmup:
                continue
            missing = [n for n in names if n not in stamps]
            if missing:
                sys.exit("%s: no gradient for %s" % (spec["name"], missing[:3]))
            runs.append({"forward_s": timer.seconds(t0, t1), "backward_s": timer.seconds(t1, t2),
                         "ready": [timer.seconds(t1, stamps[n]) for n in names]})
    finally:
        for h in handles:
            h.remove()
    runs.sort(key=lambda r: r["backward_s"])
    kept = runs[len(runs) // 2]
    return {
        "batch": batch,
        "repeats": repeats,
        "forward_s": statistics.median(r["forward_s"] for r in runs),
        "backward_s": kept["backward_s"],
        "backward_s_min": runs[0]["backward_s"],
        "backward_s_max": runs[-1]["backward_s"],
        "tensors": [{"name": n, "ready_s": min(t, kept["backward_s"])}
                    for n, t in zip(names, kept["ready"])],
    }


# ---------------------------------------------------------------- compressors
#
# 'none' is not measured: it sends the gradient buffer as it is (no encode or
# decode kernel), and its combine is the add NCCL fuses into the collective.
#
# Each compressor is make(n, device) -> (encode, decode, combine or None,
# params).  encode(x) returns the payload (a tuple of tensors), decode(payload)
# an fp32 vector of n elements, combine(a, b) a payload of the same format.
# params: the ccsim compressor parameters the implementation follows.

SHIFTS = {}


def shifts(device):
    """0..7 as uint8 on device, made once (not a kernel per call)."""
    if device not in SHIFTS:
        SHIFTS[device] = torch.arange(8, dtype=torch.uint8, device=device)
    return SHIFTS[device]


def pack_bits(bits):
    """bool[n] -> uint8[ceil(n / 8)], LSB first (ccsim's sign wire format)."""
    n = bits.numel()
    pad = (-n) % 8
    b = F.pad(bits.to(torch.uint8), (0, pad)).view(-1, 8)
    return (b << shifts(bits.device)).sum(1, dtype=torch.uint8)


def unpack_bits(packed, n):
    return ((packed.unsqueeze(1) >> shifts(packed.device)) & 1).view(-1)[:n]


def signs(packed, n):
    return unpack_bits(packed, n).float() * 2 - 1


def c_cast(dtype):
    def make(n, dev):
        enc = lambda x: (x.to(dtype),)
        dec = lambda p: p[0].float()
        comb = lambda a, b: ((a[0].float() + b[0].float()).to(dtype),)
        return enc, dec, comb, {}
    return make


def c_signsgd(n, dev):
    return (lambda x: (pack_bits(x >= 0),)), (lambda p: signs(p[0], n)), None, {}


def c_ef_signsgd(n, dev):
    # scaled sign: mean |x| and the sign bits
    enc = lambda x: (x.abs().mean(), pack_bits(x >= 0))
    dec = lambda p: signs(p[1], n) * p[0]
    return enc, dec, None, {}


def c_onebit(n, dev):
    # 1-bit SGD: the means of the non-negative and the negative entries
    def enc(x):
        pos = x >= 0
        npos = pos.sum()
        mp = (x * pos).sum() / npos.clamp(min=1)
        mn = (x * ~pos).sum() / (n - npos).clamp(min=1)
        return torch.stack([mp, mn]), pack_bits(pos)

    def dec(p):
        b = unpack_bits(p[1], n).bool()
        return torch.where(b, p[0][0], p[0][1])
    return enc, dec, None, {}


def c_signum(n, dev):
    m = torch.zeros(n, device=dev)

    def enc(x):
        m.mul_(0.9).add_(x, alpha=0.1)
        return (pack_bits(m >= 0),)
    return enc, (lambda p: signs(p[0], n)), None, {"beta": 0.9}


def c_marsit(n, dev):
    # 1 bit per coordinate; combine takes A's bit with probability ka/(ka+kb)
    def comb(a, b):
        take_a = torch.rand(a[0].numel() * 8, device=dev) < 0.5
        mask = pack_bits(take_a)
        return ((mask & a[0]) | (~mask & b[0]),)
    return (lambda x: (pack_bits(x >= 0),)), (lambda p: signs(p[0], n)), comb, {}


def c_sign_ring(n, dev):
    return c_ef_signsgd(n, dev)[:3] + ({"scaled": 1},)


def c_natural(n, dev):
    # natural compression: sign and a stochastically rounded power of two (one byte)
    def enc(x):
        m, e = torch.frexp(x.abs())  # |x| = m 2^e, m in [0.5, 1)
        up = torch.rand_like(x) < (2 * m - 1)  # round 2m in [1, 2) to 1 or 2
        code = (e - 1 + up.to(e.dtype)).clamp(-126, 127).to(torch.int8)
        return code, pack_bits(x >= 0)

    def dec(p):
        return torch.ldexp(torch.ones(n, device=dev), p[0].to(torch.int32)) * signs(p[1], n)
    return enc, dec, None, {}


def c_topk(ratio):
    def make(n, dev):
        k = max(1, int(n * ratio))

        def enc(x):
            _, idx = torch.topk(x.abs(), k, sorted=False)
            return x[idx], idx.to(torch.int32)

        def dec(p):
            y = torch.zeros(n, device=dev)
            return y.scatter_(0, p[1].long(), p[0])
        return enc, dec, None, {"ratio": ratio}
    return make


def c_randomk(n, dev):
    k = max(1, int(n * 0.01))
    gen = torch.Generator(device=dev)

    def enc(x):
        gen.manual_seed(1)  # shared seed: every worker picks the same indices
        idx = torch.randperm(n, device=dev, generator=gen)[:k]
        return (x[idx],)

    def dec(p):
        gen.manual_seed(1)
        idx = torch.randperm(n, device=dev, generator=gen)[:k]
        return torch.zeros(n, device=dev).scatter_(0, idx, p[0])
    return enc, dec, (lambda a, b: (a[0] + b[0],)), {"ratio": 0.01, "scaled": 0}


def c_threshold(n, dev):
    def enc(x):
        idx = torch.nonzero(x.abs() >= 0.01).view(-1)
        return x[idx], idx.to(torch.int32)
    return enc, c_topk(0.01)(n, dev)[1], None, {"tau": 0.01}


def c_dgc(n, dev):
    # DGC (Lin et al. 2018) as GRACE: threshold from the top of a 1% sample, then refine
    ratio, sample = 0.001, 0.01
    k = max(1, int(n * ratio))
    ns = max(1, int(n * sample))

    def enc(x):
        a = x.abs()
        idx = torch.randint(0, n, (ns,), device=dev)
        thr = torch.topk(a[idx], max(1, int(ns * ratio)), sorted=False)[0].min()
        mask = a >= thr
        sel = torch.nonzero(mask).view(-1)
        if sel.numel() > k:  # refine: the exact top-k of the selection (a sync, as in GRACE)
            _, j = torch.topk(a[sel], k, sorted=False)
            sel = sel[j]
        return x[sel], sel.to(torch.int32)
    return enc, c_topk(0.01)(n, dev)[1], None, {"sparsity": 0.999, "sample": 0.01, "refine": 1}


def c_qsgd(levels, bits_dtype, global_scale):
    def make(n, dev):
        def enc(x):
            norm = x.abs().max() if global_scale else x.norm()
            lv = (x.abs() / norm * levels + torch.rand_like(x)).floor()
            return norm, (lv * x.sign()).to(bits_dtype)

        def dec(p):
            return p[1].float() * (p[0] / levels)

        comb = None
        if global_scale:  # one scale on every worker: integer levels add
            comb = lambda a, b: (a[0], (a[1].to(torch.int32) + b[1].to(torch.int32)).to(bits_dtype))
        params = {"bits": 8} if global_scale else {"levels": levels}
        return enc, dec, comb, params
    return make


def c_terngrad(n, dev):
    def enc(x):
        sigma = x.std()
        xc = x.clamp(-2.5 * sigma, 2.5 * sigma)
        s = xc.abs().max()
        keep = torch.rand_like(x) < xc.abs() / s
        # two bits per coordinate: keep and sign
        return s, pack_bits(keep), pack_bits(xc >= 0)

    def dec(p):
        return unpack_bits(p[1], n).float() * signs(p[2], n) * p[0]
    return enc, dec, None, {"clip": 2.5}


def c_powersgd(n, dev):
    # rank 1 over the near-square view, as ccsim (cols = ceil(sqrt(n))) and GRACE
    cols = int(math.ceil(math.sqrt(n)))
    rows = (n + cols - 1) // cols
    q = torch.randn(cols, 1, device=dev)

    def enc(x):
        m = F.pad(x, (0, rows * cols - n)).view(rows, cols)
        p = m @ q
        p = p / p.norm().clamp(min=1e-12)  # orthogonalise (rank 1: normalise)
        return p, m.t() @ p

    def dec(pay):
        return (pay[0] @ pay[1].t()).view(-1)[:n]
    return enc, dec, None, {"rank": 1}


def c_sbc(n, dev):
    k = max(1, int(n * 0.01))

    def enc(x):
        vp, ip = torch.topk(x, k, sorted=False)
        vn, ineg = torch.topk(-x, k, sorted=False)
        mp, mn = vp.mean(), vn.mean()
        pos = mp >= mn
        return torch.where(pos, mp, -mn), torch.where(pos, ip, ineg).to(torch.int32)

    def dec(p):
        return torch.zeros(n, device=dev).scatter_(0, p[1].long(), p[0].expand(p[1].numel()))
    return enc, dec, None, {"ratio": 0.01}


def c_stc(n, dev):
    k = max(1, int(n * 0.01))

    def enc(x):
        _, idx = torch.topk(x.abs(), k, sorted=False)
        v = x[idx]
        return v.abs().mean(), idx.to(torch.int32), pack_bits(v >= 0)

    def dec(p):
        return torch.zeros(n, device=dev).scatter_(0, p[1].long(), signs(p[2], k) * p[0])
    return enc, dec, None, {"ratio": 0.01}


def c_s2_sketch(n, dev):
    # a count sketch of depth 1 and width ratio x n: hashed bucket and sign per coordinate
    width = max(1, int(n * 0.005))
    i = torch.arange(n, device=dev, dtype=torch.int64)
    h = (i * 2654435761) % width
    s = ((i * 40503) >> 7 & 1).float() * 2 - 1

    def enc(x):
        return (torch.zeros(width, device=dev).index_add_(0, h, x * s),)

    def dec(p):
        return p[0][h] * s
    return enc, dec, (lambda a, b: (a[0] + b[0],)), {"ratio": 0.005, "depth": 1}


COMPRESSORS = {
    "fp16": (c_cast(torch.float16), "x.half(); decode .float(); combine: add in fp32, round"),
    "bf16": (c_cast(torch.bfloat16), "x.bfloat16(); decode .float(); combine: add in fp32, round"),
    "signsgd": (c_signsgd, "sign bits packed 8 per byte"),
    "signum": (c_signum, "momentum (beta 0.9) update, sign bits packed"),
    "ef-signsgd": (c_ef_signsgd, "mean |x| and packed sign bits"),
    "onebit": (c_onebit, "means of the two signs and packed sign bits"),
    "sign-ring": (c_sign_ring, "scaled sign: mean |x| and packed sign bits"),
    "marsit": (c_marsit, "packed sign bits; combine: random bit-wise selection"),
    "natural": (c_natural, "frexp, stochastic power of two (int8 exponent), packed signs"),
    "topk": (c_topk(0.01), "torch.topk of |x| (1%), values and int32 indices; decode scatter"),
    "randomk": (c_randomk, "randperm with a shared seed (1%), values; combine: add"),
    "threshold": (c_threshold, "nonzero(|x| >= tau), values and int32 indices"),
    "dgc": (c_dgc, "GRACE DGC: threshold from a 1% sample's top 0.1%, refined by topk"),
    "qsgd": (c_qsgd(127, torch.int8, False), "norm, stochastic levels (127), int8"),
    "global-qsgd": (c_qsgd(127, torch.int8, True), "max |x| scale, stochastic levels, int8; combine: add levels"),
    "terngrad": (c_terngrad, "clip 2.5 sigma, stochastic ternary, 2 packed bit planes"),
    "powersgd": (c_powersgd, "rank 1 over a ceil(sqrt(n)) column view: P = MQ, normalise, Q = M^T P"),
    "sbc": (c_sbc, "topk of x and of -x (1%), keep the side with the larger mean"),
    "stc": (c_stc, "topk of |x| (1%), mean |v|, packed signs, int32 indices"),
    "s2-sketch": (c_s2_sketch, "count sketch, depth 1, width 0.5% of n; combine: add"),
}


def time_call(fn, repeats, timer):
    """(isolated, back_to_back) seconds of fn()."""
    fn()  # warm up (allocator, kernels)
    iso = []
    for _ in range(repeats):
        timer.sync()
        a = timer.mark()
        fn()
        b = timer.mark()
        timer.sync()
        iso.append(timer.seconds(a, b))
    timer.sync()
    a = timer.mark()
    for _ in range(repeats):
        fn()
    b = timer.mark()
    timer.sync()
    return statistics.median(iso), timer.seconds(a, b) / repeats


def measure_compressor(name, sizes, repeats, device, timer):
    make, how = COMPRESSORS[name]
    out = {"implementation": how, "sizes": sizes}
    ops = {"encode": ([], []), "decode": ([], []), "combine": ([], [])}
    has_combine = True
    params = {}
    for n in sizes:
        torch.manual_seed(n)
        x = torch.randn(n, device=device) * 0.01
        y = torch.randn(n, device=device) * 0.01
        enc, dec, comb, params = make(n, device)
        pa, pb = enc(x), enc(y)
        r = repeats if n <= 1 << 20 else max(3, repeats // 4)
        for op, fn in (("encode", lambda: enc(x)), ("decode", lambda: dec(pa)),
                       ("combine", (lambda: comb(pa, pb)) if comb else None)):
            if fn is None:
                has_combine = False
                continue
            i, b = time_call(fn, r, timer)
            ops[op][0].append(i)
            ops[op][1].append(b)
    out["params"] = params
    for op, (iso, b2b) in ops.items():
        if op == "combine" and not has_combine:
            continue
        out[op] = {"isolated_s": iso, "back_to_back_s": b2b}
    return out


def measure_buckets(sizes, repeats, device, timer):
    from torch._utils import _flatten_dense_tensors, _unflatten_dense_tensors
    fl, ufl = ([], []), ([], [])
    for n in sizes:
        parts = [torch.randn(max(1, n // 16), device=device) for _ in range(16)]
        flat = _flatten_dense_tensors(parts)
        for acc, fn in ((fl, lambda: _flatten_dense_tensors(parts)),
                        (ufl, lambda: [p.copy_(u) for p, u in zip(parts, _unflatten_dense_tensors(flat, parts))])):
            i, b = time_call(fn, repeats, timer)
            acc[0].append(i)
            acc[1].append(b)
    return {"tensors_per_bucket": 16, "sizes": [16 * max(1, n // 16) for n in sizes],
            "flatten": {"isolated_s": fl[0], "back_to_back_s": fl[1]},
            "unflatten": {"isolated_s": ufl[0], "back_to_back_s": ufl[1]}}


def measure_launch(repeats, device, timer):
    t = torch.zeros(1, device=device)
    i, b = time_call(lambda: t.add_(1), max(repeats, 100), timer)
    return {"op": "add_ on a 1-element tensor", "isolated_s": i, "back_to_back_s": b}


# ---------------------------------------------------------------- provenance


def smi(fields):
    try:
        r = subprocess.run(["nvidia-smi", "--query-gpu=" + fields, "--format=csv,noheader"],
                           capture_output=True, text=True, timeout=20)
        return r.stdout.strip().splitlines()[0] if r.returncode == 0 and r.stdout.strip() else None
    except (OSError, subprocess.SubprocessError):
        return None


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def provenance(device, notes):
    p = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "command": " ".join([os.path.relpath(sys.argv[0], ROOT) if sys.argv[0] else "?"] + sys.argv[1:]),
        "torch": torch.__version__,
        "python": platform.python_version(),
        "host_cpu": cpu_name(),
        "threads": torch.get_num_threads(),
    }
    if device.type == "cuda":
        p["device"] = torch.cuda.get_device_name(device)
        p["cuda"] = torch.version.cuda
        p["cudnn"] = torch.backends.cudnn.version()
        p["driver"] = smi("driver_version")
        p["clocks_mhz"] = smi("clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem")
        p["power_limit"] = smi("power.limit")
    else:
        p["device"] = cpu_name()
        p["cuda"] = None
    p["notes"] = notes
    return p


def main():
    ap = argparse.ArgumentParser(description="Measure a device for ccsim's time model.")
    ap.add_argument("--out", required=True, help="the device JSON to write")
    ap.add_argument("--name", help="the device's name in ccsim (default: the file name)")
    ap.add_argument("--roofline", default=None,
                    help="built-in ccsim device for what is not measured (default: h100 on a GPU, cpu else)")
    ap.add_argument("--summary", help="one line saying what was measured")
    ap.add_argument("--cpu", action="store_true", help="measure the CPU even when a GPU is present")
    ap.add_argument("--models", default=",".join(m["name"] for m in gen_profiles.MODELS),
                    help="comma-separated models, or '' for none (default: all)")
    ap.add_argument("--precisions", default=",".join(PRECISIONS), help="fp32,tf32,bf16 (default: all)")
    ap.add_argument("--compressors", default=",".join(COMPRESSORS), help="comma-separated, or '' for none")
    ap.add_argument("--sizes", default="10:25", help="log2 sizes: 'LO:HI' or a list '10,14,20' (default 10:25)")
    ap.add_argument("--elements", help="exact compressor sizes in elements, comma-separated "
                    "(instead of --sizes; for held-out checks between the table's powers of two)")
    ap.add_argument("--batch", type=int, help="batch of every model (default: per model, see the top)")
    ap.add_argument("--repeats", type=int, default=20, help="timed repeats per figure (default 20)")
    ap.add_argument("--warmup", type=int, default=3, help="untimed model iterations first (default 3)")
    ap.add_argument("--quick", action="store_true", help="few repeats (3, warmup 1): a smoke run")
    ap.add_argument("--threads", type=int, help="torch CPU threads (default: torch's)")
    o = ap.parse_args()
    if o.quick:
        o.repeats, o.warmup = 3, 1
    if o.threads:
        torch.set_num_threads(o.threads)
    device = torch.device("cuda") if torch.cuda.is_available() and not o.cpu else torch.device("cpu")
    timer = Timer(device)
    split = lambda s: [t for t in s.split(",") if t]
    models = split(o.models)
    known = {m["name"]: m for m in gen_profiles.MODELS}
    bad = [m for m in models if m not in known] + [c for c in split(o.compressors) if c not in COMPRESSORS] \
        + [p for p in split(o.precisions) if p not in PRECISIONS]
    if bad:
        sys.exit("unknown: %s" % ", ".join(bad))
    if ":" in o.sizes:
        lo, hi = (int(v) for v in o.sizes.split(":"))
        logs = list(range(lo, hi + 1))
    else:
        logs = [int(v) for v in split(o.sizes)]
    if not logs or sorted(set(logs)) != logs or logs[0] < 1 or logs[-1] > 34:
        sys.exit("--sizes: expected increasing log2 sizes in 1..34")
    sizes = [1 << k for k in logs]
    if o.elements:
        try:
            sizes = [int(v) for v in split(o.elements)]
        except ValueError:
            sys.exit("--elements: expected positive integers, comma-separated")
        if not sizes or sorted(set(sizes)) != sizes or sizes[0] < 16 or sizes[-1] > 1 << 34:
            sys.exit("--elements: expected increasing sizes in 16..2^34")
    notes = []
    precisions = split(o.precisions)
    if device.type == "cpu" and "tf32" in precisions:
        precisions.remove("tf32")
        notes.append("CPU: no TF32; tf32 is the same arithmetic as fp32 here and is not listed")
    name = o.name or os.path.splitext(os.path.basename(o.out))[0]
    doc = {
        "format": "ccsim-device-1",
        "name": name,
        "summary": o.summary or "measured on %s" % (torch.cuda.get_device_name(device) if device.type == "cuda" else cpu_name()),
        "roofline": o.roofline or ("h100" if device.type == "cuda" else "cpu"),
        "provenance": provenance(device, notes),
        "launch": measure_launch(o.repeats, device, timer),
        "models": {},
        "compressors": {},
    }
    for m in models:
        doc["models"][m] = {}
        for prec in precisions:
            batch = o.batch or DEFAULT_BATCH[m]
            t = time.time()
            doc["models"][m][prec] = measure_model(known[m], prec, batch, o.repeats, o.warmup, device, timer)
            print("%s %s batch %d: forward %.4g s, backward %.4g s (%.0f s)" % (
                m, prec, batch, doc["models"][m][prec]["forward_s"], doc["models"][m][prec]["backward_s"],
                time.time() - t), file=sys.stderr)
    set_precision("fp32", device)
    for c in split(o.compressors):
        t = time.time()
        doc["compressors"][c] = measure_compressor(c, sizes, o.repeats, device, timer)
        print("%s: %.0f s" % (c, time.time() - t), file=sys.stderr)
    doc["ddp_buckets"] = measure_buckets(sizes, o.repeats, device, timer)
    tmp = o.out + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    os.replace(tmp, o.out)
    print("wrote %s" % o.out, file=sys.stderr)


if __name__ == "__main__":
    main()
