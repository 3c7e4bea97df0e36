/* idmap.h - a hash map from 64-bit integer ids (profile node ids, object
 * ids) to dense 32-bit indexes.  Open addressing; memory grows with the
 * number of ids. */
#ifndef SPAA_IDMAP_H
#define SPAA_IDMAP_H

#include <stdbool.h>
#include <stdint.h>

typedef struct idmap {
	int64_t *keys;
	uint32_t *vals;
	uint32_t cap, n; /* cap: a power of two, or 0 */
} idmap;

/* The index of id, or UINT32_MAX when absent. */
uint32_t idmap_get(const idmap *m, int64_t id);
/* The index of id; when absent, adds it with index val and sets *added. */
uint32_t idmap_put(idmap *m, int64_t id, uint32_t val, bool *added);
/* Brings id's slot into the cache (lookups made in batches). */
void idmap_prefetch(const idmap *m, int64_t id);
void idmap_free(idmap *m);

#endif
