#!/usr/bin/env bash
# tests/platform_golden.sh CCSIM SRCDIR — every registered platform generator
# writes the platform.xml it wrote before, byte for byte:
#  1. each generator `ccsim list platforms` shows has a case here with only
#     its required fields (every other field at its default), so a new
#     generator without expected output fails;
#  2. variants that reach the branches the defaults do not (parallel links,
#     NIC patterns, NVLink kinds, several dimensions);
#  3. platform.xml of each case equals tests/golden/platforms/CASE.xml.
# Regenerate after an intended change with:  tests/platform_golden.sh CCSIM SRCDIR --update
set -u
CCSIM=$1
SRC=$(cd "$2" && pwd)
G="$SRC/tests/golden/platforms"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*" >&2; }

# CASE -> platform JSON; "GENERATOR" alone is that generator with its defaults
declare -A cases=(
  [crossbar]='{"generate": "crossbar"}'
  [fat-tree]='{"generate": "fat-tree", "down": [8, 8]}'
  [torus]='{"generate": "torus", "dims": [4, 4, 4]}'
  [dragonfly]='{"generate": "dragonfly", "groups": 3, "chassis": 3, "routers": 4, "nodes_per_router": 2}'
  [cloud]='{"generate": "cloud", "racks": 4, "hosts_per_rack": 16}'
  [multigpu]='{"generate": "multigpu", "nodes": 4, "gpus_per_node": 4}'
  [pcie-server]='{"generate": "pcie-server"}'
  [crossbar-7]='{"generate": "crossbar", "hosts": 7, "bandwidth": "10Gbps", "latency": "3us"}'
  [fat-tree-3]='{"generate": "fat-tree", "down": [2, 2, 2], "up": [1, 2, 2], "parallel": [1, 2, 1], "bandwidth": "100Gbps"}'
  [torus-2d]='{"generate": "torus", "dims": [3, 2], "latency": "2us"}'
  [dragonfly-links]='{"generate": "dragonfly", "groups": 2, "chassis": 2, "routers": 2, "nodes_per_router": 2, "group_links": 2, "chassis_links": 3, "router_links": 2}'
  [cloud-nics]='{"generate": "cloud", "racks": 3, "hosts_per_rack": 3, "oversubscription": 2, "uplink_latency": "7us", "nics": [{"count": 2, "bandwidth": "10Gbps"}, {"bandwidth": "40Gbps"}]}'
  [multigpu-nics]='{"generate": "multigpu", "nodes": 3, "gpus_per_node": 4, "nics_per_node": 2, "intra_bandwidth": "300GBps", "intra_latency": "0.5us"}'
  [pcie-cube-mesh]='{"generate": "pcie-server", "nvlink": "cube-mesh", "nvlink_latency": "0.5us"}'
  [pcie-switch]='{"generate": "pcie-server", "gpus": 4, "gpus_per_switch": 1, "sockets": 1, "nvlink": "switch"}'
)

# 1. every listed generator has its defaults case
"$CCSIM" list platforms >"$T/list" 2>&1 || bad "ccsim list platforms failed"
gens=$(sed -n 's/^\([a-z0-9-]*\) *generate: .*/\1/p' "$T/list")
[ -n "$gens" ] && ok || bad "ccsim list platforms shows no generator"
for g in $gens; do
  [ -n "${cases[$g]:-}" ] && ok || bad "generator $g: no case with its defaults in this test"
done

# 2.-3. run each case (2 workers, one tiny iteration) and compare its platform.xml
[ "${3:-}" = "--update" ] && mkdir -p "$G"
for c in "${!cases[@]}"; do
  printf '{"name": "golden-%s", "workers": 2, "iterations": 1, "model": {"elements": 64},\n "collective": "allreduce/ring", "platform": %s}\n' \
    "$c" "${cases[$c]}" >"$T/$c.json"
  if ! "$CCSIM" run "$T/$c.json" --out "$T/$c" --quiet >/dev/null 2>"$T/$c.err"; then
    bad "$c: ccsim run failed: $(head -2 "$T/$c.err")"
    continue
  fi
  if [ "${3:-}" = "--update" ]; then
    cp "$T/$c/platform.xml" "$G/$c.xml"
    continue
  fi
  if [ ! -f "$G/$c.xml" ]; then
    bad "$c: no expected file $G/$c.xml"
  elif cmp -s "$G/$c.xml" "$T/$c/platform.xml"; then
    ok
  else
    bad "$c: platform.xml differs from $G/$c.xml"
    diff -u "$G/$c.xml" "$T/$c/platform.xml" | head -20 >&2
  fi
done
[ "${3:-}" = "--update" ] && { echo "expected platforms written to $G"; exit "$fail"; }
echo "platform-golden: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
