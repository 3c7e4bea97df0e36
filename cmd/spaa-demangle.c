/* spaa-demangle - c++filt for profiles: the function names of a SPAA file's
 * frames demangled (C++, Rust, D through libiberty; Rust names perf printed
 * half-demangled and JVM class descriptors repaired: demangle.h), every
 * other member and record kept.
 *
 * A changed frame record gets the new "func" and keeps the old one in
 * "x_mangled".  In a content-addressed file a stack's id and x_path_id are
 * hashes of its frames' names (spaa(5)), so the stacks with a renamed frame
 * get new ones, and the samples, windows and related_stacks that name them
 * follow.  One pass reads the input: the header and the dictionaries before
 * the first stack are written at once; from the first stack on, records wait
 * in a spool (frames and the like already rewritten, stacks, samples and
 * windows as read) until every stack's new id is known, then the spool is
 * played back with the ids replaced. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
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

static const char help_text[] =
	"Usage: spaa-demangle [OPTION]... [FILE]\n"
	"Demangle the function names of a SPAA profile's frames: C++ (Itanium ABI),\n"
	"Rust (legacy and v0) and D names, as c++filt prints them; Rust names that\n"
	"perf printed half-demangled (\"_$LT$T$GT$::new::h0123456789abcdef\") and\n"
	"JVM class descriptors (\"Ljava/io/PrintStream;::print\") are repaired.\n"
	"With no FILE, or when FILE is -, read standard input (plain, gzip or zstd).\n"
	"\n"
	"      --no-params      leave out argument lists (\"foo::bar\", not\n"
	"                       \"foo::bar(int)\"), as flame graphs usually want\n"
	"      --no-hash        leave out Rust's \"::h<16 hex digits>\" hashes and v0\n"
	"                       crate disambiguators, as rustfilt does\n"
	"  -o, --output=FILE    write to FILE (atomically) instead of standard output;\n"
	"                       .zst and .gz compress\n"
	"  -z, --zstd           compress the output with zstd\n"
	"  -h, --help           show this help and exit\n"
	"  -V, --version        show the version and exit\n"
	"\n"
	"A renamed frame keeps its mangled name in \"x_mangled\"; stacks with a renamed\n"
	"frame get new content ids, and the samples and windows naming them follow.\n"
	"\n"
	"Exit status: 0 ok, 1 bad input or write error, 2 usage error.\n";

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
		{ "output", required_argument, 0, 'o' },
		{ "zstd", no_argument, 0, 'z' },
		CLI_STD_LONGOPTS,
		{ 0, 0, 0, 0 }
	};
	int c;
	while ((c = getopt_long(argc, argv, "o:zhV", longopts, NULL)) != -1) {
		switch (c) {
		case O_NO_PARAMS: dflags |= DEMANGLE_NO_PARAMS; break;
		case O_NO_HASH: dflags |= DEMANGLE_NO_HASH; break;
		case 'o': out_path = optarg; break;
		case 'z': zstd = true; break;
		CLI_STD_CASES(help_text);
		}
	}
	if (argc - optind > 1) usage_error("too many arguments (one FILE at most)");
	return optind < argc ? argv[optind] : "-";
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

/* Stacks by their input id: for those with a renamed frame (content ids),
 * the new id and path id. */
static strmap stacks;
static struct stk { uint64_t id, path; bool changed; } *stk;
static uint32_t stk_cap;
static strmap taken;           /* every output stack id */

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

/* ---- stacks: their new ids ---------------------------------------------------------- */

static spaa_stack st;

static bool any_renamed(const spaa_stack *s)
{
	for (uint32_t i = 0; i < s->nframes; i++)
		if (s->frames[i] < renamed_cap && renamed[s->frames[i]]) return true;
	return false;
}

/* A stack record (spooled as read): in a content-addressed file, when one of
 * its frames was renamed, its id and path id as spaa(5) computes them from
 * the new names; the output ids are settled once all stacks are known
 * (settle_ids()). */
static void take_stack(void)
{
	spool_rec('S', r->line, r->len);
	if (spaa_stack_parse(r, &st) < 0) return;
	bool added;
	uint32_t i = strmap_intern(&stacks, st.id.p, st.id.n, &added);
	if (!added) return; /* a duplicate id: spaa-validate says so */
	grow_array((void **)&stk, &stk_cap, i + 1, sizeof *stk);
	stk[i].changed = r->content_ids && any_renamed(&st);
	if (stk[i].changed) spaa_stack_ids(r, &st, &stk[i].id, &stk[i].path);
	else strmap_intern(&taken, st.id.p, st.id.n, NULL);
}

/* The new ids of the stacks with renamed frames, in input order.  Two
 * stacks that differ only in frames now named alike get the same content
 * id: the later one's id is hashed on with its old id until it is unique
 * (spaa-cat --merge sums such stacks into one). */
static void settle_ids(void)
{
	char buf[20];
	for (uint32_t i = 0; i < stacks.count; i++) {
		if (!stk[i].changed) continue;
		size_t n;
		const char *old = strmap_key(&stacks, i, &n);
		for (;;) {
			stackid_fmt(buf, stk[i].id);
			bool fresh;
			strmap_intern(&taken, buf, 18, &fresh);
			if (fresh) break;
			stk[i].id = fnv1a64(stk[i].id, old, n);
		}
	}
}

/* ---- playback: stack ids replaced --------------------------------------------------- */

static json_doc doc;

/* The new id of the stack whose id is node k of doc, if it has one. */
static const struct stk *new_of(uint32_t k)
{
	const json_node *x = &doc.nodes[k];
	sstr id;
	if (x->type == JSON_STRING) id = (sstr){ x->str, x->count };
	else if (json_is_num(&doc, k)) id = (sstr){ x->str, x->num_len };
	else return NULL;
	int64_t i = strmap_find(&stacks, id.p, id.n);
	return i >= 0 && stk[i].changed ? &stk[i] : NULL;
}

static void add_id(uint64_t h)
{
	char buf[20];
	stackid_fmt(buf, h);
	sbuf_addc(&rec, '"');
	sbuf_add(&rec, buf, 18);
	sbuf_addc(&rec, '"');
}

/* Node k (a stack id) with the new id when it has one. */
static void add_ref(uint32_t k)
{
	const struct stk *s = new_of(k);
	if (s) add_id(s->id);
	else jb_node(&rec, &doc, k);
}

/* Array node a of stack ids, or of objects with a "stack_id" (by_stack). */
static void add_refs(uint32_t a, bool objects)
{
	sbuf_addc(&rec, '[');
	for (uint32_t e = a + 1, i = 0; i < doc.nodes[a].count; i++, e = json_after(&doc, e)) {
		if (i) sbuf_addc(&rec, ',');
		if (!objects) {
			add_ref(e);
		} else if (doc.nodes[e].type != JSON_OBJECT) {
			jb_node(&rec, &doc, e);
		} else {
			sbuf_addc(&rec, '{');
			for (uint32_t k = e + 1, j = 0; j < doc.nodes[e].count; j++, k = json_after(&doc, k + 1)) {
				if (j) sbuf_addc(&rec, ',');
				jb_node(&rec, &doc, k);
				sbuf_addc(&rec, ':');
				if (json_is_str(&doc, k, "stack_id", 8)) add_ref(k + 1);
				else jb_node(&rec, &doc, k + 1);
			}
			sbuf_addc(&rec, '}');
		}
	}
	sbuf_addc(&rec, ']');
}

/* One spooled stack, sample or window record, its stack ids replaced. */
static void play(char tag, char *line, size_t len)
{
	if (json_parse(&doc, line, len) < 0 || doc.nodes[0].type != JSON_OBJECT) {
		out_write(o, line, len); /* reported by the reader already */
		out_putc(o, '\n');
		return;
	}
	const struct stk *self = NULL;
	if (tag == 'S') {
		uint32_t k = json_get(&doc, 0, "id");
		self = k ? new_of(k) : NULL;
	}
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
		else if (tag == 'S' && json_is_str(&doc, k, "related_stacks", 14) && doc.nodes[v].type == JSON_ARRAY)
			add_refs(v, false);
		else if (tag == 'P' && json_is_str(&doc, k, "stack_id", 8))
			add_ref(v);
		else if (tag == 'W' && json_is_str(&doc, k, "by_stack", 8) && doc.nodes[v].type == JSON_ARRAY)
			add_refs(v, true);
		else
			jb_node(&rec, &doc, v);
	}
	sbuf_addc(&rec, '}');
	out_write(o, rec.p, rec.n);
	out_putc(o, '\n');
}

static void play_spool(bool ids_changed)
{
	spool_rewind(sp);
	char *line;
	size_t len;
	while ((line = spool_line(sp, &len))) {
		if (line[0] == 'L' || !ids_changed) {
			out_write(o, line + 1, len - 1);
			out_putc(o, '\n');
		} else {
			play(line[0], line + 1, len - 1);
		}
	}
}

/* ---- main ------------------------------------------------------------------------------ */

int main(int argc, char **argv)
{
	cli_init(argc, argv);
	const char *path = parse_options(argc, argv);
	r = spaa_open(path);
	o = output_open(out_path, zstd);
	sp = spool_new();
	strmap_init(&stacks);
	strmap_init(&taken);
	json_doc_init(&doc);
	enum spaa_rtype t;
	while ((t = spaa_next(r)) != SPAA_EOF) {
		switch (t) {
		case SPAA_FRAME: take_frame(); break;
		case SPAA_STACK: spooling = true; take_stack(); break;
		case SPAA_SAMPLE: spooling = true; spool_rec('P', r->line, r->len); break;
		case SPAA_WINDOW: spooling = true; spool_rec('W', r->line, r->len); break;
		case SPAA_BAD: break; /* reported */
		default: emit(r->line, r->len); break;
		}
	}
	spaa_need_header(r);
	settle_ids();
	bool ids_changed = false;
	for (uint32_t i = 0; i < stacks.count && !ids_changed; i++) ids_changed = stk[i].changed;
	play_spool(ids_changed);
	output_close(o);
	spool_free(sp);
	spaa_stack_free(&st);
	json_doc_free(&doc);
	strmap_free(&stacks);
	strmap_free(&taken);
	free(stk);
	free(renamed);
	arena_free(&names);
	sbuf_free(&rec);
	sbuf_free(&name);
	spaa_close(r);
	return EXIT_OK;
}
