/* spaa-grep - keep the stacks of a SPAA profile that match: by function
 * name (any frame, or the leaf), DSO, process, thread, command name, event
 * or weight.  The output is a valid SPAA file: the header, the dictionary
 * records the kept stacks still refer to, the kept stacks, and the samples
 * and windows that refer to them, every record passed through unchanged
 * (windows lose the by_stack entries of dropped stacks).
 *
 * One pass: dictionary records are kept in memory as raw text (they are
 * dictionaries); kept stacks, their samples and the windows are spooled to
 * an unlinked temporary file; at the end the dictionaries still referenced
 * are written, then the spool is played back.  A sample met before its stack
 * is spooled undecided and settled at playback. */
#include <getopt.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include "readers/open.h"
#include "cat.h"
#include "cli.h"
#include "filter.h"
#include "metric.h"
#include "fold.h"
#include "hint.h"
#include "json.h"
#include "jsonbuf.h"
#include "jsonw.h"
#include "num.h"
#include "output.h"
#include "spaa.h"
#include "spool.h"
#include "strmap.h"
#include "units.h"
#include "util.h"

static const char help_text[] =
	"Usage: spaa-grep [OPTION]... PATTERN [FILE]...\n"
	"Keep the stacks of a SPAA profile that match all the criteria given, with\n"
	"the dictionary records, samples and windows that refer to them.\n"
	"PATTERN is a POSIX extended regex on function names, as -e's; it is left\n"
	"out, as in grep, when -e gives the patterns, and when a stack criterion\n"
	"(--dso, --pid, --tid, --comm, --event, --min-weight) selects the stacks.\n"
	"With no FILE, or when FILE is -, read standard input (plain, gzip or zstd);\n"
	"several FILEs are merged as spaa-cat --merge merges them.\n"
	"\n"
	"All criteria given must hold; exit status 0 also when nothing matched.\n"
	"\n"
	"Frame criteria (a stack matches when one of its frames matches):\n"
	"  -e, --regexp=REGEX   function name matches the POSIX extended REGEX;\n"
	"                       repeatable: any of the patterns\n"
	"      --dso=REGEX      the frame's DSO name matches REGEX\n"
	"      --leaf           look at the leaf frame only\n"
	"  -v, --invert-match   keep the stacks with no matching frame\n"
	"  -i, --ignore-case    case-insensitive REGEX (also for --comm)\n"
	"  (REGEX is matched against the name spaa-fold prints: \"[unknown]\",\n"
	"  \"[libc.so.6]\" for unresolved frames; the naming options below apply)\n"
	"Stack criteria:\n"
	"      --pid=N          process id N (repeatable: any of them)\n"
	"      --tid=N          thread id N (repeatable: any of them)\n"
	"      --comm=REGEX     command name matches REGEX (use ^name$ for exact)\n"
	"      --event=NAME     event NAME\n"
	"      --min-weight=N   weight at least N (primary metric of the stack's event)\n"
	"  -m, --metric=NAME    the metric for --min-weight and --count\n"
	FILTER_HELP
	"  (with --hide, --show, --show-from or --prune-from the stacks kept lose\n"
	"  frames: their ids stay, the header's stack_id_mode becomes \"local\")\n"
	FOLD_NAME_HELP
	"Output:\n"
	"  -c, --count          print only \"N stacks, W METRIC\" for the kept stacks,\n"
	"                       W as the tables print it (1.50s, 310.47MB, 2,006)\n"
	"      --raw-units      with -c: W as an exact integer, without unit\n"
	"      --iec            with -c: bytes in KiB, MiB, GiB\n"
	"      --keep-dicts     keep every dictionary record, referenced or not\n"
	READERS_HELP
	CLI_HELP_TAIL;

/* ---- options ---------------------------------------------------------------- */

static regex_t *pats;          /* -e */
static const char **pat_text;  /* their text */
static uint32_t npats, patcap;
static regex_t dso_re, comm_re;
static bool have_dso, have_comm, leaf_only, invert, icase, count_only, keep_dicts, zstd;
static int64_t *pids, *tids;
static uint32_t npids, pidcap, ntids, tidcap;
static const char *event_name, *metric_name, *out_path;
static bool have_min;
static num min_weight;
static fold_opts fo = { .inline_mode = -1 }; /* how frames are named */
static frame_filter ff;        /* --focus, --hide ... (filter.h) */
static bool rewrote;           /* a stack kept lost frames to the filters */
static units_opts uo; /* -c: --raw-units, --iec */

static void compile(regex_t *re, const char *opt, const char *pat)
{
	int rc = regcomp(re, pat, REG_EXTENDED | REG_NOSUB | (icase ? REG_ICASE : 0));
	if (rc != 0) {
		char msg[256];
		regerror(rc, re, msg, sizeof msg);
		usage_error("%s '%s': %s", opt, pat, msg);
	}
}

static void parse_options(int argc, char **argv)
{
	enum { O_LEAF = FOLD_OPT_END, O_DSO, O_PID, O_TID, O_COMM, O_EVENT, O_MIN, O_METRIC, O_KEEP };
	static const struct option longopts[] = {
		{ "regexp", required_argument, 0, 'e' },
		{ "dso", required_argument, 0, O_DSO },
		{ "leaf", no_argument, 0, O_LEAF },
		{ "invert-match", no_argument, 0, 'v' },
		{ "ignore-case", no_argument, 0, 'i' },
		{ "pid", required_argument, 0, O_PID },
		{ "tid", required_argument, 0, O_TID },
		{ "comm", required_argument, 0, O_COMM },
		{ "event", required_argument, 0, O_EVENT },
		{ "min-weight", required_argument, 0, O_MIN },
		{ "metric", required_argument, 0, 'm' },
		{ "count", no_argument, 0, 'c' },
		{ "keep-dicts", no_argument, 0, O_KEEP },
		{ "raw-units", no_argument, 0, UNITS_OPT_RAW },
		{ "iec", no_argument, 0, UNITS_OPT_IEC },
		CLI_OUT_LONGOPTS,
		FOLD_NAME_LONGOPTS,
		FILTER_LONGOPTS,
		READERS_LONGOPTS,
		CLI_STD_LONGOPTS,
		{ 0, 0, 0, 0 }
	};
	/* Patterns are compiled after all options are read (-i may come last). */
	const char **pat_src = NULL, *dso_src = NULL, *comm_src = NULL;
	uint32_t npat_src = 0, pat_src_cap = 0;
	int c;
	while ((c = getopt_long(argc, argv, "e:vicm:so:zhV", longopts, NULL)) != -1) {
		if (fold_opts_take(&fo, c, optarg) || filter_take(&ff, c, optarg)) continue;
		switch (c) {
		case 'e': *VEC_PUSH(pat_src, npat_src, pat_src_cap) = optarg; break;
		case O_DSO: dso_src = optarg; break;
		case O_LEAF: leaf_only = true; break;
		case 'v': invert = true; break;
		case 'i': icase = true; break;
		case O_PID: *VEC_PUSH(pids, npids, pidcap) = opt_i64("--pid", optarg); break;
		case O_TID: *VEC_PUSH(tids, ntids, tidcap) = opt_i64("--tid", optarg); break;
		case O_COMM: comm_src = optarg; break;
		case O_EVENT: event_name = optarg; break;
		case O_MIN: have_min = true; min_weight = num_u(opt_u64("--min-weight", optarg)); break;
		case 'm': metric_name = optarg; break;
		case 'c': count_only = true; break;
		case O_KEEP: keep_dicts = true; break;
		case UNITS_OPT_RAW: uo.raw = true; break;
		case UNITS_OPT_IEC: uo.iec = true; break;
		CLI_OUT_CASES(out_path, zstd);
		READERS_OPT_CASES;
		CLI_STD_CASES(help_text);
		}
	}
	/* grep's operands: PATTERN first, unless -e gave the patterns (or
	 * another criterion selects the stacks) */
	bool any_filter = false; /* --focus, --hide ... select the stacks too */
	for (int i = 0; i < FILTER_N; i++) any_filter |= ff.src[i] != NULL;
	if (!npat_src && !dso_src && !comm_src && !npids && !ntids && !event_name && !have_min && !any_filter) {
		if (optind == argc)
			usage_error("no PATTERN: give one (spaa-grep PATTERN [FILE]...), -e PATTERN, "
				    "or a stack criterion such as --pid");
		*VEC_PUSH(pat_src, npat_src, pat_src_cap) = argv[optind++];
	}
	for (uint32_t i = 0; i < npat_src; i++) {
		regex_t *re = VEC_PUSH(pats, npats, patcap);
		compile(re, "-e", pat_src[i]);
	}
	pat_text = pat_src;
	if (dso_src) { compile(&dso_re, "--dso", dso_src); have_dso = true; }
	if (comm_src) { compile(&comm_re, "--comm", comm_src); have_comm = true; }
	filter_compile(&ff, &fo);
	if ((uo.raw || uo.iec) && !count_only) usage_error("--raw-units and --iec go with -c");
	if (invert && !npats && !have_dso) usage_error("-v needs a PATTERN, -e or --dso");
	if (leaf_only && !npats && !have_dso) usage_error("--leaf needs a PATTERN, -e or --dso");
}

/* ---- matching ----------------------------------------------------------------- */

static spaa_reader *r;
static uint8_t *fmatch;        /* per frame: 0 not yet known, 1 matches, 2 does not */
static uint32_t fmatch_cap;
static sbuf scratch;

static bool frame_matches(uint32_t f)
{
	if (f >= fmatch_cap) {
		uint32_t old = fmatch_cap;
		grow_array((void **)&fmatch, &fmatch_cap, f + 1, 1);
		memset(fmatch + old, 0, fmatch_cap - old);
	}
	if (!fmatch[f]) {
		const spaa_frame *fr = &r->frames[f];
		bool ok = true;
		if (npats) {
			/* the name spaa-fold and spaa-top print */
			scratch.n = 0;
			fold_frame_name(r, f, NULL, 0, &fo, &scratch);
			sbuf_addc(&scratch, 0);
			ok = false;
			for (uint32_t i = 0; i < npats && !ok; i++)
				ok = regexec(&pats[i], scratch.p, 0, NULL, 0) == 0;
		}
		if (ok && have_dso) ok = regexec(&dso_re, r->dsos[fr->dso].name, 0, NULL, 0) == 0;
		fmatch[f] = ok ? 1 : 2;
	}
	return fmatch[f] == 1;
}

/* Nothing kept: for each -e that matches no function and is a plain name
 * (but for ^ and $), the names that contain it, ignoring case, if any. */
static void hint_patterns(void)
{
	uint32_t nf = r->frame_ids.count;
	strmap names;
	strmap_init(&names);
	for (uint32_t f = 0; f < nf; f++) {
		scratch.n = 0;
		fold_frame_name(r, f, NULL, 0, &fo, &scratch);
		strmap_intern(&names, scratch.p, scratch.n, NULL);
	}
	sbuf lit = { 0 }, list = { 0 };
	for (uint32_t i = 0; i < npats; i++) {
		const char *p = pat_text[i];
		size_t n = strlen(p);
		bool matches = false;
		for (uint32_t k = 0; k < names.count && !matches; k++) {
			/* the keys are not NUL-terminated */
			size_t kn;
			const char *kp = strmap_key(&names, k, &kn);
			scratch.n = 0;
			sbuf_add(&scratch, kp, kn);
			sbuf_addc(&scratch, 0);
			matches = regexec(&pats[i], scratch.p, 0, NULL, 0) == 0;
		}
		if (matches) continue;
		if (n && p[0] == '^') p++, n--;
		if (n && p[n - 1] == '$') n--;
		lit.n = list.n = 0;
		sbuf_add(&lit, p, n);
		sbuf_addc(&lit, 0);
		if (!n || strpbrk(lit.p, ".[]()*+?{}|\\^$")) continue;
		if (hint_similar(&list, &names, lit.p, NULL, 5))
			warnmsg("%s: no function matches -e '%s'; names that contain '%s' (ignoring case): %.*s%s",
				r->name, pat_text[i], lit.p, (int)list.n, list.p, icase ? "" : "; -i ignores case");
	}
	sbuf_free(&lit);
	sbuf_free(&list);
	strmap_free(&names);
}

static bool in_list(const int64_t *v, uint32_t n, int64_t x)
{
	for (uint32_t i = 0; i < n; i++)
		if (v[i] == x) return true;
	return false;
}

/* The thread record of tid, or NULL. */
static const spaa_thread *thread_of(int64_t tid, int64_t *index)
{
	char nb[24];
	size_t n = fmt_i64(nb, tid);
	int64_t t = strmap_find(&r->thread_ids, nb, n);
	if (index) *index = t;
	return t >= 0 ? &r->threads[t] : NULL;
}

/* The metric that weighs stack s: --metric (pprof's names too, metric.h),
 * else its event's primary. */
static const char *stack_metric(const spaa_stack *s)
{
	const char *primary = s->event >= 0 ? r->events[s->event].primary_metric : NULL;
	if (metric_name) return metric_resolve(metric_name, primary);
	return primary;
}

/* The stack s is as the filters leave it (NULL: dropped by them). */
static const spaa_stack *filtered;

static bool selected(const spaa_stack *s)
{
	filtered = s;
	if (filter_active(&ff) && !(filtered = filter_stack(&ff, r, s))) return false;
	if (npats || have_dso) {
		bool any = false;
		if (leaf_only)
			any = s->nframes > 0 && frame_matches(spaa_stack_leaf(r, s));
		else
			for (uint32_t i = 0; i < s->nframes && !any; i++)
				any = frame_matches(s->frames[i]);
		if (any == invert) return false;
	}
	if (event_name && !sstr_eqc(s->event_name, event_name)) return false;
	if (npids) {
		int64_t pid;
		const spaa_thread *t;
		if (s->has_pid) pid = s->pid;
		else if (s->has_tid && (t = thread_of(s->tid, NULL)) && t->pid >= 0) pid = t->pid;
		else return false;
		if (!in_list(pids, npids, pid)) return false;
	}
	if (ntids && !(s->has_tid && in_list(tids, ntids, s->tid))) return false;
	if (have_comm) {
		sstr comm = fold_stack_comm(r, s);
		if (!comm.p) return false;
		scratch.n = 0;
		sbuf_add(&scratch, comm.p, comm.n);
		sbuf_addc(&scratch, 0);
		if (regexec(&comm_re, scratch.p, 0, NULL, 0) != 0) return false;
	}
	if (have_min) {
		const char *m = stack_metric(s);
		const spaa_weight *w = m ? spaa_weight_find(s->w, s->nw, m) : NULL;
		if (num_cmp(w ? w->value : num_i(0), min_weight) < 0) return false;
	}
	return true;
}

/* ---- the count (-c) --------------------------------------------------------------- */

typedef struct msum { const char *name; num sum; units unit; bool have_unit; } msum;
static msum *sums;
static uint32_t nsums, sumcap;
static uint64_t nkept;

static msum *sum_for(const char *name)
{
	for (uint32_t i = 0; i < nsums; i++)
		if (strcmp(sums[i].name, name) == 0) return &sums[i];
	msum *m = VEC_PUSH(sums, nsums, sumcap);
	m->name = name;
	m->sum = num_i(0);
	m->have_unit = false;
	return m;
}

/* The metrics listed by -c even when nothing matched: --metric, else the
 * primary metrics of the declared events (of --event only), header order. */
static void declare_sums(void)
{
	if (metric_name) {
		const char *primary = NULL;
		for (uint32_t i = 0; i < r->nevents && !primary; i++)
			if (!event_name || (r->events[i].name && !strcmp(r->events[i].name, event_name)))
				primary = r->events[i].primary_metric;
		sum_for(metric_resolve(metric_name, primary));
		return;
	}
	for (uint32_t i = 0; i < r->nevents; i++) {
		const spaa_event *e = &r->events[i];
		if (!e->primary_metric) continue;
		if (event_name && (!e->name || strcmp(e->name, event_name) != 0)) continue;
		sum_for(e->primary_metric);
	}
}

static void add_to_sums(const spaa_stack *s)
{
	const char *m = stack_metric(s);
	if (!m) return;
	const spaa_weight *w = spaa_weight_find(s->w, s->nw, m);
	msum *ms = sum_for(m);
	if (w && !ms->have_unit) {
		ms->unit = metric_units(w, s->event_name.p, s->event_name.n);
		ms->have_unit = true;
	}
	if (w && !num_add(&ms->sum, w->value))
		spaa_error(r, "-c: the %s weights add up beyond 64 bits", m);
}

/* ---- what is kept -------------------------------------------------------------------- */

/* Dictionary records (and unknown records before the first stack), raw. */
typedef struct dictrec {
	uint64_t off;
	uint32_t len, index;
	uint8_t type;
} dictrec;
static sbuf dtext;
static dictrec *drecs;
static uint32_t ndrecs, drcap;

static uint8_t *fref, *dref, *tref; /* referenced frames, dsos, threads */
static uint32_t fref_cap, dref_cap, tref_cap;

static void mark(uint8_t **set, uint32_t *cap, uint32_t i)
{
	if (i >= *cap) {
		uint32_t old = *cap;
		grow_array((void **)set, cap, i + 1, 1);
		memset(*set + old, 0, *cap - old);
	}
	(*set)[i] = 1;
}
static bool marked(const uint8_t *set, uint32_t cap, uint32_t i) { return i < cap && set[i]; }

static void mark_tid(int64_t tid)
{
	int64_t t;
	if (thread_of(tid, &t)) mark(&tref, &tref_cap, (uint32_t)t);
}

/* Stack ids: state 0 = only named by a sample so far, 1 = dropped, 2 = kept. */
static strmap stack_ids;
static uint8_t *sstate;
static uint32_t sstate_cap;

static uint32_t stack_index(sstr id)
{
	bool added;
	uint32_t i = strmap_intern(&stack_ids, id.p, id.n, &added);
	if (added) {
		if (i >= sstate_cap) grow_array((void **)&sstate, &sstate_cap, i + 1, 1);
		sstate[i] = 0;
	}
	return i;
}

/* Stacks first named by a sample: where, to report them if they never come. */
typedef struct unseen { uint32_t index; uint64_t line; char *id; } unseen;
static unseen *unseens;
static uint32_t nunseen, unseencap;

/* (stack, tid) pairs of undecided samples, to keep their thread records. */
static strmap pending_tids;

/* Spool records: a tag byte, then for 'S', 'W' and 'R' the line number and a
 * space, then the record. */
static spool *sp;

static void spool_tagged(char tag, bool with_line)
{
	spool_putc(sp, tag);
	if (with_line) {
		char nb[24];
		spool_write(sp, nb, fmt_u64(nb, r->lineno));
		spool_putc(sp, ' ');
	}
	spool_write(sp, r->line, r->len);
	spool_putc(sp, '\n');
}

/* spool_tagged() of another text than the line read. */
static void spool_text(char tag, bool with_line, const char *text, size_t n)
{
	spool_putc(sp, tag);
	if (with_line) {
		char nb[24];
		spool_write(sp, nb, fmt_u64(nb, r->lineno));
		spool_putc(sp, ' ');
	}
	spool_write(sp, text, n);
	spool_putc(sp, '\n');
}

/* A frame that lost, to --hide or --show, the frames of its location (the
 * frame it is inlined in, or those between) becomes a copy of its record
 * with the inline depth it has now (0: not inlined), under a new id
 * ("ID.dDEPTH", a string), as pprof's location keeps the lines that
 * remain: so an inlined frame still sits next to its caller (spaa(5)). */
static strmap variants;        /* (frame, depth) -> variant */
static struct variant { uint32_t frame; int32_t depth; char *id; } *vars;
static uint32_t nvars, varcap;

static const char *variant_id(uint32_t f, int32_t depth)
{
	uint32_t kb[2] = { f, (uint32_t)depth };
	bool fresh;
	uint32_t i = strmap_intern(&variants, (const char *)kb, sizeof kb, &fresh);
	if (!fresh) return vars[i].id;
	struct variant *v = VEC_PUSH(vars, nvars, varcap);
	sbuf id = { 0 };
	size_t n;
	const char *key = strmap_key(&r->frame_ids, f, &n);
	sbuf_printf(&id, "%.*s.d%d", (int)n, key, (int)depth);
	while (strmap_find(&r->frame_ids, id.p, id.n) >= 0) sbuf_addc(&id, '~');
	sbuf_addc(&id, 0);
	*v = (struct variant){ f, depth, id.p };
	mark(&dref, &dref_cap, r->frames[f].dso);
	return v->id;
}

/* The variant records of frame f's record (text, len), after it. */
static void put_variants(output *o, uint32_t f, const char *text, size_t len)
{
	json_doc doc;
	bool parsed = false;
	for (uint32_t i = 0; i < nvars; i++) {
		if (vars[i].frame != f) continue;
		if (!parsed) {
			json_doc_init(&doc);
			if (json_parse(&doc, text, len) != 0) die_input("invalid frame record"); /* parsed once already */
			parsed = true;
		}
		out_putc(o, '{');
		bool first = true;
		for (uint32_t k = json_first(&doc, 0), j = 0; j < doc.nodes[0].count; j++, k = json_after(&doc, k + 1)) {
			bool id = json_is_str(&doc, k, "id", 2), depth = json_is_str(&doc, k, "inline_depth", 12);
			if (json_is_str(&doc, k, "inlined", 7) && vars[i].depth == 0) continue;
			if (!first) out_putc(o, ',');
			first = false;
			jw_node(o, &doc, k);
			out_putc(o, ':');
			if (id) jw_strc(o, vars[i].id);
			else if (depth) out_printf(o, "%d", (int)vars[i].depth);
			else jw_node(o, &doc, k + 1);
		}
		out_puts(o, "}\n");
	}
	if (parsed) json_doc_free(&doc);
}

/* The stack record being read (r->doc) with the frames the filters left
 * (fs: f->pos[] gives their places in s), into rec: "frames" keeps those
 * elements as written, "exclusive" names the new leaf, "x_path_id" (a hash
 * of the frames it had) is left out; every other member as it is. */
static sbuf rec;
static const char **rewrite_vid; /* per frame of the stack rewritten: its variant's id, or NULL */
static uint32_t vidcap;

static void rewrite_stack(const spaa_stack *s, const spaa_stack *fs)
{
	const json_doc *d = &r->doc;
	uint32_t arr = json_get(d, 0, "frames");
	/* the elements of the frames array, in order */
	static uint32_t *el;
	static uint32_t elcap;
	grow_array((void **)&el, &elcap, s->nframes + 1, sizeof *el);
	uint32_t e = json_first(d, arr);
	for (uint32_t j = 0; j < s->nframes; j++, e = json_after(d, e)) el[j] = e;
	/* each frame's inline depth now, root first: 0 where its location's
	 * frames root-ward of it are gone */
	uint32_t nk = fs->nframes, n = s->nframes;
	grow_array((void **)&rewrite_vid, &vidcap, nk + 1, sizeof *rewrite_vid);
	const char **vid = rewrite_vid;
	int32_t depth = 0;
	uint32_t prevp = 0;
	for (uint32_t jr = 0; jr < nk; jr++) {
		uint32_t j = r->leaf_first ? nk - 1 - jr : jr;
		uint32_t p = r->leaf_first ? n - 1 - ff.pos[j] : ff.pos[j];
		depth = jr > 0 && prevp >= ff.locstart[p] ? depth + 1 : 0;
		prevp = p;
		const spaa_frame *fr = &r->frames[fs->frames[j]];
		bool changed = (depth > 0) != fr->inlined || (fr->inline_depth >= 0 && fr->inline_depth != depth);
		vid[j] = changed ? variant_id(fs->frames[j], depth) : NULL;
	}
	uint32_t lj = r->leaf_first ? 0 : nk - 1;
	rec.n = 0;
	sbuf_addc(&rec, '{');
	bool first = true;
	for (uint32_t k = json_first(d, 0), i = 0; i < d->nodes[0].count; i++, k = json_after(d, k + 1)) {
		uint32_t v = k + 1;
		if (json_is_str(d, k, "x_path_id", 9)) continue;
		if (!first) sbuf_addc(&rec, ',');
		first = false;
		jb_node(&rec, d, k);
		sbuf_addc(&rec, ':');
		if (v == arr) {
			sbuf_addc(&rec, '[');
			for (uint32_t j = 0; j < nk; j++) {
				if (j) sbuf_addc(&rec, ',');
				if (vid[j]) jb_str(&rec, vid[j], strlen(vid[j]));
				else jb_node(&rec, d, el[ff.pos[j]]);
			}
			sbuf_addc(&rec, ']');
		} else if (json_is_str(d, k, "exclusive", 9) && d->nodes[v].type == JSON_OBJECT) {
			sbuf_addc(&rec, '{');
			for (uint32_t m = json_first(d, v), j = 0; j < d->nodes[v].count; j++, m = json_after(d, m + 1)) {
				if (j) sbuf_addc(&rec, ',');
				jb_node(&rec, d, m);
				sbuf_addc(&rec, ':');
				if (!json_is_str(d, m, "frame", 5)) jb_node(&rec, d, m + 1);
				else if (vid[lj]) jb_str(&rec, vid[lj], strlen(vid[lj]));
				else jb_node(&rec, d, el[ff.pos[lj]]);
			}
			sbuf_addc(&rec, '}');
		} else {
			jb_node(&rec, d, v);
		}
	}
	sbuf_addc(&rec, '}');
}

static void take_stack(spaa_stack *s)
{
	spaa_stack_parse(r, s);
	bool keep = selected(s);
	if (count_only) { /* no ids needed: samples are not looked at */
		if (keep) {
			nkept++;
			add_to_sums(s);
		}
		return;
	}
	uint32_t i = stack_index(s->id);
	if (!keep) {
		if (sstate[i] == 0) sstate[i] = 1;
		return;
	}
	sstate[i] = 2;
	nkept++;
	const spaa_stack *fs = filtered;
	if (s->has_tid) mark_tid(s->tid);
	/* related_stacks may name stacks that are dropped: settled at the end */
	if (fs != s) {
		rewrite_stack(s, fs);
		for (uint32_t k = 0; k < fs->nframes; k++)
			if (!rewrite_vid[k]) mark(&fref, &fref_cap, fs->frames[k]);
		spool_text(s->related ? 'R' : 'K', s->related != 0, rec.p, rec.n);
		rewrote = true;
		return;
	}
	for (uint32_t k = 0; k < s->nframes; k++) mark(&fref, &fref_cap, s->frames[k]);
	if (s->has_excl) mark(&fref, &fref_cap, s->excl_frame);
	spool_tagged(s->related ? 'R' : 'K', s->related != 0);
}

static void take_sample(void)
{
	spaa_sample smp;
	if (spaa_sample_parse(r, &smp) < 0) return;
	int64_t i = strmap_find(&stack_ids, smp.stack_id.p, smp.stack_id.n);
	if (i >= 0 && sstate[i] == 2) {
		if (smp.has_tid) mark_tid(smp.tid);
		spool_tagged('K', false);
	} else if (i < 0 || sstate[i] == 0) {
		uint32_t k = stack_index(smp.stack_id);
		if (i < 0) {
			unseen *u = VEC_PUSH(unseens, nunseen, unseencap);
			u->index = k;
			u->line = r->lineno;
			u->id = xmemdup(smp.stack_id.p, smp.stack_id.n);
		}
		if (smp.has_tid) {
			char key[12];
			memcpy(key, &k, 4);
			memcpy(key + 4, &smp.tid, 8);
			strmap_intern(&pending_tids, key, sizeof key, NULL);
		}
		spool_tagged('S', true);
	}
}

/* After the input: threads of undecided samples whose stack was kept; a
 * sample naming a stack that never came is an error. */
static void settle_pending(void)
{
	for (uint32_t i = 0; i < nunseen; i++)
		if (sstate[unseens[i].index] == 0)
			die_at(r->name, unseens[i].line, "sample refers to unknown stack %s", unseens[i].id);
	for (uint32_t i = 0; i < pending_tids.count; i++) {
		const char *key = strmap_key(&pending_tids, i, NULL);
		uint32_t k;
		int64_t tid;
		memcpy(&k, key, 4);
		memcpy(&tid, key + 4, 8);
		if (sstate[k] == 2) mark_tid(tid);
	}
	for (uint32_t f = 0; f < fref_cap; f++)
		if (fref[f]) mark(&dref, &dref_cap, r->frames[f].dso);
}

/* The header with "stack_id_mode":"local": the stacks that lost frames
 * keep their ids, which are no longer the hashes of their content. */
static void put_local_header(output *o, const char *text, size_t len)
{
	json_doc doc;
	json_doc_init(&doc);
	if (json_parse(&doc, text, len) != 0 || doc.nodes[0].type != JSON_OBJECT)
		die_at(r->name, r->header_line, "invalid header record"); /* parsed once already */
	out_putc(o, '{');
	bool said = false;
	for (uint32_t k = json_first(&doc, 0), i = 0; i < doc.nodes[0].count; i++, k = json_after(&doc, k + 1)) {
		if (i) out_putc(o, ',');
		jw_node(o, &doc, k);
		out_putc(o, ':');
		if (json_is_str(&doc, k, "stack_id_mode", 13)) {
			out_puts(o, "\"local\"");
			said = true;
		} else {
			jw_node(o, &doc, k + 1);
		}
	}
	if (!said) out_puts(o, doc.nodes[0].count ? ",\"stack_id_mode\":\"local\"" : "\"stack_id_mode\":\"local\"");
	out_puts(o, "}\n");
	json_doc_free(&doc);
}

static void write_dicts(output *o)
{
	for (uint32_t i = 0; i < ndrecs; i++) {
		const dictrec *d = &drecs[i];
		bool keep = keep_dicts || d->type == SPAA_HEADER || d->type == SPAA_OTHER ||
			    (d->type == SPAA_DSO && marked(dref, dref_cap, d->index)) ||
			    (d->type == SPAA_FRAME && marked(fref, fref_cap, d->index)) ||
			    (d->type == SPAA_THREAD && marked(tref, tref_cap, d->index));
		if (!keep) continue;
		if (d->type == SPAA_HEADER && rewrote) {
			put_local_header(o, dtext.p + d->off, d->len);
			continue;
		}
		out_write(o, dtext.p + d->off, d->len);
		out_putc(o, '\n');
	}
	/* the variants, after the records they copy (kept or not) */
	if (!nvars) return;
	for (uint32_t i = 0; i < ndrecs; i++) {
		const dictrec *d = &drecs[i];
		if (d->type == SPAA_FRAME) put_variants(o, d->index, dtext.p + d->off, d->len);
	}
}

/* Is the stack id at node k of doc one of the kept stacks? */
static bool kept_id(const json_doc *doc, uint32_t k)
{
	sstr id;
	if (!spaa_id_text(doc, k, &id)) return false;
	int64_t i = strmap_find(&stack_ids, id.p, id.n);
	return i >= 0 && sstate[i] == 2;
}

/* Element e of a filtered array: a by_stack entry (an object with a
 * stack_id) or a related_stacks id. */
static bool element_kept(const json_doc *doc, uint32_t e, bool entries)
{
	uint32_t id = !entries ? e : doc->nodes[e].type == JSON_OBJECT ? json_get(doc, e, "stack_id") : 0;
	return id && kept_id(doc, id);
}

/* A window record (member "by_stack") or a stack record (member
 * "related_stacks"): as it is when the member names only kept stacks, else
 * rewritten with only the elements that do. */
static void write_filtered(output *o, json_doc *doc, const char *name, uint64_t line,
			   const char *text, size_t len, const char *member)
{
	bool entries = strcmp(member, "by_stack") == 0;
	if (json_parse(doc, text, len) != 0 || doc->nodes[0].type != JSON_OBJECT)
		die_at(name, line, "invalid %s record", entries ? "window" : "stack"); /* parsed once already */
	uint32_t arr = json_get(doc, 0, member);
	bool all = true;
	if (arr && doc->nodes[arr].type == JSON_ARRAY) {
		uint32_t k = json_first(doc, arr);
		for (uint32_t i = 0; i < doc->nodes[arr].count; i++, k = json_after(doc, k))
			if (!element_kept(doc, k, entries)) { all = false; break; }
	}
	if (all) {
		out_write(o, text, len);
		out_putc(o, '\n');
		return;
	}
	out_putc(o, '{');
	for (uint32_t k = json_first(doc, 0), i = 0; i < doc->nodes[0].count;) {
		uint32_t v = k + 1;
		jw_str(o, doc->nodes[k].str, doc->nodes[k].count);
		out_putc(o, ':');
		if (v == arr) {
			out_putc(o, '[');
			bool f1 = true;
			uint32_t e = json_first(doc, arr);
			for (uint32_t j = 0; j < doc->nodes[arr].count; j++, e = json_after(doc, e)) {
				if (!element_kept(doc, e, entries)) continue;
				if (!f1) out_putc(o, ',');
				f1 = false;
				jw_node(o, doc, e);
			}
			out_putc(o, ']');
		} else {
			jw_node(o, doc, v);
		}
		k = json_after(doc, v);
		if (++i < doc->nodes[0].count) out_putc(o, ',');
	}
	out_puts(o, "}\n");
}

static void play_spool(output *o)
{
	json_doc doc;
	json_doc_init(&doc);
	spool_rewind(sp);
	char *line;
	size_t len;
	while ((line = spool_line(sp, &len))) {
		char tag = line[0];
		if (tag == 'K') {
			line[len] = '\n';
			out_write(o, line + 1, len);
			continue;
		}
		char *end;
		uint64_t lineno = strtoull(line + 1, &end, 10);
		const char *text = end + 1;
		size_t tlen = len - (size_t)(text - line);
		if (tag == 'W' || tag == 'R') {
			write_filtered(o, &doc, r->name, lineno, text, tlen, tag == 'W' ? "by_stack" : "related_stacks");
			continue;
		}
		/* 'S': a sample met before its stack */
		if (json_parse(&doc, text, tlen) != 0)
			die_at(r->name, lineno, "invalid sample record"); /* cannot happen */
		uint32_t k = json_get(&doc, 0, "stack_id");
		if (k && kept_id(&doc, k)) {
			out_write(o, text, tlen);
			out_putc(o, '\n');
		}
	}
	json_doc_free(&doc);
}

/* ---- main ------------------------------------------------------------------------ */

int main(int argc, char **argv)
{
	cli_init(argc, argv);
	parse_options(argc, argv);
	r = readers_open_all(argv + optind, argc - optind);
	output *o = output_open(out_path, zstd);
	if (!count_only) sp = spool_new();
	strmap_init(&stack_ids);
	strmap_init(&pending_tids);
	strmap_init(&variants);
	spaa_stack s = { 0 };
	bool payload = false;  /* a stack, sample or window was seen */
	bool declared = false;
	enum spaa_rtype t;
	while ((t = spaa_next(r)) != SPAA_EOF) {
		switch (t) {
		case SPAA_STACK:
			payload = true;
			if (!declared) { declared = true; if (count_only) declare_sums(); }
			take_stack(&s);
			break;
		case SPAA_SAMPLE:
			payload = true;
			if (!count_only) take_sample();
			break;
		case SPAA_WINDOW:
			payload = true;
			if (!count_only) spool_tagged('W', true);
			break;
		case SPAA_OTHER:
			if (payload) {
				if (!count_only) spool_tagged('K', false);
				break;
			}
			/* before any stack: kept in place with the dictionaries */
			__attribute__((fallthrough));
		case SPAA_HEADER: case SPAA_DSO: case SPAA_FRAME: case SPAA_THREAD: {
			if (t == SPAA_HEADER && r->header_line == r->lineno) fold_opts_header(&fo, r);
			if (count_only) break;
			dictrec *d = VEC_PUSH(drecs, ndrecs, drcap);
			d->off = dtext.n;
			d->len = (uint32_t)r->len;
			d->type = (uint8_t)t;
			d->index = t == SPAA_DSO ? r->dso_ids.count - 1
				 : t == SPAA_FRAME ? r->frame_ids.count - 1
				 : t == SPAA_THREAD ? r->thread_ids.count - 1 : 0;
			sbuf_add(&dtext, r->line, r->len);
			break;
		}
		default:
			break;
		}
	}
	spaa_need_header(r);
	if (event_name) fold_pick_event(r, event_name, true); /* exits if not declared */

	if (count_only) {
		if (!declared) declare_sums();
		/* as the tables print figures (spaa-top): in the metric's unit */
		char nb[UNITS_BUF];
		out_u64(o, nkept);
		out_puts(o, nkept == 1 ? " stack" : " stacks");
		for (uint32_t i = 0; i < nsums; i++) {
			out_puts(o, ", ");
			num v = sums[i].sum;
			long double x = v.kind == NUM_DBL ? (long double)v.d : v.kind == NUM_INT ? (long double)v.i : (long double)v.u;
			units u = sums[i].have_unit ? sums[i].unit : units_of(sums[i].name, strlen(sums[i].name), NULL, 0);
			units_scale sc = units_auto(&u, &uo, x);
			if (uo.raw) out_write(o, nb, num_fmt(nb, v));
			else out_write(o, nb, units_fmt(nb, x, &sc));
			out_putc(o, ' ');
			out_puts(o, sums[i].name);
		}
		out_putc(o, '\n');
	} else {
		settle_pending();
		write_dicts(o);
		play_spool(o);
	}
	output_close(o);
	if (!nkept && npats && !invert) hint_patterns();
	spool_free(sp);
	filter_free(&ff);
	sbuf_free(&rec);
	for (uint32_t i = 0; i < nvars; i++) free(vars[i].id);
	free(vars);
	free(rewrite_vid);
	strmap_free(&variants);
	spaa_stack_free(&s);
	spaa_close(r);
	return EXIT_OK;
}
