#!/usr/bin/python3
"""scripts/gen_profiles.py — write the model profiles of ccsim's time model.

Run with Debian's Python (python3-torch, python3-torchvision from apt):

    /usr/bin/python3 scripts/gen_profiles.py [--out DIR] [MODEL...]
    (default: every model, into workloads/models; about 10 minutes on one core)

For each model it builds the real architecture on the CPU, runs one forward
pass on one sample of the real input shape and writes OUTDIR/<name>.json:
one entry per parameter tensor, in FORWARD order (the simulator reverses it
for backward), with the tensor's element count and the flops of one sample.

How the flops are measured.  A TorchDispatchMode sees every ATen operator the
forward pass runs (below autograd, after composite operators such as linear,
matmul and the LSTM have been decomposed).  It counts 2 flops per
multiply-add of the contractions — convolution, mm, addmm, bmm, baddbmm — the
convention behind the published "GMACs x 2" figures (torchvision's model
tables, fvcore).  Elementwise operators (bias adds, activations,
normalisation, softmax, pooling, residual adds) are not counted; the script
prints their share (1 flop per output element) so it can be checked small.

How flops are attributed.  Forward pre-hooks on every module that owns
parameters track the module running now; an operator's flops go to that
module, so parameter-free work (attention scores, a tied LM head, pooling)
goes to the parameterised module that ran last before it.  Within a module,
all its flops go to its LAST parameter tensor in registration order (e.g.
fc.bias carries fc's flops, fc.weight 0): reversed for backward, that tensor
comes first, so the module's whole backward cost is paid before any of its
gradients is ready, and the module's other tensors follow at no extra cost.

Backward flops: 2 x forward, per tensor (the standard approximation: the
gradient with respect to the inputs and the gradient with respect to the
weights each cost one contraction of the forward's size; Kaplan et al. 2020,
"Scaling Laws for Neural Language Models", sec. 2.1; Narayanan et al. 2021,
"Efficient Large-Scale Language Model Training on GPU Clusters", appendix).
It overstates the first layer, which needs no input gradient.

Checks (the script stops if one fails): the parameter totals the brief and
the papers give; batch 2 costs exactly twice batch 1 for every tensor (the
numbers are per sample); every tensor is used by the forward pass.
"""
import argparse
import json
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode

aten = torch.ops.aten


def torchvision():
    """torchvision, imported when a model needs it (the other models, and
    scripts/measure_device.py on them, run without it)."""
    import torchvision as tv
    return tv


# ---------------------------------------------------------------- counting


def _numel(shape):
    n = 1
    for s in shape:
        n *= int(s)
    return n


def _conv_macs(args, out):
    weight = args[1]
    # weight: [out_channels, in_channels / groups, *kernel]
    return _numel(out.shape) * _numel(weight.shape[1:])


def _mm_macs(a, b):
    # a [..., n, k] @ b [..., k, m]
    return _numel(a.shape) * int(b.shape[-1])


CONTRACTIONS = {
    aten.convolution.default: lambda args, out: _conv_macs(args, out),
    aten.mm.default: lambda args, out: _mm_macs(args[0], args[1]),
    aten.addmm.default: lambda args, out: _mm_macs(args[1], args[2]),
    aten.bmm.default: lambda args, out: _mm_macs(args[0], args[1]),
    aten.baddbmm.default: lambda args, out: _mm_macs(args[1], args[2]),
}

# Operators that move or view data without arithmetic.
NO_ARITHMETIC = {
    "view", "_unsafe_view", "reshape", "t", "transpose", "permute", "expand", "clone",
    "contiguous", "slice", "select", "unsqueeze", "squeeze", "embedding", "detach",
    "alias", "split", "split_with_sizes", "unbind", "chunk", "cat", "stack", "index_select",
    "_to_copy", "copy_", "empty", "zeros", "ones", "arange", "full", "fill_", "new_zeros",
    "new_empty", "lift_fresh", "native_dropout", "dropout", "as_strided", "flatten", "zero_",
    "scalar_tensor", "_reshape_alias", "masked_fill", "where", "tril", "triu",
}


class FlopCounter(TorchDispatchMode):
    """Counts contraction flops per current module, and other output elements."""

    def __init__(self):
        super().__init__()
        self.current = None
        self.flops = {}
        self.other = 0
        self.unknown_before_first = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if func in CONTRACTIONS:
            f = 2 * CONTRACTIONS[func](args, out)
            if self.current is None:
                self.unknown_before_first += f
            else:
                self.flops[self.current] = self.flops.get(self.current, 0) + f
        elif func.overloadpacket.__name__ not in NO_ARITHMETIC:
            # Operators such as native_batch_norm return (output, statistics...).
            first = out[0] if isinstance(out, (tuple, list)) and out else out
            if isinstance(first, torch.Tensor):
                self.other += first.numel()
        return out


def measure(model, make_input, batch):
    """Forward `batch` samples; return (module order, flops per module, other elements)."""
    owners = [(n, m) for n, m in model.named_modules() if list(m.parameters(recurse=False))]
    counter = FlopCounter()
    order = []

    def pre_hook(name):
        def hook(module, inputs):
            counter.current = name
            if name not in order:
                order.append(name)
        return hook

    handles = [m.register_forward_pre_hook(pre_hook(n)) for n, m in owners]
    try:
        inputs = make_input(batch)
        with torch.no_grad(), counter:
            model(*inputs)
    finally:
        for h in handles:
            h.remove()
    if counter.unknown_before_first:
        sys.exit("contraction before any parameterised module")
    unused = [n for n, _ in owners if n not in order]
    if unused:
        sys.exit("modules not used by the forward pass: %s" % unused)
    return order, counter.flops, counter.other


def profile(model, make_input):
    """Per-tensor layers in forward order, per sample; checked against batch 2."""
    model.eval()
    order, flops1, other1 = measure(model, make_input, 1)
    order2, flops2, other2 = measure(model, make_input, 2)
    if order2 != order or any(flops2.get(k, 0) != 2 * flops1.get(k, 0) for k in order):
        sys.exit("flops of batch 2 are not twice those of batch 1")
    modules = dict(model.named_modules())
    seen = set()
    layers = []
    for mname in order:
        tensors = [(pname, p) for pname, p in modules[mname].named_parameters(recurse=False)]
        for i, (pname, p) in enumerate(tensors):
            if id(p) in seen:
                sys.exit("parameter %s.%s shared by two modules" % (mname, pname))
            seen.add(id(p))
            fwd = flops1.get(mname, 0) if i == len(tensors) - 1 else 0
            layers.append({"name": (mname + "." if mname else "") + pname, "params": p.numel(),
                           "fwd_flops": fwd, "bwd_flops": 2 * fwd})
    if len(seen) != len(list(model.parameters())):
        sys.exit("some parameters were not attributed")
    return layers, other1


# ---------------------------------------------------------------- models


class BertLayer(nn.Module):
    def __init__(self, h, heads, ffn):
        super().__init__()
        self.heads = heads
        self.query = nn.Linear(h, h)
        self.key = nn.Linear(h, h)
        self.value = nn.Linear(h, h)
        self.attn_out = nn.Linear(h, h)
        self.attn_norm = nn.LayerNorm(h, eps=1e-12)
        self.ffn_in = nn.Linear(h, ffn)
        self.ffn_out = nn.Linear(ffn, h)
        self.ffn_norm = nn.LayerNorm(h, eps=1e-12)

    def forward(self, x):
        b, s, h = x.shape
        d = h // self.heads

        def split(t):
            return t.view(b, s, self.heads, d).transpose(1, 2)

        q, k, v = split(self.query(x)), split(self.key(x)), split(self.value(x))
        a = torch.softmax(q @ k.transpose(-1, -2) / d ** 0.5, dim=-1) @ v
        x = self.attn_norm(x + self.attn_out(a.transpose(1, 2).reshape(b, s, h)))
        return self.ffn_norm(x + self.ffn_out(F.gelu(self.ffn_in(x))))


class Bert(nn.Module):
    """BERT-base encoder with pooler (Devlin et al. 2019, "BERT: Pre-training of
    Deep Bidirectional Transformers for Language Understanding", sec. 3 and
    appendix A.2): 12 layers, hidden 768, 12 heads, FFN 3072, WordPiece vocabulary
    30522, 512 positions, 2 token types; no pre-training heads."""

    def __init__(self, vocab=30522, positions=512, types=2, h=768, layers=12, heads=12, ffn=3072):
        super().__init__()
        self.word = nn.Embedding(vocab, h)
        self.position = nn.Embedding(positions, h)
        self.token_type = nn.Embedding(types, h)
        self.embed_norm = nn.LayerNorm(h, eps=1e-12)
        self.layer = nn.ModuleList(BertLayer(h, heads, ffn) for _ in range(layers))
        self.pooler = nn.Linear(h, h)

    def forward(self, ids, types):
        pos = torch.arange(ids.shape[1], device=ids.device).unsqueeze(0)
        x = self.embed_norm(self.word(ids) + self.position(pos) + self.token_type(types))
        for layer in self.layer:
            x = layer(x)
        return torch.tanh(self.pooler(x[:, 0]))


class Gpt2Block(nn.Module):
    def __init__(self, h, heads):
        super().__init__()
        self.heads = heads
        self.ln_1 = nn.LayerNorm(h)
        self.c_attn = nn.Linear(h, 3 * h)
        self.attn_proj = nn.Linear(h, h)
        self.ln_2 = nn.LayerNorm(h)
        self.c_fc = nn.Linear(h, 4 * h)
        self.mlp_proj = nn.Linear(4 * h, h)

    def forward(self, x):
        b, s, h = x.shape
        d = h // self.heads
        q, k, v = (t.view(b, s, self.heads, d).transpose(1, 2)
                   for t in self.c_attn(self.ln_1(x)).split(h, dim=2))
        scores = q @ k.transpose(-1, -2) / d ** 0.5
        causal = torch.ones(s, s, dtype=torch.bool, device=x.device).tril()
        a = torch.softmax(scores.masked_fill(~causal, float("-inf")), dim=-1) @ v
        x = x + self.attn_proj(a.transpose(1, 2).reshape(b, s, h))
        return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))


class Gpt2(nn.Module):
    """GPT-2 small (Radford et al. 2019, "Language Models are Unsupervised
    Multitask Learners", sec. 2.3 and table 2): 12 layers, hidden 768, 12 heads,
    byte-level BPE vocabulary 50257, 1024 positions, pre-norm blocks, a final
    LayerNorm, and an LM head tied to the token embedding."""

    def __init__(self, vocab=50257, positions=1024, h=768, layers=12, heads=12):
        super().__init__()
        self.wte = nn.Embedding(vocab, h)
        self.wpe = nn.Embedding(positions, h)
        self.h = nn.ModuleList(Gpt2Block(h, heads) for _ in range(layers))
        self.ln_f = nn.LayerNorm(h)

    def forward(self, ids):
        x = self.wte(ids) + self.wpe(torch.arange(ids.shape[1], device=ids.device).unsqueeze(0))
        for block in self.h:
            x = block(x)
        return F.linear(self.ln_f(x), self.wte.weight)  # tied LM head


class LstmLm(nn.Module):
    """Word-level LSTM language model, Zaremba et al. 2014 ("Recurrent Neural
    Network Regularization", sec. 4.1) medium configuration: 2 layers of 650
    units, vocabulary 10000 (Penn Treebank), unrolled 35 steps; input embedding
    and softmax weights NOT tied (the paper does not tie them).  Each layer is
    its own torch LSTM, which keeps two bias vectors per gate (b_ih, b_hh)."""

    def __init__(self, vocab=10000, h=650, layers=2):
        super().__init__()
        self.encoder = nn.Embedding(vocab, h)
        self.rnn = nn.ModuleList(nn.LSTM(h, h, 1, batch_first=True) for _ in range(layers))
        self.decoder = nn.Linear(h, vocab)

    def forward(self, ids):
        x = self.encoder(ids)
        for rnn in self.rnn:
            x, _ = rnn(x)
        return self.decoder(x)


# ---------------------------------------------------------------- catalogue

FLOPS_CONVENTION = ("fwd_flops: flops of one sample's forward pass, 2 per multiply-add of "
                    "convolutions and matrix products (counted from the ATen operators a real "
                    "forward pass runs); elementwise operators (bias, activation, normalisation, "
                    "softmax, pooling) not counted: %.2f%% of the counted flops at 1 flop per "
                    "output element. A module's flops, with those of the parameter-free operators "
                    "that follow it, sit on its last parameter tensor; its other tensors have 0.")
BACKWARD_CONVENTION = ("bwd_flops = 2 x fwd_flops per tensor (standard approximation: input "
                       "gradient and weight gradient each cost one forward-sized contraction; "
                       "Kaplan et al. 2020, Narayanan et al. 2021)")


def resnet50_cifar():
    """ResNet-50 for 32x32 CIFAR-10 images: the ImageNet stem (7x7 stride-2
    convolution and max-pooling) replaced by one 3x3 stride-1 convolution, as
    the common CIFAR ports of ResNet do, and 10 classes."""
    m = torchvision().models.resnet50(num_classes=10)
    m.conv1 = nn.Conv2d(3, 64, 3, 1, 1, bias=False)
    m.maxpool = nn.Identity()
    return m


def tokens(vocab, seq):
    # Token ids do not change the flops; a fixed pattern keeps the run reproducible.
    return lambda b: torch.arange(b * seq).remainder(vocab).view(b, seq)


MODELS = [
    {
        "name": "resnet50",
        "build": lambda: torchvision().models.resnet50(),
        "input": lambda b: (torch.zeros(b, 3, 224, 224),),
        "input_doc": "one 3x224x224 image (ImageNet)",
        "source": ("ResNet-50, torchvision.models.resnet50 (v1.5: stride 2 in the 3x3 conv); "
                   "He et al. 2016, 'Deep Residual Learning for Image Recognition'"),
        "params": 25557032,
    },
    {
        "name": "vgg16",
        "build": lambda: torchvision().models.vgg16(),
        "input": lambda b: (torch.zeros(b, 3, 224, 224),),
        "input_doc": "one 3x224x224 image (ImageNet)",
        "source": ("VGG-16 (configuration D, no batch norm), torchvision.models.vgg16; "
                   "Simonyan and Zisserman 2015, 'Very Deep Convolutional Networks for "
                   "Large-Scale Image Recognition'"),
        "params": 138357544,
    },
    {
        "name": "bert-base",
        "build": lambda: Bert(),
        "input": lambda b: (tokens(30522, 128)(b), torch.zeros(b, 128, dtype=torch.long)),
        "input_doc": "one sequence of 128 tokens, token type 0, no padding",
        "source": ("BERT-base encoder with pooler, no pre-training heads (L=12, H=768, A=12, "
                   "FFN 3072, vocab 30522, 512 positions, 2 token types), built in torch; "
                   "Devlin et al. 2019, 'BERT: Pre-training of Deep Bidirectional Transformers "
                   "for Language Understanding'"),
        # embeddings 23,837,184 + 12 x 7,087,872 + pooler 590,592
        "params": 109482240,
    },
    {
        "name": "gpt2-small",
        "build": lambda: Gpt2(),
        "input": lambda b: (tokens(50257, 1024)(b),),
        "input_doc": "one sequence of 1024 tokens; the LM head (tied to wte) is included",
        "source": ("GPT-2 small (12 layers, 768 hidden, 12 heads, vocab 50257, 1024 positions, "
                   "LM head tied to the token embedding), built in torch; Radford et al. 2019, "
                   "'Language Models are Unsupervised Multitask Learners'"),
        "params": 124439808,
    },
    {
        "name": "lstm",
        "build": lambda: LstmLm(),
        "input": lambda b: (tokens(10000, 35)(b),),
        "input_doc": "one sequence of 35 tokens (Penn Treebank, unrolled 35 steps)",
        "source": ("2-layer LSTM language model, 650 units, vocabulary 10000, embedding and "
                   "softmax not tied, torch LSTM biases (b_ih and b_hh); Zaremba et al. 2014, "
                   "'Recurrent Neural Network Regularization' (medium)"),
        # embedding 6,500,000 + 2 x 3,385,200 + decoder 6,510,000
        "params": 19780400,
    },
    {
        "name": "resnet101",
        "build": lambda: torchvision().models.resnet101(),
        "input": lambda b: (torch.zeros(b, 3, 224, 224),),
        "input_doc": "one 3x224x224 image (ImageNet)",
        "source": ("ResNet-101, torchvision.models.resnet101 (v1.5); He et al. 2016, 'Deep "
                   "Residual Learning for Image Recognition' (used by MergeComp and Global-QSGD)"),
        "params": 44549160,
    },
    {
        "name": "resnet50-cifar",
        "build": resnet50_cifar,
        "input": lambda b: (torch.zeros(b, 3, 32, 32),),
        "input_doc": "one 3x32x32 image (CIFAR-10)",
        "source": ("ResNet-50 for CIFAR-10 (10 classes; 3x3 stride-1 stem, no max-pooling, as "
                   "common CIFAR ports do; reconstructed: MergeComp's paper names ResNet-50 on "
                   "CIFAR-10 without its stem), torchvision.models.resnet50 otherwise"),
        "params": 23520842,
    },
    {
        "name": "lstm-wt2",
        "build": lambda: LstmLm(vocab=28869, h=650, layers=3),
        "input": lambda b: (tokens(28869, 35)(b),),
        "input_doc": "one sequence of 35 tokens (WikiText-2, unrolled 35 steps)",
        "source": ("3-layer LSTM language model on WikiText-2, 650 units, vocabulary 28869: the "
                   "sizes of PowerSGD's LSTM (Vogels et al. 2019), on whose code S2 Reducer's "
                   "LSTM training is built; reconstructed: embedding and softmax NOT tied here "
                   "(the paper's 28,949,319 parameters are the tied count), so that the input "
                   "embedding's gradient is row-sparse as S2 Reducer's setup requires"),
        # embedding 18,764,850 + 3 x 3,385,200 + decoder 18,793,719
        "params": 47714169,
    },
]


def dumps(doc):
    """The profile as JSON, one layer per line so that diffs read per tensor."""
    head = ['  %s: %s' % (json.dumps(k), json.dumps(v)) for k, v in doc.items() if k != "layers"]
    rows = ['    ' + json.dumps(layer) for layer in doc["layers"]]
    return "{\n" + ",\n".join(head) + ',\n  "layers": [\n' + ",\n".join(rows) + "\n  ]\n}\n"


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description="Write ccsim's model profiles.")
    ap.add_argument("--out", default=os.path.join(root, "workloads", "models"),
                    help="output directory (default: workloads/models)")
    ap.add_argument("models", nargs="*", help="models to write (default: all): "
                    + ", ".join(m["name"] for m in MODELS))
    opts = ap.parse_args()
    unknown = set(opts.models) - {m["name"] for m in MODELS}
    if unknown:
        sys.exit("unknown models: %s" % ", ".join(sorted(unknown)))
    os.makedirs(opts.out, exist_ok=True)
    torch.manual_seed(0)
    torch.set_num_threads(1)
    for spec in MODELS:
        if opts.models and spec["name"] not in opts.models:
            continue
        start = time.time()
        model = spec["build"]()
        layers, other = profile(model, spec["input"])
        params = sum(l["params"] for l in layers)
        if params != spec["params"]:
            sys.exit("%s: %d parameters, expected %d" % (spec["name"], params, spec["params"]))
        fwd = sum(l["fwd_flops"] for l in layers)
        doc = {
            "name": spec["name"],
            "source": spec["source"],
            "input": spec["input_doc"],
            "generated_by": "scripts/gen_profiles.py (torch %s, torchvision %s)"
                            % (torch.__version__, torchvision().__version__),
            "flops_convention": FLOPS_CONVENTION % (100.0 * other / fwd),
            "backward_convention": BACKWARD_CONVENTION,
            "total_params": params,
            "total_fwd_flops": fwd,
            "total_bwd_flops": 2 * fwd,
            "layers": layers,
        }
        path = os.path.join(opts.out, spec["name"] + ".json")
        with open(path, "w") as f:
            f.write(dumps(doc))
        print("%-11s %4d tensors %12d params %8.3f GFLOPs forward (%.2f%% uncounted) %5.0f s -> %s"
              % (spec["name"], len(layers), params, fwd / 1e9, 100.0 * other / fwd,
                 time.time() - start, path))


if __name__ == "__main__":
    main()
