/* src/platforms/common.c — what the generators share: the XML head, the
 * experiment's name made safe for a comment, lists of integers, capped
 * products for host counts, and the <cluster> tag of SimGrid's own
 * topologies. */
#include <stdio.h>

#include "platforms/generator.h"

const char pgen_xml_head[] = "<?xml version='1.0'?>\n"
                             "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n";

void pgen_comment_safe(char *out, size_t len, const char *name) {
  size_t k = 0;
  for (const char *s = name; *s && k + 1 < len; s++) out[k++] = (*s == '-' && s[1] == '-') ? '_' : *s;
  out[k] = 0;
}

void pgen_join_ints(char *out, size_t len, const int *v, int n, const char *sep) {
  size_t k = 0;
  out[0] = 0;
  for (int i = 0; i < n && k < len; i++) k += (size_t)snprintf(out + k, len - k, "%s%d", i ? sep : "", v[i]);
}

long long pgen_mul_capped(long long a, long long b, long long max) {
  if (a < 0 || (b && a > max / b)) return -1;
  return a * b;
}

void pgen_cluster_tag(FILE *f, const char *id, long long hosts, const experiment *e, const char *topology,
                      const char *params) {
  fprintf(f,
          "<platform version=\"4.1\">\n"
          "  <cluster id=\"%s\" prefix=\"h\" radical=\"0-%lld\" suffix=\"\" speed=\"1Gf\"\n"
          "           bw=\"%.17gBps\" lat=\"%.17gs\" sharing_policy=\"SPLITDUPLEX\"\n"
          "           topology=\"%s\" topo_parameters=\"%s\"/>\n"
          "</platform>\n",
          id, hosts - 1, e->platform.bandwidth, e->platform.latency, topology, params);
}
