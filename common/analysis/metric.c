/* metric.c - metrics by the names users know (see metric.h). */
#include "metric.h"

#include <stdlib.h>
#include <string.h>
#include "cli.h"

/* alias -> the SPAA names it may stand for, in order of preference */
static const struct { const char *alias; const char *names[5]; } table[] = {
	/* pprof's sample types */
	{ "inuse_space", { "live_bytes", NULL } },
	{ "inuse_objects", { "live_count", NULL } },
	{ "alloc_space", { "alloc_bytes", NULL } },
	{ "alloc_objects", { "alloc_count", NULL } },
	{ "cpu", { "cpu", "period", "cpu_time_ns", "wall_us", NULL } },
	{ "samples", { "samples", "count", NULL } },
	{ "count", { "count", "samples", NULL } },
	/* heaptrack's (heaptrack_print, heaptrack_gui) */
	{ "leaked", { "live_bytes", NULL } },
	{ "peak", { "peak_bytes", NULL } },
	{ "allocations", { "alloc_count", NULL } },
	{ "temporary", { "temporary_count", NULL } },
	{ "allocated", { "alloc_bytes", NULL } },
	/* V8's (sampling heap profiles, heap snapshots, cpu profiles) */
	{ "selfSize", { "alloc_bytes", "live_bytes", NULL } },
	{ "self_size", { "live_bytes", "alloc_bytes", NULL } },
	{ "shallow_size", { "live_bytes", "alloc_bytes", NULL } },
	{ "wall", { "wall_us", "wall_ns", NULL } },
	{ "time", { "wall_us", "cpu", "period", NULL } },
};

const char *const *metric_alias(const char *name)
{
	for (size_t i = 0; i < sizeof table / sizeof *table; i++)
		if (!strcmp(table[i].alias, name)) return table[i].names;
	return NULL;
}

const char *metric_resolve(const char *name, const char *primary)
{
	const char *const *a = metric_alias(name);
	if (!a) return name;
	for (const char *const *x = a; *x; x++)
		if (primary && !strcmp(*x, primary)) return *x;
	return a[0];
}

void metric_pick_init(metric_pick *m, const char *want, const char *event)
{
	memset(m, 0, sizeof *m);
	m->want = want;
	m->event = event;
	strmap_init(&m->seen);
}

void metric_pick_free(metric_pick *m)
{
	strmap_free(&m->seen);
}

static bool starts(const char *p, size_t n, const char *s)
{
	size_t k = strlen(s);
	return n >= k && memcmp(p, s, k) == 0;
}

units metric_units(const spaa_weight *w, const char *event, size_t event_len)
{
	if (!w->unit.p && event && sstr_eqc(w->metric, "period") &&
	    (starts(event, event_len, "cpu-clock") || starts(event, event_len, "task-clock")))
		return units_of(NULL, 0, "nanoseconds", 11);
	return units_of(w->metric.p, w->metric.n, w->unit.p, w->unit.n);
}

static const spaa_weight *take(metric_pick *m, const spaa_weight *w, const char *name)
{
	m->used = name;
	if (!m->have_unit) {
		m->unit = metric_units(w, m->event, m->event ? strlen(m->event) : 0);
		m->have_unit = true;
	}
	return w;
}

const spaa_weight *metric_find(metric_pick *m, const spaa_weight *w, uint32_t n)
{
	m->stacks++;
	/* the names are needed only for the message when none is found */
	if (!m->used)
		for (uint32_t i = 0; i < n; i++) strmap_intern(&m->seen, w[i].metric.p, w[i].metric.n, NULL);
	const char *name = m->used ? m->used : m->want;
	const spaa_weight *x = spaa_weight_find(w, n, name);
	if (x) return take(m, x, name);
	if (!m->used) {
		const char *const *a = metric_alias(m->want);
		for (; a && *a; a++)
			if ((x = spaa_weight_find(w, n, *a))) return take(m, x, *a);
	}
	m->missing++;
	return NULL;
}

void metric_check(const metric_pick *m, const char *file, const char *event)
{
	if (m->used || m->stacks == 0) return;
	sbuf b = { 0 };
	for (uint32_t i = 0; i < m->seen.count; i++) {
		size_t n;
		const char *k = strmap_key(&m->seen, i, &n);
		if (i) sbuf_adds(&b, ", ");
		sbuf_add(&b, k, n);
	}
	sbuf_addc(&b, 0);
	die(EXIT_DATA, "%s: no stack of event %s has metric '%s' (metrics: %s)", file,
	    event ? event : "(any)", m->want, b.n > 1 ? b.p : "none");
}
