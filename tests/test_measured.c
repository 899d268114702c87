/* tests/test_measured.c SRCDIR — measured device files: the hand-made
 * tests/data/devices/tiny-lstm.json loads with every figure; interpolation,
 * per-layer compute and parameter matching give the values computed by hand;
 * broken copies are refused with the file, the JSON path and what was
 * expected. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "timemodel/measured.h"
#include "timemodel/profile.h"

#define CHECK_REL(a, b, what) CHECK_NEAR(a, b, 1e-12 * fabs((double)(b)), what)

static char good_path[1024], tmpdir[] = "/tmp/test_measured_XXXXXX";

/* The good file with the first occurrence of `from` replaced by `to`, loaded:
 * it must fail with code 2 and a message holding the file and `want`. */
static void refused(const char *from, const char *to, const char *want) {
  FILE *f = fopen(good_path, "r");
  static char text[1 << 16];
  size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
  if (f) fclose(f);
  text[n] = 0;
  char *at = strstr(text, from);
  CHECK(at != NULL, "'%s' is in the good file", from);
  if (!at) return;
  char path[1100];
  snprintf(path, sizeof path, "%s/bad.json", tmpdir);
  FILE *o = fopen(path, "w");
  fwrite(text, 1, (size_t)(at - text), o);
  fputs(to, o);
  fputs(at + strlen(from), o);
  fclose(o);
  ccsim_error err = {0};
  measured_device *d = measured_load(path, &err);
  CHECK(d == NULL && err.code == CCSIM_ERR_INPUT, "'%s' -> '%s' refused (code %d)", from, to, err.code);
  CHECK(strstr(err.msg, path) && strstr(err.msg, want), "'%s' -> '%s': message names the file and '%s': %s", from,
        to, want, err.msg);
  CHECK(!strchr(err.msg, '\n'), "one line: %s", err.msg);
  measured_free(d);
}

/* Batch curves: exact at a measured batch, linear between two, outside along
 * the nearest segment with its intercept clamped to [0, the nearest figure]. */
static void test_batch_curve(void) {
  measured_batch pts[3] = {{16, 1, 2}, {32, 1.5, 3}, {64, 2.5, 5}};
  measured_model mm = {.batch = 32, .forward_s = 1.5, .backward_s = 3, .nbatches = 3, .batches = pts};
  double f, b;
  char rule[160];
  measured_totals(&mm, 32, &f, &b, rule, sizeof rule);
  CHECK(f == 1.5 && b == 3 && strstr(rule, "measured at batch 32"), "exact: %g %g %s", f, b, rule);
  measured_totals(&mm, 24, &f, &b, rule, sizeof rule);
  CHECK_REL(f, 1.25, "between 16 and 32");
  CHECK_REL(b, 2.5, "between 16 and 32 (backward)");
  CHECK(strstr(rule, "between measured batches 16 and 32") != NULL, "rule %s", rule);
  measured_totals(&mm, 8, &f, &b, rule, sizeof rule); /* intercept 0.5 (forward), 1 (backward) */
  CHECK_REL(f, 0.75, "below 16");
  CHECK_REL(b, 1.5, "below 16 (backward)");
  measured_totals(&mm, 128, &f, &b, rule, sizeof rule); /* intercept 0.5, 1 */
  CHECK_REL(f, 4.5, "above 64");
  CHECK_REL(b, 9, "above 64 (backward)");
  CHECK(strstr(rule, "extrapolated from measured batch 64") != NULL, "rule %s", rule);
  /* a falling segment (noise): intercept above the figure, clamped: constant */
  measured_batch down[2] = {{16, 2, 2}, {32, 1, 1}};
  measured_model md = {.batch = 16, .forward_s = 2, .backward_s = 2, .nbatches = 2, .batches = down};
  measured_totals(&md, 8, &f, &b, rule, sizeof rule);
  CHECK_REL(f, 2, "falling segment: constant below");
  /* a steep segment: intercept below 0, clamped: in proportion */
  measured_batch up[2] = {{16, 1, 1}, {32, 3, 3}};
  measured_model mu = {.batch = 16, .forward_s = 1, .backward_s = 1, .nbatches = 2, .batches = up};
  measured_totals(&mu, 8, &f, &b, rule, sizeof rule);
  CHECK_REL(f, 0.5, "steep segment: in proportion below");
  /* one batch: in proportion */
  measured_model m1 = {.batch = 10, .forward_s = 1, .backward_s = 2, .nbatches = 1, .batches = up};
  up[0] = (measured_batch){10, 1, 2};
  measured_totals(&m1, 25, &f, &b, rule, sizeof rule);
  CHECK(f == 2.5 && b == 5 && strstr(rule, "in proportion"), "one batch: %g %g %s", f, b, rule);
}

int main(int argc, char **argv) {
  test_batch_curve();
  if (argc < 2) return fprintf(stderr, "usage: test_measured SRCDIR\n"), 2;
  snprintf(good_path, sizeof good_path, "%s/tests/data/devices/tiny-lstm.json", argv[1]);
  if (!mkdtemp(tmpdir)) return perror("mkdtemp"), 1;
  ccsim_error err = {0};
  measured_device *d = measured_load(good_path, &err);
  CHECK(d != NULL, "tiny-lstm loads: %s", err.msg);
  if (!d) return check_status("test_measured");
  CHECK(strcmp(d->name, "tiny-lstm") == 0 && d->roofline == device_find("h100"), "name and roofline");
  CHECK(d->launch_isolated_s == 2e-5 && d->launch_back_to_back_s == 5e-6, "launch");
  CHECK(d->nmodels == 1 && d->ncompressors == 2, "%zu models, %zu compressors", d->nmodels, d->ncompressors);

  /* Interpolation in log n, by hand, on fp16 encode (isolated): sizes 2^10,
   * 2^20, 2^25 take 1e-5, 2e-4, 4e-3 s. */
  const measured_compressor *fp16 = measured_find_compressor(d, "fp16");
  const measured_compressor *topk = measured_find_compressor(d, "topk");
  CHECK(fp16 && topk && !measured_find_compressor(d, "qsgd"), "find compressors");
  if (!fp16 || !topk) return check_status("test_measured");
  CHECK(fp16->has[CCOMP_ENCODE] && fp16->has[CCOMP_DECODE] && fp16->has[CCOMP_COMBINE], "fp16: three ops");
  CHECK(topk->has[CCOMP_ENCODE] && topk->has[CCOMP_DECODE] && !topk->has[CCOMP_COMBINE], "topk: no combine");
  const measured_curve *enc = &fp16->op[CCOMP_ENCODE][MEASURED_ISOLATED];
  CHECK(measured_curve_seconds(enc, 1024) == 1e-5, "at the smallest size");
  CHECK(measured_curve_seconds(enc, 1) == 1e-5 && measured_curve_seconds(enc, 100) == 1e-5,
        "below the smallest: its fixed cost");
  CHECK_REL(measured_curve_seconds(enc, 1048576), 2e-4, "at a measured size");
  /* 2^15: halfway in log between 2^10 and 2^20 */
  CHECK_REL(measured_curve_seconds(enc, 32768), 1e-5 + 0.5 * (2e-4 - 1e-5), "2^15");
  /* 2^22: 2/5 of the way from 2^20 to 2^25 */
  CHECK_REL(measured_curve_seconds(enc, 4194304), 2e-4 + 0.4 * (4e-3 - 2e-4), "2^22");
  /* 3e6 (not a power of two): log2(3e6 / 2^20) / 5 of the way */
  CHECK_REL(measured_curve_seconds(enc, 3e6), 2e-4 + (log(3e6 / 1048576.0) / log(32)) * (4e-3 - 2e-4), "3e6");
  CHECK_REL(measured_curve_seconds(enc, 67108864), 8e-3, "2^26: twice the largest");
  CHECK_REL(measured_curve_seconds(&fp16->op[CCOMP_DECODE][MEASURED_BACK_TO_BACK], 32768),
            3e-6 + 0.5 * (1.5e-4 - 3e-6), "decode back to back, 2^15");

  /* Parameters: topk measured at ratio 0.01. */
  double params[64];
  ccomp_param_defaults(topk->type, params);
  ccsim_error why = {0};
  CHECK(measured_params_check(topk, params, &why) == 0, "topk defaults match: %s", why.text);
  params[ccomp_param_index(topk->type, "ratio")] = 0.05;
  CHECK(measured_params_check(topk, params, &why) == CCSIM_ERR_INPUT && strstr(why.text, "ratio = 0.01") &&
            strstr(why.text, "0.05") && why.code == CCSIM_ERR_INPUT,
        "topk ratio 0.05 does not: %s", why.text);

  /* Compute, by hand (see the file: backward 1 s, forward 0.4 s at batch 10),
   * backward order: decoder.bias 0.12; decoder.weight ready earlier: 0;
   * rnn.1 biases 0.18, 0; rnn.1 weights 0.2, 0; rnn.0 biases 0.1, 0; rnn.0
   * weight_hh 0.12, weight_ih (ready earlier) 0; encoder 0.23 + 0.05 left. */
  const measured_model *mm = measured_find_model(d, "lstm", "fp32");
  CHECK(mm && !measured_find_model(d, "lstm", "bf16") && !measured_find_model(d, "vgg16", "fp32"), "find model");
  if (mm) {
    const double want[11] = {0.12, 0, 0.18, 0, 0.2, 0, 0.1, 0, 0.12, 0, 0.28};
    double fwd, bwd[11];
    measured_compute(mm, 20, &fwd, bwd); /* batch 20: twice the measured 10 */
    CHECK_REL(fwd, 0.8, "forward x 2");
    double sum = 0;
    for (int j = 0; j < 11; j++) {
      CHECK_NEAR(bwd[j], 2 * want[j], 1e-15, "backward tensor");
      sum += bwd[j];
    }
    CHECK_REL(sum, 2.0, "backward adds up to backward_s x 2");
    char models[1100], path[1200];
    snprintf(models, sizeof models, "%s/workloads/models", argv[1]);
    model_profile *lstm = NULL, *other = NULL;
    if (!profile_path(models, "lstm", path, sizeof path, &err)) lstm = profile_load(path, &err);
    if (!profile_path(models, "vgg16", path, sizeof path, &err)) other = profile_load(path, &err);
    CHECK(lstm && other, "profiles load: %s", err.msg);
    if (lstm && other) {
      CHECK(measured_check_model(d, mm, lstm, &err) == 0, "the table times the lstm profile: %s", err.msg);
      CHECK(measured_check_model(d, mm, other, &err) == CCSIM_ERR_INPUT && strstr(err.msg, "tiny-lstm.json") &&
                strstr(err.msg, "models.lstm.fp32.tensors"),
            "not vgg16: %s", err.msg);
    }
    profile_free(lstm);
    profile_free(other);
  }
  measured_free(d);

  /* Broken copies: each refused, naming the JSON path. */
  refused("\"ccsim-device-1\"", "\"ccsim-device-2\"", "format: expected \"ccsim-device-1\"");
  refused("\"roofline\": \"h100\"", "\"roofline\": \"tpu\"", "roofline: unknown built-in device \"tpu\"");
  refused("\"summary\"", "\"summery\"", "summery: unknown key");
  refused("\"forward_s\": 0.4", "\"forward_s\": -0.4", "models.lstm.fp32.forward_s: expected a number > 0");
  refused("\"fp32\": {", "\"fp64\": {", "models.lstm.fp64: unknown precision");
  refused("\"ready_s\": 0.95", "\"ready_s\": 1.5", "models.lstm.fp32.tensors[0].ready_s: expected seconds in [0,");
  refused("\"name\": \"decoder.bias\"", "\"nam\": \"decoder.bias\"", "models.lstm.fp32.tensors[10].nam: unknown key");
  refused("\"fp16\": {", "\"fp17\": {", "compressors.fp17: unknown compressor");
  refused("\"ratio\": 0.01", "\"ratoi\": 0.01", "compressors.topk.params.ratoi: topk has no parameter");
  refused("\"ratio\": 0.01", "\"ratio\": 2", "compressors.topk.params.ratio");
  refused("1048576,\n    33554432", "1048576,\n    1048576", "compressors.fp16.sizes: element [2]");
  refused("\"isolated_s\": [\n     1e-05,", "\"isolated_s\": [\n", "compressors.fp16.encode.isolated_s: expected an array of 3");
  refused("2e-06,", "0,", "compressors.fp16.encode.back_to_back_s[0]: expected a number > 0");
  refused("\"isolated_s\": 2e-05", "\"isolated_s\": null", "launch.isolated_s");
  refused("\"tensors_per_bucket\": 16", "\"tensors_per_bucket\": 0", "ddp_buckets.tensors_per_bucket");
  refused("{\n \"format\"", "[\n \"format\"", "bad.json:2:10: ");
  char bad[1100];
  snprintf(bad, sizeof bad, "%s/bad.json", tmpdir);
  unlink(bad);
  rmdir(tmpdir);

  /* A name that is not a file in the folder: the message lists what is there. */
  char dir[1100], buf[1200];
  snprintf(dir, sizeof dir, "%s/tests/data/devices", argv[1]);
  CHECK(measured_path(dir, "tiny-lstm", buf, sizeof buf, &err) == 0 && strstr(buf, "tiny-lstm.json"), "path");
  CHECK(measured_path(dir, "h200-measured", buf, sizeof buf, &err) == CCSIM_ERR_INPUT &&
            strstr(err.msg, "measured: tiny-lstm"),
        "unknown: %s", err.msg);
  CHECK(measured_path(dir, "../x", buf, sizeof buf, &err) == CCSIM_ERR_INPUT, "not a plain name");
  return check_status("test_measured");
}
