/* src/timemodel/device.c — the built-in devices, each number with its source.
 *
 * Datasheets:
 *   [V100]  NVIDIA Tesla V100 GPU Accelerator datasheet (2020), column "V100 SXM2":
 *           FP32 15.7 TFLOPS, Tensor Performance 125 TFLOPS, HBM2 900 GB/s.
 *   [A100]  NVIDIA A100 Tensor Core GPU datasheet (2021), column "A100 80GB SXM":
 *           FP32 19.5 TFLOPS, FP16 Tensor Core 312 TFLOPS (624 with sparsity),
 *           GPU memory bandwidth 2,039 GB/s.
 *   [H100]  NVIDIA H100 Tensor Core GPU datasheet (2022), column "H100 SXM":
 *           FP32 67 TFLOPS, FP16 Tensor Core 1,979 TFLOPS with sparsity (989.5 dense:
 *           the datasheet's footnote says sparsity doubles the dense figure),
 *           GPU memory bandwidth 3.35 TB/s.
 *   [8380]  Intel Xeon Platinum 8380 product specification (ark.intel.com): 40 cores,
 *           base 2.30 GHz, 2 AVX-512 FMA units per core, 8 channels of DDR4-3200.
 *   [PCIe]  PCI-SIG base specifications: 3.0 runs 8 GT/s, 4.0 16 GT/s, 5.0 32 GT/s
 *           per lane, all with 128b/130b encoding.  An x16 link then carries
 *           rate x 16 x 128/130 / 8 bytes/s per direction: 15.75, 31.51, 63.02 GB/s.
 *           That is the link rate; packet headers keep real copies somewhat below it.
 *
 * Reconstructed (no measurement here; each marked where used):
 *   GPU launch overhead 5 us.  The cost from a kernel launch call to the kernel
 *     starting, as the host sees it back to back, is a few microseconds on
 *     Volta-and-later GPUs (NVIDIA's "Getting Started with CUDA Graphs", A. Gray,
 *     2019, shows per-kernel overheads of that order on V100); 5 us is a round
 *     figure in that range, used for all three GPUs.
 *   CPU launch overhead 1 us: starting one parallel loop over the socket's cores
 *     (a fork/join of a thread team), the order the EPCC OpenMP micro-benchmarks
 *     (Bull 1999, "Measuring Synchronisation and Scheduling Overheads in OpenMP")
 *     report for a parallel loop.
 *   CPU peak: 40 cores x 2.30 GHz x 2 FMA units x 16 FP32 lanes x 2 flops =
 *     5.888 TFLOPS at the base clock; under AVX-512 the clock may drop below base.
 *
 * Training efficiency.  Derived for the V100 from a published measurement:
 * NVIDIA DeepLearningExamples, PyTorch ResNet-50 v1.5 README, "Training
 * performance: NVIDIA DGX-1 16GB (8x V100 16GB)": 1 GPU, FP32, 367 img/s.
 * The same network's profile (workloads/models/resnet50.json) gives 8.178 GFLOPs
 * forward per image, so forward + backward (3x forward) is 24.54 GFLOPs, and
 * 367 img/s x 24.54 GFLOPs = 9.00 TFLOPS = 0.57 of the V100's 15.7 TFLOPS.
 * The other devices use the same 0.57 [reconstructed: no FP32-only training
 * measurement at hand for them].  For comparison, the same README measures
 * A100 80GB TF32 at 938 img/s (23.0 TFLOPS = 1.18 x its FP32 peak, 0.15 of its
 * TF32 tensor peak) and mixed precision at 1200 img/s on V100 and 2470 img/s on
 * A100: an experiment modelling TF32 or mixed-precision training should raise
 * the efficiency accordingly (it may exceed 1 relative to the FP32 peak). */
#include "timemodel/device.h"

#include <string.h>

#define GPU_LAUNCH_OVERHEAD 5e-6  /* [reconstructed], see above */
#define TRAIN_EFFICIENCY 0.57     /* measured for V100, [reconstructed] elsewhere */

static const device_spec v100 = {
    .name = "v100",
    .summary = "NVIDIA V100 SXM2",
    .peak_flops = 15.7e12,        /* [V100] FP32 */
    .peak_tensor_flops = 125e12,  /* [V100] tensor performance */
    .mem_bandwidth = 900e9,       /* [V100] HBM2 */
    .launch_overhead = GPU_LAUNCH_OVERHEAD,
    .host_bandwidth = 8e9 * 16 * 128 / 130 / 8, /* [PCIe] 3.0 x16 */
    .host_link = "PCIe 3.0 x16",
    .efficiency = TRAIN_EFFICIENCY, /* derived above from DeepLearningExamples */
};

static const device_spec a100 = {
    .name = "a100",
    .summary = "NVIDIA A100 80GB SXM",
    .peak_flops = 19.5e12,        /* [A100] FP32 */
    .peak_tensor_flops = 312e12,  /* [A100] FP16 tensor core, dense */
    .mem_bandwidth = 2039e9,      /* [A100] HBM2e, 80GB SXM */
    .launch_overhead = GPU_LAUNCH_OVERHEAD,
    .host_bandwidth = 16e9 * 16 * 128 / 130 / 8, /* [PCIe] 4.0 x16 */
    .host_link = "PCIe 4.0 x16",
    .efficiency = TRAIN_EFFICIENCY, /* [reconstructed] */
};

static const device_spec h100 = {
    .name = "h100",
    .summary = "NVIDIA H100 SXM",
    .peak_flops = 67e12,           /* [H100] FP32 */
    .peak_tensor_flops = 989.5e12, /* [H100] FP16 tensor core, dense (1,979 / 2) */
    .mem_bandwidth = 3.35e12,      /* [H100] HBM3 */
    .launch_overhead = GPU_LAUNCH_OVERHEAD,
    .host_bandwidth = 32e9 * 16 * 128 / 130 / 8, /* [PCIe] 5.0 x16 */
    .host_link = "PCIe 5.0 x16",
    .efficiency = TRAIN_EFFICIENCY, /* [reconstructed] */
};

static const device_spec cpu = {
    .name = "cpu",
    .summary = "one Intel Xeon Platinum 8380 socket (40 cores, AVX-512)",
    .peak_flops = 40 * 2.30e9 * 2 * 16 * 2, /* [8380], derived above: 5.888 TFLOPS */
    .peak_tensor_flops = 0,
    .mem_bandwidth = 8 * 3200e6 * 8, /* [8380] 8 channels x 3200 MT/s x 8 bytes = 204.8 GB/s */
    .launch_overhead = 1e-6,         /* [reconstructed], see above */
    .host_bandwidth = 0,             /* computes in host memory: nothing to copy */
    .host_link = "none (host memory)",
    .efficiency = TRAIN_EFFICIENCY, /* [reconstructed] */
};

static const device_spec *const registry[] = {&v100, &a100, &h100, &cpu};

const device_spec *const *device_registry(size_t *count) {
  *count = sizeof registry / sizeof registry[0];
  return registry;
}

const device_spec *device_find(const char *name) {
  for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++)
    if (strcmp(registry[i]->name, name) == 0) return registry[i];
  return NULL;
}

double device_cost_seconds(const device_spec *d, const ccomp_cost *c) {
  return c->launches * d->launch_overhead + (c->bytes_read + c->bytes_written) / d->mem_bandwidth +
         c->flops / d->peak_flops;
}

double device_compute_seconds(const device_spec *d, double flops) {
  return flops / (d->peak_flops * d->efficiency);
}

double device_copy_seconds(const device_spec *d, double bytes) {
  return d->host_bandwidth > 0 ? bytes / d->host_bandwidth : 0.0;
}

void device_list(FILE *out) {
  size_t n;
  const device_spec *const *reg = device_registry(&n);
  for (size_t i = 0; i < n; i++) {
    const device_spec *d = reg[i];
    char host[64] = "no host copy";
    if (d->host_bandwidth > 0)
      snprintf(host, sizeof host, "host %.1f GB/s (%s)", d->host_bandwidth / 1e9, d->host_link);
    fprintf(out, "%-6s %-56s %6.2f TFLOPS fp32 x %.2f, %6.1f GB/s, launch %g us, %s\n", d->name,
            d->summary, d->peak_flops / 1e12, d->efficiency, d->mem_bandwidth / 1e9,
            d->launch_overhead * 1e6, host);
  }
}
