/* src/units.c — parse "25Gbps", "4MB", "5us". */
#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Split "  1.5 GB " into 1.5 and "GB"; UNITS_NOT_A_NUMBER without a number
 * (or with a unit too long to be one: UNITS_UNKNOWN), UNITS_RANGE when the
 * number leaves the doubles. */
static int split(const char *text, double *value, char *unit, size_t unitlen) {
  char *end;
  while (isspace((unsigned char)*text)) text++;
  if (!*text) return UNITS_NOT_A_NUMBER;
  /* a decimal number only: strtod would also take "0x10", "inf", "nan" */
  const char *q = text + (*text == '+' || *text == '-');
  int digits = 0;
  while (isdigit((unsigned char)*q) || *q == '.') digits += *q++ != '.';
  if (!digits) return UNITS_NOT_A_NUMBER;
  if (*q == 'e' || *q == 'E') {
    q += 1 + (q[1] == '+' || q[1] == '-');
    if (!isdigit((unsigned char)*q)) return UNITS_NOT_A_NUMBER;
    while (isdigit((unsigned char)*q)) q++;
  }
  errno = 0;
  *value = strtod(text, &end);
  /* ERANGE: out of the doubles' range, or so small it lost its digits
   * ("1e-330" would read as 0) */
  if (end != q) return UNITS_NOT_A_NUMBER;
  if (!isfinite(*value) || errno == ERANGE) return UNITS_RANGE;
  while (isspace((unsigned char)*end)) end++;
  size_t len = strlen(end);
  while (len && isspace((unsigned char)end[len - 1])) len--;
  if (len >= unitlen) return UNITS_UNKNOWN;
  memcpy(unit, end, len);
  unit[len] = 0;
  return len ? 0 : UNITS_NO_UNIT;
}

/* v * f, or UNITS_RANGE when it leaves the doubles: overflows to Inf ("1e307min"),
 * or a non-zero quantity underflows to 0 ("1e-320ps"). */
static int scaled(double v, double f, double *out) {
  const double x = v * f;
  if (!isfinite(x) || (v != 0 && x == 0)) return UNITS_RANGE;
  *out = x;
  return 0;
}

/* Strip a prefix (k, K, M, G, T, P, Ki, Mi, Gi, Ti) off unit; return its factor. */
static double prefix(const char **unit) {
  static const struct { const char *p; double f; } table[] = {
      {"Ki", 1024.0}, {"Mi", 1048576.0}, {"Gi", 1073741824.0}, {"Ti", 1099511627776.0},
      {"k", 1e3}, {"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15},
  };
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
    size_t n = strlen(table[i].p);
    if (strncmp(*unit, table[i].p, n) == 0 && (*unit)[n]) {
      *unit += n;
      return table[i].f;
    }
  }
  return 1.0;
}

int units_bandwidth(const char *text, double *out) {
  double v;
  char unit[32];
  const int rc = split(text, &v, unit, sizeof unit);
  if (rc) return rc;
  const char *u = unit;
  double f = prefix(&u);
  if (strcmp(u, "Bps") == 0 || strcmp(u, "B/s") == 0) return scaled(v, f, out);
  if (strcmp(u, "bps") == 0 || strcmp(u, "b/s") == 0) return scaled(v, f / 8.0, out);
  return UNITS_UNKNOWN;
}

int units_size(const char *text, double *out) {
  double v;
  char unit[32];
  const int rc = split(text, &v, unit, sizeof unit);
  if (rc) return rc;
  const char *u = unit;
  double f = prefix(&u);
  if (strcmp(u, "B") == 0) return scaled(v, f, out);
  if (strcmp(u, "b") == 0) return scaled(v, f / 8.0, out);
  return UNITS_UNKNOWN;
}

int units_time(const char *text, double *out) {
  static const struct { const char *u; double f; } table[] = {
      {"s", 1.0}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}, {"ps", 1e-12},
      {"m", 60.0}, {"min", 60.0}, {"h", 3600.0},
  };
  double v;
  char unit[32];
  const int rc = split(text, &v, unit, sizeof unit);
  if (rc) return rc;
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (strcmp(unit, table[i].u) == 0) return scaled(v, table[i].f, out);
  return UNITS_UNKNOWN;
}

const char *units_why(int code) {
  return code == UNITS_RANGE     ? "the number is out of range"
         : code == UNITS_UNKNOWN ? "unknown unit"
         : code == UNITS_NO_UNIT ? "no unit"
                                 : "not a number followed by a unit";
}
