/* build.h - building a SPAA profile from another format (the converters'
 * back end).  A converter declares events and metrics, interns dsos, frames
 * and threads, and adds weighted stacks; identical stacks (same frames and
 * same context) are summed.  Samples are spooled to a temporary file as they
 * come, so memory grows with unique frames and stacks only.  builder_write()
 * then writes, in this order: header, dso, frame, thread, stack records (each
 * dictionary and the stacks in order of first appearance), then the samples
 * in input order.  Stack ids are content ids (stackid.h); each stack also gets
 * "x_path_id", the hash of its call path alone.
 *
 * Frames are leaf first in the arrays passed in (frame_order "leaf_to_root",
 * which is what the builder writes).  A stack's exclusive weights are its
 * weights, on its leaf frame. */
#ifndef SPAA_BUILD_H
#define SPAA_BUILD_H

#include <stdint.h>
#include <stdbool.h>
#include "util.h"
#include "num.h"
#include "output.h"

typedef struct builder builder;

builder *builder_new(void);
/* What the builders made from now on leave out, for a command that reads
 * them in process and does not need it: BUILDER_NO_IDS, the stacks'
 * content ids (a stack's id is then its index, and two stacks of the same
 * content but frames of different addresses stay two); BUILDER_NO_THREADS,
 * the pid and tid of the contexts that have a comm (the stacks of the
 * threads of one command are one); BUILDER_NO_ADDRS, the addresses of the
 * frames of perf's profiles that no symbol names (perf_frame_fill: one
 * frame of no name a dso, as folded names show them without --raw or
 * --addrs). */
enum { BUILDER_NO_IDS = 1, BUILDER_NO_THREADS = 2, BUILDER_NO_ADDRS = 4 };
void builder_lean(unsigned flags);
/* Does b leave out what flag (BUILDER_NO_...) names? */
bool builder_is_lean(const builder *b, unsigned flag);
void builder_free(builder *b);

/* Header. source_tool e.g. "perf"; source members are added with
 * builder_source_*().  json_extra: raw JSON members appended to the event
 * object's "sampling" (e.g. "\"frequency_hz\":997"), NULL for none. */
void builder_source_tool(builder *b, const char *tool);
uint32_t builder_event(builder *b, const char *name, const char *kind,
		       const char *mode, const char *primary_metric,
		       const char *sampling_extra_json);
/* The events in another order: event e becomes event pos[e] (pos a
 * permutation of 0 .. builder_nevents - 1); the stacks keep theirs. */
void builder_event_order(builder *b, const uint32_t *pos);
/* Raw JSON members added to the event object itself ("\"k\":v"), NULL none. */
void builder_event_extra(builder *b, uint32_t event, const char *json_members);
int32_t builder_event_find(const builder *b, const char *name, size_t n);
/* header.source.KEY = string / raw JSON value. */
void builder_source_str(builder *b, const char *key, const char *val, size_t n);
void builder_source_json(builder *b, const char *key, const char *raw_json);
/* time_range: widened by each timestamp seen (unit seconds); or set. */
void builder_time(builder *b, double t);
void builder_time_range(builder *b, double start, double end);
/* time_range in integer nanoseconds (unit "nanoseconds"), exact. */
void builder_time_range_ns(builder *b, int64_t start, int64_t end);

/* Metrics, in the order declared (that is the order weights are written). */
uint32_t builder_metric(builder *b, const char *name, const char *unit /* NULL */);
/* The name of metric m (from builder_metric()). */
const char *builder_metric_name(const builder *b, uint32_t m);

/* Dictionaries: interned; return the dense index (the written id is index+1
 * for dso and frame records). */
uint32_t builder_dso(builder *b, const char *name, size_t n, bool is_kernel);
/* Raw JSON members added to dso record d ("\"build_id\":\"...\""), not
 * part of its identity; NULL none. */
void builder_dso_extra(builder *b, uint32_t dso, const char *json_members);
typedef struct builder_frame {
	sstr func;            /* required */
	uint32_t dso;         /* from builder_dso() */
	uint8_t kind;         /* enum spaa_fkind: FK_USER, FK_KERNEL, FK_UNKNOWN */
	bool inlined;
	bool func_resolved;   /* false: func is a raw address */
	int32_t inline_depth; /* -1: omit */
	sstr srcline, ip, symoff; /* .p NULL: omit; srcline is part of identity, ip/symoff of the first occurrence are kept */
	const char *extra_json; /* raw members added to the record, NULL none (not identity) */
	/* ip, symoff and inline_depth are part of the identity too: for
	 * inlined frames and the physical frame they sit on, which spaa(5)
	 * ties together by ip (a frame there is one address, not a function) */
	bool exact;
} builder_frame;
uint32_t builder_frame_add(builder *b, const builder_frame *f);
uint32_t builder_thread(builder *b, int64_t pid, int64_t tid, const char *comm, size_t n);

typedef struct builder_ctx {
	uint32_t event;
	bool has_pid, has_tid;
	int64_t pid, tid;
	sstr comm;            /* .p NULL: none */
	const char *stack_type; /* NULL = "unified" (omitted) */
	/* raw JSON members for the context object ("\"x_k\":v,..."), part of the
	 * stack's aggregation key but not of its id; NULL for none. */
	sstr extra_json;
} builder_ctx;

/* Adds weight vals[i] for metric midx[i] (i < nvals) to the stack; returns
 * the stack's index.  frames: leaf first.  Exits with an error on overflow. */
uint32_t builder_stack(builder *b, const builder_ctx *c, const uint32_t *frames,
		       uint32_t nframes, const uint32_t *midx, const num *vals,
		       uint32_t nvals);
/* builder_stack in two steps, for a caller with other work to do between
 * them: the context interned and the stack's key made, its slot and
 * frames prefetched (builder_stack_prepare), then the stack looked up or
 * made and its weights added (builder_stack_finish).  Prepared stacks are
 * finished one at a time, in order, before the next is prepared; p is
 * the caller's (zeroed once, freed with builder_pending_free). */
typedef struct builder_pending { sbuf key; uint32_t h, ci, nframes; } builder_pending;
void builder_stack_prepare(builder *b, const builder_ctx *c, const uint32_t *frames, uint32_t nframes,
			   builder_pending *p);
uint32_t builder_stack_finish(builder *b, builder_pending *p, const uint32_t *midx, const num *vals, uint32_t nvals);
void builder_pending_free(builder_pending *p);
/* Adds weights to stack i (an index builder_stack returned), as
 * builder_stack does: for callers that know the stack already. */
void builder_add(builder *b, uint32_t i, const uint32_t *midx, const num *vals, uint32_t nvals);
/* The input position that errors of builder_stack name ("file:line: ..."),
 * NULL file for none (the default). */
void builder_where(builder *b, const char *file, uint64_t line);
/* The same for a binary input: "file: byte N: ...". */
void builder_where_byte(builder *b, const char *file, uint64_t offset);
/* For a builder on another thread, whose caller names the input line: an
 * overflow in builder_stack or builder_add then ends nothing, it makes
 * builder_overflowed() true (the builder's weights are then not to be
 * written, only freed). */
void builder_keep_overflow(builder *b);
bool builder_overflowed(const builder *b);
/* For a builder that is only ever merged into another (builder_merge's
 * src: a chunk parsed on another thread): stacks of the same content are
 * not made one (their content ids are not made unique); the merge does
 * that, once, in the builder that is written, taking their ids. */
void builder_part(builder *b);
/* "related_stacks" both ways (DTrace user + kernel stacks). */
void builder_relate(builder *b, uint32_t s1, uint32_t s2);
/* The id string ("0x...") of stack s. */
const char *builder_stack_id(const builder *b, uint32_t s);

/* One sample record for stack s; extra_json: raw members ("\"cpu\":3,...")
 * written after stack_id, NULL none.  Timestamps widen the time range. */
void builder_sample(builder *b, uint32_t s, bool has_ts, double ts,
		    const char *extra_json);

/* The same with an integer timestamp in nanoseconds (header time unit
 * "nanoseconds"; do not mix with builder_sample or builder_time): widens the
 * time range set by builder_time_range_ns. */
void builder_sample_ns(builder *b, uint32_t s, int64_t ts, const char *extra_json);

/* The name of event e, and the number of events. */
const char *builder_event_name(const builder *b, uint32_t e);
uint32_t builder_nevents(const builder *b);

/* Adds all of src, a builder of a later part of the same input (a chunk
 * parsed on another thread), to b, as if src's calls had been made on b
 * after b's own: events, dsos, frames, threads and stacks, each new one in
 * src's order (of first appearance), weights summed.  The output is then
 * the same, byte for byte, as that of one builder given the whole input.
 * src holds no samples and no related stacks.  False when a sum would
 * overflow 64 bits: then every weight of b is as it was (its dictionaries
 * and stacks may have grown), so that the caller can give b src's input
 * itself, in order, to name the line where -j 1 would have stopped. */
bool builder_merge(builder *b, const builder *src);

/* Writes everything. */
void builder_write(builder *b, output *o);
/* The threads builder_write renders the stack records on (the calling
 * one among them; default 1), for a command run with -j N: the output is
 * the same, byte for byte, whatever their number. */
void builder_jobs(unsigned n);

/* Reading a builder in process (a command that reads another format than
 * SPAA: spaa.h's spaa_open_any), record by record as builder_write writes
 * them: the header, the dso and thread dictionaries, samples, and the
 * frames and stacks the reader's fast path would not take, as the text of
 * their record; the other stacks parsed straight into the reader's stack,
 * the other frames given as their record's members (no text). */
struct spaa_stack;
/* A frame record's members, as the reader's fast path takes them: its
 * strings plain (printable ASCII, no '"' or '\\': the same bytes in the
 * record's text), no members of its own. */
typedef struct builder_frame_rec {
	uint64_t id, dso;                 /* its id, its dso record's id */
	sstr func, ip, symoff, srcline;   /* (.p NULL: none) */
	uint8_t kind;                     /* enum spaa_fkind (spaa.h) */
	int32_t inline_depth;             /* -1: none */
	bool resolved, inlined;
} builder_frame_rec;
typedef struct builder_cursor {
	builder *b;
	output *o;
	unsigned part;
	uint32_t i;
	sbuf scratch, wt;
	char idbuf[24];
	builder_frame_rec frame;          /* BUILDER_FRAME's record */
} builder_cursor;
enum { BUILDER_END, BUILDER_TEXT, BUILDER_STACK, BUILDER_FRAME };
void builder_cursor_start(builder *b, builder_cursor *c);
/* The next record: BUILDER_TEXT with its line (no newline, NUL-terminated,
 * valid until the next call) in *line and *n; BUILDER_STACK when it was
 * put into *s, BUILDER_FRAME when its members are in c->frame (s NULL:
 * neither: every record as text); BUILDER_END after the last. */
int builder_cursor_next(builder_cursor *c, struct spaa_stack *s, const char **line, size_t *n);
/* The text of the frame record BUILDER_FRAME gave last (as BUILDER_TEXT
 * would have), for a reader that turns it down. */
void builder_cursor_frame_text(builder_cursor *c, const char **line, size_t *n);
void builder_cursor_end(builder_cursor *c);

#endif
