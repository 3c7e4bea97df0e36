/* idmap.c - integer ids to dense indexes (see idmap.h). */
#include <stdlib.h>
#include "idmap.h"
#include "util.h"

static inline uint32_t slot_of(int64_t id, uint32_t mask)
{
	uint64_t h = (uint64_t)id * UINT64_C(0x9E3779B97F4A7C15);
	return (uint32_t)(h >> 32) & mask;
}

uint32_t idmap_get(const idmap *m, int64_t id)
{
	if (!m->cap) return UINT32_MAX;
	uint32_t mask = m->cap - 1;
	for (uint32_t i = slot_of(id, mask);; i = (i + 1) & mask) {
		if (m->vals[i] == UINT32_MAX) return UINT32_MAX;
		if (m->keys[i] == id) return m->vals[i];
	}
}

void idmap_prefetch(const idmap *m, int64_t id)
{
	if (!m->cap) return;
	uint32_t i = slot_of(id, m->cap - 1);
	__builtin_prefetch(&m->keys[i]);
	__builtin_prefetch(&m->vals[i]);
}

static void grow(idmap *m)
{
	uint32_t ncap = m->cap ? m->cap * 2 : 64;
	if (ncap < m->cap) abort();
	int64_t *k = xmalloc_table((size_t)ncap * sizeof *k);
	uint32_t *v = xmalloc_table((size_t)ncap * sizeof *v);
	for (uint32_t i = 0; i < ncap; i++) v[i] = UINT32_MAX;
	for (uint32_t i = 0; i < m->cap; i++) {
		if (m->vals[i] == UINT32_MAX) continue;
		uint32_t j = slot_of(m->keys[i], ncap - 1);
		while (v[j] != UINT32_MAX) j = (j + 1) & (ncap - 1);
		k[j] = m->keys[i];
		v[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = k;
	m->vals = v;
	m->cap = ncap;
}

uint32_t idmap_put(idmap *m, int64_t id, uint32_t val, bool *added)
{
	if ((uint64_t)(m->n + 1) * 2 > m->cap) grow(m);
	uint32_t mask = m->cap - 1;
	uint32_t i = slot_of(id, mask);
	for (; m->vals[i] != UINT32_MAX; i = (i + 1) & mask)
		if (m->keys[i] == id) {
			if (added) *added = false;
			return m->vals[i];
		}
	m->keys[i] = id;
	m->vals[i] = val;
	m->n++;
	if (added) *added = true;
	return val;
}

void idmap_free(idmap *m)
{
	free(m->keys);
	free(m->vals);
	*m = (idmap){ 0 };
}
