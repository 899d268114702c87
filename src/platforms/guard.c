/* src/platforms/guard.c — the checks of guard.h, in order. */
#include "platforms/guard.h"

#include "engine/engine.h"
#include "platform.h"
#include "platforms/check.h"

static void print_generated(FILE *f, const void *e) { platform_print(f, e); }

/* Control characters (a host name may hold a newline) would break the one
 * line of the message. */
static void one_line(ccsim_error *err) {
  if (!err) return;
  for (char *c = err->msg; *c; c++)
    if ((unsigned char)*c < 0x20) *c = ' ';
}

int platform_guard(const experiment *e, char *const *cfg, int ncfg, const char *path, ccsim_error *err) {
  int rc;
  /* the platform file's own fault (unreadable, not XML, a bad value), named
   * where the experiment names it */
  ccsim_error why = {0};
  if (e->platform.file && (rc = platform_check_file(e->platform.file, &why))) {
    ccsim_fail_at(err, rc, e->file, "platform.file", 0, 0, "%s%s", why.msg,
                  why.line ? "" : "; expected a readable SimGrid platform XML file");
    return one_line(err), rc;
  }
  char cfg_source[512];
  snprintf(cfg_source, sizeof cfg_source, "%s: platform.network_model \"%s\" with the --cfg flags", e->file,
           e->platform.network_model);
  const engine_probe_args a = {
      .file = path,
      .print = print_generated,
      .ctx = e,
      .name = e->platform.file ? e->platform.file : path ? path : e->file,
      .cfg_source = cfg_source,
      .network_model = e->platform.network_model,
      .crosstraffic = e->platform.crosstraffic,
      .cfg = cfg,
      .ncfg = ncfg,
      .workers = (size_t)e->workers,
  };
  rc = engine_probe(&a, err);
  one_line(err);
  return rc;
}
