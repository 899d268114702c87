#!/usr/bin/env bash
# scripts/install-deps.sh — the Debian 12 packages ccsim needs to build, test
# and plot, and to run the teaching notebooks (jupyter, nbconvert, ipykernel);
# clang and llvm (llvm-profdata, llvm-cov) for the fuzz harnesses and their
# coverage (scripts/fuzz.sh, scripts/fuzz_coverage.sh); GNU time for the
# benchmarks and the test of their packing (bench/lib.sh, bench/pack.sh).
# Run as root.  Skips apt entirely when everything is installed.
set -eu
PKGS="build-essential pkg-config meson ninja-build libsimgrid-dev libgsl-dev libjansson-dev zlib1g-dev libexpat1-dev
      python3-matplotlib python3-numpy python3-pandas python3-jsonschema python3-torch libopenblas-dev dataset-fashion-mnist bible-kjv bible-kjv-text
      groff-base slurm-wlm munge clang llvm chromium time
      jupyter jupyter-notebook jupyter-nbconvert python3-nbconvert python3-ipykernel"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "installing:$missing" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # shellcheck disable=SC2086
  apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
# dataset "corpus-text": the King James Bible as plain text (kjv-corpus.sh)
[ -s /usr/local/share/ccsim/kjv.txt ] || bash "$(dirname "$0")/kjv-corpus.sh" /usr/local/share/ccsim/kjv.txt
