/* test_fnvmemo.c - chains of memoised strings (fnvmemo.h) hash as the plain
 * loop (stackid.h) does: from every low byte of the starting state, before
 * and after the strings have their tables, for strings of many lengths
 * (empty ones too) and chains longer than the pieces it takes at a time;
 * several chains hashed side by side (fnvmemo_chains) likewise. */
#include <stdint.h>
#include <stdlib.h>

#include "fnvmemo.h"
#include "stackid.h"
#include "tap.h"

/* A fixed sequence of pseudo-random 64-bit values. */
static uint64_t x = 0x9e3779b97f4a7c15ULL;
static uint64_t next_rand(void) { return rand64(&x); }

enum { NSTR = 40, MAXLEN = 300 };
static unsigned char bytes[NSTR][MAXLEN];
static size_t len[NSTR];
static fnvmemo *memo[NSTR];

/* A chain of k random strings from h, both ways; true if they agree. */
static bool chain_agrees(uint64_t h, size_t k)
{
	fnvmemo *v[200];
	uint64_t want = h;
	for (size_t j = 0; j < k; j++) {
		size_t i = next_rand() % NSTR;
		v[j] = memo[i];
		want = fnv1a64(want, bytes[i], len[i]);
	}
	return fnvmemo_chain(h, v, k) == want;
}

int main(void)
{
	for (size_t i = 0; i < NSTR; i++) {
		len[i] = i < 3 ? i : next_rand() % MAXLEN; /* 0, 1, 2 and any */
		for (size_t b = 0; b < len[i]; b++) bytes[i][b] = (unsigned char)next_rand();
		memo[i] = fnvmemo_new(bytes[i], len[i]);
	}
	ok(chain_agrees(FNV64_BASIS, 0), "no strings: the state as it was");
	unsigned bad = 0;
	for (unsigned l = 0; l < 256; l++)
		bad += !chain_agrees((next_rand() & ~0xffULL) | l, 1 + next_rand() % 5);
	ok(bad == 0, "short chains from every low byte, the strings' tables made on the way (%u wrong)", bad);
	bool all = true;
	for (size_t i = 0; i < NSTR; i++) all &= memo[i]->uses == FNVMEMO_AFTER;
	ok(all, "every string has been hashed often enough to have its table");
	bad = 0;
	for (unsigned l = 0; l < 256; l++) bad += !chain_agrees((next_rand() & ~0xffULL) | l, 1 + next_rand() % 20);
	ok(bad == 0, "chains of up to 20 strings with tables, from every low byte (%u wrong)", bad);
	bad = 0;
	for (int t = 0; t < 50; t++) bad += !chain_agrees(next_rand(), 60 + next_rand() % 140);
	ok(bad == 0, "chains of 60 to 200 strings, longer than the pieces taken at a time (%u wrong)", bad);
	const char *f = "main\x1f/usr/bin/app\x1fp\x1e";
	fnvmemo *m = fnvmemo_new(f, strlen(f));
	uint64_t want = FNV64_BASIS, got = FNV64_BASIS;
	for (int k = 0; k < 2 * FNVMEMO_AFTER; k++) {
		want = fnv1a64(want, f, strlen(f));
		got = fnvmemo_chain(got, &m, 1);
	}
	ok(got == want, "one frame's path bytes chained from the offset basis, before and after its table");
	free(m);
	/* chains side by side: 1 to FNVMEMO_CHAINS of them, of 0 to 12
	 * strings (empty ones among them), each as the plain loop hashes it */
	bad = 0;
	for (int t = 0; t < 2000; t++) {
		fnvmemo *v[FNVMEMO_CHAINS * 12];
		size_t at[FNVMEMO_CHAINS], k[FNVMEMO_CHAINS], n = 0, nc = 1 + next_rand() % FNVMEMO_CHAINS;
		uint64_t h[FNVMEMO_CHAINS], want2[FNVMEMO_CHAINS];
		for (size_t c = 0; c < nc; c++) {
			at[c] = n;
			k[c] = next_rand() % 13;
			h[c] = want2[c] = next_rand();
			for (size_t j = 0; j < k[c]; j++) {
				size_t i = next_rand() % NSTR;
				v[n++] = memo[i];
				want2[c] = fnv1a64(want2[c], bytes[i], len[i]);
			}
		}
		fnvmemo_chains(h, v, at, k, nc);
		for (size_t c = 0; c < nc; c++) bad += h[c] != want2[c];
	}
	ok(bad == 0, "chains hashed side by side, each as the plain loop (%u wrong)", bad);
	for (size_t i = 0; i < NSTR; i++) free(memo[i]);
	return done_testing();
}
