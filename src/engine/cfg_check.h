/* src/engine/cfg_check.h — the user's --cfg items checked against SimGrid's
 * own configuration before anything runs (cfg_check.cpp).
 *
 * SimGrid 3.32 answers an unknown key or a bad value by throwing a C++
 * exception nobody catches ("Uncaught exception std::out_of_range: Bad
 * config key: foo") or by aborting.  A forked child starts SimGrid's
 * configuration and sets each item inside a try; the parent turns the first
 * refusal into one ccsim line naming the option as the user wrote it:
 *
 *   --cfg foo:1: SimGrid has no configuration option "foo" (did you mean ...?)
 *   --cfg maxmin/precision:abc: SimGrid refuses the value "abc": invalid double */
#ifndef CCSIM_ENGINE_CFG_CHECK_H
#define CCSIM_ENGINE_CFG_CHECK_H

#ifdef __cplusplus
extern "C" {
#endif

#include "error.h" /* C declarations, C linkage */

/* Check every "--cfg=KEY:VALUE" of cfg[0 .. ncfg) ("--log=" items are
 * skipped).  0, or CCSIM_ERR_INPUT with err naming the first refused item. */
int engine_cfg_check(char *const *cfg, int ncfg, ccsim_error *err);

#ifdef __cplusplus
}
#endif

#endif
