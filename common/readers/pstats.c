/* pstats2spaa - Python cProfile statistics (what `python -m cProfile -o
 * FILE` and pstats.Stats.dump_stats write: a marshal'd dictionary) to SPAA.
 *
 * The story: the file is read whole and its marshal data decoded (the
 * format of Python 3's marshal module, versions 2 to 4: references,
 * short and interned strings, binary floats); the dictionary maps each
 * function (file, line, name) to (primitive calls, calls, tottime,
 * cumtime, callers), callers mapping each calling function to the same
 * four figures for that edge.  cProfile keeps no stacks, only those
 * edges: the stacks are rebuilt from them top down, from the functions
 * nobody calls, each function's time on a path being its cumtime's share
 * that flows in along that path (the edge's cumtime over the caller's),
 * a call back into a function already on the path left out (its time is
 * in its outer call's).  Each function's tottime and call count are then
 * shared out over its paths in proportion, exactly (largest remainders),
 * so that its self time over all stacks is its tottime to the
 * nanosecond, and the total of a function that does not recurse is its
 * cumtime. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "build.h"
#include "reader.h"
#include "cli.h"
#include "input.h"
#include "num.h"
#include "several.h"
#include "sniff.h"
#include "spaa.h"
#include "strmap.h"
#include "util.h"
#include "readers.h"

static const char help[] =
"Usage: pstats2spaa [OPTION]... [FILE]...\n"
"Convert Python cProfile statistics (python -m cProfile -o FILE, or\n"
"pstats.Stats.dump_stats) to a SPAA 1.0 profile; several FILEs are converted\n"
"one by one and merged as spaa-cat --merge merges them.  With no FILE, or\n"
"when FILE is -, read standard input (zstd and gzip allowed).\n"
"\n"
"One event \"cprofile\" with the metrics wall_ns (cProfile's timer, in\n"
"nanoseconds) and calls.  cProfile keeps the callers of each function, not\n"
"stacks: the stacks are rebuilt from the callers (a function reached from\n"
"several callers has its time shared by the edges' times; see\n"
"pstats2spaa(1)), so that each function's self time is pstats' tottime and\n"
"the total of one that does not recurse its cumtime.  Frames are named as\n"
"pstats prints them: file:line(function), {built-in method ...}.\n"
"\n"
"      --max-depth=N    the deepest stack rebuilt (default 256): deeper\n"
"                       calls stay in the stack's last function\n"
"      --max-stacks=N   the most stacks rebuilt (default 1000000)\n"
CLI_HELP_TAIL;

/* ---- marshal ------------------------------------------------------------- */

enum vtype { V_NONE, V_BOOL, V_INT, V_FLOAT, V_STR, V_TUPLE, V_DICT, V_OTHER };

typedef struct value {
	enum vtype t;
	int64_t i;
	double d;
	const char *s;           /* V_STR: its bytes (not NUL-terminated) */
	uint32_t n;              /* V_STR: length; V_TUPLE: items; V_DICT: pairs */
	struct value **items;    /* V_TUPLE: n; V_DICT: 2n (key, value) */
} value;

static struct {
	const char *fname;
	const unsigned char *p, *end, *start;
	arena mem;
	value **refs;
	uint32_t nrefs, refcap;
	unsigned depth;
} M;

static value none_value = { V_NONE, 0, 0, NULL, 0, NULL };

noreturn static void bad(const char *what)
{
	die_at(M.fname, 0, "byte %llu: %s (not cProfile statistics, or damaged)",
	       (unsigned long long)(M.p - M.start), what);
}

static const unsigned char *take(size_t n)
{
	if ((size_t)(M.end - M.p) < n) {
		M.p = M.end;
		bad("the data ends in the middle of a value: the file is cut short");
	}
	const unsigned char *q = M.p;
	M.p += n;
	return q;
}

static uint32_t u32(void)
{
	const unsigned char *q = take(4);
	return (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24;
}

static value *new_value(enum vtype t)
{
	value *v = arena_alloc(&M.mem, sizeof *v);
	memset(v, 0, sizeof *v);
	v->t = t;
	return v;
}

static value *read_value(void);

/* n items (a tuple's, or 2n of a dictionary's) */
static value **read_items(uint32_t n)
{
	if (n > (size_t)(M.end - M.p)) bad("a container longer than the rest of the data: the file is cut short");
	value **it = arena_alloc(&M.mem, (size_t)(n ? n : 1) * sizeof *it);
	for (uint32_t k = 0; k < n; k++) it[k] = read_value();
	return it;
}

static value *read_value(void)
{
	if (++M.depth > 64) bad("values nested more than 64 deep");
	unsigned code = *take(1);
	bool ref = code & 0x80;
	code &= 0x7f;
	uint32_t slot = 0;
	if (ref) {
		/* the value is numbered now (a container before its items) */
		slot = M.nrefs;
		*VEC_PUSH(M.refs, M.nrefs, M.refcap) = &none_value;
	}
	value *v;
	switch (code) {
	case 'N': v = &none_value; break;
	case 'T': case 'F':
		v = new_value(V_BOOL);
		v->i = code == 'T';
		break;
	case 'i':
		v = new_value(V_INT);
		v->i = (int32_t)u32();
		break;
	case 'l': {
		/* digits of 15 bits, least significant first; the count's sign
		 * is the number's */
		int32_t nd = (int32_t)u32();
		uint32_t n = nd < 0 ? (uint32_t)-(int64_t)nd : (uint32_t)nd;
		if (n > 5) bad("an integer beyond 64 bits");
		uint64_t x = 0;
		for (uint32_t k = 0; k < n; k++) {
			const unsigned char *q = take(2);
			uint64_t dgt = (uint64_t)(q[0] | q[1] << 8);
			if (dgt > 0x7fff) bad("an integer digit out of range");
			if (k == 4 && dgt > 0xf) bad("an integer beyond 64 bits");
			x |= dgt << (15 * k);
		}
		if (x > INT64_MAX) bad("an integer beyond 64 bits");
		v = new_value(V_INT);
		v->i = nd < 0 ? -(int64_t)x : (int64_t)x;
		break;
	}
	case 'g': {
		const unsigned char *q = take(8);
		uint64_t bits = 0;
		for (int k = 7; k >= 0; k--) bits = bits << 8 | q[k];
		v = new_value(V_FLOAT);
		memcpy(&v->d, &bits, sizeof v->d);
		break;
	}
	case 'f': {
		/* a float as text, its length in one byte */
		unsigned n = *take(1);
		const unsigned char *q = take(n);
		char buf[256];
		memcpy(buf, q, n);
		buf[n] = 0;
		char *e;
		v = new_value(V_FLOAT);
		v->d = strtod(buf, &e);
		if (e == buf || *e) bad("a float that is not a number");
		break;
	}
	case 's': case 't': case 'u': case 'a': case 'A': {
		uint32_t n = u32();
		v = new_value(V_STR);
		v->s = (const char *)take(n);
		v->n = n;
		break;
	}
	case 'z': case 'Z': {
		unsigned n = *take(1);
		v = new_value(V_STR);
		v->s = (const char *)take(n);
		v->n = n;
		break;
	}
	case ')': case '(': case '[': {
		uint32_t n = code == ')' ? *take(1) : u32();
		v = new_value(V_TUPLE);
		if (ref) M.refs[slot] = v;
		v->n = n;
		v->items = read_items(n);
		break;
	}
	case '{': {
		v = new_value(V_DICT);
		if (ref) M.refs[slot] = v;
		value **it = NULL;
		uint32_t n = 0, cap = 0;
		for (;;) {
			if (M.p < M.end && *M.p == '0') {
				M.p++;
				break;
			}
			value *k = read_value();
			value *x = read_value();
			*VEC_PUSH(it, n, cap) = k;
			*VEC_PUSH(it, n, cap) = x;
		}
		v->n = n / 2;
		v->items = arena_alloc(&M.mem, (size_t)(n ? n : 1) * sizeof *v->items);
		if (n) memcpy(v->items, it, n * sizeof *it);
		free(it);
		break;
	}
	case 'r': {
		uint32_t k = u32();
		if (k >= M.nrefs || M.refs[k] == &none_value) bad("a reference to no value read before");
		v = M.refs[k];
		break;
	}
	default: {
		char what[64];
		snprintf(what, sizeof what, "a value of marshal type 0x%02x, which cProfile does not write", code);
		bad(what);
	}
	}
	if (ref) M.refs[slot] = v;
	M.depth--;
	return v;
}

/* ---- the statistics -------------------------------------------------------- */

/* One function: its figures, and its callers as edges. */
struct fn {
	uint32_t frame;           /* builder frame */
	double tt, ct;            /* seconds */
	int64_t cc, nc;
	uint32_t callers, ncallers; /* into S.edges */
	uint32_t callees, ncallees; /* into S.out (edge indices) */
	/* the shares of its paths (into S.shares), their sums */
	double tsum, csum;
};

struct edge {
	uint32_t from, to;        /* caller, callee */
	int64_t nc;
	double ct;
};

/* A node of the tree of paths: its parent node, its function. */
struct node { uint32_t parent, fn; double tshare, cshare; int64_t wall, calls; };

static struct {
	bool samples;
	builder *b;
	uint32_t dso_py, dso_builtin;
	strmap keys;              /* "file\0line\0name" -> function index */
	struct fn *fn;
	uint32_t nfn, fncap;
	struct edge *edges;
	uint32_t nedges, edgecap;
	uint32_t *out;            /* edges by caller */
	struct node *nodes;
	uint32_t nnodes, nodecap;
	uint32_t *onpath;         /* per function: on the path being walked */
	uint8_t *reached;         /* per function: on a path */
	int64_t max_depth, max_stacks;
	bool cut_depth, cut_stacks;
} S = { .max_depth = 256, .max_stacks = 1000000 };

/* A time in seconds: at most a billion (31 years: its nanoseconds fit
 * 64 bits with room for sums). */
static double num_of(const value *v, const char *what)
{
	double d = v->t == V_INT ? (double)v->i : v->t == V_FLOAT ? v->d : -1;
	if (!isfinite(d) || d < 0 || d > 1e9)
		die_at(M.fname, 0, "%s is not a number of seconds from 0 to 1e9", what);
	return d;
}

/* A call count: a whole number from 0 to 2^62. */
static int64_t count_of(const value *v, const char *what)
{
	if (v->t != V_INT || v->i < 0 || v->i > (INT64_C(1) << 62))
		die_at(M.fname, 0, "%s is not a whole number of calls from 0 to 2^62", what);
	return v->i;
}

/* The function of key k ((file, line, name)), made on first sight. */
static uint32_t function(const value *k)
{
	if (k->t != V_TUPLE || k->n != 3 || k->items[0]->t != V_STR || k->items[1]->t != V_INT ||
	    k->items[2]->t != V_STR)
		die_at(M.fname, 0, "a function key is not (file, line, name)");
	const value *file = k->items[0], *name = k->items[2];
	int64_t line = k->items[1]->i;
	sbuf key = { 0 };
	sbuf_add(&key, file->s, file->n);
	sbuf_addc(&key, 0);
	sbuf_add(&key, &line, sizeof line);
	sbuf_add(&key, name->s, name->n);
	bool added;
	uint32_t i = strmap_intern(&S.keys, key.p, key.n, &added);
	sbuf_free(&key);
	if (!added) return i;
	struct fn *f = VEC_PUSH(S.fn, S.nfn, S.fncap);
	memset(f, 0, sizeof *f);
	/* named as pstats prints it (func_std_string) */
	sbuf nm = { 0 }, src = { 0 };
	bool builtin = file->n == 1 && file->s[0] == '~' && line == 0;
	if (builtin && name->n >= 2 && name->s[0] == '<' && name->s[name->n - 1] == '>') {
		sbuf_addc(&nm, '{');
		sbuf_add(&nm, name->s + 1, name->n - 2);
		sbuf_addc(&nm, '}');
	} else if (builtin) {
		sbuf_add(&nm, name->s, name->n);
	} else {
		/* (byte by byte: a NUL in a name is kept, not an end) */
		sbuf_add(&src, file->s, file->n);
		sbuf_printf(&src, ":%lld", (long long)line);
		sbuf_add(&nm, src.p, src.n);
		sbuf_addc(&nm, '(');
		sbuf_add(&nm, name->s, name->n);
		sbuf_addc(&nm, ')');
	}
	uint32_t dso = builtin ? S.dso_builtin : builder_dso(S.b, file->s, file->n, false);
	builder_frame bf = { .func = { nm.p, nm.n }, .dso = dso, .kind = FK_USER, .func_resolved = true,
			     .inline_depth = -1 };
	if (src.n) bf.srcline = (sstr){ src.p, src.n };
	f->frame = builder_frame_add(S.b, &bf);
	sbuf_free(&nm);
	sbuf_free(&src);
	return i;
}

static void read_stats(const value *top)
{
	if (top->t != V_DICT) die_at(M.fname, 0, "not cProfile statistics: the data is not a dictionary");
	if (top->n == 0) die_at(M.fname, 0, "no functions: cProfile profiled nothing");
	/* the functions first (ids in the file's order), then the edges */
	for (uint32_t k = 0; k < top->n; k++) function(top->items[2 * k]);
	for (uint32_t k = 0; k < top->n; k++) {
		uint32_t i = function(top->items[2 * k]);
		const value *v = top->items[2 * k + 1];
		if (v->t != V_TUPLE || v->n != 5)
			die_at(M.fname, 0, "a function's figures are not (calls, calls, tottime, cumtime, callers)");
		struct fn *f = &S.fn[i];
		f->cc = count_of(v->items[0], "a primitive call count");
		f->nc = count_of(v->items[1], "a call count");
		f->tt = num_of(v->items[2], "a tottime");
		f->ct = num_of(v->items[3], "a cumtime");
		const value *callers = v->items[4];
		if (callers->t != V_DICT) die_at(M.fname, 0, "a function's callers are not a dictionary");
		f->callers = S.nedges;
		for (uint32_t c = 0; c < callers->n; c++) {
			uint32_t from = function(callers->items[2 * c]);
			const value *e = callers->items[2 * c + 1];
			struct edge *ed = VEC_PUSH(S.edges, S.nedges, S.edgecap);
			ed->from = from;
			ed->to = i;
			if (e->t == V_TUPLE && e->n == 4) {
				ed->nc = count_of(e->items[0], "an edge's call count");
				ed->ct = num_of(e->items[3], "an edge's cumtime");
			} else if (e->t == V_INT) { /* Python 2's pstats: the call count */
				const struct fn *g = &S.fn[i]; /* (function() may move S.fn) */
				ed->nc = count_of(e, "an edge's call count");
				ed->ct = g->nc > 0 ? g->ct * (double)e->i / (double)g->nc : 0;
			} else {
				die_at(M.fname, 0, "an edge's figures are not (calls, calls, tottime, cumtime)");
			}
		}
		S.fn[i].ncallers = S.nedges - S.fn[i].callers;
	}
	/* the edges by caller */
	S.out = xmalloc(((size_t)S.nedges + 1) * sizeof *S.out);
	for (uint32_t e = 0; e < S.nedges; e++) S.fn[S.edges[e].from].ncallees++;
	uint32_t at = 0;
	for (uint32_t i = 0; i < S.nfn; i++) {
		S.fn[i].callees = at;
		at += S.fn[i].ncallees;
		S.fn[i].ncallees = 0;
	}
	for (uint32_t e = 0; e < S.nedges; e++) {
		struct fn *f = &S.fn[S.edges[e].from];
		S.out[f->callees + f->ncallees++] = e;
	}
}

/* ---- the stacks ------------------------------------------------------------ */

static uint32_t add_node(uint32_t parent, uint32_t fn, double t, double c)
{
	if ((int64_t)S.nnodes >= S.max_stacks) {
		S.cut_stacks = true;
		return UINT32_MAX;
	}
	struct node *n = VEC_PUSH(S.nodes, S.nnodes, S.nodecap);
	n->parent = parent;
	n->fn = fn;
	n->tshare = t;
	n->cshare = c;
	n->wall = n->calls = 0;
	S.reached[fn] = 1;
	return S.nnodes - 1;
}

/* The path to node `at` (function f, on it with inclusive time t and calls
 * c) goes on into f's callees: each gets the share of f's time that flows
 * along its edge.  A function already on the path is not entered again. */
static void walk(uint32_t at, uint32_t fi, double t, double c, int64_t depth)
{
	const struct fn *f = &S.fn[fi];
	/* (at most all of it: the edges into a recursive function count its
	 * inner calls too) */
	double frac = f->ct > 0 ? fmin(t / f->ct, 1) : 0;
	double cfrac = f->nc > 0 ? fmin(c / (double)f->nc, 1) : 0;
	/* the node's own share: f's self time on this path */
	S.nodes[at].tshare = f->tt * frac;
	S.nodes[at].cshare = c;
	if (depth >= S.max_depth) {
		if (f->ncallees) S.cut_depth = true;
		return;
	}
	S.onpath[fi] = 1;
	for (uint32_t k = 0; k < f->ncallees; k++) {
		const struct edge *e = &S.edges[S.out[f->callees + k]];
		if (S.onpath[e->to]) continue;
		double tg = e->ct * frac, cg = (double)e->nc * cfrac;
		if (tg * 1e9 < 0.5 && cg < 0.5) continue; /* nothing in whole nanoseconds or calls */
		uint32_t n = add_node(at, e->to, 0, 0);
		if (n == UINT32_MAX) break;
		walk(n, e->to, tg, cg, depth + 1);
	}
	S.onpath[fi] = 0;
}

/* a node's share of its function's total (largest remainders) */
struct part { uint32_t node; double share; int64_t whole; double rest; };

static int by_rest(const void *a, const void *b)
{
	const struct part *x = a, *y = b;
	if (x->rest != y->rest) return x->rest > y->rest ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

/* total shared out over parts[0..n) in proportion to their shares (all
 * of it to the first when they are all 0), exactly. */
static void apportion(struct part *parts, uint32_t n, int64_t total)
{
	double sum = 0;
	for (uint32_t k = 0; k < n; k++) sum += parts[k].share;
	int64_t given = 0;
	for (uint32_t k = 0; k < n; k++) {
		double exact = sum > 0 ? (double)total * (parts[k].share / sum) : (k == 0 ? (double)total : 0);
		parts[k].whole = (int64_t)floor(exact);
		parts[k].rest = exact - (double)parts[k].whole;
		given += parts[k].whole;
	}
	int64_t left = total - given;
	if (left > 0) {
		qsort(parts, n, sizeof *parts, by_rest);
		for (uint32_t k = 0; left > 0; k = (k + 1) % n, left--) parts[k].whole++;
	}
}

static void rebuild(void)
{
	S.onpath = xcalloc(S.nfn ? S.nfn : 1, sizeof *S.onpath);
	S.reached = xcalloc(S.nfn ? S.nfn : 1, sizeof *S.reached);
	/* the roots: functions nobody (else) calls; then, while some function
	 * is on no path (its callers call each other in a cycle: Python's
	 * exec runs a module whose imports exec again), the one of them
	 * with the greatest cumtime, as the outermost call of its cycle */
	for (uint32_t i = 0; i < S.nfn && !S.cut_stacks; i++) {
		const struct fn *f = &S.fn[i];
		bool called = false;
		for (uint32_t k = 0; k < f->ncallers; k++)
			if (S.edges[f->callers + k].from != i) called = true;
		if (called) continue;
		uint32_t n = add_node(UINT32_MAX, i, 0, 0);
		if (n != UINT32_MAX) walk(n, i, f->ct, (double)f->nc, 1);
	}
	while (!S.cut_stacks) {
		uint32_t best = UINT32_MAX;
		for (uint32_t i = 0; i < S.nfn; i++)
			if (!S.reached[i] && (best == UINT32_MAX || S.fn[i].ct > S.fn[best].ct)) best = i;
		if (best == UINT32_MAX) break;
		uint32_t n = add_node(UINT32_MAX, best, 0, 0);
		if (n != UINT32_MAX) walk(n, best, S.fn[best].ct, (double)S.fn[best].nc, 1);
	}
	/* each function's nodes, its tottime and calls shared out over them;
	 * one that no walk reached (in a cycle nobody enters) gets a root */
	uint32_t *first = xmalloc((size_t)(S.nfn ? S.nfn : 1) * sizeof *first);
	uint32_t *next = xmalloc((size_t)(S.nnodes + S.nfn + 1) * sizeof *next);
	for (uint32_t i = 0; i < S.nfn; i++) first[i] = UINT32_MAX;
	for (uint32_t k = S.nnodes; k-- > 0;) {
		next[k] = first[S.nodes[k].fn];
		first[S.nodes[k].fn] = k;
	}
	struct part *parts = NULL;
	uint32_t np = 0, pcap = 0;
	for (uint32_t i = 0; i < S.nfn; i++) {
		const struct fn *f = &S.fn[i];
		int64_t wall = (int64_t)llround(f->tt * 1e9);
		if (first[i] == UINT32_MAX) {
			if (wall == 0 && f->nc == 0) continue;
			/* past --max-stacks, a node of its own all the same */
			struct node *n = VEC_PUSH(S.nodes, S.nnodes, S.nodecap);
			*n = (struct node){ UINT32_MAX, i, 0, 0, 0, 0 };
			first[i] = S.nnodes - 1;
			next = xrealloc(next, ((size_t)S.nnodes + 1) * sizeof *next);
			next[S.nnodes - 1] = UINT32_MAX;
		}
		np = 0;
		for (uint32_t k = first[i]; k != UINT32_MAX; k = next[k])
			*VEC_PUSH(parts, np, pcap) = (struct part){ k, S.nodes[k].tshare, 0, 0 };
		apportion(parts, np, wall);
		for (uint32_t k = 0; k < np; k++) S.nodes[parts[k].node].wall = parts[k].whole;
		np = 0;
		for (uint32_t k = first[i]; k != UINT32_MAX; k = next[k])
			*VEC_PUSH(parts, np, pcap) = (struct part){ k, S.nodes[k].cshare, 0, 0 };
		apportion(parts, np, f->nc);
		for (uint32_t k = 0; k < np; k++) S.nodes[parts[k].node].calls = parts[k].whole;
	}
	free(parts);
	free(first);
	free(next);
}

static void emit(void)
{
	uint32_t ev = builder_event(S.b, "cprofile", "probe", "event", "wall_ns", NULL);
	uint32_t m[2] = { builder_metric(S.b, "wall_ns", "nanoseconds"), builder_metric(S.b, "calls", NULL) };
	builder_ctx ctx = { .event = ev };
	uint32_t *fr = NULL, nfr = 0, frcap = 0;
	for (uint32_t k = 0; k < S.nnodes; k++) {
		const struct node *n = &S.nodes[k];
		if (n->wall == 0 && n->calls == 0) continue;
		nfr = 0;
		for (uint32_t x = k; x != UINT32_MAX; x = S.nodes[x].parent)
			*VEC_PUSH(fr, nfr, frcap) = S.fn[S.nodes[x].fn].frame;
		num v[2] = { num_i(n->wall), num_i(n->calls) };
		builder_stack(S.b, &ctx, fr, nfr, m, v, 2);
	}
	free(fr);
}

/* ---- main -------------------------------------------------------------------- */

static void convert(const char *path)
{
	input *in = input_open(path);
	M.fname = xstrdup(input_name(in));
	sniff_refuse_other(in, "pstats2spaa", "cProfile statistics");
	sbuf data = { 0 };
	char buf[1 << 16];
	size_t k;
	while ((k = input_read(in, buf, sizeof buf)) > 0) {
		if (data.n + k > input_max_size()) input_too_big(M.fname, "cProfile statistics of");
		sbuf_add(&data, buf, k);
	}
	input_close(in);
	if (data.n == 0) die_empty_input(M.fname);
	M.start = M.p = (const unsigned char *)data.p;
	M.end = M.p + data.n;
	value *top = read_value();
	if (M.p != M.end) bad("data after the statistics' dictionary");
	S.b = builder_new();
	builder_source_tool(S.b, "cProfile");
	S.dso_builtin = builder_dso(S.b, "[python]", 8, false);
	strmap_init(&S.keys);
	read_stats(top);
	rebuild();
	emit();
	if (S.cut_depth)
		warn_at(M.fname, 0, "stacks deeper than %lld calls end at their %lldth function (--max-depth)",
			(long long)S.max_depth, (long long)S.max_depth);
	if (S.cut_stacks)
		warn_at(M.fname, 0, "more than %lld stacks: the rest of each function's time is on a stack of "
			"its own (--max-stacks)", (long long)S.max_stacks);
	arena_free(&M.mem);
	sbuf_free(&data);
}

enum { O_DEPTH = 256, O_STACKS };

const struct option pstats_longopts[] = {
	{ "max-depth", required_argument, 0, O_DEPTH },
	{ "max-stacks", required_argument, 0, O_STACKS },
	CLI_OUT_LONGOPTS,
	CLI_STD_LONGOPTS,
	{ 0, 0, 0, 0 }
};
const char pstats_shortopts[] = "o:zhV";

/* the converter pstats2spaa: argv as it gets it (argv[0] its name); the
 * exit status (readers/readers.h) */
int pstats_read(int argc, char **argv)
{
	const char *outpath = NULL;
	bool zstd = false;
	int c;
	S.max_depth = 256;
	S.max_stacks = 1000000;
	while ((c = getopt_long(argc, argv, pstats_shortopts, pstats_longopts, NULL)) != -1) {
		switch (c) {
		case O_DEPTH: S.max_depth = (int64_t)opt_range("--max-depth", optarg, 1, 100000); break;
		case O_STACKS: S.max_stacks = (int64_t)opt_range("--max-stacks", optarg, 1, 100000000); break;
		CLI_OUT_CASES(outpath, zstd);
		CLI_STD_CASES(help);
		}
	}
	const char *path = optind < argc ? argv[optind] : "-";
	several_inputs(argv + optind, argc - optind, &path, &outpath, &zstd);
	convert(path);
	reader_finish(S.b, outpath, zstd);
	return EXIT_OK;
}
