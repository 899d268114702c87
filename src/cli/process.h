/* src/cli/process.h — what the ccsim process does about the world around it
 * (docs/testing.md, docs/errors.md):
 *
 *  - OpenBLAS starts no thread pool (ccsim never uses one: each trained
 *    worker runs its GEMMs on one thread), so no thread of its own can hang
 *    a fork or the exit when memory is short (ulimit -v): it is loaded only
 *    by a run that trains (train/blas.h), after process_install has set
 *    OPENBLAS_NUM_THREADS=1, which the processes ccsim starts inherit;
 *  - SIGINT, SIGTERM and SIGHUP remove the result temporaries being
 *    written, print "ccsim: interrupted by SIGINT" and exit 128 + the
 *    signal's number (130, 143, 129), as a shell reports a killed command:
 *    a run stopped before its summary.json is never taken for finished;
 *    the line goes to the stderr ccsim started with, even while a call
 *    into SimGrid has descriptor 2 redirected (engine/contain.c);
 *  - SIGXFSZ is ignored: a file over ulimit -f fails its write with EFBIG,
 *    which the writer reports (exit 1);
 *  - memory that C++ code (SimGrid's operator new) cannot get ends the run
 *    with "ccsim: out of memory ...", exit 1, temporaries removed, instead
 *    of an uncaught std::bad_alloc and abort(); so does an allocation
 *    the JSON library (jansson) is refused, before jansson sees the NULL
 *    it does not always survive (src/jsonmem.h);
 *  - stdout that cannot be written (a full disk, /dev/full) is an error at
 *    exit (exit 1), not a summary silently lost. */
#ifndef CCSIM_CLI_PROCESS_H
#define CCSIM_CLI_PROCESS_H

/* The handlers above; call first thing in main. */
void process_install(void);

/* Flush and close stdout; rc when that works, else 1 after one line on
 * stderr.  Call with main's exit status just before returning it. */
int process_finish(int rc);

/* Out of memory outside ccsim's own checks: the message, the temporaries
 * removed, _exit(1).  Async-signal-safe. */
void process_out_of_memory(void);

#endif
