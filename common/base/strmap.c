/* strmap.c - open-addressing string -> dense index map. */
#include "strmap.h"

#include <stdlib.h>
#include "cli.h"

uint64_t hash_bytes(const void *p, size_t n)
{
	/* 64-bit multiply-mix over 8-byte words; good enough for tables. */
	const unsigned char *s = p;
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ (n * 0xff51afd7ed558ccdULL);
	while (n >= 8) {
		uint64_t w;
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xbf58476d1ce4e5b9ULL;
		h ^= h >> 31;
		s += 8;
		n -= 8;
	}
	uint64_t w = 0;
	memcpy(&w, s, n);
	h = (h ^ w) * 0x94d049bb133111ebULL;
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 32;
	return h;
}

void strmap_init(strmap *m)
{
	memset(m, 0, sizeof *m);
}

void strmap_free(strmap *m)
{
	free(m->slots);
	free(m->keys);
	arena_free(&m->mem);
	memset(m, 0, sizeof *m);
}

static void rehash(strmap *m)
{
	uint32_t ns = m->nslots ? m->nslots * 2 : 64;
	/* written before it is read: calloc would hand over untouched pages,
	 * which the first probe maps to the zero page and the first store
	 * then faults in again, two faults a page instead of one */
	strmap_slot *slots = xmalloc_table((size_t)ns * sizeof *slots);
	memset(slots, 0, (size_t)ns * sizeof *slots);
	for (uint32_t i = 0; i < m->nslots; i++) {
		strmap_slot s = m->slots[i];
		if (!s.idx) continue;
		uint32_t j = s.hash & (ns - 1);
		while (slots[j].idx) j = (j + 1) & (ns - 1);
		slots[j] = s;
	}
	free(m->slots);
	m->slots = slots;
	m->nslots = ns;
}

static inline bool same_key(strmap_slot s, uint32_t h, const void *key, size_t len)
{
	if (s.hash != h) return false;
	uint32_t n;
	memcpy(&n, s.p - 4, 4);
	return n == len && memcmp(s.p, key, len) == 0;
}

int64_t strmap_find(const strmap *m, const void *key, size_t len)
{
	if (!key) key = ""; /* an empty key may come as NULL */
	if (!m->nslots) return -1;
	uint32_t h = (uint32_t)hash_bytes(key, len);
	for (uint32_t j = h & (m->nslots - 1);; j = (j + 1) & (m->nslots - 1)) {
		strmap_slot s = m->slots[j];
		if (!s.idx) return -1;
		if (same_key(s, h, key, len)) return s.idx - 1;
	}
}

uint32_t strmap_intern(strmap *m, const void *key, size_t len, bool *added)
{
	if (!key) key = "";
	return strmap_intern_h(m, key, len, strmap_hash(key, len), added);
}

uint32_t strmap_intern_h(strmap *m, const void *key, size_t len, uint32_t h, bool *added)
{
	if ((uint64_t)(m->count + 1) * 4 > (uint64_t)m->nslots * 3) rehash(m);
	uint32_t j = h & (m->nslots - 1);
	for (;; j = (j + 1) & (m->nslots - 1)) {
		strmap_slot s = m->slots[j];
		if (!s.idx) break;
		if (same_key(s, h, key, len)) {
			if (added) *added = false;
			return s.idx - 1;
		}
	}
	if (len > UINT32_MAX - 8) die_input("key too long");
	/* the length, then the bytes and a NUL */
	char *d = arena_alloc_aligned(&m->mem, len + 5, 4);
	uint32_t n = (uint32_t)len;
	memcpy(d, &n, 4);
	if (len) memcpy(d + 4, key, len);
	d[4 + len] = 0;
	struct strmap_key *k = VEC_PUSH(m->keys, m->count, m->cap);
	k->p = d + 4;
	k->n = n;
	m->slots[j] = (strmap_slot){ h, m->count, d + 4 };
	if (added) *added = true;
	return m->count - 1;
}
