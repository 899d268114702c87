/* src/lanepool.h — per-lane pools for the data plane's short-lived
 * blocks: payloads with their wire bytes, their float64 shadows, bundles,
 * compressor inputs and the mailboxes' message nodes.
 *
 * A ring step makes and frees a few such blocks per worker, millions an
 * iteration, of the few sizes a run's chunks have.  Each lane (a system
 * thread of the data executor, exec.h) keeps the blocks freed on it in
 * free lists by size class (four classes per power of two, 64 B to 1 MiB)
 * and hands them out again without a lock; a block freed on another lane
 * than the one that made it joins that lane's lists.  A lane keeps at most
 * LANEPOOL_KEEP bytes; beyond it, and for blocks above 1 MiB, blocks go
 * back to malloc.  A lane's blocks are returned when its thread ends.
 * Under AddressSanitizer every call is a plain malloc or free, so that a
 * block used after its free is still caught.
 *
 * Contents are undefined (not zeroed); alignment is 16 bytes. */
#ifndef CCSIM_LANEPOOL_H
#define CCSIM_LANEPOOL_H

#include <stddef.h>

#define LANEPOOL_KEEP ((size_t)32 << 20)

/* A block of at least `bytes` bytes, or NULL when out of memory. */
void *lanepool_alloc(size_t bytes);
/* Give back a block of lanepool_alloc (NULL: nothing), on any lane. */
void lanepool_free(void *p);
/* Bytes the calling thread's lists hold (for tests). */
size_t lanepool_kept(void);

#endif
