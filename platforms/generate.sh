#!/usr/bin/env bash
# platforms/generate.sh CCSIM — rewrite the shipped platforms made by ccsim's
# generators: each is the generator's platform.xml for the "platform" object
# below, with a hand-written comment (what it models, where its numbers come
# from) put before the generated one.  cluster-backbone-80.xml is hand-written.
set -eu
CCSIM=${1:?usage: platforms/generate.sh CCSIM}
DIR=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# make FILE PLATFORM-JSON  (the comment comes on stdin)
make() {
  local file=$1 platform=$2
  cat >"$T/header"
  printf '{"name": "platforms/%s", "workers": 1, "iterations": 1, "model": {"elements": 1},\n "platform": %s}\n' \
    "${file%.xml}" "$platform" >"$T/exp.json"
  "$CCSIM" run "$T/exp.json" --out "$T/out" --quiet >/dev/null
  { head -n 2 "$T/out/platform.xml"; cat "$T/header"; tail -n +3 "$T/out/platform.xml"; } >"$DIR/$file"
  echo "wrote $DIR/$file ($("$CCSIM" hosts "$DIR/$file" | wc -l) hosts)"
}

make fat-tree-64.xml '{"generate": "fat-tree", "down": [8, 8], "up": [1, 8], "bandwidth": "100Gbps", "latency": "1us"}' <<'EOF'
<!-- A 64-host two-level non-blocking fat tree (16-port switches: 8 down, 8 up).

     8 leaf switches of 8 hosts each; every leaf has one link to each of the 8
     spine switches, so a leaf has as much bandwidth up as down (1:1).
     Links: 100 Gbps, the 4x InfiniBand EDR data rate; 1 us per link is an
     assumption (switch plus cable), not a datasheet figure.  Hosts h0..h7
     share leaf 0 (2 links apart); hosts on different leaves are 4 links apart.
     Made by platforms/generate.sh; the generated comment below has the details. -->
EOF

make torus-4x4x4.xml '{"generate": "torus", "dims": [4, 4, 4], "bandwidth": "100Gbps", "latency": "1us"}' <<'EOF'
<!-- A 64-host 4 x 4 x 4 three-dimensional torus, no switches.

     Each host links to its two neighbours in each dimension (six links),
     wrapping around; a route goes dimension by dimension, the shorter way
     round, at most 2 + 2 + 2 links.  Links 100 Gbps, 1 us: illustrative
     values, not those of a particular machine.
     Made by platforms/generate.sh; the generated comment below has the details. -->
EOF

make dragonfly-72.xml '{"generate": "dragonfly", "groups": 3, "chassis": 3, "routers": 4, "nodes_per_router": 2, "group_links": 2, "bandwidth": "100Gbps", "latency": "1us"}' <<'EOF'
<!-- A 72-host dragonfly: 3 groups x 3 chassis x 4 routers x 2 hosts per router.

     Routers are all-to-all within a chassis, and across the chassis of a
     group; each pair of groups shares one global bundle of 2 links (200 Gbps).
     Links 100 Gbps, 1 us: illustrative values, not those of a particular
     machine.  A route crosses at most 7 links (host, router, chassis, global,
     router, chassis, host).
     Made by platforms/generate.sh; the generated comment below has the details. -->
EOF

make cloud-4racks.xml '{"generate": "cloud", "racks": 4, "hosts_per_rack": 16, "oversubscription": 4, "nics": [{"count": 3, "bandwidth": "25Gbps"}, {"count": 1, "bandwidth": "100Gbps"}], "latency": "5us"}' <<'EOF'
<!-- Four racks of 16 hosts with mixed NICs behind 4:1 oversubscribed uplinks.

     Three hosts in four have a 25 Gbps NIC, the fourth a 100 Gbps NIC, so a
     rack's NICs add up to 12 x 25 + 4 x 100 = 700 Gbps and its uplink to the
     core carries 700 / 4 = 175 Gbps each way.  4:1 lies within the 2.5:1 to
     8:1 oversubscription that Al-Fares et al. report for data-center designs
     ("A Scalable, Commodity Data Center Network Architecture", SIGCOMM 2008).
     Latencies (5 us per NIC and per uplink) are illustrative.
     Made by platforms/generate.sh; the generated comment below has the details. -->
EOF

make dgx-8x8.xml '{"generate": "multigpu", "nodes": 8, "gpus_per_node": 8, "nics_per_node": 8, "bandwidth": "200Gbps", "latency": "1us", "intra_bandwidth": "300GBps", "intra_latency": "1us"}' <<'EOF'
<!-- 8 DGX A100-class nodes of 8 GPUs: NVSwitch inside, one 200 Gbps NIC per GPU.

     NVIDIA A100 datasheet: third-generation NVLink, 600 GB/s per GPU (both
     directions together), so 300 GB/s each way into the NVSwitch fabric.
     NVIDIA DGX A100 datasheet: 8 single-port ConnectX-6 200 Gb/s HDR
     InfiniBand adapters for compute traffic, one per GPU here.  The switch
     between nodes is non-blocking.  Latencies (1 us per GPU-to-fabric link and
     per NIC link) are assumptions, not datasheet figures.
     Made by platforms/generate.sh; the generated comment below has the details. -->
EOF

make dgx1-4x8.xml '{"generate": "multigpu", "nodes": 4, "gpus_per_node": 8, "nics_per_node": 4, "bandwidth": "100Gbps", "latency": "1us", "intra_bandwidth": "150GBps", "intra_latency": "1us"}' <<'EOF'
<!-- 4 DGX-1-class nodes of 8 V100 GPUs: NVLink 2 inside, 4 EDR NICs per node.

     NVIDIA Tesla V100 datasheet: NVLink 300 GB/s per GPU (both directions
     together), so 150 GB/s each way.  NVIDIA DGX-1 datasheet: 4 InfiniBand EDR
     100 Gb/s ports, so two GPUs share a NIC.  DGX-1 wires its NVLinks as a
     hybrid cube mesh, not through a switch: this star, where every GPU reaches
     every other at its full NVLink bandwidth, is an idealisation (optimistic
     for pairs that are not directly linked).  Latencies (1 us per link) are
     assumptions, not datasheet figures.
     Made by platforms/generate.sh; the generated comment below has the details. -->
EOF
