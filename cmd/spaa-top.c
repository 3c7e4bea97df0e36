/* spaa-top - the functions (or dsos, or source lines) of a SPAA profile
 * ranked by self and total weight; with --callers/--callees, the sandwich
 * view of one function: who calls it and what it calls.
 *
 * One pass over the stacks of one event; memory grows with unique names.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fold.h"
#include "jsonw.h"
#include "output.h"
#include "rank.h"
#include "spaa.h"

static const char usage[] =
	"Usage: spaa-top [OPTION]... [FILE]\n"
	"Rank the functions of a SPAA profile by self and total weight.\n"
	"With no FILE, or when FILE is -, read standard input (plain, gzip or zstd).\n"
	"\n"
	"  -n, --lines=N        show the first N rows (default 10; 0: all)\n"
	"      --by=KEY         what to rank: func (default), dso or srcline\n"
	"      --sort=KEY       order of the rows: self (default) or total\n"
	"      --event=NAME     the event to read (default: the first declared)\n"
	"  -m, --metric=NAME    the weight to add up (default: the event's primary\n"
	"                       metric)\n"
	"      --callers=FUNC   who calls FUNC, with weights (sandwich view, top half)\n"
	"      --callees=FUNC   what FUNC calls, with weights (bottom half)\n"
	"  -j, --json           one JSON object per line instead of a table\n"
	FOLD_NAME_HELP
	"Output:\n"
	"  -o, --output=FILE    write to FILE (.zst and .gz compress)\n"
	"  -z, --zstd           compress the output with zstd\n"
	"  -h, --help           show this help and exit\n"
	"  -V, --version        show the version and exit\n"
	"\n"
	"self = weight of the stacks whose leaf is the function; total = weight of\n"
	"the stacks that contain it (once per stack, even when recursive).\n"
	"\n"
	"Exit status: 0 ok, 1 bad input or write error, 2 usage error.\n";

static const char *by_names[] = { "func", "dso", "srcline" };
static const char *by_heads[] = { "function", "dso", "srcline" };

static struct {
	uint64_t lines;
	int by;
	bool sort_total, json;
	const char *event, *metric, *callers, *callees;
} opt = { .lines = 10 };

static uint64_t nstack; /* stacks added up */

/* Neighbours of the focused function: weight per key. */
typedef struct side {
	num *w;
	uint64_t *stamp;
	uint32_t cap;
} side;

static void side_add(side *s, uint32_t key, num w, uint64_t stamp)
{
	if (key >= s->cap) {
		uint32_t old = s->cap, c = s->cap;
		grow_array((void **)&s->w, &c, key + 1, sizeof *s->w);
		grow_array((void **)&s->stamp, &s->cap, key + 1, sizeof *s->stamp);
		for (uint32_t j = old; j < s->cap; j++) {
			s->w[j] = num_i(0);
			s->stamp[j] = 0;
		}
	}
	if (s->stamp[key] == stamp) return;
	s->stamp[key] = stamp;
	if (!num_add(&s->w[key], w)) die(EXIT_DATA, "weights add up beyond 64 bits");
}

static void put_num(output *o, num v)
{
	char buf[32];
	out_write(o, buf, num_fmt(buf, v));
}

static void put_pct(output *o, double p)
{
	out_printf(o, "%.2f", p);
}

static void put_cell(output *o, const char *s, int width)
{
	for (int i = (int)strlen(s); i < width; i++) out_putc(o, ' ');
	out_puts(o, s);
}

/* The ranking table. */
static void put_top(output *o, const ranker *k, const char *event, const char *metric)
{
	if (opt.json) {
		out_puts(o, "{\"type\":\"summary\",\"event\":");
		if (event) jw_strc(o, event); else out_puts(o, "null");
		out_puts(o, ",\"metric\":");
		jw_strc(o, metric);
		out_printf(o, ",\"by\":\"%s\",\"total\":", by_names[opt.by]);
		put_num(o, k->grand);
		out_printf(o, ",\"stacks\":%llu}\n", (unsigned long long)nstack);
		ranker_put_json(o, k, opt.sort_total, opt.lines, false);
		return;
	}
	out_printf(o, "%s%s%s, total ", event ? event : "", event ? "/" : "", metric);
	put_num(o, k->grand);
	out_putc(o, '\n');
	ranker_put_table(o, k, opt.sort_total, opt.lines, by_heads[opt.by]);
}

static const ranker *sort_rk;
static const side *sort_side;

static int cmp_side(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = num_cmp(sort_side->w[y], sort_side->w[x]);
	if (!c) c = strcmp(ranker_name(sort_rk, x), ranker_name(sort_rk, y));
	return c;
}

/* One half of the sandwich: rows of (weight, % of the focus's total, name). */
static void put_side(output *o, const ranker *k, const side *s, num focus_total, const char *what)
{
	uint32_t n = 0;
	uint32_t *v = xmalloc(((size_t)s->cap + 1) * sizeof *v);
	for (uint32_t i = 0; i < s->cap; i++)
		if (s->stamp[i]) v[n++] = i;
	sort_rk = k;
	sort_side = s;
	xqsort(v, n, sizeof *v, cmp_side);
	if (opt.lines && n > opt.lines) n = (uint32_t)opt.lines;
	if (opt.json) {
		for (uint32_t i = 0; i < n; i++) {
			out_printf(o, "{\"type\":\"%s\",\"name\":", what);
			jw_strc(o, ranker_name(k, v[i]));
			out_puts(o, ",\"weight\":");
			put_num(o, s->w[v[i]]);
			out_puts(o, ",\"percent\":");
			put_pct(o, rank_percent(s->w[v[i]], focus_total));
			out_puts(o, "}\n");
		}
		free(v);
		return;
	}
	int ww = 6;
	for (uint32_t i = 0; i < n; i++) {
		int a = rank_num_width(s->w[v[i]]);
		if (a > ww) ww = a;
	}
	put_cell(o, "weight", ww);
	out_printf(o, "  weight%%  %s\n", what);
	for (uint32_t i = 0; i < n; i++) {
		rank_put_padded(o, s->w[v[i]], ww);
		out_puts(o, "  ");
		rank_put_pct_cell(o, rank_percent(s->w[v[i]], focus_total));
		out_puts(o, "  ");
		out_puts(o, ranker_name(k, v[i]));
		out_putc(o, '\n');
	}
	free(v);
}

int main(int argc, char **argv)
{
	cli_init(argc, argv);
	static const struct option longopts[] = {
		{ "lines", required_argument, 0, 'n' },
		{ "by", required_argument, 0, 'B' },
		{ "sort", required_argument, 0, 'S' },
		{ "event", required_argument, 0, 'e' },
		{ "metric", required_argument, 0, 'm' },
		{ "callers", required_argument, 0, 'C' },
		{ "callees", required_argument, 0, 'D' },
		{ "json", no_argument, 0, 'j' },
		{ "output", required_argument, 0, 'o' },
		{ "zstd", no_argument, 0, 'z' },
		FOLD_NAME_LONGOPTS,
		CLI_STD_LONGOPTS,
		{ 0, 0, 0, 0 }
	};
	const char *outpath = NULL;
	bool zstd = false;
	int c;
	fold_opts fo = { .inline_mode = -1 };
	while ((c = getopt_long(argc, argv, "n:m:o:zjhV", longopts, NULL)) != -1) {
		if (fold_opts_take(&fo, c, optarg)) continue;
		switch (c) {
		case 'n': opt.lines = opt_u64("-n", optarg); break;
		case 'B':
			if (!strcmp(optarg, "func")) opt.by = RANK_FUNC;
			else if (!strcmp(optarg, "dso")) opt.by = RANK_DSO;
			else if (!strcmp(optarg, "srcline")) opt.by = RANK_SRCLINE;
			else usage_error("--by: '%s' is not func, dso or srcline", optarg);
			break;
		case 'S':
			if (!strcmp(optarg, "self")) opt.sort_total = false;
			else if (!strcmp(optarg, "total")) opt.sort_total = true;
			else usage_error("--sort: '%s' is not self or total", optarg);
			break;
		case 'e': opt.event = optarg; break;
		case 'm': opt.metric = optarg; break;
		case 'C': opt.callers = optarg; break;
		case 'D': opt.callees = optarg; break;
		case 'j': opt.json = true; break;
		case 'z': zstd = true; break;
		case 'o': outpath = optarg; break;
		CLI_STD_CASES(usage);
		}
	}
	if (argc - optind > 1) usage_error("one input file at most");
	if (opt.callers && opt.callees && strcmp(opt.callers, opt.callees) != 0)
		usage_error("--callers and --callees must name the same function");
	const char *focus = opt.callers ? opt.callers : opt.callees;

	spaa_reader *r = spaa_open(optind < argc ? argv[optind] : "-");
	ranker k;
	ranker_init(&k, opt.by, &fo);
	uint32_t fkey = focus ? ranker_name_key(&k, focus, strlen(focus)) : 0;
	uint32_t k_root = 0, k_self = 0;
	side callers = { 0 }, callees = { 0 };
	spaa_stack st = { 0 };
	int32_t event = -1;
	const char *ev_name = NULL, *metric = NULL;
	uint64_t missing = 0;
	bool found = false;
	uint32_t *keys = NULL, kcap = 0;
	enum spaa_rtype t;
	while ((t = spaa_next(r)) != SPAA_EOF) {
		if (t == SPAA_HEADER) {
			fold_opts_header(&fo, r);
			event = fold_pick_event(r, opt.event, true);
			if (!opt.event && r->nevents > 1)
				warn_at(r->name, r->lineno, "%u events; ranking only %s (use --event)",
					r->nevents, r->events[0].name ? r->events[0].name : "the first");
			ev_name = event >= 0 ? r->events[event].name : NULL;
			metric = fold_pick_metric(r, event, opt.metric);
			if (focus) {
				k_root = ranker_name_key(&k, "[root]", 6);
				k_self = ranker_name_key(&k, "[self]", 6);
			}
			continue;
		}
		if (t != SPAA_STACK) continue;
		if (spaa_stack_parse(r, &st) < 0) continue;
		if (ev_name && !sstr_eqc(st.event_name, ev_name)) continue;
		const spaa_weight *w = spaa_weight_find(st.w, st.nw, metric);
		if (!w) {
			missing++;
			continue;
		}
		nstack++;
		if (!ranker_add(&k, r, &st, w->value))
			spaa_error(r, "weights add up beyond 64 bits");
		if (!focus || st.nframes == 0) continue;
		/* the stack's keys, root first */
		grow_array((void **)&keys, &kcap, st.nframes, sizeof *keys);
		bool has = false;
		for (uint32_t i = 0; i < st.nframes; i++) {
			keys[i] = ranker_frame_key(&k, r, spaa_stack_root_frame(r, &st, i));
			has |= keys[i] == fkey;
		}
		if (!has) continue;
		found = true;
		uint64_t stamp = nstack;
		for (uint32_t i = 0; i < st.nframes; i++) {
			if (keys[i] != fkey) continue;
			uint32_t up = i == 0 ? k_root : keys[i - 1];
			uint32_t down = i + 1 == st.nframes ? k_self : keys[i + 1];
			if (up != fkey) side_add(&callers, up, w->value, stamp);
			if (down != fkey) side_add(&callees, down, w->value, stamp);
		}
	}
	spaa_need_header(r);
	if (missing)
		warnmsg("%s: %llu stack%s of event %s %s no '%s' weight (left out)", r->name,
			(unsigned long long)missing, missing == 1 ? "" : "s", ev_name ? ev_name : "(any)",
			missing == 1 ? "has" : "have", metric);
	if (focus && !found)
		die(EXIT_DATA, "%s: no %s '%s' in the stacks of event %s", r->name,
		    by_heads[opt.by], focus, ev_name ? ev_name : "(any)");

	output *o = output_open(outpath, zstd);
	if (!focus) {
		put_top(o, &k, ev_name, metric);
	} else {
		if (opt.json) {
			out_puts(o, "{\"type\":\"focus\",\"name\":");
			jw_strc(o, focus);
			out_puts(o, ",\"event\":");
			if (ev_name) jw_strc(o, ev_name); else out_puts(o, "null");
			out_puts(o, ",\"metric\":");
			jw_strc(o, metric);
			out_puts(o, ",\"self\":");
			put_num(o, k.self[fkey]);
			out_puts(o, ",\"self_percent\":");
			put_pct(o, rank_percent(k.self[fkey], k.grand));
			out_puts(o, ",\"total\":");
			put_num(o, k.total[fkey]);
			out_puts(o, ",\"total_percent\":");
			put_pct(o, rank_percent(k.total[fkey], k.grand));
			out_puts(o, ",\"profile_total\":");
			put_num(o, k.grand);
			out_puts(o, "}\n");
		} else {
			out_printf(o, "%s%s%s, %s: self ", ev_name ? ev_name : "", ev_name ? "/" : "", metric, focus);
			put_num(o, k.self[fkey]);
			out_puts(o, " (");
			put_pct(o, rank_percent(k.self[fkey], k.grand));
			out_puts(o, "%), total ");
			put_num(o, k.total[fkey]);
			out_puts(o, " (");
			put_pct(o, rank_percent(k.total[fkey], k.grand));
			out_puts(o, "%) of ");
			put_num(o, k.grand);
			out_putc(o, '\n');
		}
		if (opt.callers) put_side(o, &k, &callers, k.total[fkey], "caller");
		if (opt.callers && opt.callees && !opt.json) out_putc(o, '\n');
		if (opt.callees) put_side(o, &k, &callees, k.total[fkey], "callee");
	}
	output_close(o);
	free(keys);
	free(callers.w);
	free(callers.stamp);
	free(callees.w);
	free(callees.stamp);
	spaa_stack_free(&st);
	ranker_free(&k);
	spaa_close(r);
	return EXIT_OK;
}
