/* src/datapath.h — where ccsim's shipped data lives: model profiles,
 * platform files, device files and datasets.
 *
 * One lookup order for every kind, so an installed ccsim and one run from
 * its build directory behave alike:
 *   1. the kind's own variable, when set (CCSIM_MODELS, CCSIM_PLATFORMS,
 *      CCSIM_DEVICES, CCSIM_DATASETS, CCSIM_LINKS): that directory and nothing else;
 *   2. the installation: DATADIR/ccsim next to the binary (found from
 *      /proc/self/exe, so an installed tree may be moved as a whole);
 *   3. $CCSIM_DATA (a directory laid out as the installation, or a source tree);
 *   4. the source tree, only when the binary runs from its build directory. */
#ifndef CCSIM_DATAPATH_H
#define CCSIM_DATAPATH_H

#include <stddef.h>

typedef enum data_kind { DATA_MODELS, DATA_PLATFORMS, DATA_DEVICES, DATA_DATASETS, DATA_LINKS } data_kind;

/* The first existing directory for kind, in the order above, into out[n];
 * returns 0, or -1 with out holding what was tried (for a message). */
int datapath_dir(data_kind kind, char *out, size_t n);

/* The file `name` of kind (e.g. DATA_DATASETS, "digits.csv.gz"): the first
 * directory in the order above that has it, into out[n]; returns 0, or -1
 * with out holding the directories tried. */
int datapath_file(data_kind kind, const char *name, char *out, size_t n);

/* A path written as in the source tree ("workloads/data/digits.csv.gz",
 * "workloads/models/x.json", "platforms/a.xml", "devices/d.json"): its kind
 * and the name inside that kind's directory; returns -1 when rel names no
 * shipped data directory. */
int datapath_classify(const char *rel, data_kind *kind, const char **name);

/* The names of the ".json" files in dir (without ".json"), sorted; *n receives
 * how many.  A new array of new strings (datapath_names_free), or NULL with
 * *n = 0 when dir cannot be read or holds none. */
char **datapath_json_names(const char *dir, size_t *n);
void datapath_names_free(char **names, size_t n);

#endif
