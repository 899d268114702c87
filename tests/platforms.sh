#!/usr/bin/env bash
# tests/platforms.sh CCSIM SRCDIR — the platform generators and shipped files.
#  1. every generator: a ring all-reduce runs on it, its platform.xml lists the
#     host count the parameters give, in the order the topology implies;
#  2. route properties, exact under CM02: a 2-worker ring all-reduce of S bytes
#     on hosts 0 and 1 takes 2 (alpha + S / (2 B)), alpha the route's latency
#     and B its narrowest link — e.g. across racks of a cloud it crosses two
#     more links than inside a rack, and the uplinks' bandwidth;
#  3. every shipped platforms/*.xml loads with the expected host count, a ring
#     over all its hosts runs, and `ccsim list platforms` shows it.
set -u
CCSIM=$1
SRC=$(cd "$2" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*" >&2; }

# exp NAME WORKERS ELEMENTS PLATFORM-JSON: write $T/NAME.json
exp() {
  printf '{"name": "%s", "workers": %s, "iterations": 1, "model": {"elements": %s},\n "collective": "allreduce/ring", "platform": %s}\n' \
    "$1" "$2" "$3" "$4" >"$T/$1.json"
}
# run NAME: ccsim run it into $T/NAME; prints nothing, fails loudly
run() {
  if "$CCSIM" run "$T/$1.json" --out "$T/$1" --quiet >/dev/null 2>"$T/$1.err"; then ok; else
    bad "$1: ccsim run exit $?"; sed 's/^/    /' "$T/$1.err" | head -5 >&2; fi
}
sim_time() { sed -n 's/.*"sim_time_s": \([0-9.e+-]*\).*/\1/p' "$T/$1/summary.json"; }
# same A B: A and B agree to 1e-9 relative
same() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1e-9 * (b < 0 ? -b : b)) }'; }
# hosts NAME N [FIRST...]: the platform lists N hosts, the first ones named so
hosts() {
  local name=$1 n=$2 got
  shift 2
  got=$("$CCSIM" hosts "$T/$name/platform.xml" 2>/dev/null | wc -l)
  [ "$got" = "$n" ] && ok || bad "$name: ccsim hosts lists $got hosts, expected $n"
  local i=1
  for want in "$@"; do
    got=$("$CCSIM" hosts "$T/$name/platform.xml" 2>/dev/null | sed -n "${i}p")
    [ "$got" = "$want" ] && ok || bad "$name: host $((i - 1)) is \"$got\", expected \"$want\""
    i=$((i + 1))
  done
}

# 1. every generator, a few workers
exp crossbar 5 1000 '{"generate": "crossbar", "hosts": 7}'
exp fat-tree 6 1000 '{"generate": "fat-tree", "down": [2, 2, 2], "up": [1, 2, 2], "parallel": [1, 2, 1]}'
exp torus 5 1000 '{"generate": "torus", "dims": [3, 2, 2]}'
exp dragonfly 6 1000 '{"generate": "dragonfly", "groups": 2, "chassis": 2, "routers": 2, "nodes_per_router": 2, "group_links": 2}'
exp cloud 6 1000 '{"generate": "cloud", "racks": 3, "hosts_per_rack": 3, "oversubscription": 2, "nics": [{"count": 2, "bandwidth": "10Gbps"}, {"bandwidth": "40Gbps"}]}'
exp multigpu 6 1000 '{"generate": "multigpu", "nodes": 3, "gpus_per_node": 4, "nics_per_node": 2}'
exp pcie-server 6 1000 '{"generate": "pcie-server", "nvlink": "cube-mesh"}'
for k in crossbar fat-tree torus dragonfly cloud multigpu pcie-server; do run $k; done
hosts crossbar 7 h0 h1
hosts fat-tree 8 h0 h1 h2
hosts torus 12 h0 h1
hosts dragonfly 16 h0 h1
hosts cloud 9 r0-h0 r0-h1 r0-h2 r1-h3 r1-h4
hosts multigpu 12 n0-gpu0 n0-gpu1 n0-gpu2 n0-gpu3 n1-gpu0
hosts pcie-server 8 gpu0 gpu1 gpu2
grep -q '<prop id="gpus_per_node" value="8"/>' "$T/pcie-server/platform.xml" && ok || bad "pcie-server: no gpus_per_node property"
# DGX-1's mesh: GPUs 0 and 3 share two links (50 GB/s each way), 0 and 1 one; 3 to 4 relays through 0
grep -q '<link id="nvlink-0-3" bandwidth="50000000000Bps"' "$T/pcie-server/platform.xml" && ok || bad "pcie-server: nvlink-0-3 is not two links"
grep -q '<link id="nvlink-0-1" bandwidth="25000000000Bps"' "$T/pcie-server/platform.xml" && ok || bad "pcie-server: nvlink-0-1 is not one link"
grep -q '<route src="gpu3" dst="gpu4" symmetrical="NO"><link_ctn id="nvlink-0-3" direction="DOWN"/><link_ctn id="nvlink-0-4" direction="UP"/></route>' \
  "$T/pcie-server/platform.xml" && ok || bad "pcie-server: gpu3 -> gpu4 does not relay through gpu0 over two double links"
grep -q '<prop id="gpus_per_node" value="4"/>' "$T/multigpu/platform.xml" && ok || bad "multigpu: no gpus_per_node property"
# the uplink of a cloud rack is its NICs' sum over the oversubscription: 10+10+40 Gbps / 2 = 3.75e9 B/s
grep -q '<link id="uplink0" bandwidth="3750000000Bps"' "$T/cloud/platform.xml" && ok || bad "cloud: uplink0 is not 60 Gbps / 2"
grep -q '<link id="nic-r1-h5" bandwidth="5000000000Bps"' "$T/cloud/platform.xml" && ok || bad "cloud: host 5 has not the third NIC of the pattern (40 Gbps)"

# 2. routes: 2 workers on hosts 0 and 1, S = 4e5 bytes, ring time 2 (alpha + S / (2 B))
S=400000
route() { # route NAME PLATFORM-JSON ALPHA B: expect the 2-worker time
  exp "$1" 2 $((S / 4)) "$2"
  run "$1"
  local want got
  want=$(awk -v a="$3" -v b="$4" -v s=$S 'BEGIN { printf "%.17g", 2 * (a + s / (2 * b)) }')
  got=$(sim_time "$1")
  same "$got" "$want" && ok || bad "$1: sim_time_s $got, expected $want (alpha $3 s, B $4 B/s)"
}
# cloud: inside a rack NIC + NIC; across racks NIC + uplink + uplink + NIC, the uplink 4x slower
route cloud-same '{"generate": "cloud", "racks": 1, "hosts_per_rack": 2, "oversubscription": 4, "bandwidth": "10Gbps", "latency": "5us", "uplink_latency": "3us"}' 10e-6 1.25e9
route cloud-across '{"generate": "cloud", "racks": 2, "hosts_per_rack": 1, "oversubscription": 4, "bandwidth": "10Gbps", "latency": "5us", "uplink_latency": "3us"}' 16e-6 3.125e8
awk -v a="$(sim_time cloud-across)" -v b="$(sim_time cloud-same)" 'BEGIN { exit !(a > b) }' && ok ||
  bad "cloud: two racks apart is not slower than one rack"
# multigpu: inside a node over the intra-node links, across nodes over the NICs
route multigpu-same '{"generate": "multigpu", "nodes": 1, "gpus_per_node": 2, "intra_bandwidth": "150GBps", "intra_latency": "1us"}' 2e-6 1.5e11
route multigpu-across '{"generate": "multigpu", "nodes": 2, "gpus_per_node": 1, "bandwidth": "100Gbps", "latency": "2us"}' 4e-6 1.25e10
# pcie-server: under one PCIe switch 2 links at PCIe 3.0 x16; across sockets 4 PCIe links + the
# inter-socket link, the narrower QPI the bottleneck; NVLink: a one-link pair of the mesh, the switch
route pcie-switch '{"generate": "pcie-server", "gpus": 2, "sockets": 1}' 2e-6 1.575e10
route pcie-sockets '{"generate": "pcie-server", "gpus": 2, "gpus_per_switch": 1, "socket_bandwidth": "10GBps", "socket_latency": "3us"}' 7e-6 1e10
route pcie-cube-mesh '{"generate": "pcie-server", "nvlink": "cube-mesh", "nvlink_latency": "0.5us"}' 0.5e-6 2.5e10
route pcie-nvswitch '{"generate": "pcie-server", "gpus": 4, "nvlink": "switch"}' 2e-6 1.5e11
# 8 GPUs over PCIe, ring all-reduce of S bytes: 14 steps of S/8, each paced by the cross-socket
# hops 3 -> 4 and 7 -> 0 (4 PCIe links + QPI: alpha 5 us) at PCIe's 15.75 GB/s (no link carries two
# ring flows in one direction): 14 (5e-6 + S / (8 B))
exp pcie-ring8 8 $((S / 4)) '{"generate": "pcie-server"}'
run pcie-ring8
want=$(awk -v s=$S 'BEGIN { printf "%.17g", 14 * (5e-6 + s / (8 * 1.575e10)) }')
same "$(sim_time pcie-ring8)" "$want" && ok || bad "pcie-ring8: sim_time_s $(sim_time pcie-ring8), expected $want"
# bad input: exit 2 and one line naming the field
badexp() { # badexp NAME PLATFORM-JSON FIELD
  exp "$1" 2 1000 "$2"
  "$CCSIM" validate "$T/$1.json" >"$T/$1.out" 2>&1
  local rc=$?
  [ $rc -eq 2 ] && [ "$(wc -l <"$T/$1.out")" -eq 1 ] && grep -q "$3" "$T/$1.out" && ok ||
    bad "$1: exit $rc, expected 2 and one line naming $3: $(head -2 "$T/$1.out")"
}
badexp pcie-bad-switch '{"generate": "pcie-server", "gpus": 6, "gpus_per_switch": 4}' 'platform.gpus_per_switch'
badexp pcie-bad-sockets '{"generate": "pcie-server", "gpus": 6, "sockets": 2}' 'platform.sockets'
badexp pcie-bad-mesh '{"generate": "pcie-server", "gpus": 4, "nvlink": "cube-mesh"}' 'platform.nvlink'
badexp pcie-bad-nvlink '{"generate": "pcie-server", "nvlink": "nvswitch"}' 'platform.nvlink'
# torus: neighbours are one link apart, no switch
route torus-1link '{"generate": "torus", "dims": [4, 4], "bandwidth": "10Gbps", "latency": "3us"}' 3e-6 1.25e9
# fat-tree: under one leaf 2 links, under two leaves 4 links
route fat-tree-leaf '{"generate": "fat-tree", "down": [2, 2], "bandwidth": "10Gbps", "latency": "1us"}' 2e-6 1.25e9
route fat-tree-spine '{"generate": "fat-tree", "down": [1, 2], "bandwidth": "10Gbps", "latency": "1us"}' 4e-6 1.25e9
# dragonfly: one router 2 links; two routers of a chassis 3 links (a router bundle of 2 is not the bottleneck)
route dragonfly-router '{"generate": "dragonfly", "groups": 1, "chassis": 1, "routers": 1, "nodes_per_router": 2, "bandwidth": "10Gbps", "latency": "1us"}' 2e-6 1.25e9
route dragonfly-chassis '{"generate": "dragonfly", "groups": 1, "chassis": 1, "routers": 2, "nodes_per_router": 1, "router_links": 2, "bandwidth": "10Gbps", "latency": "1us"}' 3e-6 1.25e9

# 3. shipped platforms: expected host counts, a ring over all hosts, the listing
declare -A want=([cluster-backbone-80.xml]=80 [fat-tree-64.xml]=64 [torus-4x4x4.xml]=64 [dragonfly-72.xml]=72
  [cloud-4racks.xml]=64 [dgx-8x8.xml]=64 [dgx1-4x8.xml]=32)
CCSIM_PLATFORMS="$SRC/platforms" "$CCSIM" list platforms >"$T/list" 2>&1 || bad "ccsim list platforms failed"
for f in "$SRC"/platforms/*.xml; do
  b=$(basename "$f")
  n=${want[$b]:-}
  [ -n "$n" ] || { bad "$b: shipped but not in this test's table of host counts"; continue; }
  got=$("$CCSIM" hosts "$f" 2>/dev/null | wc -l)
  [ "$got" = "$n" ] && ok || bad "$b: ccsim hosts lists $got hosts, expected $n"
  grep -qE "^$b +$n hosts  [A-Z0-9]" "$T/list" && ok || bad "$b: not listed with $n hosts and a description"
  printf '{"name": "shipped", "workers": %d, "iterations": 1, "model": {"elements": 2048}, "platform": "%s"}\n' \
    "$n" "$f" >"$T/shipped-$b.json"
  run "shipped-$b"
done
for k in crossbar fat-tree torus dragonfly cloud multigpu pcie-server; do
  grep -q "^$k  *generate: " "$T/list" && ok || bad "ccsim list platforms: no line for generator $k"
done
# a directory given by CCSIM_PLATFORMS
mkdir "$T/mine"
cp "$T/cloud/platform.xml" "$T/mine/rack.xml"
CCSIM_PLATFORMS="$T/mine" "$CCSIM" list platforms | grep -qE '^rack.xml +9 hosts  Generated by ccsim' && ok ||
  bad "CCSIM_PLATFORMS=$T/mine: rack.xml not listed with 9 hosts"

echo "platforms: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
