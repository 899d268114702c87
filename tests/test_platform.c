/* tests/test_platform.c SRCDIR — what the experiment learns from its platform:
 * host counts of every generator, gpus_per_node (from multigpu, from a file's
 * property, from the experiment), the defaults written into the resolved
 * experiment, hop latencies, and the description of the shipped files. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "experiment.h"
#include "platform.h"
#include "platforms/pcie.h"

static char dir[64];

/* The platform XML e's generator writes (the caller frees it): the
 * generator's parameters are its own, so the test reads them where they
 * show, in the file. */
static char *xml_of(const experiment *e) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  platform_print(f, e);
  fclose(f);
  return buf;
}

/* Load an experiment whose "platform" is the given JSON. */
static experiment *load(const char *platform, int workers) {
  char path[128];
  snprintf(path, sizeof path, "%s/exp.json", dir);
  FILE *f = fopen(path, "w");
  fprintf(f, "{\"workers\": %d, \"model\": {\"elements\": 64}, \"platform\": %s}\n", workers, platform);
  fclose(f);
  ccsim_error err = {0};
  experiment *e = experiment_load(path, NULL, 0, &err);
  CHECK(e, "%s: %s", platform, err.msg);
  return e;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: test_platform SRCDIR\n");
    return 2;
  }
  snprintf(dir, sizeof dir, "/tmp/ccsim-test-platform-XXXXXX");
  if (!mkdtemp(dir)) return 2;

  static const struct {
    const char *json;
    int hosts, gpus_per_node;
    double hop_latency;
  } gens[] = {
      {"{\"generate\": \"crossbar\", \"hosts\": 9, \"latency\": \"2us\"}", 9, 1, 4e-6},
      {"{\"generate\": \"fat-tree\", \"down\": [4, 3, 2], \"latency\": \"1us\"}", 24, 1, 2e-6},
      {"{\"generate\": \"fat-tree\", \"down\": [1, 1, 3], \"latency\": \"1us\"}", 3, 1, 6e-6},
      {"{\"generate\": \"torus\", \"dims\": [4, 1, 3], \"latency\": \"1us\"}", 12, 1, 1e-6},
      {"{\"generate\": \"dragonfly\", \"groups\": 2, \"chassis\": 3, \"routers\": 2, \"nodes_per_router\": 1,"
       " \"latency\": \"1us\"}",
       12, 1, 3e-6},
      {"{\"generate\": \"cloud\", \"racks\": 3, \"hosts_per_rack\": 5, \"latency\": \"1us\"}", 15, 1, 2e-6},
      {"{\"generate\": \"cloud\", \"racks\": 3, \"hosts_per_rack\": 1, \"latency\": \"1us\","
       " \"uplink_latency\": \"4us\"}",
       3, 1, 10e-6},
      {"{\"generate\": \"multigpu\", \"nodes\": 3, \"gpus_per_node\": 4, \"intra_latency\": \"1us\"}", 12, 4,
       2e-6},
      {"{\"generate\": \"multigpu\", \"nodes\": 3, \"gpus_per_node\": 1, \"latency\": \"3us\"}", 3, 1, 6e-6},
      /* pcie-server: one switch 2 links; two switches of a socket 4; two sockets 4 + the QPI link */
      {"{\"generate\": \"pcie-server\"}", 8, 8, 2e-6},
      {"{\"generate\": \"pcie-server\", \"gpus\": 4, \"gpus_per_switch\": 1, \"latency\": \"2us\"}", 4, 4,
       8e-6},
      {"{\"generate\": \"pcie-server\", \"gpus\": 2, \"gpus_per_switch\": 1, \"socket_latency\": \"3us\"}", 2,
       2, 7e-6},
      {"{\"generate\": \"pcie-server\", \"gpus\": 12, \"gpus_per_switch\": 3, \"sockets\": 1}", 12, 12, 2e-6},
      {"{\"generate\": \"pcie-server\", \"nvlink\": \"cube-mesh\", \"nvlink_latency\": \"0.5us\"}", 8, 8, 0.5e-6},
      {"{\"generate\": \"pcie-server\", \"gpus\": 16, \"nvlink\": \"switch\"}", 16, 16, 2e-6},
  };
  for (size_t i = 0; i < sizeof gens / sizeof gens[0]; i++) {
    experiment *e = load(gens[i].json, 2);
    if (!e) continue;
    CHECK(e->platform.hosts == gens[i].hosts, "%s: %d hosts, expected %d", gens[i].json, e->platform.hosts,
          gens[i].hosts);
    CHECK(platform_host_count(e, 1 << 20) == gens[i].hosts, "%s: platform_host_count", gens[i].json);
    CHECK(e->platform.gpus_per_node == gens[i].gpus_per_node, "%s: gpus_per_node %d, expected %d",
          gens[i].json, e->platform.gpus_per_node, gens[i].gpus_per_node);
    CHECK_NEAR(platform_hop_latency(e), gens[i].hop_latency, 1e-15, gens[i].json);
    experiment_free(e);
  }

  /* fat-tree defaults: non-blocking (parents = children of the level below), one link each */
  experiment *e = load("{\"generate\": \"fat-tree\", \"down\": [4, 3, 2]}", 2);
  if (e) {
    /* levels; down; up; parallel */
    char *x = xml_of(e);
    CHECK(strstr(x, "topo_parameters=\"3;4,3,2;1,4,3;1,1,1\""), "fat-tree up and parallel: %.400s", x);
    free(x);
    char *s = json_dumps(json_object_get(e->resolved, "platform"), JSON_COMPACT | JSON_SORT_KEYS);
    CHECK(strstr(s, "\"up\":[1,4,3]") && strstr(s, "\"parallel\":[1,1,1]") &&
              strstr(s, "\"bandwidth\":\"25Gbps\""),
          "resolved platform %s", s);
    free(s);
    experiment_free(e);
  }
  /* cloud: uplink latency defaults to the NIC latency; a NIC pattern sets the nics */
  e = load("{\"generate\": \"cloud\", \"racks\": 2, \"hosts_per_rack\": 2, \"latency\": \"7us\","
           " \"nics\": [{\"count\": 3, \"bandwidth\": \"10Gbps\"}, {\"bandwidth\": \"1GBps\"}]}",
           2);
  if (e) {
    /* uplink: (3 x 1.25e9 + 1e9) / 1 at 7 us; host 3 has the pattern's second NIC, host 0 its first */
    char want[3][160], *x = xml_of(e);
    snprintf(want[0], sizeof want[0], "<link id=\"uplink0\" bandwidth=\"%.17gBps\" latency=\"%.17gs\"", 2.5e9, 7e-6);
    snprintf(want[1], sizeof want[1], "<link id=\"nic-r1-h3\" bandwidth=\"%.17gBps\"", 1e9);
    snprintf(want[2], sizeof want[2], "<link id=\"nic-r0-h0\" bandwidth=\"%.17gBps\"", 1.25e9);
    for (int i = 0; i < 3; i++) CHECK(strstr(x, want[i]), "cloud: no %s", want[i]);
    free(x);
    experiment_free(e);
  }

  /* pcie-server defaults: PCIe 3.0 x16, UPI 10.4 GT/s, NVLink 2, all written into the resolved experiment */
  e = load("{\"generate\": \"pcie-server\"}", 8);
  if (e) {
    char *x = xml_of(e);
    CHECK(e->platform.bandwidth == 15.75e9 && strstr(x, "(QPI/UPI), 20800000000 bytes/s") && !strstr(x, "nvlink"),
          "pcie-server defaults: %.600s", x);
    free(x);
    char *s = json_dumps(json_object_get(e->resolved, "platform"), JSON_COMPACT | JSON_SORT_KEYS);
    CHECK(strstr(s, "\"gpus\":8") && strstr(s, "\"gpus_per_switch\":2") && strstr(s, "\"sockets\":2") &&
              strstr(s, "\"nvlink\":\"none\"") && strstr(s, "\"bandwidth\":\"15.75GBps\"") &&
              strstr(s, "\"nvlink_bandwidth\":\"25GBps\"") && strstr(s, "\"socket_bandwidth\":\"20.8GBps\""),
          "resolved platform %s", s);
    free(s);
    experiment_free(e);
  }
  /* the cube mesh: 6 NVLink links per GPU, symmetric, every pair within two hops */
  for (int a = 0; a < 8; a++) {
    int links = 0;
    for (int b = 0; b < 8; b++) {
      links += pcie_cube_mesh_links(a, b);
      CHECK(pcie_cube_mesh_links(a, b) == pcie_cube_mesh_links(b, a), "cube mesh %d-%d not symmetric", a, b);
      int near = a == b || pcie_cube_mesh_links(a, b);
      for (int c = 0; c < 8 && !near; c++) near = pcie_cube_mesh_links(a, c) && pcie_cube_mesh_links(c, b);
      CHECK(near, "cube mesh: %d and %d more than two hops apart", a, b);
    }
    CHECK(links == 6, "cube mesh: GPU %d has %d links, expected 6", a, links);
  }

  /* files: gpus_per_node from the experiment, else the file's property, else 1 */
  char plat[1024];
  snprintf(plat, sizeof plat, "\"%s/platforms/dgx-8x8.xml\"", argv[1]);
  if ((e = load(plat, 2))) {
    CHECK(e->platform.gpus_per_node == 8, "dgx-8x8.xml: gpus_per_node %d", e->platform.gpus_per_node);
    experiment_free(e);
  }
  snprintf(plat, sizeof plat, "{\"file\": \"%s/platforms/dgx-8x8.xml\", \"gpus_per_node\": 2}", argv[1]);
  if ((e = load(plat, 2))) {
    CHECK(e->platform.gpus_per_node == 2, "gpus_per_node given: %d", e->platform.gpus_per_node);
    experiment_free(e);
  }
  snprintf(plat, sizeof plat, "\"%s/platforms/cluster-backbone-80.xml\"", argv[1]);
  if ((e = load(plat, 2))) {
    CHECK(e->platform.gpus_per_node == 1, "cluster-backbone-80.xml: gpus_per_node %d",
          e->platform.gpus_per_node);
    experiment_free(e);
  }

  /* describing a file without SimGrid: first comment line, hosts, property */
  char desc[256];
  long long hosts;
  int gpn;
  snprintf(plat, sizeof plat, "%s/platforms/cluster-backbone-80.xml", argv[1]);
  CHECK(platform_file_describe(plat, desc, sizeof desc, &hosts, &gpn) == 0, "describe %s", plat);
  CHECK(hosts == 80 && gpn == 1 && !strcmp(desc, "An 80-node cluster behind one shared backbone."),
        "cluster-backbone-80.xml: %lld hosts, %d gpus per node, \"%s\"", hosts, gpn, desc);
  snprintf(plat, sizeof plat, "%s/odd.xml", dir);
  FILE *f = fopen(plat, "w");
  fputs("<?xml version='1.0'?>\n<platform version=\"4.1\"><!--\n  Two clusters and a host.\n  more -->\n"
        "<zone id=\"z\" routing=\"Full\"><prop id=\"gpus_per_node\" value=\"3\"/>\n"
        "<cluster id=\"a\" prefix=\"a\" suffix=\"\" radical=\"0-9,20,30-31\" speed=\"1Gf\"\n"
        "  bw=\"1Bps\" lat=\"0\"/>\n"
        "<!-- <host id=\"commented-out\" speed=\"1f\"/> -->\n"
        "<host id=\"x\" speed=\"1Gf\"/><hostlink/></zone></platform>\n",
        f);
  fclose(f);
  CHECK(platform_file_describe(plat, desc, sizeof desc, &hosts, &gpn) == 0, "describe %s", plat);
  CHECK(hosts == 14 && gpn == 3 && !strcmp(desc, "Two clusters and a host."), "odd.xml: %lld hosts, %d, \"%s\"",
        hosts, gpn, desc);
  CHECK(platform_file_describe("/nonexistent.xml", desc, sizeof desc, &hosts, &gpn) == -1, "missing file");
  remove(plat);
  snprintf(plat, sizeof plat, "%s/exp.json", dir);
  remove(plat);
  rmdir(dir);
  return check_status("test_platform");
}
