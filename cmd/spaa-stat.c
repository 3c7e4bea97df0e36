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

#include "cli.h"
#include "fold.h"
#include "hint.h"
#include "jsonw.h"
#include "output.h"
#include "rank.h"
#include "spaa.h"

static const char usage[] =
	"Usage: spaa-stat [OPTION]... [FILE]\n"
	"Summarise a SPAA file: source, events, time range, record counts, total\n"
	"weights, threads and the hottest functions.\n"
	"With no FILE, or when FILE is -, read standard input (plain, gzip or zstd).\n"
	"\n"
	"      --event=NAME     the event of the hottest functions (default: the first)\n"
	"  -m, --metric=NAME    their metric (default: the event's primary metric)\n"
	"  -n, --lines=N        how many hottest functions (default 5; 0: all)\n"
	"  -j, --json           one JSON object instead of text\n"
	FOLD_NAME_HELP
	"Output:\n"
	CLI_HELP_TAIL;

static const char *type_names[] = { "header", "dso", "frame", "thread", "stack", "sample", "window", "other" };
enum { NTYPES = 8 };

/* Total weight per (event, metric), in order of first appearance. */
typedef struct wtotal { uint32_t event, metric; num v; } wtotal;

/* A duration for people: 3 significant digits in the largest unit that
 * keeps it at least 1 ("17.2 µs", "1.72 s", "2.5 min"); a unit that is not a
 * time as it is ("%.9g UNIT"). */
static void put_duration(output *o, double d, const char *unit)
{
	static const struct { const char *name; double s; } units[] = {
		{ "seconds", 1 }, { "s", 1 }, { "milliseconds", 1e-3 }, { "ms", 1e-3 },
		{ "microseconds", 1e-6 }, { "us", 1e-6 }, { "nanoseconds", 1e-9 }, { "ns", 1e-9 },
	};
	double secs = -1;
	for (size_t i = 0; i < sizeof units / sizeof *units; i++)
		if (!strcmp(unit, units[i].name)) secs = d * units[i].s;
	if (!(secs >= 0) || !isfinite(secs)) {
		out_printf(o, "%.9g %s", d, unit);
		return;
	}
	if (secs >= 3600) out_printf(o, "%.3g h", secs / 3600);
	else if (secs >= 60) out_printf(o, "%.3g min", secs / 60);
	else if (secs >= 1) out_printf(o, "%.3g s", secs);
	else if (secs >= 1e-3) out_printf(o, "%.3g ms", secs * 1e3);
	else if (secs >= 1e-6) out_printf(o, "%.3g \u00b5s", secs * 1e6);
	else out_printf(o, "%.3g ns", secs * 1e9);
}

int main(int argc, char **argv)
{
	cli_init(argc, argv);
	static const struct option longopts[] = {
		{ "event", required_argument, 0, 'e' },
		{ "metric", required_argument, 0, 'm' },
		{ "lines", required_argument, 0, 'n' },
		{ "json", no_argument, 0, 'j' },
		CLI_OUT_LONGOPTS,
		FOLD_NAME_LONGOPTS,
		CLI_STD_LONGOPTS,
		{ 0, 0, 0, 0 }
	};
	const char *outpath = NULL, *opt_event = NULL, *opt_metric = NULL;
	uint64_t lines = 5;
	bool json = false, zstd = false;
	int c;
	fold_opts fo = { .inline_mode = -1 };
	while ((c = getopt_long(argc, argv, "m:n:o:zjhV", longopts, NULL)) != -1) {
		if (fold_opts_take(&fo, c, optarg)) continue;
		switch (c) {
		case 'e': opt_event = optarg; break;
		case 'm': opt_metric = optarg; break;
		case 'n': lines = opt_u64("-n", optarg); break;
		case 'j': json = true; break;
		CLI_OUT_CASES(outpath, zstd);
		CLI_STD_CASES(usage);
		}
	}
	if (argc - optind > 1) usage_error("one input file at most");

	spaa_reader *r = spaa_open(optind < argc ? argv[optind] : "-");
	uint64_t counts[NTYPES] = { 0 };
	strmap names, pairs;     /* event and metric names; "event\0metric" pairs */
	strmap_init(&names);
	strmap_init(&pairs);
	wtotal *tot = NULL;
	uint32_t ntot = 0, totcap = 0;
	ranker k;
	ranker_init(&k, RANK_FUNC, &fo);
	spaa_stack st = { 0 };
	int32_t event = -1;
	const char *ev_name = NULL, *metric = "samples";
	char *unit = NULL, *tool_version = NULL;
	sbuf key = { 0 };
	uint64_t nhot = 0;
	hint_stacks hs = { 0 };
	enum spaa_rtype t;
	while ((t = spaa_next(r)) != SPAA_EOF) {
		if (t == SPAA_BAD) continue;
		counts[t - SPAA_HEADER]++;
		if (t == SPAA_HEADER && counts[0] == 1) {
			fold_opts_header(&fo, r);
			event = fold_pick_event(r, opt_event, true);
			ev_name = event >= 0 ? r->events[event].name : NULL;
			metric = fold_pick_metric(r, event, opt_metric);
			hint_stacks_header(&hs, r);
			uint32_t tr = json_get(&r->doc, 0, "time_range");
			uint32_t u = tr ? json_get(&r->doc, tr, "unit") : 0;
			if (u && r->doc.nodes[u].type == JSON_STRING)
				unit = xmemdup(r->doc.nodes[u].str, r->doc.nodes[u].count);
			uint32_t src = json_get(&r->doc, 0, "source");
			uint32_t v = src ? json_get(&r->doc, src, "tool_version") : 0;
			if (v && r->doc.nodes[v].type == JSON_STRING)
				tool_version = xmemdup(r->doc.nodes[v].str, r->doc.nodes[v].count);
			continue;
		}
		if (t != SPAA_STACK || spaa_stack_parse(r, &st) < 0) continue;
		uint32_t e = strmap_intern(&names, st.event_name.p, st.event_name.n, NULL);
		for (uint32_t i = 0; i < st.nw; i++) {
			key.n = 0;
			sbuf_add(&key, st.event_name.p, st.event_name.n);
			sbuf_addc(&key, 0);
			sbuf_add(&key, st.w[i].metric.p, st.w[i].metric.n);
			bool added;
			uint32_t j = strmap_intern(&pairs, key.p, key.n, &added);
			if (added) {
				wtotal *w = VEC_PUSH(tot, ntot, totcap);
				w->event = e;
				w->metric = strmap_intern(&names, st.w[i].metric.p, st.w[i].metric.n, NULL);
				w->v = num_i(0);
			}
			if (!num_add(&tot[j].v, st.w[i].value))
				spaa_error(r, "the %.*s weights add up beyond 64 bits",
					   (int)st.w[i].metric.n, st.w[i].metric.p);
		}
		if (ev_name && !sstr_eqc(st.event_name, ev_name)) continue;
		const spaa_weight *w = spaa_weight_find(st.w, st.nw, metric);
		if (!w) continue;
		nhot++;
		if (!ranker_add(&k, r, &st, w->value))
			spaa_error(r, "weights add up beyond 64 bits");
		hint_stacks_add(&hs, r, &st, w->value);
	}
	spaa_need_header(r);
	hint_stacks_say(&hs, r->name);

	output *o = output_open(outpath, zstd);
	char buf[32];
	if (json) {
		out_puts(o, "{\"file\":");
		jw_strc(o, r->name);
		out_puts(o, ",\"source_tool\":");
		if (r->source_tool) jw_strc(o, r->source_tool); else out_puts(o, "null");
		out_puts(o, ",\"command\":");
		if (r->command) jw_strc(o, r->command); else out_puts(o, "null");
		out_puts(o, ",\"tool_version\":");
		if (tool_version) jw_strc(o, tool_version); else out_puts(o, "null");
		out_printf(o, ",\"frame_order\":\"%s\",\"stack_id_mode\":\"%s\",\"time_range\":",
			   r->leaf_first ? "leaf_to_root" : "root_to_leaf",
			   r->content_ids ? "content_addressable" : "local");
		if (r->has_time_range) {
			out_puts(o, "{\"start\":");
			out_write(o, buf, num_fmt(buf, num_d(r->tr_start)));
			out_puts(o, ",\"end\":");
			out_write(o, buf, num_fmt(buf, num_d(r->tr_end)));
			out_puts(o, ",\"unit\":");
			jw_strc(o, unit ? unit : "seconds");
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
			out_printf(o, "%s\"%s\":%llu", i ? "," : "", type_names[i], (unsigned long long)counts[i]);
		out_puts(o, "},\"weights\":[");
		for (uint32_t i = 0; i < ntot; i++) {
			out_puts(o, i ? ",{\"event\":" : "{\"event\":");
			jw_strc(o, strmap_key(&names, tot[i].event, NULL));
			out_puts(o, ",\"metric\":");
			jw_strc(o, strmap_key(&names, tot[i].metric, NULL));
			out_puts(o, ",\"value\":");
			jw_num(o, tot[i].v);
			out_putc(o, '}');
		}
		out_puts(o, "],\"threads\":[");
		for (uint32_t i = 0; i < r->thread_ids.count; i++) {
			const spaa_thread *th = &r->threads[i];
			out_printf(o, "%s{\"pid\":%lld,\"tid\":%lld,\"comm\":", i ? "," : "",
				   (long long)th->pid, (long long)th->tid);
			if (th->comm) jw_strc(o, th->comm); else out_puts(o, "null");
			out_putc(o, '}');
		}
		out_puts(o, "],\"hottest\":{\"event\":");
		if (ev_name) jw_strc(o, ev_name); else out_puts(o, "null");
		out_puts(o, ",\"metric\":");
		jw_strc(o, metric);
		out_puts(o, ",\"total\":");
		jw_num(o, k.grand);
		out_printf(o, ",\"stacks\":%llu,\"functions\":[", (unsigned long long)nhot);
		ranker_put_json(o, &k, false, lines, true);
		out_puts(o, "]}}\n");
	} else {
		out_printf(o, "file:        %s\n", r->name);
		out_printf(o, "source:      %s", r->source_tool ? r->source_tool : "(unknown)");
		if (tool_version) out_printf(o, " %s", tool_version);
		if (r->command) out_printf(o, ": %s", r->command);
		out_printf(o, "\nframe order: %s\nstack ids:   %s\n",
			   r->leaf_first ? "leaf_to_root" : "root_to_leaf",
			   r->content_ids ? "content_addressable" : "local");
		out_puts(o, "time range:  ");
		if (r->has_time_range) {
			out_write(o, buf, num_fmt(buf, r->tr_start_n));
			out_puts(o, " .. ");
			out_write(o, buf, num_fmt(buf, r->tr_end_n));
			out_puts(o, " (");
			put_duration(o, r->tr_end - r->tr_start, unit ? unit : "seconds");
			out_puts(o, ")\n");
		} else {
			out_puts(o, "(none)\n");
		}
		out_printf(o, "events:      %s", r->nevents ? "" : "(none)\n");
		for (uint32_t i = 0; i < r->nevents; i++) {
			const spaa_event *ev = &r->events[i];
			out_printf(o, "%s%s (kind %s, mode %s, primary metric %s)\n", i ? "             " : "",
				   ev->name ? ev->name : "?", ev->kind ? ev->kind : "?",
				   ev->mode ? ev->mode : "?", ev->primary_metric ? ev->primary_metric : "?");
		}
		out_puts(o, "records:     ");
		for (int i = 0; i < NTYPES; i++)
			out_printf(o, "%s%s %llu", i ? ", " : "", type_names[i], (unsigned long long)counts[i]);
		out_puts(o, "\nweights:     ");
		if (!ntot) out_puts(o, "(none)\n");
		for (uint32_t i = 0; i < ntot; i++) {
			bool first = i == 0 || tot[i - 1].event != tot[i].event;
			/* the pairs of one event are not always adjacent: group them */
			if (!first) continue;
			bool seen = false;
			for (uint32_t j = 0; j < i; j++) seen |= tot[j].event == tot[i].event;
			if (seen) continue;
			out_printf(o, "%s%s:", i ? "             " : "", strmap_key(&names, tot[i].event, NULL));
			for (uint32_t j = i; j < ntot; j++) {
				if (tot[j].event != tot[i].event) continue;
				out_printf(o, "%s%s ", j == i ? " " : ", ", strmap_key(&names, tot[j].metric, NULL));
				out_write(o, buf, num_fmt(buf, tot[j].v));
			}
			out_putc(o, '\n');
		}
		out_printf(o, "threads:     %u", r->thread_ids.count);
		for (uint32_t i = 0; i < r->thread_ids.count && i < 5; i++) {
			const spaa_thread *th = &r->threads[i];
			out_printf(o, "%s%s %lld/%lld", i ? ", " : " (", th->comm ? th->comm : "?",
				   (long long)th->pid, (long long)th->tid);
		}
		if (r->thread_ids.count > 5) out_puts(o, ", ...");
		out_puts(o, r->thread_ids.count ? ")\n" : "\n");
		out_printf(o, "hottest:     %s%s%s, total ", ev_name ? ev_name : "", ev_name ? "/" : "", metric);
		out_write(o, buf, num_fmt(buf, k.grand));
		out_printf(o, " in %llu stack%s\n", (unsigned long long)nhot, nhot == 1 ? "" : "s");
		ranker_put_table(o, &k, false, lines, "function");
	}
	output_close(o);
	sbuf_free(&key);
	free(unit);
	free(tool_version);
	free(tot);
	strmap_free(&names);
	strmap_free(&pairs);
	ranker_free(&k);
	spaa_stack_free(&st);
	spaa_close(r);
	return EXIT_OK;
}
