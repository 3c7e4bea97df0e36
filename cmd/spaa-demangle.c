/* spaa-demangle - c++filt for profiles: the function names of a SPAA file's
 * frames demangled (C++, Rust, D through libiberty; Rust names perf printed
 * half-demangled and JVM class descriptors repaired: demangle.h), every
 * other member and record kept.  See spaa-demangle(1).
 *
 * Options: --no-params and --no-hash are demangle.h's flags; -o and -z go to
 * output.h.
 *
 * The loop, one pass over the input: the header and the dictionaries before
 * the first stack are written at once.  A frame record whose name changes
 * gets the new "func" and keeps the old one in "x_mangled" (take_frame); the
 * reader's dictionary takes the new name, so that stacks are hashed with it.
 * From the first stack on, records wait in a spool (spool.h): frames and the
 * like already rewritten, stacks, samples and windows as read.  In a
 * content-addressed file a stack's id and x_path_id are hashes of its
 * frames' names (spaa(5), stackid.h), so a stack with a renamed frame is
 * hashed again and joins the group of the stacks with its content
 * (take_stack): stacks renamed alike become one, their weights summed in
 * sum lists (wsum.h).
 *
 * The output: at the end each group's id is settled (settle_ids), then the
 * spool is played back (play): a group's first stack with its new id, path
 * id and summed weights, the others left out; the samples, windows and
 * related_stacks that name them follow, a window's by_stack entries of one
 * group summed into one entry.
 *
 * spaa-symbolize merges renamed stacks as well, but settles each stack's id
 * as it reads it and rewrites the frames of the stack records themselves
 * (one frame may become several); what the two share is in stackid.h and
 * wsum.h. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "readers/open.h"
#include "cli.h"
#include "demangle.h"
#include "json.h"
#include "jsonbuf.h"
#include "jsonw.h"
#include "output.h"
#include "spaa.h"
#include "spool.h"
#include "stackid.h"
#include "strmap.h"
#include "util.h"
#include "wsum.h"

static const char help_text[] =
	"Usage: spaa-demangle [OPTION]... [FILE]...\n"
	"Demangle the function names of a SPAA profile's frames: C++ (Itanium ABI),\n"
	"Rust (legacy and v0) and D names, as c++filt prints them; Rust names that\n"
	"perf printed half-demangled (\"_$LT$T$GT$::new::h0123456789abcdef\") and\n"
	"JVM class descriptors (\"Ljava/io/PrintStream;::print\") are repaired.\n"
	"With no FILE, or when FILE is -, read standard input (plain, gzip or zstd).\n"
	"\n"
	"A renamed frame keeps its mangled name in \"x_mangled\"; stacks with a renamed\n"
	"frame get new content ids, and the samples and windows naming them follow.\n"
	"\n"
	"      --no-params      leave out argument lists (\"foo::bar\", not\n"
	"                       \"foo::bar(int)\"), as flame graphs usually want\n"
	"      --no-hash        leave out Rust's \"::h<16 hex digits>\" hashes and v0\n"
	"                       crate disambiguators, as rustfilt does\n"
	READERS_HELP
	CLI_HELP_TAIL;

/* ---- options ------------------------------------------------------------------ */

static int dflags;             /* DEMANGLE_NO_PARAMS, DEMANGLE_NO_HASH */
static const char *out_path;
static bool zstd;

static const char *parse_options(int argc, char **argv)
{
	enum { O_NO_PARAMS = 256, O_NO_HASH };
	static const struct option longopts[] = {
		{ "no-params", no_argument, 0, O_NO_PARAMS },
		{ "no-hash", no_argument, 0, O_NO_HASH },
		CLI_OUT_LONGOPTS,
		READERS_LONGOPTS,
		CLI_STD_LONGOPTS,
		{ 0, 0, 0, 0 }
	};
	int c;
	while ((c = getopt_long(argc, argv, "so:zhV", longopts, NULL)) != -1) {
		switch (c) {
		case O_NO_PARAMS: dflags |= DEMANGLE_NO_PARAMS; break;
		case O_NO_HASH: dflags |= DEMANGLE_NO_HASH; break;
		CLI_OUT_CASES(out_path, zstd);
		READERS_OPT_CASES;
		CLI_STD_CASES(help_text);
		}
	}
	return readers_operands(argv + optind, argc - optind);
}

/* ---- state ----------------------------------------------------------------------- */

static spaa_reader *r;
static output *o;
static spool *sp;              /* records from the first stack on */
static bool spooling;
static sbuf rec;               /* a rewritten record */
static sbuf name;              /* a demangled name */
static arena names;            /* the new names of renamed frames */
static uint8_t *renamed;       /* per frame index: its name changed */
static uint32_t renamed_cap;

/* Stacks by their input id.  In a content-addressed file each stack
 * belongs to the group of the stacks with its content (its content id
 * computed from the new names, and the context members that id leaves out):
 * one stack unless renamed frames made two alike, which then become one. */
static strmap stacks;
#define NO_GROUP UINT32_MAX
static uint32_t *group_of;     /* per stack: its group, or NO_GROUP (kept as it is) */
static uint32_t group_cap;
static strmap gkeys;           /* content id + other context -> group */
static struct grp {
	uint64_t id, path;         /* content id (then the id written), path id */
	uint32_t leader;           /* the first stack: the one written */
	uint32_t count;            /* stacks in the group */
	uint32_t w, xw;            /* summed weights, exclusive weights (lists in W) */
	bool changed;              /* a frame of a member was renamed */
} *grp;
static uint32_t grp_cap;
static wsums W;                /* the groups' sums, a window's after them */
static strmap taken;           /* the stack ids of the output */
static bool rewrite;           /* some stack gets a new id */

/* The spool's records: a tag, then the record.  'L': written as it is;
 * 'S' stack, 'P' sample, 'W' window: their stack ids to replace. */
static void spool_rec(char tag, const char *p, size_t n)
{
	spool_putc(sp, tag);
	spool_write(sp, p, n);
	spool_putc(sp, '\n');
}

/* A finished record: to the output, or to the spool once stacks began. */
static void emit(const char *p, size_t n)
{
	if (spooling) {
		spool_rec('L', p, n);
	} else {
		out_write(o, p, n);
		out_putc(o, '\n');
	}
}

/* ---- frames -------------------------------------------------------------------------- */

/* A frame record: its name demangled in the reader's dictionary (so that
 * the stacks' ids are computed from it) and the record rewritten with it,
 * the old name kept in "x_mangled" (unless an earlier pass kept it). */
static void take_frame(void)
{
	uint32_t f = r->frame_ids.count - 1;
	spaa_frame *fr = &r->frames[f];
	name.n = 0;
	if (!fr->func_resolved || !demangle_name(fr->func, fr->func_n, dflags, &name) ||
	    (name.n == fr->func_n && memcmp(name.p, fr->func, name.n) == 0)) {
		emit(r->line, r->len);
		return;
	}
	if (f >= renamed_cap) {
		uint32_t old = renamed_cap;
		grow_array((void **)&renamed, &renamed_cap, f + 1, 1);
		memset(renamed + old, 0, renamed_cap - old);
	}
	renamed[f] = 1;

	const json_doc *d = &r->doc;
	bool kept = json_get(d, 0, "x_mangled") != 0;
	rec.n = 0;
	sbuf_addc(&rec, '{');
	for (uint32_t k = 1, i = 0; i < d->nodes[0].count; i++, k = json_after(d, k + 1)) {
		if (i) sbuf_addc(&rec, ',');
		jb_node(&rec, d, k);
		sbuf_addc(&rec, ':');
		if (json_is_str(d, k, "func", 4)) {
			jb_str(&rec, name.p, name.n);
			if (!kept) {
				sbuf_adds(&rec, ",\"x_mangled\":");
				jb_str(&rec, fr->func, fr->func_n);
			}
		} else {
			jb_node(&rec, d, k + 1);
		}
	}
	sbuf_addc(&rec, '}');
	emit(rec.p, rec.n);
	fr->func = arena_strdup(&names, name.p, name.n);
	fr->func_n = (uint32_t)name.n;
}

/* ---- stacks: their groups and new ids --------------------------------------------- */

static spaa_stack st;
static sbuf key;

static bool any_renamed(const spaa_stack *s)
{
	for (uint32_t i = 0; i < s->nframes; i++)
		if (s->frames[i] < renamed_cap && renamed[s->frames[i]]) return true;
	return false;
}

static void add_weights(uint32_t *head, const spaa_weight *w, uint32_t n, sstr id)
{
	uint32_t i;
	if (!wsums_add_weights(&W, head, w, n, &i))
		die_at(r->name, r->lineno, "stack %.*s: the sum of metric %.*s over the stacks "
		       "that are now alike overflows 64 bits", (int)id.n, id.p, (int)w[i].metric.n,
		       w[i].metric.p);
}

/* The context members the content id leaves out, compactly, after the id
 * in `key`. */
static void group_key(uint64_t id)
{
	const json_doc *d = &r->doc;
	key.n = 0;
	sbuf_add(&key, &id, sizeof id);
	uint32_t c = st.context;
	if (!c || d->nodes[c].type != JSON_OBJECT) return;
	for (uint32_t k = c + 1, i = 0; i < d->nodes[c].count; i++, k = json_after(d, k + 1)) {
		if (json_is_str(d, k, "event", 5) || json_is_str(d, k, "pid", 3) ||
		    json_is_str(d, k, "tid", 3) || json_is_str(d, k, "comm", 4))
			continue;
		jb_node(&key, d, k);
		sbuf_addc(&key, ':');
		jb_node(&key, d, k + 1);
		sbuf_addc(&key, ',');
	}
}

/* A stack record (spooled as read), in a content-addressed file: its group.
 * A stack none of whose frames was renamed is taken to have its content id
 * already (it is not hashed again: spaa(5) ids are what converters write);
 * one whose id is not of that form keeps it and stays out of the groups. */
static void take_stack(void)
{
	spool_rec('S', r->line, r->len);
	if (spaa_stack_parse(r, &st) < 0) return;
	bool added;
	uint32_t i = strmap_intern(&stacks, st.id.p, st.id.n, &added);
	if (!added) return; /* a duplicate id: spaa-validate says so */
	grow_array((void **)&group_of, &group_cap, i + 1, sizeof *group_of);
	group_of[i] = NO_GROUP;
	if (!r->content_ids) return;
	uint64_t id = 0, path = 0;
	bool changed = any_renamed(&st);
	if (changed) spaa_stack_ids(r, &st, &id, &path);
	else if (!stackid_parse(st.id.p, st.id.n, &id)) {
		/* not a content id of spaa(5): no stack can have its content */
		strmap_intern(&taken, st.id.p, st.id.n, NULL);
		return;
	}
	group_key(id);
	uint32_t g = strmap_intern(&gkeys, key.p, key.n, &added);
	if (added) {
		grow_array((void **)&grp, &grp_cap, g + 1, sizeof *grp);
		grp[g] = (struct grp){ .id = id, .path = path, .leader = i };
	} else if (!changed && !grp[g].changed && grp[g].count) {
		/* the same content twice in the input, no name changed: left alone */
		strmap_intern(&taken, st.id.p, st.id.n, NULL);
		return;
	}
	struct grp *x = &grp[g];
	x->count++;
	if (changed) {
		x->changed = true;
		x->path = path; /* the same path bytes as the other members' */
	}
	add_weights(&x->w, st.w, st.nw, st.id);
	if (st.has_excl) add_weights(&x->xw, st.xw, st.nxw, st.id);
	group_of[i] = g;
}

/* Samples and windows wait in the spool, checked as the reader checks them
 * (a bad one stops the command). */
static void take_sample(void)
{
	spaa_sample smp;
	spaa_sample_parse(r, &smp);
	spool_rec('P', r->line, r->len);
}

static void take_window(void)
{
	static spaa_weight *w;
	static uint32_t nw, wcap;
	spaa_window win;
	if (spaa_window_parse(r, &win) == 0 && win.by_stack) {
		const json_doc *d = &r->doc;
		for (uint32_t e = win.by_stack + 1, i = 0; i < d->nodes[win.by_stack].count; i++, e = json_after(d, e)) {
			sstr id;
			spaa_window_entry(r, e, &id, &w, &nw, &wcap);
		}
	}
	spool_rec('W', r->line, r->len);
}

/* The ids written: those of the groups with no renamed frame stay (they are
 * content ids already); a group with one gets its content id, hashed on
 * with its first stack's old id while another stack has it (the same
 * frames in another context). */
static void settle_ids(void)
{
	char buf[20];
	uint32_t ngroups = gkeys.count;
	for (uint32_t g = 0; g < ngroups; g++)
		if (!grp[g].changed) strmap_intern(&taken, buf, stackid_fmt(buf, grp[g].id), NULL);
	for (uint32_t g = 0; g < ngroups; g++) {
		if (!grp[g].changed) continue;
		rewrite = true;
		size_t n;
		const char *old = strmap_key(&stacks, grp[g].leader, &n);
		for (;;) {
			bool fresh;
			strmap_intern(&taken, buf, stackid_fmt(buf, grp[g].id), &fresh);
			if (fresh) break;
			grp[g].id = fnv1a64(grp[g].id, old, n);
		}
	}
}

/* ---- playback: stack ids replaced --------------------------------------------------- */

static json_doc doc;

/* The group of the stack whose id is node k of doc, when its id changes. */
static const struct grp *group_at(uint32_t k, uint32_t *stack)
{
	sstr id;
	if (!spaa_id_text(&doc, k, &id)) return NULL;
	int64_t i = strmap_find(&stacks, id.p, id.n);
	if (i < 0 || group_of[i] == NO_GROUP || !grp[group_of[i]].changed) return NULL;
	if (stack) *stack = (uint32_t)i;
	return &grp[group_of[i]];
}

static bool edited;            /* the record being played was changed */

static void add_id(uint64_t h)
{
	char buf[20];
	sbuf_addc(&rec, '"');
	sbuf_add(&rec, buf, stackid_fmt(buf, h));
	sbuf_addc(&rec, '"');
}

/* Node k (a stack id) with the new id when it has one. */
static void add_ref(uint32_t k)
{
	const struct grp *g = group_at(k, NULL);
	if (g) {
		add_id(g->id);
		edited = true;
	} else {
		jb_node(&rec, &doc, k);
	}
}

/* A weights array (node a, 0: none) with the group's sums: its elements
 * with their summed value, then the metrics only other stacks had. */
static void add_sums(uint32_t a, uint32_t head)
{
	static uint8_t *seen;
	static uint32_t seen_cap;
	char nb[32];
	bool first = true;
	grow_array((void **)&seen, &seen_cap, W.n + 1, 1);
	for (uint32_t x = head; x; x = wsums_at(&W, x)->next) seen[x - 1] = 0;
	sbuf_addc(&rec, '[');
	for (uint32_t e = a ? a + 1 : 0, i = 0; a && i < doc.nodes[a].count; i++, e = json_after(&doc, e)) {
		if (!first) sbuf_addc(&rec, ',');
		first = false;
		uint32_t mk = doc.nodes[e].type == JSON_OBJECT ? json_get(&doc, e, "metric") : 0;
		uint32_t x = mk && doc.nodes[mk].type == JSON_STRING
			? wsums_find(&W, head, doc.nodes[mk].str, doc.nodes[mk].count) : 0;
		if (!x || seen[x - 1]) {
			jb_node(&rec, &doc, e);
			continue;
		}
		seen[x - 1] = 1;
		sbuf_addc(&rec, '{');
		for (uint32_t k = e + 1, j = 0; j < doc.nodes[e].count; j++, k = json_after(&doc, k + 1)) {
			if (j) sbuf_addc(&rec, ',');
			jb_node(&rec, &doc, k);
			sbuf_addc(&rec, ':');
			if (json_is_str(&doc, k, "value", 5)) sbuf_add(&rec, nb, num_fmt(nb, wsums_at(&W, x)->v));
			else jb_node(&rec, &doc, k + 1);
		}
		sbuf_addc(&rec, '}');
	}
	for (uint32_t x = head; x; x = wsums_at(&W, x)->next) {
		if (seen[x - 1]) continue;
		if (!first) sbuf_addc(&rec, ',');
		first = false;
		wsums_json(&W, x, &rec);
	}
	sbuf_addc(&rec, ']');
}

/* The exclusive object (node v) of a merged stack: its weights summed. */
static void add_exclusive(uint32_t v, const struct grp *g)
{
	sbuf_addc(&rec, '{');
	for (uint32_t k = v + 1, j = 0; j < doc.nodes[v].count; j++, k = json_after(&doc, k + 1)) {
		if (j) sbuf_addc(&rec, ',');
		jb_node(&rec, &doc, k);
		sbuf_addc(&rec, ':');
		if (json_is_str(&doc, k, "weights", 7)) add_sums(k + 1, g->xw);
		else jb_node(&rec, &doc, k + 1);
	}
	sbuf_addc(&rec, '}');
}

/* Array node a of stack ids (related_stacks). */
static void add_refs(uint32_t a)
{
	sbuf_addc(&rec, '[');
	for (uint32_t e = a + 1, i = 0; i < doc.nodes[a].count; i++, e = json_after(&doc, e)) {
		if (i) sbuf_addc(&rec, ',');
		add_ref(e);
	}
	sbuf_addc(&rec, ']');
}

/* A window's by_stack (array node a): the stack ids replaced, and the
 * entries of stacks now summed into one summed into one entry. */
static void add_by_stack(uint32_t a)
{
	static uint32_t *first;        /* per group: its entry's index + 1 this window */
	static uint32_t first_cap, *sums, sums_cap, multi_cap;
	static uint8_t *multi;         /* per entry: others are summed into it */
	uint32_t n = doc.nodes[a].count, mark = W.n;
	grow_array((void **)&sums, &sums_cap, n + 1, sizeof *sums);
	grow_array((void **)&multi, &multi_cap, n + 1, 1);
	memset(multi, 0, n + 1);
	if (gkeys.count + 1 > first_cap) {
		uint32_t old = first_cap;
		grow_array((void **)&first, &first_cap, gkeys.count + 1, sizeof *first);
		memset(first + old, 0, (first_cap - old) * sizeof *first);
	}
	/* the entries per group, and their sums where a group has several */
	uint32_t e = a + 1;
	for (uint32_t i = 0; i < n; i++, e = json_after(&doc, e)) {
		sums[i] = 0;
		uint32_t k = doc.nodes[e].type == JSON_OBJECT ? json_get(&doc, e, "stack_id") : 0;
		const struct grp *g = k ? group_at(k, NULL) : NULL;
		if (!g) continue;
		uint32_t gi = (uint32_t)(g - grp);
		if (!first[gi]) first[gi] = i + 1;
		uint32_t f = first[gi] - 1;
		sstr bad;
		if (!wsums_add_json(&W, &sums[f], &doc, json_get(&doc, e, "weights"), &bad))
			die_at(r->name, r->lineno, "stack in a window: the sum of metric %.*s over the stacks "
			       "that are now alike overflows 64 bits", (int)bad.n, bad.p);
		if (f != i) {
			sums[i] = UINT32_MAX; /* summed into entry f */
			multi[f] = 1;
		}
	}
	sbuf_addc(&rec, '[');
	bool any = false;
	e = a + 1;
	for (uint32_t i = 0; i < n; i++, e = json_after(&doc, e)) {
		if (sums[i] == UINT32_MAX) {
			edited = true;
			continue;
		}
		if (any) sbuf_addc(&rec, ',');
		any = true;
		if (doc.nodes[e].type != JSON_OBJECT) {
			jb_node(&rec, &doc, e);
			continue;
		}
		sbuf_addc(&rec, '{');
		for (uint32_t k = e + 1, j = 0; j < doc.nodes[e].count; j++, k = json_after(&doc, k + 1)) {
			if (j) sbuf_addc(&rec, ',');
			jb_node(&rec, &doc, k);
			sbuf_addc(&rec, ':');
			if (json_is_str(&doc, k, "stack_id", 8)) add_ref(k + 1);
			else if (json_is_str(&doc, k, "weights", 7) && multi[i]) add_sums(k + 1, sums[i]);
			else jb_node(&rec, &doc, k + 1);
		}
		sbuf_addc(&rec, '}');
	}
	sbuf_addc(&rec, ']');
	/* forget this window's groups and sums */
	e = a + 1;
	for (uint32_t i = 0; i < n; i++, e = json_after(&doc, e)) {
		uint32_t k = doc.nodes[e].type == JSON_OBJECT ? json_get(&doc, e, "stack_id") : 0;
		const struct grp *g = k ? group_at(k, NULL) : NULL;
		if (g) first[g - grp] = 0;
	}
	W.n = mark;
}

/* One spooled stack, sample or window record, its stack ids replaced; the
 * stacks merged into an earlier one left out, that one with the sums. */
static void play(char tag, char *line, size_t len)
{
	if (json_parse(&doc, line, len) < 0 || doc.nodes[0].type != JSON_OBJECT) {
		out_write(o, line, len); /* reported by the reader already */
		out_putc(o, '\n');
		return;
	}
	const struct grp *self = NULL;
	if (tag == 'S') {
		uint32_t k = json_get(&doc, 0, "id"), i = 0;
		self = k ? group_at(k, &i) : NULL;
		if (self && self->leader != i) return; /* summed into its leader */
	}
	bool merged = self && self->count > 1;
	edited = self != NULL;
	rec.n = 0;
	sbuf_addc(&rec, '{');
	for (uint32_t k = 1, i = 0; i < doc.nodes[0].count; i++, k = json_after(&doc, k + 1)) {
		uint32_t v = k + 1;
		if (i) sbuf_addc(&rec, ',');
		jb_node(&rec, &doc, k);
		sbuf_addc(&rec, ':');
		if (self && json_is_str(&doc, k, "id", 2))
			add_id(self->id);
		else if (self && json_is_str(&doc, k, "x_path_id", 9))
			add_id(self->path);
		else if (merged && json_is_str(&doc, k, "weights", 7))
			add_sums(v, self->w);
		else if (merged && json_is_str(&doc, k, "exclusive", 9) && doc.nodes[v].type == JSON_OBJECT)
			add_exclusive(v, self);
		else if (tag == 'S' && json_is_str(&doc, k, "related_stacks", 14) && doc.nodes[v].type == JSON_ARRAY)
			add_refs(v);
		else if (tag == 'P' && json_is_str(&doc, k, "stack_id", 8))
			add_ref(v);
		else if (tag == 'W' && json_is_str(&doc, k, "by_stack", 8) && doc.nodes[v].type == JSON_ARRAY)
			add_by_stack(v);
		else
			jb_node(&rec, &doc, v);
	}
	sbuf_addc(&rec, '}');
	if (edited) out_write(o, rec.p, rec.n);
	else out_write(o, line, len);
	out_putc(o, '\n');
}

static void play_spool(void)
{
	spool_rewind(sp);
	char *line;
	size_t len;
	while ((line = spool_line(sp, &len))) {
		if (line[0] == 'L' || !rewrite) {
			out_write(o, line + 1, len - 1);
			out_putc(o, '\n');
		} else {
			play(line[0], line + 1, len - 1);
		}
	}
}

/* ---- main ------------------------------------------------------------------------------ */

/* On an exit through die(): the temporary file closed (the reader too, for
 * the fuzz target, which runs main again in the same process). */
static void cleanup(void)
{
	spool_free(sp);
	sp = NULL;
	spaa_close(r);
	r = NULL;
}

int main(int argc, char **argv)
{
	cli_init(argc, argv);
	const char *path = parse_options(argc, argv);
	r = spaa_open_any(path);
	o = output_open(out_path, zstd);
	sp = spool_new();
	cli_atexit(cleanup);
	strmap_init(&stacks);
	strmap_init(&taken);
	strmap_init(&gkeys);
	wsums_init(&W);
	json_doc_init(&doc);
	enum spaa_rtype t;
	while ((t = spaa_next(r)) != SPAA_EOF) {
		switch (t) {
		case SPAA_FRAME: take_frame(); break;
		case SPAA_STACK: spooling = true; take_stack(); break;
		case SPAA_SAMPLE: spooling = true; take_sample(); break;
		case SPAA_WINDOW: spooling = true; take_window(); break;
		case SPAA_BAD: break; /* reported */
		default: emit(r->line, r->len); break;
		}
	}
	spaa_need_header(r);
	settle_ids();
	play_spool();
	output_close(o);
	spool_free(sp);
	sp = NULL;
	spaa_stack_free(&st);
	json_doc_free(&doc);
	strmap_free(&stacks);
	strmap_free(&taken);
	strmap_free(&gkeys);
	wsums_free(&W);
	free(group_of);
	free(grp);
	sbuf_free(&key);
	free(renamed);
	arena_free(&names);
	sbuf_free(&rec);
	sbuf_free(&name);
	spaa_close(r);
	r = NULL;
	return EXIT_OK;
}
