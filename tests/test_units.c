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
  /* each refusal with its reason (units_why) */
  static const struct {
    char kind; /* b, s, t */
    const char *text;
    int code;
  } bad[] = {
      {'b', "", UNITS_NOT_A_NUMBER}, {'b', "fast", UNITS_NOT_A_NUMBER}, {'b', "25", UNITS_NO_UNIT},
      {'b', "25Gb", UNITS_UNKNOWN}, {'b', "25 Gbps x", UNITS_UNKNOWN}, {'b', "Gbps", UNITS_NOT_A_NUMBER},
      {'b', "25GHz", UNITS_UNKNOWN}, {'b', "nan Gbps", UNITS_NOT_A_NUMBER}, {'b', "0x10Gbps", UNITS_NOT_A_NUMBER},
      {'b', "infGbps", UNITS_NOT_A_NUMBER}, {'b', "1e400Gbps", UNITS_RANGE}, {'b', "1eGbps", UNITS_NOT_A_NUMBER},
      {'b', ".Gbps", UNITS_NOT_A_NUMBER},
      /* finite number, product out of range (fuzz finding) */
      {'b', "1e300PBps", UNITS_RANGE}, {'b', "1e-330bps", UNITS_RANGE}, {'b', "1e-310Gbps", UNITS_RANGE},
      {'b', "5Gbpsxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", UNITS_UNKNOWN},
      {'s', "", UNITS_NOT_A_NUMBER}, {'s', "4", UNITS_NO_UNIT}, {'s', "4Mb/s", UNITS_UNKNOWN},
      {'s', "4 meg", UNITS_UNKNOWN}, {'s', "MB", UNITS_NOT_A_NUMBER}, {'s', "4MBB", UNITS_UNKNOWN},
      {'s', "1.7e308KiB", UNITS_RANGE}, {'s', "1e-330b", UNITS_RANGE},
      {'t', "", UNITS_NOT_A_NUMBER}, {'t', "5", UNITS_NO_UNIT}, {'t', "5 sec", UNITS_UNKNOWN},
      {'t', "us", UNITS_NOT_A_NUMBER}, {'t', "5uss", UNITS_UNKNOWN}, {'t', "inf s", UNITS_NOT_A_NUMBER},
      {'t', "0x1p-3s", UNITS_NOT_A_NUMBER}, {'t', "1e5e5s", UNITS_UNKNOWN}, {'t', "1e307min", UNITS_RANGE},
      {'t', "1e306h", UNITS_RANGE}, {'t', "1e-320ps", UNITS_RANGE},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    const int got = bad[i].kind == 'b'   ? units_bandwidth(bad[i].text, &v)
                    : bad[i].kind == 's' ? units_size(bad[i].text, &v)
                                         : units_time(bad[i].text, &v);
    CHECK(got == bad[i].code, "\"%s\" (%c): %d (%s), expected %d (%s)", bad[i].text, bad[i].kind, got,
          got ? units_why(got) : "accepted", bad[i].code, units_why(bad[i].code));
  }
  CHECK(!strcmp(units_why(UNITS_RANGE), "the number is out of range") && !strcmp(units_why(UNITS_NO_UNIT), "no unit") &&
            !strcmp(units_why(UNITS_UNKNOWN), "unknown unit") &&
            !strcmp(units_why(UNITS_NOT_A_NUMBER), "not a number followed by a unit"),
        "units_why's words");
  return check_status("test_units");
}
