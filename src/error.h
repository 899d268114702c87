/* src/error.h — errors are a code plus a message, returned, never printed deep
 * in the code (the pattern of jansson's json_error_t).  Only main() prints. */
#ifndef CCSIM_ERROR_H
#define CCSIM_ERROR_H

#include <stdarg.h>

enum ccsim_status {
  CCSIM_OK = 0,
  CCSIM_ERR_RUNTIME = 1, /* a run failed (I/O, memory, a broken invariant) */
  CCSIM_ERR_INPUT = 2,   /* bad input: the experiment, a file, a flag */
};

typedef struct ccsim_error {
  int code;
  char msg[2048];
} ccsim_error;

/* Set err (if not NULL) and return code. */
int ccsim_fail(ccsim_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
