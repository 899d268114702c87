#!/usr/bin/env python3
"""scripts/gen_schema.py CCSIM OUTDIR — write the JSON Schemas (draft 2020-12)
of ccsim's experiments and sweeps: OUTDIR/experiment.schema.json and
OUTDIR/sweep.schema.json.

The structure (sections, their keys, types and bounds) is written here, from
src/config/*.c; the names that come from registries (compressors, memories,
collectives, platform generators, gradient sources, schedule kinds) and their
parameters come from `ccsim list`, so a new registry entry is in the schema
once it is regenerated.  tests/schema.sh checks that the shipped schema is
the one this script writes, that every experiment and sweep ccsim accepts
under workloads/ and tests/ validates, and that some it refuses do not.

The schema is a first check for editors and tools: ccsim's own reader is the
authority (ranges that depend on other fields, files that must exist, a
collective that needs a summable compressor are checked only there)."""
import json
import os
import re
import subprocess
import sys

CCSIM, OUT = sys.argv[1], sys.argv[2]


def listed(what):
    """`ccsim list WHAT`, one row per line until the first blank line."""
    out = subprocess.run([CCSIM, "list", what], check=True, capture_output=True, text=True).stdout
    return out.split("\n\n")[0].splitlines()


def value_schema(default):
    """The type a parameter's default shows: a boolean, a number, else a string."""
    if default in ("true", "false"):
        return {"type": "boolean"}
    try:
        float(default)
        return {"type": "number"}
    except ValueError:
        return {"type": "string"}


def params(rows, col):
    """{name: {params}} from `ccsim list` rows whose column `col` holds
    "p=default p2=default" or "(no parameters)"."""
    out = {}
    for row in rows:
        parts = row.split()
        name, ps = parts[0], {}
        for tok in parts[col:]:
            m = re.fullmatch(r"([a-z_]+)=(\S+)", tok)
            if m:
                ps[m.group(1)] = value_schema(m.group(2))
        out[name] = ps
    return out


compressors = params(listed("compressors"), 2)
memories = params(listed("memories"), 1)
collectives = {}
for row in listed("collectives"):
    name = row.split()[0]
    collectives[name] = {m.group(1): value_schema(m.group(2))
                         for m in re.finditer(r"\b([a-z_]+)=(\S+)", row)}
sources = [r.split()[0] for r in listed("sources")]
gen_rows = listed("platforms")
generators, gen_keys = [], set()
for i, row in enumerate(gen_rows):
    if re.match(r"^[a-z-]+\s+generate:", row):
        generators.append(row.split()[0])
        gen_keys.update(re.findall(r"\b([a-z_]+)=", gen_rows[i + 1]))
        gen_keys.update(re.search(r"\(([a-z_ ]+)\)$", row).group(1).split())

UNIT_NUM = r"\s*([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?\s*"
PREFIX = "(Ki|Mi|Gi|Ti|k|K|M|G|T|P)?"
units = {
    "bandwidth": UNIT_NUM + PREFIX + r"(Bps|B/s|bps|b/s)\s*",
    "size": UNIT_NUM + PREFIX + r"(B|b)?\s*",
    "time": UNIT_NUM + r"(s|ms|us|ns|ps|m|min|h)?\s*",
}


def unit(kind):
    return {"oneOf": [{"type": "number", "minimum": 0},
                      {"type": "string", "pattern": "^" + units[kind] + "$"}]}


def integer(lo, hi=None):
    s = {"type": "integer", "minimum": lo}
    if hi is not None:
        s["maximum"] = hi
    return s


def number(lo, hi):
    return {"type": "number", "minimum": lo, "maximum": hi}


def obj(props, required=()):
    s = {"type": "object", "properties": props, "additionalProperties": False}
    if required:
        s["required"] = list(required)
    return s


ANY = {"type": ["number", "string", "boolean", "array", "object"]}
gen_props = {k: ANY for k in sorted(gen_keys)}
gen_props.update({"bandwidth": unit("bandwidth"), "latency": unit("time"), "hosts": integer(1)})
platform = obj(dict(gen_props, **{
    "file": {"type": "string", "minLength": 1},
    "generate": {"enum": generators},
    "network_model": {"enum": ["CM02", "LV08", "SMPI", "Constant", "IB"]},
    "crosstraffic": {"type": "boolean"},
    "gpus_per_node": integer(1),
}))


def named(names, param_table, extra=None):
    """"NAME" or {"name": NAME, PARAM: value, ...} with NAME's parameters."""
    props = {"name": {"enum": names}}
    for ps in param_table.values():
        props.update(ps)
    props.update(extra or {})
    return {"oneOf": [{"enum": names}, obj(props)]}


memory = {"oneOf": [{"enum": ["none"] + [m for m in memories if m != "none"]},
                    obj(dict({"name": {"enum": list(memories)}}, **{k: v for ps in memories.values() for k, v in ps.items()}),
                        required=["name"])]}
compressor = named(list(compressors), compressors, {"memory": memory})
collective = named(list(collectives), collectives)
# {"program": FILE, PARAM: value, ...}: a collective written as a program (docs/programs.md);
# its parameters are the program's own
collective["oneOf"].append({"type": "object", "properties": {"program": {"type": "string", "minLength": 1}},
                            "required": ["program"], "additionalProperties": {"type": "number"}})
# how messages are priced (docs/comm-model.md)
comm = obj({"model": {"enum": ["ideal", "nccl"]}, "protocol": {"enum": ["auto", "LL", "LL128", "Simple"]},
            "algorithm": {"enum": ["auto", "tree", "ring"]},
            "channels": {"oneOf": [{"const": "auto"}, integer(1, 64)]},
            "links": {"type": "string", "minLength": 1}})

layer = obj({"name": {"type": "string"}, "params": integer(0), "fwd_flops": {"type": "number", "minimum": 0},
             "bwd_flops": {"type": "number", "minimum": 0}}, required=["params"])
model = obj({"elements": integer(1), "size": unit("size"), "profile": {"type": "string", "minLength": 1},
             "layers": {"type": "array", "items": layer, "minItems": 1}, "sample": integer(1), "batch": integer(1)})
gradients = obj({"source": {"enum": sources}, "distribution": {"enum": ["normal", "laplace", "uniform"]},
                 "scale": {"type": "number"}, "correlation": number(0, 1), "trace": {"type": "string"},
                 "row_width": integer(1), "tokens": integer(1), "zipf": {"type": "number"}})
train = obj({
    "dataset": {"type": "string"}, "data": {"type": "string"},
    "teacher": obj({"samples": integer(2), "inputs": integer(1), "classes": integer(2),
                    "hidden": {"type": "array", "items": {"type": "integer", "minimum": 1, "maximum": 1 << 24}}}),
    "model": obj({"kind": {"enum": ["softmax", "mlp", "lenet5", "cnn"]},
                  "hidden": {"type": "array", "items": {"type": "integer", "minimum": 1, "maximum": 1 << 24}}}),
    "shards": {"enum": ["iid", "noniid"]}, "shards_per_worker": integer(1), "batch": integer(1),
    "test_fraction": number(1e-9, 0.99),
    "optimizer": obj({"lr": number(1e-12, 1e3), "momentum": number(0, 0.9999), "weight_decay": number(0, 1)}),
    "eval_every": integer(1), "target_accuracy": number(0, 1), "train_samples": integer(0, 60000),
    "test_samples": integer(0, 10000),
    "text": obj({"vocab": integer(2), "samples": integer(2), "zipf": number(0.01, 10), "follow": number(0, 1)}),
    "corpus": obj({"vocab": integer(1, 1 << 16), "context": integer(1, 8), "samples": integer(2, 1 << 22)}),
})
device = {"oneOf": [{"type": "string", "minLength": 1},
                    obj({"name": {"type": "string", "minLength": 1}, "efficiency": {"type": "number"},
                         "precision": {"enum": ["fp32", "tf32", "bf16"]}, "compression_timing": {"type": "string"}},
                        required=["name"])]}
schedule = obj({"kind": {"type": "string"}, "bucket_mb": {"type": "number", "exclusiveMinimum": 0},
                "groups": integer(1), "probes": integer(1), "cuts": {"type": "array"}})
output = obj({"dir": {"type": "string", "minLength": 1}, "timeline": {"type": "boolean"}})

experiment = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://ccsim.invalid/schema/experiment.schema.json",
    "title": "ccsim experiment",
    "description": "One simulated training run (docs/inputs.md). Generated by scripts/gen_schema.py; "
                   "ccsim's reader is the authority.",
    **obj({
        "name": {"type": "string"}, "description": {"type": "string"},
        "seed": integer(0, 9007199254740992), "workers": integer(1, 1048576), "iterations": integer(1, 1073741824),
        "platform": {"oneOf": [{"type": "string", "minLength": 1}, platform]},
        "model": model, "gradients": gradients, "train": train,
        "compressor": compressor, "collective": collective, "comm": comm, "device": device,
        "schedule": schedule, "output": output,
    }),
}

FIELD_PATH = r"^[^.=]+(\.[^.=]+)*$"
path_axis = obj({"name": {"type": "string", "minLength": 1, "pattern": "^[^,=\"'`$;&|<>\\\\\\x00-\\x1f]+$"},
                 "path": {"type": "string", "pattern": FIELD_PATH},
                 "values": {"type": "array", "minItems": 1}}, required=["path", "values"])
choice = obj({"label": {"type": "string", "minLength": 1},
              "set": {"type": "object", "propertyNames": {"pattern": FIELD_PATH}}}, required=["label", "set"])
labelled_axis = obj({"name": {"type": "string", "minLength": 1, "pattern": "^[^,=\"'`$;&|<>\\\\\\x00-\\x1f]+$"},
                     "values": {"type": "array", "minItems": 1, "items": choice}}, required=["name", "values"])
sweep = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://ccsim.invalid/schema/sweep.schema.json",
    "title": "ccsim sweep",
    "description": "A grid of experiments over a base experiment (docs/outputs-and-sweeps.md). Generated by "
                   "scripts/gen_schema.py; ccsim's reader is the authority.",
    **obj({
        "name": {"type": "string", "minLength": 1}, "description": {"type": "string"},
        "base": {"type": "string", "minLength": 1},
        "set": {"type": "object", "propertyNames": {"pattern": FIELD_PATH}},
        "axes": {"type": "array", "minItems": 1, "maxItems": 8, "items": {"oneOf": [path_axis, labelled_axis]}},
        "output": obj({"dir": {"type": "string", "minLength": 1}}, required=["dir"]),
    }, required=["base", "axes"]),
}

os.makedirs(OUT, exist_ok=True)
for name, schema in (("experiment", experiment), ("sweep", sweep)):
    with open(os.path.join(OUT, name + ".schema.json"), "w") as f:
        json.dump(schema, f, indent=1)
        f.write("\n")
