/* compressors/memory.h — the in-tree name of <ccomp/memory.h> (compressors/ccomp/),
 * kept for code written before libccomp's headers were namespaced; new code
 * includes "ccomp/memory.h" as an installed program includes <ccomp/memory.h>. */
#include "ccomp/memory.h"
