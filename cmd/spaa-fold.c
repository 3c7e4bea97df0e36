/* spaa-fold - SPAA to folded stacks ("root;...;leaf COUNT"), the input of
 * flamegraph.pl, inferno-flamegraph and speedscope.
 *
 * Every stack record of the chosen event(s) is turned into its folded path
 * (fold.h: names tidied like stackcollapse-perf.pl), weighted by the chosen
 * metric; identical paths are summed, over all inputs, and the lines are
 * written in bytewise order.  With -j 2 or more, a plain file's stack
 * records are read in parts on the threads (spaapar.h); from a pipe, one
 * thread reads the records while another folds them (relay.h). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "filter.h"
#include "fold.h"
#include "num.h"
#include "output.h"
#include "psort.h"
#include "relay.h"
#include "spaapar.h"
#include "readers/open.h"
#include "build.h"
#include "spaa.h"
#include "strmap.h"

static const char help[] =
"Usage: spaa-fold [OPTION]... [FILE]...\n"
"Write the stacks of SPAA profiles as folded stacks (\"root;...;leaf COUNT\"),\n"
"one line per distinct stack, summed over all FILEs, in bytewise order.\n"
"With no FILE, or when FILE is -, read standard input (zstd and gzip allowed).\n"
"\n"
"Event and weight:\n"
"Lines whose weights sum to zero are left out.\n"
"\n"
"      --event=NAME     fold event NAME (default: the first one declared)\n"
"      --all-events     fold every event, with its name as the root frame\n"
"  -m, --metric=NAME    weight by metric NAME (default: the event's primary\n"
"                       metric); stacks without it are skipped, with a warning\n"
"Names (stackcollapse-perf.pl compatible by default):\n"
"      --raw            function names exactly as stored (';' becomes ':' and\n"
"                       line breaks become spaces, as always)\n"
"      --no-comm        no process-name root frame\n"
"      --pid            root frame \"comm-PID\" (\"comm-?\" when unknown)\n"
"      --tid            root frame \"comm-PID/TID\"\n"
"      --kernel         mark kernel frames with _[k]\n"
"      --jit            mark JIT frames (perf-N.map, jitted-N-N.so) with _[j]\n"
"      --all            both --kernel and --jit\n"
"      --addrs          \"[dso <addr>]\" for unresolved frames\n"
"      --inline[=MODE]  inlined frames: mark (add _[i]; --inline alone), plain\n"
"                       or hide (leave them out); default: plain, but mark\n"
"                       for DTrace profiles (as stackcollapse.pl does)\n"
"      --demangle       demangle C++, Rust and D names (as spaa-demangle)\n"
FILTER_HELP
"Speed:\n"
"  -j, --jobs=N         threads: with 2 or more, a SPAA file is read in parts\n"
"                       on N threads (a pipe: one reads, another folds), and\n"
"                       perf.data and perf script text are read on N threads\n"
"                       (default: the online cores)\n"
READERS_HELP
"Output:\n"
CLI_HELP_TAIL;

/* The aggregate: folded path (packed: its names' ids, fold.h) -> summed
 * weight. */
static fold_names names;
static strmap paths;
static num *sums;
static uint32_t nsums, sumcap;

/* Output lines "path COUNT" in bytewise (LC_ALL=C sort) order, compared
 * without building them: the path, a space, then the count text. */
struct line { const char *path; uint32_t path_n; uint8_t count_n; char count[27]; };

static int cmp_lines(const void *a, const void *b)
{
	const struct line *x = a, *y = b;
	return fold_packed_cmp(&names, x->path, x->path_n, (sstr){ x->count, x->count_n },
			       y->path, y->path_n, (sstr){ y->count, y->count_n });
}

/* What a stack's key (below) resolved to: the index of its folded path in
 * `paths`, or -1 to leave it out (another event); and the metric to weigh
 * it by. */
struct known { int64_t path; const char *metric; };

static void key_varint(sbuf *key, uint64_t v)
{
	sbuf_reserve(key, 10);
	while (v >= 128) {
		key->p[key->n++] = (char)(v | 128);
		v >>= 7;
	}
	key->p[key->n++] = (char)v;
}

/* Appends node k's bytes (string or number text), length first, to the key. */
static bool key_add(sbuf *key, const json_doc *d, uint32_t k)
{
	const json_node *x = &d->nodes[k];
	uint32_t n;
	if (x->type == JSON_STRING) n = x->count;
	else if (x->type == JSON_INT || x->type == JSON_UINT || x->type == JSON_DOUBLE) n = x->num_len;
	else return false;
	key_varint(key, n);
	sbuf_add(key, x->str, n);
	return true;
}

/* Appends frame id node k to the key, compactly: a non-negative integer as
 * its value plus one (its text has no other form: JSON allows no leading
 * zeros), anything else as 0, a type byte and its text.  The same bytes mean
 * the same id. */
static void key_add_id(sbuf *key, const json_doc *d, uint32_t k)
{
	const json_node *x = &d->nodes[k];
	if (x->type == JSON_INT && x->v.i >= 0 && x->str[0] != '-' && x->v.i < INT64_MAX) {
		key_varint(key, (uint64_t)x->v.i + 1);
		return;
	}
	sbuf_addc(key, 0);
	sbuf_addc(key, (char)x->type);
	if (!key_add(key, d, k)) sbuf_addc(key, 0);
}

/* The key of the current stack record: what its folded path depends on
 * (event, process name, the ids as the options need them, frame ids), taken
 * from the parsed line without resolving anything.  False when the record
 * is not well-formed enough (the full parser then reports it). */
static bool stack_key(const spaa_reader *r, const fold_opts *fo, sbuf *key)
{
	const json_doc *d = &r->doc;
	key->n = 0;
	uint32_t ctx = json_get(d, 0, "context");
	if (!ctx || d->nodes[ctx].type != JSON_OBJECT) return false;
	uint32_t ev = json_get(d, ctx, "event");
	if (!ev || d->nodes[ev].type != JSON_STRING) return false;
	key_add(key, d, ev);
	uint32_t comm = json_get(d, ctx, "comm");
	bool has_comm = comm && d->nodes[comm].type == JSON_STRING;
	sbuf_addc(key, has_comm);
	if (has_comm) key_add(key, d, comm);
	if (fo->pid || fo->tid) {
		uint32_t pid = json_get(d, ctx, "pid");
		sbuf_addc(key, pid && key_add(key, d, pid));
	}
	if (fo->tid || !has_comm) {
		uint32_t tid = json_get(d, ctx, "tid");
		sbuf_addc(key, tid && key_add(key, d, tid));
	}
	uint32_t fr = json_get(d, 0, "frames");
	if (!fr || d->nodes[fr].type != JSON_ARRAY) return false;
	uint32_t n = d->nodes[fr].count;
	uint32_t k = json_first(d, fr);
	for (uint32_t i = 0; i < n; i++, k = json_after(d, k)) key_add_id(key, d, k);
	return true;
}

/* The value of metric m in the current record's weights: 1 found, 0 absent,
 * -1 malformed (the full parser then reports it). */
static int stack_weight(const spaa_reader *r, const char *m, num *out)
{
	const json_doc *d = &r->doc;
	uint32_t ws = json_get(d, 0, "weights");
	if (!ws || d->nodes[ws].type != JSON_ARRAY) return -1;
	size_t mlen = strlen(m);
	int found = 0;
	uint32_t k = json_first(d, ws);
	for (uint32_t i = 0; i < d->nodes[ws].count; i++, k = json_after(d, k)) {
		if (d->nodes[k].type != JSON_OBJECT) return -1;
		uint32_t mk = json_get(d, k, "metric"), vk = json_get(d, k, "value");
		if (!mk || d->nodes[mk].type != JSON_STRING || !vk || !json_is_num(d, vk)) return -1;
		if (found || !json_is_str(d, mk, m, mlen)) continue;
		const json_node *x = &d->nodes[vk];
		*out = x->type == JSON_INT ? num_i(x->v.i) : x->type == JSON_UINT ? num_u(x->v.u) : num_d(x->v.d);
		found = 1;
	}
	return found;
}

/* The sum of the magnitudes of every weight added so far (UINT64_MAX
 * once past it, or once a weight is not an integer): while it stays within
 * INT64_MAX, no sum can overflow in any order of adding (spaapar below). */
static uint64_t abs_total;

/* Adds v to the sum of path, for the record at line lineno. */
static void add_weight(const spaa_reader *r, uint64_t lineno, uint32_t path, num v)
{
	abs_total = spaa_abs_add(abs_total, v);
	if (!num_add(&sums[path], v)) {
		size_t n;
		const char *p = strmap_key(&paths, path, &n);
		sbuf t = { 0 };
		fold_packed_text(&names, p, n, &t);
		die_at(r->name, lineno, "weight overflow: the sum for stack %.*s exceeds 64 bits",
		       (int)(t.n > 200 ? 200 : t.n), t.p ? t.p : "");
	}
}

/* A record the quick readers above found malformed: the full parser says
 * why (and exits). */
static void bad_stack(spaa_reader *r, spaa_stack *s)
{
	if (spaa_stack_parse(r, s) == 0) die_at(r->name, r->lineno, "malformed stack record");
	cli_exit(EXIT_DATA);
}

/* The metric names of the stacks of the event read in full (for the
 * message when none has the metric asked for: then every stack was
 * skipped, so those of the stacks skipped are all of them). */
static strmap seen_metrics;

static void note_metrics(const spaa_stack *s)
{
	for (uint32_t i = 0; i < s->nw; i++) strmap_intern(&seen_metrics, s->w[i].metric.p, s->w[i].metric.n, NULL);
}

/* A stack record's folded path, added to the aggregate with weight v. */
static void fold_one(const spaa_reader *r, uint64_t lineno, const spaa_stack *s,
		     const fold_opts *fo, sbuf *pb, num v)
{
	pb->n = 0;
	fold_stack_packed(&names, r, s, fo, pb);
	bool padded;
	uint32_t pi = strmap_intern(&paths, pb->p, pb->n, &padded);
	if (padded) *VEC_PUSH(sums, nsums, sumcap) = num_i(0);
	add_weight(r, lineno, pi, v);
}

/* -j: the folding thread's part (relay.h) of the records read on the
 * fast path; the others are folded by the reading thread as before (the
 * relay waits for the folder before each of them, so the order of the
 * sums is the same with any -j). */
struct fold_to { const spaa_reader *r; const fold_opts *fo; sbuf pb; };

static void fold_relayed(void *ctx, const spaa_stack *s, num w, uint64_t lineno)
{
	struct fold_to *to = ctx;
	fold_one(to->r, lineno, s, to->fo, &to->pb, w);
}

static unsigned jobs;
enum { PAR_MIN = 4 << 20 };    /* bytes left worth the threads' start */
static frame_filter ff;        /* --focus, --hide ... (filter.h) */

/* -j on a plain file: its stack records read on the threads in chunks
 * (spaapar.h).  A chunk sums the weights of its records by what their
 * folded path depends on (their key), and the chunks are merged in
 * file order into the paths, each key folded once.  The sums are of
 * integers (the fast path takes no others) whose magnitudes add up to at
 * most INT64_MAX (abs_total; else the chunk is refused and read as one
 * thread reads it): so no sum overflows, whatever the order, and the
 * answer is that of one thread. */
struct fold_par {
	const spaa_reader *r;
	const fold_opts *fo;
	const char *ev_name, *one_metric, *metric;
	int32_t ev;
	uint64_t *skipped, *taken;
	strmap keys;                /* the file's keys -> kpath */
	int64_t *kpath;             /* a key's path, -1 not yet folded */
	uint32_t nk, kcap;
	spaa_stack tmp;
	sbuf *pb;
};

struct fold_chunk {
	spaa_par_sums sums;         /* (first: spaapar.h) */
	uint64_t skipped, taken;
	strmap metrics;             /* the metric names seen, in order */
};

static void par_chunk_free(void *chunk)
{
	strmap_free(&((struct fold_chunk *)chunk)->metrics);
}

/* A record of a chunk, as fold_file takes one on the fast path. */
static bool par_stack(void *ctx, void *chunk, const spaa_stack *s)
{
	const struct fold_par *P = ctx;
	struct fold_chunk *c = chunk;
	if (!P->fo->all_events && P->ev >= 0 && !(P->ev_name && sstr_eqc(s->event_name, P->ev_name))) return true;
	const char *m = P->fo->all_events ? fold_pick_metric(P->r, s->event, P->metric) : P->one_metric;
	const spaa_weight *w = spaa_weight_find(s->w, s->nw, m);
	if (w) {
		/* what the folded path depends on (fold_stack_packed) */
		const fold_opts *fo = P->fo;
		sbuf *k = &c->sums.key;
		spaa_par_key(s, (fo->all_events ? SPAA_KEY_EVENT : 0) | SPAA_KEY_COMM |
				       (fo->pid || fo->tid ? SPAA_KEY_PID : 0) |
				       (fo->tid || !s->comm.p ? SPAA_KEY_TID : 0), k);
		if (!spaa_par_sums_add(&c->sums, k->p, k->n, w->value)) return false; /* one thread says where */
		c->taken++;
	} else {
		/* (seen_metrics) */
		c->skipped++;
		for (uint32_t i = 0; i < s->nw; i++) strmap_intern(&c->metrics, s->w[i].metric.p, s->w[i].metric.n, NULL);
	}
	return true;
}

/* A chunk into the paths, in file order. */
static bool par_merge(void *ctx, void *chunk)
{
	struct fold_par *P = ctx;
	struct fold_chunk *c = chunk;
	if (spaa_abs_add(abs_total, num_u(c->sums.abs)) > INT64_MAX) return false;
	for (uint32_t i = 0; i < c->metrics.count; i++) {
		size_t n;
		const char *k = strmap_key(&c->metrics, i, &n);
		strmap_intern(&seen_metrics, k, n, NULL);
	}
	*P->skipped += c->skipped;
	*P->taken += c->taken;
	for (uint32_t i = 0; i < c->sums.keys.count; i++) {
		size_t n;
		const char *k = strmap_key(&c->sums.keys, i, &n);
		bool added;
		uint32_t g = strmap_intern(&P->keys, k, n, &added);
		if (added) {
			*VEC_PUSH(P->kpath, P->nk, P->kcap) = -1;
			P->pb->n = 0;
			fold_stack_packed(&names, P->r, spaa_par_unkey(&P->tmp, k, n), P->fo, P->pb);
			bool padded;
			P->kpath[g] = strmap_intern(&paths, P->pb->p, P->pb->n, &padded);
			if (padded) *VEC_PUSH(sums, nsums, sumcap) = num_i(0);
		}
		add_weight(P->r, P->r->lineno, (uint32_t)P->kpath[g], c->sums.sum[i]);
	}
	return true;
}

static void fold_file(const char *path, const char *event, const char *metric,
		      const fold_opts *opts, sbuf *pb)
{
	fold_opts file_opts = *opts, *fo = &file_opts;
	spaa_reader *r = spaa_open_any(path);
	spaa_stack s = { 0 };
	int32_t ev = -2;               /* not picked yet */
	const char *ev_name = NULL;
	uint64_t skipped = 0, taken = 0;
	strmap_init(&seen_metrics);
	const char *one_metric = NULL;
	strmap keys;                   /* stack key -> struct known */
	struct known *known = NULL;
	uint32_t nknown = 0, kcap = 0;
	sbuf key = { 0 };
	bool use_keys = true;
	uint64_t nstacks = 0, key_hits = 0;
	strmap_init(&keys);
	spaa_fast_stacks(r, &s);
	fold_names_reset(&names);
	if (filter_active(&ff)) {
		/* the filter's memo is of this reader's frames; the paths of
		 * stacks filtered, not of their keys */
		filter_reset(&ff);
		ff.fo = fo;
		use_keys = false;
	}
	struct fold_to to = { r, fo, { 0 } };
	/* -j: a plain file's stack records read on the threads, else read
	 * here and folded on another thread (not a profile read in
	 * process: relay.h) */
	bool par = jobs > 1 && !filter_active(&ff) && spaa_par_possible(r, jobs);
	struct fold_par P = { .r = r, .fo = fo, .metric = metric, .skipped = &skipped, .taken = &taken, .pb = pb };
	strmap_init(&P.keys);
	const spaa_par_ops ops = { &P, sizeof(struct fold_chunk), par_stack, par_merge, par_chunk_free };
	if (jobs > 1 && !par) relay_start(r, fold_relayed, &to);
	enum spaa_rtype t;
	while ((t = spaa_next(r)) != SPAA_EOF) {
		if (t == SPAA_HEADER && ev == -2) {
			fold_opts_header(fo, r);
			if (fo->all_events) {
				ev = -1;
			} else {
				ev = fold_pick_event(r, event, false);
				if (ev >= 0) ev_name = r->events[ev].name;
				one_metric = fold_pick_metric(r, ev, metric);
			}
		}
		if (t != SPAA_STACK) continue;
		/* read without the JSON parser (spaa_fast_stacks): s is parsed */
		bool fast = r->fast;
		/* a stack seen before (same key): its path is known */
		/* the key cache pays only when stacks repeat their key (as the
		 * threads of one program do): after every 4096 stacks it stays
		 * on only if at least one stack in 8 was found in it */
		if (use_keys && ++nstacks % 4096 == 0 && key_hits < nstacks / 8) use_keys = false;
		bool ok = !fast && use_keys && stack_key(r, fo, &key);
		struct known *kn = NULL;
		if (ok) {
			bool added;
			uint32_t i = strmap_intern(&keys, key.p, key.n, &added);
			if (!added) {
				kn = &known[i];
				key_hits++;
			} else {
				/* first time: full parse (checks frames), then the path */
				if (spaa_stack_parse(r, &s) < 0) cli_exit(EXIT_DATA); /* reported */
				kn = VEC_PUSH(known, nknown, kcap);
				kn->path = -1;
				kn->metric = NULL;
				if (fo->all_events || ev < 0 || (ev_name && sstr_eqc(s.event_name, ev_name))) {
					note_metrics(&s);
					pb->n = 0;
					fold_stack_packed(&names, r, &s, fo, pb);
					bool padded;
					kn->path = strmap_intern(&paths, pb->p, pb->n, &padded);
					if (padded) *VEC_PUSH(sums, nsums, sumcap) = num_i(0);
					kn->metric = fo->all_events
						? fold_pick_metric(r, s.event, metric) : one_metric;
				}
			}
		}
		if (!kn) {
			/* an unusual record (ids with escapes...): the full way; or
			 * one read fast, folded at once (folding its frames costs
			 * no more than a key would) */
			if (!fast && spaa_stack_parse(r, &s) < 0) cli_exit(EXIT_DATA);
			if (!fo->all_events && ev >= 0 && !(ev_name && sstr_eqc(s.event_name, ev_name)))
				continue;
			const char *m = fo->all_events ? fold_pick_metric(r, s.event, metric) : one_metric;
			const spaa_weight *w = spaa_weight_find(s.w, s.nw, m);
			if (!w) {
				note_metrics(&s);
				skipped++;
				continue;
			}
			const spaa_stack *fs = &s;
			if (filter_active(&ff) && !(fs = filter_stack(&ff, r, &s))) continue;
			taken++;
			if (fast && relay_on()) relay_add(fs, w->value, r->lineno);
			else fold_one(r, r->lineno, fs, fo, pb, w->value);
			if (fast && par && abs_total <= INT64_MAX) {
				/* the rest on the threads, while it is as large
				 * as their start costs (once the reading has
				 * gone on past a record they could not take) */
				P.ev = ev;
				P.ev_name = ev_name;
				P.one_metric = one_metric;
				par = spaa_par_stacks(r, jobs, PAR_MIN, &ops) >= PAR_MIN;
			}
			continue;
		}
		if (kn->path < 0) continue;
		num v;
		int w = stack_weight(r, kn->metric, &v);
		if (w < 0) bad_stack(r, &s);
		if (w == 0) {
			skipped++;
			continue;
		}
		taken++;
		add_weight(r, r->lineno, (uint32_t)kn->path, v);
	}
	relay_stop();
	sbuf_free(&to.pb);
	strmap_free(&P.keys);
	free(P.kpath);
	spaa_stack_free(&P.tmp);
	if (skipped && !taken && metric && !fo->all_events) {
		/* a metric no stack has: an error, not an empty output */
		sbuf b = { 0 };
		for (uint32_t i = 0; i < seen_metrics.count; i++) {
			size_t n;
			const char *k = strmap_key(&seen_metrics, i, &n);
			if (i) sbuf_adds(&b, ", ");
			sbuf_add(&b, k, n);
		}
		sbuf_addc(&b, 0);
		die(EXIT_DATA, "%s: no stack of event %s has metric '%s' (metrics: %s)", r->name,
		    ev_name ? ev_name : "(any)", metric, b.n > 1 ? b.p : "none");
	}
	strmap_free(&seen_metrics);
	if (skipped)
		warn_at(r->name, 0, "%llu stack%s without %s%s skipped",
			(unsigned long long)skipped, skipped == 1 ? "" : "s",
			metric || one_metric ? "metric " : "its event's primary metric",
			metric ? metric : one_metric ? one_metric : "");
	spaa_need_header(r);
	strmap_free(&keys);
	free(known);
	sbuf_free(&key);
	spaa_stack_free(&s);
	spaa_close(r);
}

int main(int argc, char **argv)
{
	cli_init(argc, argv);
	static const struct option longopts[] = {
		{ "event", required_argument, 0, 'e' },
		{ "metric", required_argument, 0, 'm' },
		{ "jobs", required_argument, 0, 'j' },
		CLI_OUT_LONGOPTS,
		FOLD_LONGOPTS,
		FILTER_LONGOPTS,
		READERS_LONGOPTS,
		CLI_STD_LONGOPTS,
		{ 0, 0, 0, 0 }
	};
	fold_opts fo = { 0 };
	fo.inline_mode = -1;
	const char *event = NULL, *metric = NULL, *outpath = NULL;
	bool zstd = false;
	int c;
	while ((c = getopt_long(argc, argv, "m:j:so:zhV", longopts, NULL)) != -1) {
		if (fold_opts_take(&fo, c, optarg) || filter_take(&ff, c, optarg)) continue;
		switch (c) {
		case 'e': event = optarg; break;
		case 'm': metric = optarg; break;
		case 'j': jobs = opt_jobs("--jobs", optarg); readers_option("jobs", optarg); break;
		READERS_OPT_CASES;
		CLI_OUT_CASES(outpath, zstd);
		CLI_STD_CASES(help);
		}
	}
	if (event && fo.all_events) usage_error("--event and --all-events exclude each other");
	/* inline_mode < 0: the default, per file (see fold.h) */
	if (!jobs) jobs = cli_jobs();
	filter_compile(&ff, &fo);
	/* a profile read in process: no content ids, and no threads unless
	 * the folded names show them */
	builder_lean(BUILDER_NO_IDS | (fo.pid || fo.tid ? 0 : BUILDER_NO_THREADS) |
		     (fo.raw || fo.addrs ? 0 : BUILDER_NO_ADDRS));

	/* Fold every input into one table. */
	strmap_init(&paths);
	fold_names_init(&names);
	sbuf pb = { 0 };
	output *o = output_open(outpath, zstd);
	cli_stdin_once(argv + optind, argc - optind);
	if (optind == argc) fold_file("-", event, metric, &fo, &pb);
	for (int i = optind; i < argc; i++) fold_file(argv[i], event, metric, &fo, &pb);

	/* Lines "path COUNT", sorted bytewise. */
	struct line *ls = xmalloc((nsums ? nsums : 1) * sizeof *ls);
	size_t nl = 0;
	for (uint32_t i = 0; i < nsums; i++) {
		if (num_is_zero(sums[i])) continue;
		char nb[32];
		size_t n = num_fmt(nb, sums[i]);
		size_t pn;
		ls[nl].path = strmap_key(&paths, i, &pn);
		ls[nl].path_n = (uint32_t)pn;
		memcpy(ls[nl].count, nb, n);
		ls[nl].count_n = (uint8_t)n;
		nl++;
	}
	fold_names_rank(&names);
	psort(ls, nl, sizeof *ls, cmp_lines, jobs);
	for (size_t i = 0; i < nl; i++) {
		fold_packed_write(&names, ls[i].path, ls[i].path_n, o);
		out_putc(o, ' ');
		out_write(o, ls[i].count, ls[i].count_n);
		out_putc(o, '\n');
	}
	output_close(o);
	free(ls);
	sbuf_free(&pb);
	free(sums);
	strmap_free(&paths);
	fold_names_free(&names);
	filter_free(&ff);
	return EXIT_OK;
}
