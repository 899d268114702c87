/* src/units.h — quantities written the way users write them.
 *
 *   bandwidth: "25Gbps" (bits/s), "10GBps" (bytes/s), "100Mbps", "1.5TBps",
 *              binary prefixes "KiBps", "Gibps" ...; a bare JSON number is bytes/s
 *   size:      "4MB" (10^6 bytes), "4MiB" (2^20), "512B", "1.5GB"; a bare number is bytes
 *   time:      "5us", "1.5ms", "2s", "100ns", "1ps"; a bare number is seconds
 * SI prefixes are powers of 1000, binary ones (Ki, Mi, Gi, Ti) of 1024, as in
 * SimGrid's platform files.  The number is decimal ("0x10", "inf" and "nan"
 * are not numbers here).  All return 0 on success; otherwise what went
 * wrong (units_why says it in words): UNITS_NOT_A_NUMBER when the text does
 * not start with a decimal number, UNITS_RANGE when the number or the
 * quantity leaves the doubles ("1e400Bps", "1e307min", "1e-320ps"),
 * UNITS_UNKNOWN when the unit is not one of the kind's, UNITS_NO_UNIT when
 * there is none ("25"). */
#ifndef CCSIM_UNITS_H
#define CCSIM_UNITS_H

enum { UNITS_NOT_A_NUMBER = -1, UNITS_RANGE = -2, UNITS_UNKNOWN = -3, UNITS_NO_UNIT = -4 };

int units_bandwidth(const char *text, double *bytes_per_s);
int units_size(const char *text, double *bytes);
int units_time(const char *text, double *seconds);
/* A units_* failure in words: "not a number followed by a unit", "the
 * number is out of range", "unknown unit", "no unit". */
const char *units_why(int code);

#endif
