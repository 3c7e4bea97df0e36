/* strmap.h - string interning: a growable open-addressing hash table from
 * byte strings to dense indices 0..count-1, keys copied once into an arena.
 * Used for every id -> record dictionary and for interned names.  Each slot
 * holds the key's hash next to its index, so that a probe that misses costs
 * no trip to the key itself. */
#ifndef SPAA_STRMAP_H
#define SPAA_STRMAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "util.h"

typedef struct strmap_slot { uint32_t hash, idx; /* idx: index+1, 0 = empty */ } strmap_slot;

typedef struct strmap {
	strmap_slot *slots;
	uint32_t nslots;   /* power of two */
	uint32_t count, cap;
	struct strmap_key { const char *p; uint32_t n; } *keys;
	arena mem;
} strmap;

void strmap_init(strmap *m);
void strmap_free(strmap *m);
/* Index of key, adding it if absent (*added tells which; may be NULL). */
uint32_t strmap_intern(strmap *m, const void *key, size_t len, bool *added);
/* Index of key or -1. */
int64_t strmap_find(const strmap *m, const void *key, size_t len);
/* The key with index i (NUL-terminated copy). */
static inline const char *strmap_key(const strmap *m, uint32_t i, size_t *len)
{
	if (len) *len = m->keys[i].n;
	return m->keys[i].p;
}

/* The table hash (not the stack identity hash): fast, 64-bit. */
uint64_t hash_bytes(const void *p, size_t n);

#endif
