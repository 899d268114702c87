#!/usr/bin/env python3
"""tests/schema_check.py SCHEMA FILE... — validate each JSON FILE against the
draft 2020-12 SCHEMA (python3-jsonschema); prints "FILE: ok" or
"FILE: invalid: PATH: MESSAGE" per file; exit 0 when all are valid, 1 when
one is not, 2 when the schema itself is not a valid 2020-12 schema."""
import json
import sys

import jsonschema

schema = json.load(open(sys.argv[1]))
try:
    jsonschema.Draft202012Validator.check_schema(schema)
except jsonschema.SchemaError as e:
    print(f"{sys.argv[1]}: not a draft 2020-12 schema: {e.message}")
    sys.exit(2)
validator = jsonschema.Draft202012Validator(schema)
bad = 0
for path in sys.argv[2:]:
    doc = json.load(open(path))
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
    if errors:
        bad += 1
        e = errors[0]
        where = ".".join(str(p) for p in e.absolute_path) or "(top level)"
        print(f"{path}: invalid: {where}: {e.message[:200]}")
    else:
        print(f"{path}: ok")
sys.exit(1 if bad else 0)
