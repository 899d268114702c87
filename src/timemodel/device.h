/* src/timemodel/device.h — the devices a simulated worker computes on, from public
 * datasheets, and the two conversions the time model needs: a compressor's
 * ccomp_cost into seconds, and a model's training flops into seconds.
 *
 * Which peak: the time model uses peak_flops, the FP32 peak WITHOUT tensor
 * cores, for both conversions.  Compression kernels are elementwise FP32 code
 * that tensor cores do not run; for training, `efficiency` is the fraction of
 * that same FP32 peak that dense FP32 training reaches (see device.c for where
 * the number comes from, and how TF32 or mixed-precision training compares).
 * peak_tensor_flops is listed for reference only and used by nothing. */
#ifndef CCSIM_DEVICE_H
#define CCSIM_DEVICE_H

#include <stddef.h>
#include <stdio.h>

#include "ccomp/compressor.h"

typedef struct device_spec {
  const char *name;         /* as experiments and `ccsim list devices` spell it */
  const char *summary;      /* which part exactly, one line */
  double peak_flops;        /* FP32 peak without tensor cores, flop/s: what the time model uses */
  double peak_tensor_flops; /* FP16 tensor-core peak, dense, flop/s; reference only, 0 if none */
  double mem_bandwidth;     /* device memory bandwidth, bytes/s */
  double launch_overhead;   /* fixed cost of one kernel launch, s */
  double host_bandwidth;    /* host<->device copy, bytes/s per direction; 0: no copy (memory is host memory) */
  const char *host_link;    /* what host_bandwidth is, e.g. "PCIe 3.0 x16" */
  double efficiency;        /* fraction of peak_flops that dense training kernels reach, (0, 1] */
} device_spec;

/* The device called name, or NULL.  The result is static: never freed. */
const device_spec *device_find(const char *name);

/* Every built-in device, in a fixed order; *count receives how many. */
const device_spec *const *device_registry(size_t *count);

/* Seconds one compressor operation takes on d:
 *
 *   launches x launch_overhead
 *   + (bytes_read + bytes_written) / mem_bandwidth
 *   + flops / peak_flops
 *
 * Three terms added, not overlapped: launch, memory traffic and arithmetic are
 * each charged in full (a roofline would take the larger of the last two; the
 * kernels ccsim charges are memory-bound, where the flops term is small).  No
 * efficiency factor: the cost already counts every byte and flop. */
double device_cost_seconds(const device_spec *d, const ccomp_cost *c);

/* Seconds `flops` of dense training work take on d: flops / (peak_flops x efficiency). */
double device_compute_seconds(const device_spec *d, double flops);

/* Seconds to copy `bytes` between host and device in one direction:
 * bytes / host_bandwidth, or 0 when d computes in host memory (host_bandwidth 0). */
double device_copy_seconds(const device_spec *d, double bytes);

/* One line per device: name, summary, the numbers the time model uses. */
void device_list(FILE *out);

#endif
