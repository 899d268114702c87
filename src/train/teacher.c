/* src/train/teacher.c — the synthetic teacher task (a "teacher-student"
 * setup: labels come from a fixed network, so the task's optimum is known:
 * a student that can represent the teacher reaches 100% accuracy).
 *
 * Two passes of the teacher over the inputs.  The first measures the mean
 * and standard deviation of each class's logit and standardises it (output
 * weights and bias rescaled): the logits of a random ReLU network have
 * class-dependent offsets and spreads, and without this a few classes take
 * most samples.  The second labels the inputs with the final teacher, so the
 * labels are exactly the argmax of the returned teacher's logits, whatever
 * the float rounding of the first pass. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "train/data.h"
#include "variates.h"
#include "ccomp/rng.h"

#define TAG_X 0x78ull           /* "x" */
#define TAG_TEACHER 0x74656163ull /* "teac" */
#define TEACHER_CHUNK 256

tdataset *tdata_teacher(const tteacher_spec *spec, tmodel **teacher, float **theta,
                        ccsim_error *err) {
  if (spec->samples < 1 || spec->inputs < 1 || spec->classes < 2 ||
      spec->nhidden > TMODEL_MAX_HIDDEN) {
    ccsim_fail(err, CCSIM_ERR_INPUT,
               "teacher task: need samples >= 1, inputs >= 1, classes >= 2, hidden layers <= %d "
               "(got %zu, %zu, %zu, %zu)",
               TMODEL_MAX_HIDDEN, spec->samples, spec->inputs, spec->classes, spec->nhidden);
    return NULL;
  }
  if (spec->samples > SIZE_MAX / sizeof(float) / spec->inputs) {
    ccsim_fail(err, CCSIM_ERR_INPUT, "teacher task: %zu x %zu inputs overflow", spec->samples,
               spec->inputs);
    return NULL;
  }
  tmodel_spec ms = {.kind = spec->nhidden ? TMODEL_MLP : TMODEL_SOFTMAX,
                    .inputs = spec->inputs,
                    .classes = spec->classes,
                    .nhidden = spec->nhidden};
  memcpy(ms.hidden, spec->hidden, sizeof ms.hidden);
  tmodel *m = tmodel_new(&ms, err);
  if (!m) return NULL;
  const size_t n = spec->samples, f = spec->inputs, c = spec->classes;
  tdataset *d = calloc(1, sizeof *d);
  float *th = malloc(tmodel_nparams(m) * sizeof *th);
  float *logits = malloc(TEACHER_CHUNK * c * sizeof *logits);
  double *mean = calloc(c, sizeof *mean), *sq = calloc(c, sizeof *sq);
  tmodel_ws *ws = tmodel_ws_new(m, TEACHER_CHUNK, err);
  if (d) {
    d->n = n;
    d->features = f;
    d->classes = c;
    d->X = malloc(n * f * sizeof *d->X);
    d->y = malloc(n * sizeof *d->y);
  }
  if (!d || !th || !logits || !mean || !sq || !ws || !d->X || !d->y) {
    if (ws) ccsim_fail(err, CCSIM_ERR_RUNTIME, "teacher task: out of memory (%zu x %zu)", n, f);
    tdata_free(d);
    d = NULL;
    goto done;
  }

  const uint64_t kx = ccr_key(spec->seed, TAG_X);
  for (size_t t = 0; t < n * f; t++) d->X[t] = (float)grad_normal(kx, t);
  tmodel_init(m, th, ccr_key(spec->seed, TAG_TEACHER));

  /* Standardise each class's logit over the inputs: column k of the output
   * weights divided by its standard deviation, its bias set to minus its
   * scaled mean. */
  size_t ntensors;
  const tmodel_tensor *tt = tmodel_layers(m, &ntensors);
  float *out_w = th + tt[ntensors - 2].offset, *out_b = th + tt[ntensors - 1].offset;
  const size_t rows = tt[ntensors - 2].rows;
  for (size_t lo = 0; lo < n; lo += TEACHER_CHUNK) {
    const size_t b = n - lo < TEACHER_CHUNK ? n - lo : TEACHER_CHUNK;
    tmodel_forward(m, ws, th, d->X + lo * f, b, logits);
    for (size_t r = 0; r < b; r++)
      for (size_t k = 0; k < c; k++) {
        mean[k] += logits[r * c + k];
        sq[k] += (double)logits[r * c + k] * logits[r * c + k];
      }
  }
  for (size_t k = 0; k < c; k++) {
    const double mu = mean[k] / (double)n, var = sq[k] / (double)n - mu * mu;
    const double scale = var > 0 ? 1.0 / sqrt(var) : 1.0;
    for (size_t i = 0; i < rows; i++) out_w[i * c + k] = (float)(out_w[i * c + k] * scale);
    out_b[k] = (float)(-mu * scale);
  }
  for (size_t lo = 0; lo < n; lo += TEACHER_CHUNK) {
    const size_t b = n - lo < TEACHER_CHUNK ? n - lo : TEACHER_CHUNK;
    tmodel_forward(m, ws, th, d->X + lo * f, b, logits);
    for (size_t r = 0; r < b; r++) d->y[lo + r] = (int)tmodel_argmax(logits + r * c, c);
  }
  if (teacher) {
    *teacher = m;
    m = NULL;
  }
  if (theta) {
    *theta = th;
    th = NULL;
  }
done:
  tmodel_ws_free(ws);
  free(mean);
  free(sq);
  free(logits);
  free(th);
  tmodel_free(m);
  return d;
}
