/* spaa-fold - SPAA to folded stacks ("root;...;leaf COUNT"), the input of
 * flamegraph.pl, inferno-flamegraph and speedscope.
 *
 * Every stack record of the chosen event(s) is turned into its folded path
 * (fold.h: names tidied like stackcollapse-perf.pl), weighted by the chosen
 * metric; identical paths are summed, over all inputs, and the lines are
 * written in bytewise order. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "fold.h"
#include "num.h"
#include "output.h"
#include "spaa.h"
#include "strmap.h"

static const char help[] =
"Usage: spaa-fold [OPTION]... [FILE]...\n"
"Write the stacks of SPAA profiles as folded stacks (\"root;...;leaf COUNT\"),\n"
"one line per distinct stack, summed over all FILEs, in bytewise order.\n"
"With no FILE, or when FILE is -, read standard input (zstd and gzip allowed).\n"
"\n"
"Event and weight:\n"
"  -e, --event=NAME     fold event NAME (default: the first one declared)\n"
"  -E, --all-events     fold every event, with its name as the root frame\n"
"  -m, --metric=NAME    weight by metric NAME (default: the event's primary\n"
"                       metric); stacks without it are skipped, with a warning\n"
"Names (stackcollapse-perf.pl compatible by default):\n"
"      --raw            function names exactly as stored (';' becomes ':' and\n"
"                       line breaks become spaces, as always)\n"
"      --no-comm        no process-name root frame\n"
"      --pid            root frame \"comm-PID\" (\"comm-?\" when unknown)\n"
"      --tid            root frame \"comm-PID/TID\"\n"
"      --kernel         mark kernel frames with _[k]\n"
"      --jit            mark frames from /tmp/perf-N.map with _[j]\n"
"      --all            both --kernel and --jit\n"
"      --addrs          \"[dso <addr>]\" for unresolved frames\n"
"      --inline=MODE    inlined frames: mark (add _[i], the default), plain,\n"
"                       or hide (leave them out)\n"
"Output:\n"
"  -o, --output=FILE    write to FILE (replaced only on success; .zst compresses)\n"
"  -h, --help           show this help and exit\n"
"  -V, --version        show the version and exit\n"
"\n"
"Lines whose weights sum to zero are left out.  Exit status: 0 ok, 1 bad input\n"
"or write error, 2 usage error.\n";

enum { OPT_RAW = 256, OPT_NO_COMM, OPT_PID, OPT_TID, OPT_KERNEL, OPT_JIT, OPT_ALL,
       OPT_ADDRS, OPT_INLINE };

/* The aggregate: folded path -> summed weight. */
static strmap paths;
static num *sums;
static uint32_t nsums, sumcap;

static void add_path(const spaa_reader *r, const char *p, size_t n, num v)
{
	bool added;
	uint32_t i = strmap_intern(&paths, p, n, &added);
	if (added) {
		*VEC_PUSH(sums, nsums, sumcap) = v;
		return;
	}
	if (!num_add(&sums[i], v))
		die_at(r->name, r->lineno, "weight overflow: the sum for stack %.*s exceeds 64 bits",
		       (int)(n > 200 ? 200 : n), p);
}

/* Output lines in bytewise (LC_ALL=C sort) order. */
static const char *lines;
static size_t *line_off;

static int cmp_lines(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	return strcmp(lines + line_off[i], lines + line_off[j]);
}

static void fold_file(const char *path, const char *event, const char *metric,
		      const fold_opts *opts, fold_cache *cache, sbuf *pb)
{
	fold_opts file_opts = *opts, *fo = &file_opts;
	spaa_reader *r = spaa_open(path);
	spaa_stack s = { 0 };
	int32_t ev = -2;            /* not picked yet */
	const char **ev_metric = NULL; /* per event index, with --all-events */
	uint64_t skipped = 0;
	const char *one_metric = NULL;
	fold_cache_reset(cache);
	enum spaa_rtype t;
	while ((t = spaa_next(r)) != SPAA_EOF) {
		if (t == SPAA_HEADER && ev == -2) {
			fold_opts_header(fo, r);
			if (fo->all_events) {
				ev = -1;
				ev_metric = xcalloc(r->nevents + 1, sizeof *ev_metric);
				for (uint32_t i = 0; i < r->nevents; i++)
					ev_metric[i] = fold_pick_metric(r, (int32_t)i, metric);
				ev_metric[r->nevents] = fold_pick_metric(r, -1, metric);
			} else {
				ev = fold_pick_event(r, event, false);
				one_metric = fold_pick_metric(r, ev, metric);
			}
		}
		if (t != SPAA_STACK) continue;
		if (spaa_stack_parse(r, &s) < 0) continue;
		const char *m;
		if (fo->all_events) {
			m = ev_metric[s.event >= 0 ? (uint32_t)s.event : r->nevents];
		} else {
			if (ev >= 0 && s.event != ev) continue;
			m = one_metric;
		}
		const spaa_weight *w = spaa_weight_find(s.w, s.nw, m);
		if (!w) {
			skipped++;
			continue;
		}
		pb->n = 0;
		fold_stack_path_cached(cache, r, &s, fo, pb);
		add_path(r, pb->p, pb->n, w->value);
	}
	if (skipped)
		warn_at(r->name, 0, "%llu stack%s without metric %s skipped",
			(unsigned long long)skipped, skipped == 1 ? "" : "s",
			fo->all_events && !metric ? "(the event's primary metric)" : one_metric ? one_metric : metric);
	if (!r->have_header) die_at(r->name, 0, "no header record (empty input)");
	free(ev_metric);
	spaa_stack_free(&s);
	spaa_close(r);
}

int main(int argc, char **argv)
{
	cli_init(argc, argv);
	static const struct option longopts[] = {
		{ "event", required_argument, 0, 'e' },
		{ "all-events", no_argument, 0, 'E' },
		{ "metric", required_argument, 0, 'm' },
		{ "raw", no_argument, 0, OPT_RAW },
		{ "no-comm", no_argument, 0, OPT_NO_COMM },
		{ "pid", no_argument, 0, OPT_PID },
		{ "tid", no_argument, 0, OPT_TID },
		{ "kernel", no_argument, 0, OPT_KERNEL },
		{ "jit", no_argument, 0, OPT_JIT },
		{ "all", no_argument, 0, OPT_ALL },
		{ "addrs", no_argument, 0, OPT_ADDRS },
		{ "inline", required_argument, 0, OPT_INLINE },
		{ "output", required_argument, 0, 'o' },
		CLI_STD_LONGOPTS,
		{ 0, 0, 0, 0 }
	};
	fold_opts fo = { 0 };
	fo.inline_mode = -1;
	const char *event = NULL, *metric = NULL, *outpath = NULL;
	int c;
	while ((c = getopt_long(argc, argv, "e:Em:o:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'e': event = optarg; break;
		case 'E': fo.all_events = true; break;
		case 'm': metric = optarg; break;
		case 'o': outpath = optarg; break;
		case OPT_RAW: fo.raw = true; break;
		case OPT_NO_COMM: fo.no_comm = true; break;
		case OPT_PID: fo.pid = true; break;
		case OPT_TID: fo.tid = true; break;
		case OPT_KERNEL: fo.kernel = true; break;
		case OPT_JIT: fo.jit = true; break;
		case OPT_ALL: fo.kernel = fo.jit = true; break;
		case OPT_ADDRS: fo.addrs = true; break;
		case OPT_INLINE:
			if (strcmp(optarg, "mark") == 0) fo.inline_mode = FOLD_INLINE_MARK;
			else if (strcmp(optarg, "plain") == 0) fo.inline_mode = FOLD_INLINE_PLAIN;
			else if (strcmp(optarg, "hide") == 0) fo.inline_mode = FOLD_INLINE_HIDE;
			else usage_error("--inline: unknown mode '%s' (mark, plain or hide)", optarg);
			break;
		CLI_STD_CASES(help);
		}
	}
	if (event && fo.all_events) usage_error("--event and --all-events exclude each other");
	if (fo.inline_mode < 0) fo.inline_mode = fo.raw ? FOLD_INLINE_PLAIN : FOLD_INLINE_MARK;

	/* Fold every input into one table. */
	strmap_init(&paths);
	fold_cache cache;
	fold_cache_init(&cache);
	sbuf pb = { 0 };
	output *o = output_open(outpath, false);
	if (optind == argc) fold_file("-", event, metric, &fo, &cache, &pb);
	for (int i = optind; i < argc; i++) fold_file(argv[i], event, metric, &fo, &cache, &pb);
	fold_cache_free(&cache);

	/* Lines "path COUNT", then sorted bytewise. */
	sbuf text = { 0 };
	size_t *off = xmalloc((nsums ? nsums : 1) * sizeof *off), *ord = xmalloc((nsums ? nsums : 1) * sizeof *ord);
	size_t nl = 0;
	for (uint32_t i = 0; i < nsums; i++) {
		if (num_is_zero(sums[i])) continue;
		size_t len;
		const char *p = strmap_key(&paths, i, &len);
		char nb[32];
		off[nl] = text.n;
		ord[nl] = nl;
		nl++;
		sbuf_add(&text, p, len);
		sbuf_addc(&text, ' ');
		sbuf_add(&text, nb, num_fmt(nb, sums[i]));
		sbuf_addc(&text, 0);
	}
	lines = text.p;
	line_off = off;
	qsort(ord, nl, sizeof *ord, cmp_lines);
	for (size_t i = 0; i < nl; i++) {
		const char *l = text.p + off[ord[i]];
		out_write(o, l, strlen(l));
		out_putc(o, '\n');
	}
	output_close(o);
	free(off);
	free(ord);
	sbuf_free(&text);
	sbuf_free(&pb);
	free(sums);
	strmap_free(&paths);
	return EXIT_OK;
}
