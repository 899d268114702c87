/* src/platforms/pcie.h — the "pcie-server" generator: one server's GPUs
 * under a PCIe switch tree, optionally joined by NVLink (a DGX-1-like
 * hybrid cube mesh or an NVSwitch-like fabric). */
#ifndef CCSIM_PLATFORMS_PCIE_H
#define CCSIM_PLATFORMS_PCIE_H

#include <stdio.h>

#include "experiment.h"

/* The server's parameters (e->platform.params); its PCIe links are the
 * experiment's platform.bandwidth and platform.latency. */
typedef struct pcie_params {
  int gpus, gpus_per_switch, sockets;
  double socket_bandwidth, socket_latency; /* each inter-socket (QPI/UPI) link */
  int nvlink;                              /* PCIE_NVLINK_NONE, _CUBE_MESH, _SWITCH */
  double nvlink_bandwidth, nvlink_latency; /* one NVLink link, per direction */
} pcie_params;

/* GPUs of one server at most (every ordered pair gets a route). */
#define PCIE_MAX_GPUS 64

/* The NVLink options, in platform.pcie.nvlink order. */
enum { PCIE_NVLINK_NONE, PCIE_NVLINK_CUBE_MESH, PCIE_NVLINK_SWITCH };
extern const char *const pcie_nvlink_names[]; /* "none", "cube-mesh", "switch", NULL */

/* NVLink links between GPUs a and b (0..7) of the DGX-1 hybrid cube mesh:
 * 0, 1 or 2. */
int pcie_cube_mesh_links(int a, int b);

/* Write e's pcie-server platform as SimGrid XML to f; name is the
 * experiment's name, already fit for an XML comment. */
void pcie_server_write(FILE *f, const experiment *e, const char *name);

/* End-to-end latency under CM02 of the route from GPU 0 to GPU 1. */
double pcie_server_hop_latency(const experiment *e);

#endif
