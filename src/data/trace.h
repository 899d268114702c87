/* src/data/trace.h — gradient traces: the gradients of a real data-parallel
 * training run, written to disk once and replayed by ccsim in place of the
 * synthetic source (gradients.h).
 *
 * A trace is a directory (format version 1; analysis/TRACES.md says the same
 * with examples):
 *
 *   TRACE/
 *     index.json          what the trace holds; written last
 *     w0/it0.npy          worker 0's gradient at iteration 0
 *     w0/it1.npy
 *     ...
 *     w{W-1}/it{T-1}.npy
 *
 * index.json, every key required, no others:
 *
 *   { "format": "ccsim-trace",
 *     "version": 1,
 *     "workers": W,                    integer >= 1
 *     "iterations": T,                 integer >= 1, W x T <= 2^24
 *     "layers": [ {"name": "conv1.weight", "shape": [16, 1, 3, 3], "count": 144},
 *                 ... ],               in the order they are concatenated;
 *                                      names unique and non-empty, shape of
 *                                      0..8 positive integers, count = product
 *     "elements": N,                   sum of the layers' counts
 *     "files": "w{worker}/it{iteration}.npy",   the one layout of version 1
 *     "source": "..." }                free text: what produced the trace
 *
 * Each .npy file is NumPy's format version 1.0 holding one 1-D array:
 *
 *   offset 0   "\x93NUMPY" 0x01 0x00        magic, version 1.0
 *   offset 8   uint16 little-endian HLEN    header length
 *   offset 10  "{'descr': '<f4', 'fortran_order': False, 'shape': (N,), }"
 *              padded with spaces, ending in '\n'
 *   offset 10+HLEN   N little-endian IEEE 754 binary32 values, nothing after
 *
 * that is, all layers' gradients concatenated in layer order (the flat vector
 * the collectives reduce), exactly what numpy.save writes for a contiguous
 * float32 array.  Every value must be finite.
 *
 * Reading is lazy and by range: trace_open reads index.json only; a file's
 * header is parsed (and its size checked against it) the first time the file
 * is touched, and trace_read then preads just the bytes of [lo, hi).  Since
 * replay happens inside the simulation, where a bad file could only abort a
 * run half-way, trace_check validates every file and every value up front.
 *
 * Errors: functions that can fail return 0 or a ccsim_status code (error.h)
 * and fill err (a ccsim_error; NULL is allowed) located at the file: index.json
 * with the JSON path of the bad value, or the .npy file with the worker,
 * iteration and element.  Bad trace content is CCSIM_ERR_INPUT; memory, I/O
 * and misuse are CCSIM_ERR_RUNTIME.  A reader is not thread-safe.  Little-endian
 * hosts only (the file's byte order is the host's). */
#ifndef CCSIM_TRACE_H
#define CCSIM_TRACE_H

#include <stddef.h>

#include "error.h"

#define TRACE_FORMAT "ccsim-trace"
#define TRACE_VERSION 1
#define TRACE_FILES "w{worker}/it{iteration}.npy"
#define TRACE_MAX_DIMS 8

typedef struct trace_layer {
  const char *name;
  unsigned ndim;
  size_t shape[TRACE_MAX_DIMS];
  size_t count;  /* product of shape (1 when ndim is 0) */
  size_t offset; /* index of the layer's first element in the flat vector */
} trace_layer;

/* ---- reading ---- */

typedef struct trace_reader trace_reader;

/* Open the trace in dir: read and validate dir/index.json (no .npy file is
 * touched yet).  NULL with err set on failure. */
trace_reader *trace_open(const char *dir, ccsim_error *err);
/* Close every file and free the reader; NULL is fine. */
void trace_close(trace_reader *t);

unsigned trace_workers(const trace_reader *t);
unsigned trace_iterations(const trace_reader *t);
size_t trace_elements(const trace_reader *t);
size_t trace_nlayers(const trace_reader *t);
/* Layer i (i < trace_nlayers), owned by the reader. */
const trace_layer *trace_layer_at(const trace_reader *t, size_t i);
/* index.json's "source", owned by the reader. */
const char *trace_source(const trace_reader *t);
/* The index of the layer holding flat element e (e < trace_elements). */
size_t trace_layer_of(const trace_reader *t, size_t e);

/* out[0 .. hi-lo) = elements [lo, hi) of worker's gradient at iteration.
 * Validates the file's header on first use; refuses (and names the element)
 * a non-finite value among those read. */
int trace_read(trace_reader *t, unsigned worker, unsigned iteration, size_t lo, size_t hi,
               float *out, ccsim_error *err);

/* Validate every file's header and every value: after 0, no trace_read of a
 * valid range fails unless the files change underneath.  Reads all the data
 * once, sequentially. */
int trace_check(trace_reader *t, ccsim_error *err);

/* The index of the first NaN or infinity in x[0 .. n), or n if none. */
size_t trace_first_nonfinite(const float *x, size_t n);

/* ---- writing ---- */

typedef struct trace_writer trace_writer;

/* Start a trace in dir (created if missing).  An index.json already there is
 * removed first, so until trace_writer_close succeeds dir is not a trace.
 * layers[] is borrowed; layers[i].count and .offset are ignored (computed
 * from shape).  NULL with err set on failure. */
trace_writer *trace_writer_new(const char *dir, unsigned workers, unsigned iterations,
                               const trace_layer *layers, size_t nlayers, const char *source,
                               ccsim_error *err);
/* Write worker's gradient at iteration: g[0 .. n), n = the trace's elements,
 * every value finite.  Each (worker, iteration) once. */
int trace_write(trace_writer *w, unsigned worker, unsigned iteration, const float *g, size_t n,
                ccsim_error *err);
/* Check that every (worker, iteration) was written, write index.json (to a
 * temporary name, then renamed) and free the writer, even on failure. */
int trace_writer_close(trace_writer *w, ccsim_error *err);
/* Abandon a trace: free the writer without writing index.json; NULL is fine. */
void trace_writer_free(trace_writer *w);

#endif
