/* src/data/source_registry.c — the one table of gradient sources: what
 * "gradients": {"source": NAME} selects and what `ccsim list sources`
 * prints.  A new source is its file (exporting a grad_source_type) plus its
 * line here (docs/extending.md). */
#include <string.h>

#include "data/source.h"

extern const grad_source_type gsrc_synthetic, gsrc_trace, gsrc_train, gsrc_sparse;

const grad_source_type *const grad_sources[] = {&gsrc_synthetic, &gsrc_trace, &gsrc_train, &gsrc_sparse,
                                                NULL};

const grad_source_type *grad_source_find(const char *name) {
  for (const grad_source_type *const *t = grad_sources; *t; t++)
    if (!strcmp((*t)->name, name)) return *t;
  return NULL;
}
