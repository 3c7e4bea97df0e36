/* spaa-stat - one screen about a SPAA file: where it came from, its events,
 * time range, record counts, total weight per event and metric, threads
 * and the five hottest functions.  --json gives the same as one object.
 *
 * One pass; memory grows with the dictionaries and unique names.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "readers/open.h"
#include "cli.h"
#include "fold.h"
#include "hint.h"
#include "jsonw.h"
#include "metric.h"
#include "output.h"
#include "rank.h"
#include "spaa.h"
#include "units.h"

static const char usage[] =
	"Usage: spaa-stat [OPTION]... [FILE]...\n"
	"Summarise a SPAA file: source, events, time range, record counts, total\n"
	"weights, threads and the hottest functions.\n"
	"With no FILE, or when FILE is -, read standard input (plain, gzip or zstd).\n"
	"\n"
	"      --event=NAME     the event of the hottest functions (default: the first)\n"
	"  -m, --metric=NAME    their metric (default: the event's primary metric);\n"
	"                       pprof's names too (inuse_space, alloc_objects ...)\n"
	"  -n, --lines=N        how many hottest functions (default 5; 0: all)\n"
	"  -J, --json           one JSON object instead of text (exact figures, with\n"
	"                       their unit)\n"
	UNITS_HELP
	FOLD_NAME_HELP
	"Output:\n"
	READERS_HELP
	CLI_HELP_TAIL;

static const char *type_names[] = { "header", "dso", "frame", "thread", "stack", "sample", "window", "other" };
enum { NTYPES = 8 };

static struct {
	const char *outpath, *event, *metric;
	uint64_t lines;
	bool json, zstd;
	fold_opts fo;
	units_opts uo;
} opt = { .lines = 5, .fo = { .inline_mode = -1 } };

/* Total weight per (event, metric), in order of first appearance, with the
 * unit of its first weight. */
typedef struct wtotal { uint32_t event, metric; num v; units unit; } wtotal;

/* What the one pass gathers. */
static struct {
	uint64_t counts[NTYPES];
	strmap names, pairs;     /* event and metric names; "event\0metric" pairs */
	wtotal *tot;
	uint32_t ntot, totcap;
	ranker k;                /* the hottest functions */
	const char *event;       /* their event, NULL: any */
	metric_pick metric;      /* and metric */
	uint64_t nhot;           /* stacks in k */
	hint_stacks hs;          /* do the stacks look broken? */
	char *unit, *tool_version;
} S;

static void parse_options(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "event", required_argument, 0, 'e' },
		{ "metric", required_argument, 0, 'm' },
		{ "lines", required_argument, 0, 'n' },
		{ "json", no_argument, 0, 'J' },
		CLI_OUT_LONGOPTS,
		UNITS_LONGOPTS,
		FOLD_NAME_LONGOPTS,
		READERS_LONGOPTS,
		CLI_STD_LONGOPTS,
		{ 0, 0, 0, 0 }
	};
	int c;
	while ((c = getopt_long(argc, argv, "m:n:so:zJhV", longopts, NULL)) != -1) {
		if (fold_opts_take(&opt.fo, c, optarg) || units_opts_take(&opt.uo, c)) continue;
		switch (c) {
		case 'e': opt.event = optarg; break;
		case 'm': opt.metric = optarg; break;
		case 'n': opt.lines = opt_u64("-n", optarg); break;
		case 'J': opt.json = true; break;
		CLI_OUT_CASES(opt.outpath, opt.zstd);
		READERS_OPT_CASES;
		CLI_STD_CASES(usage);
		}
	}
}

static char *header_string(const spaa_reader *r, const char *obj, const char *key)
{
	uint32_t o = json_get(&r->doc, 0, obj);
	uint32_t v = o ? json_get(&r->doc, o, key) : 0;
	if (!v || r->doc.nodes[v].type != JSON_STRING) return NULL;
	return xmemdup(r->doc.nodes[v].str, r->doc.nodes[v].count);
}

static void take_header(spaa_reader *r)
{
	fold_opts_header(&opt.fo, r);
	int32_t event = fold_pick_event(r, opt.event, true);
	S.event = event >= 0 ? r->events[event].name : NULL;
	metric_pick_init(&S.metric, fold_pick_metric(r, event, opt.metric), S.event);
	S.unit = header_string(r, "time_range", "unit");
	S.tool_version = header_string(r, "source", "tool_version");
	hint_stacks_header(&S.hs, r);
}

/* Adds the weights of a stack to the totals per (event, metric); kb is
 * scratch. */
static void add_totals(spaa_reader *r, const spaa_stack *st, sbuf *kb)
{
	uint32_t e = strmap_intern(&S.names, st->event_name.p, st->event_name.n, NULL);
	for (uint32_t i = 0; i < st->nw; i++) {
		const spaa_weight *w = &st->w[i];
		kb->n = 0;
		sbuf_add(kb, st->event_name.p, st->event_name.n);
		sbuf_addc(kb, 0);
		sbuf_add(kb, w->metric.p, w->metric.n);
		bool added;
		uint32_t j = strmap_intern(&S.pairs, kb->p, kb->n, &added);
		if (added) {
			wtotal *t = VEC_PUSH(S.tot, S.ntot, S.totcap);
			t->event = e;
			t->metric = strmap_intern(&S.names, w->metric.p, w->metric.n, NULL);
			t->v = num_i(0);
			t->unit = metric_units(w, st->event_name.p, st->event_name.n);
		}
		if (!num_add(&S.tot[j].v, w->value))
			spaa_error(r, "the %.*s weights add up beyond 64 bits", (int)w->metric.n, w->metric.p);
	}
}

/* The commands each thread ran when sampled (its stacks' comm: after an
 * exec, what it ran then), with their weights, for naming a thread by the
 * heaviest, as the folded stacks name it, not by its thread record's
 * first name (gcc for the cc1 it became). */
static struct {
	strmap tc;               /* tid (8 bytes) and comm -> index */
	double *w;
	uint32_t wcap;
	strmap tids;             /* tid -> index of best */
	uint32_t *best;          /* index in tc of the heaviest, per tid */
	uint32_t bcap;
} TC;

static void thread_comm_add(const spaa_stack *st, num v, sbuf *kb)
{
	if (!st->has_tid || !st->comm.p) return;
	kb->n = 0;
	sbuf_add(kb, &st->tid, sizeof st->tid);
	sbuf_add(kb, st->comm.p, st->comm.n);
	uint32_t i = strmap_intern(&TC.tc, kb->p, kb->n, NULL);
	uint32_t old = TC.wcap;
	grow_array((void **)&TC.w, &TC.wcap, i + 1, sizeof *TC.w);
	for (uint32_t j = old; j < TC.wcap; j++) TC.w[j] = 0;
	TC.w[i] += num_to_double(v);
}

/* After the pass: the heaviest command of each tid. */
static void thread_comm_pick(void)
{
	strmap_init(&TC.tids);
	for (uint32_t i = 0; i < TC.tc.count; i++) {
		size_t n;
		const char *k = strmap_key(&TC.tc, i, &n);
		bool added;
		uint32_t t = strmap_intern(&TC.tids, k, sizeof(int64_t), &added);
		grow_array((void **)&TC.best, &TC.bcap, t + 1, sizeof *TC.best);
		if (added || TC.w[i] > TC.w[TC.best[t]]) TC.best[t] = i;
	}
}

/* Thread th's name: the command it ran most when sampled, else its
 * record's (NULL none); *n its length. */
static const char *thread_comm(const spaa_thread *th, size_t *n)
{
	int64_t t = strmap_find(&TC.tids, &th->tid, sizeof th->tid);
	if (t < 0) {
		*n = th->comm ? strlen(th->comm) : 0;
		return th->comm;
	}
	size_t kn;
	const char *k = strmap_key(&TC.tc, TC.best[t], &kn);
	*n = kn - sizeof(int64_t);
	return k + sizeof(int64_t);
}

/* One pass: record counts, weight totals, the hottest functions. */
static void load(spaa_reader *r)
{
	strmap_init(&S.names);
	strmap_init(&S.pairs);
	strmap_init(&TC.tc);
	ranker_init(&S.k, RANK_FUNC, &opt.fo);
	S.k.shorten = !opt.uo.full_names && !opt.json;
	spaa_stack st = { 0 };
	sbuf key = { 0 };
	enum spaa_rtype t;
	while ((t = spaa_next(r)) != SPAA_EOF) {
		if (t == SPAA_BAD) continue;
		S.counts[t - SPAA_HEADER]++;
		if (t == SPAA_HEADER && S.counts[0] == 1) take_header(r);
		if (t != SPAA_STACK || spaa_stack_parse(r, &st) < 0) continue;
		add_totals(r, &st, &key);
		if (S.event && !sstr_eqc(st.event_name, S.event)) continue;
		const spaa_weight *w = metric_find(&S.metric, st.w, st.nw);
		if (!w) continue;
		S.nhot++;
		if (!ranker_add(&S.k, r, &st, w->value))
			spaa_error(r, "weights add up beyond 64 bits");
		hint_stacks_add(&S.hs, r, &st, w->value);
		thread_comm_add(&st, w->value, &key);
	}
	thread_comm_pick();
	spaa_need_header(r);
	metric_check(&S.metric, r->name, S.event);
	hint_stacks_say(&S.hs, r->name);
	sbuf_free(&key);
	spaa_stack_free(&st);
}

static void put_json(output *o, const spaa_reader *r)
{
	char buf[32];
	out_puts(o, "{\"file\":");
	jw_strc(o, r->name);
	out_puts(o, ",\"source_tool\":");
	if (r->source_tool) jw_strc(o, r->source_tool); else out_puts(o, "null");
	out_puts(o, ",\"command\":");
	if (r->command) jw_strc(o, r->command); else out_puts(o, "null");
	out_puts(o, ",\"tool_version\":");
	if (S.tool_version) jw_strc(o, S.tool_version); else out_puts(o, "null");
	out_printf(o, ",\"frame_order\":\"%s\",\"stack_id_mode\":\"%s\",\"time_range\":",
		   r->leaf_first ? "leaf_to_root" : "root_to_leaf",
		   r->content_ids ? "content_addressable" : "local");
	if (r->has_time_range) {
		out_puts(o, "{\"start\":");
		out_write(o, buf, num_fmt(buf, num_d(r->tr_start)));
		out_puts(o, ",\"end\":");
		out_write(o, buf, num_fmt(buf, num_d(r->tr_end)));
		out_puts(o, ",\"unit\":");
		jw_strc(o, S.unit ? S.unit : "seconds");
		out_putc(o, '}');
	} else {
		out_puts(o, "null");
	}
	out_puts(o, ",\"events\":[");
	for (uint32_t i = 0; i < r->nevents; i++) {
		const spaa_event *ev = &r->events[i];
		const char *f[4] = { ev->name, ev->kind, ev->mode, ev->primary_metric };
		const char *kn[4] = { "name", "kind", "mode", "primary_metric" };
		out_puts(o, i ? ",{" : "{");
		for (int j = 0; j < 4; j++) {
			out_printf(o, "%s\"%s\":", j ? "," : "", kn[j]);
			if (f[j]) jw_strc(o, f[j]); else out_puts(o, "null");
		}
		out_putc(o, '}');
	}
	out_puts(o, "],\"records\":{");
	for (int i = 0; i < NTYPES; i++)
		out_printf(o, "%s\"%s\":%llu", i ? "," : "", type_names[i], (unsigned long long)S.counts[i]);
	out_puts(o, "},\"weights\":[");
	for (uint32_t i = 0; i < S.ntot; i++) {
		out_puts(o, i ? ",{\"event\":" : "{\"event\":");
		jw_strc(o, strmap_key(&S.names, S.tot[i].event, NULL));
		out_puts(o, ",\"metric\":");
		jw_strc(o, strmap_key(&S.names, S.tot[i].metric, NULL));
		out_puts(o, ",\"value\":");
		jw_num(o, S.tot[i].v);
		out_puts(o, ",\"unit\":");
		jw_strc(o, S.tot[i].unit.name);
		out_putc(o, '}');
	}
	out_puts(o, "],\"threads\":[");
	for (uint32_t i = 0; i < r->thread_ids.count; i++) {
		const spaa_thread *th = &r->threads[i];
		out_printf(o, "%s{\"pid\":%lld,\"tid\":%lld,\"comm\":", i ? "," : "",
			   (long long)th->pid, (long long)th->tid);
		size_t cn;
		const char *c = thread_comm(th, &cn);
		if (c) jw_str(o, c, cn); else out_puts(o, "null");
		out_putc(o, '}');
	}
	out_puts(o, "],\"hottest\":{\"event\":");
	if (S.event) jw_strc(o, S.event); else out_puts(o, "null");
	out_puts(o, ",\"metric\":");
	jw_strc(o, metric_pick_name(&S.metric));
	out_puts(o, ",\"unit\":");
	jw_strc(o, S.metric.have_unit ? S.metric.unit.name : "count");
	out_puts(o, ",\"total\":");
	jw_num(o, S.k.grand);
	out_printf(o, ",\"stacks\":%llu,\"functions\":[", (unsigned long long)S.nhot);
	ranker_put_json(o, &S.k, false, opt.lines, true);
	out_puts(o, "]}}\n");
}

static long double ld(num v)
{
	return v.kind == NUM_INT ? (long double)v.i : v.kind == NUM_UINT ? (long double)v.u : (long double)v.d;
}

/* "2026-11-25T09:57:48.087541031Z + 502.44ms" (or "+1.50s + 2s" when the
 * clock is not a wall clock), exact numbers with --raw-units. */
static void put_time_range(output *o, const spaa_reader *r)
{
	char buf[32];
	if (!r->has_time_range) {
		out_puts(o, "(none)\n");
		return;
	}
	if (opt.uo.raw) {
		out_write(o, buf, num_fmt(buf, r->tr_start_n));
		out_puts(o, " .. ");
		out_write(o, buf, num_fmt(buf, r->tr_end_n));
		out_printf(o, " %s\n", S.unit ? S.unit : "seconds");
		return;
	}
	sbuf b = { 0 };
	units_time(&b, ld(r->tr_start_n), S.unit);
	sbuf_adds(&b, " + ");
	long double d = ld(r->tr_end_n) - ld(r->tr_start_n);
	units_duration(&b, d, S.unit);
	out_write(o, b.p, b.n);
	out_putc(o, '\n');
	sbuf_free(&b);
}

/* The weights line: per event, each metric's total in its unit. */
static void put_weights(output *o)
{
	if (!S.ntot) out_puts(o, "(none)\n");
	for (uint32_t i = 0; i < S.ntot; i++) {
		/* the pairs of one event are not always adjacent: group them */
		bool seen = false;
		for (uint32_t j = 0; j < i; j++) seen |= S.tot[j].event == S.tot[i].event;
		if (seen) continue;
		out_printf(o, "%s%s:", i ? "             " : "", strmap_key(&S.names, S.tot[i].event, NULL));
		for (uint32_t j = i; j < S.ntot; j++) {
			if (S.tot[j].event != S.tot[i].event) continue;
			out_printf(o, "%s%s ", j == i ? " " : ", ", strmap_key(&S.names, S.tot[j].metric, NULL));
			units_scale sc = units_auto(&S.tot[j].unit, &opt.uo, ld(S.tot[j].v));
			char b[UNITS_BUF];
			out_write(o, b, units_fmt(b, ld(S.tot[j].v), &sc));
		}
		out_putc(o, '\n');
	}
}

static void put_text(output *o, const spaa_reader *r)
{
	out_printf(o, "file:        %s\n", r->name);
	out_printf(o, "source:      %s", r->source_tool ? r->source_tool : "(unknown)");
	if (S.tool_version) out_printf(o, " %s", S.tool_version);
	if (r->command) out_printf(o, ": %s", r->command);
	out_printf(o, "\nframe order: %s\nstack ids:   %s\n",
		   r->leaf_first ? "leaf_to_root" : "root_to_leaf",
		   r->content_ids ? "content_addressable" : "local");
	out_puts(o, "time range:  ");
	put_time_range(o, r);
	out_printf(o, "events:      %s", r->nevents ? "" : "(none)\n");
	for (uint32_t i = 0; i < r->nevents; i++) {
		const spaa_event *ev = &r->events[i];
		out_printf(o, "%s%s (kind %s, mode %s, primary metric %s)\n", i ? "             " : "",
			   ev->name ? ev->name : "?", ev->kind ? ev->kind : "?",
			   ev->mode ? ev->mode : "?", ev->primary_metric ? ev->primary_metric : "?");
	}
	out_puts(o, "records:     ");
	for (int i = 0; i < NTYPES; i++)
		out_printf(o, "%s%s %llu", i ? ", " : "", type_names[i], (unsigned long long)S.counts[i]);
	out_puts(o, "\nweights:     ");
	put_weights(o);
	out_printf(o, "threads:     %u", r->thread_ids.count);
	for (uint32_t i = 0; i < r->thread_ids.count && i < 5; i++) {
		const spaa_thread *th = &r->threads[i];
		size_t cn;
		const char *c = thread_comm(th, &cn);
		out_printf(o, "%s%.*s %lld/%lld", i ? ", " : " (", c ? (int)cn : 1, c ? c : "?",
			   (long long)th->pid, (long long)th->tid);
	}
	if (r->thread_ids.count > 5) out_puts(o, ", ...");
	out_puts(o, r->thread_ids.count ? ")\n" : "\n");
	units_scale sc = ranker_scale(&S.k, false, opt.lines, &S.metric.unit, &opt.uo);
	char b[UNITS_BUF];
	out_printf(o, "hottest:     %s%s%s, total ", S.event ? S.event : "", S.event ? "/" : "",
		   metric_pick_name(&S.metric));
	out_write(o, b, units_fmt(b, ld(S.k.grand), &sc));
	out_printf(o, " in %llu stack%s\n", (unsigned long long)S.nhot, S.nhot == 1 ? "" : "s");
	ranker_put_table(o, &S.k, false, opt.lines, "function", &sc);
}

int main(int argc, char **argv)
{
	cli_init(argc, argv);
	parse_options(argc, argv);
	spaa_reader *r = readers_open_all(argv + optind, argc - optind);
	load(r);
	output *o = output_open(opt.outpath, opt.zstd);
	if (opt.json) put_json(o, r);
	else put_text(o, r);
	output_close(o);
	free(S.unit);
	free(S.tool_version);
	free(S.tot);
	strmap_free(&S.names);
	strmap_free(&S.pairs);
	strmap_free(&TC.tc);
	strmap_free(&TC.tids);
	free(TC.w);
	free(TC.best);
	ranker_free(&S.k);
	metric_pick_free(&S.metric);
	spaa_close(r);
	return EXIT_OK;
}
