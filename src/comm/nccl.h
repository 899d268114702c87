/* src/comm/nccl.h — comm.model "nccl": NCCL's cost model (its tuner,
 * src/graph/tuning.cc) as numbers the timing replay applies.  Pure
 * arithmetic, no SimGrid: the data executor picks a protocol per
 * collective call with it, the replay prices every message with it, and
 * tests/test_nccl.c checks both against hand-computed values.  Every
 * constant is in one table in nccl.c, with its source; docs/comm-model.md
 * has the same table. */
#ifndef CCSIM_NCCL_H
#define CCSIM_NCCL_H

/* NCCL's indices (src/include/device.h: NCCL_PROTO_LL/LL128/SIMPLE,
 * NCCL_ALGO_TREE/RING; tuning.cc: NCCL_HW_NVLINK/PCI/NET). */
enum nccl_proto { NCCL_LL, NCCL_LL128, NCCL_SIMPLE, NCCL_NPROTO };
enum nccl_algo { NCCL_TREE, NCCL_RING, NCCL_NALGO };
enum nccl_hw { NCCL_HW_NVLINK, NCCL_HW_PCI, NCCL_HW_NET, NCCL_NHW };
enum comm_model { COMM_IDEAL, COMM_NCCL };

extern const char *const nccl_proto_names[];  /* "LL", "LL128", "Simple", NULL */
extern const char *const nccl_algo_names[];   /* "tree", "ring", NULL */
extern const char *const nccl_hw_names[];     /* "nvlink", "pcie", "nic", NULL */

/* Everything the nccl model needs about a run: plain data (it travels to
 * the timing executor's process as bytes). */
typedef struct nccl_plan {
  int model;     /* enum comm_model */
  int proto;     /* forced protocol (comm.protocol), or -1: chosen by size */
  int algo;      /* the algorithm the collective runs (its messages' structure) */
  int price_algo; /* an uncompressed allreduce/ring: -1, each call priced as NCCL's tuner
                     picks (ring or tree), or the one comm.algorithm forces; otherwise the
                     collective's own (= algo) */
  int channels;  /* C >= 1: a message between two nodes is split into C flows */
  int nranks, nnodes, gpn, nics; /* workers, nodes, workers per node, NICs per node */
  int intra_hw;  /* NCCL_HW_NVLINK or NCCL_HW_PCI: the link class inside a node */
  double bw[NCCL_NHW];  /* nominal bandwidth of each class (bytes/s, the platform's route) */
  double eff[NCCL_NHW]; /* Simple's achieved / nominal bandwidth per class */
  double lat[NCCL_NHW]; /* Simple's per-step latency per class (s) from comm.links, or < 0:
                           NCCL's hwLat */
} nccl_plan;

/* Simple's achieved / nominal bandwidth of class hw, fitted (the table). */
double nccl_default_efficiency(int hw);
/* Base latency of one call (s): NCCL's baseLat[algo][proto]. */
double nccl_base_latency(int algo, int proto);
/* Per-step latency (s) of a message over link class hw: NCCL's
 * hwLat[hw][algo][proto], or the plan's measured Simple latency. */
double nccl_step_latency(const nccl_plan *p, int hw, int algo, int proto);
/* Latency (s) the replay adds to one message over class hw of a call
 * priced as algorithm `algo`.  A tree collective's message pays its
 * level's class (NCCL's tree formula sums them so).  A ring's pays the
 * priced algorithm's latency (nccl_call_time less the base) spread evenly
 * over the ring's 2(n-1) steps: for NCCL's ring, ((steps - inter) intra +
 * inter x net) / steps with inter = 2(nodes-1), the latency a chunk meets
 * going once round the ring, where ccsim's ring waits, at every step, for
 * the slowest of the step's messages (a network one as soon as there are two
 * nodes); for NCCL's tree, 2((G-1) intra + log2(nodes) net) / steps. */
double nccl_message_latency(const nccl_plan *p, int hw, int algo, int proto);
/* Achieved / nominal bandwidth of a message over class hw: the class's
 * Simple efficiency times NCCL's factor for the protocol (ring LL x0.5,
 * LL128 x0.92; tree x0.92, then LL x1/3.8, LL128 x7/9 on one node,
 * x120/128 across nodes). */
double nccl_efficiency(const nccl_plan *p, int hw, int algo, int proto);
/* Whether NCCL enables the protocol by default: LL128 only when the
 * intra-node class is NVLink (tuning.cc: typeIntra <= PATH_NVB). */
int nccl_enabled(const nccl_plan *p, int proto);
/* NCCL's estimate of an all-reduce of `bytes` (s), as its tuner computes it:
 * latency (base + per-step) + bytes / algorithm bandwidth. */
double nccl_call_time(const nccl_plan *p, int algo, int proto, double bytes);
/* The protocol of a call of `bytes` priced as `algo`: the forced one, or
 * the enabled one of least nccl_call_time (the first of LL, LL128, Simple on
 * a tie). */
int nccl_pick(const nccl_plan *p, int algo, double bytes);
/* The algorithm that prices a call of `bytes`: p->price_algo when set,
 * else NCCL's tuner choice (nccl_pick_algo). */
int nccl_call_algo(const nccl_plan *p, double bytes);
/* The algorithm NCCL's tuner would pick for an all-reduce of `bytes` (the
 * least time over ring and tree with their best protocols). */
int nccl_pick_algo(const nccl_plan *p, double bytes);

/* Link class of a message between ranks a and b. */
static inline int nccl_hw_of(const nccl_plan *p, int a, int b) {
  return a / p->gpn == b / p->gpn ? p->intra_hw : NCCL_HW_NET;
}
/* Rank whose NIC channel c of node `node` leaves and enters by (rail-aligned:
 * NIC c mod nics, GPU g uses NIC g / (gpn / nics)). */
static inline int nccl_rail_rank(const nccl_plan *p, int node, int c) {
  return node * p->gpn + (c % p->nics) * (p->gpn / p->nics);
}

#endif
