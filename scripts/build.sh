#!/usr/bin/env bash
# scripts/build.sh [BUILDDIR] [meson options...] — configure (once) and build.
set -eu
cd "$(dirname "$0")/.."
B=${1:-build}
shift || true
[ -f "$B/build.ninja" ] || meson setup "$B" "$@" >/dev/null
ninja -C "$B" >/dev/null
