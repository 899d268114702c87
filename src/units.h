/* src/units.h — quantities written the way users write them.
 *
 *   bandwidth: "25Gbps" (bits/s), "10GBps" (bytes/s), "100Mbps", "1.5TBps",
 *              binary prefixes "KiBps", "Gibps" ...; a bare JSON number is bytes/s
 *   size:      "4MB" (10^6 bytes), "4MiB" (2^20), "512B", "1.5GB"; a bare number is bytes
 *   time:      "5us", "1.5ms", "2s", "100ns", "1ps"; a bare number is seconds
 * SI prefixes are powers of 1000, binary ones (Ki, Mi, Gi, Ti) of 1024, as in
 * SimGrid's platform files.  The number is decimal ("0x10", "inf" and "nan"
 * are not numbers here).  All return 0 on success, -1 when the text is not
 * a number followed by a known unit. */
#ifndef CCSIM_UNITS_H
#define CCSIM_UNITS_H

int units_bandwidth(const char *text, double *bytes_per_s);
int units_size(const char *text, double *bytes);
int units_time(const char *text, double *seconds);

#endif
