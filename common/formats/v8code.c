/* v8code.c - see v8code.h.  A treap: split and merge by start address,
 * random priorities (xorshift, fixed seed: runs are reproducible); freed
 * nodes are reused. */
#include <stdlib.h>
#include "v8code.h"
#include "util.h"

void v8code_init(v8code *m)
{
	*m = (v8code){ .seed = 2463534242u };
}

void v8code_free(v8code *m)
{
	free(m->n);
	*m = (v8code){ 0 };
}

static uint32_t rnd(v8code *m)
{
	m->seed ^= m->seed << 13;
	m->seed ^= m->seed >> 17;
	m->seed ^= m->seed << 5;
	return m->seed;
}

static uint32_t node_new(v8code *m, uint64_t start, uint64_t size)
{
	uint32_t i;
	if (m->freel) {
		i = m->freel;
		m->freel = m->n[i].l;
	} else {
		if (!m->nn) VEC_PUSH(m->n, m->nn, m->cap)->start = 0;
		i = m->nn;
		VEC_PUSH(m->n, m->nn, m->cap);
	}
	m->n[i] = (v8code_ent){ .start = start, .size = size, .prio = rnd(m) | 1 };
	m->live++;
	return i;
}

static void node_free(v8code *m, uint32_t i)
{
	m->n[i].l = m->freel;
	m->freel = i;
	m->live--;
}

/* t into starts < key and starts >= key */
static void split(v8code *m, uint32_t t, uint64_t key, uint32_t *a, uint32_t *b)
{
	while (t) {
		if (m->n[t].start < key) {
			*a = t;
			a = &m->n[t].r;
			t = m->n[t].r;
		} else {
			*b = t;
			b = &m->n[t].l;
			t = m->n[t].l;
		}
	}
	*a = *b = 0;
}

static uint32_t merge(v8code *m, uint32_t a, uint32_t b)
{
	uint32_t root = 0, *at = &root;
	while (a && b) {
		if (m->n[a].prio > m->n[b].prio) {
			*at = a;
			at = &m->n[a].r;
			a = m->n[a].r;
		} else {
			*at = b;
			at = &m->n[b].l;
			b = m->n[b].l;
		}
	}
	*at = a ? a : b;
	return root;
}

/* the node with the greatest start <= addr, 0 when none */
static uint32_t find_le(const v8code *m, uint64_t addr)
{
	uint32_t t = m->root, best = 0;
	while (t) {
		if (m->n[t].start <= addr) {
			best = t;
			t = m->n[t].r;
		} else {
			t = m->n[t].l;
		}
	}
	return best;
}

/* Takes the node that starts at start out of the tree (not freed). */
static uint32_t detach(v8code *m, uint64_t start)
{
	uint32_t a, b, mid, c = 0;
	split(m, m->root, start, &a, &b);
	if (start == UINT64_MAX) mid = b;
	else split(m, b, start + 1, &mid, &c);
	m->root = merge(m, a, c);
	if (mid) m->n[mid].l = m->n[mid].r = 0;
	return mid;
}

static void insert(v8code *m, uint32_t i)
{
	uint32_t a, b;
	split(m, m->root, m->n[i].start, &a, &b);
	m->root = merge(m, merge(m, a, i), b);
}

static uint64_t end_of(uint64_t start, uint64_t size)
{
	return start + size < start ? UINT64_MAX : start + size;
}

/* Removes the ranges that overlap [start, end), and one at start. */
static void clear(v8code *m, uint64_t start, uint64_t size)
{
	uint64_t end = end_of(start, size);
	uint32_t t = detach(m, start);
	if (t) node_free(m, t);
	if (end == start) return;
	uint64_t addr = end - 1;
	for (;;) {
		t = find_le(m, addr);
		if (!t) break;
		uint64_t s = m->n[t].start;
		if (end_of(s, m->n[t].size) > start) node_free(m, detach(m, s));
		/* as V8 does: down to the first range from before start (ranges
		 * of code do not nest) */
		if (s <= start) break;
		addr = s - 1;
	}
}

void v8code_add(v8code *m, uint64_t start, uint64_t size, uint8_t tag, uint32_t val)
{
	clear(m, start, size);
	uint32_t i = node_new(m, start, size);
	m->n[i].tag = tag;
	m->n[i].val = val;
	insert(m, i);
}

const v8code_ent *v8code_find(const v8code *m, uint64_t addr)
{
	uint32_t t = find_le(m, addr);
	return t && addr - m->n[t].start < m->n[t].size ? &m->n[t] : NULL;
}

const v8code_ent *v8code_at(const v8code *m, uint64_t start)
{
	uint32_t t = find_le(m, start);
	return t && m->n[t].start == start ? &m->n[t] : NULL;
}

bool v8code_move(v8code *m, uint64_t from, uint64_t to)
{
	uint32_t i = detach(m, from);
	if (!i) return false;
	clear(m, to, m->n[i].size);
	m->n[i].start = to;
	insert(m, i);
	return true;
}

bool v8code_delete(v8code *m, uint64_t start)
{
	uint32_t t = detach(m, start);
	if (t) node_free(m, t);
	return t != 0;
}
