#!/usr/bin/python3
"""Record a ccsim gradient trace from real data-parallel training.

usage: analysis/record_trace.py --out DIR [--model digits-cnn|resnet-fmnist|lstm-kjv]
                                [--workers 4] [--iterations 100] [--warmup 0]
                                [--batch 32] [--lr 0.1] [--seed 1] [--data PATH]
                                [--width 16] [--vocab 1000] [--embed 32] [--hidden 64]
                                [--seq-len 16]

Trains a real model (analysis/trace_tasks.py: a small CNN on the digits
dataset, a ResNet-style CNN with batch norm on Fashion-MNIST, or an LSTM
language model on the King James Bible) with plain synchronous
data-parallel SGD, simulated in one process: the training set is split into
one shard per worker; at every iteration each worker computes the gradient
of its own mini-batch's mean loss at the SAME model state, and the model
then takes one SGD step along the mean of the workers' gradients -- what an
all-reduce based data-parallel run computes.  The first --warmup iterations
train without being recorded (gradients of a model that has started to
learn, not of its initialisation); every worker's gradient at each of the
next --iterations is written in ccsim's trace format (src/data/trace.h,
analysis/TRACES.md): DIR/index.json plus DIR/w{worker}/it{iteration}.npy,
one little-endian float32 vector of all layers concatenated in order.
index.json is written last, so an interrupted recording leaves no trace
ccsim would accept.

Prints the mean training loss per iteration and, at the end, the held-out
accuracy.  Needs python3-torch and python3-numpy (scripts/install-deps.sh);
run with /usr/bin/python3.  Deterministic for a given seed (one thread,
deterministic algorithms), and the same on every x86-64 machine with AVX2:
OpenBLAS's kernels are pinned (pin_blas) and oneDNN is off.

--data: the digits CSV (else workloads/data/digits.csv.gz of this source
tree, else python3-sklearn's copy), the Fashion-MNIST directory (else
/usr/share/datasets/fashion-mnist), or the KJV text (else
/usr/local/share/ccsim/kjv.txt, scripts/kjv-corpus.sh).
"""
import argparse
import json
import os


def pin_blas():
    """The BLAS kernels decide the floats, and Debian's OpenBLAS picks them
    by CPU (SkylakeX on an AVX-512 Intel, Zen or Haswell elsewhere): the same
    seed recorded different traces on different machines.  Pin the AVX2
    kernels (Haswell), which every x86-64 CPU with AVX2 and FMA runs, unless
    the caller chose (OPENBLAS_CORETYPE); without AVX2 nothing is pinned and
    the trace may differ.  Must run before numpy loads OpenBLAS.  Returns
    the kernels pinned, or None."""
    if "OPENBLAS_CORETYPE" not in os.environ:
        try:
            with open("/proc/cpuinfo") as f:
                flags = next((l.split() for l in f if l.startswith("flags")), [])
        except OSError:
            flags = []
        if "avx2" in flags and "fma" in flags:
            os.environ["OPENBLAS_CORETYPE"] = "Haswell"
    return os.environ.get("OPENBLAS_CORETYPE")


BLAS = pin_blas()

import numpy as np  # noqa: E402 (after pin_blas)

from trace_tasks import TASKS, die


class Shard:
    """One worker's share of the training set, visited in a fresh random
    order every epoch."""

    def __init__(self, idx, seed, worker):
        self.idx = idx
        self.rng = np.random.default_rng([seed, worker])
        self.order, self.pos = self.rng.permutation(idx), 0

    def batch(self, b):
        if self.pos + b > len(self.order):
            self.order, self.pos = self.rng.permutation(self.idx), 0
        out = self.order[self.pos:self.pos + b]
        self.pos += b
        return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="trace directory to write")
    ap.add_argument("--model", choices=list(TASKS), default="digits-cnn",
                    help="what to train (analysis/trace_tasks.py)")
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--iterations", type=int, default=100, help="recorded iterations")
    ap.add_argument("--warmup", type=int, default=0, help="iterations trained before recording")
    ap.add_argument("--batch", type=int, default=32, help="mini-batch per worker")
    ap.add_argument("--lr", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--data", help="the dataset's file or directory (see above)")
    ap.add_argument("--width", type=int, default=16, help="resnet-fmnist: channels of the first block")
    ap.add_argument("--vocab", type=int, default=1000, help="lstm-kjv: words besides <unk>")
    ap.add_argument("--embed", type=int, default=32, help="lstm-kjv: embedding width")
    ap.add_argument("--hidden", type=int, default=64, help="lstm-kjv: LSTM width")
    ap.add_argument("--seq-len", type=int, default=16, help="lstm-kjv: words of context per window")
    a = ap.parse_args()
    if a.workers < 1 or a.iterations < 1 or a.batch < 1 or not a.lr > 0 or a.warmup < 0:
        die("--workers, --iterations and --batch must be >= 1, --warmup >= 0, --lr > 0")
    if min(a.width, a.vocab, a.embed, a.hidden, a.seq_len) < 1:
        die("--width, --vocab, --embed, --hidden and --seq-len must be >= 1")
    try:
        import torch
    except ImportError:
        die("cannot import torch: run scripts/install-deps.sh (python3-torch)")

    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    # oneDNN picks its kernels (and their blocking) by CPU too: without it
    # convolutions go through the BLAS, whose kernels pin_blas pinned
    torch.backends.mkldnn.enabled = False
    torch.manual_seed(a.seed)

    task = TASKS[a.model](a, torch)
    n = task.train_size
    shard_size = n // a.workers
    if a.batch > shard_size:
        die(f"--batch {a.batch} exceeds a worker's shard ({shard_size} units: "
            f"{n} training units / {a.workers} workers)")
    pos = np.arange(n)
    shards = [Shard(pos[w::a.workers][:shard_size], a.seed, w) for w in range(a.workers)]

    model = task.model
    params = list(model.named_parameters())
    layers = [{"name": nm, "shape": list(p.shape), "count": p.numel()} for nm, p in params]
    elements = sum(l["count"] for l in layers)

    os.makedirs(a.out, exist_ok=True)
    index_path = os.path.join(a.out, "index.json")
    if os.path.exists(index_path):
        os.remove(index_path)  # until the new one is written, DIR is no trace
    for w in range(a.workers):
        os.makedirs(os.path.join(a.out, f"w{w}"), exist_ok=True)

    for step in range(a.warmup + a.iterations):
        it = step - a.warmup  # the recorded iteration, < 0 while warming up
        total = torch.zeros(elements, dtype=torch.float32)
        losses = []
        for w in range(a.workers):
            model.zero_grad(set_to_none=False)
            loss = task.loss(shards[w].batch(a.batch))
            loss.backward()
            g = torch.cat([p.grad.reshape(-1) for _, p in params])
            gn = g.numpy().astype("<f4")
            if not np.isfinite(gn).all():
                die(f"worker {w}, iteration {step}: non-finite gradient (lower --lr)")
            if it >= 0:
                # written whole under a temporary name, then renamed: a killed
                # recording never leaves a truncated .npy file
                path = os.path.join(a.out, f"w{w}", f"it{it}.npy")
                with open(path + ".tmp", "wb") as f:
                    np.save(f, gn)
                os.replace(path + ".tmp", path)
            total += g
            losses.append(loss.item())
        mean = total / a.workers
        with torch.no_grad():  # one SGD step along the mean gradient
            off = 0
            for _, p in params:
                p -= a.lr * mean[off:off + p.numel()].view_as(p)
                off += p.numel()
        print(f"iteration {step} loss {np.mean(losses):.6f}", flush=True)

    acc = task.accuracy()
    steps = a.warmup + a.iterations
    print(f"held-out accuracy {acc:.4f} after {steps} iterations")

    warm = f", the first {a.warmup} iterations not recorded" if a.warmup else ""
    index = {
        "format": "ccsim-trace",
        "version": 1,
        "workers": a.workers,
        "iterations": a.iterations,
        "layers": layers,
        "elements": elements,
        "files": "w{worker}/it{iteration}.npy",
        "source": (f"analysis/record_trace.py --model {a.model}: {task.describe}, "
                   f"{a.workers} workers x batch {a.batch}, data-parallel SGD lr {a.lr}, "
                   f"seed {a.seed}{warm}, torch {torch.__version__}, "
                   f"OpenBLAS kernels {BLAS or 'chosen by the CPU'}, no oneDNN; "
                   f"held-out accuracy {acc:.4f} after {steps} iterations"),
    }
    tmp = index_path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(index, f, indent=1)
        f.write("\n")
    os.replace(tmp, index_path)


if __name__ == "__main__":
    main()
