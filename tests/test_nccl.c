/* tests/test_nccl.c — comm.model "nccl": the tuner arithmetic of
 * src/engine/nccl.c against values computed by hand from NCCL's constants
 * (src/graph/tuning.cc, docs/comm-model.md), and its protocol choice. */
#include <math.h>

#include "check.h"
#include "comm/nccl.h"

/* 8 GPUs on one NVSwitch node at 450 GB/s, efficiency 0.8 on NVLink. */
static nccl_plan one_node(void) {
  nccl_plan p = {.model = COMM_NCCL, .proto = -1, .algo = NCCL_RING, .price_algo = -1, .channels = 1, .nranks = 8, .nnodes = 1,
                 .gpn = 8, .nics = 1, .intra_hw = NCCL_HW_NVLINK};
  for (int hw = 0; hw < NCCL_NHW; hw++) p.lat[hw] = -1, p.eff[hw] = 0.8, p.bw[hw] = 450e9;
  return p;
}

int main(void) {
  nccl_plan p = one_node();
  /* constants as NCCL has them (baseLat, hwLat in us) */
  CHECK_NEAR(nccl_base_latency(NCCL_RING, NCCL_SIMPLE), 8.4e-6, 1e-18, "baseLat ring Simple");
  CHECK_NEAR(nccl_base_latency(NCCL_RING, NCCL_LL), 6.6e-6, 1e-18, "baseLat ring LL");
  CHECK_NEAR(nccl_base_latency(NCCL_TREE, NCCL_LL128), 14e-6, 1e-18, "baseLat tree LL128");
  CHECK_NEAR(nccl_step_latency(&p, NCCL_HW_NVLINK, NCCL_RING, NCCL_SIMPLE), 3.4e-6, 1e-18, "hwLat NVLink ring Simple");
  CHECK_NEAR(nccl_step_latency(&p, NCCL_HW_PCI, NCCL_RING, NCCL_LL128), 2.5e-6, 1e-18, "hwLat PCI ring LL128");
  CHECK_NEAR(nccl_step_latency(&p, NCCL_HW_NET, NCCL_RING, NCCL_LL), 2.7e-6, 1e-18, "hwLat NET ring LL");
  /* efficiencies: ring LL x0.5, LL128 x0.92; tree x0.92 then LL /3.8 */
  CHECK_NEAR(nccl_efficiency(&p, NCCL_HW_NVLINK, NCCL_RING, NCCL_SIMPLE), 0.8, 1e-15, "ring Simple");
  CHECK_NEAR(nccl_efficiency(&p, NCCL_HW_NVLINK, NCCL_RING, NCCL_LL), 0.4, 1e-15, "ring LL");
  CHECK_NEAR(nccl_efficiency(&p, NCCL_HW_NVLINK, NCCL_RING, NCCL_LL128), 0.736, 1e-15, "ring LL128");
  CHECK_NEAR(nccl_efficiency(&p, NCCL_HW_NVLINK, NCCL_TREE, NCCL_LL), 0.8 * 0.92 / 3.8, 1e-15, "tree LL");
  CHECK_NEAR(nccl_efficiency(&p, NCCL_HW_NVLINK, NCCL_TREE, NCCL_LL128), 0.8 * 0.92 * 7 / 9.0, 1e-15,
             "tree LL128, one node");
  /* ring all-reduce of 128 MiB over 8 GPUs, Simple:
   * 8.4 + 14 x 3.4 = 56 us, + 134217728 / (360e9 x 8/14) = 652.4 us */
  const double big = 134217728;
  CHECK_NEAR(nccl_call_time(&p, NCCL_RING, NCCL_SIMPLE, big), 56e-6 + big / (360e9 * 8 / 14), 1e-15,
             "ring Simple 128 MiB");
  /* 8 KiB, LL: 6.6 + 14 x 0.6 = 15 us, + 8192 / (180e9 x 8/14) */
  CHECK_NEAR(nccl_call_time(&p, NCCL_RING, NCCL_LL, 8192), 15e-6 + 8192 / (180e9 * 8 / 14), 1e-15, "ring LL 8 KiB");
  /* the tuner's choice: LL for small, Simple for large, LL128 between.
   * LL vs LL128 at 8 KiB: 15.08 us vs 14 + 14 x 1.9 = 40.6 us */
  CHECK(nccl_pick(&p, NCCL_RING, 8192) == NCCL_LL, "8 KiB: %d", nccl_pick(&p, NCCL_RING, 8192));
  CHECK(nccl_pick(&p, NCCL_RING, big) == NCCL_SIMPLE, "128 MiB: %d", nccl_pick(&p, NCCL_RING, big));
  /* LL128 = Simple where 40.6 us + x/(331.2e9 x 8/14) = 56 us + x/(360e9 x 8/14): x = 36.4 MB; LL = LL128
   * where 15 us + x/(180e9 x 8/14) = 40.6 us + x/(331.2e9 x 8/14): x = 5.77 MB */
  CHECK(nccl_pick(&p, NCCL_RING, 4e6) == NCCL_LL, "4 MB: %d", nccl_pick(&p, NCCL_RING, 4e6));
  CHECK(nccl_pick(&p, NCCL_RING, 7e6) == NCCL_LL128, "7 MB: %d", nccl_pick(&p, NCCL_RING, 7e6));
  CHECK(nccl_pick(&p, NCCL_RING, 36e6) == NCCL_LL128, "36 MB: %d", nccl_pick(&p, NCCL_RING, 36e6));
  CHECK(nccl_pick(&p, NCCL_RING, 37e6) == NCCL_SIMPLE, "37 MB: %d", nccl_pick(&p, NCCL_RING, 37e6));
  /* PCIe: no LL128 (NCCL enables it on NVLink only) */
  nccl_plan q = p;
  q.intra_hw = NCCL_HW_PCI;
  CHECK(!nccl_enabled(&q, NCCL_LL128) && nccl_enabled(&p, NCCL_LL128), "LL128 on NVLink only");
  CHECK(nccl_pick(&q, NCCL_RING, 7e6) != NCCL_LL128, "PCIe never picks LL128");
  /* forced */
  q.proto = NCCL_LL;
  CHECK(nccl_pick(&q, NCCL_RING, big) == NCCL_LL, "comm.protocol forces");
  /* two nodes of 8, 4 NICs of 25 GB/s at 0.92, 4 channels: bus = min(360e9, 4 x 23e9);
   * ring latency 8.4 + (30 - 2) x 3.4 + 2 x 14 = 131.6 us; per message (131.6 - 8.4) / 30 */
  nccl_plan m = p;
  m.nranks = 16, m.nnodes = 2, m.nics = 4, m.channels = 4;
  m.bw[NCCL_HW_NET] = 25e9, m.eff[NCCL_HW_NET] = 0.92;
  CHECK_NEAR(nccl_call_time(&m, NCCL_RING, NCCL_SIMPLE, big), 131.6e-6 + big / (92e9 * 16 / 30), 1e-15,
             "two nodes, four rails");
  CHECK_NEAR(nccl_message_latency(&m, NCCL_HW_NET, NCCL_RING, NCCL_SIMPLE), (131.6e-6 - 8.4e-6) / 30, 1e-15,
             "ring latency per message");
  m.channels = 1; /* one rail: a quarter of the network bandwidth */
  CHECK_NEAR(nccl_call_time(&m, NCCL_RING, NCCL_SIMPLE, big), 131.6e-6 + big / (23e9 * 16 / 30), 1e-15, "one rail");
  /* tree, two nodes: 8.4 + 2 (7 x 4.0 + 1 x 14) = 92.4 us, algbw = 0.5 x min(450e9 x 0.8 x 0.92, 23e9 x 0.92) */
  CHECK_NEAR(nccl_call_time(&m, NCCL_TREE, NCCL_SIMPLE, big), 92.4e-6 + big / (0.5 * 23e9 * 0.92), 1e-15, "tree");
  /* NCCL's algorithm choice, two nodes (eff 0.8 NVLink, 0.92 NIC), 8 KiB:
   * ring LL 6.6 + 28 x 0.6 + 2 x 2.7 = 28.8 us + 8192 / (46e9 x 16/30) = 29.1 us;
   * tree LL 6.8 + 2 (7 x 0.6 + 5.0) = 25.2 us + 8192 / (0.5 x 4 x 25e9 x 0.92 / 3.8 x 0.92) = 25.9 us */
  m.channels = 4;
  CHECK(nccl_pick_algo(&m, 8192) == NCCL_TREE, "8 KiB on two nodes: tree");
  CHECK(nccl_pick_algo(&m, big) == NCCL_RING, "128 MiB on two nodes: ring");
  CHECK(nccl_pick_algo(&p, 8192) == NCCL_RING || nccl_call_time(&p, NCCL_TREE, NCCL_LL, 8192) <
                                                    nccl_call_time(&p, NCCL_RING, NCCL_LL, 8192),
        "one node: the cheaper one");
  /* a ring priced as NCCL's tree (the tuner's choice for 8 KiB on two nodes): the tree's
   * latency 2 (7 x 0.6 + 1 x 5.0) = 18.4 us spread over the ring's 30 messages */
  CHECK(nccl_call_algo(&m, 8192) == NCCL_TREE && nccl_pick(&m, NCCL_TREE, 8192) == NCCL_LL, "tree LL");
  CHECK_NEAR(nccl_message_latency(&m, NCCL_HW_NET, NCCL_TREE, NCCL_LL), 18.4e-6 / 30, 1e-18, "tree spread");
  nccl_plan fr = m;
  fr.price_algo = NCCL_RING; /* comm.algorithm "ring" */
  CHECK(nccl_call_algo(&fr, 8192) == NCCL_RING, "comm.algorithm forces");
  /* a tree collective pays its level's class */
  fr.algo = NCCL_TREE;
  CHECK_NEAR(nccl_message_latency(&fr, NCCL_HW_NET, NCCL_TREE, NCCL_LL), 5e-6, 1e-18, "tree collective");
  m.channels = 1;
  /* one GPU per node: the network steps take the tree's latency (tuning.cc: ppn = 1) */
  nccl_plan f = m;
  f.gpn = 1, f.nnodes = 16, f.nics = 1;
  /* plus the fitted 9.5 us per network step (docs/comm-model.md) */
  CHECK_NEAR(nccl_step_latency(&f, NCCL_HW_NET, NCCL_RING, NCCL_SIMPLE), 23.5e-6, 1e-17, "ppn 1");
  CHECK_NEAR(nccl_step_latency(&f, NCCL_HW_NET, NCCL_RING, NCCL_LL), 14.5e-6, 1e-17, "ppn 1, LL");
  /* a measured Simple latency (comm.links) replaces hwLat for Simple only */
  f.lat[NCCL_HW_NET] = 7e-6;
  CHECK_NEAR(nccl_step_latency(&f, NCCL_HW_NET, NCCL_RING, NCCL_SIMPLE), 7e-6, 1e-18, "links latency");
  CHECK_NEAR(nccl_step_latency(&f, NCCL_HW_NET, NCCL_RING, NCCL_LL), 14.5e-6, 1e-17, "links leave LL");
  /* rails: channel c of node n leaves by GPU n x 8 + (c mod 4) x 2 */
  CHECK(nccl_rail_rank(&m, 1, 0) == 8 && nccl_rail_rank(&m, 1, 3) == 14 && nccl_rail_rank(&m, 0, 5) == 2, "rails");
  CHECK(nccl_hw_of(&m, 3, 5) == NCCL_HW_NVLINK && nccl_hw_of(&m, 7, 8) == NCCL_HW_NET, "link classes");
  return check_status("nccl");
}
