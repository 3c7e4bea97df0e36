/* spaa-flamegraph - SPAA profiles, or folded stacks, as an interactive flame
 * graph: one self-contained SVG with its own small script (zoom, search,
 * hover details), no network use.
 *
 * The stacks are merged into a tree, one node per distinct path prefix
 * (memory grows with distinct stacks, never with samples), named as
 * spaa-fold names them (fold.h).  Children are laid out in the order
 * flamegraph.pl gives them (it sorts the folded lines: a node's own weight
 * first, then its children by "NAME;" bytes), so that the same folded input
 * at the same width gives flamegraph.pl's geometry; frames narrower than
 * --minwidth are left out (their parent's remainder).  Views: flame (root at
 * the bottom), icicle (--inverted), reversed stacks, the callers or callees
 * of a function, a differential graph of two profiles, and a flame chart (x
 * is time: sample records, or folded lines, in their order). */
#include <getopt.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "readers/open.h"
#include "build.h"
#include "cli.h"
#include "filter.h"
#include "fold.h"
#include "metric.h"
#include "units.h"
#include "folded.h"
#include "hint.h"
#include "input.h"
#include "naming.h"
#include "output.h"
#include "relay.h"
#include "spaapar.h"
#include "sniff.h"
#include "spaa.h"
#include "strmap.h"
#include "utf8.h"

static const char help[] =
"Usage: spaa-flamegraph [OPTION]... [FILE]...\n"
"Draw SPAA profiles, or folded stacks (\"root;...;leaf COUNT\"), as a flame\n"
"graph: a self-contained interactive SVG (click to zoom, Ctrl-F to search by\n"
"regular expression, hover for details) that uses no network.  Several FILEs\n"
"are drawn as one profile.  With no FILE, or when FILE is -, read standard\n"
"input (zstd and gzip allowed).  The format is told by the content; folded\n"
"stacks with two counts (\"stack BEFORE AFTER\", as spaa-diff writes them)\n"
"make a differential graph.\n"
"\n"
"Graph:\n"
"      --inverted       an icicle graph: the root at the top\n"
"      --reverse        every stack reversed: the leaf functions at the root\n"
"      --flamechart     x is time: the sample records (or folded lines) in\n"
"                       their order, consecutive equal frames merged\n"
"      --callers=FUNC   who calls FUNC: every stack through FUNC, cut at FUNC\n"
"                       and reversed (FUNC at the root)\n"
"      --callees=FUNC   what FUNC calls: every stack through FUNC from FUNC\n"
"                       on, merged over its call sites\n"
"  -E, --regex          FUNC is a POSIX extended regular expression\n"
"  -i, --ignore-case    FUNC (a regular expression) ignores case\n"
"      --diff           a differential graph: the two FILEs are BEFORE and\n"
"                       AFTER; red for growth, blue for reduction, widths of\n"
"                       AFTER\n"
"      --negate         a differential graph with the widths of BEFORE (what\n"
"                       disappeared shows; red is still growth)\n"
"Looks:\n"
"      --colors=PALETTE\n"
"                       hot, mem, io, java, js, perl, red, green, blue, aqua,\n"
"                       yellow, purple, orange, kind (kernel, native, jit,\n"
"                       interpreted and inlined frames each their hue) or\n"
"                       dso (a hue per library); default: dso for V8\n"
"                       profiles, kind where frames are of several kinds,\n"
"                       else hot\n"
"      --title=TEXT     the title (default \"Flame Graph\", \"Icicle Graph\"...)\n"
"      --subtitle=TEXT  a second line under the title\n"
"      --width=PIXELS   the width of the image (default 1200)\n"
"      --height=PIXELS  the height of a frame (default 16)\n"
"      --minwidth=N[%]  leave out frames narrower than N pixels (default 0.1),\n"
"                       or than N percent of the total\n"
"      --fontsize=N     the size of the text (default 12)\n"
"      --fonttype=FONT  the font (default Verdana)\n"
"      --countname=TEXT  what the weights count (default: the metric's unit,\n"
"                       else its name; \"samples\" for folded stacks)\n"
"      --nametype=TEXT  the label of the details line (default \"Function:\")\n"
"      --factor=X       multiply the weights shown by X\n"
"      --notes=TEXT     a note kept in the SVG (not drawn)\n"
"Event and weight (as spaa-fold):\n"
"      --event=NAME     draw event NAME (default: the first one declared)\n"
"      --all-events     every event, with its name as the root frame\n"
"  -m, --metric=NAME    weigh by metric NAME (default: the event's primary\n"
"                       metric)\n"
FOLD_HELP
FILTER_HELP
"Speed:\n"
"  -j, --jobs=N         threads: with 2 or more, a SPAA file is read in parts\n"
"                       on N threads (a pipe: one reads, another folds), and\n"
"                       perf.data and perf script text are read on N threads\n"
"                       (default: the online cores)\n"
"Output:\n"
READERS_HELP
	CLI_HELP_TAIL;

/* ---- options ------------------------------------------------------------ */

enum palette { PAL_HOT, PAL_MEM, PAL_IO, PAL_JAVA, PAL_JS, PAL_PERL, PAL_RED, PAL_GREEN,
	       PAL_BLUE, PAL_AQUA, PAL_YELLOW, PAL_PURPLE, PAL_ORANGE, PAL_KIND, PAL_DSO,
	       PAL_AUTO /* no --colors: chosen by the profile's source (auto_palette) */ };
static const char *const palettes[] = { "hot", "mem", "io", "java", "js", "perl", "red", "green",
					"blue", "aqua", "yellow", "purple", "orange", "kind", "dso",
					NULL };

static struct {
	bool inverted, reverse, flamechart, diff, negate, regex, icase;
	const char *callers, *callees;   /* at most one */
	enum palette palette;
	const char *title, *subtitle, *countname, *nametype, *fonttype, *notes;
	double width, frameheight, minwidth, fontsize, fontwidth, factor;
	bool minwidth_pct;
	const char *event, *metric, *outpath;
	bool zstd;
	unsigned jobs;
	fold_opts fo;
} O = {
	.width = 1200, .frameheight = 16, .minwidth = 0.1, .fontsize = 12, .fontwidth = 0.59,
	.factor = 1, .nametype = "Function:", .fonttype = "Verdana", .palette = PAL_AUTO,
};
static regex_t focus_re;

/* ---- names ---------------------------------------------------------------
 * One id space for every name, SPAA frames and folded text alike: the
 * strmap of fold_names (so that fold_stack_packed() gives ids directly).
 * Per name: whether its text holds ';' (perf's "a->b" symbols fold into
 * several frames: split once, cached), whether it is the focus of
 * --callers/--callees, and what kind of frame and which dso it came from
 * (for --colors=kind and dso). */

static fold_names names;

enum kind { K_NONE, K_NATIVE, K_KERNEL, K_JIT, K_INTERP, K_INLINED };
static unsigned kinds_seen;  /* 1 << kind, over the frames drawn */
static bool v8_seen;         /* a profile chrome2spaa wrote (V8's) */

struct name_info {
	uint8_t flags;     /* 1 split known, 2 has parts, 4 focus known, 8 focus */
	uint8_t kind;      /* enum kind, K_NONE when not known */
	uint32_t dso;      /* a name id: the dso's name; UINT32_MAX when not known */
	uint32_t part0, nparts; /* its parts in `parts` */
};
static struct name_info *info;
static uint32_t ninfo;
static uint32_t *parts, nparts_all, parts_cap;

static struct name_info *name_info(uint32_t id)
{
	if (id >= ninfo) {
		uint32_t n = ninfo, cap = ninfo;
		grow_array((void **)&info, &cap, id + 1, sizeof *info);
		for (uint32_t i = n; i < cap; i++) info[i] = (struct name_info){ .dso = UINT32_MAX };
		ninfo = cap;
	}
	return &info[id];
}

static uint32_t intern_name(const char *p, size_t n)
{
	return strmap_intern(&names.names, p ? p : "", n, NULL);
}

static sstr name_text(uint32_t id)
{
	size_t n;
	const char *p = strmap_key(&names.names, id, &n);
	return (sstr){ p, n };
}

/* Is name id the function of --callers/--callees? */
static bool is_focus(uint32_t id)
{
	struct name_info *ni = name_info(id);
	if (!(ni->flags & 4)) {
		const char *f = O.callers ? O.callers : O.callees;
		sstr t = name_text(id);
		bool m = O.regex ? regexec(&focus_re, t.p, 0, NULL, 0) == 0
				 : strlen(f) == t.n && memcmp(f, t.p, t.n) == 0;
		ni = name_info(id);
		ni->flags |= 4 | (m ? 8 : 0);
	}
	return ni->flags & 8;
}

/* Appends the frame ids of name id to the path (several when its text
 * holds ';'). */
static uint32_t *path;
static uint32_t npath, path_cap;

static void path_add(uint32_t id)
{
	struct name_info *ni = name_info(id);
	if (!(ni->flags & 1)) {
		sstr t = name_text(id);
		ni->flags |= 1;
		if (memchr(t.p, ';', t.n)) {
			uint32_t first = nparts_all, n = 0;
			size_t i = 0;
			for (;;) {
				size_t j = i;
				while (j < t.n && t.p[j] != ';') j++;
				uint32_t part = intern_name(t.p + i, j - i);
				t = name_text(id); /* the map may have grown */
				*VEC_PUSH(parts, nparts_all, parts_cap) = part;
				n++;
				if (j == t.n) break;
				i = j + 1;
			}
			ni = name_info(id);
			ni->flags |= 2;
			ni->part0 = first;
			ni->nparts = n;
		}
	}
	if (ni->flags & 2) {
		for (uint32_t k = 0; k < ni->nparts; k++)
			*VEC_PUSH(path, npath, path_cap) = parts[ni->part0 + k];
	} else {
		*VEC_PUSH(path, npath, path_cap) = id;
	}
}

/* ---- the stacks ----------------------------------------------------------
 * Every distinct path as drawn (name ids, root first, after the view's
 * changes) once, with its weights: per side (before, after: two for
 * differential graphs).  The frames are made from them at the end
 * (flow() below), so that memory grows with the distinct stacks only. */

static strmap paths;
static double *val[2];
static uint32_t val_cap;
static uint32_t *drawn, drawn_cap;

/* The index of path[0..npath) (root first) after the view's changes:
 * reversed, or cut at the focus function.  UINT32_MAX when the stack is not
 * drawn (it does not pass through the focus). */
static uint32_t place_path(void)
{
	uint32_t a = 0, b = npath; /* the part drawn */
	bool rev = O.reverse;
	if (O.callers || O.callees) {
		/* callees: from the focus nearest the root; callers: from the
		 * focus nearest the leaf, towards the root */
		uint32_t i;
		if (O.callees) {
			for (i = 0; i < npath && !is_focus(path[i]); i++) {}
			if (i == npath) return UINT32_MAX;
			a = i;
		} else {
			for (i = npath; i > 0 && !is_focus(path[i - 1]); i--) {}
			if (i == 0) return UINT32_MAX;
			b = i;
			rev = !rev;
		}
	}
	grow_array((void **)&drawn, &drawn_cap, b - a + 1, sizeof *drawn);
	for (uint32_t k = a; k < b; k++) drawn[k - a] = path[rev ? a + b - 1 - k : k];
	bool added;
	uint32_t i = strmap_intern(&paths, drawn, (b - a) * sizeof *drawn, &added);
	if (added) {
		uint32_t cap = val_cap;
		grow_array((void **)&val[0], &cap, i + 1, sizeof *val[0]);
		cap = val_cap;
		grow_array((void **)&val[1], &cap, i + 1, sizeof *val[1]);
		val_cap = cap;
		val[0][i] = val[1][i] = 0;
	}
	return i;
}

/* ---- reading SPAA ------------------------------------------------------- */

static sbuf packed;
static frame_filter ff;        /* --focus, --hide ... (filter.h) */

/* The path of stack s into `path`, names as spaa-fold gives them; notes
 * each new name's kind and dso. */
static void pack_stack(const spaa_reader *r, const spaa_stack *s)
{
	packed.n = 0;
	fold_stack_packed(&names, r, s, &O.fo, &packed);
}

/* `packed` into `path`. */
static void unpack_path(void)
{
	npath = 0;
	const uint8_t *q = (const uint8_t *)packed.p, *end = q + packed.n;
	while (q < end) {
		uint32_t v = 0;
		for (int sh = 0; q < end; sh += 7) {
			uint8_t c = *q++;
			v |= (uint32_t)(c & 127) << sh;
			if (!(c & 128)) break;
		}
		path_add(v);
	}
}

/* Notes the kind and dso of each name of stack s that has none yet. */
static void note_kinds(const spaa_reader *r, const spaa_stack *s)
{
	if (O.palette != PAL_KIND && O.palette != PAL_DSO && O.palette != PAL_AUTO) return;
	/* the frames' kinds and dsos, by their names (fold.h keeps the name id
	 * of each frame it named) */
	for (uint32_t i = 0; i < s->nframes; i++) {
		uint32_t f = s->frames[i];
		if (f >= names.n) continue;
		for (int j = 0; j < 2; j++) {
			if (!(names.ent[f].have & (1u << j))) continue;
			uint32_t id = names.ent[f].id[j];
			if (name_info(id)->kind != K_NONE) continue;
			const spaa_frame *fr = &r->frames[f];
			const spaa_dso *d = &r->dsos[fr->dso];
			enum kind k = K_NATIVE;
			size_t dn = d->name_n;
			if (fr->inlined) k = K_INLINED;
			else if (fr->kind == FK_KERNEL || d->is_kernel || naming_dso_is_kernel(d->name, dn))
				k = K_KERNEL;
			else if (naming_dso_is_jit(d->name, dn) || strstr(d->name, "[JIT]"))
				k = K_JIT;
			else if ((dn > 3 && !memcmp(d->name + dn - 3, ".js", 3)) ||
				 (dn > 4 && !memcmp(d->name + dn - 4, ".mjs", 4)) ||
				 (dn > 3 && !memcmp(d->name + dn - 3, ".py", 3)) ||
				 (dn > 3 && !memcmp(d->name + dn - 3, ".rb", 3)) ||
				 (dn > 4 && !memcmp(d->name + dn - 4, ".php", 4)) ||
				 (dn > 3 && !memcmp(d->name + dn - 3, ".pl", 3)) ||
				 !strncmp(d->name, "http://", 7) || !strncmp(d->name, "https://", 8) ||
				 !strncmp(d->name, "file://", 7) || !strncmp(d->name, "node:", 5))
				k = K_INTERP;
			uint32_t dso = intern_name(d->name, dn);
			struct name_info *ni = name_info(id);
			ni->kind = (uint8_t)k;
			kinds_seen |= 1u << k;
			ni->dso = dso;
		}
	}
}

static void stack_path(const spaa_reader *r, const spaa_stack *s)
{
	pack_stack(r, s);
	unpack_path();
	note_kinds(r, s);
}

/* What the chosen event and metric are, per file. */
struct pick { int32_t ev; const char *ev_name, *metric; };

static void pick_header(spaa_reader *r, struct pick *p)
{
	fold_opts_header(&O.fo, r);
	if (r->source_tool && !strcmp(r->source_tool, "chrome")) v8_seen = true;
	if (O.fo.all_events) {
		p->ev = -1;
		p->ev_name = NULL;
		p->metric = NULL;
		return;
	}
	p->ev = fold_pick_event(r, O.event, false);
	p->ev_name = p->ev >= 0 ? r->events[p->ev].name : NULL;
	p->metric = fold_pick_metric(r, p->ev, O.metric);
}

static bool stack_wanted(const struct pick *p, const spaa_stack *s)
{
	return O.fo.all_events || p->ev < 0 || (p->ev_name && sstr_eqc(s->event_name, p->ev_name));
}

static const char *stack_metric(const spaa_reader *r, const struct pick *p, const spaa_stack *s)
{
	return O.fo.all_events ? fold_pick_metric(r, s->event, O.metric) : p->metric;
}

/* The count name: the metric's unit, else its name (the first file's). */
static char *countname_seen;

static void set_countname_n(const char *p, size_t n)
{
	free(countname_seen);
	countname_seen = xmalloc(n + 1);
	memcpy(countname_seen, p, n);
	countname_seen[n] = 0;
}

static void set_countname(const char *s) { set_countname_n(s, strlen(s)); }

/* The unit of the weights (metric.h), for the tooltips' figures in it. */
static units count_units;
static bool have_count_units;

static void note_countname(const spaa_weight *w, sstr event)
{
	if (!have_count_units) {
		count_units = metric_units(w, event.p, event.n);
		have_count_units = true;
	}
	if (countname_seen) return;
	sstr t = w->unit.p && w->unit.n ? w->unit : w->metric;
	set_countname_n(t.p, t.n);
}

static double num_value(num v)
{
	return v.kind == NUM_DBL ? v.d : v.kind == NUM_INT ? (double)v.i : (double)v.u;
}

/* Packed path (fold.h) -> path index, so that a stack met again (another
 * thread's) costs one lookup: its names all have their kind already (the
 * stack that brought a name in noted it), and its path is placed. */
static strmap seen_paths;
static uint32_t *seen_node, seen_cap;

static uint32_t stack_node(const spaa_reader *r, const spaa_stack *s)
{
	pack_stack(r, s);
	bool added;
	uint32_t i = strmap_intern(&seen_paths, packed.p ? packed.p : "", packed.n, &added);
	if (added) {
		unpack_path();
		note_kinds(r, s);
		grow_array((void **)&seen_node, &seen_cap, i + 1, sizeof *seen_node);
		seen_node[i] = place_path();
	} else if (packed.n == 0) {
		/* an empty path may hide a name (fold.h: one empty name) */
		note_kinds(r, s);
	}
	return seen_node[i];
}

static uint64_t skipped_total;
enum { PAR_MIN = 4 << 20 };    /* bytes left worth the threads' start */

/* ---- -j: reading and folding in two threads -------------------------------
 * With two jobs or more, the main thread reads the stack records (the
 * reader's fast path, spaa_fast_stacks(), and the weight) and a second
 * thread folds them (stack_node(): names, paths, weights), handed on in
 * batches by a stack relay (relay.h), so that the two halves of the work
 * run side by side.  Only the folder changes what it touches (the names,
 * the paths, the weights).  The stacks are folded in their order, so the
 * graph is the same bytes with any -j. */

struct fold_to { const spaa_reader *r; int side; };

/* The magnitudes of the weights added up so far (spaapar.h): while they
 * stay within 2^53, every sum of doubles here is exact, in any order. */
static uint64_t abs_total;
#define EXACT_DOUBLES ((uint64_t)1 << 53)

static void add_val(int side, uint32_t n, num w)
{
	abs_total = spaa_abs_add(abs_total, w);
	if (n != UINT32_MAX) val[side][n] += num_value(w);
}

static void fold_relayed(void *ctx, const spaa_stack *s, num w, uint64_t lineno)
{
	const struct fold_to *to = ctx;
	(void)lineno;
	add_val(to->side, stack_node(to->r, s), w);
}

/* ---- -j on a plain file: its stack records read on the threads ------------
 * in chunks (spaapar.h), each summing its records' weights by what their
 * folded path depends on; the chunks merged in file order, each key's path
 * placed once: the paths come in the order one thread meets them, and the
 * sums are exact (abs_total), so the graph is the same bytes. */
struct fg_par {
	const spaa_reader *r;
	const struct pick *p;
	int side;
	uint64_t *skipped;
	spaa_stack tmp;
};

struct fg_chunk {
	spaa_par_sums sums;         /* (first: spaapar.h) */
	uint64_t skipped;
	/* the first weight taken: the count name and units come from it */
	bool have_w, have_unit;
	char *metric, *unit, *event;
};

static void fg_chunk_free(void *chunk)
{
	struct fg_chunk *c = chunk;
	free(c->metric);
	free(c->unit);
	free(c->event);
}

static bool fg_stack(void *ctx, void *chunk, const spaa_stack *s)
{
	const struct fg_par *P = ctx;
	struct fg_chunk *c = chunk;
	if (!stack_wanted(P->p, s)) return true;
	const spaa_weight *w = spaa_weight_find(s->w, s->nw, stack_metric(P->r, P->p, s));
	if (!w) {
		c->skipped++;
		return true;
	}
	sbuf *k = &c->sums.key;
	spaa_par_key(s, (O.fo.all_events ? SPAA_KEY_EVENT : 0) | SPAA_KEY_COMM |
			       (O.fo.pid || O.fo.tid ? SPAA_KEY_PID : 0) |
			       (O.fo.tid || !s->comm.p ? SPAA_KEY_TID : 0), k);
	if (!spaa_par_sums_add(&c->sums, k->p, k->n, w->value)) return false;
	if (!c->have_w) {
		c->have_w = true;
		c->metric = xmemdup(w->metric.p, w->metric.n);
		c->have_unit = w->unit.p != NULL;
		if (c->have_unit) c->unit = xmemdup(w->unit.p, w->unit.n);
		c->event = xmemdup(s->event_name.p ? s->event_name.p : "", s->event_name.n);
	}
	return true;
}

static bool fg_merge(void *ctx, void *chunk)
{
	struct fg_par *P = ctx;
	struct fg_chunk *c = chunk;
	if (spaa_abs_add(abs_total, num_u(c->sums.abs)) > EXACT_DOUBLES) return false;
	*P->skipped += c->skipped;
	if (c->have_w) {
		spaa_weight w = { sstr_c(c->metric), c->have_unit ? sstr_c(c->unit) : SSTR_NULL, num_i(0) };
		note_countname(&w, sstr_c(c->event));
	}
	for (uint32_t i = 0; i < c->sums.keys.count; i++) {
		size_t n;
		const char *k = strmap_key(&c->sums.keys, i, &n);
		add_val(P->side, stack_node(P->r, spaa_par_unkey(&P->tmp, k, n)), c->sums.sum[i]);
	}
	return true;
}

static void read_spaa_stacks(spaa_reader *r, int side)
{
	spaa_stack s = { 0 };
	struct pick p = { .ev = -2 };
	uint64_t skipped = 0;
	spaa_fast_stacks(r, &s);
	struct fold_to to = { r, side };
	/* -j: a plain file read on the threads, else read here and folded
	 * on another thread (not a profile read in process: relay.h) */
	bool par = O.jobs > 1 && !filter_active(&ff) && spaa_par_possible(r, O.jobs);
	struct fg_par P = { .r = r, .p = &p, .side = side, .skipped = &skipped };
	const spaa_par_ops ops = { &P, sizeof(struct fg_chunk), fg_stack, fg_merge, fg_chunk_free };
	if (O.jobs > 1 && !par) relay_start(r, fold_relayed, &to);
	enum spaa_rtype t;
	while ((t = spaa_next(r)) != SPAA_EOF) {
		if (t == SPAA_HEADER && p.ev == -2) pick_header(r, &p);
		if (t != SPAA_STACK) continue;
		/* read on the fast path: s is filled in already */
		if (!r->fast && spaa_stack_parse(r, &s) < 0) cli_exit(EXIT_DATA);
		if (!stack_wanted(&p, &s)) continue;
		const char *m = stack_metric(r, &p, &s);
		const spaa_weight *w = spaa_weight_find(s.w, s.nw, m);
		if (!w) {
			skipped++;
			continue;
		}
		note_countname(w, s.event_name);
		const spaa_stack *fs = &s;
		if (filter_active(&ff) && !(fs = filter_stack(&ff, r, &s))) continue;
		if (relay_on()) {
			relay_add(fs, w->value, r->lineno);
			continue;
		}
		add_val(side, stack_node(r, fs), w->value);
		if (r->fast && par && abs_total <= EXACT_DOUBLES)
			/* the rest on the threads, while it is as large as their
			 * start costs */
			par = spaa_par_stacks(r, O.jobs, PAR_MIN, &ops) >= PAR_MIN;
	}
	relay_stop();
	spaa_stack_free(&P.tmp);
	if (skipped)
		warn_at(r->name, 0, "%llu stack%s without %s%s skipped", (unsigned long long)skipped,
			skipped == 1 ? "" : "s", O.metric || p.metric ? "metric " : "its event's primary metric",
			O.metric ? O.metric : p.metric ? p.metric : "");
	skipped_total += skipped;
	spaa_need_header(r);
	spaa_fast_stacks(r, NULL);
	spaa_stack_free(&s);
}

/* ---- reading folded stacks ---------------------------------------------- */

static int folded_two = -1; /* the form of the folded input: -1 not known yet, 0 one count, 1 two */

static void folded_path(const char *line, size_t n)
{
	npath = 0;
	size_t i = 0;
	if (n == 0) return;
	for (;;) {
		size_t j = i;
		while (j < n && line[j] != ';') j++;
		*VEC_PUSH(path, npath, path_cap) = intern_name(line + i, j - i);
		if (j == n) break;
		i = j + 1;
	}
}

/* Reads one folded line: FOLDED_SKIP, or FOLDED_OK with `path` set and the
 * counts in c[0] (before) and c[1] (after, or the only one). */
static int folded_read_line(input *in, const char *line, size_t len, double c[2])
{
	folded_line fl;
	const char *name = input_name(in);
	uint64_t ln = input_lineno(in);
	int pc = folded_split(line, len, &fl);
	if (pc == FOLDED_SKIP) return pc;
	if (pc == FOLDED_NONE)
		die_at(name, ln, "no count at the end of the line (expected \"frame;frame;... COUNT\")");
	if (pc == FOLDED_RANGE)
		die_at(name, ln, "count %.*s out of range", (int)fl.count_n, line + fl.count_at);
	if (folded_two < 0) folded_two = fl.two;
	if (folded_two && !fl.two)
		die_at(name, ln, "one count, but the first line had two (\"stack BEFORE AFTER\"): "
		       "a differential file has two counts on every line");
	c[0] = folded_two ? num_value(fl.count1) : 0;
	c[1] = num_value(fl.count);
	if (c[0] < 0 || c[1] < 0)
		die_at(name, ln, "negative count: a flame graph draws weights of 0 or more");
	folded_path(line, folded_two ? fl.path2_n : fl.path_n);
	return FOLDED_OK;
}

static void read_folded_stacks(input *in, int side)
{
	char *line;
	size_t len;
	while ((line = input_line(in, &len))) {
		double c[2];
		if (folded_read_line(in, line, len, c) == FOLDED_SKIP) continue;
		uint32_t n = place_path();
		if (n == UINT32_MAX) continue;
		if (folded_two) {
			val[0][n] += c[0];
			val[1][n] += c[1];
		} else {
			val[side][n] += c[1];
		}
	}
}

/* ---- inputs: SPAA or folded, told by the content ------------------------ */

/* Is the input folded stacks?  Looks at its first line that is not blank
 * and no comment, without consuming it: SPAA starts with '{'; a line that
 * another converter reads (sniff.h) goes to the SPAA reader too, which says
 * what to run first; anything else is read as folded stacks (and a line
 * without a count is reported there).  An input of nothing but blank lines
 * is SPAA's empty input; comments alone, folded stacks with none. */
static bool is_folded(input *in)
{
	if (!in) return false; /* a profile read in process */
	const void *v;
	size_t n = input_peek(in, &v, 1 << 16);
	const char *p = v, *end = p + n;
	bool comments = false;
	while (p < end) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		if (!e) e = end;
		const char *q = p;
		while (q < e && (*q == ' ' || *q == '\t' || *q == '\r')) q++;
		if (q == e || *q == '#') {
			comments |= q < e;
			p = e + 1;
			continue;
		}
		if (*q == '{' || *q == '[') return false;
		sniff_result res;
		if (sniff_line(p, (size_t)(e - p), &res) == 0)
			return strcmp(res.what, "folded stacks") == 0;
		return true;
	}
	return comments;
}

static void read_input(const char *file, int side)
{
	static bool spaa_seen;
	spaa_reader *r = spaa_open_any(file);
	fold_names_reset(&names);
	filter_reset(&ff);
	if (is_folded(r->in)) {
		if (filter_active(&ff))
			die_at(r->name, 0, "folded stacks: the frame filters (--focus, --hide ...) read SPAA "
			       "(convert with folded2spaa first)");
		if (!countname_seen) set_countname("samples");
		read_folded_stacks(r->in, side);
	} else {
		spaa_seen = true;
		read_spaa_stacks(r, side);
	}
	if (spaa_seen && folded_two > 0)
		die_at(r->name, 0, "SPAA and differential folded stacks cannot be drawn together");
	spaa_close(r);
}

/* ---- frames: flamegraph.pl's flow -----------------------------------------
 * Paths come one after the other, each with its weight: the frames that
 * the next path shares stay open (and grow), the others close.  Sorted
 * paths make the flame graph (flamegraph.pl sorts its lines: a node's own
 * weight first, then its children by "NAME;" bytes); paths in time order
 * make the flame chart.  A frame is kept when it closes, if it is wide
 * enough: memory stays bounded by what is drawn. */

struct frame { uint32_t name, depth; double start, width, delta; };
static struct frame *frames;
static uint32_t nframes, frames_cap, depthmax;
static double flow_time;       /* the weight laid out so far */
static double flow_min;        /* frames narrower than this (weight) are left out */
static bool flow_emit = true;  /* false: a pass that only adds up */
static uint32_t *open_name, open_cap, nopen;
static double *open_start, *open_delta;
static uint32_t open_start_cap, open_delta_cap;

static void flow_close(uint32_t keep)
{
	while (nopen > keep) {
		nopen--;
		double st = open_start[nopen], w = flow_time - st;
		if (flow_emit && w >= flow_min && w > 0) {
			*VEC_PUSH(frames, nframes, frames_cap) =
				(struct frame){ open_name[nopen], nopen + 1, st, w, open_delta[nopen] };
			if (nopen + 1 > depthmax) depthmax = nopen + 1;
		}
	}
}

/* The next path p[0..n), of weight w (delta: its change, for differential
 * graphs). */
static void flow(const uint32_t *p, uint32_t n, double w, double delta)
{
	if (w <= 0) return;
	uint32_t same = 0;
	while (same < nopen && same < n && open_name[same] == p[same]) same++;
	flow_close(same);
	for (uint32_t i = same; i < n; i++) {
		grow_array((void **)&open_name, &open_cap, i + 1, sizeof *open_name);
		grow_array((void **)&open_start, &open_start_cap, i + 1, sizeof *open_start);
		grow_array((void **)&open_delta, &open_delta_cap, i + 1, sizeof *open_delta);
		open_name[i] = p[i];
		open_start[i] = flow_time;
		open_delta[i] = i + 1 == n ? delta : 0;
	}
	nopen = n;
	flow_time += w;
}

/* The flame chart's axis: the timestamp of the sample at each tick */
#define AXIS_TICKS 10
static struct {
	bool have_ts;         /* every sample has one */
	double ns_per_unit;   /* the header's time unit */
	double total;         /* the weight of all samples (pass 0) */
	int next;             /* the next tick to place */
	double ts[AXIS_TICKS + 1];
} axis = { .have_ts = true, .ns_per_unit = 1e9 };

/* A sample of weight w at ts (has_ts false: none) is being laid out. */
static void axis_sample(bool has_ts, double ts, double w)
{
	if (!has_ts) axis.have_ts = false;
	while (axis.next <= AXIS_TICKS &&
	       (flow_time + w > axis.total * axis.next / AXIS_TICKS || axis.next == AXIS_TICKS))
		axis.ts[axis.next++] = ts;
}

static void chart_sample(double w)
{
	if (O.reverse)
		for (uint32_t a = 0, z = npath ? npath - 1 : 0; a < z; a++, z--) {
			uint32_t t = path[a];
			path[a] = path[z];
			path[z] = t;
		}
	flow(path, npath, w, 0);
}

static double min_weight(double total)
{
	return O.minwidth_pct ? total * O.minwidth / 100 : total * O.minwidth / (O.width - 20);
}

/* The stacks of a SPAA file by id -> their path (packed), for the samples. */
static strmap chart_ids;
static uint32_t *chart_path;     /* per stack id: index into chart_paths, or UINT32_MAX */
static uint32_t chart_path_cap;
static strmap chart_paths;       /* path as uint32 name ids */

/* A reader of the copy that can be read again, named as the user named it. */
static spaa_reader *chart_open(const char *again, const char *file)
{
	spaa_reader *r = spaa_open(again);
	r->name = file;
	fold_names_reset(&names);
	return r;
}

/* Folded lines as the samples, in their order: pass 0 adds up, pass 1 lays
 * out. */
static void chart_folded(spaa_reader *r, int pass)
{
	char *line;
	size_t len;
	while ((line = input_line(r->in, &len))) {
		double c[2];
		if (folded_read_line(r->in, line, len, c) == FOLDED_SKIP) continue;
		if (folded_two)
			die_at(r->name, input_lineno(r->in), "a flame chart draws one profile, not a differential one");
		axis.have_ts = false;
		chart_sample(c[1]);
	}
	flow_close(0);
	if (pass == 0) flow_min = min_weight(flow_time);
}

/* The stack records of a SPAA file: their paths, by id.  Returns the number
 * of sample records; the event is picked into *p. */
static uint64_t chart_stacks(spaa_reader *r, struct pick *p)
{
	spaa_stack s = { 0 };
	enum spaa_rtype t;
	uint64_t nsamples = 0;
	while ((t = spaa_next(r)) != SPAA_EOF) {
		if (t == SPAA_HEADER && p->ev == -2) {
			pick_header(r, p);
			uint32_t tr = json_get(&r->doc, 0, "time_range");
			uint32_t u = tr ? json_get(&r->doc, tr, "unit") : 0;
			if (u && json_is_str(&r->doc, u, "nanoseconds", 11)) axis.ns_per_unit = 1;
			else if (u && json_is_str(&r->doc, u, "microseconds", 12)) axis.ns_per_unit = 1e3;
			else if (u && json_is_str(&r->doc, u, "milliseconds", 12)) axis.ns_per_unit = 1e6;
		}
		if (t == SPAA_SAMPLE) nsamples++;
		if (t != SPAA_STACK) continue;
		if (spaa_stack_parse(r, &s) < 0) cli_exit(EXIT_DATA);
		uint32_t id = strmap_intern(&chart_ids, s.id.p, s.id.n, NULL);
		grow_array((void **)&chart_path, &chart_path_cap, id + 1, sizeof *chart_path);
		chart_path[id] = UINT32_MAX;
		if (!stack_wanted(p, &s)) continue;
		const spaa_weight *w = spaa_weight_find(s.w, s.nw, stack_metric(r, p, &s));
		if (w) note_countname(w, s.event_name);
		const spaa_stack *fs = &s;
		if (filter_active(&ff) && !(fs = filter_stack(&ff, r, &s))) continue;
		stack_path(r, fs);
		chart_path[id] = strmap_intern(&chart_paths, path, npath * sizeof *path, NULL);
	}
	spaa_need_header(r);
	spaa_stack_free(&s);
	return nsamples;
}

/* The sample records of event ev_name (NULL: all), in their order, each as
 * heavy as its period or as one: pass 0 adds up, pass 1 lays out. */
static void chart_samples(spaa_reader *r, const char *ev_name, bool period, int pass)
{
	spaa_sample sm = { 0 };
	enum spaa_rtype t;
	while ((t = spaa_next(r)) != SPAA_EOF) {
		if (t != SPAA_SAMPLE) continue;
		if (spaa_sample_parse(r, &sm) < 0) cli_exit(EXIT_DATA);
		if (sm.event.p && ev_name && !sstr_eqc(sm.event, ev_name)) continue;
		int64_t id = strmap_find(&chart_ids, sm.stack_id.p, sm.stack_id.n);
		if (id < 0)
			die_at(r->name, r->lineno, "sample of stack %.*s, which the file does not have",
			       (int)(sm.stack_id.n > 100 ? 100 : sm.stack_id.n), sm.stack_id.p);
		if (chart_path[id] == UINT32_MAX) continue; /* another event's */
		double sw = period && sm.has_period ? num_value(sm.period) : 1;
		if (pass == 1) axis_sample(sm.has_ts, sm.timestamp, sw);
		size_t pn;
		const char *pp = strmap_key(&chart_paths, chart_path[id], &pn);
		npath = (uint32_t)(pn / sizeof *path);
		grow_array((void **)&path, &path_cap, npath + 1, sizeof *path);
		memcpy(path, pp, pn);
		chart_sample(sw);
	}
	flow_close(0);
	if (pass == 0) flow_min = min_weight(flow_time), axis.total = flow_time;
}

/* The flame chart of one file: read as many times as needed (a copy of
 * standard input is kept), so that memory does not grow with the samples:
 * the stacks first (samples may come before their stacks), then the samples
 * twice, the total first (the scale), then the frames. */
static void chart(const char *file)
{
	char *again = readers_rereadable(file);
	spaa_reader *r = chart_open(again, file);
	filter_reset(&ff);
	if (is_folded(r->in) && filter_active(&ff))
		die_at(r->name, 0, "folded stacks: the frame filters (--focus, --hide ...) read SPAA "
		       "(convert with folded2spaa first)");
	if (is_folded(r->in)) {
		set_countname("samples");
		for (int pass = 0; pass < 2; pass++) {
			if (pass) r = chart_open(again, file);
			flow_emit = pass == 1;
			flow_time = 0;
			chart_folded(r, pass);
			spaa_close(r);
		}
		free(again);
		return;
	}
	struct pick p = { .ev = -2 };
	if (!chart_stacks(r, &p)) {
		sbuf how = { 0 };
		hint_samples(&how, r);
		die_at(r->name, 0, "no sample records: a flame chart needs them; %.*s (or draw a flame "
		       "graph without --flamechart)", (int)how.n, how.p);
	}
	/* the header's strings go with the reader: what is needed is kept */
	bool period = p.metric && strcmp(p.metric, "period") == 0;
	char *ev_name = NULL;
	if (p.ev_name && !O.fo.all_events) {
		ev_name = xmalloc(strlen(p.ev_name) + 1);
		strcpy(ev_name, p.ev_name);
	}
	spaa_close(r);
	for (int pass = 0; pass < 2; pass++) {
		r = chart_open(again, file);
		flow_emit = pass == 1;
		flow_time = 0;
		chart_samples(r, ev_name, period, pass);
		spaa_close(r);
	}
	if (!period) set_countname("samples"); /* every sample counts one */
	free(ev_name);
	free(again);
}

/* ---- the flame graph: the paths in flamegraph.pl's order ---------------- */

static double total, maxdelta = 1;
static int wside;              /* the side whose weights are the widths */

static const uint32_t *key_ids(uint32_t i, uint32_t *n)
{
	size_t len;
	const char *k = strmap_key(&paths, i, &len);
	*n = (uint32_t)(len / sizeof(uint32_t));
	return (const uint32_t *)(const void *)k;
}

/* Paths in the order of their folded lines: name by name ("NAME;" bytes,
 * fold_names_rank()), a path before the paths it is a prefix of.  Sorted
 * by name at depth d, then each run of one name at depth d + 1 (a
 * multikey quicksort): a name is compared once per partition, where a
 * whole-path comparison went over the long prefixes the paths share. */
struct pkey { const uint32_t *p; uint32_t n, i; };

/* The key of path k at depth d: 0 past its end (a prefix comes first),
 * else its name's rank + 1. */
static inline uint32_t key_at(const struct pkey *k, uint32_t d)
{
	return d < k->n ? names.rank[k->p[d]] + 1 : 0;
}

static bool path_less(const struct pkey *a, const struct pkey *b, uint32_t d)
{
	for (;; d++) {
		uint32_t x = key_at(a, d), y = key_at(b, d);
		if (x != y || !x) return x < y;
	}
}

static void sort_paths(struct pkey *a, uint32_t n)
{
	struct task { uint32_t lo, n, d; } *st = NULL;
	uint32_t nst = 0, cap = 0;
	*VEC_PUSH(st, nst, cap) = (struct task){ 0, n, 0 };
	while (nst) {
		struct task t = st[--nst];
		struct pkey *b = a + t.lo;
		if (t.n < 12) { /* insertion sort, from depth d */
			for (uint32_t i = 1; i < t.n; i++) {
				struct pkey x = b[i];
				uint32_t j = i;
				for (; j > 0 && path_less(&x, &b[j - 1], t.d); j--) b[j] = b[j - 1];
				b[j] = x;
			}
			continue;
		}
		uint32_t v = key_at(&b[t.n / 2], t.d);
		uint32_t lt = 0, i = 0, gt = t.n;
		while (i < gt) {
			uint32_t k = key_at(&b[i], t.d);
			struct pkey x = b[i];
			if (k < v) {
				b[i++] = b[lt];
				b[lt++] = x;
			} else if (k > v) {
				b[i] = b[--gt];
				b[gt] = x;
			} else {
				i++;
			}
		}
		if (lt > 1) *VEC_PUSH(st, nst, cap) = (struct task){ t.lo, lt, t.d };
		if (t.n - gt > 1) *VEC_PUSH(st, nst, cap) = (struct task){ t.lo + gt, t.n - gt, t.d };
		/* the paths that end here are one path (they are distinct) */
		if (v && gt - lt > 1) *VEC_PUSH(st, nst, cap) = (struct task){ t.lo + lt, gt - lt, t.d + 1 };
	}
	free(st);
}

static void layout(void)
{
	uint32_t n = paths.count;
	total = 0;
	for (uint32_t i = 0; i < n; i++) {
		total += val[wside][i];
		double d = val[1][i] - val[0][i];
		if (O.diff && fabs(d) > maxdelta) maxdelta = fabs(d);
	}
	flow_min = min_weight(total);
	frames = xmalloc(sizeof *frames);
	frames_cap = 1;
	frames[nframes++] = (struct frame){ UINT32_MAX, 0, 0, total, 0 }; /* the root */
	fold_names_rank(&names);
	struct pkey *ord = xmalloc((n ? n : 1) * sizeof *ord);
	for (uint32_t i = 0; i < n; i++) {
		ord[i].p = key_ids(i, &ord[i].n);
		ord[i].i = i;
	}
	sort_paths(ord, n);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t k = ord[i].i;
		flow(ord[i].p, ord[i].n, val[wside][k], val[1][k] - val[0][k]);
	}
	flow_close(0);
	free(ord);
}

/* ---- colours -------------------------------------------------------------
 * A deterministic function of the name: three numbers in [0, 1) from a hash
 * of its bytes (FNV-1a, then mixed), so that a function has one colour in
 * every graph. */

static void name_hash(sstr t, double v[3])
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < t.n; i++) h = (h ^ (uint8_t)t.p[i]) * 0x100000001b3ULL;
	for (int k = 0; k < 3; k++) {
		h ^= h >> 31;
		h *= 0xbf58476d1ce4e5b9ULL;
		h ^= h >> 29;
		v[k] = (double)(h >> 11) / 9007199254740992.0;
	}
}

static bool ends_with(sstr t, const char *s)
{
	size_t n = strlen(s);
	return t.n >= n && memcmp(t.p + t.n - n, s, n) == 0;
}

static bool has(sstr t, const char *s)
{
	size_t n = strlen(s);
	for (size_t i = 0; i + n <= t.n; i++)
		if (memcmp(t.p + i, s, n) == 0) return true;
	return false;
}

static void rgb_of(enum palette pal, double v1, double v2, double v3, int c[3])
{
	switch (pal) {
	case PAL_MEM: c[0] = 0; c[1] = 190 + (int)(50 * v2); c[2] = (int)(210 * v1); break;
	case PAL_IO: c[0] = c[1] = 80 + (int)(60 * v1); c[2] = 190 + (int)(55 * v2); break;
	case PAL_RED: c[0] = 200 + (int)(55 * v1); c[1] = c[2] = 50 + (int)(80 * v1); break;
	case PAL_GREEN: c[1] = 200 + (int)(55 * v1); c[0] = c[2] = 50 + (int)(60 * v1); break;
	case PAL_BLUE: c[2] = 205 + (int)(50 * v1); c[0] = c[1] = 80 + (int)(60 * v1); break;
	case PAL_YELLOW: c[0] = c[1] = 175 + (int)(55 * v1); c[2] = 50 + (int)(20 * v1); break;
	case PAL_PURPLE: c[0] = c[2] = 190 + (int)(65 * v1); c[1] = 80 + (int)(60 * v1); break;
	case PAL_AQUA: c[0] = 50 + (int)(60 * v1); c[1] = c[2] = 165 + (int)(55 * v1); break;
	case PAL_ORANGE: c[0] = 190 + (int)(65 * v1); c[1] = 90 + (int)(65 * v1); c[2] = 0; break;
	default: c[0] = 205 + (int)(50 * v3); c[1] = (int)(230 * v1); c[2] = (int)(55 * v2); break;
	}
}

/* A hue (0..360) at the given saturation and lightness, as rgb. */
static void hsl(double h, double s, double l, int c[3])
{
	double q = l < 0.5 ? l * (1 + s) : l + s - l * s, p = 2 * l - q;
	for (int k = 0; k < 3; k++) {
		double t = h / 360 + (1 - k) / 3.0;
		if (t < 0) t += 1;
		if (t > 1) t -= 1;
		double v = t < 1 / 6.0 ? p + (q - p) * 6 * t : t < 0.5 ? q
			 : t < 2 / 3.0 ? p + (q - p) * (2 / 3.0 - t) * 6 : p;
		c[k] = (int)(v * 255 + 0.5);
	}
}

static void frame_color(const struct frame *f, int c[3])
{
	if (f->name == UINT32_MAX) {
		/* the root: as flamegraph.pl colours "all" by its empty name */
		if (O.diff) { c[0] = c[1] = c[2] = 255; return; }
	}
	sstr t = f->name == UINT32_MAX ? (sstr){ "", 0 } : name_text(f->name);
	if (t.n == 2 && !memcmp(t.p, "--", 2)) { c[0] = c[1] = c[2] = 160; return; }
	if (t.n == 1 && t.p[0] == '-') { c[0] = c[1] = c[2] = 200; return; }
	if (O.diff) {
		double d = f->delta;
		c[0] = c[1] = c[2] = 255;
		if (d > 0) c[1] = c[2] = (int)(210 * (maxdelta - d) / maxdelta);
		else if (d < 0) c[0] = c[1] = (int)(210 * (maxdelta + d) / maxdelta);
		return;
	}
	double v[3];
	name_hash(t, v);
	enum palette pal = O.palette;
	switch (pal) {
	case PAL_JAVA:
		pal = ends_with(t, "_[j]") ? PAL_GREEN : ends_with(t, "_[i]") ? PAL_AQUA
		    : (has(t, "/") && (has(t, "java") || has(t, "org/") || has(t, "com/") ||
				       has(t, "jdk/") || has(t, "sun/"))) ? PAL_GREEN
		    : ends_with(t, "_[k]") ? PAL_ORANGE : has(t, "::") ? PAL_YELLOW : PAL_RED;
		break;
	case PAL_JS:
		pal = ends_with(t, "_[j]") ? (has(t, "/") || has(t, ".js:") ? PAL_GREEN : PAL_AQUA)
		    : has(t, "::") ? PAL_YELLOW : (has(t, "/") || has(t, ".js:")) ? PAL_GREEN
		    : has(t, ":") ? PAL_AQUA : (t.n == 1 && t.p[0] == ' ') ? PAL_GREEN
		    : has(t, "_[k]") ? PAL_ORANGE : PAL_RED;
		break;
	case PAL_PERL:
		pal = has(t, "::") ? PAL_YELLOW : (has(t, "Perl") || has(t, ".pl")) ? PAL_GREEN
		    : ends_with(t, "_[k]") ? PAL_ORANGE : PAL_RED;
		break;
	case PAL_KIND: {
		enum kind k = f->name == UINT32_MAX ? K_NONE : (enum kind)name_info(f->name)->kind;
		if (k == K_NONE) /* folded names: their marks */
			k = ends_with(t, "_[k]") ? K_KERNEL : ends_with(t, "_[j]") ? K_JIT
			  : ends_with(t, "_[i]") ? K_INLINED : K_NATIVE;
		pal = k == K_KERNEL ? PAL_ORANGE : k == K_JIT ? PAL_GREEN : k == K_INTERP ? PAL_AQUA
		    : k == K_INLINED ? PAL_PURPLE : PAL_YELLOW;
		break;
	}
	case PAL_DSO: {
		uint32_t d = f->name == UINT32_MAX ? UINT32_MAX : name_info(f->name)->dso;
		sstr dn = d != UINT32_MAX ? name_text(d) : (sstr){ "[unknown]", 9 };
		if (d == UINT32_MAX) { /* folded: DTrace's "module`function" */
			const char *q = memchr(t.p, '`', t.n);
			if (q) dn = (sstr){ t.p, (size_t)(q - t.p) };
		}
		double dv[3];
		name_hash(dn, dv);
		hsl(360 * dv[0], 0.55 + 0.3 * dv[1], 0.55 + 0.15 * v[0], c);
		return;
	}
	default: break;
	}
	rgb_of(pal, v[0], v[1], v[2], c);
}

/* ---- the SVG ------------------------------------------------------------ */

static output *out;

/* Text for XML: & < > " escaped; what XML 1.0 refuses (control bytes, U+FFFE,
 * U+FFFF, and bytes that are not UTF-8, surrogates among them) as U+FFFD.  At most max characters (0: all). */
static void put_text(sstr t)
{
	const uint8_t *p = (const uint8_t *)t.p, *end = p + t.n;
	while (p < end) {
		uint8_t c = *p;
		if (c < 0x80) {
			if (c == '&') out_puts(out, "&amp;");
			else if (c == '<') out_puts(out, "&lt;");
			else if (c == '>') out_puts(out, "&gt;");
			else if (c == '"') out_puts(out, "&quot;");
			else if (c < 0x20 || c == 0x7f) out_puts(out, "\xef\xbf\xbd");
			else out_putc(out, (char)c);
			p++;
			continue;
		}
		int n = utf8_seq(p, end);
		if (n == 3 && c == 0xef && p[1] == 0xbf && p[2] >= 0xbe) { /* U+FFFE, U+FFFF */
			out_puts(out, "\xef\xbf\xbd");
			p += 3;
		} else if (n > 0) {
			out_write(out, p, (size_t)n);
			p += n;
		} else {
			out_puts(out, "\xef\xbf\xbd");
			p += -n;
		}
	}
}

static void put_cstr(const char *s) { put_text(sstr_c(s)); }

/* The number of characters (UTF-8 sequences) in t, and the byte length of
 * its first k characters. */
static size_t utf8_chars(sstr t, size_t k, size_t *bytes)
{
	const uint8_t *p = (const uint8_t *)t.p, *end = p + t.n;
	size_t n = 0;
	while (p < end) {
		if (n == k && bytes) *bytes = (size_t)(p - (const uint8_t *)t.p);
		int l = *p < 0x80 ? 1 : utf8_seq(p, end);
		p += l > 0 ? l : -l;
		n++;
	}
	if (n <= k && bytes) *bytes = t.n;
	return n;
}

/* A name as shown: without a final _[k] _[j] _[i] _[w] mark (colours use
 * them), as flamegraph.pl shows it. */
static sstr shown(uint32_t name)
{
	if (name == UINT32_MAX) return (sstr){ "all", 3 };
	sstr t = name_text(name);
	if (t.n >= 4 && t.p[t.n - 4] == '_' && t.p[t.n - 3] == '[' && t.p[t.n - 1] == ']' &&
	    strchr("kjiw", t.p[t.n - 2]))
		t.n -= 4;
	return t;
}

/* Numbers as printf writes them, without printf (util.h: printf's exact
 * decimal expansion of a double took a third of the time of a large
 * graph). */
static void put_fixed(double v, int prec)
{
	char b[FMT_DBL_MAX];
	out_write(out, b, fmt_fixed(b, v, prec));
}

static void put_g(double v)
{
	char b[FMT_DBL_MAX];
	out_write(out, b, fmt_g(b, v));
}

/* 1234567 -> "1,234,567" (rounded to an integer, as flamegraph.pl), a
 * weight under 1 in fifteen significant digits ("0.0000015": speedscope's
 * and Firefox's milliseconds of 1e-6, which rounding made 0); o needs
 * 2 FMT_DBL_MAX bytes. */
static size_t fmt_count(char *o, double v)
{
	char b[FMT_DBL_MAX];
	if (fabs(v) < 1 && v != 0) {
		int dec = 14 - (int)floor(log10(fabs(v)));
		if (dec > 40) dec = 40;
		int n = snprintf(o, FMT_DBL_MAX, "%.*f", dec, v);
		while (n > 0 && o[n - 1] == '0') o[--n] = 0;
		if (n > 0 && o[n - 1] == '.') o[--n] = 0;
		return (size_t)n;
	}
	fmt_fixed(b, v, 0);
	size_t n = strlen(b), k = 0, s = b[0] == '-';
	for (size_t i = 0; i < n; i++) {
		o[k++] = b[i];
		size_t left = n - 1 - i;
		if (i >= s && left && left % 3 == 0) o[k++] = ',';
	}
	o[k] = 0;
	return k;
}

static void put_count(double v)
{
	char o[2 * FMT_DBL_MAX];
	out_write(out, o, fmt_count(o, v));
}

/* ---- the legend of a differential graph, the time axis of a flame chart */

/* "+1.5%" of part in whole */
static void put_pct(double part, double whole)
{
	if (whole > 0) out_printf(out, " (%s%.2f%%)", part > 0 ? "+" : "", 100 * part / whole);
}

static void put_legend(double W, double xpad, double fs, double y)
{
	double before = 0, after = 0;
	for (uint32_t i = 0; i < paths.count; i++) before += val[0][i], after += val[1][i];
	const char *cn = O.countname ? O.countname : countname_seen ? countname_seen : "samples";
	double sq = fs * 0.8, x = xpad;
	out_printf(out, "<g id=\"legend\"><rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" "
		   "fill=\"rgb(255,60,60)\"/>", x, y - sq, sq, sq);
	out_printf(out, "<text x=\"%g\" y=\"%g\">grew</text>", x + sq + 4, y);
	x += sq + 4 + 5 * fs * O.fontwidth;
	out_printf(out, "<rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" fill=\"rgb(60,60,255)\"/>",
		   x, y - sq, sq, sq);
	out_printf(out, "<text x=\"%g\" y=\"%g\">shrank (the deeper, the more; white: unchanged).  ", x + sq + 4, y);
	out_puts(out, O.negate ? "Widths: BEFORE (--negate), so that what disappeared shows."
			       : "Widths: AFTER (--negate draws BEFORE's, to show what disappeared).");
	out_puts(out, "</text></g>\n");
	out_printf(out, "<text id=\"totals\" x=\"%g\" y=\"%g\">before ", xpad, y + fs * 1.5);
	put_count(before * O.factor);
	out_puts(out, " ");
	put_cstr(cn);
	out_puts(out, ", after ");
	put_count(after * O.factor);
	out_puts(out, ", delta ");
	if (after > before) out_putc(out, '+');
	put_count((after - before) * O.factor);
	put_pct(after - before, before);
	out_puts(out, "</text>\n");
	(void)W;
}

/* A time in nanoseconds as people read it: "0", "750 us", "1.25 ms", "2 s" */
static void fmt_time(char *b, size_t n, double ns, double span)
{
	static const struct { double div; const char *u; } u[] = {
		{ 1, "ns" }, { 1e3, "us" }, { 1e6, "ms" }, { 1e9, "s" },
	};
	int k = span >= 1e9 ? 3 : span >= 1e6 ? 2 : span >= 1e3 ? 1 : 0;
	if (ns == 0) { snprintf(b, n, "0"); return; }
	snprintf(b, n, "%.4g %s", ns / u[k].div, u[k].u);
}

/* The axis under a flame chart: AXIS_TICKS + 1 ticks, each labelled with the
 * time of the sample there since the first one (samples with timestamps),
 * else the weight drawn before it. */
static void put_axis(double W, double xpad, double fs, double y)
{
	double per = (W - 2 * xpad) / AXIS_TICKS;
	bool times = axis.have_ts;
	double span = times ? (axis.ts[AXIS_TICKS] - axis.ts[0]) * axis.ns_per_unit : 0;
	const char *cn = O.countname ? O.countname : countname_seen ? countname_seen : "samples";
	out_printf(out, "<g class=\"axis\"><line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" "
		   "stroke=\"rgb(90,90,90)\"/>\n", xpad, y + 2, W - xpad, y + 2);
	for (int k = 0; k <= AXIS_TICKS; k++) {
		double x = xpad + k * per;
		char b[2 * FMT_DBL_MAX];
		if (times) fmt_time(b, sizeof b, (axis.ts[k] - axis.ts[0]) * axis.ns_per_unit, span);
		else if (fabs(total * O.factor) < 1) fmt_count(b, total * k / AXIS_TICKS * O.factor);
		else snprintf(b, sizeof b, "%.0f", total * k / AXIS_TICKS * O.factor);
		out_printf(out, "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"rgb(90,90,90)\"/>",
			   x, y + 2, x, y + 6);
		out_printf(out, "<text x=\"%g\" y=\"%g\" text-anchor=\"%s\">%s</text>\n", x, y + 6 + fs,
			   k == 0 ? "start" : k == AXIS_TICKS ? "end" : "middle", b);
	}
	out_printf(out, "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\">", W / 2, y + 6 + 2 * fs);
	if (times) out_puts(out, "time since the first sample");
	else {
		out_puts(out, "the samples in their order (");
		put_cstr(cn);
		out_puts(out, "; no timestamps)");
	}
	out_puts(out, "</text></g>\n");
}

static const char script[] =
#include "flamegraph-js.h"
;

static const char *factor_text; /* --factor as given */

/* No --colors: a V8 profile (chrome2spaa's: one script after another, all
 * JavaScript) a hue per script; frames of several kinds (kernel, native,
 * JIT, interpreted, inlined) their kinds; else flamegraph.pl's hot. */
static enum palette auto_palette(void)
{
	if (v8_seen) return PAL_DSO;
	unsigned k = kinds_seen & ~(1u << K_NONE);
	if (k & (k - 1)) return PAL_KIND; /* two kinds or more */
	return PAL_HOT;
}

static void write_svg(void)
{
	if (O.palette == PAL_AUTO) O.palette = auto_palette();
	/* the counts shown are 64-bit integers, as flamegraph.pl's */
	if (total * O.factor >= 9223372036854775808.0)
		usage_error("--factor: '%s' takes the total of %.0f beyond 2^63", factor_text, total);
	double W = O.width, fh = O.frameheight, fs = O.fontsize, xpad = 10;
	double legend_h = O.diff ? fs * 3.5 : 0, axis_h = O.flamechart ? fs * 2 + 8 : 0;
	double ypad1 = fs * 3, ypad2 = fs * 2 + 10 + axis_h, ypad3 = (O.subtitle ? fs * 2 : 0) + legend_h;
	double height = (depthmax + 1) * fh + ypad1 + ypad2 + ypad3;
	double per = total > 0 ? (W - 2 * xpad) / total : 0;
	sbuf tb = { 0 };
	if (O.callers || O.callees)
		sbuf_printf(&tb, "%s of %s", O.callers ? "Callers" : "Callees", O.callers ? O.callers : O.callees);
	const char *title = O.title ? O.title : tb.p ? tb.p
		: O.flamechart ? "Flame Chart" : O.inverted ? "Icicle Graph" : "Flame Graph";
	const char *countname = O.countname ? O.countname : countname_seen ? countname_seen : "samples";
	bool bluebg = O.palette == PAL_MEM || O.palette == PAL_IO;
	bool greybg = O.diff || (O.palette >= PAL_RED && O.palette <= PAL_ORANGE);

	out_printf(out, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		   "<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" "
		   "\"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n"
		   "<svg version=\"1.1\" width=\"%g\" height=\"%g\" viewBox=\"0 0 %g %g\" "
		   "xmlns=\"http://www.w3.org/2000/svg\">\n", W, height, W, height);
	out_puts(out, "<!-- spaa-flamegraph (spaa-tools " SPAA_VERSION ") -->\n");
	if (O.notes) {
		out_puts(out, "<desc id=\"notes\">");
		put_cstr(O.notes);
		out_puts(out, "</desc>\n");
	}
	out_printf(out, "<defs>\n<linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\">\n"
		   "<stop stop-color=\"%s\" offset=\"5%%\"/>\n<stop stop-color=\"%s\" offset=\"95%%\"/>\n"
		   "</linearGradient>\n</defs>\n",
		   greybg ? "#f8f8f8" : "#eeeeee", bluebg ? "#e0e0ff" : greybg ? "#e8e8e8" : "#eeeeb0");
	out_puts(out, "<style type=\"text/css\">\ntext { font-family:");
	put_cstr(O.fonttype);
	out_printf(out, "; font-size:%gpx; fill:rgb(0,0,0); }\n"
		   "#title { text-anchor:middle; font-size:%gpx; }\n"
		   "#subtitle { text-anchor:middle; fill:rgb(160,160,160); }\n"
		   "#search, #ignorecase, #unzoom { cursor:pointer; fill:rgb(0,0,190); text-decoration:underline; }\n"
		   "#search:hover, #ignorecase:hover, #unzoom:hover { fill:rgb(200,0,0); }\n"
		   "#search.show, #ignorecase.show { font-weight:bold; }\n"
		   "#legend, #totals, .axis { fill:rgb(60,60,60); }\n"
		   "#frames > g:hover { stroke:black; stroke-width:0.5; cursor:pointer; }\n"
		   ".hide { display:none; }\n.parent { opacity:0.5; }\n</style>\n", fs, fs + 5);
	/* the script's settings, then the script */
	out_printf(out, "<script type=\"text/ecmascript\"><![CDATA[\n"
		   "var fg_conf = { xpad: %g, width: %g, frameheight: %g, fontsize: %g, "
		   "fontwidth: %g, inverted: %s, searchcolor: \"rgb(230,0,230)\", nametype: ",
		   xpad, W, fh, fs, O.fontwidth, O.inverted ? "true" : "false");
	/* JavaScript strings: only the quote, the backslash and "]]>" matter
	 * here, and what XML 1.0 forbids (as in put_text: \ufffd) */
	const char *js_strs[2] = { O.nametype, countname };
	for (int k = 0; k < 2; k++) {
		if (k) out_puts(out, ", countname: ");
		out_putc(out, '"');
		const uint8_t *s = (const uint8_t *)js_strs[k], *end = s + strlen(js_strs[k]);
		while (s < end) {
			int n = *s < 0x80 ? 1 : utf8_seq(s, end);
			if (n == 1 && (*s == '"' || *s == '\\' || *s == '>' || *s < 0x20 || *s == 0x7f)) {
				out_printf(out, "\\u%04x", *s);
			} else if (n <= 0 || (n == 3 && s[0] == 0xef && s[1] == 0xbf && s[2] >= 0xbe)) {
				out_puts(out, "\\ufffd");
				n = n <= 0 ? -n : n;
			} else {
				out_write(out, s, (size_t)n);
			}
			s += n;
		}
		out_putc(out, '"');
	}
	out_puts(out, " };\n");
	out_write(out, script, sizeof script - 1);
	out_puts(out, "]]></script>\n");

	out_printf(out, "<rect x=\"0\" y=\"0\" width=\"%g\" height=\"%g\" fill=\"url(#background)\"/>\n",
		   W, height);
	out_printf(out, "<text id=\"title\" x=\"%d\" y=\"%g\">", (int)(W / 2), fs * 2);
	put_cstr(title);
	out_puts(out, "</text>\n");
	if (O.subtitle) {
		out_printf(out, "<text id=\"subtitle\" x=\"%d\" y=\"%g\">", (int)(W / 2), fs * 4);
		put_cstr(O.subtitle);
		out_puts(out, "</text>\n");
	}
	double bottom = height - (ypad2 - axis_h) / 2; /* the details line */
	out_printf(out, "<text id=\"details\" x=\"%g\" y=\"%g\"> </text>\n", xpad, bottom);
	out_printf(out, "<text id=\"unzoom\" class=\"hide\" x=\"%g\" y=\"%g\">Reset Zoom</text>\n",
		   xpad, fs * 2);
	out_printf(out, "<text id=\"search\" x=\"%g\" y=\"%g\">Search</text>\n", W - xpad - 175, fs * 2);
	out_printf(out, "<text id=\"ignorecase\" x=\"%g\" y=\"%g\">ignore case</text>\n", W - xpad - 75, fs * 2);
	if (O.diff) put_legend(W, xpad, fs, ypad1 + ypad3 - legend_h + fs);
	if (O.flamechart) put_axis(W, xpad, fs, height - ypad2); /* under the frames */
	out_printf(out, "<text id=\"matched\" x=\"%g\" y=\"%g\"> </text>\n", W - xpad - 100, bottom);

	out_puts(out, "<g id=\"frames\">\n");
	double cw = fs * O.fontwidth;
	for (uint32_t i = 0; i < nframes; i++) {
		const struct frame *f = &frames[i];
		double x1 = xpad + f->start * per, x2 = xpad + (f->start + f->width) * per;
		double y1, y2;
		if (!O.inverted) {
			y1 = height - ypad2 - (f->depth + 1) * fh + 1;
			y2 = height - ypad2 - f->depth * fh;
		} else {
			y1 = ypad1 + ypad3 + f->depth * fh;
			y2 = ypad1 + ypad3 + (f->depth + 1) * fh - 1;
		}
		sstr nm = shown(f->name);
		int c[3];
		frame_color(f, c);
		out_puts(out, "<g><title>");
		put_text(nm);
		out_puts(out, " (");
		put_count(f->width * O.factor);
		out_putc(out, ' ');
		put_cstr(countname);
		if (f->name == UINT32_MAX) { /* the root: "100%", as flamegraph.pl */
			out_puts(out, ", 100%");
		} else {
			out_puts(out, ", ");
			put_fixed(total > 0 ? 100 * f->width / total : 0.0, 2);
			out_putc(out, '%');
		}
		if (O.diff && f->name != UINT32_MAX) {
			double dp = total > 0 ? 100 * f->delta / total : 0;
			out_puts(out, dp > 0 ? "; +" : "; ");
			put_fixed(dp, 2);
			out_putc(out, '%');
		}
		out_putc(out, ')');
		/* a time or a size also as go tool pprof prints it, after the
		 * exact count ("(2,002,002 nanoseconds, 28.57%) 2ms") */
		if (have_count_units && count_units.dim != UNITS_COUNT && !O.countname) {
			units_scale sc = units_auto(&count_units, NULL, (long double)(f->width * O.factor));
			char hb[UNITS_BUF];
			size_t hn = units_fmt(hb, (long double)(f->width * O.factor), &sc);
			out_putc(out, ' ');
			out_write(out, hb, hn);
		}
		/* the rounded ends, as flamegraph.pl rounds them; the width is
		 * the difference of the two texts, "%.1f" of it a whole number
		 * of tenths */
		char a[FMT_DBL_MAX], b[FMT_DBL_MAX];
		fmt_fixed(a, x1, 1);
		fmt_fixed(b, x2, 1);
		out_puts(out, "</title><rect x=\"");
		out_puts(out, a);
		out_puts(out, "\" y=\"");
		put_g(y1);
		out_puts(out, "\" width=\"");
		put_fixed(strtod(b, NULL) - strtod(a, NULL), 1);
		out_puts(out, "\" height=\"");
		put_fixed(y2 - y1, 1);
		out_printf(out, "\" fill=\"rgb(%d,%d,%d)\" rx=\"2\" ry=\"2\"/>", c[0], c[1], c[2]);
		out_puts(out, "<text x=\"");
		put_fixed(x1 + 3, 2);
		out_puts(out, "\" y=\"");
		put_g(3 + (y1 + y2) / 2);
		out_puts(out, "\">");
		size_t chars = (size_t)((x2 - x1) / cw);
		if (chars >= 3) {
			size_t bytes = nm.n;
			size_t len = utf8_chars(nm, chars - 2, &bytes);
			if (len <= chars) {
				put_text(nm);
			} else {
				put_text((sstr){ nm.p, bytes });
				out_puts(out, "..");
			}
		}
		out_puts(out, "</text></g>\n");
	}
	out_puts(out, "</g>\n</svg>\n");
	sbuf_free(&tb);
}

/* ---- main ---------------------------------------------------------------- */

static double opt_positive(const char *opt, const char *text)
{
	double v = opt_double(opt, text);
	if (!(v > 0) || !isfinite(v)) usage_error("%s: '%s' is not a positive number", opt, text);
	return v;
}

/* Parses the options into O; returns the index of the first file. */
static int parse_options(int argc, char **argv)
{
	enum { OPT_INVERTED = FOLD_OPT_END, OPT_REVERSE, OPT_FLAMECHART, OPT_CALLERS, OPT_CALLEES,
	       OPT_DIFF, OPT_NEGATE, OPT_COLORS, OPT_TITLE, OPT_SUBTITLE, OPT_WIDTH, OPT_HEIGHT,
	       OPT_MINWIDTH, OPT_FONTSIZE, OPT_FONTTYPE, OPT_COUNTNAME, OPT_NAMETYPE, OPT_FACTOR,
	       OPT_NOTES, OPT_EVENT };
	static const struct option longopts[] = {
		{ "inverted", no_argument, 0, OPT_INVERTED },
		{ "reverse", no_argument, 0, OPT_REVERSE },
		{ "flamechart", no_argument, 0, OPT_FLAMECHART },
		{ "callers", required_argument, 0, OPT_CALLERS },
		{ "callees", required_argument, 0, OPT_CALLEES },
		{ "regex", no_argument, 0, 'E' },
		{ "ignore-case", no_argument, 0, 'i' },
		{ "diff", no_argument, 0, OPT_DIFF },
		{ "negate", no_argument, 0, OPT_NEGATE },
		{ "colors", required_argument, 0, OPT_COLORS },
		{ "title", required_argument, 0, OPT_TITLE },
		{ "subtitle", required_argument, 0, OPT_SUBTITLE },
		{ "width", required_argument, 0, OPT_WIDTH },
		{ "height", required_argument, 0, OPT_HEIGHT },
		{ "minwidth", required_argument, 0, OPT_MINWIDTH },
		{ "fontsize", required_argument, 0, OPT_FONTSIZE },
		{ "fonttype", required_argument, 0, OPT_FONTTYPE },
		{ "countname", required_argument, 0, OPT_COUNTNAME },
		{ "nametype", required_argument, 0, OPT_NAMETYPE },
		{ "factor", required_argument, 0, OPT_FACTOR },
		{ "notes", required_argument, 0, OPT_NOTES },
		{ "event", required_argument, 0, OPT_EVENT },
		{ "metric", required_argument, 0, 'm' },
		{ "jobs", required_argument, 0, 'j' },
		CLI_OUT_LONGOPTS,
		FOLD_LONGOPTS,
		FILTER_LONGOPTS,
		READERS_LONGOPTS,
		CLI_STD_LONGOPTS,
		{ 0, 0, 0, 0 }
	};
	O.fo.inline_mode = -1;
	int c;
	while ((c = getopt_long(argc, argv, "Eij:m:so:zhV", longopts, NULL)) != -1) {
		if (fold_opts_take(&O.fo, c, optarg) || filter_take(&ff, c, optarg)) continue;
		switch (c) {
		case OPT_INVERTED: O.inverted = true; break;
		case OPT_REVERSE: O.reverse = true; break;
		case OPT_FLAMECHART: O.flamechart = true; break;
		case OPT_CALLERS: O.callers = optarg; break;
		case OPT_CALLEES: O.callees = optarg; break;
		case 'E': O.regex = true; break;
		case 'i': O.icase = true; break;
		case OPT_DIFF: O.diff = true; break;
		case OPT_NEGATE: O.negate = true; break;
		case OPT_COLORS: {
			int k = 0;
			while (palettes[k] && strcmp(palettes[k], optarg)) k++;
			if (!palettes[k])
				usage_error("--colors: unknown palette '%s' (hot, mem, io, java, js, perl, red, "
					    "green, blue, aqua, yellow, purple, orange, kind or dso)", optarg);
			O.palette = (enum palette)k;
			break;
		}
		case OPT_TITLE: O.title = optarg; break;
		case OPT_SUBTITLE: O.subtitle = optarg; break;
		case OPT_WIDTH:
			O.width = opt_positive("--width", optarg);
			if (O.width <= 20 || O.width > 1e7) usage_error("--width: %s is out of range (21 to 10000000)", optarg);
			break;
		case OPT_HEIGHT: O.frameheight = opt_positive("--height", optarg); break;
		case OPT_MINWIDTH: {
			size_t n = strlen(optarg);
			O.minwidth_pct = n > 1 && optarg[n - 1] == '%';
			char *v = xmalloc(n + 1);
			memcpy(v, optarg, n + 1);
			if (O.minwidth_pct) v[n - 1] = 0;
			O.minwidth = opt_double("--minwidth", v);
			free(v);
			if (!(O.minwidth >= 0) || !isfinite(O.minwidth))
				usage_error("--minwidth: '%s' is not a number of pixels or a percentage", optarg);
			break;
		}
		case OPT_FONTSIZE: O.fontsize = opt_positive("--fontsize", optarg); break;
		case OPT_FONTTYPE: O.fonttype = optarg; break;
		case OPT_COUNTNAME: O.countname = optarg; break;
		case OPT_NAMETYPE: O.nametype = optarg; break;
		case OPT_FACTOR: O.factor = opt_positive("--factor", optarg), factor_text = optarg; break;
		case OPT_NOTES: O.notes = optarg; break;
		case OPT_EVENT: O.event = optarg; break;
		case 'm': O.metric = optarg; break;
		case 'j': O.jobs = opt_jobs("--jobs", optarg); readers_option("jobs", optarg); break;
		CLI_OUT_CASES(O.outpath, O.zstd);
		READERS_OPT_CASES;
		CLI_STD_CASES(help);
		}
	}
	int nfiles = argc - optind;
	if (!O.jobs) O.jobs = cli_jobs();
	if (O.event && O.fo.all_events) usage_error("--event and --all-events exclude each other");
	if (O.callers && O.callees) usage_error("--callers and --callees exclude each other");
	const char *focus = O.callers ? O.callers : O.callees;
	if ((O.regex || O.icase) && !focus) usage_error("-E and -i go with --callers or --callees");
	if (O.diff && nfiles != 2) usage_error("--diff takes two files, BEFORE and AFTER");
	if (O.flamechart && nfiles > 1) usage_error("--flamechart draws one file");
	if (O.flamechart && (O.diff || focus))
		usage_error("--flamechart draws one profile in time order: not with --diff, --callers or --callees");
	filter_compile(&ff, &O.fo);
	if (O.icase) O.regex = true;
	if (O.regex) {
		int rc = regcomp(&focus_re, focus, REG_EXTENDED | REG_NOSUB | (O.icase ? REG_ICASE : 0));
		if (rc != 0) {
			char msg[256];
			regerror(rc, &focus_re, msg, sizeof msg);
			usage_error("'%s': %s", focus, msg);
		}
	}
	cli_stdin_once(argv + optind, nfiles);
	return optind;
}

/* Reads every input: the distinct paths and their weights, or, for a flame
 * chart, its frames. */
static void read_inputs(char **files, int n)
{
	fold_names_init(&names);
	strmap_init(&seen_paths);
	strmap_init(&paths);
	if (O.flamechart) {
		/* a flame chart is drawn from the samples: a profile of another
		 * format is read with them (-s) */
		readers_option("samples", NULL);
		strmap_init(&chart_ids);
		strmap_init(&chart_paths);
		chart(n ? files[0] : "-");
	} else if (O.diff) {
		/* names are matched by their text over both files (one id space) */
		for (int i = 0; i < 2; i++) {
			read_input(files[i], i);
			if (folded_two > 0)
				die(EXIT_DATA, "%s: differential folded stacks already: draw it without --diff", files[i]);
		}
	} else {
		if (n == 0) read_input("-", 1);
		for (int i = 0; i < n; i++) read_input(files[i], 1);
		if (folded_two > 0) O.diff = true;
	}
	wside = O.diff && O.negate ? 0 : 1;
}

int main(int argc, char **argv)
{
	cli_init(argc, argv);
	readers_keep_folded();
	int first = parse_options(argc, argv);
	int nfiles = argc - first;
	/* a profile read in process: no content ids, and no threads unless
	 * the folded names show them (as spaa-fold); a flame chart's sample
	 * records keep both */
	if (!O.flamechart)
		builder_lean(BUILDER_NO_IDS | (O.fo.pid || O.fo.tid ? 0 : BUILDER_NO_THREADS) |
			     (O.fo.raw || O.fo.addrs ? 0 : BUILDER_NO_ADDRS));
	read_inputs(argv + first, nfiles);

	/* Lay out and draw. */
	if (O.flamechart) {
		/* the root first, as in a flame graph */
		total = flow_time;
		struct frame root = { UINT32_MAX, 0, 0, total, 0 };
		*VEC_PUSH(frames, nframes, frames_cap) = root;
		memmove(frames + 1, frames, (nframes - 1) * sizeof *frames);
		frames[0] = root;
	} else {
		layout();
	}
	if (!(total > 0)) {
		const char *what = nfiles == 0 ? "-" : nfiles == 1 ? argv[first] : "the inputs";
		const char *focus = O.callers ? O.callers : O.callees;
		if (focus) {
			sbuf hint = { 0 };
			if (!O.regex) hint_not_found(&hint, &names.names, focus, NULL, "-E");
			die(EXIT_DATA, "%s: no stack passes through %s%.*s", what, focus, (int)hint.n,
			    hint.p ? hint.p : "");
		}
		die(EXIT_DATA, "%s: nothing to draw: no stack has a weight above 0", what);
	}
	out = output_open(O.outpath, O.zstd);
	write_svg();
	output_close(out);

	if (O.regex) regfree(&focus_re);
	strmap_free(&seen_paths);
	strmap_free(&chart_ids);
	strmap_free(&chart_paths);
	free(seen_node);
	free(chart_path);
	free(open_name);
	free(open_start);
	free(frames);
	free(val[0]);
	free(val[1]);
	free(drawn);
	free(open_delta);
	strmap_free(&paths);
	free(info);
	free(parts);
	free(path);
	free(countname_seen);
	sbuf_free(&packed);
	fold_names_free(&names);
	filter_free(&ff);
	return EXIT_OK;
}
