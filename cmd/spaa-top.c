/* spaa-top - the functions (or dsos, or source lines) of a SPAA profile
 * ranked by self and total weight; with --callers/--callees, the sandwich
 * view of one function: who calls it and what it calls.
 *
 * One pass over the stacks of one event; memory grows with unique names.
 */
#include <getopt.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "readers/open.h"
#include "spaapar.h"
#include "cli.h"
#include "filter.h"
#include "fold.h"
#include "hint.h"
#include "jsonw.h"
#include "metric.h"
#include "output.h"
#include "rank.h"
#include "build.h"
#include "cat.h"
#include "spaa.h"
#include "units.h"

static const char usage[] =
	"Usage: spaa-top [OPTION]... [FILE]...\n"
	"Rank the functions of a SPAA profile by self and total weight.\n"
	"With no FILE, or when FILE is -, read standard input (plain, gzip or zstd);\n"
	"several FILEs are merged as spaa-cat --merge merges them.\n"
	"\n"
	"  -n, --lines=N        show the first N rows (default 10; 0: all)\n"
	"      --by=KEYS        what to rank: func (default), dso, srcline, file\n"
	"                       (the srcline's file), comm, pid or tid; several,\n"
	"                       comma-separated, as perf report --sort\n"
	"      --sort=KEY       order of the rows: self (default) or total\n"
	"      --node-fraction=F\n"
	"                       leave out the rows whose total is below F (0 to 1)\n"
	"                       of the total after the filters (pprof's -nodefraction)\n"
	"      --event=NAME     the event to read (default: the first declared)\n"
	"  -m, --metric=NAME    the weight to add up (default: the event's primary\n"
	"                       metric); pprof's names too (inuse_space, alloc_objects,\n"
	"                       cpu, samples ...)\n"
	"      --callers=FUNC   who calls FUNC, with weights (sandwich view, top half)\n"
	"      --callees=FUNC   what FUNC calls, with weights (bottom half)\n"
	"  -E, --regex          FUNC is a POSIX extended regex: every function it\n"
	"                       matches is the focus\n"
	"  -i, --ignore-case    FUNC (a regex) matches case-insensitively\n"
	"      --depth=N        the callers' and callees' trees, N levels (default 1)\n"
	"  -J, --json           one JSON object per line instead of a table (exact\n"
	"                       figures, with their unit)\n"
	UNITS_HELP
	FILTER_HELP
	FOLD_NAME_HELP
	"flat = weight of the stacks whose leaf is the function; cum = weight of\n"
	"the stacks that contain it (once per stack, even when recursive); sum% adds\n"
	"up flat% down the table, as go tool pprof -top prints them (percentages of\n"
	"the whole profile, before the filters; ties in name order; \"(inline)\" after\n"
	"a function only ever called inlined).\n"
	"\n"
	"Speed:\n"
	"  -j, --jobs=N         threads: with 2 or more, a SPAA file is read in parts\n"
	"                       on N threads, and perf.data and perf script text are\n"
	"                       read on N threads (default: the online cores)\n"
	"Output:\n"
	READERS_HELP
	CLI_HELP_TAIL;

static const char *by_heads[RANK_NBY] = { "function", "dso", "srcline", "file", "comm", "pid", "tid" };

static struct {
	uint64_t lines;
	int by;
	bool sort_total, json, regex, icase;
	uint32_t depth;
	const char *event, *metric, *callers, *callees, *focus, *outpath;
	bool zstd;
	uint8_t bys[RANK_MAXBY];
	uint32_t nby;
	bool have_nf;
	double node_fraction;
	frame_filter ff;
	fold_opts fo;
	units_opts uo;
	unsigned jobs;
} opt = { .lines = 10, .depth = 1, .nby = 1, .fo = { .inline_mode = -1 } };

/* What one pass over the stacks gathers. */
static struct {
	const char *event;     /* the event's name, NULL: stacks of any event */
	metric_pick metric;
	uint64_t nstack;       /* stacks added up */
	num whole;             /* the weight of every stack, before the filters */
	ranker k;
	bool found;            /* the focus was in a stack */
	num fself, ftotal;     /* the focus's self and total */
	uint32_t k_root, k_self;
	uint32_t *keys, kcap;  /* a stack's keys, root first (the focus's scratch) */
	hint_stacks hs;        /* do the stacks look broken? */
	uint64_t fstamp;       /* add_focus's calls */
	uint64_t abs;          /* the magnitudes of the weights added (spaapar.h) */
} T;

/* One half of the sandwich, as a tree: the callers (or callees) of the
 * focused function, then theirs, up to --depth levels.  A node is a path of
 * keys away from the focus; its weight is that of the stacks that hold the
 * path next to an occurrence of the focus, each stack counted once per node
 * (recursion counted once).  A walk stops at the root ("[root]"), the leaf
 * ("[self]") or another occurrence of the focus. */
typedef struct tree {
	strmap index;          /* (parent, key) -> node */
	struct tnode { uint32_t parent, key, depth; num w; uint64_t stamp; } *n;
	uint32_t count, cap;
} tree;

#define TREE_TOP UINT32_MAX   /* the parent of the first level */

static void tree_add(tree *t, uint32_t parent, uint32_t key, num w, uint64_t stamp, uint32_t *node)
{
	uint32_t kb[2] = { parent, key };
	bool fresh;
	uint32_t i = strmap_intern(&t->index, (const char *)kb, sizeof kb, &fresh);
	if (fresh) {
		grow_array((void **)&t->n, &t->cap, i + 1, sizeof *t->n);
		t->n[i] = (struct tnode){ parent, key, parent == TREE_TOP ? 1 : t->n[parent].depth + 1, num_i(0), 0 };
		t->count = i + 1;
	}
	*node = i;
	if (t->n[i].stamp == stamp) return;
	t->n[i].stamp = stamp;
	if (!num_add(&t->n[i].w, w)) die(EXIT_DATA, "weights add up beyond 64 bits");
}

static void put_num(output *o, num v)
{
	char buf[32];
	out_write(o, buf, num_fmt(buf, v));
}

static long double ld(num v)
{
	return v.kind == NUM_INT ? (long double)v.i : v.kind == NUM_UINT ? (long double)v.u : (long double)v.d;
}

/* A figure in the metric's unit, in scale sc ("1.71s"), or exact with
 * --raw-units. */
static void put_fig(output *o, num v, const units_scale *sc)
{
	char b[UNITS_BUF];
	out_write(o, b, units_fmt(b, ld(v), sc));
}

static void put_pct_json(output *o, num part, num whole)
{
	out_printf(o, "%.2f", rank_percent(part, whole));
}

/* "EVENT/METRIC" (or "METRIC" for stacks of any event) */
static void put_what(output *o)
{
	out_printf(o, "%s%s%s", T.event ? T.event : "", T.event ? "/" : "", metric_pick_name(&T.metric));
}

static void put_json_head(output *o)
{
	out_puts(o, ",\"event\":");
	if (T.event) jw_strc(o, T.event); else out_puts(o, "null");
	out_puts(o, ",\"metric\":");
	jw_strc(o, metric_pick_name(&T.metric));
	out_puts(o, ",\"unit\":");
	jw_strc(o, T.metric.have_unit ? T.metric.unit.name : "count");
}

/* The ranking table. */
static void put_top(output *o)
{
	const ranker *k = &T.k;
	if (opt.json) {
		out_puts(o, "{\"type\":\"summary\"");
		put_json_head(o);
		out_puts(o, ",\"by\":\"");
		for (uint32_t i = 0; i < opt.nby; i++)
			out_printf(o, "%s%s", i ? "," : "", rank_by_names[opt.bys[i]]);
		out_puts(o, "\",\"total\":");
		put_num(o, filter_active(&opt.ff) ? T.whole : k->grand);
		if (filter_active(&opt.ff)) {
			out_puts(o, ",\"filtered_total\":");
			put_num(o, k->grand);
		}
		out_printf(o, ",\"stacks\":%llu}\n", (unsigned long long)T.nstack);
		ranker_put_json(o, k, opt.sort_total, opt.lines, false);
		return;
	}
	units_scale sc = ranker_scale(k, opt.sort_total, opt.lines, &T.metric.unit, &opt.uo);
	put_what(o);
	out_puts(o, ", total ");
	if (filter_active(&opt.ff)) {
		/* as pprof: percentages of the whole profile */
		char p[16];
		put_fig(o, T.whole, &sc);
		out_puts(o, ", ");
		put_fig(o, k->grand, &sc);
		size_t n = units_pct(p, ld(k->grand), ld(T.whole));
		size_t sp = strspn(p, " ");
		out_printf(o, " (%.*s) after the filters", (int)(n - sp), p + sp);
	} else {
		put_fig(o, k->grand, &sc);
	}
	out_putc(o, '\n');
	ranker_put_table(o, k, opt.sort_total, opt.lines, by_heads[opt.by], &sc);
}

static const ranker *sort_rk;
static const tree *sort_tree;

/* Siblings together (by parent), heaviest first, then by name. */
static int cmp_node(const void *a, const void *b)
{
	const struct tnode *x = &sort_tree->n[*(const uint32_t *)a], *y = &sort_tree->n[*(const uint32_t *)b];
	if (x->parent != y->parent) return x->parent < y->parent ? -1 : 1;
	int c = num_cmp(y->w, x->w);
	if (!c) c = strcmp(ranker_name(sort_rk, x->key), ranker_name(sort_rk, y->key));
	return c;
}

static void put_node(output *o, const tree *t, uint32_t i, const char *what, int ww, const units_scale *sc)
{
	const struct tnode *nd = &t->n[i];
	if (opt.json) {
		out_printf(o, "{\"type\":\"%s\",\"depth\":%u,\"name\":", what, nd->depth);
		jw_strc(o, ranker_name(&T.k, nd->key));
		out_puts(o, ",\"weight\":");
		put_num(o, nd->w);
		out_puts(o, ",\"percent\":");
		put_pct_json(o, nd->w, T.ftotal);
		out_puts(o, "}\n");
		return;
	}
	char b[UNITS_BUF];
	units_fmt(b, ld(nd->w), sc);
	rank_put_cell(o, b, ww);
	out_putc(o, ' ');
	out_write(o, b, units_pct(b, ld(nd->w), ld(T.ftotal)));
	out_puts(o, "  ");
	for (uint32_t d = 1; d < nd->depth; d++) out_puts(o, "  ");
	out_puts(o, ranker_name(&T.k, nd->key));
	out_putc(o, '\n');
}

/* One half of the sandwich: rows of (weight, % of the focus's total, name),
 * depth first, each level's rows heaviest first (at most -n per parent). */
static void put_side(output *o, const tree *t, const char *what)
{
	uint32_t n = t->count;
	uint32_t *v = xmalloc(((size_t)n + 1) * sizeof *v);
	for (uint32_t i = 0; i < n; i++) v[i] = i;
	sort_rk = &T.k;
	sort_tree = t;
	xqsort(v, n, sizeof *v, cmp_node);
	/* first[p]: where node p's children start in v (TREE_TOP's: 0) */
	uint32_t *first = xmalloc(((size_t)n + 1) * sizeof *first);
	for (uint32_t i = 0; i <= n; i++) first[i] = UINT32_MAX;
	for (uint32_t j = n; j-- > 0;) {
		uint32_t p = t->n[v[j]].parent;
		first[p == TREE_TOP ? n : p] = j;
	}
	num *w = xmalloc(((size_t)n + 1) * sizeof *w);
	for (uint32_t i = 0; i < n; i++) w[i] = t->n[i].w;
	units_scale sc = rank_scale(&T.metric.unit, &opt.uo, w, n, T.ftotal);
	int ww = 10;
	for (uint32_t i = 0; i < n; i++) {
		char b[UNITS_BUF];
		int a = (int)units_fmt(b, ld(w[i]), &sc);
		if (a > ww) ww = a;
	}
	free(w);
	if (!opt.json) {
		rank_put_cell(o, "weight", ww);
		out_printf(o, "      %%  %s\n", what);
	}
	/* depth first, with an explicit stack of (parent slot, next index) */
	struct frame_ { uint32_t slot, j, shown; } *st = xmalloc(((size_t)opt.depth + 2) * sizeof *st);
	uint32_t sp = 0;
	st[sp++] = (struct frame_){ n, first[n], 0 };
	while (sp) {
		struct frame_ *f = &st[sp - 1];
		uint32_t parent = f->slot == n ? TREE_TOP : f->slot;
		if (f->j >= n || t->n[v[f->j]].parent != parent || (opt.lines && f->shown >= opt.lines)) {
			sp--;
			continue;
		}
		uint32_t node = v[f->j++];
		f->shown++;
		put_node(o, t, node, what, ww, &sc);
		if (first[node] != UINT32_MAX) st[sp++] = (struct frame_){ node, first[node], 0 };
	}
	free(st);
	free(first);
	free(v);
}

/* The sandwich view: the focus's figures, then its callers and callees. */
static void put_focus(output *o, const tree *callers, const tree *callees)
{
	const char *focus = opt.focus;
	if (opt.json) {
		out_puts(o, "{\"type\":\"focus\",\"name\":");
		jw_strc(o, focus);
		put_json_head(o);
		out_puts(o, ",\"self\":");
		put_num(o, T.fself);
		out_puts(o, ",\"self_percent\":");
		put_pct_json(o, T.fself, T.k.grand);
		out_puts(o, ",\"total\":");
		put_num(o, T.ftotal);
		out_puts(o, ",\"total_percent\":");
		put_pct_json(o, T.ftotal, T.k.grand);
		out_puts(o, ",\"profile_total\":");
		put_num(o, T.k.grand);
		out_puts(o, "}\n");
	} else {
		num figs[2] = { T.fself, T.ftotal };
		units_scale sc = rank_scale(&T.metric.unit, &opt.uo, figs, 2, T.k.grand);
		char p[16];
		put_what(o);
		out_printf(o, ", %s: self ", focus);
		put_fig(o, T.fself, &sc);
		out_puts(o, " (");
		size_t n = units_pct(p, ld(T.fself), ld(T.k.grand));
		size_t sp = strspn(p, " ");
		out_write(o, p + sp, n - sp);
		out_puts(o, "), total ");
		put_fig(o, T.ftotal, &sc);
		out_puts(o, " (");
		n = units_pct(p, ld(T.ftotal), ld(T.k.grand));
		sp = strspn(p, " ");
		out_write(o, p + sp, n - sp);
		out_puts(o, ") of ");
		put_fig(o, T.k.grand, &sc);
		out_putc(o, '\n');
	}
	if (opt.callers) put_side(o, callers, "caller");
	if (opt.callers && opt.callees && !opt.json) out_putc(o, '\n');
	if (opt.callees) put_side(o, callees, "callee");
}

/* Is key a focused function: the name given, or with -E any name the
 * regex matches (decided once per key). */
static regex_t focus_re;
static uint8_t *focus_known; /* per key: 0 not yet, 1 yes, 2 no */
static uint32_t focus_cap;
static uint32_t focus_key;

static bool is_focus(const ranker *k, uint32_t key)
{
	if (!opt.regex) return key == focus_key;
	if (key >= focus_cap) {
		uint32_t old = focus_cap;
		grow_array((void **)&focus_known, &focus_cap, key + 1, 1);
		memset(focus_known + old, 0, focus_cap - old);
	}
	if (!focus_known[key])
		focus_known[key] = regexec(&focus_re, ranker_name(k, key), 0, NULL, 0) == 0 ? 1 : 2;
	return focus_known[key] == 1;
}

/* The options; usage errors exit 2. */
static void parse_options(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "lines", required_argument, 0, 'n' },
		{ "by", required_argument, 0, 'B' },
		{ "sort", required_argument, 0, 'S' },
		{ "event", required_argument, 0, 'e' },
		{ "metric", required_argument, 0, 'm' },
		{ "jobs", required_argument, 0, 'j' },
		{ "callers", required_argument, 0, 'C' },
		{ "callees", required_argument, 0, 'D' },
		{ "json", no_argument, 0, 'J' },
		{ "regex", no_argument, 0, 'E' },
		{ "ignore-case", no_argument, 0, 'i' },
		{ "depth", required_argument, 0, 'd' },
		{ "node-fraction", required_argument, 0, 'F' },
		FILTER_LONGOPTS,
		CLI_OUT_LONGOPTS,
		UNITS_LONGOPTS,
		FOLD_NAME_LONGOPTS,
		READERS_LONGOPTS,
		CLI_STD_LONGOPTS,
		{ 0, 0, 0, 0 }
	};
	int c;
	while ((c = getopt_long(argc, argv, "n:m:j:so:zJEihV", longopts, NULL)) != -1) {
		if (fold_opts_take(&opt.fo, c, optarg) || units_opts_take(&opt.uo, c) || filter_take(&opt.ff, c, optarg))
			continue;
		switch (c) {
		case 'n': opt.lines = opt_u64("-n", optarg); break;
		case 'B': {
			const char *bad;
			if (!rank_parse_by(optarg, opt.bys, &opt.nby, &bad))
				usage_error("--by: '%s' is not func, dso, srcline, file, comm, pid or tid "
					    "(each once, at most %d)", bad, RANK_MAXBY);
			opt.by = opt.bys[0];
			break;
		}
		case 'F': {
			char *end;
			double f = strtod(optarg, &end);
			if (end == optarg || *end || !(f >= 0 && f <= 1))
				usage_error("--node-fraction: '%s' is not a number from 0 to 1", optarg);
			opt.node_fraction = f;
			opt.have_nf = true;
			break;
		}
		case 'S':
			if (!strcmp(optarg, "self")) opt.sort_total = false;
			else if (!strcmp(optarg, "total")) opt.sort_total = true;
			else usage_error("--sort: '%s' is not self or total", optarg);
			break;
		case 'e': opt.event = optarg; break;
		case 'm': opt.metric = optarg; break;
		case 'j': opt.jobs = opt_jobs("--jobs", optarg); readers_option("jobs", optarg); break;
		case 'C': opt.callers = optarg; break;
		case 'D': opt.callees = optarg; break;
		case 'J': opt.json = true; break;
		case 'E': opt.regex = true; break;
		case 'i': opt.icase = true; break;
		case 'd': {
			uint64_t d = opt_u64("--depth", optarg);
			if (d < 1 || d > 1000) usage_error("--depth: '%s' is not from 1 to 1000", optarg);
			opt.depth = (uint32_t)d;
			break;
		}
		CLI_OUT_CASES(opt.outpath, opt.zstd);
		READERS_OPT_CASES;
		CLI_STD_CASES(usage);
		}
	}
	if (opt.callers && opt.callees && strcmp(opt.callers, opt.callees) != 0)
		usage_error("--callers and --callees must name the same function");
	opt.focus = opt.callers ? opt.callers : opt.callees;
	if (opt.focus && (opt.nby > 1 || opt.by == RANK_COMM || opt.by == RANK_PID || opt.by == RANK_TID))
		usage_error("--callers and --callees go with one key of frames (func, dso, srcline or file)");
	if (!opt.nby) opt.nby = 1;
	opt.bys[0] = (uint8_t)opt.by;
	filter_compile(&opt.ff, &opt.fo);
	if ((opt.regex || opt.icase || opt.depth > 1) && !opt.focus)
		usage_error("-E, -i and --depth go with --callers or --callees");
	if (opt.icase) opt.regex = true;
	if (!opt.jobs) opt.jobs = cli_jobs();
	if (opt.regex) {
		int rc = regcomp(&focus_re, opt.focus, REG_EXTENDED | REG_NOSUB | (opt.icase ? REG_ICASE : 0));
		if (rc != 0) {
			char msg[256];
			regerror(rc, &focus_re, msg, sizeof msg);
			usage_error("'%s': %s", opt.focus, msg);
		}
	}
}

/* The header: the event and metric to read. */
static void take_header(spaa_reader *r)
{
	fold_opts_header(&opt.fo, r);
	int32_t event = fold_pick_event(r, opt.event, true);
	if (!opt.event && r->nevents > 1)
		warn_at(r->name, r->lineno, "%u events; ranking only %s (use --event)",
			r->nevents, r->events[0].name ? r->events[0].name : "the first");
	T.event = event >= 0 ? r->events[event].name : NULL;
	if (!T.metric.want) metric_pick_init(&T.metric, fold_pick_metric(r, event, opt.metric), T.event);
	hint_stacks_header(&T.hs, r);
	if (opt.focus) {
		T.k_root = ranker_name_key(&T.k, "[root]", 6);
		T.k_self = ranker_name_key(&T.k, "[self]", 6);
	}
}

/* The focus's part of one stack: its self and total, and the paths to its
 * callers and callees. */
static void add_focus(spaa_reader *r, const spaa_stack *st, num w, tree *callers, tree *callees)
{
	ranker *k = &T.k;
	uint32_t *keys;
	/* the stack's keys, root first */
	grow_array((void **)&T.keys, &T.kcap, st->nframes, sizeof *T.keys);
	keys = T.keys;
	bool has = false;
	for (uint32_t i = 0; i < st->nframes; i++) {
		keys[i] = ranker_frame_key(k, r, spaa_stack_root_frame(r, st, i));
		has |= is_focus(k, keys[i]);
	}
	if (!has) return;
	T.found = true;
	if (!num_add(&T.ftotal, w) || (is_focus(k, keys[st->nframes - 1]) && !num_add(&T.fself, w)))
		spaa_error(r, "weights add up beyond 64 bits");
	uint64_t stamp = ++T.fstamp;
	for (uint32_t i = 0; i < st->nframes; i++) {
		if (!is_focus(k, keys[i])) continue;
		uint32_t node = TREE_TOP;
		for (uint32_t d = 1; d <= opt.depth; d++) { /* callers, upwards */
			uint32_t up = i < d ? T.k_root : keys[i - d];
			if (up != T.k_root && is_focus(k, up)) break;
			tree_add(callers, node, up, w, stamp, &node);
			if (up == T.k_root) break;
		}
		node = TREE_TOP;
		for (uint32_t d = 1; d <= opt.depth; d++) { /* callees, downwards */
			uint32_t down = i + d >= st->nframes ? T.k_self : keys[i + d];
			if (down != T.k_self && is_focus(k, down)) break;
			tree_add(callees, node, down, w, stamp, &node);
			if (down == T.k_self) break;
		}
	}
}

/* A stack of the event with its weight w (of the metric picked), into the
 * whole, the ranking, the hints and the focus's trees; nstack is how many
 * records it stands for. */
static void add_stack(spaa_reader *r, const spaa_stack *st, const spaa_stack *fs, const uint8_t *inl, num w,
		      uint64_t nstack, tree *callers, tree *callees)
{
	T.abs = spaa_abs_add(T.abs, w);
	T.nstack += nstack;
	if (!ranker_add_inl(&T.k, r, fs, w, inl)) spaa_error(r, "weights add up beyond 64 bits");
	hint_stacks_add(&T.hs, r, st, w);
	if (opt.focus && fs->nframes) add_focus(r, fs, w, callers, callees);
}

/* ---- -j on a plain file: its stack records read on the threads ------------
 * in chunks (spaapar.h), each summing its records' weights by what the
 * ranking takes from a stack (its frames, process name and, for the rows
 * by pid or tid, its ids); the chunks merged in file order, each key added
 * once with its sum.  Every figure is a sum, exact in any order while the
 * magnitudes stay within 2^53 (the hints add doubles; else the rest is
 * read by one thread), so the table is that of one thread. */
struct top_par {
	spaa_reader *r;
	tree *callers, *callees;
	unsigned what;          /* the key's members (SPAA_KEY_*) */
	spaa_stack tmp;
};

struct top_chunk {
	spaa_par_sums sums;         /* (first: spaapar.h) */
	uint64_t stacks, missing, taken;
};

#define EXACT_DOUBLES ((uint64_t)1 << 53)
enum { PAR_MIN = 4 << 20 };    /* bytes left worth the threads' start */

/* A record of a chunk, as load() takes one once the metric's name in the
 * file is known (metric_find then reads nothing else). */
static bool top_stack(void *ctx, void *chunk, const spaa_stack *s)
{
	const struct top_par *P = ctx;
	struct top_chunk *c = chunk;
	if (T.event && !sstr_eqc(s->event_name, T.event)) return true;
	const spaa_weight *w = spaa_weight_find(s->w, s->nw, T.metric.used);
	if (w) {
		sbuf *k = &c->sums.key;
		spaa_par_key(s, P->what | (s->comm.p ? 0 : SPAA_KEY_TID), k);
		/* (a sum past 64 bits: one thread from this record on) */
		if (!spaa_par_sums_add(&c->sums, k->p, k->n, w->value)) return false;
		c->taken++;
	} else {
		c->missing++;
	}
	c->stacks++;
	return true;
}

static bool top_merge(void *ctx, void *chunk)
{
	struct top_par *P = ctx;
	struct top_chunk *c = chunk;
	if (spaa_abs_add(T.abs, num_u(c->sums.abs)) > EXACT_DOUBLES) return false;
	T.metric.stacks += c->stacks;
	T.metric.missing += c->missing;
	for (uint32_t i = 0; i < c->sums.keys.count; i++) {
		size_t n;
		const char *k = strmap_key(&c->sums.keys, i, &n);
		const spaa_stack *s = spaa_par_unkey(&P->tmp, k, n);
		num_add(&T.whole, c->sums.sum[i]); /* (within 2^53: no overflow) */
		add_stack(P->r, s, s, NULL, c->sums.sum[i], 0, P->callers, P->callees);
	}
	T.nstack += c->taken;
	return true;
}

/* One pass over the stacks of the event: the ranking, and the focus's
 * callers and callees. */
static void load(spaa_reader *r, tree *callers, tree *callees)
{
	ranker_init(&T.k, opt.by, &opt.fo);
	ranker_by(&T.k, opt.bys, opt.nby);
	T.whole = num_i(0);
	T.k.shorten = !opt.uo.full_names && !opt.json;
	if (opt.focus && !opt.regex) {
		sbuf b = { 0 };
		if (T.k.shorten) units_shorten(opt.focus, strlen(opt.focus), &b);
		else sbuf_adds(&b, opt.focus);
		focus_key = ranker_name_key(&T.k, b.p, b.n);
		sbuf_free(&b);
	}
	T.fself = T.ftotal = num_i(0);
	spaa_stack st = { 0 };
	/* stack records in the converters' layout, and those of a profile
	 * read in process, without the JSON parser */
	spaa_fast_stacks(r, &st);
	/* -j: a plain file's stack records read on the threads */
	bool par = opt.jobs > 1 && !filter_active(&opt.ff) && spaa_par_possible(r, opt.jobs);
	struct top_par P = { .r = r, .callers = callers, .callees = callees, .what = SPAA_KEY_COMM };
	for (uint32_t i = 0; i < opt.nby; i++)
		if (opt.bys[i] == RANK_PID || opt.bys[i] == RANK_TID) P.what |= SPAA_KEY_PID | SPAA_KEY_TID;
	if (opt.fo.pid || opt.fo.tid) P.what |= SPAA_KEY_PID | SPAA_KEY_TID;
	const spaa_par_ops ops = { &P, sizeof(struct top_chunk), top_stack, top_merge, NULL };
	enum spaa_rtype t;
	while ((t = spaa_next(r)) != SPAA_EOF) {
		if (t == SPAA_HEADER) take_header(r);
		if (t != SPAA_STACK || (!r->fast && spaa_stack_parse(r, &st) < 0)) continue;
		if (T.event && !sstr_eqc(st.event_name, T.event)) continue;
		const spaa_weight *w = metric_find(&T.metric, st.w, st.nw);
		if (!w) continue;
		if (!num_add(&T.whole, w->value)) spaa_error(r, "weights add up beyond 64 bits");
		const spaa_stack *fs = &st;
		const uint8_t *inl = NULL;
		if (filter_active(&opt.ff)) {
			if (!(fs = filter_stack(&opt.ff, r, &st))) continue;
			inl = opt.ff.inl;
		}
		add_stack(r, &st, fs, inl, w->value, 1, callers, callees);
		if (r->fast && par && T.metric.used && T.abs <= EXACT_DOUBLES)
			/* the rest on the threads, while it is as large as their
			 * start costs */
			par = spaa_par_stacks(r, opt.jobs, PAR_MIN, &ops) >= PAR_MIN;
	}
	spaa_stack_free(&st);
	spaa_stack_free(&P.tmp);
	if (filter_active(&opt.ff)) {
		T.k.whole = T.whole;
		T.k.have_whole = true;
	}
	if (opt.have_nf) {
		/* pprof's cut: the total after the filters times F, whole */
		T.k.cut = num_i((int64_t)(num_to_double(T.k.grand) * opt.node_fraction));
		T.k.have_cut = true;
	}
	spaa_need_header(r);
}

/* What the pass found wrong: a metric no stack has (exit 1), stacks
 * without it (a warning), a focus in no stack (exit 1). */
static void check(const spaa_reader *r)
{
	metric_check(&T.metric, r->name, T.event);
	uint64_t missing = T.metric.missing;
	if (missing)
		warnmsg("%s: %llu stack%s of event %s %s no '%s' weight (left out)", r->name,
			(unsigned long long)missing, missing == 1 ? "" : "s", T.event ? T.event : "(any)",
			missing == 1 ? "has" : "have", metric_pick_name(&T.metric));
	if (opt.focus && !T.found) {
		sbuf hint = { 0 };
		static const char *const skip[] = { "[root]", "[self]", NULL };
		if (!opt.regex) hint_not_found(&hint, &T.k.names, opt.focus, skip, "-E");
		die(EXIT_DATA, "%s: no %s '%s' in the stacks of event %s%.*s", r->name, by_heads[opt.by],
		    opt.focus, T.event ? T.event : "(any)", (int)hint.n, hint.p ? hint.p : "");
	}
	for (uint32_t i = 0; i < opt.nby; i++)
		if (opt.bys[i] == RANK_SRCLINE || opt.bys[i] == RANK_FILE) {
			hint_no_srclines(r);
			break;
		}
	hint_stacks_say(&T.hs, r->name);
}

int main(int argc, char **argv)
{
	cli_init(argc, argv);
	parse_options(argc, argv);
	/* a profile read in process: no content ids, and the threads of one
	 * command as one unless a row shows them */
	bool threads = opt.fo.pid || opt.fo.tid;
	for (uint32_t i = 0; i < opt.nby; i++) {
		threads |= opt.bys[i] == RANK_PID || opt.bys[i] == RANK_TID;
		/* rows by source line: perf.data's frames get theirs from DWARF */
		if (opt.bys[i] == RANK_SRCLINE || opt.bys[i] == RANK_FILE) readers_option("srcline", NULL);
	}
	builder_lean(BUILDER_NO_IDS | (threads ? 0 : BUILDER_NO_THREADS) |
		     (opt.fo.raw || opt.fo.addrs ? 0 : BUILDER_NO_ADDRS));
	spaa_reader *r = readers_open_all(argv + optind, argc - optind);
	tree callers = { 0 }, callees = { 0 };
	strmap_init(&callers.index);
	strmap_init(&callees.index);
	load(r, &callers, &callees);
	check(r);

	/* print: the ranking, or the sandwich of the focus */
	output *o = output_open(opt.outpath, opt.zstd);
	if (!opt.focus) put_top(o);
	else put_focus(o, &callers, &callees);
	output_close(o);

	free(T.keys);
	strmap_free(&callers.index);
	strmap_free(&callees.index);
	free(callers.n);
	free(callees.n);
	free(focus_known);
	if (opt.regex) regfree(&focus_re);
	ranker_free(&T.k);
	filter_free(&opt.ff);
	metric_pick_free(&T.metric);
	spaa_close(r);
	return EXIT_OK;
}
