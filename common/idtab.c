/* idtab.c - open addressing, linear probing, keys inline in the slots. */
#include "idtab.h"

#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "strmap.h"

void idtab_init(idtab *t)
{
	memset(t, 0, sizeof *t);
}

void idtab_free(idtab *t)
{
	free(t->slots);
	arena_free(&t->mem);
	memset(t, 0, sizeof *t);
}

static const char *slot_key(const idtab_slot *s)
{
	if (s->len <= IDTAB_INLINE) return s->key;
	const char *p;
	memcpy(&p, s->key, sizeof p);
	return p;
}

static bool same(const idtab_slot *s, uint32_t h, const void *key, size_t len)
{
	return s->hash == h && s->len == len && memcmp(slot_key(s), key, len) == 0;
}

int64_t idtab_find(const idtab *t, const void *key, size_t len)
{
	if (!t->nslots) return -1;
	uint64_t h = hash_bytes(key, len);
	uint32_t hh = (uint32_t)(h >> 32), mask = t->nslots - 1;
	for (uint32_t j = (uint32_t)h & mask;; j = (j + 1) & mask) {
		const idtab_slot *s = &t->slots[j];
		if (!s->val) return -1;
		if (same(s, hh, key, len)) return (int64_t)s->val - 1;
	}
}

static void grow(idtab *t)
{
	uint32_t ns = t->nslots ? t->nslots * 2 : 256;
	if (ns == 0) die(EXIT_DATA, "too many ids");
	idtab_slot *slots = xcalloc(ns, sizeof *slots);
	for (uint32_t i = 0; i < t->nslots; i++) {
		const idtab_slot *s = &t->slots[i];
		if (!s->val) continue;
		uint64_t h = hash_bytes(slot_key(s), s->len);
		uint32_t j = (uint32_t)h & (ns - 1);
		while (slots[j].val) j = (j + 1) & (ns - 1);
		slots[j] = *s;
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = ns;
}

uint32_t idtab_intern(idtab *t, const void *key, size_t len, bool *added)
{
	if ((uint64_t)(t->count + 1) * 2 > t->nslots) grow(t);
	uint64_t h = hash_bytes(key, len);
	uint32_t hh = (uint32_t)(h >> 32), mask = t->nslots - 1;
	uint32_t j = (uint32_t)h & mask;
	for (;; j = (j + 1) & mask) {
		idtab_slot *s = &t->slots[j];
		if (!s->val) break;
		if (same(s, hh, key, len)) {
			if (added) *added = false;
			return s->val - 1;
		}
	}
	if (len > UINT32_MAX - 1) die(EXIT_DATA, "id too long");
	idtab_slot *s = &t->slots[j];
	s->hash = hh;
	s->len = (uint32_t)len;
	if (len <= IDTAB_INLINE) {
		memcpy(s->key, key, len);
	} else {
		char *p = arena_strdup(&t->mem, key, len);
		memcpy(s->key, &p, sizeof p);
	}
	s->val = ++t->count;
	if (added) *added = true;
	return s->val - 1;
}
