/* tests/test_profiles.c SOURCE_ROOT — every shipped model profile loads and
 * has the published totals; bad profiles are refused with a message naming
 * the file, the JSON path and what was expected.
 *
 * Forward flops per sample, 2 per multiply-add:
 *   ResNet-50 at 224x224: 4.09 GMACs, VGG-16: 15.47 GMACs (torchvision's model
 *   tables list these as "GFLOPS"; checked within 2%).
 *   The transformers and the LSTM are checked EXACTLY against closed forms:
 *   GPT-2 small, s = 1024, h = 768, 12 layers, vocab 50257:
 *     2 s x 12 x (h x 3h + h x h + h x 4h + 4h x h)   linear layers
 *     + 12 x 2 x 2 s^2 h                               attention scores and values
 *     + 2 s h x 50257                                  tied LM head
 *   BERT-base, s = 128, 12 layers: 2 s x 12 x (4 h^2 + 2 h x 3072)
 *     + 12 x 2 x 2 s^2 h + 2 h^2 (pooler, first token only)
 *   LSTM, 35 steps, 2 layers of 650, vocab 10000:
 *     35 x 2 x 2 x 4 x 650 x (650 + 650) + 2 x 35 x 650 x 10000. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "timemodel/profile.h"

typedef struct expected {
  const char *name;
  size_t params;
  size_t tensors;
  double fwd_flops; /* exact when rel == 0 */
  double rel;       /* relative tolerance on fwd_flops */
} expected;

static const double S = 1024, H = 768, B = 128;

static void check_shipped(const char *dir, const expected *x) {
  char path[4096];
  ccsim_error err = {0};
  CHECK(profile_path(dir, x->name, path, sizeof path, &err) == 0, "profile_path(%s): %s", x->name, err.msg);
  model_profile *p = profile_load(path, &err);
  CHECK(p != NULL, "%s: %s", x->name, err.msg);
  if (!p) return;
  CHECK(strcmp(p->name, x->name) == 0, "name %s", p->name);
  CHECK(p->source[0] && p->input[0], "%s: source and input", x->name);
  CHECK(p->total_params == x->params, "%s: %zu params, expected %zu", x->name, p->total_params, x->params);
  CHECK(p->nlayers == x->tensors, "%s: %zu tensors, expected %zu", x->name, p->nlayers, x->tensors);
  size_t params = 0;
  double fwd = 0, bwd = 0;
  for (size_t i = 0; i < p->nlayers; i++) {
    params += p->layers[i].params;
    fwd += p->layers[i].fwd_flops;
    bwd += p->layers[i].bwd_flops;
    CHECK(p->layers[i].bwd_flops == 2 * p->layers[i].fwd_flops, "%s: %s: backward = 2 x forward", x->name,
          p->layers[i].name);
  }
  CHECK(params == p->total_params, "%s: layers sum to %zu params", x->name, params);
  CHECK(fwd == p->total_fwd_flops && bwd == p->total_bwd_flops, "%s: layers sum to the flops totals", x->name);
  CHECK_NEAR(p->total_fwd_flops, x->fwd_flops, x->rel * x->fwd_flops, x->name);
  profile_free(p);
}

/* Write text to dir/name and return the path in buf. */
static const char *write_file(const char *dir, const char *name, const char *text, char *buf, size_t len) {
  snprintf(buf, len, "%s/%s", dir, name);
  FILE *f = fopen(buf, "w");
  if (f) {
    fputs(text, f);
    fclose(f);
  }
  return buf;
}

#define GOOD_LAYER0 "{\"name\": \"w\", \"params\": 6, \"fwd_flops\": 12, \"bwd_flops\": 24}"
#define HEAD "\"name\": \"tiny\", \"source\": \"test\", \"input\": \"one vector\", "

/* A profile that must be refused with a message containing `want`. */
static void check_bad(const char *dir, const char *name, const char *text, const char *want) {
  char path[4096];
  ccsim_error err = {0};
  write_file(dir, name, text, path, sizeof path);
  model_profile *p = profile_load(path, &err);
  CHECK(p == NULL, "%s: accepted", name);
  profile_free(p);
  if (p) return;
  CHECK(err.code == CCSIM_ERR_INPUT, "%s: code %d", name, err.code);
  CHECK(strstr(err.msg, path) == err.msg, "%s: message does not start with the file: %s", name, err.msg);
  CHECK(strstr(err.msg, want) != NULL, "%s: message \"%s\" lacks \"%s\"", name, err.msg, want);
  unlink(path);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: test_profiles SOURCE_ROOT\n");
    return 2;
  }
  char models[4096];
  snprintf(models, sizeof models, "%s/workloads/models", argv[1]);

  const expected shipped[] = {
      {"resnet50", 25557032, 161, 2 * 4.09e9, 0.02},
      {"vgg16", 138357544, 32, 2 * 15.5e9, 0.02},
      /* embeddings 23,837,184 + 12 layers x 7,087,872 + pooler 590,592 */
      {"bert-base", 109482240, 199,
       2 * B * 12 * (4 * H * H + 2 * H * 3072) + 12 * 2 * 2 * B * B * H + 2 * H * H, 0},
      {"gpt2-small", 124439808, 148,
       2 * S * 12 * (H * 3 * H + H * H + H * 4 * H + 4 * H * H) + 12 * 2 * 2 * S * S * H + 2 * S * H * 50257, 0},
      /* embedding 6,500,000 + 2 x (4 x 650 x 1300 + 2 x 2600) + decoder 6,510,000 */
      {"lstm", 19780400, 11, 35.0 * 2 * 2 * 4 * 650 * 1300 + 2.0 * 35 * 650 * 10000, 0},
      /* torchvision's 7.8 GMACs; the CIFAR port's 1.30 GMACs at 32x32 */
      {"resnet101", 44549160, 314, 2 * 7.83e9, 0.02},
      {"resnet50-cifar", 23520842, 161, 2 * 1.30e9, 0.02},
      /* embedding 18,764,850 + 3 x 3,385,200 + decoder 18,793,719 (not tied) */
      {"lstm-wt2", 47714169, 15, 35.0 * 2 * 3 * 4 * 650 * 1300 + 2.0 * 35 * 650 * 28869, 0},
  };
  for (size_t i = 0; i < sizeof shipped / sizeof shipped[0]; i++) check_shipped(models, &shipped[i]);

  /* Forward order: the first tensor of each network is its input layer. */
  char path[4096];
  ccsim_error err = {0};
  model_profile *p = NULL;
  if (profile_path(models, "resnet50", path, sizeof path, &err) == 0 && (p = profile_load(path, &err))) {
    CHECK(strcmp(p->layers[0].name, "conv1.weight") == 0, "resnet50 starts with %s", p->layers[0].name);
    CHECK(strcmp(p->layers[p->nlayers - 1].name, "fc.bias") == 0, "resnet50 ends with %s",
          p->layers[p->nlayers - 1].name);
    CHECK(p->layers[0].params == 64 * 3 * 7 * 7, "conv1: %zu", p->layers[0].params);
    /* conv1: 112x112x64 outputs x 3x7x7 MACs x 2 */
    CHECK(p->layers[0].fwd_flops == 2.0 * 112 * 112 * 64 * 3 * 7 * 7, "conv1 flops %.0f", p->layers[0].fwd_flops);
    /* fc carries 2 x 2048 x 1000 (+ the preceding average pool, not counted) on its bias */
    CHECK(p->layers[p->nlayers - 1].fwd_flops == 2.0 * 2048 * 1000, "fc flops %.0f",
          p->layers[p->nlayers - 1].fwd_flops);
  }
  profile_free(p);

  /* profile_path: names, not paths; unknown names list what exists. */
  CHECK(profile_path(models, "resnet5", path, sizeof path, &err) == CCSIM_ERR_INPUT &&
            strstr(err.msg, "unknown model profile \"resnet5\"") && strstr(err.msg, "resnet50") &&
            strstr(err.msg, "gpt2-small"),
        "unknown name: %s", err.msg);
  CHECK(profile_path(models, "../models/resnet50", path, sizeof path, &err) == CCSIM_ERR_INPUT &&
            strstr(err.msg, "expected a profile name"),
        "path as name: %s", err.msg);
  CHECK(profile_path(models, "", path, sizeof path, &err) == CCSIM_ERR_INPUT, "empty name");
  CHECK(profile_path(models, ".hidden", path, sizeof path, &err) == CCSIM_ERR_INPUT, "dot name");
  char small[16];
  CHECK(profile_path(models, "resnet50", small, sizeof small, &err) == CCSIM_ERR_INPUT &&
            strstr(err.msg, "too long"),
        "short buffer: %s", err.msg);

  /* The listing: one line per shipped profile, by name. */
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (f) {
    profile_list(f, models);
    fclose(f);
    static const char *const order[] = {"bert-base", "gpt2-small", "lstm", "lstm-wt2", "resnet101",
                                        "resnet50", "resnet50-cifar", "vgg16"};
    const size_t norder = sizeof order / sizeof order[0];
    size_t lines = 0;
    for (char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
      if (lines < norder)
        CHECK(strncmp(line, order[lines], strlen(order[lines])) == 0 && !strstr(line, "does not load"),
              "list line %zu: %.60s", lines, line);
      lines++;
    }
    CHECK(lines == norder, "%zu lines:\n%s", lines, text);
    free(text);
  }

  /* Bad profiles, in a fresh temporary directory. */
  char dir[] = "/tmp/ccsim-test-profiles-XXXXXX";
  CHECK(mkdtemp(dir) != NULL, "mkdtemp");
  const char *good = "{" HEAD "\"total_params\": 10, \"total_fwd_flops\": 20, \"total_bwd_flops\": 40, "
                     "\"layers\": [" GOOD_LAYER0 ", {\"name\": \"b\", \"params\": 4, \"fwd_flops\": 8, "
                     "\"bwd_flops\": 16}]}";
  p = profile_load(write_file(dir, "good.json", good, path, sizeof path), &err);
  CHECK(p != NULL, "good profile: %s", err.msg);
  if (p) {
    CHECK(p->nlayers == 2 && p->total_params == 10 && p->total_fwd_flops == 20 && p->total_bwd_flops == 40,
          "good totals");
    CHECK(strcmp(p->layers[1].name, "b") == 0 && p->layers[1].params == 4 && p->layers[1].fwd_flops == 8 &&
              p->layers[1].bwd_flops == 16,
          "good layer 1");
    /* ... and it can be resolved by name from its directory. */
    CHECK(profile_path(dir, "good", path, sizeof path, &err) == 0, "profile_path in tmp: %s", err.msg);
  }
  profile_free(p);
  unlink(path);

#define TOTALS(params, fwd, bwd) \
  "\"total_params\": " #params ", \"total_fwd_flops\": " #fwd ", \"total_bwd_flops\": " #bwd ", "
  check_bad(dir, "syntax.json", "{\"name\": ", ":1:");
  check_bad(dir, "array.json", "[1, 2]", "(top level): expected an object, got [1,2]");
  check_bad(dir, "negative.json",
            "{" HEAD TOTALS(6, 12, 24) "\"layers\": [" GOOD_LAYER0 ", {\"name\": \"x\", \"params\": -5, "
            "\"fwd_flops\": 0, \"bwd_flops\": 0}]}",
            "layers[1].params: expected a positive integer, got -5");
  check_bad(dir, "zero.json",
            "{" HEAD TOTALS(6, 12, 24) "\"layers\": [{\"name\": \"w\", \"params\": 0, \"fwd_flops\": 12, "
            "\"bwd_flops\": 24}]}",
            "layers[0].params: expected a positive integer, got 0");
  check_bad(dir, "fraction.json",
            "{" HEAD TOTALS(6, 12, 24) "\"layers\": [{\"name\": \"w\", \"params\": 1.5, \"fwd_flops\": 12, "
            "\"bwd_flops\": 24}]}",
            "layers[0].params: expected a positive integer, got 1.5");
  check_bad(dir, "string.json",
            "{" HEAD TOTALS(6, 12, 24) "\"layers\": [{\"name\": \"w\", \"params\": \"6\", \"fwd_flops\": 12, "
            "\"bwd_flops\": 24}]}",
            "layers[0].params: expected a positive integer, got \"6\"");
  check_bad(dir, "nofwd.json",
            "{" HEAD TOTALS(6, 12, 24) "\"layers\": [{\"name\": \"w\", \"params\": 6, \"bwd_flops\": 24}]}",
            "layers[0].fwd_flops: missing");
  check_bad(dir, "negflops.json",
            "{" HEAD TOTALS(6, 12, 24) "\"layers\": [{\"name\": \"w\", \"params\": 6, \"fwd_flops\": 12, "
            "\"bwd_flops\": -1}]}",
            "layers[0].bwd_flops: expected a number of flops >= 0, got -1");
  check_bad(dir, "topkey.json", "{" HEAD TOTALS(6, 12, 24) "\"totl_params\": 6, \"layers\": [" GOOD_LAYER0 "]}",
            "totl_params: unknown key \"totl_params\"");
  check_bad(dir, "layerkey.json",
            "{" HEAD TOTALS(6, 12, 24) "\"layers\": [{\"name\": \"w\", \"params\": 6, \"fwd_flops\": 12, "
            "\"bwd_flops\": 24, \"flops\": 1}]}",
            "layers[0].flops: unknown key");
  check_bad(dir, "sumparams.json", "{" HEAD TOTALS(7, 12, 24) "\"layers\": [" GOOD_LAYER0 "]}",
            "total_params: 7, but the layers sum to 6");
  check_bad(dir, "sumfwd.json", "{" HEAD TOTALS(6, 13, 24) "\"layers\": [" GOOD_LAYER0 "]}",
            "total_fwd_flops: 13, but the layers sum to 12");
  check_bad(dir, "sumbwd.json", "{" HEAD TOTALS(6, 12, 25) "\"layers\": [" GOOD_LAYER0 "]}",
            "total_bwd_flops: 25, but the layers sum to 24");
  check_bad(dir, "empty.json", "{" HEAD TOTALS(6, 12, 24) "\"layers\": []}", "layers: expected a non-empty array");
  check_bad(dir, "xkey.json", "{" HEAD TOTALS(6, 12, 24) "\"x_\": 0}", "unknown key \"x_\"");
  check_bad(dir, "dupkey.json", "{" HEAD TOTALS(6, 12, 24) "\"source\": \"again\"}", "duplicate");
  check_bad(dir, "missinglayers.json", "{" HEAD TOTALS(6, 12, 24) "\"generated_by\": \"hand\"}",
            "layers: expected a non-empty array of {name, params, fwd_flops, bwd_flops}, got nothing");
  check_bad(dir, "layerarray.json", "{" HEAD TOTALS(6, 12, 24) "\"layers\": [[1]]}",
            "layers[0]: expected an object, got [1]");
  check_bad(dir, "dupname.json", "{" HEAD TOTALS(12, 24, 48) "\"layers\": [" GOOD_LAYER0 ", " GOOD_LAYER0 "]}",
            "layers[1].name: \"w\" already names layers[0]");
  check_bad(dir, "noname.json", "{\"name\": \"\", \"source\": \"s\", \"input\": \"i\", " TOTALS(6, 12, 24)
            "\"layers\": [" GOOD_LAYER0 "]}",
            "name: expected a non-empty string, got \"\"");
  check_bad(dir, "nosource.json", "{\"name\": \"n\", \"input\": \"i\", " TOTALS(6, 12, 24) "\"layers\": [" GOOD_LAYER0 "]}",
            "source: missing");
  check_bad(dir, "badnote.json", "{" HEAD "\"flops_convention\": 3, " TOTALS(6, 12, 24) "\"layers\": [" GOOD_LAYER0 "]}",
            "flops_convention: expected a non-empty string, got 3");
  check_bad(dir, "nototal.json", "{" HEAD "\"total_fwd_flops\": 12, \"total_bwd_flops\": 24, \"layers\": [" GOOD_LAYER0 "]}",
            "total_params: missing; expected a positive integer");
  /* A missing file names itself too. */
  snprintf(path, sizeof path, "%s/absent.json", dir);
  p = profile_load(path, &err);
  CHECK(p == NULL && strstr(err.msg, path) == err.msg, "absent file: %s", err.msg);
  CHECK(rmdir(dir) == 0, "temporary directory left files behind: %s", dir);
  return check_status("test_profiles");
}
