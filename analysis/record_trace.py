#!/usr/bin/python3
"""Record a ccsim gradient trace from real data-parallel training.

usage: analysis/record_trace.py --out DIR [--workers 4] [--iterations 100]
                                [--batch 32] [--lr 0.1] [--seed 1] [--data PATH]

Trains a small CNN on the digits dataset (1797 8x8 grey images, 10 classes)
with plain synchronous data-parallel SGD, simulated in one process: the
training set is split into one shard per worker; at every iteration each
worker computes the gradient of its own mini-batch's mean cross-entropy at
the SAME model state, and the model then takes one SGD step along the mean
of the workers' gradients -- what an all-reduce based data-parallel run
computes.  Every worker's gradient at every iteration is written in ccsim's
trace format (src/data/trace.h, analysis/TRACES.md): DIR/index.json plus
DIR/w{worker}/it{iteration}.npy, one little-endian float32 vector of all
layers concatenated in order.  index.json is written last, so an interrupted
recording leaves no trace ccsim would accept.

Prints the mean training loss per iteration and, at the end, the held-out
accuracy.  Needs python3-torch and python3-numpy (scripts/install-deps.sh);
run with /usr/bin/python3.  Deterministic for a given seed (one thread,
deterministic algorithms).

The dataset: --data PATH, else workloads/data/digits.csv.gz of this source
tree, else the copy python3-sklearn installs.  A CSV (optionally gzipped)
of 65 columns per row: 64 pixel values in [0, 16], then the label 0..9.
"""
import argparse
import gzip
import json
import os
import sys
from collections import OrderedDict

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DATA_PATHS = [
    os.path.join(HERE, "..", "workloads", "data", "digits.csv.gz"),
    "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz",
]


def die(msg):
    print(f"record_trace.py: {msg}", file=sys.stderr)
    sys.exit(2)


def load_digits(path):
    """(images float32 [n, 1, 8, 8], standardized; labels int64 [n])."""
    opener = gzip.open if path.endswith(".gz") else open
    xs, ys = [], []
    try:
        with opener(path, "rt") as f:
            for lineno, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                cells = line.split(",")
                try:
                    vals = [float(c) for c in cells]
                except ValueError:
                    if lineno == 1:  # a header row
                        continue
                    die(f"{path}:{lineno}: expected numbers, got {line[:60]!r}")
                if len(vals) != 65:
                    die(f"{path}:{lineno}: expected 65 columns (64 pixels, label), got {len(vals)}")
                px, label = vals[:64], vals[64]
                if min(px) < 0 or max(px) > 16:
                    die(f"{path}:{lineno}: pixel values must lie in [0, 16]")
                if label != int(label) or not 0 <= label <= 9:
                    die(f"{path}:{lineno}: label must be an integer 0..9, got {cells[64]}")
                xs.append(px)
                ys.append(int(label))
    except OSError as e:
        die(f"{path}: {e.strerror or e}")
    if len(xs) < 100:
        die(f"{path}: {len(xs)} samples; the digits dataset has 1797")
    x = np.asarray(xs, dtype=np.float32).reshape(-1, 1, 8, 8)
    x = (x - x.mean()) / x.std()  # standardized: plain SGD then trains in tens of steps
    return x, np.asarray(ys, dtype=np.int64)


def find_data(arg):
    if arg:
        return arg
    for p in DATA_PATHS:
        if os.path.exists(p):
            return os.path.normpath(p)
    die("no digits dataset: pass --data PATH, add workloads/data/digits.csv.gz, "
        "or install python3-sklearn (it ships digits.csv.gz)")


def make_model(torch):
    nn = torch.nn
    # 8x8 -> conv 3x3 (16) -> conv 3x3 (32) -> 2x2 max-pool -> 4x4x32 -> 64 -> 10
    return nn.Sequential(OrderedDict([
        ("conv1", nn.Conv2d(1, 16, 3, padding=1)), ("relu1", nn.ReLU()),
        ("conv2", nn.Conv2d(16, 32, 3, padding=1)), ("relu2", nn.ReLU()),
        ("pool", nn.MaxPool2d(2)), ("flatten", nn.Flatten()),
        ("fc1", nn.Linear(32 * 4 * 4, 64)), ("relu3", nn.ReLU()),
        ("fc2", nn.Linear(64, 10))]))


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
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--iterations", type=int, default=100)
    ap.add_argument("--batch", type=int, default=32, help="mini-batch per worker")
    ap.add_argument("--lr", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--data", help="digits CSV (.csv or .csv.gz)")
    a = ap.parse_args()
    if a.workers < 1 or a.iterations < 1 or a.batch < 1 or not a.lr > 0:
        die("--workers, --iterations and --batch must be >= 1, --lr > 0")
    try:
        import torch
    except ImportError:
        die("cannot import torch: run scripts/install-deps.sh (python3-torch)")
    import torch.nn.functional as F

    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    torch.manual_seed(a.seed)

    data = find_data(a.data)
    x, y = load_digits(data)
    perm = np.random.default_rng(a.seed).permutation(len(x))
    n_test = len(x) // 6
    test, train = perm[:n_test], perm[n_test:]
    shard_size = len(train) // a.workers
    if a.batch > shard_size:
        die(f"--batch {a.batch} exceeds a worker's shard ({shard_size} samples: "
            f"{len(train)} training samples / {a.workers} workers)")
    shards = [Shard(train[w::a.workers][:shard_size], a.seed, w) for w in range(a.workers)]
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)

    model = make_model(torch)
    params = list(model.named_parameters())
    layers = [{"name": n, "shape": list(p.shape), "count": p.numel()} for n, p in params]
    elements = sum(l["count"] for l in layers)

    os.makedirs(a.out, exist_ok=True)
    index_path = os.path.join(a.out, "index.json")
    if os.path.exists(index_path):
        os.remove(index_path)  # until the new one is written, DIR is no trace
    for w in range(a.workers):
        os.makedirs(os.path.join(a.out, f"w{w}"), exist_ok=True)

    for it in range(a.iterations):
        total = torch.zeros(elements, dtype=torch.float32)
        losses = []
        for w in range(a.workers):
            b = torch.from_numpy(shards[w].batch(a.batch))
            model.zero_grad(set_to_none=False)
            loss = F.cross_entropy(model(xt[b]), yt[b])
            loss.backward()
            g = torch.cat([p.grad.reshape(-1) for _, p in params])
            gn = g.numpy().astype("<f4")
            if not np.isfinite(gn).all():
                die(f"worker {w}, iteration {it}: non-finite gradient (lower --lr)")
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
        print(f"iteration {it} loss {np.mean(losses):.6f}", flush=True)

    with torch.no_grad():
        acc = (model(xt[test]).argmax(1) == yt[test]).float().mean().item()
    print(f"held-out accuracy {acc:.4f} ({len(test)} samples) after {a.iterations} iterations")

    index = {
        "format": "ccsim-trace",
        "version": 1,
        "workers": a.workers,
        "iterations": a.iterations,
        "layers": layers,
        "elements": elements,
        "files": "w{worker}/it{iteration}.npy",
        "source": (f"analysis/record_trace.py: CNN on digits ({os.path.basename(data)}, "
                   f"{len(train)} training samples), {a.workers} workers x batch {a.batch}, "
                   f"data-parallel SGD lr {a.lr}, seed {a.seed}, torch {torch.__version__}; "
                   f"held-out accuracy {acc:.4f}"),
    }
    tmp = index_path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(index, f, indent=1)
        f.write("\n")
    os.replace(tmp, index_path)


if __name__ == "__main__":
    main()
