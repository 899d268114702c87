#!/usr/bin/env bash
# scripts/quickstart.sh — install, build, and run workloads/quickstart.json.
set -eu
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh build
./build/src/ccsim run workloads/quickstart.json --out results/quickstart
