"""The real models analysis/record_trace.py records gradients of.

Each task is a class with the same four members, built from the parsed
command line `a` and the torch module:
  model          the torch.nn.Module whose named_parameters() the trace holds
  train_size     how many training units (images, windows) the shards split
  loss(idx)      the mean loss of the training units idx (a numpy int array)
  accuracy()     the held-out accuracy of the current model (top-1)
  describe       one line for index.json's "source"

  digits-cnn     a small CNN on the digits CSV (the original recording)
  resnet-fmnist  a ResNet-style CNN (3 basic blocks with batch norm) on
                 Fashion-MNIST from Debian's dataset-fashion-mnist
  lstm-kjv       a one-layer LSTM language model on the King James Bible
                 (scripts/kjv-corpus.sh), the corpus of ccsim's dataset
                 "corpus-text", tokenized the same way
"""
import gzip
import os
import re
import struct
import sys
from collections import Counter, OrderedDict

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DIGITS_PATHS = [
    os.path.join(HERE, "..", "workloads", "data", "digits.csv.gz"),
    "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz",
]
FMNIST_DIR = "/usr/share/datasets/fashion-mnist"
KJV_PATH = "/usr/local/share/ccsim/kjv.txt"


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


def read_idx(path, ndims):
    """One gzip idx file of unsigned bytes (the MNIST format) as a numpy array."""
    try:
        with gzip.open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        die(f"{path}: {e.strerror or e} (install dataset-fashion-mnist: scripts/install-deps.sh)")
    if len(raw) < 4 + 4 * ndims or raw[:4] != bytes([0, 0, 8, ndims]):
        die(f"{path}: not an idx file of {ndims} dimensions of unsigned bytes")
    dims = struct.unpack(">" + "I" * ndims, raw[4:4 + 4 * ndims])
    body = np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndims)
    if body.size != int(np.prod(dims)):
        die(f"{path}: {body.size} bytes of data, the header says {int(np.prod(dims))}")
    return body.reshape(dims)


class Split:
    """Training units and a held-out set, split by a seeded permutation."""

    def __init__(self, n, test, seed):
        perm = np.random.default_rng(seed).permutation(n)
        self.test, self.train = np.sort(perm[:test]), np.sort(perm[test:])


class DigitsCNN:
    def __init__(self, a, torch):
        nn = torch.nn
        path = a.data
        if not path:
            path = next((os.path.normpath(p) for p in DIGITS_PATHS if os.path.exists(p)), None)
        if not path:
            die("no digits dataset: pass --data PATH, add workloads/data/digits.csv.gz, "
                "or install python3-sklearn (it ships digits.csv.gz)")
        x, y = load_digits(path)
        perm = np.random.default_rng(a.seed).permutation(len(x))
        n_test = len(x) // 6
        self.test_idx, self.train_idx = perm[:n_test], perm[n_test:]
        self.x, self.y = torch.from_numpy(x), torch.from_numpy(y)
        self.torch = torch
        # 8x8 -> conv 3x3 (16) -> conv 3x3 (32) -> 2x2 max-pool -> 4x4x32 -> 64 -> 10
        self.model = nn.Sequential(OrderedDict([
            ("conv1", nn.Conv2d(1, 16, 3, padding=1)), ("relu1", nn.ReLU()),
            ("conv2", nn.Conv2d(16, 32, 3, padding=1)), ("relu2", nn.ReLU()),
            ("pool", nn.MaxPool2d(2)), ("flatten", nn.Flatten()),
            ("fc1", nn.Linear(32 * 4 * 4, 64)), ("relu3", nn.ReLU()),
            ("fc2", nn.Linear(64, 10))]))
        self.describe = f"CNN on digits ({os.path.basename(path)}, {len(self.train_idx)} training samples)"

    def loss(self, idx):
        b = self.torch.from_numpy(self.train_idx[idx])
        return self.torch.nn.functional.cross_entropy(self.model(self.x[b]), self.y[b])

    @property
    def train_size(self):
        return len(self.train_idx)

    def accuracy(self):
        with self.torch.no_grad():
            t = self.torch.from_numpy(self.test_idx)
            return (self.model(self.x[t]).argmax(1) == self.y[t]).float().mean().item()


def resnet(torch, width):
    """A ResNet-style CNN for 28x28 grey images (He et al. 2016's basic
    block): conv 3x3 (w) - BN - ReLU, then three basic blocks (w, stride 1;
    2w, stride 2 with a 1x1 projection; 2w, stride 1), global average
    pooling, linear 2w -> 10."""
    nn = torch.nn

    class Block(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.proj = None
            if stride != 1 or cin != cout:
                self.proj = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                          nn.BatchNorm2d(cout))

        def forward(self, x):
            h = torch.relu(self.bn1(self.conv1(x)))
            h = self.bn2(self.conv2(h))
            return torch.relu(h + (x if self.proj is None else self.proj(x)))

    w = width
    return nn.Sequential(OrderedDict([
        ("stem", nn.Conv2d(1, w, 3, 1, 1, bias=False)), ("bn", nn.BatchNorm2d(w)), ("relu", nn.ReLU()),
        ("block1", Block(w, w, 1)), ("block2", Block(w, 2 * w, 2)), ("block3", Block(2 * w, 2 * w, 1)),
        ("pool", nn.AdaptiveAvgPool2d(1)), ("flatten", nn.Flatten()), ("fc", nn.Linear(2 * w, 10))]))


class ResNetFMNIST:
    """Fashion-MNIST's published training set (60,000) and 1,000 of its test
    images, pixels scaled to [0, 1] and standardized with the training
    mean and deviation."""

    def __init__(self, a, torch):
        d = a.data or FMNIST_DIR
        x = read_idx(os.path.join(d, "train-images-idx3-ubyte.gz"), 3).astype(np.float32) / 255
        y = read_idx(os.path.join(d, "train-labels-idx1-ubyte.gz"), 1).astype(np.int64)
        xt = read_idx(os.path.join(d, "t10k-images-idx3-ubyte.gz"), 3)[:1000].astype(np.float32) / 255
        yt = read_idx(os.path.join(d, "t10k-labels-idx1-ubyte.gz"), 1)[:1000].astype(np.int64)
        mu, sd = x.mean(), x.std()
        self.x = torch.from_numpy(((x - mu) / sd)[:, None])
        self.xt = torch.from_numpy(((xt - mu) / sd)[:, None])
        self.y, self.yt = torch.from_numpy(y), torch.from_numpy(yt)
        self.torch = torch
        self.model = resnet(torch, a.width)
        self.describe = (f"ResNet-style CNN (width {a.width}, 3 basic blocks, batch norm) on "
                         f"Fashion-MNIST ({d}, {len(y)} training images)")

    @property
    def train_size(self):
        return len(self.y)

    def loss(self, idx):
        self.model.train()
        b = self.torch.from_numpy(idx)
        return self.torch.nn.functional.cross_entropy(self.model(self.x[b]), self.y[b])

    def accuracy(self):
        self.model.eval()
        with self.torch.no_grad():
            acc = (self.model(self.xt).argmax(1) == self.yt).float().mean().item()
        self.model.train()
        return acc


def kjv_ids(path, vocab):
    """The corpus as word ids, tokenized as src/train/corpus.c does: maximal
    runs of ASCII letters, lower-cased; the `vocab` most frequent words
    (ties: byte order) get ids 0..vocab-1, every other word <unk> = vocab."""
    try:
        with open(path, "rb") as f:
            text = f.read().decode("ascii", "replace").lower()
    except OSError as e:
        die(f"{path}: {e.strerror or e} (scripts/kjv-corpus.sh writes it; scripts/install-deps.sh runs it)")
    words = re.findall("[a-z]+", text)
    if len(words) < 1000:
        die(f"{path}: {len(words)} words; the King James Bible has 791,679")
    counts = Counter(words)
    top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:vocab]
    ix = {wd: i for i, (wd, _) in enumerate(top)}
    return np.asarray([ix.get(wd, vocab) for wd in words], dtype=np.int64), len(words)


class LstmKJV:
    """Next-word prediction on windows of --seq-len + 1 consecutive words
    (non-overlapping, in corpus order); a seeded 2% of the windows are
    held out.  Embedding (V+1 x E; its gradient is non-zero only in the
    rows of the batch's words) - one LSTM layer (H) - linear H -> V+1, the
    mean cross-entropy over every position of every window."""

    def __init__(self, a, torch):
        nn = torch.nn
        ids, nwords = kjv_ids(a.data or KJV_PATH, a.vocab)
        L = a.seq_len + 1
        wins = ids[:len(ids) // L * L].reshape(-1, L)
        s = Split(len(wins), max(1, len(wins) // 50), a.seed)
        self.train_w = torch.from_numpy(wins[s.train])
        self.test_w = torch.from_numpy(wins[s.test])
        self.torch = torch
        V = a.vocab + 1

        class LM(nn.Module):
            def __init__(self):
                super().__init__()
                self.embed = nn.Embedding(V, a.embed)
                self.lstm = nn.LSTM(a.embed, a.hidden, batch_first=True)
                self.out = nn.Linear(a.hidden, V)

            def forward(self, x):
                h, _ = self.lstm(self.embed(x))
                return self.out(h)

        self.model = LM()
        self.V = V
        self.describe = (f"LSTM language model (vocabulary {a.vocab} + <unk>, embedding {a.embed}, "
                         f"hidden {a.hidden}, windows of {a.seq_len} words) on the King James Bible "
                         f"({nwords} words, {len(wins)} windows)")

    @property
    def train_size(self):
        return len(self.train_w)

    def _loss(self, w):
        logits = self.model(w[:, :-1])
        return self.torch.nn.functional.cross_entropy(logits.reshape(-1, self.V), w[:, 1:].reshape(-1))

    def loss(self, idx):
        return self._loss(self.train_w[self.torch.from_numpy(idx)])

    def accuracy(self):
        with self.torch.no_grad():
            w = self.test_w
            pred = self.model(w[:, :-1]).argmax(-1)
            return (pred == w[:, 1:]).float().mean().item()


TASKS = OrderedDict([("digits-cnn", DigitsCNN), ("resnet-fmnist", ResNetFMNIST), ("lstm-kjv", LstmKJV)])
