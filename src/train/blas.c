/* src/train/blas.c — which CBLAS is bound, asked of the dynamic linker. */
#include "train/blas.h"

#include <dlfcn.h>
#include <gsl/gsl_cblas.h>
#include <string.h>

const char *tblas_name(void) {
  Dl_info info;
  void *f = (void *)&cblas_sgemm;
  if (!dladdr(f, &info) || !info.dli_fname) return "?";
  const char *slash = strrchr(info.dli_fname, '/');
  return slash ? slash + 1 : info.dli_fname;
}

void tblas_single_thread(void) {
  /* Looked up rather than linked: the build may use GSL's CBLAS instead. */
  void (*set)(int) = (void (*)(int))dlsym(RTLD_DEFAULT, "openblas_set_num_threads");
  if (set && strstr(tblas_name(), "openblas")) set(1);
}
