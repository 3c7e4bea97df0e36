/* perfconv.h - perf samples into a SPAA builder, for perf2spaa's two
 * inputs: `perf script` text and perf.data itself.  What both share (an
 * event's kind from its name, the frame record of one callchain entry
 * "IP SYM+OFF (DSO)") is here, so that a capture read either way gives the
 * same events, frames and stacks; and the binary path's stages (records
 * in perf's order, processes and mappings, symbols, samples). */
#ifndef SPAA_PERFCONV_H
#define SPAA_PERFCONV_H

#include <stdbool.h>
#include <stdint.h>
#include "build.h"
#include "input.h"
#include "util.h"

/* "hardware", "software" or "probe" (a tracepoint), from perf's event name. */
const char *perf_event_kind(const char *name, size_t n);
/* Is a perf dso name a kernel one ("[kernel.kallsyms]", "[vdso]", a
 * module "[name]", a vmlinux path)? */
bool perf_dso_is_kernel(sstr dso);

/* The fields of the frame record of a callchain entry as `perf script`
 * prints it: ip (its text, "0x..." added when missing), sym ("" or
 * "[unknown]": unresolved; nosym: perf printed no symbol at all), symoff
 * (the hex offset after '+', .p NULL none) and dso (without its
 * parentheses; .p NULL: dso and kind left to the caller).  Fills *fr for a physical frame (inline_depth -1). */
void perf_frame_fill(builder *b, sstr ip, sstr sym, sstr symoff, sstr dso, bool nosym,
		     char ipbuf[static 64], builder_frame *fr);

typedef struct perfconv_opts {
	bool want_samples, quiet;
	bool inline_frames;            /* --inline: the calls inlined at each address */
	bool addresses;                /* --addresses: a frame per address (exact), not per function */
	bool no_inline;                /* --no-inline: none, not even at dwarf-unwound addresses */
	bool srclines;                 /* --srcline: source lines from DWARF */
	const char *symfs, *debug_dir, *kallsyms;
	uint32_t m_samples, m_period;  /* the builder's metrics */
	unsigned jobs;                 /* threads (-j): 2 and more, the builder's work in a thread of its own */
} perfconv_opts;

/* Totals over the inputs, for the caller's time range and messages. */
typedef struct perfconv_totals {
	uint64_t nsamples;
	bool has_time;
	uint64_t tmin, tmax;  /* nanoseconds */
	uint32_t nfiles;      /* perf.data inputs read */
	bool got_source;      /* the header's source written (from the first) */
} perfconv_totals;

/* Converts the perf.data in (whose magic perfdata_magic() accepted; path
 * the operand) into b. */
void perfconv_data(builder *b, input *in, const char *path, const perfconv_opts *o, perfconv_totals *t);

/* The event index of event name[0..n) in b, declared on first sight with
 * the kind perf_event_kind() gives. */
uint32_t perfconv_event(builder *b, const char *name, size_t n);
/* The same, for an event whose first sample has (has_period) or has not a
 * period: one without is counted in samples (its primary metric). */
uint32_t perfconv_event_as(builder *b, const char *name, size_t n, bool has_period);
/* Does event name count occurrences (page-faults, context-switches: a
 * period is a number of them)?  Their primary metric is "count". */
bool perf_event_counts(const char *name, size_t n);
/* The metric "count" of builder b (declared the first time) when event is
 * one that counts, else UINT32_MAX. */
uint32_t perfconv_count_metric(builder *b, uint32_t event);

#endif
