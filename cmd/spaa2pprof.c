/* spaa2pprof - one event of a SPAA profile as a pprof profile
 * (profile.proto, gzip-compressed), for go tool pprof and the continuous
 * profilers.
 *
 * The story: the records are read once.  Each stack of the event becomes a
 * sample: its frames, leaf first, are cut into locations (a run of inlined
 * frames and the physical frame they sit in is one location with several
 * lines, innermost first, as pprof has it), each frame name and file one
 * function, each dso one mapping; its weights the sample's values, one per
 * metric of the event.  The message is written at the end, when every
 * metric is known: sample types, samples, mappings, locations, functions,
 * then the string table. */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "readers/open.h"
#include "cli.h"
#include "num.h"
#include "output.h"
#include "pb.h"
#include "sniff.h"
#include "spaa.h"
#include "strmap.h"
#include "util.h"

static const char help[] =
"Usage: spaa2pprof [OPTION]... [FILE]...\n"
"Write one event of a SPAA profile as a pprof profile (profile.proto, gzip),\n"
"which go tool pprof, Pyroscope, Parca and Grafana read.  With no FILE, or\n"
"when FILE is -, read standard input (zstd and gzip allowed).\n"
"\n"
"The event's metrics become the sample types (alloc_count, alloc_bytes,\n"
"live_count and live_bytes under pprof's names alloc_objects, alloc_space,\n"
"inuse_objects and inuse_space), its primary metric the default one; inlined\n"
"frames join the location of the frame they sit in; pid, tid, comm and\n"
"x_labels become labels.\n"
"\n"
"      --event=NAME     the event (needed when the profile has several)\n"
READERS_HELP
CLI_HELP_OUTPUT CLI_HELP_END;

/* ---- state ------------------------------------------------------------------------ */

struct sample {
	uint32_t locs, nlocs;         /* into W.locpool */
	uint32_t vals, nvals;         /* (metric, value) pairs in W.valpool */
	uint32_t labels, labels_n;    /* encoded Label messages in W.labelbuf */
};

struct mval { uint32_t metric; int64_t v; };

static struct {
	const char *fname;
	int32_t event;                /* in r->events, -1 until the header */
	/* the string table */
	strmap strs;
	/* metrics of the event: name -> index, units */
	strmap metrics;
	uint32_t *metric_unit;        /* string index */
	uint32_t mucap;
	/* dictionaries of the output */
	int64_t *dso_mapping;         /* reader dso -> mapping id, 0 none yet */
	char **dso_build_id;          /* from the dso records, NULL none */
	uint32_t dmcap, dbcap;
	strmap fns, locs;             /* keys: function identity; frame runs */
	sbuf mappings, functions, locations; /* encoded messages (fields 3, 5, 4) */
	uint64_t nmappings;
	struct mapmsg { size_t off, n; uint32_t dso; } *mapmsg; /* each mapping in W.mappings */
	char **dso_name;              /* reader dso -> its name, once it has a mapping */
	uint32_t dncap;
	uint32_t mmcap;
	/* the main mapping: each user dso's and comm's primary weight */
	uint64_t *dso_weight;
	uint32_t dwcap;
	strmap comms;
	uint64_t *comm_weight;
	uint32_t cwcap;
	char *ev_name, *ev_kind, *ev_mode;
	int64_t primary;              /* metric index, -1 none */
	/* the samples */
	struct sample *samples;
	uint32_t nsamples, scap;
	uint64_t *locpool;
	uint32_t nlocpool, lpcap;
	struct mval *valpool;
	uint32_t nvalpool, vpcap;
	sbuf labelbuf;
	/* the header's figures */
	bool has_period, has_period_type, has_time;
	int64_t period, time_nanos, duration_nanos;
	uint32_t period_type, period_unit;
	sbuf key, msg, msg2;
} W = { .event = -1 };

/* 2001-09-09 in nanoseconds since the epoch: a time range that starts
 * before is not on the wall clock */
#define WALL_CLOCK_FROM INT64_C(1000000000000000000)

static uint64_t sat_add(uint64_t a, uint64_t b) { return a + b < a ? UINT64_MAX : a + b; }

/* ---- strings and dictionaries --------------------------------------------------------- */

static uint32_t str_id(const char *p, size_t n)
{
	return strmap_intern(&W.strs, p, n, NULL);
}

static uint32_t str_idc(const char *s) { return str_id(s, strlen(s)); }

/* pprof's names of spaa(5)'s memory metrics */
static const char *pprof_metric(const char *name)
{
	static const char *const m[][2] = {
		{ "alloc_count", "alloc_objects" }, { "alloc_bytes", "alloc_space" },
		{ "live_count", "inuse_objects" }, { "live_bytes", "inuse_space" },
	};
	for (size_t i = 0; i < sizeof m / sizeof *m; i++)
		if (!strcmp(name, m[i][0])) return m[i][1];
	return name;
}

/* The index of a metric (a sample type), its unit taken from the first
 * weight that has one ("count" without). */
static uint32_t metric_of(const char *name, size_t n, const char *unit, size_t unit_n)
{
	bool added;
	uint32_t m = strmap_intern(&W.metrics, name, n, &added);
	uint32_t old = W.mucap;
	grow_array((void **)&W.metric_unit, &W.mucap, m + 1, sizeof *W.metric_unit);
	for (uint32_t i = old; i < W.mucap; i++) W.metric_unit[i] = UINT32_MAX;
	if (W.metric_unit[m] == UINT32_MAX && unit) W.metric_unit[m] = str_id(unit, unit_n);
	return m;
}

static uint64_t mapping_of(spaa_reader *r, uint32_t dso)
{
	uint32_t old = W.dmcap;
	grow_array((void **)&W.dso_mapping, &W.dmcap, dso + 1, sizeof *W.dso_mapping);
	for (uint32_t i = old; i < W.dmcap; i++) W.dso_mapping[i] = 0;
	if (W.dso_mapping[dso]) return (uint64_t)W.dso_mapping[dso];
	uint64_t id = ++W.nmappings;
	W.dso_mapping[dso] = (int64_t)id;
	const spaa_dso *d = &r->dsos[dso];
	sbuf *m = &W.msg;
	m->n = 0;
	pb_put_uint(m, 1, id);
	/* a script's file:// URL (V8's) is its path: pprof shows paths */
	const char *file = d->name ? d->name : "";
	size_t file_n = d->name ? d->name_n : 0;
	if (file_n > 7 && !memcmp(file, "file://", 7)) file += 7, file_n -= 7;
	pb_put_uint(m, 5, str_id(file, file_n));
	if (dso < W.dbcap && W.dso_build_id[dso]) pb_put_uint(m, 6, str_idc(W.dso_build_id[dso]));
	/* the names are what the profile says: pprof is not to look for the
	 * binaries and symbolize again (frames that are addresses stay so) */
	pb_put_uint(m, 7, 1);
	pb_put_uint(m, 8, 1);
	pb_put_uint(m, 9, 1);
	pb_put_uint(m, 10, 1);
	size_t off = W.mappings.n;
	pb_put_bytes(&W.mappings, 3, m->p, m->n);
	grow_array((void **)&W.mapmsg, &W.mmcap, (uint32_t)id, sizeof *W.mapmsg);
	W.mapmsg[id - 1] = (struct mapmsg){ off, W.mappings.n - off, dso };
	grow_array((void **)&W.dso_name, &W.dncap, dso + 1, sizeof *W.dso_name);
	W.dso_name[dso] = xstrdup(d->name ? d->name : "");
	return id;
}

/* "file:123" -> file and 123; a srcline without a line number is all file */
static void split_srcline(const char *s, size_t n, size_t *file_n, uint64_t *line)
{
	size_t i = n;
	while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9') i--;
	*file_n = n;
	*line = 0;
	if (i > 0 && i < n && s[i - 1] == ':' && n - i <= 19) {
		*file_n = i - 1;
		*line = strtoull(s + i, NULL, 10);
	}
}

static uint64_t function_of(const spaa_frame *f)
{
	size_t file_n = 0;
	uint64_t line;
	if (f->srcline) split_srcline(f->srcline, f->srcline_n, &file_n, &line);
	sbuf *k = &W.key;
	k->n = 0;
	sbuf_add(k, f->func, f->func_n);
	sbuf_addc(k, 0);
	if (f->srcline) sbuf_add(k, f->srcline, file_n);
	bool added;
	uint32_t i = strmap_intern(&W.fns, k->p, k->n, &added);
	if (added) {
		sbuf *m = &W.msg2;
		m->n = 0;
		pb_put_uint(m, 1, i + 1);
		pb_put_uint(m, 2, str_id(f->func, f->func_n));
		pb_put_uint(m, 3, str_id(f->func, f->func_n));
		if (f->srcline) pb_put_uint(m, 4, str_id(f->srcline, file_n));
		pb_put_bytes(&W.functions, 5, m->p, m->n);
	}
	return i + 1;
}

static uint64_t parse_hex(const char *s)
{
	if (!s || !(s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))) return 0;
	char *end;
	uint64_t v = strtoull(s + 2, &end, 16);
	return *end ? 0 : v;
}

/* The location of frames fr[0..n) (inlined ones, then the frame they sit
 * in; or one frame), as pprof lists them: line[0] the innermost. */
static uint64_t location_of(spaa_reader *r, const uint32_t *fr, uint32_t n)
{
	bool added;
	uint32_t i = strmap_intern(&W.locs, fr, n * sizeof *fr, &added);
	if (!added) return i + 1;
	const spaa_frame *phys = &r->frames[fr[n - 1]];
	uint64_t mapping = mapping_of(r, phys->dso); /* (which uses W.msg) */
	sbuf *m = &W.msg;
	m->n = 0;
	pb_put_uint(m, 1, i + 1);
	pb_put_uint(m, 2, mapping);
	uint64_t addr = parse_hex(phys->ip);
	if (addr) pb_put_uint(m, 3, addr);
	if (n == 1 && !phys->func_resolved) {
		/* an address only: a location with no line, for pprof to symbolize */
		pb_put_bytes(&W.locations, 4, m->p, m->n);
		return i + 1;
	}
	for (uint32_t k = 0; k < n; k++) {
		const spaa_frame *f = &r->frames[fr[k]];
		sbuf ln = { 0 };
		pb_put_uint(&ln, 1, function_of(f));
		if (f->srcline) {
			size_t file_n;
			uint64_t line;
			split_srcline(f->srcline, f->srcline_n, &file_n, &line);
			if (line) pb_put_uint(&ln, 2, line);
		}
		pb_put_bytes(m, 4, ln.p, ln.n);
		sbuf_free(&ln);
	}
	pb_put_bytes(&W.locations, 4, m->p, m->n);
	return i + 1;
}

/* ---- the records ------------------------------------------------------------------- */

static void take_header(spaa_reader *r, const char *want)
{
	if (want) {
		W.event = spaa_event_find(r, want, strlen(want));
		if (W.event < 0) {
			sbuf all = { 0 };
			for (uint32_t i = 0; i < r->nevents; i++) sbuf_printf(&all, "%s%s", i ? ", " : "", r->events[i].name);
			sbuf_addc(&all, 0);
			die_at(W.fname, r->lineno, "--event: no event '%s' in the header (events: %s)", want, all.p);
		}
	} else if (r->nevents == 1) {
		W.event = 0;
	} else if (r->nevents == 0) {
		die_at(W.fname, r->lineno, "the header declares no event: nothing to write");
	} else {
		sbuf all = { 0 };
		for (uint32_t i = 0; i < r->nevents; i++) sbuf_printf(&all, "%s%s", i ? ", " : "", r->events[i].name);
		sbuf_addc(&all, 0);
		die_at(W.fname, r->lineno, "the profile has %u events (%s): choose one with --event (a pprof "
		       "profile holds one)", r->nevents, all.p);
	}
	/* the primary metric becomes the default sample type: spaa(5) wants
	 * one, and every stack of the event to carry it */
	const char *pm = r->events[W.event].primary_metric;
	if (!pm || !*pm)
		die_at(W.fname, r->lineno, "event %s has no sampling.primary_metric %s", r->events[W.event].name,
		       pm ? "name (an empty string)" : "string");
	const spaa_event *ev_rec = &r->events[W.event];
	W.ev_name = xstrdup(ev_rec->name);
	W.ev_kind = ev_rec->kind ? xstrdup(ev_rec->kind) : NULL;
	W.ev_mode = ev_rec->mode ? xstrdup(ev_rec->mode) : NULL;
	/* the event's sampling: sample_period and x_period_type */
	uint32_t evs = json_get(&r->doc, 0, "events");
	uint32_t ev = json_first(&r->doc, evs);
	for (int32_t i = 0; i < W.event; i++) ev = json_after(&r->doc, ev);
	uint32_t smp = json_get(&r->doc, ev, "sampling");
	if (smp && r->doc.nodes[smp].type == JSON_OBJECT) {
		uint32_t p = json_get(&r->doc, smp, "sample_period");
		if (p && json_int64(&r->doc, p, &W.period)) W.has_period = true;
		uint32_t pt = json_get(&r->doc, smp, "x_period_type");
		if (pt && r->doc.nodes[pt].type == JSON_OBJECT) {
			uint32_t t = json_get(&r->doc, pt, "type"), u = json_get(&r->doc, pt, "unit");
			if (t && u && r->doc.nodes[t].type == JSON_STRING && r->doc.nodes[u].type == JSON_STRING) {
				W.period_type = str_id(r->doc.nodes[t].str, r->doc.nodes[t].count);
				W.period_unit = str_id(r->doc.nodes[u].str, r->doc.nodes[u].count);
				W.has_period_type = true;
			}
		}
	}
	/* x_metrics: the metrics in their order (pprof2spaa writes it), as
	 * the sample types; units come with the weights */
	uint32_t xm = smp ? json_get(&r->doc, smp, "x_metrics") : 0;
	if (xm && r->doc.nodes[xm].type == JSON_ARRAY) {
		uint32_t k = json_first(&r->doc, xm);
		for (uint32_t i = 0; i < r->doc.nodes[xm].count; i++, k = json_after(&r->doc, k))
			if (r->doc.nodes[k].type == JSON_STRING && r->doc.nodes[k].count > 0)
				metric_of(r->doc.nodes[k].str, r->doc.nodes[k].count, NULL, 0);
	}
	/* the time range, in nanoseconds */
	if (r->has_time_range) {
		uint32_t tr = json_get(&r->doc, 0, "time_range");
		uint32_t u = json_get(&r->doc, tr, "unit");
		int64_t s, e;
		if (u && json_is_str(&r->doc, u, "nanoseconds", 11) &&
		    json_int64(&r->doc, json_get(&r->doc, tr, "start"), &s) &&
		    json_int64(&r->doc, json_get(&r->doc, tr, "end"), &e) &&
		    !__builtin_sub_overflow(e, s, &W.duration_nanos)) {
			W.time_nanos = s;
			W.has_time = true;
		} else if (u && json_is_str(&r->doc, u, "seconds", 7) && fabs(r->tr_end) < 9e9 && fabs(r->tr_start) < 9e9) {
			W.time_nanos = llround(r->tr_start * 1e9);
			W.duration_nanos = llround((r->tr_end - r->tr_start) * 1e9);
			W.has_time = true;
		}
		/* a range that ends before it starts (spaa-validate warns of
		 * it) has no duration: pprof's is never negative */
		if (W.has_time && W.duration_nanos < 0) W.duration_nanos = 0;
		/* a clock that is not the wall clock (perf's, from boot; V8's
		 * monotonic one) would be a date in 1970: the duration only */
		if (W.has_time && W.time_nanos < WALL_CLOCK_FROM) W.time_nanos = 0;
	}
}

/* The weight of stack st that ranks mappings: its primary metric's */
static uint64_t rank_weight(const spaa_stack *st, const char *primary)
{
	for (uint32_t i = 0; i < st->nw; i++) {
		const spaa_weight *w = &st->w[i];
		if (primary && (w->metric.n != strlen(primary) || memcmp(w->metric.p, primary, w->metric.n))) continue;
		if (w->value.kind == NUM_INT && w->value.i > 0) return (uint64_t)w->value.i;
		if (w->value.kind == NUM_UINT) return w->value.u;
		if (w->value.kind == NUM_DBL && w->value.d > 0 && w->value.d < 1.8e19) return (uint64_t)w->value.d;
		return 0;
	}
	return 0;
}

/* Adds the stack's weight to each user dso in it (once) and to its comm. */
static void rank_stack(spaa_reader *r, const spaa_stack *st)
{
	uint64_t w = rank_weight(st, r->events[W.event].primary_metric);
	if (!w) w = 1;
	uint32_t old = W.dwcap;
	grow_array((void **)&W.dso_weight, &W.dwcap, r->dso_ids.count + 1, sizeof *W.dso_weight);
	for (uint32_t i = old; i < W.dwcap; i++) W.dso_weight[i] = 0;
	for (uint32_t i = 0; i < st->nframes; i++) {
		uint32_t d = r->frames[st->frames[i]].dso;
		bool seen = false;
		for (uint32_t j = 0; j < i && !seen; j++) seen = r->frames[st->frames[j]].dso == d;
		if (!seen && d < r->dso_ids.count && !r->dsos[d].is_kernel) W.dso_weight[d] = sat_add(W.dso_weight[d], w);
	}
	if (st->comm.p) {
		uint32_t c = strmap_intern(&W.comms, st->comm.p, st->comm.n, NULL);
		old = W.cwcap;
		grow_array((void **)&W.comm_weight, &W.cwcap, c + 1, sizeof *W.comm_weight);
		for (uint32_t i = old; i < W.cwcap; i++) W.comm_weight[i] = 0;
		W.comm_weight[c] = sat_add(W.comm_weight[c], w);
	}
}

static void take_dso(spaa_reader *r)
{
	uint32_t i = r->dso_ids.count - 1;
	uint32_t b = json_get(&r->doc, 0, "build_id");
	if (!b || r->doc.nodes[b].type != JSON_STRING) return;
	uint32_t old = W.dbcap;
	grow_array((void **)&W.dso_build_id, &W.dbcap, i + 1, sizeof *W.dso_build_id);
	for (uint32_t k = old; k < W.dbcap; k++) W.dso_build_id[k] = NULL;
	char *s = xmalloc(r->doc.nodes[b].count + 1);
	memcpy(s, r->doc.nodes[b].str, r->doc.nodes[b].count);
	s[r->doc.nodes[b].count] = 0;
	W.dso_build_id[i] = s;
}

static void put_label_str(const char *key, const char *s, size_t n)
{
	sbuf *m = &W.msg;
	m->n = 0;
	pb_put_uint(m, 1, str_idc(key));
	pb_put_uint(m, 2, str_id(s, n));
	pb_put_bytes(&W.labelbuf, 3, m->p, m->n);
}

static void put_label_num(const char *key, size_t key_n, int64_t v, const char *unit, size_t unit_n)
{
	sbuf *m = &W.msg;
	m->n = 0;
	pb_put_uint(m, 1, str_id(key, key_n));
	pb_put_int(m, 3, v);
	if (unit) pb_put_uint(m, 4, str_id(unit, unit_n));
	pb_put_bytes(&W.labelbuf, 3, m->p, m->n);
}

/* x_labels (pprof2spaa's): strings, numbers, {"num":N,"unit":U} */
static void take_labels(spaa_reader *r, uint32_t ctx)
{
	uint32_t xl = ctx ? json_get(&r->doc, ctx, "x_labels") : 0;
	if (!xl || r->doc.nodes[xl].type != JSON_OBJECT) return;
	const json_doc *d = &r->doc;
	uint32_t k = json_first(d, xl);
	for (uint32_t i = 0; i < d->nodes[xl].count; i++, k = json_after(d, k + 1)) {
		const json_node *key = &d->nodes[k], *v = &d->nodes[k + 1];
		int64_t n;
		if (v->type == JSON_STRING) {
			sbuf *m = &W.msg;
			m->n = 0;
			pb_put_uint(m, 1, str_id(key->str, key->count));
			pb_put_uint(m, 2, str_id(v->str, v->count));
			pb_put_bytes(&W.labelbuf, 3, m->p, m->n);
		} else if (json_int64(d, k + 1, &n)) {
			put_label_num(key->str, key->count, n, NULL, 0);
		} else if (v->type == JSON_OBJECT) {
			uint32_t nk = json_get(d, k + 1, "num"), uk = json_get(d, k + 1, "unit");
			if (nk && json_int64(d, nk, &n))
				put_label_num(key->str, key->count, n,
					      uk && d->nodes[uk].type == JSON_STRING ? d->nodes[uk].str : NULL,
					      uk ? d->nodes[uk].count : 0);
		}
	}
}

static void take_stack(spaa_reader *r, spaa_stack *st)
{
	if (spaa_stack_parse(r, st) != 0 || st->event != W.event) return;
	struct sample *s = VEC_PUSH(W.samples, W.nsamples, W.scap);
	/* locations, leaf first: a run of inlined frames ends with the
	 * frame they sit in */
	s->locs = W.nlocpool;
	s->nlocs = 0;
	uint32_t *fr = st->frames, n = st->nframes;
	uint32_t *tmp = NULL;
	if (!r->leaf_first) { /* root_to_leaf: reversed */
		tmp = xmalloc((n ? n : 1) * sizeof *tmp);
		for (uint32_t i = 0; i < n; i++) tmp[i] = fr[n - 1 - i];
		fr = tmp;
	}
	for (uint32_t i = 0; i < n;) {
		uint32_t j = i;
		while (j + 1 < n && r->frames[fr[j]].inlined) j++;
		grow_array((void **)&W.locpool, &W.lpcap, W.nlocpool + 1, sizeof *W.locpool);
		W.locpool[W.nlocpool++] = location_of(r, fr + i, j - i + 1);
		s->nlocs++;
		i = j + 1;
	}
	free(tmp);
	/* values: the primary metric among them (a profile without sample
	 * types is no pprof profile), each metric with a name */
	const char *pm = r->events[W.event].primary_metric;
	if (!spaa_weight_find(st->w, st->nw, pm))
		die_at(W.fname, r->lineno, "stack %.*s: weights lack the primary metric \"%s\" of event \"%s\"",
		       (int)st->id.n, st->id.p, pm, r->events[W.event].name);
	rank_stack(r, st);
	/* values */
	s->vals = W.nvalpool;
	s->nvals = st->nw;
	grow_array((void **)&W.valpool, &W.vpcap, W.nvalpool + st->nw, sizeof *W.valpool);
	for (uint32_t i = 0; i < st->nw; i++) {
		const spaa_weight *w = &st->w[i];
		if (w->metric.n == 0)
			die_at(W.fname, r->lineno, "stack %.*s: a weight with an empty metric name, which a pprof "
			       "sample type cannot have", (int)st->id.n, st->id.p);
		uint32_t m = metric_of(w->metric.p, w->metric.n, w->unit.p, w->unit.n);
		int64_t v;
		if (w->value.kind == NUM_INT) v = w->value.i;
		else if (w->value.kind == NUM_UINT && w->value.u <= INT64_MAX) v = (int64_t)w->value.u;
		else if (w->value.kind == NUM_DBL && w->value.d == trunc(w->value.d) && fabs(w->value.d) < 9.2e18)
			v = (int64_t)w->value.d;
		else {
			char buf[40];
			buf[num_fmt(buf, w->value)] = 0;
			die_at(W.fname, r->lineno, "stack %.*s: %.*s weight %s is not a signed 64-bit integer, "
			       "as pprof's values are", (int)st->id.n, st->id.p, (int)w->metric.n, w->metric.p, buf);
		}
		W.valpool[W.nvalpool++] = (struct mval){ m, v };
	}
	/* labels */
	s->labels = (uint32_t)W.labelbuf.n;
	if (st->has_pid) put_label_num("pid", 3, st->pid, NULL, 0);
	if (st->has_tid) put_label_num("tid", 3, st->tid, NULL, 0);
	if (st->comm.p) put_label_str("comm", st->comm.p, st->comm.n);
	take_labels(r, st->context);
	s->labels_n = (uint32_t)(W.labelbuf.n - s->labels);
}

static void read_profile(const char *path, const char *event)
{
	spaa_reader *r = spaa_open_any(path);
	W.fname = r->name;
	spaa_stack st = { 0 };
	enum spaa_rtype t;
	while ((t = spaa_next(r)) != SPAA_EOF) {
		if (t == SPAA_HEADER) take_header(r, event);
		else if (t == SPAA_DSO) take_dso(r);
		else if (t == SPAA_STACK) take_stack(r, &st);
	}
	spaa_need_header(r);
	if (W.nsamples == 0)
		die_no_stacks(W.fname, "the event '%s' has no stack", r->events[W.event].name);
	/* the primary metric: pprof's default sample type */
	const char *primary = r->events[W.event].primary_metric;
	W.primary = primary ? strmap_find(&W.metrics, primary, strlen(primary)) : -1;
	spaa_stack_free(&st);
	spaa_close(r);
}

/* ---- the message ----------------------------------------------------------------------- */

/* The main mapping, which pprof calls the profile's "File": the user dso
 * named like the most sampled comm, else the most sampled user dso that is
 * not a shared library, else the most sampled user dso; -1 when there is
 * none (a kernel-only profile).  *comm: the most sampled comm, NULL none. */
static int64_t main_mapping(const char **comm, size_t *comm_n)
{
	*comm = NULL;
	uint64_t best = 0;
	for (uint32_t c = 0; c < W.comms.count; c++)
		if (W.comm_weight[c] > best || !*comm) best = W.comm_weight[c], *comm = strmap_key(&W.comms, c, comm_n);
	int64_t pick = -1;
	int pick_rank = -1;
	uint64_t pick_w = 0;
	for (uint32_t i = 0; i < W.nmappings; i++) {
		uint32_t d = W.mapmsg[i].dso;
		if (d >= W.dwcap || !W.dso_weight[d]) continue;
		const char *name = W.dso_name[d], *base = strrchr(name, '/');
		base = base ? base + 1 : name;
		if (name[0] == '[' || !name[0]) continue;
		/* libraries: shared objects, Node.js's own modules (node:fs) and
		 * V8's pseudo ones ("(program)", under every stack) */
		bool lib = strstr(base, ".so") || !strncmp(name, "node:", 5) || name[0] == '(';
		int rank = *comm && !strncmp(base, *comm, *comm_n) ? 2 : lib ? 0 : 1;
		if (rank > pick_rank || (rank == pick_rank && W.dso_weight[d] > pick_w))
			pick = i, pick_rank = rank, pick_w = W.dso_weight[d];
	}
	return pick;
}

/* The sample type of metric name, as pprof users know it: pprof's heap
 * names; a perf clock event's period is CPU time in nanoseconds ("cpu"),
 * another event's period a count of it ("cycles", unit count). */
static const char *sample_type(const char *name, const char **unit)
{
	const char *t = pprof_metric(name);
	if (strcmp(name, "period") != 0 || !W.ev_name) return t;
	static char base[64];
	size_t n = strcspn(W.ev_name, ":");
	snprintf(base, sizeof base, "%.*s", (int)(n < 63 ? n : 63), W.ev_name);
	if (!strcmp(base, "cpu-clock") || !strcmp(base, "task-clock")) {
		if (!*unit) *unit = "nanoseconds";
		return "cpu";
	}
	if (*unit && !strcmp(*unit, "events")) *unit = "count"; /* perf's: pprof counts */
	return base[0] ? base : t;
}


static void write_profile(const char *outpath)
{
	sbuf out = { 0 }, m = { 0 }, packed = { 0 }, note = { 0 };
	uint32_t nm = W.metrics.count;
	int64_t *vals = xcalloc(nm ? nm : 1, sizeof *vals);
	uint32_t *type_id = xmalloc((nm ? nm : 1) * sizeof *type_id);
	const char **type_unit = xcalloc(nm ? nm : 1, sizeof *type_unit);
	/* the event and the metric names, as a comment pprof2spaa reads back:
	 * "spaa event=NAME kind=KIND mode=MODE metric.TYPE=METRIC..." */
	sbuf_printf(&note, "spaa event=%s", W.ev_name);
	if (W.ev_kind) sbuf_printf(&note, " kind=%s", W.ev_kind);
	if (W.ev_mode) sbuf_printf(&note, " mode=%s", W.ev_mode);
	for (uint32_t i = 0; i < nm; i++) {
		size_t n;
		const char *name = strmap_key(&W.metrics, i, &n);
		const char *unit = W.metric_unit[i] == UINT32_MAX ? NULL : strmap_key(&W.strs, W.metric_unit[i], &n);
		const char *type = sample_type(name, &unit);
		for (uint32_t j = 0; j < i; j++) /* two metrics of one type name: keep the name */
			if (type_id[j] == str_idc(type)) type = name;
		type_id[i] = str_idc(type);
		type_unit[i] = unit ? unit : "count";
		if (strcmp(type, pprof_metric(name)) != 0) sbuf_printf(&note, " metric.%s=%s", type, name);
		m.n = 0;
		pb_put_uint(&m, 1, type_id[i]);
		pb_put_uint(&m, 2, str_idc(type_unit[i]));
		pb_put_bytes(&out, 1, m.p, m.n);
	}
	/* the period: the header's, else that of the primary metric's type */
	if (!W.has_period_type && W.primary >= 0) {
		W.period_type = type_id[W.primary];
		W.period_unit = str_idc(type_unit[W.primary]);
		W.has_period_type = true;
	}
	for (uint32_t s = 0; s < W.nsamples; s++) {
		const struct sample *x = &W.samples[s];
		m.n = 0;
		packed.n = 0;
		for (uint32_t i = 0; i < x->nlocs; i++) pb_put_varint(&packed, W.locpool[x->locs + i]);
		pb_put_bytes(&m, 1, packed.p, packed.n);
		memset(vals, 0, nm * sizeof *vals);
		for (uint32_t i = 0; i < x->nvals; i++) {
			const struct mval *v = &W.valpool[x->vals + i];
			if (__builtin_add_overflow(vals[v->metric], v->v, &vals[v->metric]))
				die_at(W.fname, 0, "a stack's weights add up beyond 64 bits");
		}
		packed.n = 0;
		for (uint32_t i = 0; i < nm; i++) pb_put_varint(&packed, (uint64_t)vals[i]);
		pb_put_bytes(&m, 2, packed.p, packed.n);
		if (x->labels_n) sbuf_add(&m, W.labelbuf.p + x->labels, x->labels_n);
		pb_put_bytes(&out, 2, m.p, m.n);
	}
	/* the main mapping first (pprof's "File"), then the others */
	const char *comm;
	size_t comm_n;
	int64_t main_map = main_mapping(&comm, &comm_n);
	if (main_map < 0 && comm) { /* no user dso: the program's name */
		char *name = xmalloc(comm_n + 1); /* pprof shows a path's last part: no '/' */
		for (size_t i = 0; i < comm_n; i++) name[i] = comm[i] == '/' ? '_' : comm[i];
		m.n = 0;
		pb_put_uint(&m, 1, W.nmappings + 1);
		pb_put_uint(&m, 5, str_id(name, comm_n)); /* (the table keeps name) */
		pb_put_bytes(&out, 3, m.p, m.n);
	}
	if (main_map >= 0) sbuf_add(&out, W.mappings.p + W.mapmsg[main_map].off, W.mapmsg[main_map].n);
	for (uint32_t i = 0; i < W.nmappings; i++)
		if (i != main_map) sbuf_add(&out, W.mappings.p + W.mapmsg[i].off, W.mapmsg[i].n);
	sbuf_add(&out, W.locations.p, W.locations.n);
	sbuf_add(&out, W.functions.p, W.functions.n);
	if (W.has_time) {
		if (W.time_nanos) pb_put_int(&out, 9, W.time_nanos);
		pb_put_int(&out, 10, W.duration_nanos);
	}
	if (W.has_period_type) {
		m.n = 0;
		pb_put_uint(&m, 1, W.period_type);
		pb_put_uint(&m, 2, W.period_unit);
		pb_put_bytes(&out, 11, m.p, m.n);
	}
	if (W.has_period) pb_put_int(&out, 12, W.period);
	pb_put_uint(&out, 13, str_id(note.p, note.n));
	if (W.primary >= 0) pb_put_uint(&out, 14, type_id[W.primary]);
	/* the string table last: every index above is in it */
	for (uint32_t i = 0; i < W.strs.count; i++) {
		size_t n;
		const char *s = strmap_key(&W.strs, i, &n);
		pb_put_bytes(&out, 6, s, n);
	}
	output *o = output_open_gzip(outpath);
	out_write(o, out.p, out.n);
	output_close(o);
	free(vals);
	free(type_id);
	free(type_unit);
	sbuf_free(&note);
	sbuf_free(&out);
	sbuf_free(&m);
	sbuf_free(&packed);
}

int main(int argc, char **argv)
{
	cli_init(argc, argv);
	static const struct option longopts[] = {
		{ "event", required_argument, 0, 'e' },
		{ "output", required_argument, 0, 'o' },
		READERS_LONGOPTS,
		CLI_STD_LONGOPTS,
		{ 0, 0, 0, 0 }
	};
	const char *event = NULL, *outpath = NULL;
	int c;
	while ((c = getopt_long(argc, argv, "so:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'e': event = optarg; break;
		case 'o': outpath = optarg; break;
		READERS_OPT_CASES;
		CLI_STD_CASES(help);
		}
	}
	str_id("", 0); /* the string table starts with the empty string */
	read_profile(readers_operands(argv + optind, argc - optind), event);
	write_profile(outpath);
	return EXIT_OK;
}
