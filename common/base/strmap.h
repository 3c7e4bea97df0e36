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

/* A slot holds the key's hash, its index and where its bytes are (their
 * length in the 4 bytes before them), so that a lookup reads the slot and
 * the key's bytes and nothing else. */
typedef struct strmap_slot {
	uint32_t hash, idx; /* idx: index+1, 0 = empty */
	const char *p;
} strmap_slot;

typedef struct strmap {
	strmap_slot *slots;
	uint32_t nslots;   /* power of two */
	uint32_t count, cap;
	struct strmap_key { const char *p; uint32_t n; } *keys;
	arena mem;
} strmap;

/* The table hash (not the stack identity hash): fast, 64-bit. */
uint64_t hash_bytes(const void *p, size_t n);

void strmap_init(strmap *m);
void strmap_free(strmap *m);
/* Index of key, adding it if absent (*added tells which; may be NULL). */
uint32_t strmap_intern(strmap *m, const void *key, size_t len, bool *added);
/* Index of key or -1. */
int64_t strmap_find(const strmap *m, const void *key, size_t len);

/* For lookups made in batches: the hash strmap_intern_h takes, and
 * prefetches that bring a key's slot, then (once the slot is in) its
 * bytes into the cache, so that the lookups of a batch wait for memory
 * together rather than one after another. */
static inline uint32_t strmap_hash(const void *key, size_t len)
{
	return (uint32_t)hash_bytes(key, len);
}
static inline void strmap_prefetch(const strmap *m, uint32_t h)
{
	if (m->nslots) __builtin_prefetch(&m->slots[h & (m->nslots - 1)]);
}
static inline void strmap_prefetch_key(const strmap *m, uint32_t h)
{
	if (!m->nslots) return;
	const strmap_slot *s = &m->slots[h & (m->nslots - 1)];
	if (s->idx && s->hash == h) __builtin_prefetch(s->p);
}
/* strmap_intern of a key whose strmap_hash is h. */
uint32_t strmap_intern_h(strmap *m, const void *key, size_t len, uint32_t h, bool *added);
/* The key with index i (NUL-terminated copy). */
static inline const char *strmap_key(const strmap *m, uint32_t i, size_t *len)
{
	if (len) *len = m->keys[i].n;
	return m->keys[i].p;
}

#endif
