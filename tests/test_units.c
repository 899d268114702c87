/* tests/test_units.c — quantities as users write them, exactly. */
#include <string.h>

#include "check.h"
#include "units.h"

int main(void) {
  double v;
  CHECK(units_bandwidth("25Gbps", &v) == 0 && v == 25e9 / 8, "25Gbps = %g", v);
  CHECK(units_bandwidth("10GBps", &v) == 0 && v == 10e9, "10GBps = %g", v);
  CHECK(units_bandwidth("100Mbps", &v) == 0 && v == 12.5e6, "100Mbps = %g", v);
  CHECK(units_bandwidth("1.5 TBps", &v) == 0 && v == 1.5e12, "1.5 TBps = %g", v);
  CHECK(units_bandwidth("1KiBps", &v) == 0 && v == 1024, "1KiBps = %g", v);
  CHECK(units_bandwidth("8bps", &v) == 0 && v == 1, "8bps = %g", v);
  CHECK(units_size("4MB", &v) == 0 && v == 4e6, "4MB = %g", v);
  CHECK(units_size("4MiB", &v) == 0 && v == 4194304, "4MiB = %g", v);
  CHECK(units_size("512B", &v) == 0 && v == 512, "512B = %g", v);
  CHECK(units_size("1.5GB", &v) == 0 && v == 1.5e9, "1.5GB = %g", v);
  CHECK(units_size("4KB", &v) == 0 && v == 4000, "4KB = %g", v);
  CHECK(units_size("64b", &v) == 0 && v == 8, "64b (bits) = %g", v);
  CHECK(units_size("8Kib", &v) == 0 && v == 1024, "8Kib (kibibits) = %g", v);
  CHECK(units_time("5us", &v) == 0 && fabs(v - 5e-6) < 1e-20, "5us = %g", v);
  CHECK(units_time("1.5ms", &v) == 0 && fabs(v - 1.5e-3) < 1e-18, "1.5ms = %g", v);
  CHECK(units_time("2s", &v) == 0 && v == 2, "2s = %g", v);
  CHECK(units_time("100ns", &v) == 0 && fabs(v - 1e-7) < 1e-22, "100ns = %g", v);
  CHECK(units_time("0s", &v) == 0 && v == 0, "0s = %g", v);
  CHECK(units_time("1e-3s", &v) == 0 && v == 1e-3, "1e-3s = %g", v);
  CHECK(units_bandwidth("2.5E+1Gbps", &v) == 0 && v == 25e9 / 8, "2.5E+1Gbps = %g", v);
  static const char *const bad_bw[] = {"", "fast", "25", "25Gb", "25 Gbps x", "Gbps", "25GHz", "nan Gbps", "0x10Gbps",
                                       "infGbps", "1e400Gbps", "1eGbps", ".Gbps",
                                       /* finite number, product out of range (fuzz finding) */
                                       "1e300PBps", "1e-330bps", "1e-310Gbps", NULL};
  for (int i = 0; bad_bw[i]; i++) CHECK(units_bandwidth(bad_bw[i], &v) == -1, "accepted bandwidth \"%s\"", bad_bw[i]);
  static const char *const bad_size[] = {"", "4", "4Mb/s", "4 meg", "MB", "4MBB", "1.7e308KiB", "1e-330b", NULL};
  for (int i = 0; bad_size[i]; i++) CHECK(units_size(bad_size[i], &v) == -1, "accepted size \"%s\"", bad_size[i]);
  static const char *const bad_time[] = {"", "5", "5 sec", "us", "5uss", "inf s", "0x1p-3s", "1e5e5s",
                                         "1e307min", "1e306h", "1e-320ps", NULL};
  for (int i = 0; bad_time[i]; i++) CHECK(units_time(bad_time[i], &v) == -1, "accepted time \"%s\"", bad_time[i]);
  return check_status("test_units");
}
