/* compressors/rng.h — the in-tree name of <ccomp/rng.h> (compressors/ccomp/),
 * kept for code written before libccomp's headers were namespaced; new code
 * includes "ccomp/rng.h" as an installed program includes <ccomp/rng.h>. */
#include "ccomp/rng.h"
