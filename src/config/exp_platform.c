/* src/config/exp_platform.c — the "platform" section: a SimGrid platform file,
 * or one of the generators of src/platform.c with its fields
 * (platforms/README.md). */
#include "config/sections.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "platform.h"
#include "platforms/check.h"
#include "platforms/pcie.h"

/* fat-tree: down, then up (default: as many parents as children, a
 * non-blocking tree) and parallel (default 1), one per level. */
static int read_fat_tree(cfg_reader *rd, experiment *e, json_t *p) {
  int rc, n, *down = e->platform.fat_tree.down, *up = e->platform.fat_tree.up;
  if ((rc = cfg_int_array(rd, p, "platform", "down", NULL, 1, MAX_HOSTS, PLATFORM_MAX_LEVELS, "[8, 8]", down,
                           &e->platform.fat_tree.levels)))
    return rc;
  const int L = e->platform.fat_tree.levels;
  json_t *def_up = json_array(), *def_par = json_array();
  for (int i = 0; i < L; i++) {
    json_array_append_new(def_up, json_integer(i ? down[i - 1] : 1));
    json_array_append_new(def_par, json_integer(1));
  }
  if ((rc = cfg_int_array(rd, p, "platform", "up", def_up, 1, MAX_HOSTS, PLATFORM_MAX_LEVELS, "[1, 8]", up,
                           &n))) {
    json_decref(def_par);
    return rc;
  }
  if (n != L) {
    json_decref(def_par);
    return cfg_fail(rd, "platform.up", "expected %d integers (one per level, like platform.down), got %d", L, n);
  }
  if ((rc = cfg_int_array(rd, p, "platform", "parallel", def_par, 1, MAX_PARALLEL, PLATFORM_MAX_LEVELS,
                           "[1, 1]", e->platform.fat_tree.parallel, &n)))
    return rc;
  if (n != L)
    return cfg_fail(rd, "platform.parallel", "expected %d integers (one per level, like platform.down), got %d", L,
                n);
  for (int l = 1; l <= L; l++) { /* switches of level l: up[0..l-1] x down[l..L-1] */
    double sw = 1;
    for (int i = 0; i < l; i++) sw *= up[i];
    for (int i = l; i < L; i++) sw *= down[i];
    if (sw > MAX_HOSTS)
      return cfg_fail(rd, "platform.up", "level %d would have %.0f switches (at most %d)", l, sw, MAX_HOSTS);
  }
  return 0;
}

static int read_dragonfly(cfg_reader *rd, experiment *e, json_t *p) {
  static const char *const counts[] = {"groups", "chassis", "routers", "nodes_per_router"};
  static const char *const links[] = {"group_links", "chassis_links", "router_links"};
  int *cv[] = {&e->platform.dragonfly.groups, &e->platform.dragonfly.chassis, &e->platform.dragonfly.routers,
               &e->platform.dragonfly.nodes_per_router};
  int *lv[] = {&e->platform.dragonfly.group_links, &e->platform.dragonfly.chassis_links,
               &e->platform.dragonfly.router_links};
  long long x;
  int rc;
  for (int i = 0; i < 4; i++) {
    if ((rc = cfg_int(rd, p, "platform", counts[i], 1, 0, 1, MAX_HOSTS, &x))) return rc;
    *cv[i] = (int)x;
  }
  for (int i = 0; i < 3; i++) {
    if ((rc = cfg_int(rd, p, "platform", links[i], 0, 1, 1, MAX_PARALLEL, &x))) return rc;
    *lv[i] = (int)x;
  }
  /* SimGrid's DragonflyZone joins group g to the others through router g
   * of its first chassis, and reaches it over the chassis' router links. */
  if (e->platform.dragonfly.groups > e->platform.dragonfly.routers)
    return cfg_fail(rd, "platform.groups",
                "%d groups but %d routers per chassis (platform.routers): SimGrid's dragonfly links group g "
                "through router g of each group's first chassis, so groups must be <= routers",
                e->platform.dragonfly.groups, e->platform.dragonfly.routers);
  return 0;
}

/* cloud: racks, hosts_per_rack, oversubscription; one NIC bandwidth for all
 * (bandwidth) or a pattern of NICs cycled over the hosts (nics). */
static int read_cloud(cfg_reader *rd, experiment *e, json_t *p) {
  long long x;
  int rc;
  if ((rc = cfg_int(rd, p, "platform", "racks", 1, 0, 1, MAX_HOSTS, &x))) return rc;
  e->platform.cloud.racks = (int)x;
  if ((rc = cfg_int(rd, p, "platform", "hosts_per_rack", 1, 0, 1, MAX_HOSTS, &x))) return rc;
  e->platform.cloud.hosts_per_rack = (int)x;
  if ((rc = cfg_real(rd, p, "platform", "oversubscription", 1, 1, 1e6, &e->platform.cloud.oversubscription)))
    return rc;
  json_t *nics = json_object_get(p, "nics");
  char b[80];
  if (!nics) {
    e->platform.cloud.nnics = 0;
    if ((rc = cfg_unit(rd, p, "platform", "bandwidth", "25Gbps", CFG_BANDWIDTH, &e->platform.bandwidth)))
      return rc;
  } else {
    if (json_object_get(p, "bandwidth"))
      return cfg_fail(rd, "platform.bandwidth",
                  "give either platform.bandwidth (every NIC) or platform.nics (a pattern of NICs), not both");
    if (!json_is_array(nics) || json_array_size(nics) < 1 || json_array_size(nics) > PLATFORM_MAX_NICS)
      return cfg_fail(rd, "platform.nics",
                  "expected an array of 1 to %d objects such as {\"count\": 3, \"bandwidth\": \"25Gbps\"}, "
                  "got %s",
                  PLATFORM_MAX_NICS, cfg_show(nics, b, sizeof b));
    static const char *const nic_keys[] = {"count", "bandwidth", NULL};
    e->platform.cloud.nnics = (int)json_array_size(nics);
    for (int i = 0; i < e->platform.cloud.nnics; i++) {
      char pi[64];
      snprintf(pi, sizeof pi, "platform.nics[%d]", i);
      json_t *nic = json_array_get(nics, (size_t)i);
      if (!json_is_object(nic))
        return cfg_fail(rd, pi, "expected an object such as {\"count\": 3, \"bandwidth\": \"25Gbps\"}, got %s",
                    cfg_show(nic, b, sizeof b));
      if ((rc = cfg_keys(rd, nic, pi, nic_keys, NULL, NULL, NULL))) return rc;
      if ((rc = cfg_int(rd, nic, pi, "count", 0, 1, 1, MAX_HOSTS, &x))) return rc;
      e->platform.cloud.nics[i].count = (int)x;
      if ((rc = cfg_unit(rd, nic, pi, "bandwidth", NULL, CFG_BANDWIDTH, &e->platform.cloud.nics[i].bandwidth)))
        return rc;
    }
    e->platform.bandwidth = e->platform.cloud.nics[0].bandwidth;
  }
  if ((rc = cfg_unit(rd, p, "platform", "latency", "5us", CFG_TIME, &e->platform.latency))) return rc;
  if (!json_object_get(p, "uplink_latency"))
    json_object_set_new(p, "uplink_latency", json_deep_copy(json_object_get(p, "latency")));
  return cfg_unit(rd, p, "platform", "uplink_latency", NULL, CFG_TIME, &e->platform.cloud.uplink_latency);
}

/* multigpu: nodes of gpus_per_node GPUs, nics_per_node NICs each.  The
 * default intra-node link is NVLink 2 on a V100: 300 GB/s in all (NVIDIA
 * Tesla V100 datasheet), so 150 GB/s each way; its latency (1 us) is an
 * assumption, not a datasheet figure. */
static int read_multigpu(cfg_reader *rd, experiment *e, json_t *p) {
  long long x;
  int rc;
  if ((rc = cfg_int(rd, p, "platform", "nodes", 1, 0, 1, MAX_HOSTS, &x))) return rc;
  e->platform.multigpu.nodes = (int)x;
  if ((rc = cfg_int(rd, p, "platform", "gpus_per_node", 1, 0, 1, MAX_HOSTS, &x))) return rc;
  e->platform.gpus_per_node = (int)x;
  if ((rc = cfg_int(rd, p, "platform", "nics_per_node", 0, 1, 1, MAX_HOSTS, &x))) return rc;
  if (e->platform.gpus_per_node % x)
    return cfg_fail(rd, "platform.nics_per_node",
                "expected a divisor of platform.gpus_per_node (%d) so that GPUs share NICs evenly, got %lld",
                e->platform.gpus_per_node, x);
  e->platform.multigpu.nics_per_node = (int)x;
  if ((rc = cfg_unit(rd, p, "platform", "bandwidth", "25Gbps", CFG_BANDWIDTH, &e->platform.bandwidth)))
    return rc;
  if ((rc = cfg_unit(rd, p, "platform", "latency", "5us", CFG_TIME, &e->platform.latency))) return rc;
  if ((rc = cfg_unit(rd, p, "platform", "intra_bandwidth", "150GBps", CFG_BANDWIDTH,
                      &e->platform.multigpu.intra_bandwidth)))
    return rc;
  return cfg_unit(rd, p, "platform", "intra_latency", "1us", CFG_TIME, &e->platform.multigpu.intra_latency);
}

/* pcie-server: gpus under PCIe switches under sockets, optional NVLink.
 * Defaults: 8 GPUs, 2 per switch, 2 sockets (a DGX-1-like server); PCIe 3.0
 * x16 links, 15.75 GB/s per direction (8 GT/s x 16 lanes x 128/130 / 8, PCI-SIG
 * PCIe Base Specification 3.0); one UPI link at 10.4 GT/s between sockets,
 * 20.8 GB/s per direction (Intel Xeon Gold 6230, MergeComp's server); NVLink 2 links of
 * 25 GB/s per direction (V100 datasheet: 6 links, 300 GB/s in all).  The
 * latencies (1 us per PCIe, QPI and NVLink link) are assumptions of the order
 * of GPU peer-to-peer latencies, not datasheet figures. */
static int read_pcie_server(cfg_reader *rd, experiment *e, json_t *p) {
  long long g, per, s;
  int rc, nv;
  const char *mode;
  if ((rc = cfg_int(rd, p, "platform", "gpus", 0, 8, 1, PCIE_MAX_GPUS, &g))) return rc;
  if ((rc = cfg_int(rd, p, "platform", "gpus_per_switch", 0, 2, 1, PCIE_MAX_GPUS, &per))) return rc;
  if (g % per)
    return cfg_fail(rd, "platform.gpus_per_switch", "expected a divisor of platform.gpus (%lld), got %lld", g, per);
  if ((rc = cfg_int(rd, p, "platform", "sockets", 0, 2, 1, PCIE_MAX_GPUS, &s))) return rc;
  if ((g / per) % s)
    return cfg_fail(rd, "platform.sockets",
                    "expected a divisor of the switch count (platform.gpus / platform.gpus_per_switch = %lld) so "
                    "that sockets hold switches evenly, got %lld",
                    g / per, s);
  e->platform.pcie.gpus = (int)g;
  e->platform.pcie.gpus_per_switch = (int)per;
  e->platform.pcie.sockets = (int)s;
  e->platform.gpus_per_node = (int)g; /* one server */
  if ((rc = cfg_unit(rd, p, "platform", "bandwidth", "15.75GBps", CFG_BANDWIDTH, &e->platform.bandwidth)))
    return rc;
  if ((rc = cfg_unit(rd, p, "platform", "latency", "1us", CFG_TIME, &e->platform.latency))) return rc;
  if ((rc = cfg_unit(rd, p, "platform", "socket_bandwidth", "20.8GBps", CFG_BANDWIDTH,
                     &e->platform.pcie.socket_bandwidth)))
    return rc;
  if ((rc = cfg_unit(rd, p, "platform", "socket_latency", "1us", CFG_TIME, &e->platform.pcie.socket_latency)))
    return rc;
  if ((rc = cfg_string(rd, p, "platform", "nvlink", "none", &mode))) return rc;
  if ((rc = cfg_one_of(rd, "platform.nvlink", mode, pcie_nvlink_names, &nv))) return rc;
  e->platform.pcie.nvlink = nv;
  if (nv == PCIE_NVLINK_CUBE_MESH && g != 8)
    return cfg_fail(rd, "platform.nvlink", "\"cube-mesh\" is DGX-1's mesh of 8 GPUs, but platform.gpus is %lld", g);
  if ((rc = cfg_unit(rd, p, "platform", "nvlink_bandwidth", "25GBps", CFG_BANDWIDTH,
                     &e->platform.pcie.nvlink_bandwidth)))
    return rc;
  return cfg_unit(rd, p, "platform", "nvlink_latency", "1us", CFG_TIME, &e->platform.pcie.nvlink_latency);
}

int exp_platform(cfg_reader *rd, experiment *e, json_t *root) {
  int rc = 0;
  json_t *p = cfg_object(rd, root, "", "platform", &rc);
  if (!p) return rc;
  /* The fields of every generator are known here; which apply is checked
   * once the generator is known. */
  static const char *const common[] = {"file", "generate", "network_model", "crosstraffic", NULL};
  static const char *const file_fields[] = {"file", "network_model", "crosstraffic", "gpus_per_node", NULL};
  const char *known[64];
  int nk = 0;
  size_t nkinds;
  const platform_kind *kinds = platform_kinds(&nkinds);
  for (const char *const *k = file_fields; *k; k++) known[nk++] = *k;
  known[nk++] = "generate";
  for (size_t i = 0; i < nkinds; i++)
    for (const char *const *k = kinds[i].fields; *k; k++)
      if (nk < 63) {
        known[nk] = NULL;
        if (!cfg_in_list(known, *k)) known[nk++] = *k;
      }
  known[nk] = NULL;
  if ((rc = cfg_keys(rd, p, "platform", known, NULL, NULL, NULL))) return rc;
  json_t *file = json_object_get(p, "file");
  json_t *gen = json_object_get(p, "generate");
  if (file && gen) return cfg_fail(rd, "platform", "give either \"file\" or \"generate\", not both");
  if (!file && !gen) json_object_set_new(p, "generate", json_string("crossbar"));
  e->platform.gpus_per_node = 1;
  const char *key;
  json_t *value;
  char path[64];
  if (file) {
    const char *f;
    if ((rc = cfg_string(rd, p, "platform", "file", NULL, &f))) return rc;
    json_object_foreach(p, key, value) {
      if (!cfg_in_list(file_fields, key)) {
        cfg_join(path, sizeof path, "platform", key);
        return cfg_fail(rd, path, "only for generated platforms; a platform file sets its own");
      }
    }
    size_t need = strlen(e->dir) + strlen(f) + 2;
    e->platform.file = malloc(need);
    if (f[0] == '/') snprintf(e->platform.file, need, "%s", f);
    else snprintf(e->platform.file, need, "%s/%s", e->dir, f);
    ccsim_error why; /* a FIFO or a device is refused without blocking */
    int fd = cfg_open_regular(e->platform.file, "platform file", NULL, &why);
    if (fd < 0) return cfg_fail(rd, "platform.file", "\"%s\": %s", e->platform.file, why.text);
    close(fd);
    /* gpus_per_node: the experiment's, else the file's property, else 1 */
    if (json_object_get(p, "gpus_per_node")) {
      long long g;
      if ((rc = cfg_int(rd, p, "platform", "gpus_per_node", 1, 0, 1, MAX_HOSTS, &g))) return rc;
      e->platform.gpus_per_node = (int)g;
    } else {
      platform_file_describe(e->platform.file, NULL, 0, NULL, &e->platform.gpus_per_node);
      if (e->platform.gpus_per_node < 1) e->platform.gpus_per_node = 1;
    }
  } else {
    const char *g;
    if ((rc = cfg_string(rd, p, "platform", "generate", "crossbar", &g))) return rc;
    const platform_kind *kind = platform_kind_find(g);
    if (!kind) {
      const char *names[16];
      size_t i;
      for (i = 0; i < nkinds && i < 15; i++) names[i] = kinds[i].name;
      names[i] = NULL;
      int gi;
      return cfg_one_of(rd, "platform.generate", g, names, &gi);
    }
    e->platform.generate = strdup(g);
    json_object_foreach(p, key, value) {
      if (!cfg_in_list(common, key) && !cfg_in_list(kind->fields, key)) {
        char list[512] = "";
        for (const char *const *k = kind->fields; *k; k++) {
          if (list[0]) strncat(list, ", ", sizeof list - strlen(list) - 1);
          strncat(list, *k, sizeof list - strlen(list) - 1);
        }
        cfg_join(path, sizeof path, "platform", key);
        return cfg_fail(rd, path, "not a field of \"generate\": \"%s\" (its fields: %s)", g, list);
      }
    }
    if (!strcmp(g, "crossbar")) {
      long long hosts;
      if ((rc = cfg_int(rd, p, "platform", "hosts", 0, e->workers, 1, MAX_HOSTS, &hosts))) return rc;
      e->platform.hosts = (int)hosts;
      if (hosts < e->workers)
        return cfg_fail(rd, "workers", "%d workers but the platform has %lld hosts (platform.hosts)", e->workers,
                    hosts);
    } else if (!strcmp(g, "fat-tree")) {
      rc = read_fat_tree(rd, e, p);
    } else if (!strcmp(g, "torus")) {
      rc = cfg_int_array(rd, p, "platform", "dims", NULL, 1, MAX_HOSTS, PLATFORM_MAX_DIMS, "[4, 4, 4]",
                          e->platform.torus.dims, &e->platform.torus.ndims);
    } else if (!strcmp(g, "dragonfly")) {
      rc = read_dragonfly(rd, e, p);
    } else if (!strcmp(g, "cloud")) {
      rc = read_cloud(rd, e, p);
    } else if (!strcmp(g, "pcie-server")) {
      rc = read_pcie_server(rd, e, p);
    } else {
      rc = read_multigpu(rd, e, p);
    }
    if (rc) return rc;
    /* cloud, multigpu and pcie-server read their links above, in their own order */
    if (strcmp(g, "cloud") && strcmp(g, "multigpu") && strcmp(g, "pcie-server")) {
      if ((rc = cfg_unit(rd, p, "platform", "bandwidth", "25Gbps", CFG_BANDWIDTH, &e->platform.bandwidth)))
        return rc;
      if ((rc = cfg_unit(rd, p, "platform", "latency", "5us", CFG_TIME, &e->platform.latency))) return rc;
    }
    if (strcmp(g, "crossbar")) {
      char formula[256];
      long long hosts = platform_host_count(e, MAX_HOSTS);
      platform_host_formula(e, formula, sizeof formula);
      if (hosts < 0)
        return cfg_fail(rd, "platform", "the %s would have more than %d hosts (%s)", g, MAX_HOSTS, formula);
      e->platform.hosts = (int)hosts;
      if (hosts < e->workers)
        return cfg_fail(rd, "workers", "%d workers but the %s platform has %lld hosts (%s)", e->workers, g, hosts,
                    formula);
    }
  }
  /* CM02 without cross-traffic is SimGrid's max-min fluid model with pure
   * latency + size/bandwidth transfers: what the alpha-beta formulas of the
   * collective literature assume.  LV08 (SimGrid's default) models TCP. */
  static const char *const models[] = {"CM02", "LV08", "SMPI", "Constant", "IB", NULL};
  const char *model;
  int mi;
  if ((rc = cfg_string(rd, p, "platform", "network_model", "CM02", &model))) return rc;
  if ((rc = cfg_one_of(rd, "platform.network_model", model, models, &mi))) return rc;
  e->platform.network_model = strdup(model);
  if ((rc = cfg_bool(rd, p, "platform", "crosstraffic", 0, &e->platform.crosstraffic))) return rc;
  return 0;
}
