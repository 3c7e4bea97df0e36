/* relay.h - a stack relay: parsed stack records passed in batches from the
 * thread that reads a SPAA file to one thread that works on them (folds
 * them), so that reading and working run side by side (-j 2 and more in
 * spaa-fold and spaa-flamegraph).
 *
 * The reading thread reads on the reader's fast path (spaa_fast_stacks())
 * and hands each stack record it keeps, with a weight and its line number,
 * to relay_add(); the record is copied into a batch (its frames, event,
 * process name and ids: what fold.h reads), and a full batch goes to the
 * worker, which calls work() on each record in the order they were added,
 * while the reading thread fills the next one.  The worker may read the
 * reader's header and dictionaries (r->frames ...): they change only in
 * records off the fast path, and before spaa_next() takes one of those
 * (r->before_slow, set by relay_start) the relay waits until the worker is
 * done with every record handed so far.  So is it before every message the
 * reader gives about a bad record: a message of the worker's about an
 * earlier record comes first, as with one thread.  The reading thread may
 * then also change what the worker changes (relay_idle() waits the same
 * way).  One relay at a time. */
#ifndef SPAA_RELAY_H
#define SPAA_RELAY_H

#include <stdbool.h>
#include <stdint.h>
#include "num.h"
#include "spaa.h"

/* Works on one stack record (a copy: frames, nframes, event, event_name,
 * comm, pid and tid are set) of weight w read at line lineno. */
typedef void (*relay_work_fn)(void *ctx, const spaa_stack *s, num w, uint64_t lineno);

/* Starts the worker thread for reader r (exits 1 if it cannot start). */
void relay_start(spaa_reader *r, relay_work_fn work, void *ctx);
/* (It starts none when exits are intercepted, cli_exit_override, nor for a
 * profile in memory, whose records cost less to take than to hand on:
 * relay_on() stays false and the caller works on the reading thread.) */
/* Adds a record to the batch being filled; hands it on when full. */
void relay_add(const spaa_stack *s, num w, uint64_t lineno);
/* Hands on what was added, and waits until the worker is done with it. */
void relay_idle(void);
/* relay_idle(), then ends the worker thread and frees the batches. */
void relay_stop(void);
/* Whether a relay runs (between relay_start and relay_stop). */
bool relay_on(void);

#endif
