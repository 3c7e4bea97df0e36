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
	uint32_t *slots = xcalloc(ns, sizeof *slots);
	for (uint32_t i = 0; i < m->count; i++) {
		uint32_t j = m->keys[i].hash & (ns - 1);
		while (slots[j]) j = (j + 1) & (ns - 1);
		slots[j] = i + 1;
	}
	free(m->slots);
	m->slots = slots;
	m->nslots = ns;
}

int64_t strmap_find(const strmap *m, const void *key, size_t len)
{
	if (!m->nslots) return -1;
	uint32_t h = (uint32_t)hash_bytes(key, len);
	for (uint32_t j = h & (m->nslots - 1);; j = (j + 1) & (m->nslots - 1)) {
		uint32_t s = m->slots[j];
		if (!s) return -1;
		const struct strmap_key *k = &m->keys[s - 1];
		if (k->hash == h && k->n == len && memcmp(k->p, key, len) == 0) return s - 1;
	}
}

uint32_t strmap_intern(strmap *m, const void *key, size_t len, bool *added)
{
	if ((uint64_t)(m->count + 1) * 4 > (uint64_t)m->nslots * 3) rehash(m);
	uint32_t h = (uint32_t)hash_bytes(key, len);
	uint32_t j = h & (m->nslots - 1);
	for (;; j = (j + 1) & (m->nslots - 1)) {
		uint32_t s = m->slots[j];
		if (!s) break;
		const struct strmap_key *k = &m->keys[s - 1];
		if (k->hash == h && k->n == len && memcmp(k->p, key, len) == 0) {
			if (added) *added = false;
			return s - 1;
		}
	}
	if (len > UINT32_MAX) die(EXIT_DATA, "key too long");
	struct strmap_key *k = VEC_PUSH(m->keys, m->count, m->cap);
	k->p = arena_strdup(&m->mem, key, len);
	k->n = (uint32_t)len;
	k->hash = h;
	m->slots[j] = m->count;
	if (added) *added = true;
	return m->count - 1;
}
