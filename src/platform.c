/* src/platform.c — generated platforms, written as SimGrid XML.
 *
 * crossbar: N hosts, each with one private full-duplex link to a
 * non-blocking switch (SimGrid's <cluster> with no backbone and
 * SPLITDUPLEX links, so each direction has the full bandwidth):
 *
 *     h0 ──up/down── ┐
 *     h1 ──up/down── ┤  switch (no capacity limit)
 *     ...            │
 *     hN-1 ─up/down─ ┘
 *
 * A message from hi to hj crosses hi's up link and hj's down link: under
 * CM02 it takes 2 x latency + size / bandwidth when alone on those links.
 *
 * fat-tree, torus, dragonfly: SimGrid's own cluster topologies (<cluster
 * topology=...>), which build the switches, links and routing themselves.
 *
 * cloud: racks behind oversubscribed uplinks, heterogeneous NICs; one
 * SimGrid zone per rack (a star of NICs around its top-of-rack router) inside
 * a zone whose routes join racks through their uplinks.
 *
 * multigpu: nodes of GPUs, a fast fabric inside a node (NVSwitch-like) and
 * NICs between nodes; one star zone of NICs, with bypass routes that send
 * traffic between GPUs of the same node over their fabric links instead.
 *
 * Every file starts with an XML comment that explains the topology and its
 * parameters; it is written beside the results (platform.xml) so the same
 * platform can be given to SMPI or loaded again.  Host names sort (naturally)
 * in topology order: worker r runs on the r-th host. */
#include "platform.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config/input.h"
#include "platforms/check.h"
#include "platforms/pcie.h"
#include "results.h"

static const char *const crossbar_fields[] = {"hosts", "bandwidth", "latency", NULL};
static const char *const fat_tree_fields[] = {"down", "up", "parallel", "bandwidth", "latency", NULL};
static const char *const torus_fields[] = {"dims", "bandwidth", "latency", NULL};
static const char *const dragonfly_fields[] = {"groups",        "chassis",       "routers",
                                               "nodes_per_router", "group_links", "chassis_links",
                                               "router_links",  "bandwidth",     "latency", NULL};
static const char *const cloud_fields[] = {"racks",     "hosts_per_rack", "oversubscription", "bandwidth",
                                           "nics",      "latency",        "uplink_latency",   NULL};
static const char *const multigpu_fields[] = {"nodes",     "gpus_per_node", "nics_per_node",  "bandwidth",
                                              "latency",   "intra_bandwidth", "intra_latency", NULL};
static const char *const pcie_fields[] = {"gpus",         "gpus_per_switch", "sockets",          "bandwidth",
                                          "latency",      "socket_bandwidth", "socket_latency",  "nvlink",
                                          "nvlink_bandwidth", "nvlink_latency", NULL};

static const platform_kind kinds[] = {
    {"crossbar", crossbar_fields, "N hosts, one private full-duplex link each to a non-blocking switch", "{}"},
    {"fat-tree", fat_tree_fields,
     "SimGrid FAT_TREE: hosts under levels of switches (children, parents, parallel links per level)",
     "{\"down\": [8, 8]}"},
    {"torus", torus_fields, "SimGrid TORUS: hosts on a wrap-around grid, one link per dimension each",
     "{\"dims\": [4, 4, 4]}"},
    {"dragonfly", dragonfly_fields,
     "SimGrid DRAGONFLY: groups of chassis of routers, all-to-all inside, one global link per group pair",
     "{\"groups\": 3, \"chassis\": 3, \"routers\": 4, \"nodes_per_router\": 2}"},
    {"cloud", cloud_fields,
     "racks of hosts (NICs of mixed speeds) behind oversubscribed uplinks to a non-blocking core",
     "{\"racks\": 4, \"hosts_per_rack\": 16}"},
    {"multigpu", multigpu_fields,
     "nodes of GPUs: a fast intra-node fabric (NVLink-like) and NICs to a non-blocking switch",
     "{\"nodes\": 8, \"gpus_per_node\": 8}"},
    {"pcie-server", pcie_fields,
     "one server: GPUs under PCIe switches under CPU sockets (QPI/UPI), optional NVLink (cube mesh or switch)",
     "{}"},
};

const platform_kind *platform_kinds(size_t *count) {
  *count = sizeof kinds / sizeof kinds[0];
  return kinds;
}

const platform_kind *platform_kind_find(const char *name) {
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    if (!strcmp(kinds[i].name, name)) return &kinds[i];
  return NULL;
}

/* "a,b,c" from n integers, with sep between them. */
static void join_ints(char *out, size_t len, const int *v, int n, const char *sep) {
  size_t k = 0;
  out[0] = 0;
  for (int i = 0; i < n && k < len; i++) k += (size_t)snprintf(out + k, len - k, "%s%d", i ? sep : "", v[i]);
}

/* a * b, or -1 once past max (a, b >= 0, a <= max). */
static long long mul_capped(long long a, long long b, long long max) {
  if (a < 0 || (b && a > max / b)) return -1;
  return a * b;
}

long long platform_host_count(const experiment *e, long long max) {
  const char *g = e->platform.generate;
  long long n = 1;
  if (!strcmp(g, "crossbar")) return e->platform.hosts <= max ? e->platform.hosts : -1;
  if (!strcmp(g, "fat-tree")) {
    for (int i = 0; i < e->platform.fat_tree.levels; i++) n = mul_capped(n, e->platform.fat_tree.down[i], max);
  } else if (!strcmp(g, "torus")) {
    for (int i = 0; i < e->platform.torus.ndims; i++) n = mul_capped(n, e->platform.torus.dims[i], max);
  } else if (!strcmp(g, "dragonfly")) {
    n = mul_capped(n, e->platform.dragonfly.groups, max);
    n = mul_capped(n, e->platform.dragonfly.chassis, max);
    n = mul_capped(n, e->platform.dragonfly.routers, max);
    n = mul_capped(n, e->platform.dragonfly.nodes_per_router, max);
  } else if (!strcmp(g, "cloud")) {
    n = mul_capped(e->platform.cloud.racks, e->platform.cloud.hosts_per_rack, max);
  } else if (!strcmp(g, "multigpu")) {
    n = mul_capped(e->platform.multigpu.nodes, e->platform.gpus_per_node, max);
  } else if (!strcmp(g, "pcie-server")) {
    n = e->platform.pcie.gpus;
  } else {
    return -1;
  }
  return n > max ? -1 : n;
}

void platform_host_formula(const experiment *e, char *out, size_t len) {
  const char *g = e->platform.generate;
  char v[256];
  if (!strcmp(g, "fat-tree")) {
    join_ints(v, sizeof v, e->platform.fat_tree.down, e->platform.fat_tree.levels, " x ");
    snprintf(out, len, "product of platform.down = %s", v);
  } else if (!strcmp(g, "torus")) {
    join_ints(v, sizeof v, e->platform.torus.dims, e->platform.torus.ndims, " x ");
    snprintf(out, len, "product of platform.dims = %s", v);
  } else if (!strcmp(g, "dragonfly")) {
    snprintf(out, len, "groups x chassis x routers x nodes_per_router = %d x %d x %d x %d",
             e->platform.dragonfly.groups, e->platform.dragonfly.chassis, e->platform.dragonfly.routers,
             e->platform.dragonfly.nodes_per_router);
  } else if (!strcmp(g, "cloud")) {
    snprintf(out, len, "racks x hosts_per_rack = %d x %d", e->platform.cloud.racks,
             e->platform.cloud.hosts_per_rack);
  } else if (!strcmp(g, "multigpu")) {
    snprintf(out, len, "nodes x gpus_per_node = %d x %d", e->platform.multigpu.nodes,
             e->platform.gpus_per_node);
  } else if (!strcmp(g, "pcie-server")) {
    snprintf(out, len, "platform.gpus = %d", e->platform.pcie.gpus);
  } else {
    snprintf(out, len, "platform.hosts = %d", e->platform.hosts);
  }
}

static const char xml_head[] = "<?xml version='1.0'?>\n"
                               "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n";

/* The experiment's name, fit for an XML comment (no "--" inside one). */
static void comment_safe(char *out, size_t len, const char *name) {
  size_t k = 0;
  for (const char *s = name; *s && k + 1 < len; s++) out[k++] = (*s == '-' && s[1] == '-') ? '_' : *s;
  out[k] = 0;
}

static void write_crossbar(FILE *f, const experiment *e, const char *name) {
  fprintf(f,
          "%s"
          "<!-- Generated by ccsim %s for experiment \"%s\".\n"
          "     crossbar: %d hosts h0..h%d, each with a private full-duplex link\n"
          "     (%.17g bytes/s per direction, %.17g s latency) to a non-blocking switch.\n"
          "     A host-to-host route is the sender's link then the receiver's. -->\n"
          "<platform version=\"4.1\">\n"
          "  <cluster id=\"crossbar\" prefix=\"h\" radical=\"0-%d\" suffix=\"\" speed=\"1Gf\"\n"
          "           bw=\"%.17gBps\" lat=\"%.17gs\" sharing_policy=\"SPLITDUPLEX\"/>\n"
          "</platform>\n",
          xml_head, CCSIM_VERSION, name, e->platform.hosts, e->platform.hosts - 1, e->platform.bandwidth,
          e->platform.latency, e->platform.hosts - 1, e->platform.bandwidth, e->platform.latency);
}

static void write_cluster_tag(FILE *f, const char *id, long long hosts, const experiment *e,
                              const char *topology, const char *params) {
  fprintf(f,
          "<platform version=\"4.1\">\n"
          "  <cluster id=\"%s\" prefix=\"h\" radical=\"0-%lld\" suffix=\"\" speed=\"1Gf\"\n"
          "           bw=\"%.17gBps\" lat=\"%.17gs\" sharing_policy=\"SPLITDUPLEX\"\n"
          "           topology=\"%s\" topo_parameters=\"%s\"/>\n"
          "</platform>\n",
          id, hosts - 1, e->platform.bandwidth, e->platform.latency, topology, params);
}

/* SimGrid's FAT_TREE (kernel/routing/FatTreeZone): with L levels, down[i]
 * children per switch of level i+1, up[i] parents per node of level i and
 * parallel[i] links between a node of level i and each of its parents,
 * level l (1..L) holds up[0]..up[l-1] x down[l]..down[L-1] switches. */
static void write_fat_tree(FILE *f, const experiment *e, const char *name) {
  const int L = e->platform.fat_tree.levels;
  const int *down = e->platform.fat_tree.down, *up = e->platform.fat_tree.up,
            *par = e->platform.fat_tree.parallel;
  const long long n = platform_host_count(e, 1ll << 40);
  char d[128], u[128], p[128], topo[400];
  join_ints(d, sizeof d, down, L, ",");
  join_ints(u, sizeof u, up, L, ",");
  join_ints(p, sizeof p, par, L, ",");
  snprintf(topo, sizeof topo, "%d;%s;%s;%s", L, d, u, p);
  fprintf(f,
          "%s"
          "<!-- Generated by ccsim %s for experiment \"%s\".\n"
          "     fat-tree: %lld hosts h0..h%lld under %d level%s of switches (SimGrid's\n"
          "     FAT_TREE cluster, topo_parameters \"%s\": levels; children per\n"
          "     switch of each level; parents of each node of the level below;\n"
          "     parallel links to each parent).  Each host has %d parent%s.\n",
          xml_head, CCSIM_VERSION, name, n, n - 1, L, L > 1 ? "s" : "", topo, up[0], up[0] > 1 ? "s" : "");
  for (int l = 1; l <= L; l++) {
    long long sw = 1;
    for (int i = 0; i < l; i++) sw *= up[i];
    for (int i = l; i < L; i++) sw *= down[i];
    fprintf(f, "       level %d: %lld switch%s of %d children (%d link%s to each)", l, sw, sw > 1 ? "es" : "",
            down[l - 1], par[l - 1], par[l - 1] > 1 ? "s" : "");
    if (l < L)
      fprintf(f, ", %d parent%s (%d link%s to each): %g:1 down:up", up[l], up[l] > 1 ? "s" : "", par[l],
              par[l] > 1 ? "s" : "", (double)down[l - 1] * par[l - 1] / ((double)up[l] * par[l]));
    fputs("\n", f);
  }
  fprintf(f,
          "     Every link is full-duplex, %.17g bytes/s per direction, %.17g s latency.\n"
          "     A route climbs to the lowest common ancestor of the two hosts (SimGrid\n"
          "     picks the parent d-mod-k) and comes down: hosts h0..h%d share a level-1\n"
          "     switch (2 links apart); hosts that meet at level l are 2 x l links apart. -->\n",
          e->platform.bandwidth, e->platform.latency, down[0] - 1);
  write_cluster_tag(f, "fat-tree", n, e, "FAT_TREE", topo);
}

/* SimGrid's TORUS (kernel/routing/TorusZone): host i has one link per
 * dimension to its next neighbour, the first dimension varying fastest;
 * routes go dimension by dimension, each the shorter way round. */
static void write_torus(FILE *f, const experiment *e, const char *name) {
  const int D = e->platform.torus.ndims;
  const int *dims = e->platform.torus.dims;
  const long long n = platform_host_count(e, 1ll << 40);
  /* Dimensions of size 1 change no coordinate; SimGrid 3.32 gives each a
   * self-link named after the host, so two of them would clash: leave them out. */
  int kept[PLATFORM_MAX_DIMS], K = 0;
  for (int i = 0; i < D; i++)
    if (dims[i] > 1) kept[K++] = dims[i];
  if (!K) kept[K++] = 1;
  char topo[160], shape[200];
  join_ints(topo, sizeof topo, kept, K, ",");
  join_ints(shape, sizeof shape, dims, D, " x ");
  int diameter = 0;
  for (int i = 0; i < D; i++) diameter += dims[i] / 2;
  fprintf(f,
          "%s"
          "<!-- Generated by ccsim %s for experiment \"%s\".\n"
          "     torus: %lld hosts h0..h%lld on a %s torus (SimGrid's TORUS cluster,\n"
          "     topo_parameters \"%s\"%s).  Host hi sits at coordinates (i mod %d, ...):\n"
          "     the first dimension varies fastest.  Each host has one full-duplex link per\n"
          "     dimension to its next neighbour in that dimension, wrapping around\n"
          "     (%.17g bytes/s per direction, %.17g s latency).  No switches: a route\n"
          "     goes dimension by dimension, each the shorter way round, through the\n"
          "     hosts' links: h0 to h1 is one link, the farthest pair %d links. -->\n",
          xml_head, CCSIM_VERSION, name, n, n - 1, shape, topo,
          K < D ? ", dimensions of size 1 left out" : "", dims[0],
          e->platform.bandwidth,
          e->platform.latency, diameter);
  write_cluster_tag(f, "torus", n, e, "TORUS", topo);
}

/* SimGrid's DRAGONFLY (kernel/routing/DragonflyZone), minimal routing. */
static void write_dragonfly(FILE *f, const experiment *e, const char *name) {
  const int G = e->platform.dragonfly.groups, C = e->platform.dragonfly.chassis,
            R = e->platform.dragonfly.routers, H = e->platform.dragonfly.nodes_per_router;
  const long long n = platform_host_count(e, 1ll << 40);
  char topo[160];
  snprintf(topo, sizeof topo, "%d,%d;%d,%d;%d,%d;%d", G, e->platform.dragonfly.group_links, C,
           e->platform.dragonfly.chassis_links, R, e->platform.dragonfly.router_links, H);
  fprintf(f,
          "%s"
          "<!-- Generated by ccsim %s for experiment \"%s\".\n"
          "     dragonfly: %lld hosts h0..h%lld = %d groups x %d chassis x %d routers x %d hosts\n"
          "     per router (SimGrid's DRAGONFLY cluster, topo_parameters \"%s\":\n"
          "     groups,links; chassis per group,links; routers per chassis,links; hosts\n"
          "     per router).  Host hi hangs off router i / %d by its own link.  The routers\n"
          "     of a chassis are all-to-all (%d parallel link%s per pair); in a group, the\n"
          "     routers of the same rank in each chassis are all-to-all (%d per pair); each\n"
          "     pair of groups is joined by one global link bundle (%d) between router g\n"
          "     of chassis 0 of group g' and router g' of chassis 0 of group g.  A bundle\n"
          "     of k links is one link of k x %.17g bytes/s per direction; every link has\n"
          "     %.17g s latency.  Minimal routing: host, router, chassis, global, router,\n"
          "     chassis links as needed, then the receiver's host link. -->\n",
          xml_head, CCSIM_VERSION, name, n, n - 1, G, C, R, H, topo, H, e->platform.dragonfly.router_links,
          e->platform.dragonfly.router_links > 1 ? "s" : "", e->platform.dragonfly.chassis_links,
          e->platform.dragonfly.group_links, e->platform.bandwidth, e->platform.latency);
  write_cluster_tag(f, "dragonfly", n, e, "DRAGONFLY", topo);
}

/* NIC bandwidth of cloud host i: the nics pattern cycled over the hosts. */
static double cloud_nic(const experiment *e, long long i) {
  if (!e->platform.cloud.nnics) return e->platform.bandwidth;
  long long period = 0;
  for (int k = 0; k < e->platform.cloud.nnics; k++) period += e->platform.cloud.nics[k].count;
  long long pos = i % period;
  for (int k = 0; k < e->platform.cloud.nnics; k++) {
    if (pos < e->platform.cloud.nics[k].count) return e->platform.cloud.nics[k].bandwidth;
    pos -= e->platform.cloud.nics[k].count;
  }
  return e->platform.bandwidth; /* not reached */
}

static void write_cloud(FILE *f, const experiment *e, const char *name) {
  const int R = e->platform.cloud.racks, H = e->platform.cloud.hosts_per_rack;
  const double over = e->platform.cloud.oversubscription;
  const long long n = (long long)R * H;
  fprintf(f,
          "%s"
          "<!-- Generated by ccsim %s for experiment \"%s\".\n"
          "     cloud: %d rack%s of %d hosts, r0-h0 .. r%d-h%lld (rack, then host number).\n"
          "     Each host has a full-duplex NIC link to its rack's top-of-rack switch;\n"
          "     each rack switch has one full-duplex uplink to a non-blocking core:\n"
          "\n"
          "       r0-h0 ..nic.. +                      +.. uplink0 ..+\n"
          "       ...           +.. tor0 ..............+              core\n"
          "       r0-h%d ..nic.. +                      +.. uplink%d ..+\n"
          "\n",
          xml_head, CCSIM_VERSION, name, R, R > 1 ? "s" : "", H, R - 1, n - 1, H - 1, R - 1);
  if (e->platform.cloud.nnics) {
    fputs("     NICs (bytes/s per direction), a pattern cycled over the hosts in order:", f);
    for (int k = 0; k < e->platform.cloud.nnics; k++)
      fprintf(f, "%s %d x %.17g", k ? "," : "", e->platform.cloud.nics[k].count,
              e->platform.cloud.nics[k].bandwidth);
    fputs(".\n", f);
  } else {
    fprintf(f, "     NICs: %.17g bytes/s per direction each.\n", e->platform.bandwidth);
  }
  fprintf(f,
          "     NIC latency %.17g s.  Uplink of a rack: the sum of its NICs' bandwidth\n"
          "     divided by the oversubscription %.17g, latency %.17g s.\n"
          "     Same rack: sender's NIC, receiver's NIC.  Across racks: sender's NIC,\n"
          "     sender's uplink, receiver's uplink, receiver's NIC. -->\n"
          "<platform version=\"4.1\">\n"
          "  <zone id=\"cloud\" routing=\"Full\">\n",
          e->platform.latency, over, e->platform.cloud.uplink_latency);
  double *uplink = calloc((size_t)R, sizeof *uplink);
  for (int r = 0; r < R; r++) {
    fprintf(f, "    <zone id=\"rack%d\" routing=\"Cluster\">\n      <router id=\"tor%d\"/>\n", r, r);
    for (int h = 0; h < H; h++) {
      const long long i = (long long)r * H + h;
      const double bw = cloud_nic(e, i);
      uplink[r] += bw;
      fprintf(f,
              "      <host id=\"r%d-h%lld\" speed=\"1Gf\"/>\n"
              "      <link id=\"nic-r%d-h%lld\" bandwidth=\"%.17gBps\" latency=\"%.17gs\" "
              "sharing_policy=\"SPLITDUPLEX\"/>\n"
              "      <host_link id=\"r%d-h%lld\" up=\"nic-r%d-h%lld_UP\" down=\"nic-r%d-h%lld_DOWN\"/>\n",
              r, i, r, i, bw, e->platform.latency, r, i, r, i, r, i);
    }
    fputs("    </zone>\n", f);
  }
  for (int r = 0; r < R; r++)
    fprintf(f,
            "    <link id=\"uplink%d\" bandwidth=\"%.17gBps\" latency=\"%.17gs\" "
            "sharing_policy=\"SPLITDUPLEX\"/>\n",
            r, uplink[r] / over, e->platform.cloud.uplink_latency);
  for (int a = 0; a < R; a++)
    for (int b = 0; b < R; b++)
      if (a != b)
        fprintf(f,
                "    <zoneRoute src=\"rack%d\" dst=\"rack%d\" gw_src=\"tor%d\" gw_dst=\"tor%d\" "
                "symmetrical=\"NO\">\n"
                "      <link_ctn id=\"uplink%d\" direction=\"UP\"/><link_ctn id=\"uplink%d\" "
                "direction=\"DOWN\"/>\n"
                "    </zoneRoute>\n",
                a, b, a, b, a, b);
  fputs("  </zone>\n</platform>\n", f);
  free(uplink);
}

static void write_multigpu(FILE *f, const experiment *e, const char *name) {
  const int N = e->platform.multigpu.nodes, G = e->platform.gpus_per_node,
            K = e->platform.multigpu.nics_per_node;
  char share[64];
  if (K == G) snprintf(share, sizeof share, "one per GPU");
  else if (K == 1) snprintf(share, sizeof share, "shared by its %d GPUs", G);
  else snprintf(share, sizeof share, "GPU g uses NIC g / %d", G / K);
  fprintf(f,
          "%s"
          "<!-- Generated by ccsim %s for experiment \"%s\".\n"
          "     multigpu: %d node%s of %d GPUs, hosts n0-gpu0 .. n%d-gpu%d; a node's GPUs are\n"
          "     consecutive in host order (gpus_per_node=%d).  Inside a node each GPU has a\n"
          "     full-duplex link (%.17g bytes/s per direction, %.17g s) to the node's\n"
          "     non-blocking fabric (NVSwitch-like); between nodes each GPU goes through\n"
          "     one of its node's %d NIC%s (%s), full-duplex links\n"
          "     (%.17g bytes/s per direction, %.17g s) to a non-blocking switch:\n"
          "\n"
          "       n0-gpu0 ..intra.. +                  + n0-nic0 ..+\n"
          "       ...               +.. n0 fabric      ...          +.. switch\n"
          "       n0-gpu%d ..intra.. +                  + n0-nic%d ..+\n"
          "\n"
          "     Same node: sender's intra link, receiver's intra link.  Across nodes:\n"
          "     sender's NIC, receiver's NIC. -->\n"
          "<platform version=\"4.1\">\n"
          "  <zone id=\"multigpu\" routing=\"Cluster\">\n"
          "    <prop id=\"gpus_per_node\" value=\"%d\"/>\n",
          xml_head, CCSIM_VERSION, name, N, N > 1 ? "s" : "", G, N - 1, G - 1, G,
          e->platform.multigpu.intra_bandwidth, e->platform.multigpu.intra_latency, K, K > 1 ? "s" : "",
          share, e->platform.bandwidth, e->platform.latency, G - 1, K - 1, G);
  for (int nd = 0; nd < N; nd++) {
    for (int k = 0; k < K; k++)
      fprintf(f,
              "    <link id=\"n%d-nic%d\" bandwidth=\"%.17gBps\" latency=\"%.17gs\" "
              "sharing_policy=\"SPLITDUPLEX\"/>\n",
              nd, k, e->platform.bandwidth, e->platform.latency);
    for (int g = 0; g < G; g++)
      fprintf(f,
              "    <host id=\"n%d-gpu%d\" speed=\"1Gf\"/>\n"
              "    <link id=\"n%d-gpu%d-intra\" bandwidth=\"%.17gBps\" latency=\"%.17gs\" "
              "sharing_policy=\"SPLITDUPLEX\"/>\n"
              "    <host_link id=\"n%d-gpu%d\" up=\"n%d-nic%d_UP\" down=\"n%d-nic%d_DOWN\"/>\n",
              nd, g, nd, g, e->platform.multigpu.intra_bandwidth, e->platform.multigpu.intra_latency, nd, g,
              nd, g / (G / K), nd, g / (G / K));
  }
  for (int nd = 0; nd < N; nd++)
    for (int a = 0; a < G; a++)
      for (int b = 0; b < G; b++)
        if (a != b)
          fprintf(f,
                  "    <bypassRoute src=\"n%d-gpu%d\" dst=\"n%d-gpu%d\"><link_ctn id=\"n%d-gpu%d-intra\" "
                  "direction=\"UP\"/><link_ctn id=\"n%d-gpu%d-intra\" direction=\"DOWN\"/></bypassRoute>\n",
                  nd, a, nd, b, nd, a, nd, b);
  fputs("  </zone>\n</platform>\n", f);
}

void platform_print(FILE *f, const experiment *e) {
  char name[512];
  comment_safe(name, sizeof name, e->name);
  const char *g = e->platform.generate;
  if (!strcmp(g, "fat-tree")) write_fat_tree(f, e, name);
  else if (!strcmp(g, "torus")) write_torus(f, e, name);
  else if (!strcmp(g, "dragonfly")) write_dragonfly(f, e, name);
  else if (!strcmp(g, "cloud")) write_cloud(f, e, name);
  else if (!strcmp(g, "multigpu")) write_multigpu(f, e, name);
  else if (!strcmp(g, "pcie-server")) pcie_server_write(f, e, name);
  else write_crossbar(f, e, name);
}

int platform_write(const experiment *e, const char *dir, const char *name, ccsim_error *err) {
  FILE *f = results_open(dir, name, err);
  if (!f) return err ? err->code : CCSIM_ERR_RUNTIME;
  platform_print(f, e);
  return results_commit(f, dir, name, err);
}

double platform_hop_latency(const experiment *e) {
  const char *g = e->platform.generate;
  if (!strcmp(g, "torus")) /* h0 and h1 are neighbours in the first dimension of size > 1 */
    return e->platform.latency;
  if (!strcmp(g, "fat-tree")) { /* h0 and h1 meet at the lowest level whose subtree holds both */
    long long below = e->platform.fat_tree.down[0];
    int l = 1;
    while (below < 2 && l < e->platform.fat_tree.levels) below *= e->platform.fat_tree.down[l++];
    return 2.0 * l * e->platform.latency;
  }
  if (!strcmp(g, "dragonfly")) /* same router, else one router-to-router link (groups <= routers) */
    return (e->platform.dragonfly.nodes_per_router > 1 ? 2 : 3) * e->platform.latency;
  if (!strcmp(g, "cloud")) /* same rack, else across two uplinks */
    return 2.0 * (e->platform.latency +
                  (e->platform.cloud.hosts_per_rack > 1 ? 0 : e->platform.cloud.uplink_latency));
  if (!strcmp(g, "pcie-server")) return pcie_server_hop_latency(e);
  if (!strcmp(g, "multigpu"))
    return e->platform.gpus_per_node > 1 ? 2.0 * e->platform.multigpu.intra_latency : 2.0 * e->platform.latency;
  return 2.0 * e->platform.latency;
}

/* Count the radicals of "0-63,70,72-73". */
static long long count_radicals(const char *s, size_t len) {
  long long n = 0;
  char buf[512];
  if (len >= sizeof buf) len = sizeof buf - 1;
  memcpy(buf, s, len);
  buf[len] = 0;
  char *save = NULL;
  for (char *part = strtok_r(buf, ",", &save); part; part = strtok_r(NULL, ",", &save)) {
    char *end;
    long long a = strtoll(part, &end, 10), b = a;
    if (*end == '-') b = strtoll(end + 1, NULL, 10);
    if (b >= a) n += b - a + 1;
  }
  return n;
}

/* The value of attribute attr in the tag starting at tag (up to its '>'). */
static const char *attribute(const char *tag, const char *attr, size_t *len) {
  const char *end = strchr(tag, '>');
  size_t alen = strlen(attr);
  for (const char *p = tag + 1; end && p < end; p++) {
    if ((p[-1] == ' ' || p[-1] == '\n' || p[-1] == '\t') && !strncmp(p, attr, alen) && p[alen] == '=' &&
        (p[alen + 1] == '"' || p[alen + 1] == '\'')) {
      const char q = p[alen + 1], *v = p + alen + 2, *ve = strchr(v, q);
      if (!ve || ve > end) return NULL;
      *len = (size_t)(ve - v);
      return v;
    }
  }
  return NULL;
}

int platform_file_describe(const char *path, char *desc, size_t len, long long *hosts, int *gpus_per_node) {
  size_t n; /* read safely: a FIFO, a device or a huge file is refused */
  char *text;
  if (cfg_read_file(path, "platform file", PLATFORM_CHECK_MAX_BYTES, &text, &n, NULL)) return -1;
  if (desc && len) desc[0] = 0;
  long long count = 0;
  int gpn = 1, first_comment = 1;
  for (char *p = text; (p = strchr(p, '<'));) {
    if (!strncmp(p, "<!--", 4)) {
      char *end = strstr(p + 4, "-->");
      if (first_comment && desc && len) { /* its first line with words */
        first_comment = 0;
        char *s = p + 4;
        while (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r') s++;
        size_t k = strcspn(s, "\n");
        if (end && s + k > end) k = (size_t)(end - s);
        while (k && (s[k - 1] == ' ' || s[k - 1] == '\r')) k--;
        snprintf(desc, len, "%.*s", (int)k, s);
      }
      if (!end) break;
      p = end + 3;
      continue;
    }
    size_t vlen, ilen;
    const char *v, *id;
    if (!strncmp(p, "<host", 5) && (p[5] == ' ' || p[5] == '\n' || p[5] == '\t')) {
      count++;
    } else if ((!strncmp(p, "<cluster", 8) || !strncmp(p, "<cabinet", 8)) &&
               (p[8] == ' ' || p[8] == '\n' || p[8] == '\t')) {
      if ((v = attribute(p, "radical", &vlen))) count += count_radicals(v, vlen);
    } else if (!strncmp(p, "<prop", 5) && (id = attribute(p, "id", &ilen)) && ilen == 13 &&
               !strncmp(id, "gpus_per_node", 13) && (v = attribute(p, "value", &vlen))) {
      gpn = atoi(v);
    }
    p++;
  }
  free(text);
  if (hosts) *hosts = count;
  if (gpus_per_node) *gpus_per_node = gpn;
  return 0;
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Kind k's fields as an experiment takes them: the required ones with their
 * example value, the others with the default the experiment reader fills in
 * (for the example; "up" and "parallel" follow "down"), into out[len].  The
 * defaults come from resolving a one-worker experiment of the example, so this
 * list cannot drift from the reader. */
static void generator_params(const platform_kind *k, char *out, size_t len) {
  out[0] = '\0';
  json_t *req = json_loads(k->required, JSON_REJECT_DUPLICATES, NULL);
  json_t *plat = json_deep_copy(req);
  json_object_set_new(plat, "generate", json_string(k->name));
  json_t *root = json_pack("{s:s, s:i, s:{s:i}, s:o}", "name", "list", "workers", 1, "model", "elements", 1,
                           "platform", plat);
  ccsim_error err = {0};
  experiment *e = root ? experiment_from_json(root, "(list platforms)", &err) : NULL;
  json_t *resolved = e ? json_object_get(e->resolved, "platform") : NULL;
  size_t used = 0;
  for (const char *const *f = k->fields; *f && used < len; f++) {
    json_t *v = json_object_get(req, *f);
    int required = v != NULL;
    if (!v && resolved) v = json_object_get(resolved, *f);
    /* a crossbar's hosts default to the worker count */
    char *text = !required && !strcmp(*f, "hosts") ? strdup("(workers)")
                 : v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
    int w = snprintf(out + used, len - used, "%s%s%s%s%s", used ? " " : "", *f, text ? "=" : "",
                     text ? text : " (optional, no default)", required ? " (required, e.g.)" : "");
    free(text);
    if (w < 0) break;
    used += (size_t)w;
  }
  if (!e) snprintf(out, len, "(defaults unavailable: %.900s)", err.msg);
  experiment_free(e);
  json_decref(req);
}

void platform_list(FILE *out, const char *dir) {
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
    char fields[256] = "";
    for (const char *const *k = kinds[i].fields; *k; k++) {
      if (fields[0]) strncat(fields, " ", sizeof fields - strlen(fields) - 1);
      strncat(fields, *k, sizeof fields - strlen(fields) - 1);
    }
    fprintf(out, "%-10s generate: %s (%s)\n", kinds[i].name, kinds[i].summary, fields);
    char params[1024];
    generator_params(&kinds[i], params, sizeof params);
    fprintf(out, "%-10s   %s\n", "", params);
  }
  fprintf(out, "%-10s any SimGrid XML platform: \"platform\": \"path.xml\" (relative to the experiment)\n",
          "file");
  if (!dir) {
    fprintf(out, "\nshipped platforms: no directory known; set CCSIM_PLATFORMS\n");
    return;
  }
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(out, "\nshipped platforms: cannot read %s: %s (set CCSIM_PLATFORMS)\n", dir, strerror(errno));
    return;
  }
  char **names = NULL;
  size_t count = 0;
  for (struct dirent *de; (de = readdir(d));) {
    size_t l = strlen(de->d_name);
    if (l > 4 && !strcmp(de->d_name + l - 4, ".xml")) {
      names = realloc(names, (count + 1) * sizeof *names);
      names[count++] = strdup(de->d_name);
    }
  }
  closedir(d);
  qsort(names, count, sizeof *names, by_name);
  fprintf(out, "\nshipped platforms in %s:\n", dir);
  for (size_t i = 0; i < count; i++) {
    char path[4096], desc[256];
    long long hosts;
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    if (platform_file_describe(path, desc, sizeof desc, &hosts, NULL) == 0)
      fprintf(out, "%-26s %6lld hosts  %s\n", names[i], hosts, desc);
    free(names[i]);
  }
  free(names);
}
