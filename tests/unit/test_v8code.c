/* test_v8code.c - the code map of V8 tick logs (common/formats/v8code.c) against a
 * plain sorted array doing the same, under random additions, moves and
 * deletions, and a few cases written out. */
#include <stdlib.h>
#include "tap.h"
#include "v8code.h"

/* the model: ranges sorted by start, changed as V8's codemap.mjs does */
struct r { uint64_t start, size; uint32_t val; };
static struct r M[4096];
static int nm;

static int m_le(uint64_t addr) /* index of the greatest start <= addr, -1 */
{
	int best = -1;
	for (int i = 0; i < nm && M[i].start <= addr; i++) best = i;
	return best;
}
static void m_remove(int i) { memmove(M + i, M + i + 1, (size_t)(nm - i - 1) * sizeof *M); nm--; }
static void m_clear(uint64_t start, uint64_t size)
{
	for (int i = 0; i < nm; i++)
		if (M[i].start == start) { m_remove(i); break; }
	if (!size) return;
	uint64_t end = start + size, addr = end - 1;
	for (;;) {
		int i = m_le(addr);
		if (i < 0) break;
		uint64_t s = M[i].start;
		if (s + M[i].size > start) m_remove(i);
		if (s <= start) break;
		addr = s - 1;
	}
}
static void m_insert(struct r x)
{
	int i = 0;
	while (i < nm && M[i].start < x.start) i++;
	memmove(M + i + 1, M + i, (size_t)(nm - i) * sizeof *M);
	M[i] = x;
	nm++;
}
static const struct r *m_find(uint64_t addr)
{
	int i = m_le(addr);
	return i >= 0 && addr - M[i].start < M[i].size ? &M[i] : NULL;
}

int main(void)
{
	v8code m;
	v8code_init(&m);
	/* written out */
	v8code_add(&m, 0x1000, 0x100, 1, 10);
	v8code_add(&m, 0x2000, 0x100, 2, 20);
	ok(v8code_find(&m, 0x10ff) && v8code_find(&m, 0x10ff)->val == 10, "inside the first range");
	ok(!v8code_find(&m, 0x1100), "just past it");
	ok(!v8code_find(&m, 0xfff), "just before it");
	ok(v8code_move(&m, 0x1000, 0x3000), "a move");
	ok(!v8code_find(&m, 0x1000) && v8code_find(&m, 0x3010)->val == 10, "the code is at its new place");
	ok(!v8code_move(&m, 0x1000, 0x5000), "no code to move");
	v8code_add(&m, 0x2080, 0x100, 3, 30); /* overlaps the second: it goes */
	ok(!v8code_find(&m, 0x2000) && v8code_find(&m, 0x2100)->val == 30, "an overlapping range replaces");
	ok(v8code_delete(&m, 0x2080) && !v8code_delete(&m, 0x2080), "a deletion, once");
	is_int(v8code_count(&m), 1, "one range left");
	v8code_add(&m, UINT64_MAX - 0xf, 0x100, 4, 40); /* reaches the end of the space */
	ok(v8code_find(&m, UINT64_MAX) && v8code_find(&m, UINT64_MAX)->val == 40, "a range at the top of the space");
	ok(v8code_at(&m, 0x3000) && !v8code_at(&m, 0x3001), "v8code_at: the start only");
	v8code_free(&m);

	/* random, against the model */
	v8code_init(&m);
	srand(7);
	int bad = 0;
	for (int k = 0; k < 200000 && !bad; k++) {
		int op = rand() % 10;
		uint64_t a = (uint64_t)(rand() % 4000) * 16, sz = (uint64_t)(rand() % 20) * 16;
		if (op < 5 && nm < 4000) {
			m_clear(a, sz);
			m_insert((struct r){ a, sz, (uint32_t)k });
			v8code_add(&m, a, sz, 0, (uint32_t)k);
		} else if (op < 7 && nm) {
			int i = rand() % nm;
			struct r x = M[i];
			uint64_t from = x.start;
			m_remove(i);
			m_clear(a, x.size);
			x.start = a;
			m_insert(x);
			if (!v8code_move(&m, from, a)) bad = 4;
		} else if (nm) {
			int i = rand() % nm;
			uint64_t s = M[i].start;
			m_remove(i);
			if (!v8code_delete(&m, s)) bad = 1;
		}
		if (bad) break;
		if (v8code_count(&m) != (uint32_t)nm) bad = 2;
		for (int j = 0; j < 8 && !bad; j++) {
			uint64_t q = (uint64_t)(rand() % 64400);
			const struct r *want = m_find(q);
			const v8code_ent *got = v8code_find(&m, q);
			if (!want != !got || (want && (got->val != want->val || got->start != want->start))) bad = 3;
		}
	}
	is_int(bad, 0, "200000 random changes: the same answers as the model");
	v8code_free(&m);
	return done_testing();
}
