/* spans.h - from timed spans (trace begin/end events, complete spans) to
 * call-path stacks in a builder.  Shared by the span converters (spall2spaa,
 * spx2spaa, afperf2spaa).
 *
 * The model.  Spans live on threads, keyed by (pid, tid).  Each thread has a
 * stack of open spans; a span's call path is the names of the open spans from
 * the root down to it.  When a span ends, its SELF cost (inclusive cost minus
 * the inclusive cost of its direct children) is added to the builder stack of
 * its call path (leaf = the span), together with calls = 1.  So each distinct
 * call path is one stack record whose weights are the self cost of that path,
 * summed over all its spans, and folding gives a correct flame graph (a
 * node's width is its inclusive cost); "exclusive" (on the leaf) is the same.
 *
 * Metrics.  A spans object measures nmetrics values per span, all int64
 * readings of monotonic counters taken at begin and at end (inclusive =
 * end - begin).  Metric 0 is always time in integer nanoseconds (it orders
 * and nests spans, and closes unclosed spans).  The caller declares the
 * builder metrics (e.g. "wall_ns" unit "nanoseconds", memory in "bytes") and
 * passes their indices; "calls" (span count) is optional.
 *
 * Two ways of nesting (spans_conf.mode):
 *  SPANS_STACK: begin/end events are paired per thread with the stack as they
 *    come (file order); spans are written as they end.  Memory: the open
 *    spans only.  For formats where every event is a begin or an end.
 *  SPANS_SORT: spans (complete spans, and begin/end pairs once the end is
 *    seen) are kept per thread (40 bytes each) and, at spans_finish(), sorted
 *    by start ascending, duration descending, then order of arrival (of the
 *    begin); walking that order, a span's parent is the innermost earlier span
 *    that contains it [start, end].  Memory is bounded: beyond 1<<20 buffered
 *    spans (environment SPAA_SPANS_BUFFER), or 64 bytes of sample extras per
 *    such span, the buffers are sorted and written as a run to an unlinked
 *    temporary file ($TMPDIR, else /tmp); runs are merged 16 at a time, and
 *    spans_finish() merges the rest with the buffers: same output.  A span that starts inside another and
 *    ends after it is not its child ("overlap without nesting": reported).
 *    Needed when complete spans may come in any order (Chrome JSON "X").
 *
 * Depth.  A call path deeper than conf.max_depth (default 4096) stops the
 * conversion with an error: the output grows with the square of the depth.
 *
 * Problems (an end with no open begin, a span still open at the end, spans
 * that overlap without nesting, time going backwards, negative durations) are
 * passed to conf.report with the position the caller gave for the event; the
 * caller warns or dies (--strict).  Nothing else is lost: unclosed spans are
 * closed at the thread's last time (or dropped: conf.drop_unclosed),
 * unmatched ends are dropped.
 *
 * Samples (conf.samples): one sample record per span, written as the span is
 * added: timestamp = start in seconds (ns / 1e9), pid, tid, and the context
 * members "x_dur_ns":DURATION plus whatever extra JSON the caller attached to
 * the span (e.g. "x_args":{...}); per-span data never goes into stack
 * contexts, which would split the aggregation. */
#ifndef SPAA_SPANS_H
#define SPAA_SPANS_H

#include <stdint.h>
#include <stdbool.h>
#include "build.h"
#include "json.h"
#include "util.h"

#define SPANS_MAX_METRICS 32

enum spans_mode { SPANS_STACK, SPANS_SORT };

typedef struct spans_conf {
	builder *b;
	uint32_t event;          /* builder event of every stack */
	uint32_t nmetrics;       /* 1..SPANS_MAX_METRICS; metric 0 = time in ns */
	uint32_t midx[SPANS_MAX_METRICS]; /* builder metric index of each */
	int32_t calls_midx;      /* builder metric for the span count, -1: none */
	enum spans_mode mode;
	bool samples;            /* one sample record per span */
	/* SPANS_SORT only: spans still open at spans_finish() are reported and
	 * dropped (no span, no sample) instead of closed at their thread's last
	 * time; their children keep the spans that contain them as parents. */
	bool drop_unclosed;
	/* Problem reports: pos is what the caller passed with the event. */
	void (*report)(void *arg, uint64_t pos, const char *msg);
	void *arg;
	/* The deepest call path (0: SPANS_DEFAULT_MAX_DEPTH).  A span nested
	 * deeper is an error: fatal(arg, pos, msg) if set (it must not
	 * return), else report() then exit 1. */
	uint32_t max_depth;
	void (*fatal)(void *arg, uint64_t pos, const char *msg);
} spans_conf;

#define SPANS_DEFAULT_MAX_DEPTH 4096
/* Parses the value of a converter's --max-depth=N (1 .. 2^31); a usage
 * error otherwise. */
uint32_t spans_max_depth_arg(const char *arg);

typedef struct spans spans;

spans *spans_new(const spans_conf *conf);
void spans_free(spans *s);

/* A frame for a span name (interned in the builder; dso "[unknown]" unless
 * spans_set_dso() chose another).  extra_json: raw members for the frame
 * record at its first appearance (e.g. "\"x_cat\":\"function\""), not part
 * of its identity; NULL none. */
uint32_t spans_frame(spans *s, const char *name, size_t n, const char *extra_json);
void spans_set_dso(spans *s, const char *name);

/* The thread slot for (pid, tid), created on first use (threads are written
 * in order of first use).  Names may be set any time before spans_finish();
 * the thread name becomes the thread record's comm. */
uint32_t spans_thread(spans *s, int64_t pid, int64_t tid);
void spans_thread_name(spans *s, uint32_t thr, const char *name, size_t n);

/* Begin: a span named by frame opens on thread thr; vals[nmetrics] are the
 * counter readings at the begin (vals[0] = time in ns).  sample_extra: raw
 * JSON members for the span's sample record (only kept with conf.samples),
 * NULL none.  pos: the event's position, for reports. */
void spans_begin(spans *s, uint32_t thr, uint32_t frame, const int64_t *vals,
		 const char *sample_extra, size_t extra_n, uint64_t pos);
/* The same as spans_begin(s, thr, spans_frame(s, name, n, NULL), ...), faster
 * in SPANS_STACK mode: the name is first looked for among the recent
 * children of the open span's call path, which needs no hashing. */
void spans_begin_name(spans *s, uint32_t thr, const char *name, size_t n, const int64_t *vals,
		      const char *sample_extra, size_t extra_n, uint64_t pos);
/* End: closes the most recently opened span of thr (false, reported and
 * dropped, if none). */
bool spans_end(spans *s, uint32_t thr, const int64_t *vals, uint64_t pos);
/* The same, with more weights for the span's sample (only kept with
 * conf.samples): weights (weights_n bytes, not NUL-terminated) are raw JSON
 * elements, e.g. {"metric":"bytes","value":5},{"metric":"x","value":1.5},
 * appended to its "x_weights" array after the span's own metrics.  The
 * caller adds the same metrics to the span's stack (builder_stack) and gives
 * them on every sample of that stack (0 where a span has none), so that a
 * time cut (spaa-window) can rebuild them. */
bool spans_end_weights(spans *s, uint32_t thr, const int64_t *vals, const char *weights,
		       size_t weights_n, uint64_t pos);
/* The frame of the most recently opened span of thr still open, -1: none
 * (e.g. to compare it with the name an end event carries). */
int64_t spans_open_frame(const spans *s, uint32_t thr);
/* The number of spans still open on all threads (begins not yet ended): a
 * caller that nests in SPANS_STACK mode can tell before spans_finish()
 * whether any begin would be left unclosed. */
uint64_t spans_open_count(const spans *s);
/* A complete span (SPANS_SORT only): start and duration in ns; incl: the
 * inclusive values of metrics 1.. (nmetrics - 1 values), NULL for zeros.
 * A negative duration is reported and the span dropped. */
void spans_complete(spans *s, uint32_t thr, uint32_t frame, int64_t start_ns,
		    int64_t dur_ns, const int64_t *incl, const char *sample_extra,
		    size_t extra_n, uint64_t pos);
/* Ends everything: SPANS_SORT threads are nested and written; spans still
 * open are reported and closed at their thread's last time (dropped with
 * conf.drop_unclosed); threads are
 * registered with the builder; the time range covers all spans. */
void spans_finish(spans *s);

/* Counts, for messages. */
typedef struct spans_stats {
	uint64_t spans, unmatched_ends, unclosed, overlaps, backwards, negative;
} spans_stats;
const spans_stats *spans_get_stats(const spans *s);

/* Helpers for callers. */
/* A JSON number's text (microseconds) to integer nanoseconds, rounded to the
 * nearest (halves away from zero), exactly from the decimal digits; false if
 * it is not a number or does not fit in int64. */
bool spans_us_text_to_ns(const char *p, size_t n, int64_t *ns);
/* The same for a number in units of 10^-(9 - pow10) s: pow10 0 for
 * nanoseconds, 3 microseconds, 6 milliseconds, 9 seconds. */
bool spans_text_to_ns(const char *p, size_t n, int pow10, int64_t *ns);

#endif
