/* idtab.h - a hash table from short byte strings (record ids such as stack
 * ids) to dense indices 0..count-1, built for lookups from many records:
 * keys of up to 20 bytes are stored in the slot itself, so that a lookup
 * usually costs one cache miss (strmap.h touches three or four).  Longer keys
 * are copied into an arena. */
#ifndef SPAA_IDTAB_H
#define SPAA_IDTAB_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "util.h"

#define IDTAB_INLINE 20

typedef struct idtab_slot {
	uint32_t hash;   /* high half of the 64-bit hash */
	uint32_t val;    /* index + 1; 0 = empty */
	uint32_t len;
	char key[IDTAB_INLINE]; /* the key, or a pointer to it when longer */
} idtab_slot;

typedef struct idtab {
	idtab_slot *slots;
	uint32_t nslots, count;
	arena mem;
} idtab;

void idtab_init(idtab *t);
void idtab_free(idtab *t);
/* Index of key, -1 if absent. */
int64_t idtab_find(const idtab *t, const void *key, size_t len);
/* Index of key, adding it (with the next index) if absent. */
uint32_t idtab_intern(idtab *t, const void *key, size_t len, bool *added);

#endif
