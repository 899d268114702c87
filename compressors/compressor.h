/* compressors/compressor.h — the in-tree name of <ccomp/compressor.h> (compressors/ccomp/),
 * kept for code written before libccomp's headers were namespaced; new code
 * includes "ccomp/compressor.h" as an installed program includes <ccomp/compressor.h>. */
#include "ccomp/compressor.h"
