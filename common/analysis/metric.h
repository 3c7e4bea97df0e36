/* metric.h - the metric a command weighs stacks by, under the names its
 * users know: pprof's sample types (inuse_space = live_bytes, inuse_objects
 * = live_count, alloc_space = alloc_bytes, alloc_objects = alloc_count, cpu,
 * samples), heaptrack's (leaked, peak, allocations, temporary, allocated)
 * and V8's (selfSize, self_size, wall), each mapped to the SPAA names a file
 * may have (spaa(5) section 9.2).  One table for every -m.
 *
 * A pick remembers which name the file uses (the first stack that has one
 * decides), the metrics the stacks have, and how many stacks of the event
 * lacked it; metric_check() makes "no stack has it" an error that lists the
 * metrics the file has, instead of a silent total of 0. */
#ifndef SPAA_METRIC_H
#define SPAA_METRIC_H

#include <stdbool.h>
#include <stdint.h>
#include "spaa.h"
#include "strmap.h"
#include "units.h"

typedef struct metric_pick {
	const char *want;      /* the name asked for (or the event's primary metric) */
	const char *event;     /* the event's name (NULL: any) */
	const char *used;      /* the name the file has (want or an alias's target); NULL: none yet */
	strmap seen;           /* the metric names of the stacks looked at */
	uint64_t stacks;       /* stacks looked at */
	uint64_t missing;      /* of them, without the metric */
	units unit;            /* the unit of its weights (from the first one) */
	bool have_unit;
} metric_pick;

/* event: the event's name, NULL when any: perf's cpu-clock and task-clock
 * periods are nanoseconds even when the file does not say so. */
void metric_pick_init(metric_pick *m, const char *want, const char *event);
void metric_pick_free(metric_pick *m);
/* The weight of the metric among w[0..n) (the weights of one stack of the
 * event), or NULL (counted as missing). */
const spaa_weight *metric_find(metric_pick *m, const spaa_weight *w, uint32_t n);
/* The name to show: the file's name for the metric when known, else the one asked. */
static inline const char *metric_pick_name(const metric_pick *m) { return m->used ? m->used : m->want; }
/* After the last stack: exit 1 with "prog: FILE: no stack of event EVENT
 * has metric 'X' (metrics: a, b)" when stacks were looked at and none had
 * it.  event NULL: "(any)". */
void metric_check(const metric_pick *m, const char *file, const char *event);
/* The unit of weight w of a stack of event (NULL: unknown): units_of()
 * its metric and unit, and perf's cpu-clock and task-clock periods, which
 * count nanoseconds even when the file does not say so. */
units metric_units(const spaa_weight *w, const char *event, size_t event_len);
/* The SPAA names that alias may mean, most likely first, NULL-terminated;
 * NULL when name is no alias. */
const char *const *metric_alias(const char *name);
/* The SPAA name for name, before any stack is read: an alias's target that
 * is the event's primary metric (primary, NULL if none), else its first
 * target; a name that is no alias as it is. */
const char *metric_resolve(const char *name, const char *primary);

#endif
