/* uwpool.h - dwarf unwinding on threads, in file order.
 *
 * The reader of a `perf record --call-graph dwarf` capture hands the pool
 * its samples in file order: each sample's registers and stack copy (copied
 * into the batch being filled) and, once a batch for each process and
 * version of its mappings, the mappings themselves (copied too: a snapshot
 * of the mappings as of those samples, which later mmap records do not
 * touch).  A full batch is handed to the threads; each thread has an
 * unwinder of its own (unwind.h: its own libdwfl sessions), reads nothing
 * but its batch, and takes batches as they come.  The reader takes the
 * results back a batch at a time, oldest first; a batch no thread has
 * taken yet when the reader wants it is unwound by the reader itself.  So
 * the threads' work is independent (no lock held while unwinding, one
 * lock taken a batch), and the results come back in file order whatever
 * the number of threads: an unwinder's answer for a sample does not depend
 * on which samples it unwound before (its sessions are caches).
 *
 * Beside each sample the caller may keep bytes of its own in the batch
 * (uwpool_user), given back with the results: what it needs to finish the
 * sample in order.
 *
 * The caller's bytes of a batch may be all it has (no sample): such a
 * batch is handed out and taken back in its turn like the others. */
#ifndef SPAA_UWPOOL_H
#define SPAA_UWPOOL_H

#include <stdbool.h>
#include <stdint.h>
#include "elfsym.h"
#include "unwind.h"
#include "util.h"

typedef struct uwpool uwpool;

/* threads: unwinding threads besides the caller's (0: the caller alone,
 * batch by batch); arch, root, debug_dir: as unwind_new's.  taker: the
 * batches are taken back by a thread of the caller's other than the one
 * that adds them (uwpool_wait_room, uwpool_wait_out): the ring is then
 * deep (hundreds of batches, at most 128 MiB of them with their stacks),
 * so that the adding and the unwinding run on while the taker is held
 * up. */
uwpool *uwpool_new(unsigned threads, int arch, const char *root, const char *debug_dir, bool taker);
void uwpool_free(uwpool *p);

/* Whether the batch being filled lacks the mappings of process pid at
 * version maps_version: then the next uwpool_add of it must give them. */
bool uwpool_need_maps(uwpool *p, int64_t pid, uint64_t maps_version);

/* Adds a sample to the batch being filled: s (its mappings, when given,
 * copied; its registers and stack too unless lasting: they stay where
 * they are until the batch is taken back), or NULL for a sample with
 * nothing to unwind (its result: no addresses, UW_NO_REGS). */
void uwpool_add(uwpool *p, const unwind_sample *s, bool lasting);

/* The caller's bytes of the batch being filled. */
sbuf *uwpool_user(uwpool *p);

/* Whether the batch being filled is full (it should be handed out). */
bool uwpool_full(const uwpool *p);

/* Hands the batch being filled (if it has samples or caller's bytes) to
 * the threads.
 * Returns whether the caller must take a batch back (uwpool_take) before
 * adding more: as many are out as the pool holds. */
bool uwpool_submit(uwpool *p);

/* With a taker thread: uwpool_wait_room waits until the batch to fill
 * next is free (after a uwpool_submit that said the pool is full: a
 * batch taken back); uwpool_wait_out waits until a batch is out, and says
 * false when none is and uwpool_close said no more will be. */
void uwpool_wait_room(uwpool *p);
bool uwpool_wait_out(uwpool *p);
void uwpool_close(uwpool *p);
/* The lowest address of the lasting registers and stacks of the batches
 * out and the one being filled (NULL: none): the caller keeps what is
 * above (perfdata_keep). */
const void *uwpool_lasting_low(uwpool *p);

/* Batches handed out and not yet taken back. */
uint32_t uwpool_out(const uwpool *p);

/* The results of the oldest batch handed out (uwpool_out() > 0), waited
 * for, or unwound here if no thread took it: its samples' count, and
 * by uwpool_result the addresses of each (valid until uwpool_release). */
typedef struct uwpool_batch uwpool_batch;
const uwpool_batch *uwpool_take(uwpool *p, uint32_t *n, const sbuf **user);
const uint64_t *uwpool_result(const uwpool_batch *b, uint32_t i, uint32_t *n, int *why);
/* The oldest batch taken back, its room for another. */
void uwpool_release(uwpool *p);

/* Help for the taker: a thread with nothing to unwind hands fn the
 * addresses unwound in files (path: the mapping's name, not NULL; addr:
 * the file offset; order: the sample's place in the taker's work, its
 * batch's number and its own in the batch) of the batches unwound and not
 * yet taken back (the one the taker works on too) that it did not hand
 * yet, as fn(ctx, k, asks, n) on thread k (0 to uwpool_threads() - 1),
 * with no lock held.  The taker says where it is with uwpool_progress(p,
 * i) (at sample i of the batch taken), and the help asks uwpool_ahead(p,
 * order) whether the taker has yet to come to a place.  Set before the
 * first batch. */
typedef void (*uwpool_help_fn)(void *ctx, unsigned k, const elfsym_ask *asks, uint32_t n);
void uwpool_help(uwpool *p, uwpool_help_fn fn, void *ctx);
void uwpool_progress(uwpool *p, uint32_t i);
bool uwpool_ahead(uwpool *p, uint64_t order);
unsigned uwpool_threads(const uwpool *p);

#endif
