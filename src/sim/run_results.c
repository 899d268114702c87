/* src/sim/run_results.c — a run's figures written as its result files:
 * iterations.csv, hops.csv, then summary.json, each through the atomic
 * idiom of results.h.  The formats (columns, field order, number formats)
 * are part of the output contract (docs/outputs.md) and of the golden
 * files: a change here is a change of every result ccsim writes. */
#include "sim/run_results.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "engine/engine.h"
#include "outputs/outdir.h"
#include "outputs/provenance.h"
#include "outputs/results.h"
#include "timemodel/measured.h"

/* The training columns of iterations.csv: empty cells where there is no
 * figure (synthetic and trace runs, iterations not evaluated). */
static void train_cells(FILE *f, const trainer_row *r) {
  const double v[3] = {r ? r->train_loss : NAN, r ? r->test_loss : NAN, r ? r->test_accuracy : NAN};
  for (int k = 0; k < 3; k++) {
    if (!isnan(v[k])) fprintf(f, "%.10g", v[k]);
    fputc(k < 2 ? ',' : '\n', f);
  }
}

/* summary.json's training figures: the last evaluation, and when (simulated
 * time at the end of the iteration, and iterations done) the test accuracy
 * first reached train.target_accuracy; null if never. */
static void train_summary(const experiment *e, const trainer *tr, const double *iter_end,
                          json_t *s, run_report *rep) {
  const trainer_row *r = trainer_metrics(tr);
  const int T = e->iterations;
  int hit = -1;
  for (int it = 0; it < T && hit < 0; it++)
    if (!isnan(r[it].test_accuracy) && r[it].test_accuracy >= e->train.target_accuracy) hit = it;
  rep->trained = 1;
  rep->final_loss = r[T - 1].test_loss;
  rep->final_accuracy = r[T - 1].test_accuracy;
  rep->time_to_accuracy_s = hit >= 0 ? iter_end[hit] : NAN;
  rep->iterations_to_accuracy = hit >= 0 ? hit + 1 : -1;
  json_object_set_new(s, "final_loss", json_real(rep->final_loss));
  json_object_set_new(s, "final_accuracy", json_real(rep->final_accuracy));
  json_object_set_new(s, "final_train_loss", json_real(r[T - 1].train_loss));
  json_object_set_new(s, "target_accuracy", json_real(e->train.target_accuracy));
  json_object_set_new(s, "agg_worker_spread", json_real(trainer_spread(tr)));
  json_object_set_new(s, "time_to_accuracy_s", hit >= 0 ? json_real(iter_end[hit]) : json_null());
  json_object_set_new(s, "iterations_to_accuracy", hit >= 0 ? json_integer(hit + 1) : json_null());
}

/* One row of iterations.csv, derived from the workers' finish times and the
 * collective's metrics; NaN where a figure does not exist (nothing sent, a
 * zero vector): an empty cell. */
typedef struct iter_row {
  double time, bytes, ratio, rel, cos;
} iter_row;

/* Totals over the iterations, for summary.json and the human summary; the
 * iterations whose error or cosine does not exist, counted, the first one
 * kept to name it. */
typedef struct run_totals {
  double last, bytes, sum_rel, sum_cos, dense;
  int undef_rel, undef_cos, first_rel, first_cos;
  char why_rel[160], why_cos[160];
} run_totals;

/* Why the cosine of a does not exist. */
static const char *why_no_cosine(const err_acc *a) {
  if (a->out2 == 0 && a->ref2 == 0) return "the aggregate and the exact mean are zero vectors (no direction)";
  if (a->out2 == 0) return "the aggregate is a zero vector (nothing sent, or gradients that underflowed): it has no direction";
  return "the exact mean is a zero vector: it has no direction";
}

/* A number, or nothing where it does not exist (NaN): CSV's empty cell. */
static void cell(FILE *f, const char *fmt, double v) {
  if (isfinite(v)) fprintf(f, fmt, v);
}

/* summary.json's key: v, or null with the reason in undef[key]. */
static void figure(json_t *s, json_t *undef, const char *key, double v, const char *reason) {
  if (isfinite(v)) {
    json_object_set_new(s, key, json_real(v));
    return;
  }
  json_object_set_new(s, key, json_null());
  json_object_set_new(undef, key, json_string(reason));
}

/* rows[it] and iter_end[it] (the end of iteration it: its last worker's)
 * for every iteration, and the totals over them. */
static void iteration_rows(const experiment *e, const run_figures *fig, iter_row *rows, double *iter_end,
                           run_totals *t) {
  const int N = e->workers, T = e->iterations;
  double prev = 0;
  *t = (run_totals){.dense = e->collective->dense_bytes(e->model.elements, N, e->coll_params)};
  for (int it = 0; it < T; it++) {
    double end = 0;
    for (int r = 0; r < N; r++) end = fmax(end, fig->ends[(size_t)it * N + r]);
    rows[it].time = end - prev;
    iter_end[it] = end;
    prev = end;
    t->last = end;
    rows[it].bytes = fig->metrics[it].bytes;
    rows[it].ratio = rows[it].bytes > 0 ? t->dense / rows[it].bytes : NAN; /* nothing sent: no ratio */
    rows[it].rel = err_acc_rel(&fig->metrics[it].final);
    rows[it].cos = err_acc_cos(&fig->metrics[it].final);
    if (isnan(rows[it].rel) && t->undef_rel++ == 0) {
      t->first_rel = it;
      snprintf(t->why_rel, sizeof t->why_rel, "the exact mean is a zero vector and the aggregate is not");
    }
    if (isnan(rows[it].cos) && t->undef_cos++ == 0) {
      t->first_cos = it;
      snprintf(t->why_cos, sizeof t->why_cos, "%s", why_no_cosine(&fig->metrics[it].final));
    }
    t->sum_rel += rows[it].rel;
    t->sum_cos += rows[it].cos;
    t->bytes += rows[it].bytes;
  }
}

/* iterations.csv: one row per iteration, the training columns empty where
 * there is no figure. */
static int write_iterations(const experiment *e, const run_figures *fig, const iter_row *rows, const char *dir,
                            ccsim_error *err) {
  FILE *f = results_open(dir, "iterations.csv", err);
  if (!f) return CCSIM_ERR_RUNTIME;
  fprintf(f, "iteration,time_s,compute_s,compress_s,communicate_s,exposed_communicate_s,"
             "bytes_on_wire,compression_ratio,agg_rel_error,agg_cosine,"
             "train_loss,test_loss,test_accuracy\n");
  const trainer_row *trows = fig->trainer ? trainer_metrics(fig->trainer) : NULL;
  for (int it = 0; it < e->iterations; it++) {
    fprintf(f, "%d,%.10g,%.10g,%.10g,%.10g,%.10g,%.0f,", it, rows[it].time, fig->t_compute[it],
            fig->t_compress[it], fig->t_comm[it], fig->t_exposed[it], rows[it].bytes);
    cell(f, "%.10g", rows[it].ratio);
    fputc(',', f);
    cell(f, "%.10g", rows[it].rel);
    fputc(',', f);
    cell(f, "%.12g", rows[it].cos);
    fputc(',', f);
    train_cells(f, trows ? &trows[it] : NULL);
  }
  return results_commit(f, dir, "iterations.csv", err) ? CCSIM_ERR_RUNTIME : 0;
}

/* Hops of each iteration: the collective's count, none for multi-phase
 * compressors (their rounds are fp32 sums, with no hop errors). */
static size_t hop_count(const experiment *e, const run_figures *fig) {
  return e->iterations ? fig->metrics[0].nhops : 0;
}

/* hops.csv: one row per iteration and hop; the cascade columns empty where
 * the cascade was not measured. */
static int write_hops(const experiment *e, const run_figures *fig, const char *dir, ccsim_error *err) {
  FILE *f = results_open(dir, "hops.csv", err);
  if (!f) return CCSIM_ERR_RUNTIME;
  fprintf(f, "iteration,hop,workers,rel_error,cosine,cascade_rel_error,cascade_gain\n");
  const size_t H = hop_count(e, fig);
  for (int it = 0; it < e->iterations; it++)
    for (size_t h = 0; h < H; h++) {
      const err_acc *a = &fig->metrics[it].hops[h];
      const err_acc *c = &fig->metrics[it].cascade[h];
      fprintf(f, "%d,%zu,%u,", it, h + 1, a->workers);
      cell(f, "%.10g", err_acc_rel(a));
      fputc(',', f);
      cell(f, "%.12g", err_acc_cos(a));
      fputc(',', f);
      if (c->count > 0) cell(f, "%.10g", err_acc_rel(c)), fputc(',', f), cell(f, "%.10g", err_acc_gain(c));
      else fputc(',', f);
      fputc('\n', f);
    }
  return results_commit(f, dir, "hops.csv", err) ? CCSIM_ERR_RUNTIME : 0;
}

/* summary.json's error of the aggregate against the mean of the workers'
 * own decoded payloads over all iterations: the error hop-by-hop
 * aggregation adds (null where it was not measured). */
static void summary_cascade(const experiment *e, const run_figures *fig, json_t *s, json_t *undef) {
  err_acc fc = {0};
  for (int it = 0; it < e->iterations; it++) {
    const err_acc *a = &fig->metrics[it].final_cascade;
    fc.err2 += a->err2, fc.ref2 += a->ref2, fc.out2 += a->out2, fc.dot += a->dot, fc.count += a->count;
  }
  if (fc.count == 0) { /* not measured: null, as documented, no reason needed */
    json_object_set_new(s, "agg_cascade_rel_error", json_null());
    json_object_set_new(s, "agg_cascade_gain", json_null());
    return;
  }
  static const char why[] = "the mean of the workers' decoded payloads is a zero vector and the aggregate is not";
  figure(s, undef, "agg_cascade_rel_error", err_acc_rel(&fc), why);
  figure(s, undef, "agg_cascade_gain", err_acc_gain(&fc), why);
}

/* summary.json's errors of the last hop's partial aggregates over all
 * iterations (absent without hops; its cascade only where measured). */
/* comm.model "nccl": the settings in force (resolved from the platform)
 * and the collective calls of each protocol. */
static json_t *comm_report(const experiment *e, const run_figures *fig) {
  const nccl_plan *p = engine_comm_plan();
  json_t *c = json_object(), *calls = json_object(), *eff = json_object(), *bw = json_object();
  json_object_set_new(c, "model", json_string("nccl"));
  json_object_set_new(c, "algorithm", json_string(p->price_algo < 0 ? "auto" : nccl_algo_names[p->price_algo]));
  json_object_set_new(c, "collective_algorithm", json_string(nccl_algo_names[p->algo]));
  json_object_set_new(c, "protocol", json_string(p->proto < 0 ? "auto" : nccl_proto_names[p->proto]));
  for (int q = 0; q < NCCL_NPROTO; q++)
    json_object_set_new(calls, nccl_proto_names[q], json_integer(fig->proto_calls[q]));
  json_object_set_new(c, "protocol_calls", calls);
  /* the NCCL algorithm that priced each call */
  json_t *algos = json_object();
  for (int a = 0; a < NCCL_NALGO; a++)
    json_object_set_new(algos, nccl_algo_names[a], json_integer(fig->algo_calls[a]));
  json_object_set_new(c, "algorithm_calls", algos);
  json_object_set_new(c, "channels", json_integer(p->channels));
  json_object_set_new(c, "nodes", json_integer(p->nnodes));
  json_object_set_new(c, "gpus_per_node", json_integer(p->gpn));
  json_object_set_new(c, "nics_per_node", json_integer(p->nics));
  json_object_set_new(c, "intra_node_links", json_string(nccl_hw_names[p->intra_hw]));
  for (int hw = 0; hw < NCCL_NHW; hw++) {
    if (!(hw == NCCL_HW_NET ? p->nnodes > 1 : p->gpn > 1 && hw == p->intra_hw)) continue;
    json_object_set_new(eff, nccl_hw_names[hw], json_real(p->eff[hw]));
    json_object_set_new(bw, nccl_hw_names[hw], json_real(p->bw[hw]));
  }
  json_object_set_new(c, "simple_efficiency", eff);
  json_object_set_new(c, "nominal_bandwidth_Bps", bw);
  json_object_set_new(c, "links", e->comm_links ? json_string(e->comm_links) : json_null());
  return c;
}

static void summary_last_hop(const experiment *e, const run_figures *fig, json_t *s, json_t *undef) {
  const int T = e->iterations;
  const size_t H = hop_count(e, fig);
  if (!H) return;
  err_acc lh = {0};
  for (int it = 0; it < T; it++) {
    const err_acc *a = &fig->metrics[it].hops[H - 1];
    lh.err2 += a->err2, lh.ref2 += a->ref2, lh.out2 += a->out2, lh.dot += a->dot;
  }
  figure(s, undef, "last_hop_rel_error", err_acc_rel(&lh),
         "the exact sum of the last hop's workers is a zero vector and their partial aggregate is not");
  err_acc lc = {0};
  for (int it = 0; it < T; it++) {
    const err_acc *a = &fig->metrics[it].cascade[H - 1];
    lc.err2 += a->err2, lc.ref2 += a->ref2, lc.out2 += a->out2, lc.dot += a->dot, lc.count += a->count;
  }
  if (lc.count > 0) {
    static const char why[] = "the sum of the last hop's decoded payloads is a zero vector and their aggregate is not";
    figure(s, undef, "last_hop_cascade_rel_error", err_acc_rel(&lc), why);
    figure(s, undef, "last_hop_cascade_gain", err_acc_gain(&lc), why);
  }
}

/* summary.json, in its field order (docs/outputs.md); written last, with
 * the experiment's hash: a directory is finished when summary.json holds
 * it.  rep's figures are filled first. */
static int write_summary(const experiment *e, const run_figures *fig, const double *iter_end,
                         const run_totals *t, const char *dir, run_report *rep, ccsim_error *err) {
  const int N = e->workers, T = e->iterations;
  json_t *s = json_object(), *undef = json_object(); /* undef: the figures that do not exist, and why */
  char why[400];
  json_object_set_new(s, "name", json_string(e->name));
  json_object_set_new(s, "ccsim_version", json_string(CCSIM_VERSION));
  json_object_set_new(s, "workers", json_integer(N));
  json_object_set_new(s, "compressor", json_string(e->compressor->name));
  json_object_set_new(s, "memory", json_string(e->memory ? e->memory->name : "none"));
  json_object_set_new(s, "collective", json_string(e->collective->name));
  json_object_set_new(s, "iterations", json_integer(T));
  json_object_set_new(s, "elements", json_integer((json_int_t)e->model.elements));
  json_object_set_new(s, "sim_time_s", json_real(rep->sim_time_s));
  json_object_set_new(s, "iteration_time_s", json_real(rep->iteration_time_s));
  double tc = 0, tz = 0, tm = 0, tx = 0;
  for (int it = 0; it < T; it++)
    tc += fig->t_compute[it], tz += fig->t_compress[it], tm += fig->t_comm[it], tx += fig->t_exposed[it];
  /* totals over all iterations, as worker 0 saw them: compute = forward +
   * backward device time, compress = device time of compression,
   * communicate = time inside collectives, exposed = time from the end of
   * backward until the aggregate is complete */
  json_object_set_new(s, "time_breakdown_s",
                      json_pack("{s:f,s:f,s:f,s:f}", "compute", tc, "compress", tz, "communicate", tm,
                                "exposed_communicate", tx));
  json_object_set_new(s, "device", json_string(e->measured ? e->measured->name : e->device ? e->device->name : "none"));
  if (e->measured)
    json_object_set_new(s, "time_model", measured_report(e->measured, e->measured_model, e->measured_comp,
                                                         e->precision, e->timing, e->model.batch, e->time_note));
  json_object_set_new(s, "schedule", sched_report(fig->sched));
  json_object_set_new(s, "bytes_on_wire", json_integer((json_int_t)llround(t->bytes))); /* a count: an integer */
  figure(s, undef, "compression_ratio", rep->compression_ratio, "nothing was sent: 0 bytes on the wire");
  snprintf(why, sizeof why, "iteration %d: %s (undefined in %d of %d iterations)", t->first_rel, t->why_rel,
           t->undef_rel, T);
  figure(s, undef, "agg_rel_error", rep->agg_rel_error, why);
  snprintf(why, sizeof why, "iteration %d: %s (undefined in %d of %d iterations)", t->first_cos, t->why_cos,
           t->undef_cos, T);
  figure(s, undef, "agg_cosine", rep->agg_cosine, why);
  summary_cascade(e, fig, s, undef);
  if (fig->trainer) train_summary(e, fig->trainer, iter_end, s, rep);
  /* numbers: a figure that is not finite would be dropped from the JSON */
  if (fig->trainer && !(isfinite(rep->final_loss) && isfinite(rep->final_accuracy))) {
    json_decref(s);
    json_decref(undef);
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s: iteration %d, worker 0: the test loss or accuracy is not finite (%g, %g)",
                      e->file, T - 1, rep->final_loss, rep->final_accuracy);
  }
  summary_last_hop(e, fig, s, undef);
  json_object_set_new(s, "data_mode", json_string(e->model.sample ? "sampled" : "full"));
  if (e->model.sample) json_object_set_new(s, "sampled_elements", json_integer((json_int_t)fig->data_elements));
  json_object_set_new(s, "network_model", json_string(engine_network_model()));
  if (e->comm.model == COMM_NCCL) json_object_set_new(s, "comm", comm_report(e, fig));
  json_object_set_new(s, "simulated_iterations", json_integer(fig->simulated));
  json_object_set_new(s, "memo_hits", json_integer(fig->memo_hits));
  {
    unsigned long long reps[2], msgs[2];
    engine_timing_paths(reps, msgs);
    json_t *tm = json_object();
    json_object_set_new(tm, "mode", json_string(engine_timing_simgrid ? "simgrid" : "auto"));
    json_object_set_new(tm, "analytical_iterations", json_integer((json_int_t)reps[1]));
    json_object_set_new(tm, "analytical_messages", json_integer((json_int_t)msgs[1]));
    json_object_set_new(tm, "simgrid_iterations", json_integer((json_int_t)reps[0]));
    json_object_set_new(tm, "simgrid_messages", json_integer((json_int_t)msgs[0]));
    json_object_set_new(s, "timing", tm);
  }
  json_object_set_new(s, "host_time_s", json_real(rep->host_time_s));
  json_object_set_new(s, "peak_rss_mb", json_real(rep->peak_rss_mb));
  if (json_object_size(undef)) json_object_set(s, "undefined", undef);
  json_decref(undef);
  json_object_set(s, "experiment", e->resolved);
  /* provenance: every file read, with its digest, and the options */
  json_t *prov = provenance_new(e, err);
  if (!prov) {
    json_decref(s);
    return err->code;
  }
  json_object_update(s, prov);
  json_decref(prov);
  char hash[17];
  int rc = outdir_hash(e, hash, err);
  if (!rc) json_object_set_new(s, "experiment_hash", json_string(hash));
  if (!rc) rc = results_write_json(dir, "summary.json", s, err);
  json_decref(s);
  return rc;
}

int run_results_write(const experiment *e, const run_figures *fig, const char *dir, run_report *rep,
                      ccsim_error *err) {
  const int T = e->iterations;
  iter_row *rows = calloc((size_t)T + 1, sizeof *rows);
  double *iter_end = calloc((size_t)T + 1, sizeof *iter_end);
  run_totals t;
  int rc = 0;
  if (!rows || !iter_end) {
    rc = ccsim_fail(err, CCSIM_ERR_RUNTIME, "out of memory for the figures of %d iterations", T);
    goto out;
  }
  iteration_rows(e, fig, rows, iter_end, &t);
  if ((rc = write_iterations(e, fig, rows, dir, err)) || (rc = write_hops(e, fig, dir, err))) goto out;
  rep->sim_time_s = t.last;
  rep->iteration_time_s = t.last / T;
  rep->bytes_on_wire = t.bytes;
  rep->compression_ratio = t.bytes > 0 ? t.dense * T / t.bytes : NAN; /* nothing sent: no ratio */
  rep->agg_rel_error = t.sum_rel / T; /* NaN when undefined in any iteration */
  rep->agg_cosine = t.sum_cos / T;
  rc = write_summary(e, fig, iter_end, &t, dir, rep, err);
out:
  free(rows);
  free(iter_end);
  return rc;
}
