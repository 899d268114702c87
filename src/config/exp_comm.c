/* src/config/exp_comm.c — the "comm" section: which communication model
 * prices the messages (docs/comm-model.md), and the link-calibration file
 * it may name (links/NAME.json).  An experiment without "comm" keeps the
 * ideal model and its resolved input stays as it was (nothing written). */
#include "config/sections.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/collective.h"
#include "datapath.h"

static const char *const models[] = {"ideal", "nccl", NULL};
static const char *const protos[] = {"auto", "LL", "LL128", "Simple", NULL};
static const char *const algos[] = {"auto", "tree", "ring", NULL};

/* One link class of a link-calibration file: {"bandwidth", "latency",
 * "source"}: the bandwidth NCCL's Simple ring reaches on it (nccl-tests'
 * large-message bus bandwidth) and, optionally, its per-step latency (left
 * out: NCCL's hwLat); *lat stays as it was when none is given. */
static int read_link(cfg_reader *rd, json_t *links, int hw, double *bw, double *lat) {
  char path[64];
  snprintf(path, sizeof path, "links.%s", nccl_hw_names[hw]);
  json_t *l = json_object_get(links, nccl_hw_names[hw]);
  if (!l) return 0;
  if (!json_is_object(l)) {
    char b[80];
    return cfg_fail(rd, path, "expected an object {\"bandwidth\", \"latency\", \"source\"}, got %s",
                    cfg_show(l, b, sizeof b));
  }
  static const char *const known[] = {"bandwidth", "latency", "source", "note", NULL};
  int rc;
  if ((rc = cfg_keys(rd, l, path, known, NULL, NULL, NULL))) return rc;
  if ((rc = cfg_unit(rd, l, path, "bandwidth", NULL, CFG_BANDWIDTH, bw))) return rc;
  if (json_object_get(l, "latency") && (rc = cfg_unit(rd, l, path, "latency", NULL, CFG_TIME, lat))) return rc;
  const char *src;
  if ((rc = cfg_string(rd, l, path, "source", NULL, &src))) return rc;
  if (!src[0]) return cfg_fail(rd, path, "expected a non-empty \"source\" (where the figures come from)");
  return 0;
}

/* A failure inside the link-calibration file, as the experiment's
 * comm.links (its code kept: exit 2 for a bad file, 1 where memory ran out). */
static int links_fail(cfg_reader *rd, const ccsim_error *lerr) {
  cfg_fail(rd, "comm.links", "%s", lerr->msg);
  return rd->err->code = lerr->code;
}

/* The link-calibration file `name` (a name in links/, or a path relative to
 * the experiment): per class, the measured Simple bandwidth (bw, bytes/s;
 * 0: not given) and per-step latency (lat, s; -1: not given). */
static int read_links(cfg_reader *rd, experiment *e, const char *name, double *bw, double *lat) {
  char file[1200];
  if (strchr(name, '/') || strstr(name, ".json")) {
    if (name[0] == '/') snprintf(file, sizeof file, "%s", name);
    else snprintf(file, sizeof file, "%s/%s", e->dir, name);
  } else {
    int plain = name[0] && name[0] != '.';
    for (const char *c = name; *c && plain; c++)
      plain = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '-' ||
              *c == '_';
    char dir[1024];
    if (!plain || datapath_dir(DATA_LINKS, dir, sizeof dir) ||
        (size_t)snprintf(file, sizeof file, "%s/%s.json", dir, name) >= sizeof file)
      return cfg_fail(rd, "comm.links", "expected the name of a file in links/ or a path to a .json file, got \"%s\"",
                      name);
    FILE *f = fopen(file, "r");
    if (!f) {
      size_t n;
      char **names = datapath_json_names(dir, &n), list[512] = "";
      for (size_t i = 0; i < n; i++) {
        if (list[0]) strncat(list, ", ", sizeof list - strlen(list) - 1);
        strncat(list, names[i], sizeof list - strlen(list) - 1);
      }
      datapath_names_free(names, n);
      return cfg_fail(rd, "comm.links", "expected a link-calibration file (%s: %s), got unknown \"%s\"", dir,
                      list[0] ? list : "none", name);
    }
    fclose(f);
  }
  /* the file's own faults are reported as the experiment's comm.links,
   * like a profile's or a device file's: "EXP: comm.links: FILE:LINE: ..." */
  ccsim_error lerr = {0};
  json_t *root = cfg_load_json(file, "link-calibration file", CFG_MAX_JSON, &lerr);
  if (!root) return links_fail(rd, &lerr);
  cfg_reader lr = {file, &lerr};
  int rc = 0;
  char b[80];
  if (!json_is_object(root)) {
    rc = cfg_fail(&lr, "", "expected a JSON object, got %s", cfg_show(root, b, sizeof b));
    goto out;
  }
  static const char *const known[] = {"name", "description", "links", "measured", NULL};
  if ((rc = cfg_keys(&lr, root, "", known, NULL, NULL, NULL))) goto out;
  json_t *links = json_object_get(root, "links");
  if (!json_is_object(links) || !json_object_size(links)) {
    rc = cfg_fail(&lr, "links", "expected an object of link classes (nvlink, pcie, nic), got %s",
                  links ? cfg_show(links, b, sizeof b) : "nothing");
    goto out;
  }
  static const char *const classes[] = {"nvlink", "pcie", "nic", NULL};
  if ((rc = cfg_keys(&lr, links, "links", classes, NULL, NULL, NULL))) goto out;
  for (int hw = 0; hw < NCCL_NHW; hw++) {
    bw[hw] = 0, lat[hw] = -1;
    if ((rc = read_link(&lr, links, hw, &bw[hw], &lat[hw]))) goto out;
  }
  /* the file's content is part of the experiment's hash (provenance) */
  if ((rc = experiment_add_input(e, "link calibration", file, "comm.links", rd->err))) goto out;
  e->comm_links = strdup(file);
out:
  json_decref(root);
  return rc && lerr.code ? links_fail(rd, &lerr) : rc;
}

/* The platform's shape as the model sees it: workers per node, NICs per
 * node, the class of the links inside a node. */
static void read_shape(experiment *e, json_t *root) {
  nccl_plan *p = &e->comm;
  p->gpn = e->platform.gpus_per_node > 0 ? e->platform.gpus_per_node : 1;
  p->nics = 1;
  p->intra_hw = NCCL_HW_NVLINK;
  json_t *pl = json_object_get(root, "platform");
  const char *gen = e->platform.generate;
  if (gen && !strcmp(gen, "multigpu")) {
    json_t *k = json_object_get(pl, "nics_per_node");
    if (json_is_number(k)) p->nics = (int)json_number_value(k);
  } else if (gen && !strcmp(gen, "pcie-server")) {
    json_t *nv = json_object_get(pl, "nvlink");
    p->intra_hw = json_is_string(nv) && strcmp(json_string_value(nv), "none") ? NCCL_HW_NVLINK : NCCL_HW_PCI;
    json_t *g = json_object_get(pl, "gpus");
    if (json_is_number(g)) p->gpn = (int)json_number_value(g);
  }
  if (p->gpn > e->workers) p->gpn = e->workers;
  if (p->nics > p->gpn) p->nics = p->gpn;
  p->nranks = e->workers;
  p->nnodes = (e->workers + p->gpn - 1) / p->gpn;
}

int exp_comm(cfg_reader *rd, experiment *e, json_t *root) {
  nccl_plan *p = &e->comm;
  *p = (nccl_plan){.model = COMM_IDEAL, .proto = -1, .channels = 1};
  for (int hw = 0; hw < NCCL_NHW; hw++) p->eff[hw] = nccl_default_efficiency(hw), p->lat[hw] = -1;
  p->algo = e->collective == collective_find("allreduce/tree") ? NCCL_TREE : NCCL_RING;
  /* an uncompressed ring all-reduce: NCCL's own call, priced as its tuner runs it */
  const int dense_ring = e->collective == collective_find("allreduce/ring") && !strcmp(e->compressor->name, "none");
  p->price_algo = dense_ring ? -1 : p->algo;
  read_shape(e, root);
  if (!json_object_get(root, "comm")) return 0; /* ideal: the resolved input as it was */
  int rc = 0, i;
  json_t *c = cfg_object(rd, root, "", "comm", &rc);
  if (!c) return rc;
  static const char *const known[] = {"model", "protocol", "algorithm", "channels", "links", NULL};
  if ((rc = cfg_keys(rd, c, "comm", known, NULL, NULL, NULL))) return rc;
  const char *s;
  if ((rc = cfg_string(rd, c, "comm", "model", "ideal", &s)) || (rc = cfg_one_of(rd, "comm.model", s, models, &i)))
    return rc;
  p->model = i;
  if ((rc = cfg_string(rd, c, "comm", "protocol", "auto", &s)) ||
      (rc = cfg_one_of(rd, "comm.protocol", s, protos, &i)))
    return rc;
  p->proto = i - 1;
  if ((rc = cfg_string(rd, c, "comm", "algorithm", "auto", &s)) ||
      (rc = cfg_one_of(rd, "comm.algorithm", s, algos, &i)))
    return rc;
  if (i && !dense_ring && i - 1 != p->algo)
    return cfg_fail(rd, "comm.algorithm",
                    "expected \"auto\" or \"%s\": NCCL's ring or tree prices only an uncompressed "
                    "allreduce/ring (compressor none), and collective %s with compressor %s is priced as the "
                    "%s it runs; got \"%s\"",
                    nccl_algo_names[p->algo], e->collective->name, e->compressor->name, nccl_algo_names[p->algo], s);
  if (i) p->price_algo = i - 1;
  json_t *ch = json_object_get(c, "channels");
  if (!ch) json_object_set_new(c, "channels", ch = json_string("auto"));
  if (!json_is_string(ch) || strcmp(json_string_value(ch), "auto")) {
    long long n;
    if (json_is_string(ch))
      return cfg_fail(rd, "comm.channels", "expected \"auto\" or an integer in [1, 64], got \"%s\"",
                      json_string_value(ch));
    if ((rc = cfg_int_value(rd, ch, "comm.channels", 1, 64, &n))) return rc;
    p->channels = (int)n;
  } else {
    p->channels = p->nics; /* auto: one channel per NIC (rail) */
  }
  json_t *l = json_object_get(c, "links");
  if (l) {
    if (!json_is_string(l)) {
      char b[80];
      return cfg_fail(rd, "comm.links", "expected the name of a file in links/ or a path to a .json file, got %s",
                      cfg_show(l, b, sizeof b));
    }
    double bw[NCCL_NHW], lat[NCCL_NHW];
    /* read and checked under the ideal model too, where it changes nothing */
    if ((rc = read_links(rd, e, json_string_value(l), bw, lat))) return rc;
    for (int hw = 0; hw < NCCL_NHW; hw++) {
      p->lat[hw] = lat[hw];
      p->eff[hw] = bw[hw] > 0 ? -bw[hw] : p->eff[hw]; /* < 0: a measured rate, made a ratio once the
                                                         platform's is known (engine_comm_resolve) */
    }
  }
  return 0;
}
