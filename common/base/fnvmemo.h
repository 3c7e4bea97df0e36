/* fnvmemo.h - FNV-1a 64 (stackid.h) over a chain of byte strings that are
 * hashed again and again in different orders: the frames of stacks, whose
 * path bytes (spaa(5), STACK IDENTITY) are the concatenation of each
 * frame's own bytes.
 *
 * The plain loop is bound by the latency of one multiply per byte.  But XOR
 * with a byte changes only the low 8 bits of the state, so h ^ b is
 * h + d(h & 0xff, b), and the low 8 bits of every later state depend only
 * on the low 8 bits of h.  Hence, for a string s of n bytes, P the FNV
 * prime and l = h & 0xff,
 *
 *   fnv1a64(h, s) = fnv1a64(l, s) + (h - l) * P^n   (mod 2^64).
 *
 * A string remembers P^n and, once it has been hashed FNVMEMO_AFTER times,
 * the low byte its hash ends with for each of the 256 low bytes it can
 * start from (256 bytes).  Then the low byte entering each string of a
 * chain is known with one look-up per string, the strings' own hashes from
 * those small starts are independent and run side by side (the multiplier's
 * throughput, not its latency, bounds them), and one multiply-add per
 * string joins them. */
#ifndef SPAA_FNVMEMO_H
#define SPAA_FNVMEMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { FNVMEMO_AFTER = 8 };

typedef struct fnvmemo {
	uint64_t pn;          /* P^n */
	uint32_t n;
	uint32_t uses;        /* chains hashed through it, up to FNVMEMO_AFTER */
	uint8_t *next;        /* once uses == FNVMEMO_AFTER: the low byte after s,
			       * by the low byte before it (256 bytes, kept by the
			       * module for the life of the process: most strings
			       * never get one) */
	unsigned char s[];    /* the bytes */
} fnvmemo;

/* A copy of the n bytes at p, with its memo; free() frees it (its table,
 * if it got one, stays with the module). */
fnvmemo *fnvmemo_new(const void *p, size_t n);
/* The same for n bytes the caller writes into m->s before any use (no
 * copy from a scratch buffer). */
fnvmemo *fnvmemo_alloc(size_t n);

/* fnv1a64 of h, then of the strings v[0..k) in that order: the same as
 * fnv1a64 called on each in turn. */
uint64_t fnvmemo_chain(uint64_t h, fnvmemo *const *v, size_t k);

/* Chains hashed side by side, up to FNVMEMO_CHAINS of them: h[c] becomes
 * fnvmemo_chain(h[c], v + at[c], k[c]) for each c < nc.  Each chain is one
 * stream of bytes through its strings; the streams go in step, so that
 * the multiplier's throughput, not its latency, bounds them (the strings'
 * memos are neither used nor counted: for chains that meet strings a few
 * times each, as the stacks of a batch do). */
enum { FNVMEMO_CHAINS = 4 };
void fnvmemo_chains(uint64_t *h, fnvmemo *const *v, const size_t *at, const size_t *k, size_t nc);

#endif
