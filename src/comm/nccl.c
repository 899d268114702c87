/* src/comm/nccl.c — the nccl model's constants (ONE table, each with its
 * source) and NCCL's tuner arithmetic (nccl.h).
 *
 * NCCL = github.com/NVIDIA/nccl, src/graph/tuning.cc at commit
 * 5067397c2676d5aed50042fc39e5c8ee96eb0027 (2026-06-11); "L151" is a line of
 * that file.  "fitted" constants are ccsim's own, fitted to the published
 * measurements marked "fitted" in the fidelity cases (docs/comm-model.md
 * says which); docs/comm-model.md carries the same table. */
#include "comm/nccl.h"

#include <math.h>
#include <stddef.h>

const char *const nccl_proto_names[] = {"LL", "LL128", "Simple", NULL};
const char *const nccl_algo_names[] = {"tree", "ring", NULL};
const char *const nccl_hw_names[] = {"nvlink", "pcie", "nic", NULL};

/* Latencies in microseconds, as NCCL writes them; factors are ratios. */
enum {
  /* baseLat[algo][proto]: NCCL L151 */
  K_BASE_TREE_LL, K_BASE_TREE_LL128, K_BASE_TREE_SIMPLE,
  K_BASE_RING_LL, K_BASE_RING_LL128, K_BASE_RING_SIMPLE,
  /* hwLat[hw][algo][proto]: NCCL L159 (NVLink), L165 (PCI), L171 (NET) */
  K_HW_NVL_TREE_LL, K_HW_NVL_TREE_LL128, K_HW_NVL_TREE_SIMPLE,
  K_HW_NVL_RING_LL, K_HW_NVL_RING_LL128, K_HW_NVL_RING_SIMPLE,
  K_HW_PCI_TREE_LL, K_HW_PCI_TREE_LL128, K_HW_PCI_TREE_SIMPLE,
  K_HW_PCI_RING_LL, K_HW_PCI_RING_LL128, K_HW_PCI_RING_SIMPLE,
  K_HW_NET_TREE_LL, K_HW_NET_TREE_LL128, K_HW_NET_TREE_SIMPLE,
  K_HW_NET_RING_LL, K_HW_NET_RING_LL128, K_HW_NET_RING_SIMPLE,
  /* bandwidth factors of the protocols and algorithms */
  K_RING_LL, K_RING_LL128, K_TREE, K_TREE_LL, K_TREE_LL128_1NODE, K_TREE_LL128_NODES, K_TREE_RATIO,
  /* Simple's achieved / nominal bandwidth per link class */
  K_EFF_NVLINK, K_EFF_PCIE, K_EFF_NIC,
  /* network steps with one GPU per node: what NCCL's latencies leave out */
  K_NET_PPN1_US,
  K_COUNT
};

typedef struct nccl_constant {
  const char *name;
  double value;
  const char *source;
  int fitted;
} nccl_constant;

#define NCCL_SRC(line) "NCCL src/graph/tuning.cc " line " @5067397c"
/* THE table.  Keep docs/comm-model.md in step with it. */
static const nccl_constant K[K_COUNT] = {
    [K_BASE_TREE_LL] = {"baseLat tree LL (us)", 6.8, NCCL_SRC("L151"), 0},
    [K_BASE_TREE_LL128] = {"baseLat tree LL128 (us)", 14.0, NCCL_SRC("L151"), 0},
    [K_BASE_TREE_SIMPLE] = {"baseLat tree Simple (us)", 8.4, NCCL_SRC("L151"), 0},
    [K_BASE_RING_LL] = {"baseLat ring LL (us)", 6.6, NCCL_SRC("L151"), 0},
    [K_BASE_RING_LL128] = {"baseLat ring LL128 (us)", 14.0, NCCL_SRC("L151"), 0},
    [K_BASE_RING_SIMPLE] = {"baseLat ring Simple (us)", 8.4, NCCL_SRC("L151"), 0},
    [K_HW_NVL_TREE_LL] = {"hwLat NVLink tree LL (us)", 0.6, NCCL_SRC("L159"), 0},
    [K_HW_NVL_TREE_LL128] = {"hwLat NVLink tree LL128 (us)", 1.25, NCCL_SRC("L159"), 0},
    [K_HW_NVL_TREE_SIMPLE] = {"hwLat NVLink tree Simple (us)", 4.0, NCCL_SRC("L159"), 0},
    [K_HW_NVL_RING_LL] = {"hwLat NVLink ring LL (us)", 0.6, NCCL_SRC("L159"), 0},
    [K_HW_NVL_RING_LL128] = {"hwLat NVLink ring LL128 (us)", 1.9, NCCL_SRC("L159"), 0},
    [K_HW_NVL_RING_SIMPLE] = {"hwLat NVLink ring Simple (us)", 3.4, NCCL_SRC("L159"), 0},
    [K_HW_PCI_TREE_LL] = {"hwLat PCI tree LL (us)", 1.0, NCCL_SRC("L165"), 0},
    [K_HW_PCI_TREE_LL128] = {"hwLat PCI tree LL128 (us)", 1.9, NCCL_SRC("L165"), 0},
    [K_HW_PCI_TREE_SIMPLE] = {"hwLat PCI tree Simple (us)", 4.0, NCCL_SRC("L165"), 0},
    [K_HW_PCI_RING_LL] = {"hwLat PCI ring LL (us)", 1.0, NCCL_SRC("L165"), 0},
    [K_HW_PCI_RING_LL128] = {"hwLat PCI ring LL128 (us)", 2.5, NCCL_SRC("L165"), 0},
    [K_HW_PCI_RING_SIMPLE] = {"hwLat PCI ring Simple (us)", 5.7, NCCL_SRC("L165"), 0},
    [K_HW_NET_TREE_LL] = {"hwLat NET tree LL (us)", 5.0, NCCL_SRC("L171"), 0},
    [K_HW_NET_TREE_LL128] = {"hwLat NET tree LL128 (us)", 8.5, NCCL_SRC("L171"), 0},
    [K_HW_NET_TREE_SIMPLE] = {"hwLat NET tree Simple (us)", 14.0, NCCL_SRC("L171"), 0},
    [K_HW_NET_RING_LL] = {"hwLat NET ring LL (us)", 2.7, NCCL_SRC("L171"), 0},
    [K_HW_NET_RING_LL128] = {"hwLat NET ring LL128 (us)", 4.0, NCCL_SRC("L171"), 0},
    [K_HW_NET_RING_SIMPLE] = {"hwLat NET ring Simple (us)", 14.0, NCCL_SRC("L171"), 0},
    [K_RING_LL] = {"ring LL bandwidth factor", 0.5, NCCL_SRC("L327"), 0},
    [K_RING_LL128] = {"ring LL128 bandwidth factor (~120/128)", 0.92, NCCL_SRC("L329"), 0},
    [K_TREE] = {"tree bandwidth factor", 0.92, NCCL_SRC("L331"), 0},
    [K_TREE_LL] = {"tree LL bandwidth factor", 1.0 / 3.8, NCCL_SRC("L332"), 0},
    [K_TREE_LL128_1NODE] = {"tree LL128 bandwidth factor, one node", 7.0 / 9.0, NCCL_SRC("L335"), 0},
    [K_TREE_LL128_NODES] = {"tree LL128 bandwidth factor, several nodes", 120.0 / 128.0, NCCL_SRC("L335"), 0},
    [K_TREE_RATIO] = {"tree algorithm / bus bandwidth", 0.5, NCCL_SRC("L380"), 0},
    /* fitted: ccsim's platforms give datasheet line rates; NCCL's Simple
     * ring reaches this share of them (docs/comm-model.md, "Fitting") */
    [K_EFF_NVLINK] = {"Simple efficiency, NVLink/NVSwitch", 0.80,
                      "fitted: a100x8-nvswitch-1g, h100x8-ring-4g, h100x2-ring-4g (NVIDIA: ~370 of 450 GB/s, "
                      "https://github.com/NVIDIA/nccl-tests/issues/212)", 1},
    [K_EFF_PCIE] = {"Simple efficiency, PCIe", 0.82, "fitted: rtx4090x4-pcie-256m, rtx4090x4-pcie-1024m", 1},
    [K_EFF_NIC] = {"Simple efficiency, NIC", 0.95,
                   "fitted: h100-2x4-4nic-512m, h100-2x4-4nic-8192m (NVIDIA: 24 GB/s per 200 Gb/s NIC, "
                   "https://github.com/NVIDIA/nccl-tests/issues/119)", 1},
    [K_NET_PPN1_US] = {"extra latency per network step, one GPU per node (us)", 9.5,
                       "fitted: spark-2x1-8k, spark-2x1-32k", 1},
};

double nccl_default_efficiency(int hw) { return K[K_EFF_NVLINK + hw].value; }

double nccl_base_latency(int algo, int proto) {
  return K[K_BASE_TREE_LL + algo * NCCL_NPROTO + proto].value * 1e-6;
}

double nccl_step_latency(const nccl_plan *p, int hw, int algo, int proto) {
  if (proto == NCCL_SIMPLE && p->lat[hw] >= 0) return p->lat[hw];
  /* one GPU per node: NCCL prices the network steps as the tree's
   * (tuning.cc L387: "with ppn=1 latencies are fully exposed") */
  double extra = 0;
  if (hw == NCCL_HW_NET && p->gpn == 1) algo = NCCL_TREE, extra = K[K_NET_PPN1_US].value;
  return (K[K_HW_NVL_TREE_LL + (hw * NCCL_NALGO + algo) * NCCL_NPROTO + proto].value + extra) * 1e-6;
}

/* log2 rounded down, as NCCL's log2i. */
static int log2i(int n) {
  int l = 0;
  while (n >>= 1) l++;
  return l;
}

/* NCCL's latency of an all-reduce less its base latency (ncclTopoTuneModel). */
static double steps_latency(const nccl_plan *p, int algo, int proto) {
  const double intra = nccl_step_latency(p, p->intra_hw, algo, proto);
  const double inter = nccl_step_latency(p, NCCL_HW_NET, algo, proto);
  if (algo == NCCL_TREE) return 2 * ((p->gpn - 1) * intra + log2i(p->nnodes) * inter);
  const int steps = 2 * (p->nranks - 1), inter_steps = p->nnodes > 1 ? 2 * (p->nnodes - 1) : 0;
  return (steps - inter_steps) * intra + inter_steps * inter;
}

double nccl_message_latency(const nccl_plan *p, int hw, int algo, int proto) {
  if (p->algo == NCCL_TREE || p->nranks <= 1) return nccl_step_latency(p, hw, algo, proto);
  return steps_latency(p, algo, proto) / (2 * (p->nranks - 1));
}

double nccl_efficiency(const nccl_plan *p, int hw, int algo, int proto) {
  double f = 1;
  if (algo == NCCL_RING) {
    if (proto == NCCL_LL) f = K[K_RING_LL].value;
    if (proto == NCCL_LL128) f = K[K_RING_LL128].value;
  } else {
    f = K[K_TREE].value;
    if (proto == NCCL_LL) f *= K[K_TREE_LL].value;
    if (proto == NCCL_LL128) f *= p->nnodes == 1 ? K[K_TREE_LL128_1NODE].value : K[K_TREE_LL128_NODES].value;
  }
  return p->eff[hw] * f;
}

int nccl_enabled(const nccl_plan *p, int proto) {
  return proto != NCCL_LL128 || p->intra_hw == NCCL_HW_NVLINK;
}

double nccl_call_time(const nccl_plan *p, int algo, int proto, double bytes) {
  if (p->nranks <= 1) return 0;
  /* bus bandwidth: the slowest class the ring or tree crosses; between
   * nodes, every NIC a channel uses carries its share */
  double bus = INFINITY;
  if (p->gpn > 1) bus = p->bw[p->intra_hw] * nccl_efficiency(p, p->intra_hw, algo, proto);
  if (p->nnodes > 1) {
    const int lanes = p->channels < p->nics ? p->channels : p->nics;
    const double net = lanes * p->bw[NCCL_HW_NET] * nccl_efficiency(p, NCCL_HW_NET, algo, proto);
    if (net < bus) bus = net;
  }
  const double lat = nccl_base_latency(algo, proto) + steps_latency(p, algo, proto);
  const double algbw = algo == NCCL_RING ? bus * p->nranks / (2 * (p->nranks - 1)) : bus * K[K_TREE_RATIO].value;
  return lat + bytes / algbw;
}

int nccl_call_algo(const nccl_plan *p, double bytes) {
  return p->price_algo >= 0 ? p->price_algo : nccl_pick_algo(p, bytes);
}

int nccl_pick(const nccl_plan *p, int algo, double bytes) {
  if (p->proto >= 0) return p->proto;
  int best = NCCL_SIMPLE;
  double t = INFINITY;
  for (int q = 0; q < NCCL_NPROTO; q++) {
    if (!nccl_enabled(p, q)) continue;
    const double x = nccl_call_time(p, algo, q, bytes);
    if (x < t) t = x, best = q;
  }
  return best;
}

int nccl_pick_algo(const nccl_plan *p, double bytes) {
  int best = NCCL_RING;
  double t = INFINITY;
  for (int a = 0; a < NCCL_NALGO; a++)
    for (int q = 0; q < NCCL_NPROTO; q++) {
      if (!nccl_enabled(p, q)) continue;
      const double x = nccl_call_time(p, a, q, bytes);
      if (x < t) t = x, best = a;
    }
  return best;
}
