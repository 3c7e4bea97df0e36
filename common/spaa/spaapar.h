/* spaapar.h - the stack records of a large SPAA file read on N threads.
 *
 * A command that adds up stack records read on the fast path
 * (spaa_fast_stacks) can have the rest of a plain file read in byte ranges
 * ("chunks", cut at line ends) on N threads.  Each chunk's stack records
 * go to stack() on a worker thread, with a state of the chunk's own; the
 * chunks come back in file order to merge() on the
 * calling thread, which adds them to the command's answer and frees them.
 *
 * A chunk ends early at its first line that is not a stack record of the
 * fast path (a sample, a dictionary record, anything malformed or too long)
 * or that stack() refuses; merge() may refuse a whole chunk.  The chunks
 * after it are dropped, and the reader goes on from that line: the command
 * reads it, and all after it, as it reads any record, so the answer, the
 * messages and their line numbers are those of one thread.  The reader's
 * header and dictionaries are read by the workers meanwhile: merge() may
 * read them, nothing may change them.  Memory: the chunks' states (a cost
 * of distinct stacks) and a buffer of a megabyte or so per thread. */
#ifndef SPAA_SPAAPAR_H
#define SPAA_SPAAPAR_H

#include <stdbool.h>
#include <stdint.h>
#include "spaa.h"

typedef struct spaa_par_ops {
	void *ctx;
	/* a chunk's state: this many bytes, zeroed, that begin with a
	 * spaa_par_sums (below), made ready and freed here */
	size_t chunk_size;
	/* a stack record of the chunk (its line in s): false to end the
	 * chunk before it, leaving it unread */
	bool (*stack)(void *ctx, void *chunk, const spaa_stack *s);
	/* in file order: false when the chunk cannot be added (nothing of it
	 * is then), which ends the reading before it */
	bool (*merge)(void *ctx, void *chunk);
	/* frees what else a chunk's state holds (NULL: nothing) */
	void (*chunk_free)(void *chunk);
} spaa_par_ops;

/* Can the rest of r be read so (a plain regular file, jobs >= 2, exits not
 * intercepted)? */
bool spaa_par_possible(const spaa_reader *r, unsigned jobs);
/* Reads the rest of r's file on jobs threads as above, when at least
 * min_bytes are left, and returns how many bytes were read so (0: none;
 * spaa_next() then reads on from the first line not taken). */
uint64_t spaa_par_stacks(spaa_reader *r, unsigned jobs, uint64_t min_bytes, const spaa_par_ops *ops);

/* ---- sums by stack ------------------------------------------------------
 * For a command whose answer adds up each stack record's weight (a sum per
 * folded path, per function...): a chunk sums its records by key, what the
 * answer takes from a stack (its frames, and the members `what` names),
 * and merge() takes each key once, with its sum.  The sums are of the
 * integers the fast path reads; the caller keeps the sum of the
 * magnitudes of all it added (spaa_abs_add) and refuses a chunk that
 * would take it past what its own sums hold exactly (INT64_MAX for
 * 64-bit integers, 2^53 for doubles): within that no sum of any order
 * overflows or rounds, so the answer is that of one thread. */
#include "num.h"
#include "strmap.h"
enum { SPAA_KEY_EVENT = 1, SPAA_KEY_COMM = 2, SPAA_KEY_PID = 4, SPAA_KEY_TID = 8 };
/* The key of s: its event name, comm, pid, tid as what says (those s
 * has), then its frames. */
void spaa_par_key(const spaa_stack *s, unsigned what, sbuf *key);
/* Those members of *s from a key (its strings in the key; event -1). */
const spaa_stack *spaa_par_unkey(spaa_stack *s, const char *key, size_t n);

typedef struct spaa_par_sums {
	strmap keys;            /* key -> its sum, in order of appearance */
	num *sum;
	uint32_t nsum, cap;
	uint64_t abs;           /* the magnitudes of the weights added, summed */
	sbuf key;               /* scratch for spaa_par_key */
} spaa_par_sums;
void spaa_par_sums_init(spaa_par_sums *t);
void spaa_par_sums_free(spaa_par_sums *t);
/* Adds w to key's sum: false (nothing added) when the sum would overflow. */
bool spaa_par_sums_add(spaa_par_sums *t, const char *key, size_t n, num w);
/* a + |v|, at most UINT64_MAX (which a double makes it at once). */
uint64_t spaa_abs_add(uint64_t a, num v);

#endif
