/* fnvmemo.c - FNV-1a 64 over chains of memoised strings (see fnvmemo.h). */
#include "fnvmemo.h"

#include <string.h>
#include "stackid.h"
#include "util.h"

fnvmemo *fnvmemo_alloc(size_t n)
{
	fnvmemo *m = xmalloc(sizeof *m + n);
	/* P^n by squaring */
	uint64_t pn = 1, b = FNV64_PRIME;
	for (size_t e = n; e; e >>= 1, b *= b)
		if (e & 1) pn *= b;
	m->pn = pn;
	m->n = (uint32_t)n;
	m->uses = 0;
	m->next = NULL;
	return m;
}

fnvmemo *fnvmemo_new(const void *p, size_t n)
{
	fnvmemo *m = fnvmemo_alloc(n);
	memcpy(m->s, p, n);
	return m;
}

/* next[l]: the low byte of fnv1a64(l, s), for the 256 l at once (the low
 * byte of a product depends on the low bytes of its factors alone). */
static uint8_t (*tables)[256];  /* the current block of tables */
static uint32_t ntables;
static uint8_t (**blocks)[256];  /* every block, so that they stay reachable */
static uint32_t nblocks, blockcap;
enum { TABLES_PER_BLOCK = 1024 };

static void build_next(fnvmemo *m)
{
	if (!tables || ntables == TABLES_PER_BLOCK) {
		tables = xmalloc(TABLES_PER_BLOCK * sizeof *tables);
		*VEC_PUSH(blocks, nblocks, blockcap) = tables;
		ntables = 0;
	}
	m->next = tables[ntables++];
	uint16_t t[256];
	for (unsigned l = 0; l < 256; l++) t[l] = (uint16_t)l;
	for (uint32_t i = 0; i < m->n; i++) {
		unsigned b = m->s[i];
		for (unsigned l = 0; l < 256; l++) t[l] = (uint16_t)(((t[l] ^ b) * (unsigned)(FNV64_PRIME & 0xff)) & 0xff);
	}
	for (unsigned l = 0; l < 256; l++) m->next[l] = (uint8_t)t[l];
}

/* Strings hashed side by side. */
#define LANES 6
/* Strings of a chain taken at a time. */
#define CHUNK 64

/* g[j] = fnv1a64(lin[j], v[j]) for the j in job[0..nj): LANES strings at
 * a time, in step for as many bytes as the shortest has left; a lane that
 * ends takes the next string.  Idle lanes (when fewer strings are left)
 * hash the bytes of lane 0 again, and their results are dropped. */
static void run_lanes(fnvmemo *const *v, const uint8_t *lin, uint64_t *g, const uint8_t *job, size_t nj)
{
	uint64_t h[LANES];
	const unsigned char *p[LANES];
	uint32_t rem[LANES];
	uint8_t who[LANES];
	size_t next = 0;
	unsigned busy = 0;
	for (;;) {
		while (busy < LANES && next < nj) {
			uint8_t j = job[next++];
			h[busy] = lin[j];
			p[busy] = v[j]->s;
			rem[busy] = v[j]->n;
			who[busy] = j;
			if (rem[busy]) busy++;
			else g[j] = lin[j];
		}
		if (!busy) break;
		uint32_t step = rem[0];
		for (unsigned k = 1; k < busy; k++)
			if (rem[k] < step) step = rem[k];
		for (unsigned k = busy; k < LANES; k++) p[k] = p[0];
		for (uint32_t i = 0; i < step; i++) {
#pragma GCC unroll 16
			for (unsigned k = 0; k < LANES; k++) h[k] = (h[k] ^ p[k][i]) * FNV64_PRIME;
		}
		/* the lanes that ended out, the others packed to the front */
		unsigned left = 0;
		for (unsigned k = 0; k < busy; k++) {
			if (rem[k] == step) {
				g[who[k]] = h[k];
				continue;
			}
			h[left] = h[k];
			p[left] = p[k] + step;
			rem[left] = rem[k] - step;
			who[left] = who[k];
			left++;
		}
		busy = left;
	}
}

uint64_t fnvmemo_chain(uint64_t h, fnvmemo *const *v, size_t k)
{
	for (size_t at = 0; at < k; at += CHUNK) {
		fnvmemo *const *w = v + at;
		size_t c = k - at < CHUNK ? k - at : CHUNK;
		uint8_t lin[CHUNK], job[CHUNK];
		uint64_t g[CHUNK];
		size_t nj = 0;
		/* the tables asked for all at once: the look-ups below wait
		 * on each other */
		for (size_t j = 0; j < c; j++)
			if (w[j]->next)
				for (unsigned q = 0; q < 256; q += 64) __builtin_prefetch(w[j]->next + q);
		/* the low byte entering each string; the hash from it of the
		 * strings without a table yet, in turn */
		unsigned l = h & 0xff;
		for (size_t j = 0; j < c; j++) {
			fnvmemo *m = w[j];
			lin[j] = (uint8_t)l;
			if (m->uses < FNVMEMO_AFTER && ++m->uses == FNVMEMO_AFTER) build_next(m);
			if (m->uses == FNVMEMO_AFTER) {
				job[nj++] = (uint8_t)j;
				l = m->next[l];
			} else {
				g[j] = fnv1a64(l, m->s, m->n);
				l = g[j] & 0xff;
			}
		}
		run_lanes(w, lin, g, job, nj);
		/* joined: fnv1a64(h, s) = fnv1a64(h & 0xff, s) + (h - (h & 0xff)) * P^n */
		for (size_t j = 0; j < c; j++) h = g[j] + (h - lin[j]) * w[j]->pn;
	}
	return h;
}

void fnvmemo_chains(uint64_t *h, fnvmemo *const *v, const size_t *at, const size_t *k, size_t nc)
{
	enum { L = FNVMEMO_CHAINS };
	uint64_t x[L];
	const unsigned char *p[L];
	uint32_t rem[L];
	size_t next[L], end[L];
	unsigned busy = 0; /* lanes 0 .. busy - 1 run; the others hash lane 0's bytes again, dropped */
	uint8_t who[L];
	for (size_t c = 0; c < nc && c < L; c++) {
		x[busy] = h[c];
		next[busy] = at[c];
		end[busy] = at[c] + k[c];
		rem[busy] = 0;
		who[busy] = (uint8_t)c;
		busy++;
	}
	for (;;) {
		/* each lane onto its next string with bytes; a chain at its
		 * end gives its lane up */
		for (unsigned q = 0; q < busy;) {
			while (rem[q] == 0 && next[q] < end[q]) {
				p[q] = v[next[q]]->s;
				rem[q] = v[next[q]]->n;
				next[q]++;
			}
			if (rem[q]) {
				q++;
				continue;
			}
			h[who[q]] = x[q];
			busy--;
			x[q] = x[busy];
			p[q] = p[busy];
			rem[q] = rem[busy];
			next[q] = next[busy];
			end[q] = end[busy];
			who[q] = who[busy];
		}
		if (!busy) break;
		uint32_t step = rem[0];
		for (unsigned q = 1; q < busy; q++)
			if (rem[q] < step) step = rem[q];
		if (busy == 1) { /* alone: no lanes to keep in step */
			x[0] = fnv1a64(x[0], p[0], step);
		} else {
			const unsigned char *pp[L];
			uint64_t y[L];
			for (unsigned q = 0; q < L; q++) {
				pp[q] = q < busy ? p[q] : p[0];
				y[q] = x[q < busy ? q : 0];
			}
			for (uint32_t i = 0; i < step; i++) {
#pragma GCC unroll 4
				for (unsigned q = 0; q < L; q++) y[q] = (y[q] ^ pp[q][i]) * FNV64_PRIME;
			}
			for (unsigned q = 0; q < busy; q++) x[q] = y[q];
		}
		for (unsigned q = 0; q < busy; q++) {
			p[q] += step;
			rem[q] -= step;
		}
	}
}
