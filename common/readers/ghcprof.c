/* ghcprof2spaa - GHC's cost-centre profiles to SPAA: the .prof report of
 * "+RTS -p" (with ticks and bytes columns under -P) and the JSON profile of
 * "+RTS -pj", which is what speedscope reads.  The format is told by the
 * first byte: '{' is the JSON profile, anything else the text report.
 *
 * The story: options; the reader of the format fills a table of the nodes
 * of the cost-centre tree (each with its parent, its cost centre and its
 * own ticks, bytes and entries); then every node with weight becomes one
 * stack, its path up to MAIN, and the profile is written.  The tree is
 * what GHC aggregated already: memory grows with its nodes. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "readers.h"
#include "build.h"
#include "reader.h"
#include "cli.h"
#include "idmap.h"
#include "input.h"
#include "jscan.h"
#include "json.h"
#include "num.h"
#include "output.h"
#include "several.h"
#include "sniff.h"
#include "spaa.h"
#include "util.h"

static const char help_text[] =
	"Usage: ghcprof2spaa [OPTION]... [FILE]...\n"
	"Convert a GHC cost-centre profile to SPAA: the .prof report of +RTS -p (or\n"
	"-P, with ticks and bytes) or the JSON profile of +RTS -pj, recognised by\n"
	"content.  Each node of the cost-centre tree becomes one stack, its own\n"
	"costs its weights: ticks, alloc_bytes and entries (a report without -P:\n"
	"time_permille, alloc_permille and entries).  With no FILE, or when FILE\n"
	"is -, read standard input; gzip and zstd input is decompressed.\n"
	"\n"
	"      --max-depth=N    the deepest cost-centre stack (default 10000)\n"
	CLI_HELP_TAIL;

#define NONE UINT32_MAX

static const char *fname;
static uint32_t opt_max_depth = 10000;
static builder *B;

/* ---- the tree ------------------------------------------------------------------ */

enum { W_TICKS, W_BYTES, W_ENTRIES, NW };

typedef struct ccnode {
	uint32_t parent;  /* index, NONE for the root */
	uint32_t frame;   /* builder frame; NONE until known (JSON: by ccid) */
	int64_t ccid;     /* the cost centre's number */
	uint64_t w[NW];
} ccnode;

static ccnode *nodes;
static uint32_t n_nodes, nodes_cap;

/* What the header says, and what the report has. */
static struct {
	bool has_ticks, has_bytes;       /* -P, or the JSON profile */
	bool permille;                   /* a -p report: the percentages only */
	bool has_total_ticks, has_total_alloc, has_interval;
	uint64_t total_ticks, total_alloc, interval_us;
} H;

static uint32_t new_node(uint32_t parent, uint32_t line)
{
	if (n_nodes == UINT32_MAX - 1) die_at(fname, line, "too many cost-centre stacks");
	ccnode *x = VEC_PUSH(nodes, n_nodes, nodes_cap);
	memset(x, 0, sizeof *x);
	x->parent = parent;
	x->frame = NONE;
	return n_nodes - 1;
}

/* A cost centre as speedscope names it, "Module.label", the module its
 * dso, and its source span as srcline unless it is "<built-in>",
 * "<entire-module>", "<no location info>" and the like. */
static uint32_t cc_frame(sstr label, sstr module, sstr src)
{
	static sbuf name;
	name.n = 0;
	sbuf_add(&name, module.p, module.n);
	sbuf_addc(&name, '.');
	sbuf_add(&name, label.p, label.n);
	builder_frame f = {
		.func = { name.p, name.n },
		.dso = builder_dso(B, module.n ? module.p : "(unknown)", module.n ? module.n : 9, false),
		.kind = FK_USER,
		.func_resolved = true,
		.inline_depth = -1,
		.srcline = src.n && src.p[0] != '<' ? src : SSTR_NULL,
	};
	return builder_frame_add(B, &f);
}

static void add_w(uint64_t *w, uint64_t v, uint64_t line)
{
	if (ckd_add(w, *w, v)) die_at(fname, line, "a weight overflows 64 bits");
}

/* ---- the JSON profile (+RTS -pj) ---------------------------------------------------
 * {"program", "arguments", "rts_arguments", "total_ticks", "tick_interval",
 *  "total_alloc", "cost_centres":[{"id","label","module","src_loc",...}],
 *  "profile":{"id","entries","alloc","ticks","children":[...]}}, members in
 * any order: the tree names cost centres by id, resolved at the end. */

static idmap cc_ids; /* cost centre id -> builder frame */
static json_doc doc;
static sbuf command;

static sstr doc_str(uint32_t k)
{
	if (!k || doc.nodes[k].type != JSON_STRING) return SSTR_NULL;
	return (sstr){ doc.nodes[k].str, doc.nodes[k].count };
}

static void cost_centres(jscan *r)
{
	bool first = true;
	jscan_open(r, '[', "the cost_centres array");
	while (jscan_more(r, &first, ']')) {
		jscan_doc(r, &doc);
		if (doc.nodes[0].type != JSON_OBJECT) jscan_fail(r, "a cost centre that is not an object");
		int64_t id;
		uint32_t k = json_get(&doc, 0, "id");
		if (!k || !json_int64(&doc, k, &id)) jscan_fail(r, "a cost centre without an integer id");
		sstr label = doc_str(json_get(&doc, 0, "label")), module = doc_str(json_get(&doc, 0, "module"));
		if (!label.p || !module.p) jscan_fail(r, "cost centre %lld without a label and a module (strings)", (long long)id);
		uint32_t f = cc_frame(label, module, doc_str(json_get(&doc, 0, "src_loc")));
		bool added;
		idmap_put(&cc_ids, id, f, &added);
		if (!added) jscan_fail(r, "cost centre %lld defined twice", (long long)id);
	}
}

/* The tree, read with a stack of its open nodes, not by recursion, so that
 * --max-depth, not the C stack, bounds its depth. */
struct level { uint32_t me; bool first, in_children, cfirst, has_id; };
static struct level *lstack;
static uint32_t lstack_cap;

static void tree_open(jscan *r, uint32_t parent, uint32_t *n)
{
	if (*n >= opt_max_depth) jscan_fail(r, "the cost-centre tree is deeper than %u (--max-depth)", opt_max_depth);
	uint32_t me = new_node(parent, 0);
	jscan_open(r, '{', "a node of the profile tree (an object)");
	grow_array((void **)&lstack, &lstack_cap, *n + 1, sizeof *lstack);
	lstack[(*n)++] = (struct level){ .me = me, .first = true, .cfirst = true };
}

static uint64_t json_count(jscan *r, const char *what)
{
	int64_t v = jscan_int(r, what);
	if (v < 0) jscan_fail(r, "a negative %s", what);
	return (uint64_t)v;
}

static void profile_tree(jscan *r)
{
	if (n_nodes) jscan_fail(r, "a second profile tree");
	uint32_t n = 0;
	tree_open(r, NONE, &n);
	while (n) {
		struct level *l = &lstack[n - 1];
		uint32_t me = l->me;
		if (l->in_children) {
			if (jscan_more(r, &l->cfirst, ']')) tree_open(r, me, &n);
			else l->in_children = false;
			continue;
		}
		if (!jscan_more(r, &l->first, '}')) {
			if (!l->has_id) jscan_fail(r, "a node of the profile tree without an id");
			n--;
			continue;
		}
		sstr key = jscan_key(r);
		if (sstr_eqc(key, "id")) {
			nodes[me].ccid = jscan_int(r, "a cost centre id");
			l->has_id = true;
		} else if (sstr_eqc(key, "ticks")) {
			nodes[me].w[W_TICKS] = json_count(r, "ticks");
		} else if (sstr_eqc(key, "alloc")) {
			nodes[me].w[W_BYTES] = json_count(r, "alloc");
		} else if (sstr_eqc(key, "entries")) {
			nodes[me].w[W_ENTRIES] = json_count(r, "entries");
		} else if (sstr_eqc(key, "children")) {
			jscan_open(r, '[', "the children array");
			l->in_children = true;
		} else {
			jscan_skip(r);
		}
	}
}

/* "arguments" and "rts_arguments" (arrays of strings) into the command line */
static void arguments(jscan *r, bool rts)
{
	jscan_doc(r, &doc);
	if (doc.nodes[0].type != JSON_ARRAY) jscan_fail(r, "%s is not an array", rts ? "rts_arguments" : "arguments");
	if (rts && doc.nodes[0].count) sbuf_adds(&command, command.n ? " +RTS" : "+RTS");
	for (uint32_t k = json_first(&doc, 0), e = json_after(&doc, 0); k < e; k = json_after(&doc, k)) {
		sstr s = doc_str(k);
		if (!s.p) jscan_fail(r, "an argument that is not a string");
		if (command.n) sbuf_addc(&command, ' ');
		sbuf_add(&command, s.p, s.n);
	}
	if (rts && doc.nodes[0].count) sbuf_adds(&command, " -RTS");
}

static void read_json(input *in)
{
	jscan r;
	jscan_init(&r, in, fname);
	json_doc_init(&doc);
	jscan_start(&r);
	bool first = true, have_cc = false, have_tree = false;
	sstr prog = SSTR_NULL;
	char *program = NULL;
	jscan_open(&r, '{', "'{'");
	while (jscan_more(&r, &first, '}')) {
		sstr key = jscan_key(&r);
		if (sstr_eqc(key, "cost_centres")) {
			if (have_cc) jscan_fail(&r, "a second cost_centres array");
			cost_centres(&r);
			have_cc = true;
		} else if (sstr_eqc(key, "profile")) {
			profile_tree(&r);
			have_tree = true;
		} else if (sstr_eqc(key, "total_ticks")) {
			H.total_ticks = json_count(&r, "total_ticks");
			H.has_total_ticks = true;
		} else if (sstr_eqc(key, "total_alloc")) {
			H.total_alloc = json_count(&r, "total_alloc");
			H.has_total_alloc = true;
		} else if (sstr_eqc(key, "tick_interval")) {
			H.interval_us = json_count(&r, "tick_interval");
			H.has_interval = true;
		} else if (sstr_eqc(key, "program")) {
			prog = jscan_str(&r, "program");
			program = xmemdup(prog.p, prog.n);
		} else if (sstr_eqc(key, "arguments")) {
			arguments(&r, false);
		} else if (sstr_eqc(key, "rts_arguments")) {
			arguments(&r, true);
		} else {
			jscan_skip(&r);
		}
	}
	if (jscan_peek(&r) >= 0) jscan_fail(&r, "data after the JSON text");
	if (!have_tree) die_at(fname, 0, "not a GHC JSON profile: no profile tree (\"profile\")");
	if (!have_cc) die_at(fname, 0, "a profile tree without cost_centres");
	for (uint32_t i = 0; i < n_nodes; i++) {
		uint32_t f = idmap_get(&cc_ids, nodes[i].ccid);
		if (f == NONE) die_at(fname, 0, "the profile tree names cost centre %lld, which cost_centres does not define",
				      (long long)nodes[i].ccid);
		nodes[i].frame = f;
	}
	H.has_ticks = H.has_bytes = true;
	if (program) builder_source_str(B, "program", program, strlen(program));
	free(program);
	jscan_free(&r);
}

/* ---- the text report (+RTS -p, -P) ---------------------------------------------------
 * A header (the program's command line, "total time = ... (N ticks @ I us,
 * P processors)", "total alloc = N bytes"), a table of the costliest cost
 * centres, then the tree: a line of column names with "no." and "entries",
 * and a line per cost-centre stack, indented one space a level:
 *   COST-CENTRE MODULE [SRC] no. entries %time %alloc %time %alloc [ticks bytes]
 * SRC may hold blanks ("<no location info>"): the numbers are counted from
 * the right, the name and the module are the first two words. */

static bool words_has(const char *line, const char *w)
{
	size_t k = strlen(w);
	for (const char *p = line; (p = strstr(p, w)); p += k)
		if ((p == line || p[-1] == ' ' || p[-1] == '\t') && (p[k] == 0 || p[k] == ' ' || p[k] == '\t' || p[k] == '\r'))
			return true;
	return false;
}

/* A number with thousands separators ("1,921,672,664") at *p, *p moved past it. */
static bool grouped_u64(const char **p, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;
	bool any = false;
	for (; c_digit(*s) || (*s == ',' && any && c_digit(s[1])); s++) {
		if (*s == ',') continue;
		if (ckd_mul(&x, x, 10) || ckd_add(&x, x, (uint64_t)(*s - '0'))) return false;
		any = true;
	}
	*p = s;
	*v = x;
	return any;
}

static void header_line(const char *l, uint64_t line)
{
	const char *p;
	if ((p = strstr(l, "total time")) && (p = strchr(p, '('))) {
		p++;
		if (!grouped_u64(&p, &H.total_ticks) || strncmp(p, " ticks @ ", 9))
			die_at(fname, line, "a total time without \"(N ticks @ I us\"");
		p += 9;
		if (!grouped_u64(&p, &H.interval_us)) die_at(fname, line, "a total time without its tick interval");
		H.has_total_ticks = H.has_interval = true;
	} else if ((p = strstr(l, "total alloc")) && (p = strchr(p, '='))) {
		p++;
		while (*p == ' ') p++;
		if (!grouped_u64(&p, &H.total_alloc)) die_at(fname, line, "a total alloc that is not a number of bytes");
		H.has_total_alloc = true;
	}
}

/* The tree's columns: where each number is, counted from the right. */
static struct { int ncols, ticks, bytes; bool src; } C;

static void tree_header(const char *l, uint64_t line)
{
	C.src = words_has(l, "SRC");
	/* the columns after "entries": %time %alloc %time %alloc [ticks] [bytes] */
	const char *p = strstr(l, "entries") + 7;
	int n = 2, k = 0;
	C.ticks = C.bytes = -1;
	for (;;) {
		while (*p == ' ' || *p == '\t') p++;
		if (!*p || *p == '\r') break;
		const char *w = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\r') p++;
		if (p - w == 5 && !memcmp(w, "ticks", 5)) C.ticks = n + k;
		if (p - w == 5 && !memcmp(w, "bytes", 5)) C.bytes = n + k;
		k++;
	}
	C.ncols = n + k;
	/* a cost-centre line's numbers are read by these columns: the four
	 * percentages at least */
	if (k < 4)
		die_at(fname, line, "a cost-centre tree header with %d columns after \"entries\", not the four "
		       "%%time %%alloc %%time %%alloc (and ticks, bytes)", k);
	H.has_ticks = C.ticks >= 0;
	H.has_bytes = C.bytes >= 0;
	H.permille = !H.has_ticks;
}

/* "12.3" (a percentage, one decimal) as tenths */
static bool tenths(const char *w, size_t n, uint64_t *v)
{
	if (n < 3 || w[n - 2] != '.' || !c_digit(w[n - 1])) return false;
	uint64_t whole;
	if (!parse_u64(w, n - 2, &whole) || whole > 100) return false;
	*v = whole * 10 + (uint64_t)(w[n - 1] - '0');
	return true;
}

struct open { uint32_t indent, node; };
static struct open *ostack;
static uint32_t n_open, ostack_cap;

static void tree_line(char *l, size_t len, uint64_t line)
{
	enum { MAXW = 64 };
	const char *w[MAXW];
	size_t wn[MAXW];
	uint32_t nw = 0, indent = 0;
	while (indent < len && l[indent] == ' ') indent++;
	for (size_t i = indent; i < len;) {
		while (i < len && (l[i] == ' ' || l[i] == '\t' || l[i] == '\r')) i++;
		if (i >= len) break;
		size_t s = i;
		while (i < len && l[i] != ' ' && l[i] != '\t' && l[i] != '\r') i++;
		if (nw == MAXW) die_at(fname, line, "a cost-centre line of more than %d words", MAXW);
		w[nw] = l + s;
		wn[nw++] = i - s;
	}
	uint32_t need = (uint32_t)C.ncols + 2 + C.src;
	if (nw < need)
		die_at(fname, line, "a cost-centre line of %u words, not %u or more (cost centre, module,%s %d numbers): "
		       "a line cut short?", nw, need, C.src ? " source," : "", C.ncols);
	const char **nb = w + nw - C.ncols;
	size_t *numn = wn + nw - C.ncols;
	int64_t id;
	uint64_t entries, t = 0, b = 0;
	if (!parse_i64(nb[0], numn[0], &id)) die_at(fname, line, "a cost-centre number (no.) that is not an integer");
	if (!parse_u64(nb[1], numn[1], &entries)) die_at(fname, line, "entries that are not a count");
	if (C.ticks >= 0 && !parse_u64(nb[C.ticks], numn[C.ticks], &t)) die_at(fname, line, "ticks that are not a count");
	if (C.bytes >= 0 && !parse_u64(nb[C.bytes], numn[C.bytes], &b)) die_at(fname, line, "bytes that are not a count");
	uint64_t pct[4];
	for (int k = 0; k < 4; k++)
		if (!tenths(nb[2 + k], numn[2 + k], &pct[k]))
			die_at(fname, line, "a percentage (%%time, %%alloc) that is not a number from 0.0 to 100.0");
	if (H.permille) t = pct[0], b = pct[1];
	/* the words before the numbers: cost centre, module, source */
	sstr label = { w[0], wn[0] }, module = { w[1], wn[1] }, src = SSTR_NULL;
	if (C.src) {
		const char **last = nb - 1;
		src = (sstr){ w[2], (size_t)(last[0] + numn[-1] - w[2]) };
	} else if (nb - w > 2) {
		/* no source column: blanks in a cost centre's name */
		label.n = (size_t)(nb[-2] + numn[-2] - w[0]);
		module = (sstr){ nb[-1], numn[-1] };
	}
	while (n_open && ostack[n_open - 1].indent >= indent) n_open--;
	if (!n_open && n_nodes) die_at(fname, line, "a second root of the cost-centre tree (a line indented as MAIN's)");
	if (n_open >= opt_max_depth) die_at(fname, line, "the cost-centre tree is deeper than %u (--max-depth)", opt_max_depth);
	uint32_t me = new_node(n_open ? ostack[n_open - 1].node : NONE, (uint32_t)line);
	nodes[me].ccid = id;
	nodes[me].frame = cc_frame(label, module, src);
	nodes[me].w[W_TICKS] = t;
	nodes[me].w[W_BYTES] = b;
	nodes[me].w[W_ENTRIES] = entries;
	*VEC_PUSH(ostack, n_open, ostack_cap) = (struct open){ indent, me };
}

static void read_text(input *in)
{
	char *l;
	size_t len;
	bool in_tree = false, title = false, have_command = false, nl = true;
	for (;;) {
		uint64_t at = input_offset(in);
		if (!(l = input_line(in, &len))) break;
		/* GHC ends every line with a newline: a last line without one
		 * is a report cut short (its entries, which no total checks,
		 * perhaps cut too) */
		nl = input_offset(in) - at > len;
		uint64_t line = input_lineno(in);
		if (in_tree) {
			size_t i = 0;
			while (i < len && (l[i] == ' ' || l[i] == '\t' || l[i] == '\r')) i++;
			if (i < len) tree_line(l, len, line);
			continue;
		}
		if (words_has(l, "COST") && words_has(l, "no.") && strstr(l, "entries")) {
			tree_header(l, line);
			in_tree = true;
			continue;
		}
		if (strstr(l, "Profiling Report")) {
			title = true;
			continue;
		}
		const char *p = l;
		while (*p == ' ' || *p == '\t') p++;
		if (title && !have_command && *p && *p != '\r') {
			/* the line after the title: the command line */
			size_t n = strlen(p);
			while (n && (p[n - 1] == ' ' || p[n - 1] == '\r')) n--;
			builder_source_str(B, "command", p, n);
			have_command = true;
			continue;
		}
		header_line(l, line);
	}
	if (!nl) die_cut_line(fname, input_lineno(in));
	if (!in_tree)
		die_at(fname, 0, "not a GHC profile: no cost-centre tree (a line of column names with \"no.\" and \"entries\")");
	if (!n_nodes) die_no_stacks(fname, "a cost-centre tree without a line");
}

/* ---- stacks and output ----------------------------------------------------------- */

static uint32_t *path;
static uint32_t path_cap;

/* The costs added up must be the header's totals (GHC sums them so): a
 * report cut short at the end of a line says so only there. */
static void check_totals(void)
{
	uint64_t sum[NW] = { 0 };
	for (uint32_t i = 0; i < n_nodes; i++)
		for (int m = 0; m < NW; m++) add_w(&sum[m], nodes[i].w[m], 0);
	if (H.has_ticks && H.has_total_ticks && sum[W_TICKS] != H.total_ticks)
		die_at(fname, 0, "the cost centres' ticks add up to %llu, the header's total time is %llu ticks: a profile cut short?",
		       (unsigned long long)sum[W_TICKS], (unsigned long long)H.total_ticks);
	if (H.has_bytes && H.has_total_alloc && sum[W_BYTES] != H.total_alloc)
		die_at(fname, 0, "the cost centres' bytes add up to %llu, the header's total alloc is %llu: a profile cut short?",
		       (unsigned long long)sum[W_BYTES], (unsigned long long)H.total_alloc);
}

/* Two events, as speedscope makes two profiles: "time" (ticks, and the
 * entries) and "alloc" (the bytes); a node is a stack of each event it has
 * costs of. */
static void write_stacks(void)
{
	char extra[64];
	extra[0] = 0;
	if (H.has_interval) snprintf(extra, sizeof extra, "\"x_tick_interval_us\":%llu", (unsigned long long)H.interval_us);
	const char *tm = H.permille ? "time_permille" : "ticks", *am = H.permille ? "alloc_permille" : "alloc_bytes";
	uint32_t ev_time = builder_event(B, "time", "timer", "frequency", tm, extra[0] ? extra : NULL), ev_alloc = 0;
	uint32_t m_time = builder_metric(B, tm, H.permille ? "permille" : NULL);
	uint32_t m_entries = builder_metric(B, "entries", NULL), m_alloc = NONE;
	if (H.has_bytes || H.permille) {
		ev_alloc = builder_event(B, "alloc", "allocation", "event", am, NULL);
		m_alloc = builder_metric(B, am, H.permille ? "permille" : "bytes");
	}
	bool any = false;
	for (uint32_t i = 0; i < n_nodes; i++) {
		ccnode *x = &nodes[i];
		bool t = x->w[W_TICKS] || x->w[W_ENTRIES], a = m_alloc != NONE && x->w[W_BYTES];
		if (!t && !a) continue;
		uint32_t depth = 0;
		for (uint32_t k = i; k != NONE; k = nodes[k].parent) {
			grow_array((void **)&path, &path_cap, depth + 1, sizeof *path);
			path[depth++] = nodes[k].frame;
		}
		if (t) {
			builder_ctx c = { .event = ev_time };
			uint32_t mi[2] = { m_time, m_entries };
			num vals[2] = { num_u(x->w[W_TICKS]), num_u(x->w[W_ENTRIES]) };
			builder_stack(B, &c, path, depth, mi, vals, 2);
		}
		if (a) {
			builder_ctx c = { .event = ev_alloc };
			num v = num_u(x->w[W_BYTES]);
			builder_stack(B, &c, path, depth, &m_alloc, &v, 1);
		}
		any = true;
	}
	if (!any) die_no_stacks(fname, "a cost-centre tree without costs (no ticks, bytes or entries)");
}

/* its options, for getopt_long and the registry (readers/registry.h) */
const struct option ghcprof_longopts[] = {
	CLI_OUT_LONGOPTS,
	{ "max-depth", required_argument, 0, 'D' + 256 },
	CLI_STD_LONGOPTS,
	{ 0, 0, 0, 0 }
};
const char ghcprof_shortopts[] = "o:zhV";

/* the converter ghcprof2spaa: argv as it gets it (argv[0] its name); the
 * exit status (readers/readers.h) */
int ghcprof_read(int argc, char **argv)
{
	const char *outpath = NULL;
	bool zstd = false;
	int c;
	while ((c = getopt_long(argc, argv, ghcprof_shortopts, ghcprof_longopts, NULL)) != -1) {
		switch (c) {
		CLI_OUT_CASES(outpath, zstd);
		case 'D' + 256: opt_max_depth = (uint32_t)opt_range("--max-depth", optarg, 1, 1000000); break;
		CLI_STD_CASES(help_text);
		}
	}
	const char *file = optind < argc ? argv[optind] : "-";
	several_inputs(argv + optind, argc - optind, &file, &outpath, &zstd);
	input *in = input_open(file);
	sniff_refuse_other(in, "ghcprof2spaa", "a GHC profile");
	fname = input_name(in);
	B = builder_new();
	builder_source_tool(B, "ghc");
	const void *p;
	size_t n = input_peek(in, &p, 4096), i = 0;
	const char *s = p;
	if (n >= 3 && !memcmp(s, "\xEF\xBB\xBF", 3)) i = 3;
	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) i++;
	if (i == n) die_empty_input(fname);
	bool json = s[i] == '{';
	if (json) read_json(in);
	else read_text(in);
	builder_source_str(B, "format", json ? "json" : "prof", json ? 4 : 4);
	if (command.n) builder_source_str(B, "command", command.p, command.n);
	check_totals();
	write_stacks();
	reader_finish(B, outpath, zstd);
	input_close(in);
	return 0;
}
