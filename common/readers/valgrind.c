/* valgrind2spaa - valgrind's profilers to SPAA: massif's snapshots
 * (massif.out.PID), DHAT's program points (dhat.out.PID) and callgrind's
 * call graph (callgrind.out.PID).
 *
 * One command for the family: the formats are siblings (one tool suite, one
 * program's run under it) and each is told apart by its first bytes, so a
 * user hands over whatever valgrind wrote.
 *
 * The story: options; the format, by content (--format forces one); the
 * reader of that format, which adds stacks to the builder; the profile
 * written.
 *
 * massif: a detailed snapshot is a tree whose root is the allocation
 * functions and whose children are their callers, each node with the bytes
 * allocated under it (inclusive).  A node's own bytes (its bytes less its
 * children's) belong to the call path from the root's child (the innermost
 * frame) down to it: so each tree becomes stacks whose inclusive weights are
 * the tree's figures.  Consecutive nodes at one address are a chain of
 * inlined frames on the function they sit in.  The peak snapshot by default,
 * --snapshot=N another, --all-snapshots every detailed one as a window.
 *
 * DHAT: each program point is a stack (its frames leaf first), its figures
 * the metrics: total bytes and blocks, the bytes and blocks live at the
 * global peak (t-gmax) and at the end (t-end), the most it held at once,
 * the lifetimes, reads and writes; they add up to DHAT's own totals. */
#define _GNU_SOURCE /* memmem */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "readers.h"
#include "build.h"
#include "reader.h"
#include "cli.h"
#include "input.h"
#include "jscan.h"
#include "json.h"
#include "jsonbuf.h"
#include "num.h"
#include "output.h"
#include "several.h"
#include "spaa.h"
#include "strmap.h"
#include "util.h"

static const char help[] =
"Usage: valgrind2spaa [OPTION]... [FILE]...\n"
"Convert what valgrind's profilers write, massif (massif.out.PID), DHAT\n"
"(dhat.out.PID) and callgrind (callgrind.out.PID), to a SPAA 1.0 profile; the\n"
"format is recognised by content.  Several FILEs are converted one by one and\n"
"merged as spaa-cat --merge merges them.  With no FILE, or when FILE is -,\n"
"read standard input (zstd and gzip allowed).\n"
"\n"
"massif: the heap tree of the peak snapshot (or of --snapshot) as stacks with\n"
"live_bytes, whose inclusive sums are ms_print's figures.  DHAT: each program\n"
"point as a stack with alloc_bytes, alloc_count (DHAT's total), peak_bytes,\n"
"peak_count (at t-gmax), live_bytes, live_count (at t-end), max_bytes,\n"
"max_count, lifetime, read_bytes and write_bytes.  callgrind: a call graph,\n"
"not stacks: the stacks are reconstructed, every event a metric, each\n"
"function's own cost and total exactly callgrind_annotate's (recursion aside,\n"
"and where the call tree is grown whole).\n"
"\n"
"      --format=NAME    read FILE as NAME (massif, dhat or callgrind) instead\n"
"                       of recognising it\n"
"      --snapshot=N     massif: snapshot N (a detailed one) instead of the peak\n"
"      --all-snapshots  massif: every detailed snapshot, each as a window\n"
"                       (stacks weighed at the peak)\n"
CLI_HELP_TAIL;

enum format { F_AUTO, F_MASSIF, F_DHAT, F_CALLGRIND };

static struct {
	enum format format;
	int64_t snapshot;            /* -1: the peak */
	bool all_snapshots;
	builder *b;
	const char *fname;
	uint64_t nstacks;
	sbuf tmp, tmp2;
} V = { .snapshot = -1 };

/* ---- frames: "0x109166: leaf_alloc (m.c:4)", "0x4841: malloc (in /lib.so)" -- */

struct vframe {
	sstr ip, func, file_line, dso;
};

/* Splits a valgrind frame description; false when it is not one. */
static bool split_frame(const char *p, size_t n, struct vframe *f)
{
	memset(f, 0, sizeof *f);
	const char *colon = memchr(p, ':', n);
	if (n < 4 || p[0] != '0' || p[1] != 'x' || !colon || (size_t)(colon - p) + 2 > n || colon[1] != ' ')
		return false;
	f->ip = (sstr){ p, (size_t)(colon - p) };
	const char *s = colon + 2, *e = p + n;
	/* the last " (...)" is the place: "(file:line)" or "(in dso)" */
	if (e > s && e[-1] == ')') {
		const char *q = e - 1;
		int depth = 0;
		while (q > s) {
			if (*q == ')') depth++;
			else if (*q == '(' && --depth == 0) break;
			q--;
		}
		if (q > s && *q == '(' && q[-1] == ' ') {
			sstr place = { q + 1, (size_t)(e - 1 - (q + 1)) };
			if (place.n > 3 && !memcmp(place.p, "in ", 3))
				f->dso = (sstr){ place.p + 3, place.n - 3 };
			else
				f->file_line = place;
			e = q - 1;
		}
	}
	f->func = (sstr){ s, (size_t)(e - s) };
	return true;
}

/* The builder frame of a valgrind frame; inlined: it sits on the next
 * frame out at the same address. */
static uint32_t vframe_add(const struct vframe *v, bool inlined)
{
	sstr dso = v->dso.n ? v->dso : sstr_c("[unknown]");
	bool unknown = !v->func.n || sstr_eqc(v->func, "???");
	builder_frame f = {
		.func = unknown ? v->ip : v->func,
		.dso = builder_dso(V.b, dso.p, dso.n, false),
		.kind = unknown && !v->dso.n ? FK_UNKNOWN : FK_USER,
		.func_resolved = !unknown,
		.inlined = inlined,
		.inline_depth = -1,
		.srcline = v->file_line.n ? v->file_line : SSTR_NULL,
		.ip = v->ip,
	};
	return builder_frame_add(V.b, &f);
}

/* A frame of its own name (the massif tree's "below threshold" node). */
static uint32_t named_frame(const char *name)
{
	builder_frame f = {
		.func = sstr_c(name),
		.dso = builder_dso(V.b, "[unknown]", 9, false),
		.kind = FK_UNKNOWN,
		.func_resolved = true,
		.inline_depth = -1,
	};
	return builder_frame_add(V.b, &f);
}

/* ---- massif ----------------------------------------------------------------- */

/* The deepest heap tree read: each node's stack is written whole, so the
 * work grows with the square of the depth. */
#define MASSIF_MAX_DEPTH 1000

struct mnode {
	uint64_t bytes, kids_bytes;
	uint64_t kids_left;
	bool below;         /* "in N places, below massif's threshold" */
	uint32_t off, len;  /* its frame's text, in M.text */
	uint32_t ip_len;    /* the "0x..." at the start of it */
};

static struct {
	uint32_t event, metric;
	struct mnode *st;
	uint32_t depth, cap;         /* open nodes: st[0] the root */
	uint32_t *fr;
	uint32_t frcap;
	sbuf text;                   /* the frames of the open nodes */
	/* with --all-snapshots: per detailed snapshot, (stack, bytes) */
	struct msnap { int64_t n; uint64_t time; uint32_t first, count; bool peak; } *snaps;
	uint32_t nsnaps, snapcap;
	struct mentry { uint32_t stack; uint64_t bytes; } *ent;
	uint32_t nent, entcap;
	const char *time_unit;
	uint64_t line;
} M;

/* The stack of open node d (d >= 1) gets its own bytes. */
static void massif_emit(uint32_t d, uint64_t self, bool weigh)
{
	grow_array((void **)&M.fr, &M.frcap, d + 1, sizeof *M.fr);
	for (uint32_t i = 1; i <= d; i++) {
		const struct mnode *n = &M.st[i], *caller = i < d ? &M.st[i + 1] : NULL;
		if (n->below) {
			M.fr[i - 1] = named_frame("[below massif's threshold]");
			continue;
		}
		/* inlined: it sits on its caller, at the same address */
		bool inl = caller && !caller->below && caller->ip_len == n->ip_len &&
			!memcmp(M.text.p + caller->off, M.text.p + n->off, n->ip_len);
		struct vframe v;
		split_frame(M.text.p + n->off, n->len, &v);
		M.fr[i - 1] = vframe_add(&v, inl);
	}
	builder_ctx ctx = { .event = M.event };
	num v = num_u(weigh ? self : 0);
	builder_where(V.b, V.fname, M.line);
	uint32_t s = builder_stack(V.b, &ctx, M.fr, d, &M.metric, &v, 1);
	V.nstacks++;
	if (V.all_snapshots) {
		struct mentry *e = VEC_PUSH(M.ent, M.nent, M.entcap);
		e->stack = s;
		e->bytes = self;
	}
}

/* Closes open nodes down to depth d (exclusive): each gets its own bytes. */
static void massif_close(uint32_t d, bool weigh)
{
	while (M.depth > d) {
		struct mnode *n = &M.st[M.depth - 1];
		if (n->kids_left)
			die_at(V.fname, M.line, "heap tree: a node is missing %llu of its children",
			       (unsigned long long)n->kids_left);
		if (n->kids_bytes > n->bytes)
			die_at(V.fname, M.line, "heap tree: the children of a node hold more bytes (%llu) than it (%llu)",
			       (unsigned long long)n->kids_bytes, (unsigned long long)n->bytes);
		uint64_t self = n->bytes - n->kids_bytes;
		if (self && M.depth - 1 >= 1) massif_emit(M.depth - 1, self, weigh);
		else if (self)
			die_at(V.fname, M.line, "heap tree: the allocation functions hold %llu bytes no caller has",
			       (unsigned long long)self);
		M.depth--;
	}
}

/* One line of a heap tree: " nK: BYTES what". */
static void massif_node(char *line, size_t len, bool weigh)
{
	size_t d = 0;
	while (d < len && line[d] == ' ') d++;
	if (d >= len || line[d] != 'n')
		die_at(V.fname, M.line, "heap tree: a line that is not a node (\"nK: BYTES ...\")");
	char *p = line + d + 1, *e = line + len;
	uint64_t kids = 0, bytes = 0;
	if (!(p < e && *p >= '0' && *p <= '9')) die_at(V.fname, M.line, "heap tree: a node without its child count");
	while (p < e && *p >= '0' && *p <= '9')
		if (__builtin_mul_overflow(kids, 10, &kids) || __builtin_add_overflow(kids, (uint64_t)(*p++ - '0'), &kids))
			die_at(V.fname, M.line, "heap tree: a child count beyond 64 bits");
	if (e - p < 3 || p[0] != ':' || p[1] != ' ') die_at(V.fname, M.line, "heap tree: no ': ' after the child count");
	p += 2;
	if (!(p < e && *p >= '0' && *p <= '9')) die_at(V.fname, M.line, "heap tree: a node without its bytes");
	while (p < e && *p >= '0' && *p <= '9')
		if (__builtin_mul_overflow(bytes, 10, &bytes) || __builtin_add_overflow(bytes, (uint64_t)(*p++ - '0'), &bytes))
			die_at(V.fname, M.line, "heap tree: bytes beyond 64 bits");
	if (p < e && *p == ' ') p++;
	/* where it goes: depth d; its parent (depth d - 1) must be open */
	if (d == 0 && M.depth) die_at(V.fname, M.line, "heap tree: a second root");
	if (d > M.depth) die_at(V.fname, M.line, "heap tree: a node %zu deep under a node %u deep", d, M.depth ? M.depth - 1 : 0);
	massif_close((uint32_t)d, weigh);
	if (d > 0) {
		struct mnode *parent = &M.st[d - 1];
		if (!parent->kids_left) die_at(V.fname, M.line, "heap tree: a node has more children than it says");
		parent->kids_left--;
		if (__builtin_add_overflow(parent->kids_bytes, bytes, &parent->kids_bytes))
			die_at(V.fname, M.line, "heap tree: bytes beyond 64 bits");
	}
	if (d >= MASSIF_MAX_DEPTH)
		die_at(V.fname, M.line, "heap tree deeper than %d (massif's own --depth is at most 200)",
		       MASSIF_MAX_DEPTH);
	grow_array((void **)&M.st, &M.cap, (uint32_t)d + 1, sizeof *M.st);
	struct mnode *n = &M.st[d];
	n->bytes = bytes;
	n->kids_bytes = 0;
	n->kids_left = kids;
	n->below = false;
	n->off = n->len = n->ip_len = 0;
	M.depth = (uint32_t)d + 1;
	if (d == 0) {
		/* "(heap allocation functions) malloc/new/new[], --alloc-fns, etc." */
		M.text.n = 0;
		return;
	}
	size_t rest = (size_t)(e - p);
	struct vframe v;
	if (rest >= 3 && !memcmp(p, "in ", 3)) {
		if (kids) die_at(V.fname, M.line, "heap tree: a below-threshold node with children");
		n->below = true;
	} else if (split_frame(p, rest, &v)) {
		/* its text is kept while it is open: its frame is made when a
		 * stack through it is written, knowing its caller */
		if (M.text.n + rest > UINT32_MAX) die_at(V.fname, M.line, "heap tree: frames too long");
		n->off = (uint32_t)M.text.n;
		n->len = (uint32_t)rest;
		n->ip_len = (uint32_t)v.ip.n;
		sbuf_add(&M.text, p, rest);
	} else {
		die_at(V.fname, M.line, "heap tree: not a frame (\"0xADDR: function (file:line)\"): %.*s",
		       (int)(rest > 80 ? 80 : rest), p);
	}
}

static void massif_header(const char *key, const char *val, size_t n)
{
	if (!strcmp(key, "cmd")) builder_source_str(V.b, "command", val, n);
	else if (!strcmp(key, "desc")) builder_source_str(V.b, "massif_args", val, n);
}

/* Is line "key=value"? Then *val is the value. */
static bool kv(char *line, size_t len, const char *key, char **val, size_t *vn)
{
	size_t k = strlen(key);
	if (len <= k || memcmp(line, key, k) || line[k] != '=') return false;
	*val = line + k + 1;
	*vn = len - k - 1;
	return true;
}

static uint64_t kv_u64(char *v, size_t n, const char *what)
{
	uint64_t x = 0;
	if (!n) die_at(V.fname, M.line, "%s without a value", what);
	for (size_t i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9') die_at(V.fname, M.line, "%s is not a whole number: %.*s", what, (int)n, v);
		if (__builtin_mul_overflow(x, 10, &x) || __builtin_add_overflow(x, (uint64_t)(v[i] - '0'), &x))
			die_at(V.fname, M.line, "%s beyond 64 bits", what);
	}
	return x;
}

/* input_line, and whether the line ended in '\n': massif ends every line
 * with one, so a last line without it is a cut file. */
static char *vg_line(input *in, size_t *len, bool *nl)
{
	uint64_t at = input_offset(in);
	char *line = input_line(in, len);
	if (line) *nl = input_offset(in) - at > *len;
	return line;
}

/* A snapshot's lines, in the order massif writes them:
 *   snapshot=N, time=, mem_heap_B=, mem_heap_extra_B=, mem_stacks_B=,
 *   heap_tree=empty|detailed|peak, and after detailed or peak the tree.
 * The file may end only after a whole snapshot; a snapshot whose lines are
 * missing, repeated or out of order is an error, as is a tree whose root
 * does not hold the snapshot's mem_heap_B. */
static const char *const ms_field[] = { "time", "mem_heap_B", "mem_heap_extra_B", "mem_stacks_B" };
enum { MS_NFIELD = 4 };

/* The bytes of a tree's root line ("n2: 7096 (heap allocation ...").
 * false when the line is not a root node. */
static bool ms_root_bytes(const char *p, size_t n, uint64_t *bytes)
{
	size_t i = 0;
	if (!n || p[0] != 'n') return false;
	for (i = 1; i < n && p[i] >= '0' && p[i] <= '9'; i++) {}
	if (i == 1 || i + 2 >= n || p[i] != ':' || p[i + 1] != ' ') return false;
	i += 2;
	uint64_t x = 0;
	size_t d = i;
	for (; i < n && p[i] >= '0' && p[i] <= '9'; i++)
		if (__builtin_mul_overflow(x, 10, &x) || __builtin_add_overflow(x, (uint64_t)(p[i] - '0'), &x))
			return false;
	if (i == d) return false;
	*bytes = x;
	return true;
}

static void read_massif(input *in)
{
	M.event = builder_event(V.b, "heap", "allocation", "event", "live_bytes", NULL);
	M.metric = builder_metric(V.b, "live_bytes", "bytes");
	builder_source_tool(V.b, "massif");
	char *line, *val;
	size_t len, vn;
	int64_t snap = -1, peak_snap = -1;
	uint64_t time = 0, fields[MS_NFIELD] = { 0 };
	unsigned have = 0;               /* which of ms_field this snapshot has */
	bool in_snap = false;            /* after snapshot=, before heap_tree= */
	bool in_tree = false, skip_tree = false, weigh = false, taken = false, any_detailed = false;
	bool tree_due = false;           /* heap_tree=detailed|peak: its tree not yet begun */
	bool nl = true;
	const char *tree_kind = "";
	sbuf detailed = { 0 };
	while ((line = vg_line(in, &len, &nl))) {
		M.line = input_lineno(in);
		if (len && line[len - 1] == '\r') line[--len] = 0;
		if (tree_due) {
			uint64_t root;
			if (!len || line[0] == '#')
				die_at(V.fname, M.line, "snapshot %lld: heap_tree=%s without its tree", (long long)snap, tree_kind);
			if (!ms_root_bytes(line, len, &root))
				die_at(V.fname, M.line, "heap tree: a first line that is not its root (\"nK: BYTES (heap allocation functions) ...\")");
			if (root != fields[1])
				die_at(V.fname, M.line, "snapshot %lld: the heap tree holds %llu bytes, but mem_heap_B says %llu",
				       (long long)snap, (unsigned long long)root, (unsigned long long)fields[1]);
			tree_due = false;
		}
		if (skip_tree && len && line[0] != '#') continue;
		skip_tree = false;
		if (in_tree) {
			if (len && line[0] != '#') {
				massif_node(line, len, weigh);
				continue;
			}
			massif_close(0, weigh);
			in_tree = false;
			if (V.all_snapshots) M.snaps[M.nsnaps - 1].count = M.nent - M.snaps[M.nsnaps - 1].first;
		}
		if (!len || line[0] == '#') continue;
		if (kv(line, len, "snapshot", &val, &vn)) {
			int64_t n = (int64_t)kv_u64(val, vn, "snapshot");
			if (in_snap)
				die_at(V.fname, M.line, "snapshot %lld begins before snapshot %lld's heap_tree= line",
				       (long long)n, (long long)snap);
			if (n <= snap)
				die_at(V.fname, M.line, "snapshot %lld after snapshot %lld (massif numbers them in order)",
				       (long long)n, (long long)snap);
			snap = n;
			in_snap = true;
			have = 0;
		} else if (kv(line, len, "heap_tree", &val, &vn)) {
			if (!in_snap) die_at(V.fname, M.line, "heap_tree= outside a snapshot (no snapshot= line before it)");
			for (int i = 0; i < MS_NFIELD; i++)
				if (!(have & (1u << i)))
					die_at(V.fname, M.line, "snapshot %lld: heap_tree= before its %s= line", (long long)snap, ms_field[i]);
			in_snap = false;
			bool peak = vn == 4 && !memcmp(val, "peak", 4);
			bool det = peak || (vn == 8 && !memcmp(val, "detailed", 8));
			if (!det && !(vn == 5 && !memcmp(val, "empty", 5)))
				die_at(V.fname, M.line, "heap_tree=%.*s: massif writes empty, detailed or peak",
				       (int)(vn > 40 ? 40 : vn), val);
			if (!det) continue;
			if (peak && peak_snap >= 0)
				die_at(V.fname, M.line, "snapshot %lld: a second peak snapshot (the first is %lld)",
				       (long long)snap, (long long)peak_snap);
			if (peak) peak_snap = snap;
			tree_due = true;
			tree_kind = peak ? "peak" : "detailed";
			any_detailed = true;
			sbuf_printf(&detailed, "%s%lld%s", detailed.n ? ", " : "", (long long)snap, peak ? " (peak)" : "");
			bool want = V.all_snapshots || (V.snapshot < 0 ? peak : snap == V.snapshot);
			weigh = V.snapshot < 0 ? peak : snap == V.snapshot;
			skip_tree = !want;
			if (want) {
				in_tree = true;
				taken = taken || weigh;
				M.depth = 0;
				if (V.all_snapshots) {
					struct msnap *s = VEC_PUSH(M.snaps, M.nsnaps, M.snapcap);
					s->n = snap;
					s->time = time;
					s->first = M.nent;
					s->count = 0;
					s->peak = peak;
				}
			}
		} else if (!strncmp(line, "desc:", 5) || !strncmp(line, "cmd:", 4) || !strncmp(line, "time_unit:", 10)) {
			char *c = memchr(line, ':', len);
			if (snap >= 0)
				die_at(V.fname, M.line, "%.*s after the first snapshot (massif writes it in the header)",
				       (int)(c - line + 1), line);
			*c = 0;
			char *v = c + 1;
			while (*v == ' ') v++;
			if (!strcmp(line, "time_unit")) {
				M.time_unit = !strcmp(v, "i") ? "instructions" : !strcmp(v, "ms") ? "milliseconds"
					: !strcmp(v, "B") ? "bytes" : NULL;
				if (!M.time_unit) die_at(V.fname, M.line, "time_unit: %s: massif writes i, ms or B", v);
			}
			massif_header(line, v, strlen(v));
		} else {
			int f = -1;
			for (int i = 0; i < MS_NFIELD && f < 0; i++)
				if (kv(line, len, ms_field[i], &val, &vn)) f = i;
			if (f < 0)
				die_at(V.fname, M.line, "not a line of massif's output: %.*s", (int)(len > 60 ? 60 : len), line);
			if (!in_snap)
				die_at(V.fname, M.line, "%s= outside a snapshot (after its heap_tree=, or before any snapshot=)",
				       ms_field[f]);
			if (have & (1u << f))
				die_at(V.fname, M.line, "snapshot %lld: a second %s= line", (long long)snap, ms_field[f]);
			if (have >> f)
				die_at(V.fname, M.line, "snapshot %lld: %s= after a line massif writes after it", (long long)snap,
				       ms_field[f]);
			have |= 1u << f;
			fields[f] = kv_u64(val, vn, ms_field[f]);
			if (f == 0) time = fields[0];
		}
	}
	if (!nl) die_cut_line(V.fname, M.line);
	if (in_snap)
		die_at(V.fname, M.line, "the file ends in snapshot %lld, before its heap_tree= line: it is cut short",
		       (long long)snap);
	if (tree_due)
		die_at(V.fname, M.line, "snapshot %lld: heap_tree=%s without its tree: the file is cut short",
		       (long long)snap, tree_kind);
	if (in_tree) {
		massif_close(0, weigh);
		if (V.all_snapshots) M.snaps[M.nsnaps - 1].count = M.nent - M.snaps[M.nsnaps - 1].first;
	}
	if (input_lineno(in) == 0) die_empty_input(V.fname);
	if (!any_detailed) die_no_stacks(V.fname, "no detailed snapshot (the program allocated nothing massif kept)");
	if (!taken) {
		if (V.snapshot < 0)
			die_at(V.fname, M.line, "no peak snapshot (heap_tree=peak), which massif writes when the "
			       "program allocated: the file is cut short");
		die_at(V.fname, 0, "snapshot %lld is not a detailed one; the detailed ones are %.*s",
		       (long long)V.snapshot, (int)detailed.n, detailed.p);
	}
	sbuf_free(&detailed);
}

static int cmp_entry(const void *a, const void *b)
{
	const struct mentry *x = a, *y = b;
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

/* --all-snapshots: one window per detailed snapshot (an instant). */
static void massif_windows(output *o, void *ctx)
{
	(void)ctx;
	for (uint32_t i = 0; i < M.nsnaps; i++) {
		const struct msnap *s = &M.snaps[i];
		sbuf *j = &V.tmp;
		j->n = 0;
		sbuf_printf(j, "{\"type\":\"window\",\"id\":\"snapshot %lld\",\"start\":%llu,\"end\":%llu,\"unit\":",
			    (long long)s->n, (unsigned long long)s->time, (unsigned long long)s->time);
		jb_str(j, M.time_unit ? M.time_unit : "instructions", strlen(M.time_unit ? M.time_unit : "instructions"));
		sbuf_printf(j, ",\"x_peak\":%s,\"by_stack\":[", s->peak ? "true" : "false");
		/* entries of one stack summed (a path may end in several nodes),
		 * in order of the stacks */
		struct mentry *e = M.ent + s->first;
		qsort(e, s->count, sizeof *e, cmp_entry);
		for (uint32_t k = 0; k < s->count;) {
			uint64_t sum = 0;
			uint32_t q = k;
			while (q < s->count && e[q].stack == e[k].stack) {
				if (__builtin_add_overflow(sum, e[q].bytes, &sum))
					die_at(V.fname, 0, "snapshot %lld: bytes beyond 64 bits", (long long)s->n);
				q++;
			}
			if (j->p[j->n - 1] != '[') sbuf_addc(j, ',');
			sbuf_printf(j, "{\"stack_id\":\"%s\",\"weights\":[{\"metric\":\"live_bytes\",\"value\":%llu,"
				    "\"unit\":\"bytes\"}]}", builder_stack_id(V.b, e[k].stack), (unsigned long long)sum);
			k = q;
		}
		sbuf_add(j, "]}\n", 3);
		out_write(o, j->p, j->n);
	}
}

/* ---- DHAT ------------------------------------------------------------------- */

/* DHAT's figures of a program point, in the order of the metrics. */
static const char *const dhat_key[] = { "tb", "tbk", "gb", "gbk", "eb", "ebk", "mb", "mbk", "tl", "rb", "wb" };
enum { ND = sizeof dhat_key / sizeof *dhat_key };
static const char *const dhat_metric[ND] = {
	"alloc_bytes", "alloc_count", "peak_bytes", "peak_count", "live_bytes", "live_count",
	"max_bytes", "max_count", "lifetime", "read_bytes", "write_bytes",
};

static struct {
	struct pp { uint32_t fs, nfs; uint64_t v[ND]; uint16_t have; } *pp;
	uint32_t npp, ppcap;
	uint32_t *fs;                /* all program points' frame indices */
	uint32_t nfs, fscap;
	char **ftbl;
	uint32_t nftbl, ftcap;
	uint32_t *frame;             /* ftbl index -> builder frame (UINT32_MAX: not yet) */
	char *mode, *tu;
	bool have_pps, have_ftbl;
} D;

/* A figure of a program point: a whole number from 0 to 2^64-1. */
static uint64_t dhat_u64(jscan *r, const json_doc *d, uint32_t k, const char *key)
{
	const json_node *x = &d->nodes[k];
	if (x->type == JSON_INT && x->v.i >= 0) return (uint64_t)x->v.i;
	if (x->type == JSON_UINT) return x->v.u;
	const char *what = "is not a whole number";
	if (x->type == JSON_INT || (x->type == JSON_DOUBLE && x->v.d <= -1)) what = "is negative";
	else if (x->type == JSON_DOUBLE && !(x->v.d < 18446744073709551616.0)) what = "is out of range (above 2^64-1)";
	else if (x->type == JSON_DOUBLE && !memchr(x->str, '.', x->num_len) && !memchr(x->str, 'e', x->num_len) &&
		 !memchr(x->str, 'E', x->num_len))
		what = "is out of range (above 2^64-1)";
	jscan_fail(r, "program point %u: \"%s\" %s", D.npp - 1, key, what);
}

static void dhat_pps(jscan *r)
{
	if (D.have_pps) jscan_fail(r, "a second \"pps\" array");
	D.have_pps = true;
	bool first = true;
	json_doc d;
	json_doc_init(&d);
	jscan_open(r, '[', "\"pps\" (an array)");
	while (jscan_more(r, &first, ']')) {
		jscan_doc(r, &d);
		if (d.nodes[0].type != JSON_OBJECT) jscan_fail(r, "program point %u is not an object", D.npp);
		struct pp *p = VEC_PUSH(D.pp, D.npp, D.ppcap);
		memset(p, 0, sizeof *p);
		uint32_t dup = json_dup_key(&d, 0);
		if (dup)
			jscan_fail(r, "program point %u: \"%.*s\" twice", D.npp - 1, (int)d.nodes[dup].count,
				   d.nodes[dup].str);
		for (int i = 0; i < ND; i++) {
			uint32_t k = json_get(&d, 0, dhat_key[i]);
			if (!k) continue;
			p->v[i] = dhat_u64(r, &d, k, dhat_key[i]);
			p->have |= (uint16_t)(1u << i);
		}
		uint32_t fs = json_get(&d, 0, "fs");
		if (!fs || d.nodes[fs].type != JSON_ARRAY)
			jscan_fail(r, "program point %u has no \"fs\" array of frames", D.npp - 1);
		p->fs = D.nfs;
		p->nfs = d.nodes[fs].count;
		uint32_t k = json_first(&d, fs);
		for (uint32_t i = 0; i < p->nfs; i++, k = json_after(&d, k)) {
			int64_t v;
			if (!json_int64(&d, k, &v) || v < 0 || v > UINT32_MAX - 2)
				jscan_fail(r, "program point %u: frame %u is not an index", D.npp - 1, i);
			*VEC_PUSH(D.fs, D.nfs, D.fscap) = (uint32_t)v;
		}
	}
	json_doc_free(&d);
}

static void dhat_ftbl(jscan *r)
{
	if (D.have_ftbl) jscan_fail(r, "a second \"ftbl\" array");
	D.have_ftbl = true;
	bool first = true;
	jscan_open(r, '[', "\"ftbl\" (an array of strings)");
	while (jscan_more(r, &first, ']')) {
		sstr s = jscan_str(r, "a frame of \"ftbl\"");
		*VEC_PUSH(D.ftbl, D.nftbl, D.ftcap) = xmemdup(s.p, s.n);
	}
}

static uint32_t dhat_frame(uint32_t i, bool inlined)
{
	if (D.frame[i] != UINT32_MAX && !inlined) return D.frame[i];
	const char *t = D.ftbl[i];
	struct vframe v;
	uint32_t f;
	if (split_frame(t, strlen(t), &v)) f = vframe_add(&v, inlined);
	else f = named_frame(t); /* "[root]" and what else DHAT writes */
	if (!inlined) D.frame[i] = f;
	return f;
}

static void read_dhat(input *in)
{
	builder_source_tool(V.b, "dhat");
	jscan r;
	jscan_init(&r, in, V.fname);
	if (jscan_start(&r) != '{') jscan_fail(&r, "not a DHAT file: it does not start with a JSON object");
	jscan_open(&r, '{', "the file (an object)");
	bool first = true, version = false;
	static const char *const once[] = { "dhatFileVersion", "mode", "tu", "cmd", "pid" };
	unsigned seen = 0;
	while (jscan_more(&r, &first, '}')) {
		sstr k = jscan_key(&r);
		for (unsigned i = 0; i < sizeof once / sizeof *once; i++)
			if (sstr_eqc(k, once[i])) {
				if (seen & (1u << i)) jscan_fail(&r, "\"%s\" twice", once[i]);
				seen |= 1u << i;
			}
		if (sstr_eqc(k, "dhatFileVersion")) {
			int64_t v = jscan_int(&r, "dhatFileVersion");
			if (v != 2) jscan_fail(&r, "DHAT file version %lld: this reads version 2", (long long)v);
			version = true;
		} else if (sstr_eqc(k, "pps")) {
			dhat_pps(&r);
		} else if (sstr_eqc(k, "ftbl")) {
			dhat_ftbl(&r);
		} else if (sstr_eqc(k, "mode") || sstr_eqc(k, "tu") || sstr_eqc(k, "cmd")) {
			char key[8];
			snprintf(key, sizeof key, "%.*s", (int)k.n, k.p);
			sstr v = jscan_str(&r, key);
			if (!strcmp(key, "mode")) D.mode = xmemdup(v.p, v.n);
			else if (!strcmp(key, "tu")) D.tu = xmemdup(v.p, v.n);
			else builder_source_str(V.b, "command", v.p, v.n);
		} else if (sstr_eqc(k, "pid")) {
			int64_t v = jscan_int(&r, "pid");
			char nb[24];
			nb[fmt_i64(nb, v)] = 0;
			builder_source_json(V.b, "pid", nb);
		} else {
			jscan_skip(&r);
		}
	}
	if (jscan_peek(&r) >= 0) jscan_fail(&r, "more data after the DHAT object");
	if (!version) jscan_fail(&r, "not a DHAT file: no \"dhatFileVersion\"");
	if (!D.have_pps || !D.have_ftbl) jscan_fail(&r, "a DHAT file without its \"%s\" array", D.have_pps ? "ftbl" : "pps");
	jscan_free(&r);

	/* the metrics the file has (heap mode has them all; copy and ad-hoc
	 * modes total bytes and blocks only) */
	uint16_t have = 0;
	for (uint32_t i = 0; i < D.npp; i++) have |= D.pp[i].have;
	if (!(have & 1)) have |= 1;
	bool heap = !D.mode || !strcmp(D.mode, "heap");
	const char *ev = heap ? "heap" : D.mode;
	uint32_t midx[ND], nm = 0, which[ND];
	builder_event(V.b, ev, heap ? "allocation" : "probe", "event", heap ? "alloc_bytes" : !strcmp(D.mode, "copy") ? "copy_bytes" : "units", NULL);
	for (int i = 0; i < ND; i++) {
		if (!(have & (1u << i))) continue;
		const char *m = dhat_metric[i];
		if (!heap && i == 0) m = !strcmp(D.mode, "copy") ? "copy_bytes" : "units";
		if (!heap && i == 1) m = !strcmp(D.mode, "copy") ? "copy_count" : "events";
		const char *unit = strstr(m, "bytes") ? "bytes" : i == 8 ? D.tu : NULL;
		midx[nm] = builder_metric(V.b, m, unit);
		which[nm++] = (uint32_t)i;
	}
	D.frame = xmalloc((D.nftbl ? D.nftbl : 1) * sizeof *D.frame);
	for (uint32_t i = 0; i < D.nftbl; i++) D.frame[i] = UINT32_MAX;
	uint32_t *fr = NULL, frcap = 0;
	num vals[ND];
	builder_ctx ctx = { .event = 0 };
	for (uint32_t i = 0; i < D.npp; i++) {
		const struct pp *p = &D.pp[i];
		grow_array((void **)&fr, &frcap, p->nfs + 1, sizeof *fr);
		for (uint32_t j = 0; j < p->nfs; j++) {
			uint32_t x = D.fs[p->fs + j];
			if (x >= D.nftbl)
				die_at(V.fname, 0, "program point %u: frame %u is beyond the %u of \"ftbl\"", i, x, D.nftbl);
			/* inlined: the next frame out has the same address */
			bool inl = false;
			if (j + 1 < p->nfs) {
				struct vframe a, b;
				uint32_t y = D.fs[p->fs + j + 1];
				if (y < D.nftbl && split_frame(D.ftbl[x], strlen(D.ftbl[x]), &a) &&
				    split_frame(D.ftbl[y], strlen(D.ftbl[y]), &b) && sstr_eq(a.ip, b.ip))
					inl = true;
			}
			fr[j] = dhat_frame(x, inl);
		}
		for (uint32_t m = 0; m < nm; m++) vals[m] = num_u(p->v[which[m]]);
		builder_stack(V.b, &ctx, fr, p->nfs, midx, vals, nm);
		V.nstacks++;
	}
	free(fr);
	if (!D.npp) die_no_stacks(V.fname, "no program points");
}

/* ---- callgrind -------------------------------------------------------------
 * A call graph, not stacks: per function its own costs, per call edge the
 * callee's inclusive costs.  The stacks are made per event: the functions
 * of a recursion (a strongly connected component of the graph) are one
 * unit; from the units nobody calls (callers first: then what is left of
 * each unit, what its callers did not account for), weight is passed down
 * the calls as whole numbers: a unit's place gets the share of its
 * caller's weight that the call has, and shares it out among its members'
 * own costs and the calls that leave it in proportion to what is left of
 * them (largest remainders, never more than is left), so that a function's
 * places add up exactly to its own cost and to each of its calls' costs:
 * own costs and totals are callgrind_annotate's, recursion aside (it counts
 * each recursive call again).  Inside a unit, its members are a spanning
 * tree along its calls, each once on a path.  Costs under fi=/fe= (code
 * inlined from another file) are an inlined frame of the function, named
 * after it, in that file. */

#define CG_MAX_NODES (1u << 18)

struct cfunc {
	uint32_t name, file, obj;    /* string ids (CG.str) */
	uint32_t edges, edges_last;  /* first and last out-edge, UINT32_MAX none */
	uint32_t selfs;              /* first self record */
	uint32_t nodes;              /* first tree node */
	bool called, onstack, defined; /* defined: by an fn= line */
	double total;                /* first event: own cost plus calls */
	uint32_t frame;              /* builder frame, UINT32_MAX not yet */
};
struct cedge { uint32_t to, next, cost; };      /* cost: index into CG.pool */
struct cself { uint32_t file, next, cost, frame; };
struct cnode { uint32_t func, parent; };
struct cg_emit { uint32_t node, self; uint64_t v; };   /* own cost v of self record self at node */
struct cg_work { uint32_t parent, to; uint64_t b; bool cut; }; /* weight b arriving at function to */
struct cg_col;

static struct {
	uint32_t nev, evcap;
	char **evname;
	strmap str;                  /* file, function and object names */
	strmap names[3];             /* name compression: files, functions, objects */
	uint32_t *ids[3];
	uint32_t idcap[3];
	strmap funcs;                /* (file, name) -> function */
	struct cfunc *f;
	uint32_t nf, fcap;
	strmap edge_map, self_map;
	struct cedge *e;
	uint32_t ne, ecap;
	struct cself *s;
	uint32_t ns, scap;
	uint64_t *pool;              /* cost vectors, nev each */
	uint32_t npool, poolcap;
	struct cnode *node;
	uint32_t nnode, nodecap;
	uint64_t *summary, *totals;  /* the sums of the summary: and totals: lines */
	uint32_t nsummary, ntotals;
	bool by_callgrind;           /* "creator: callgrind-...": it ends in totals: */
	uint64_t *prevcost;          /* the last cost line's costs */
	uint32_t ev;                 /* the event the tree is grown by */
	uint32_t *fr;
	uint32_t frcap;
	uint64_t line;
	/* the tree (cg_tree) */
	uint32_t *scc, nscc, *memb, *next_memb;   /* components, their members */
	uint64_t *capself, *capedge, *erem;       /* what is left of costs, calls, arrivals */
	uint64_t *ghost;                          /* what cut calls bring a component (cg_cut) */
	uint32_t cutframe;                        /* "[calls not grown]", plus 1; 0 none yet */
	uint32_t *fstamp, *fnode, stamp;          /* a function's node in the current component */
	struct cg_col *col;
	uint32_t ncol, colcap;
	struct cg_emit *emit;
	uint32_t nemit, emitcap;
	struct cg_work *work;
	uint32_t nwork, workcap, maxnode;
} CG;

enum { N_FILE, N_FN, N_OBJ };

static uint32_t cg_str(const char *p, size_t n) { return strmap_intern(&CG.str, p, n, NULL); }

/* A name with compression: "(id) name" defines id, "(id)" uses it. */
static uint32_t cg_name(int table, char *v, size_t n)
{
	while (n && (*v == ' ' || *v == '\t')) v++, n--;
	if (!n || *v != '(') return cg_str(v, n);
	size_t i = 1;
	while (i < n && v[i] >= '0' && v[i] <= '9') i++;
	if (i == 1 || i >= n || v[i] != ')') return cg_str(v, n);
	sstr id = { v + 1, i - 1 };
	size_t rest = i + 1;
	while (rest < n && (v[rest] == ' ' || v[rest] == '\t')) rest++;
	int64_t k = strmap_find(&CG.names[table], id.p, id.n);
	if (rest >= n) {
		if (k < 0) die_at(V.fname, CG.line, "name (%.*s) used before it is defined", (int)id.n, id.p);
		return CG.ids[table][k];
	}
	uint32_t s = cg_str(v + rest, n - rest);
	if (k >= 0) {
		if (CG.ids[table][k] != s)
			die_at(V.fname, CG.line, "name (%.*s) defined twice, differently", (int)id.n, id.p);
		return s;
	}
	uint32_t j = strmap_intern(&CG.names[table], id.p, id.n, NULL);
	grow_array((void **)&CG.ids[table], &CG.idcap[table], j + 1, sizeof *CG.ids[table]);
	CG.ids[table][j] = s;
	return s;
}

static uint32_t cg_costvec(void)
{
	uint32_t at = CG.npool;
	if ((uint64_t)CG.npool + CG.nev >= UINT32_MAX) die_at(V.fname, CG.line, "too many costs");
	grow_array((void **)&CG.pool, &CG.poolcap, CG.npool + CG.nev, sizeof *CG.pool);
	memset(CG.pool + at, 0, CG.nev * sizeof *CG.pool);
	CG.npool += CG.nev;
	return at;
}

static uint32_t cg_func(uint32_t file, uint32_t name, uint32_t obj)
{
	uint32_t key[2] = { file, name };
	bool added;
	uint32_t i = strmap_intern(&CG.funcs, key, sizeof key, &added);
	if (added) {
		struct cfunc *f = VEC_PUSH(CG.f, CG.nf, CG.fcap);
		memset(f, 0, sizeof *f);
		f->name = name;
		f->file = file;
		f->obj = obj;
		f->edges = f->selfs = f->nodes = f->frame = UINT32_MAX;
	} else if (CG.f[i].obj == UINT32_MAX) {
		CG.f[i].obj = obj;
	}
	return i;
}

static void cg_add(uint32_t cost, const uint64_t *v)
{
	for (uint32_t i = 0; i < CG.nev; i++)
		if (__builtin_add_overflow(CG.pool[cost + i], v[i], &CG.pool[cost + i]))
			die_at(V.fname, CG.line, "costs of %s add up beyond 64 bits", CG.evname[i]);
}

/* The own costs of function fn under file (fl=, fi= or fe=). */
static void cg_self(uint32_t fn, uint32_t file, const uint64_t *v)
{
	uint32_t key[2] = { fn, file };
	bool added;
	uint32_t i = strmap_intern(&CG.self_map, key, sizeof key, &added);
	if (added) {
		struct cself *s = VEC_PUSH(CG.s, CG.ns, CG.scap);
		s->file = file;
		s->cost = cg_costvec();
		s->frame = UINT32_MAX;
		s->next = CG.f[fn].selfs;
		CG.f[fn].selfs = i;
	}
	cg_add(CG.s[i].cost, v);
}

static void cg_call(uint32_t from, uint32_t to, const uint64_t *v)
{
	uint32_t key[2] = { from, to };
	bool added;
	uint32_t i = strmap_intern(&CG.edge_map, key, sizeof key, &added);
	if (added) {
		struct cedge *e = VEC_PUSH(CG.e, CG.ne, CG.ecap);
		e->to = to;
		e->cost = cg_costvec();
		e->next = UINT32_MAX;
		/* appended, so that callees are visited in order of appearance */
		struct cfunc *f = &CG.f[from];
		if (f->edges == UINT32_MAX) f->edges = i;
		else CG.e[f->edges_last].next = i;
		f->edges_last = i;
		CG.f[to].called = true;
	}
	cg_add(CG.e[i].cost, v);
}

/* A cost line: positions (npos of them: numbers, 0x hex, +N, -N, *), then
 * up to nev costs.  Returns false when it is not one. */
static bool cg_costs(char *p, size_t n, uint32_t npos, uint64_t *prev, uint64_t *out)
{
	char *e = p + n;
	for (uint32_t i = 0; i < npos; i++) {
		while (p < e && (*p == ' ' || *p == '\t')) p++;
		if (p >= e) return false;
		uint64_t v = 0;
		if (*p == '*') {
			v = prev[i];
			p++;
		} else if (*p == '+' || *p == '-') {
			bool neg = *p == '-';
			p++;
			uint64_t d = 0;
			int base = 10;
			if (e - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) base = 16, p += 2;
			char *q = p;
			d = strtoull(p, &q, base);
			if (q == p) return false;
			p = q;
			v = neg ? prev[i] - d : prev[i] + d;
		} else if (*p >= '0' && *p <= '9') {
			char *q = p;
			int base = (e - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) ? 16 : 10;
			v = strtoull(p, &q, base);
			if (q == p) return false;
			p = q;
		} else {
			return false;
		}
		if (p < e && *p != ' ' && *p != '\t') return false;
		prev[i] = v;
	}
	for (uint32_t i = 0; i < CG.nev; i++) {
		while (p < e && (*p == ' ' || *p == '\t')) p++;
		out[i] = 0;
		if (p >= e) continue;
		/* "*", "+N", "-N": the previous cost line's cost, or relative to
		 * it (what speedscope reads too; callgrind itself writes numbers) */
		char rel = *p == '*' || *p == '+' || *p == '-' ? *p++ : 0;
		uint64_t v = 0;
		if (rel != '*') {
			if (p >= e || *p < '0' || *p > '9') return false;
			while (p < e && *p >= '0' && *p <= '9')
				if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, (uint64_t)(*p++ - '0'), &v))
					die_at(V.fname, CG.line, "a cost beyond 64 bits");
		}
		if (p < e && *p != ' ' && *p != '\t') return false;
		uint64_t base = CG.prevcost ? CG.prevcost[i] : 0;
		if (rel == '*') v = base;
		else if (rel == '+' && __builtin_add_overflow(base, v, &v))
			die_at(V.fname, CG.line, "a cost beyond 64 bits");
		else if (rel == '-') {
			if (v > base) die_at(V.fname, CG.line, "a cost below zero (%llu less %llu)",
					     (unsigned long long)base, (unsigned long long)v);
			v = base - v;
		}
		out[i] = v;
	}
	if (CG.prevcost) memcpy(CG.prevcost, out, CG.nev * sizeof *out);
	while (p < e && (*p == ' ' || *p == '\t')) p++;
	return p == e;
}

static bool prefix(const char *line, size_t len, const char *key, char **val, size_t *vn)
{
	size_t k = strlen(key);
	if (len < k || memcmp(line, key, k)) return false;
	*val = (char *)line + k;
	*vn = len - k;
	return true;
}

static void cg_read(input *in)
{
	builder_source_tool(V.b, "callgrind");
	char *line, *v;
	size_t len, vn;
	uint32_t npos = 1;
	uint64_t prev[2] = { 0, 0 };
	uint64_t *costs = NULL;
	int64_t fn = -1;
	uint32_t fl = cg_str("???", 3), cur_file = fl, obj = UINT32_MAX, cobj = UINT32_MAX;
	int64_t cfile = -1, cfn = -1;
	bool pending_call = false, any = false;
	while ((line = input_line(in, &len))) {
		CG.line = input_lineno(in);
		if (len && line[len - 1] == '\r') line[--len] = 0;
		size_t s = 0;
		while (s < len && (line[s] == ' ' || line[s] == '\t')) s++;
		if (s == len || line[s] == '#') continue;
		if (pending_call) {
			/* the line after calls=: the callee's inclusive costs */
			if (!costs || !cg_costs(line, len, npos, prev, costs))
				die_at(V.fname, CG.line, "calls= is not followed by a cost line");
			if (fn < 0) die_at(V.fname, CG.line, "a call before any fn=");
			uint32_t to = cg_func(cfile >= 0 ? (uint32_t)cfile : cur_file, (uint32_t)cfn,
					      cobj != UINT32_MAX ? cobj : obj);
			cg_call((uint32_t)fn, to, costs);
			pending_call = false;
			cfile = cfn = -1;
			cobj = UINT32_MAX;
			continue;
		}
		if ((line[0] >= '0' && line[0] <= '9') || line[0] == '+' || line[0] == '-' || line[0] == '*') {
			if (!costs) die_at(V.fname, CG.line, "a cost line before the events: line (what the costs measure)");
			if (!cg_costs(line, len, npos, prev, costs))
				die_at(V.fname, CG.line, "not a cost line (%u position%s, then up to %u costs): %.*s", npos,
				       npos == 1 ? "" : "s", CG.nev, (int)(len > 60 ? 60 : len), line);
			if (fn < 0) die_at(V.fname, CG.line, "a cost line before any fn=");
			cg_self((uint32_t)fn, cur_file, costs);
			any = true;
			continue;
		}
		if (prefix(line, len, "fn=", &v, &vn)) {
			fn = cg_func(fl, cg_name(N_FN, v, vn), obj);
			CG.f[fn].defined = true;
			cur_file = fl;
		} else if (prefix(line, len, "fl=", &v, &vn)) {
			fl = cur_file = cg_name(N_FILE, v, vn);
		} else if (prefix(line, len, "fi=", &v, &vn) || prefix(line, len, "fe=", &v, &vn)) {
			if (fn < 0) die_at(V.fname, CG.line, "fi= or fe= before any fn=");
			cur_file = cg_name(N_FILE, v, vn);
		} else if (prefix(line, len, "ob=", &v, &vn)) {
			obj = cg_name(N_OBJ, v, vn);
		} else if (prefix(line, len, "cob=", &v, &vn)) {
			cobj = cg_name(N_OBJ, v, vn);
		} else if (prefix(line, len, "cfi=", &v, &vn) || prefix(line, len, "cfl=", &v, &vn)) {
			cfile = cg_name(N_FILE, v, vn);
		} else if (prefix(line, len, "cfn=", &v, &vn)) {
			cfn = cg_name(N_FN, v, vn);
		} else if (prefix(line, len, "calls=", &v, &vn)) {
			if (cfn < 0) die_at(V.fname, CG.line, "calls= without cfn= before it");
			pending_call = true;
		} else if (prefix(line, len, "jfi=", &v, &vn)) {
			cg_name(N_FILE, v, vn);
		} else if (prefix(line, len, "jfn=", &v, &vn)) {
			cg_name(N_FN, v, vn);
		} else if (prefix(line, len, "jump=", &v, &vn) || prefix(line, len, "jcnd=", &v, &vn)) {
			/* jumps: not part of the call graph */
		} else if (prefix(line, len, "events:", &v, &vn)) {
			if (CG.nev) die_at(V.fname, CG.line, "a second events: line");
			char *e = v + vn;
			while (v < e) {
				while (v < e && (*v == ' ' || *v == '\t')) v++;
				char *w = v;
				while (v < e && *v != ' ' && *v != '\t') v++;
				if (v == w) continue;
				for (uint32_t i = 0; i < CG.nev; i++)
					if (strlen(CG.evname[i]) == (size_t)(v - w) && !memcmp(CG.evname[i], w, (size_t)(v - w)))
						die_at(V.fname, CG.line, "events: %.*s named twice", (int)(v - w), w);
				*VEC_PUSH(CG.evname, CG.nev, CG.evcap) = xmemdup(w, (size_t)(v - w));
			}
			if (!CG.nev) die_at(V.fname, CG.line, "events: names no event");
			costs = xmalloc(CG.nev * sizeof *costs);
			CG.prevcost = xcalloc(CG.nev, sizeof *CG.prevcost);
		} else if (prefix(line, len, "positions:", &v, &vn)) {
			npos = 0;
			char *e = v + vn;
			while (v < e) {
				while (v < e && (*v == ' ' || *v == '\t')) v++;
				char *w = v;
				while (v < e && *v != ' ' && *v != '\t') v++;
				if (v > w) {
					if (!((v - w == 4 && !memcmp(w, "line", 4)) || (v - w == 5 && !memcmp(w, "instr", 5))))
						die_at(V.fname, CG.line, "positions: %.*s: callgrind writes instr and line", (int)(v - w), w);
					npos++;
				}
			}
			if (npos < 1 || npos > 2) die_at(V.fname, CG.line, "positions: one or two of instr and line");
		} else if (prefix(line, len, "summary:", &v, &vn) || prefix(line, len, "totals:", &v, &vn)) {
			/* summed over the file's parts (--combine-dumps) */
			bool sum = line[0] == 's';
			if (!CG.nev) die_at(V.fname, CG.line, "%s before events:", sum ? "summary:" : "totals:");
			uint64_t **acc = sum ? &CG.summary : &CG.totals;
			if (!*acc) *acc = xcalloc(CG.nev, sizeof **acc);
			uint64_t dummy = 0, *keep = CG.prevcost;
			CG.prevcost = NULL;
			bool ok = cg_costs(v, vn, 0, &dummy, costs);
			CG.prevcost = keep;
			if (!ok) die_at(V.fname, CG.line, "%s not a list of costs", sum ? "summary:" : "totals:");
			for (uint32_t i = 0; i < CG.nev; i++)
				if (__builtin_add_overflow((*acc)[i], costs[i], &(*acc)[i]))
					die_at(V.fname, CG.line, "the %s lines add up beyond 64 bits", sum ? "summary:" : "totals:");
			if (sum) CG.nsummary++;
			else CG.ntotals++;
		} else if (prefix(line, len, "creator:", &v, &vn)) {
			while (vn && *v == ' ') v++, vn--;
			CG.by_callgrind = vn >= 9 && !memcmp(v, "callgrind", 9);
		} else if (prefix(line, len, "cmd:", &v, &vn)) {
			while (vn && *v == ' ') v++, vn--;
			builder_source_str(V.b, "command", v, vn);
		} else if (memchr(line, ':', len) && !memchr(line, '=', len)) {
			/* version:, creator:, pid:, part:, desc:, event:, thread: ... */
		} else {
			die_at(V.fname, CG.line, "not a line of callgrind's format: %.*s", (int)(len > 60 ? 60 : len), line);
		}
	}
	if (pending_call) die_at(V.fname, CG.line, "the file ends after calls=");
	if (input_lineno(in) == 0) die_empty_input(V.fname);
	if (!CG.nev) die_at(V.fname, 0, "no events: line (what the costs measure)");
	if (CG.by_callgrind && !CG.ntotals)
		die_at(V.fname, CG.line, "no totals: line, which callgrind writes last: the file is cut short");
	if (!any && !CG.ne) die_no_stacks(V.fname, "no costs");
	free(costs);
}

static uint32_t cg_frame(uint32_t fi, uint32_t file, bool inlined)
{
	const struct cfunc *f = &CG.f[fi];
	size_t nn, fn_n, on;
	const char *name = strmap_key(&CG.str, f->name, &nn);
	const char *fname = strmap_key(&CG.str, file, &fn_n);
	const char *oname = f->obj != UINT32_MAX ? strmap_key(&CG.str, f->obj, &on) : (on = 9, "[unknown]");
	bool nofile = fn_n == 3 && !memcmp(fname, "???", 3);
	builder_frame b = {
		.func = { name, nn },
		.dso = builder_dso(V.b, oname, on, false),
		.kind = FK_USER,
		.func_resolved = true,
		.inlined = inlined,
		.inline_depth = -1,
		.srcline = nofile ? SSTR_NULL : (sstr){ fname, fn_n },
	};
	return builder_frame_add(V.b, &b);
}

/* A call names its callee by cfi= and cfn=; callgrind may name the file
 * otherwise than the callee's own fl= ("/src/a.c" for "a.c"): a callee
 * that no fn= defines is the one function of that name and object that
 * one does, when there is one. */
static void cg_link(void)
{
	strmap by;
	strmap_init(&by);
	uint32_t *def = NULL, ndef = 0, defcap = 0;
	for (uint32_t f = 0; f < CG.nf; f++) {
		if (!CG.f[f].defined) continue;
		uint32_t key[2] = { CG.f[f].name, CG.f[f].obj };
		bool added;
		uint32_t i = strmap_intern(&by, key, sizeof key, &added);
		if (added) *VEC_PUSH(def, ndef, defcap) = f;
		else def[i] = UINT32_MAX; /* two: which one is not known */
	}
	for (uint32_t e = 0; e < CG.ne; e++) {
		const struct cfunc *t = &CG.f[CG.e[e].to];
		if (t->defined) continue;
		uint32_t key[2] = { t->name, t->obj };
		int64_t i = strmap_find(&by, key, sizeof key);
		if (i >= 0 && def[i] != UINT32_MAX) CG.e[e].to = def[i];
	}
	strmap_free(&by);
	free(def);
}

/* The functions' strongly connected components of the call graph (Tarjan,
 * iterative): CG.scc[f] the component of f, numbered so that a caller's
 * component has a higher number than its callees' (callers first when
 * counting down); CG.memb/CG.next_memb list each component's members in
 * order of appearance. */
static void cg_sccs(void)
{
	uint32_t nf = CG.nf, idx = 0;
	uint32_t *index = xmalloc((nf ? nf : 1) * sizeof *index), *low = xmalloc((nf ? nf : 1) * sizeof *low);
	uint32_t *stk = xmalloc((nf ? nf : 1) * sizeof *stk), nstk = 0;
	bool *on = xcalloc(nf ? nf : 1, sizeof *on);
	struct dfs { uint32_t f, e; } *call = xmalloc((nf ? nf : 1) * sizeof *call);
	CG.scc = xmalloc((nf ? nf : 1) * sizeof *CG.scc);
	for (uint32_t i = 0; i < nf; i++) index[i] = UINT32_MAX;
	CG.nscc = 0;
	for (uint32_t r = 0; r < nf; r++) {
		if (index[r] != UINT32_MAX) continue;
		uint32_t ncall = 0;
		call[ncall++] = (struct dfs){ r, CG.f[r].edges };
		index[r] = low[r] = idx++;
		stk[nstk++] = r;
		on[r] = true;
		while (ncall) {
			struct dfs *t = &call[ncall - 1];
			if (t->e != UINT32_MAX) {
				uint32_t to = CG.e[t->e].to;
				t->e = CG.e[t->e].next;
				if (index[to] == UINT32_MAX) {
					index[to] = low[to] = idx++;
					stk[nstk++] = to;
					on[to] = true;
					call[ncall++] = (struct dfs){ to, CG.f[to].edges };
				} else if (on[to] && index[to] < low[t->f]) {
					low[t->f] = index[to];
				}
				continue;
			}
			uint32_t f = t->f;
			if (low[f] == index[f]) {
				uint32_t m;
				do {
					m = stk[--nstk];
					on[m] = false;
					CG.scc[m] = CG.nscc;
				} while (m != f);
				CG.nscc++;
			}
			ncall--;
			if (ncall && low[f] < low[call[ncall - 1].f]) low[call[ncall - 1].f] = low[f];
		}
	}
	CG.memb = xmalloc((CG.nscc ? CG.nscc : 1) * sizeof *CG.memb);
	CG.next_memb = xmalloc((nf ? nf : 1) * sizeof *CG.next_memb);
	for (uint32_t s = 0; s < CG.nscc; s++) CG.memb[s] = UINT32_MAX;
	for (uint32_t f = nf; f-- > 0;) {
		CG.next_memb[f] = CG.memb[CG.scc[f]];
		CG.memb[CG.scc[f]] = f;
	}
	free(index);
	free(low);
	free(stk);
	free(on);
	free(call);
}

/* The share of v that is w of total: v * w / total, and its remainder. */
static uint64_t cg_part(uint64_t v, uint64_t w, uint64_t total, uint64_t *rem)
{
	unsigned __int128 p = (unsigned __int128)v * w;
	*rem = (uint64_t)(p % total);
	return (uint64_t)(p / total);
}

struct cg_col { uint32_t kind, id, member; uint64_t take, rem; };

static int cg_col_cmp(const void *a, const void *b)
{
	const struct cg_col *x = *(struct cg_col *const *)a, *y = *(struct cg_col *const *)b;
	if (x->rem != y->rem) return x->rem > y->rem ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* One component's share of the weight that arrives at it: budget b over
 * its columns (each member's own costs, each call that leaves the
 * component) in proportion to what is left of them, as whole numbers
 * (largest remainders) that never exceed what is left, so that the last
 * share takes exactly what remains. */
static uint32_t cg_columns(uint32_t s, uint64_t *R)
{
	CG.ncol = 0;
	*R = 0;
	for (uint32_t m = CG.memb[s]; m != UINT32_MAX; m = CG.next_memb[m]) {
		for (uint32_t k = CG.f[m].selfs; k != UINT32_MAX; k = CG.s[k].next)
			if (CG.capself[k]) {
				*VEC_PUSH(CG.col, CG.ncol, CG.colcap) = (struct cg_col){ 0, k, m, 0, 0 };
				*R += CG.capself[k];
			}
		for (uint32_t e = CG.f[m].edges; e != UINT32_MAX; e = CG.e[e].next)
			if (CG.scc[CG.e[e].to] != s && CG.capedge[e]) {
				*VEC_PUSH(CG.col, CG.ncol, CG.colcap) = (struct cg_col){ 1, e, m, 0, 0 };
				*R += CG.capedge[e];
			}
	}
	return CG.ncol;
}

/* Weight b that arrives at component s (a root's: all of it) shared out
 * among its columns (CG.col[].take); returns what is shared out, scaled
 * down when the callers send more than the component holds. */
static uint64_t cg_share_out(uint32_t s, uint64_t b, bool root)
{
	uint64_t R;
	cg_columns(s, &R);
	if (!root) {
		/* what the callers send, scaled down to what the component
		 * itself holds when its callers send more */
		uint64_t E = CG.erem[s], rem;
		CG.erem[s] = E >= b ? E - b : 0;
		if (E > R) b = b >= E ? R : cg_part(b, R, E, &rem);
	}
	if (b > R) b = R;
	if (!b) return 0;
	uint64_t given = 0;
	struct cg_col **by = xmalloc(CG.ncol * sizeof *by);
	uint32_t nby = 0;
	for (uint32_t j = 0; j < CG.ncol; j++) {
		struct cg_col *c = &CG.col[j];
		uint64_t cap = c->kind ? CG.capedge[c->id] : CG.capself[c->id];
		c->take = cg_part(b, cap, R, &c->rem);
		given += c->take;
		if (c->rem) by[nby++] = c;
	}
	qsort(by, nby, sizeof *by, cg_col_cmp);
	for (uint32_t j = 0; given < b && j < nby; j++, given++) by[j]->take++;
	free(by);
	for (uint32_t j = 0; j < CG.ncol; j++) {
		struct cg_col *c = &CG.col[j];
		if (!c->kind) CG.capself[c->id] -= c->take;
		else CG.capedge[c->id] -= c->take;
	}
	return b;
}

/* Weight b arrives at function h under node parent, in a call lighter
 * than the floor: h's place, with the own cost of h it brings; the rest
 * (its calls', and in a recursion its partners' own costs) is one frame
 * "[calls not grown]" under it, and what it brings to the callees is
 * taken from them at their turn (CG.ghost), so that nothing counts twice.
 * The weight stays under its callers. */
static bool cg_cut(uint32_t parent, uint32_t h, uint64_t b)
{
	uint32_t s = CG.scc[h];
	if (!cg_share_out(s, b, false)) return true;
	if (CG.nnode >= CG.maxnode) return false;
	*VEC_PUSH(CG.node, CG.nnode, CG.nodecap) = (struct cnode){ .func = h, .parent = parent };
	uint32_t node = CG.nnode - 1;
	uint64_t rest = 0;
	for (uint32_t j = 0; j < CG.ncol; j++) {
		struct cg_col *c = &CG.col[j];
		if (!c->take) continue;
		if (!c->kind && c->member == h) {
			*VEC_PUSH(CG.emit, CG.nemit, CG.emitcap) = (struct cg_emit){ node, c->id, c->take };
			continue;
		}
		if (c->kind) CG.ghost[CG.scc[CG.e[c->id].to]] += c->take;
		rest += c->take;
	}
	if (rest) *VEC_PUSH(CG.emit, CG.nemit, CG.emitcap) = (struct cg_emit){ node, UINT32_MAX, rest };
	return true;
}

/* Weight b arrives at function h (its component's entry) under node
 * parent: the component's spanning tree from h (each member once, along
 * the calls inside it: a function is never entered twice on a path), its
 * members' own costs recorded, the calls that leave it pushed as work.
 * False when the tree would grow beyond the node limit. */
static bool cg_arrive(uint32_t parent, uint32_t h, uint64_t b, bool root, uint64_t floor_w)
{
	uint32_t s = CG.scc[h];
	b = cg_share_out(s, b, root);
	if (!b) return true;
	/* the spanning tree of the component from h */
	CG.stamp++;
	uint32_t *dfs = NULL, nd = 0, dcap = 0;
	if (CG.nnode >= CG.maxnode) return false;
	*VEC_PUSH(CG.node, CG.nnode, CG.nodecap) = (struct cnode){ .func = h, .parent = parent };
	CG.fstamp[h] = CG.stamp;
	CG.fnode[h] = CG.nnode - 1;
	*VEC_PUSH(dfs, nd, dcap) = h;
	uint32_t *eat = NULL, eatcap = 0;
	grow_array((void **)&eat, &eatcap, 1, sizeof *eat);
	eat[0] = CG.f[h].edges;
	while (nd) {
		uint32_t f = dfs[nd - 1];
		uint32_t e = eat[nd - 1];
		if (e == UINT32_MAX) {
			nd--;
			continue;
		}
		eat[nd - 1] = CG.e[e].next;
		uint32_t to = CG.e[e].to;
		if (CG.scc[to] != s || CG.fstamp[to] == CG.stamp) continue;
		if (CG.nnode >= CG.maxnode) {
			free(dfs);
			free(eat);
			return false;
		}
		*VEC_PUSH(CG.node, CG.nnode, CG.nodecap) = (struct cnode){ .func = to, .parent = CG.fnode[f] };
		CG.fstamp[to] = CG.stamp;
		CG.fnode[to] = CG.nnode - 1;
		*VEC_PUSH(dfs, nd, dcap) = to;
		grow_array((void **)&eat, &eatcap, nd, sizeof *eat);
		eat[nd - 1] = CG.f[to].edges;
	}
	free(dfs);
	free(eat);
	/* in reverse, so that the work stack takes the calls in order */
	for (uint32_t j = CG.ncol; j-- > 0;) {
		struct cg_col *c = &CG.col[j];
		if (!c->take) continue;
		uint32_t node = CG.fnode[c->member];
		if (!c->kind)
			*VEC_PUSH(CG.emit, CG.nemit, CG.emitcap) = (struct cg_emit){ node, c->id, c->take };
		else /* a call under the floor is not grown (cg_cut) */
			*VEC_PUSH(CG.work, CG.nwork, CG.workcap) =
				(struct cg_work){ node, CG.e[c->id].to, c->take, c->take < floor_w };
	}
	return true;
}

/* The tree of event ev with calls under floor_w not grown; false when it
 * grows beyond the node limit. */
static bool cg_tree(uint32_t ev, uint64_t floor_w)
{
	for (uint32_t k = 0; k < CG.ns; k++) CG.capself[k] = CG.pool[CG.s[k].cost + ev];
	for (uint32_t s = 0; s < CG.nscc; s++) CG.erem[s] = 0;
	for (uint32_t f = 0; f < CG.nf; f++)
		for (uint32_t e = CG.f[f].edges; e != UINT32_MAX; e = CG.e[e].next) {
			uint64_t c = CG.pool[CG.e[e].cost + ev];
			bool inside = CG.scc[CG.e[e].to] == CG.scc[f];
			CG.capedge[e] = inside ? 0 : c;
			if (!inside && __builtin_add_overflow(CG.erem[CG.scc[CG.e[e].to]], c, &CG.erem[CG.scc[CG.e[e].to]]))
				die_at(V.fname, 0, "the calls into %s add up beyond 64 bits",
				       strmap_key(&CG.str, CG.f[CG.e[e].to].name, &(size_t){ 0 }));
		}
	CG.nnode = CG.nemit = CG.nwork = 0;
	for (uint32_t s = 0; s < CG.nscc; s++) CG.ghost[s] = 0;
	/* callers' components first: each gets all its callers send (what the
	 * cut calls bring it taken away first) before what is left of it (all
	 * of it for a function nobody calls) is grown as a root */
	for (uint32_t s = CG.nscc; s-- > 0;) {
		if (CG.ghost[s]) {
			uint64_t g = CG.ghost[s];
			CG.ghost[s] = 0;
			if (cg_share_out(s, g, false))
				for (uint32_t j = 0; j < CG.ncol; j++)
					if (CG.col[j].kind && CG.col[j].take)
						CG.ghost[CG.scc[CG.e[CG.col[j].id].to]] += CG.col[j].take;
		}
		uint64_t R;
		cg_columns(s, &R);
		if (!R) continue;
		if (!cg_arrive(UINT32_MAX, CG.memb[s], R, true, floor_w)) return false;
		while (CG.nwork) {
			struct cg_work w = CG.work[--CG.nwork];
			if (!(w.cut ? cg_cut(w.parent, w.to, w.b) : cg_arrive(w.parent, w.to, w.b, false, floor_w)))
				return false;
		}
	}
	return true;
}

/* The stacks of event ev (see above). */
static void cg_event_stacks(uint32_t ev, const uint32_t *midx, num *vals, uint64_t **share_p, uint32_t *sharecap)
{
	(void)share_p, (void)sharecap;
	if (!CG.scc) {
		cg_link();
		cg_sccs();
		CG.capself = xmalloc((CG.ns ? CG.ns : 1) * sizeof *CG.capself);
		CG.capedge = xmalloc((CG.ne ? CG.ne : 1) * sizeof *CG.capedge);
		CG.erem = xmalloc((CG.nscc ? CG.nscc : 1) * sizeof *CG.erem);
		CG.ghost = xmalloc((CG.nscc ? CG.nscc : 1) * sizeof *CG.ghost);
		CG.fstamp = xcalloc(CG.nf ? CG.nf : 1, sizeof *CG.fstamp);
		CG.fnode = xmalloc((CG.nf ? CG.nf : 1) * sizeof *CG.fnode);
	}
	uint64_t total = 0;
	for (uint32_t k = 0; k < CG.ns; k++) total += CG.pool[CG.s[k].cost + ev]; /* checked in cg_stacks */
	/* every call grown when the tree stays under the node limit; else
	 * calls under a floor, raised tenfold until it does */
	CG.maxnode = CG_MAX_NODES;
	uint64_t floor_w = 1;
	double fr = 1e-7;
	while (!cg_tree(ev, floor_w)) {
		if (fr > 1e-2) die_at(V.fname, 0, "the call tree grows beyond %u nodes", CG_MAX_NODES);
		floor_w = (uint64_t)((double)total * fr) + 1;
		fr *= 10;
	}
	builder_ctx ctx = { .event = 0 };
	for (uint32_t e = 0; e < CG.nev; e++) vals[e] = num_u(0);
	for (uint32_t i = 0; i < CG.nemit; i++) {
		const struct cg_emit *x = &CG.emit[i];
		uint32_t fi = CG.node[x->node].func;
		bool cut = x->self == UINT32_MAX;
		const struct cself *sf = cut ? NULL : &CG.s[x->self];
		bool inl = !cut && sf->file != CG.f[fi].file;
		uint32_t d = 0;
		for (uint32_t p = x->node; p != UINT32_MAX; p = CG.node[p].parent) d++;
		grow_array((void **)&CG.fr, &CG.frcap, d + 2, sizeof *CG.fr);
		uint32_t m = 0;
		if (inl) CG.fr[m++] = cg_frame(fi, sf->file, true);
		if (cut) {
			if (!CG.cutframe) {
				builder_frame u = {
					.func = sstr_c("[calls not grown]"),
					.dso = builder_dso(V.b, "[unknown]", 9, false),
					.kind = FK_USER,
					.func_resolved = true,
					.inline_depth = -1,
				};
				CG.cutframe = builder_frame_add(V.b, &u) + 1;
			}
			CG.fr[m++] = CG.cutframe - 1;
		}
		for (uint32_t p = x->node; p != UINT32_MAX; p = CG.node[p].parent)
			CG.fr[m++] = cg_frame(CG.node[p].func, CG.f[CG.node[p].func].file, false);
		vals[ev] = num_u(x->v);
		builder_stack(V.b, &ctx, CG.fr, m, midx, vals, CG.nev);
		V.nstacks++;
	}
	vals[ev] = num_u(0);
}

static void cg_stacks(void)
{
	builder_event(V.b, "callgrind", "probe", "event", CG.evname[0], NULL);
	uint32_t *midx = xmalloc(CG.nev * sizeof *midx);
	for (uint32_t i = 0; i < CG.nev; i++) midx[i] = builder_metric(V.b, CG.evname[i], NULL);
	const char *how = "reconstructed from callgrind's call graph (each call's share of its caller's cost, "
			  "per event); each function's own cost and total callgrind_annotate's where the tree is grown whole";
	builder_source_str(V.b, "stacks", how, strlen(how));
	num *vals = xmalloc(CG.nev * sizeof *vals);
	uint64_t *share = NULL;
	uint32_t sharecap = 0;
	for (uint32_t e = 0; e < CG.nev; e++) cg_event_stacks(e, midx, vals, &share, &sharecap);
	/* the file's own totals, when it has them, are what was read: totals:
	 * is the sum of the cost lines; summary: may be more (costs that no
	 * line holds, the format says), never less, and is the sum when there
	 * is no totals: line */
	for (uint32_t e = 0; e < CG.nev && (CG.ntotals || CG.nsummary); e++) {
		uint64_t t = 0;
		for (uint32_t s = 0; s < CG.ns; s++)
			if (__builtin_add_overflow(t, CG.pool[CG.s[s].cost + e], &t))
				die_at(V.fname, 0, "the costs of %s add up beyond 64 bits", CG.evname[e]);
		if (CG.ntotals && t != CG.totals[e])
			die_at(V.fname, 0, "the costs of %s add up to %llu, but the file's totals say %llu",
			       CG.evname[e], (unsigned long long)t, (unsigned long long)CG.totals[e]);
		if (CG.nsummary && (CG.ntotals ? t > CG.summary[e] : t != CG.summary[e]))
			die_at(V.fname, 0, "the costs of %s add up to %llu, but the file's summary says %llu",
			       CG.evname[e], (unsigned long long)t, (unsigned long long)CG.summary[e]);
	}
	free(share);
	free(vals);
	free(midx);
	if (!V.nstacks) die_no_stacks(V.fname, "no costs");
}

/* ---- the file --------------------------------------------------------------- */

static enum format sniff(input *in)
{
	const void *p;
	size_t n = input_peek(in, &p, 4096);
	const char *s = p;
	if (n == 0) die_empty_input(V.fname);
	size_t i = 0;
	while (i < n && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t')) i++;
	if (i < n && s[i] == '{' && memmem(s, n, "\"dhatFileVersion\"", 17)) return F_DHAT;
	if (n >= 5 && (!memcmp(s, "desc:", 5) || !memcmp(s, "cmd:", 4))) {
		if (memmem(s, n, "\ntime_unit:", 11) || memmem(s, n, "\nsnapshot=", 10)) return F_MASSIF;
	}
	if ((n >= 18 && !memcmp(s, "# callgrind format", 18)) || memmem(s, n, "\nevents:", 8) ||
	    (n >= 7 && !memcmp(s, "events:", 7)))
		return F_CALLGRIND;
	die_at(V.fname, 0, "not a massif, DHAT or callgrind file (massif's start with \"desc:\", DHAT's are "
	       "JSON with \"dhatFileVersion\", callgrind's have an \"events:\" line; --format forces one)");
}

static void read_file(const char *path)
{
	input *in = input_open(path);
	V.fname = input_name(in);
	/* one file a process: several are converted apart and merged (several.h) */
	enum format f = V.format ? V.format : sniff(in);
	if (f == F_MASSIF) read_massif(in);
	else if (f == F_DHAT) read_dhat(in);
	else {
		cg_read(in);
		cg_stacks();
	}
	input_close(in);
}

/* its options, for getopt_long and the registry (readers/registry.h) */
enum { OPT_FORMAT = 256, OPT_SNAPSHOT, OPT_ALL };
const struct option valgrind_longopts[] = {
	{ "format", required_argument, 0, OPT_FORMAT },
	{ "snapshot", required_argument, 0, OPT_SNAPSHOT },
	{ "all-snapshots", no_argument, 0, OPT_ALL },
	CLI_OUT_LONGOPTS,
	CLI_STD_LONGOPTS,
	{ 0, 0, 0, 0 }
};
const char valgrind_shortopts[] = "o:zhV";

/* the converter valgrind2spaa: argv as it gets it (argv[0] its name); the
 * exit status (readers/readers.h) */
int valgrind_read(int argc, char **argv)
{
	const char *outpath = NULL;
	bool zstd = false;
	int c;
	while ((c = getopt_long(argc, argv, valgrind_shortopts, valgrind_longopts, NULL)) != -1) {
		switch (c) {
		case OPT_FORMAT:
			if (!strcmp(optarg, "massif")) V.format = F_MASSIF;
			else if (!strcmp(optarg, "dhat")) V.format = F_DHAT;
			else if (!strcmp(optarg, "callgrind")) V.format = F_CALLGRIND;
			else usage_error("--format: unknown format '%s' (massif, dhat or callgrind)", optarg);
			break;
		case OPT_SNAPSHOT: V.snapshot = (int64_t)opt_u64("--snapshot", optarg); break;
		case OPT_ALL: V.all_snapshots = true; break;
		CLI_OUT_CASES(outpath, zstd);
		CLI_STD_CASES(help);
		}
	}
	if (V.snapshot >= 0 && V.all_snapshots) usage_error("--snapshot and --all-snapshots exclude each other");
	const char *path = optind < argc ? argv[optind] : "-";
	several_inputs(argv + optind, argc - optind, &path, &outpath, &zstd);
	V.b = builder_new();
	strmap_init(&CG.str);
	for (int i = 0; i < 3; i++) strmap_init(&CG.names[i]);
	strmap_init(&CG.funcs);
	strmap_init(&CG.edge_map);
	strmap_init(&CG.self_map);
	read_file(path);
	if (V.all_snapshots) reader_extra(massif_windows, NULL);
	reader_finish(V.b, outpath, zstd);
	return EXIT_OK;
}
