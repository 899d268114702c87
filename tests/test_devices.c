/* tests/test_devices.c — the device table: lookups, the datasheet numbers the
 * time model rests on, and the cost formulas on hand-computed examples. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "timemodel/device.h"

/* Relative closeness for values computed two ways (formula vs hand). */
#define CHECK_REL(a, b, what) CHECK_NEAR(a, b, 1e-12 * fabs((double)(b)), what)

int main(void) {
  size_t n;
  const device_spec *const *reg = device_registry(&n);
  CHECK(n == 4, "%zu devices", n);
  static const char *const names[] = {"v100", "a100", "h100", "cpu"};
  for (size_t i = 0; i < 4; i++) {
    const device_spec *d = device_find(names[i]);
    CHECK(d != NULL, "device_find(\"%s\")", names[i]);
    if (!d) continue;
    CHECK(d == reg[i], "registry order: %s", names[i]);
    CHECK(strcmp(d->name, names[i]) == 0, "name %s", d->name);
    CHECK(d->summary && *d->summary && d->host_link && *d->host_link, "%s: summary and host link", d->name);
    CHECK(d->peak_flops > 0 && d->mem_bandwidth > 0 && d->launch_overhead > 0, "%s: positive", d->name);
    CHECK(d->efficiency > 0 && d->efficiency <= 1, "%s: efficiency %g", d->name, d->efficiency);
    CHECK(d->host_bandwidth >= 0 && d->peak_tensor_flops >= 0, "%s: non-negative", d->name);
  }
  CHECK(device_find("V100") == NULL, "names are exact");
  CHECK(device_find("") == NULL && device_find("tpu") == NULL, "unknown devices");

  /* The datasheet figures themselves (see src/timemodel/device.c for the sources). */
  const device_spec *v100 = device_find("v100"), *a100 = device_find("a100");
  const device_spec *h100 = device_find("h100"), *cpu = device_find("cpu");
  if (!v100 || !a100 || !h100 || !cpu) return check_status("test_devices");
  CHECK(v100->peak_flops == 15.7e12 && v100->mem_bandwidth == 900e9, "V100 SXM2 datasheet");
  CHECK(a100->peak_flops == 19.5e12 && a100->mem_bandwidth == 2039e9, "A100 80GB SXM datasheet");
  CHECK(h100->peak_flops == 67e12 && h100->mem_bandwidth == 3.35e12, "H100 SXM datasheet");
  CHECK_REL(cpu->peak_flops, 5.888e12, "Xeon 8380: 40 x 2.3 GHz x 2 FMA x 16 lanes x 2");
  CHECK_REL(cpu->mem_bandwidth, 204.8e9, "Xeon 8380: 8 x DDR4-3200");
  /* PCIe x16 per direction: GT/s x 16 lanes x 128/130 / 8 bits. */
  CHECK_REL(v100->host_bandwidth, 15753846153.846153, "PCIe 3.0 x16");
  CHECK_REL(a100->host_bandwidth, 2 * 15753846153.846153, "PCIe 4.0 x16");
  CHECK_REL(h100->host_bandwidth, 63015384615.38461, "PCIe 5.0 x16");
  CHECK(cpu->host_bandwidth == 0, "cpu: no host copy");

  /* Cost by hand on the V100: 3 launches x 5 us = 15 us; 5 MB / 900 GB/s =
   * 5.5556 us; 2 Mflop / 15.7 TFLOPS = 0.12739 us; total 20.682944 us. */
  ccomp_cost c = {.launches = 3, .bytes_read = 4e6, .bytes_written = 1e6, .flops = 2e6};
  CHECK_REL(device_cost_seconds(v100, &c), 2.0682944090587404e-05, "v100 cost");
  /* Each term alone, on the H100. */
  ccomp_cost only_launch = {.launches = 7}, only_bytes = {.bytes_read = 3.35e9}, only_flops = {.flops = 67e9};
  CHECK_REL(device_cost_seconds(h100, &only_launch), 35e-6, "7 launches");
  CHECK_REL(device_cost_seconds(h100, &only_bytes), 1e-3, "3.35 GB read at 3.35 TB/s");
  ccomp_cost written = {.bytes_written = 3.35e9};
  CHECK_REL(device_cost_seconds(h100, &written), 1e-3, "3.35 GB written at 3.35 TB/s");
  CHECK_REL(device_cost_seconds(h100, &only_flops), 1e-3, "67 Gflop at 67 TFLOPS");
  ccomp_cost none = {0};
  CHECK(device_cost_seconds(cpu, &none) == 0, "zero cost");

  /* Compute: ResNet-50 forward + backward of 2 images (2 x 3 x 8.178 GFLOPs)
   * at 0.57 x 15.7 TFLOPS = 5.4831 ms. */
  CHECK_REL(device_compute_seconds(v100, 2 * 8.178e9 * 3), 0.005483070734160242, "v100 compute");
  CHECK_REL(device_compute_seconds(a100, a100->peak_flops * a100->efficiency), 1.0, "a100: one second of work");

  CHECK_REL(device_copy_seconds(h100, 63015384615.38461), 1.0, "h100 copy, one second");
  CHECK(device_copy_seconds(cpu, 1e9) == 0, "cpu copies nothing");

  /* The listing: one line per device, each starting with its name. */
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  CHECK(f != NULL, "open_memstream");
  if (f) {
    device_list(f);
    fclose(f);
    size_t lines = 0;
    for (char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
      if (lines < 4) CHECK(strncmp(line, names[lines], strlen(names[lines])) == 0, "line %zu: %.20s", lines, line);
      lines++;
    }
    CHECK(lines == 4, "%zu lines:\n%s", lines, text);
    free(text);
  }
  return check_status("test_devices");
}
