/* instruments2spaa - Apple Instruments "deep copy" text (a call tree copied
 * as text: Time Profiler, Counters, Allocations) to SPAA.
 *
 * The first line names the tab-separated columns: the total weight
 * ("Weight", "Running Time" or "Bytes Used"), maybe a self weight ("Self
 * Weight", "Self", "Self (ms)") and an allocation count ("Count"), and the
 * symbol ("Symbol Name", or "Symbol Names" whose first row's indentation is
 * the base).  Every other line is one node of the call tree in preorder, its
 * depth the spaces before the symbol.  The nodes still open form a path from
 * the root; a node is closed when a row at its depth or above comes, and then
 * its self weights (the self column, else its total less its children's
 * totals, at least 0, as speedscope reads it) go to the stack of its path;
 * a self of "-" whose children leave part of its total unaccounted for,
 * beyond rounding, gets that part as a child "[unknown]" (callees
 * Instruments hid), so that its total stays the one Instruments shows.
 * Memory holds the open path, the frames and the distinct stacks. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "readers.h"
#include "build.h"
#include "reader.h"
#include "cli.h"
#include "input.h"
#include "num.h"
#include "output.h"
#include "sniff.h"
#include "spaa.h"
#include "util.h"

static const char help[] =
"Usage: instruments2spaa [OPTION]... [FILE]...\n"
"Convert Apple Instruments deep copies (a call tree copied as text from Time\n"
"Profiler, CPU Counters or Allocations) to a SPAA 1.0 profile.  Several FILEs\n"
"are read as one profile (identical stacks summed).  With no FILE, or when\n"
"FILE is -, read standard input (zstd and gzip allowed).\n"
"\n"
"The first line names the columns (Weight or Running Time, Self Weight, Bytes\n"
"Used, Count, Symbol Name); the depth of a row is the spaces before its\n"
"symbol.  A node's own weight goes to the stack of its path: its self column,\n"
"else its total less its children's totals (at least 0); what a self of '-'\n"
"leaves unaccounted for under it (callees Instruments hid) is a frame\n"
"[unknown] under it, so that totals are Instruments'.  Times become cpu_ns\n"
"(nanoseconds), cycles (Kc, Mc, Gc) cycles, bytes (KB, MB, GB: 1024-based)\n"
"alloc_bytes with alloc_count; a figure the unit does not make whole is\n"
"rounded to the nearest integer.\n"
"\n"
"      --derive-self    a node's self weight is its total less its children's\n"
"                       totals even when the copy has a self column, as\n"
"                       speedscope reads it\n"
CLI_HELP_TAIL;

#define MAX_DEPTH 4096  /* levels of the tree */
#define MAX_COLS 64     /* columns of a row */
#define NM 2            /* weights of a node: the total and the count */

enum wkind { W_NONE, W_TIME, W_CYCLES, W_BYTES, NKINDS };

struct level {
	uint32_t frame;
	uint64_t total[NM], child[NM], self;
	bool has_self, self_figure;   /* a self column; a figure in it, not "-" */
	uint64_t line;
	/* the rounding of the figures, doubled (parse_figure): of the total,
	 * of the self, and the sum of the children's totals' (check_whole) */
	uint64_t tot_tol2, self_tol2;
	unsigned __int128 child_tol2;
};

static struct {
	builder *b;
	const char *fname;
	bool derive;
	/* per kind: the event and metrics, declared when first met */
	bool declared[NKINDS];
	uint32_t event[NKINDS], metric[NKINDS][NM];
	uint32_t dso;
	/* the current file */
	int c_total, c_self, c_count, c_sym, c_src;
	enum wkind kind;
	bool names;           /* "Symbol Names": depth from the first row's */
	size_t base;          /* indentation of the first row */
	bool first_row;
	sstr self_unit;       /* "Self (ms)": the unit of bare self figures (in su) */
	char su[32];          /* a copy: the header line's buffer is reused */
	struct level *lv;
	uint32_t depth, cap;
	uint32_t *fr;
	uint32_t frcap;
	uint64_t nrows, nstacks;
	uint64_t lost_count, lost_nodes; /* allocations of nodes of 0 own bytes */
	uint32_t unknown1;    /* the frame of what Instruments hid, plus 1; 0 none yet */
} I;

/* Units: name, kind, and one of it in ns, cycles or bytes. */
static const struct unit {
	const char *name;
	enum wkind kind;
	uint64_t scale;
} units[] = {
	{ "ns", W_TIME, 1 }, { "us", W_TIME, 1000 }, { "\xc2\xb5s", W_TIME, 1000 },
	{ "\xce\xbcs", W_TIME, 1000 }, { "ms", W_TIME, 1000000 }, { "s", W_TIME, 1000000000 },
	{ "min", W_TIME, 60000000000ULL }, { "h", W_TIME, 3600000000000ULL },
	{ "c", W_CYCLES, 1 }, { "cycles", W_CYCLES, 1 }, { "Kc", W_CYCLES, 1000 },
	{ "Mc", W_CYCLES, 1000000 }, { "Gc", W_CYCLES, 1000000000 }, { "Tc", W_CYCLES, 1000000000000ULL },
	{ "Bytes", W_BYTES, 1 }, { "bytes", W_BYTES, 1 }, { "B", W_BYTES, 1 },
	{ "KB", W_BYTES, 1ULL << 10 }, { "MB", W_BYTES, 1ULL << 20 }, { "GB", W_BYTES, 1ULL << 30 },
	{ "TB", W_BYTES, 1ULL << 40 }, { "KiB", W_BYTES, 1ULL << 10 }, { "MiB", W_BYTES, 1ULL << 20 },
	{ "GiB", W_BYTES, 1ULL << 30 }, { "TiB", W_BYTES, 1ULL << 40 },
	{ NULL, W_NONE, 0 }
};

static const struct unit *unit_named(const char *p, size_t n)
{
	for (const struct unit *u = units; u->name; u++)
		if (strlen(u->name) == n && memcmp(u->name, p, n) == 0) return u;
	return NULL;
}

/* A blank of the figures' padding: space, tab, or U+00A0, U+2007, U+202F
 * (figure spaces before a percentage): its length at p, 0 if none. */
static size_t blank_at(const char *p, size_t n)
{
	if (n >= 1 && c_blank(p[0])) return 1;
	const unsigned char *u = (const unsigned char *)p;
	if (n >= 2 && u[0] == 0xc2 && u[1] == 0xa0) return 2;
	if (n >= 3 && u[0] == 0xe2 && u[1] == 0x80 && (u[2] == 0x87 || u[2] == 0xaf)) return 3;
	return 0;
}

static size_t skip_blanks(const char *p, size_t n, size_t i)
{
	size_t k;
	while (i < n && (k = blank_at(p + i, n - i))) i += k;
	return i;
}

/* A figure "4273.0ms   99.9%", "10.50 KB", "0 s", "693" (in the header's
 * unit defunit), "-" (none: 0): its kind (W_NONE for "-") and value in
 * *v, rounded half up.  *tol2 is twice the most it can be off the true
 * value: half a unit of its last digit (in ns, cycles or bytes, rounded up)
 * and half of one for the rounding to a whole number.  Exits on what is
 * not one. */
static enum wkind parse_figure(sstr f, sstr defunit, const char *col, uint64_t ln, uint64_t *v, uint64_t *tol2)
{
	*tol2 = 0;
	const char *p = f.p;
	size_t n = f.n, i = skip_blanks(p, n, 0);
	if (i < n && p[i] == '-' && skip_blanks(p, n, i + 1) == n) {
		*v = 0;
		return W_NONE;
	}
	unsigned __int128 m = 0;
	unsigned digits = 0, frac = 0;
	bool dot = false;
	for (; i < n && (c_digit(p[i]) || (p[i] == '.' && !dot) || (p[i] == ',' && !dot)); i++) {
		if (p[i] == '.') { dot = true; continue; }
		if (p[i] == ',') continue;
		if (++digits > 24) die_at(I.fname, ln, "%s: figure too long: '%.*s'", col, (int)f.n, f.p);
		m = m * 10 + (unsigned)(p[i] - '0');
		frac += dot;
	}
	if (!digits) die_at(I.fname, ln, "%s: not a figure: '%.*s'", col, (int)f.n, f.p);
	i = skip_blanks(p, n, i);
	size_t us = i;
	for (;;) {
		if (i < n && ((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= 'A' && p[i] <= 'Z'))) i++;
		else if (i + 1 < n && (((unsigned char)p[i] == 0xc2 && (unsigned char)p[i + 1] == 0xb5) ||
				      ((unsigned char)p[i] == 0xce && (unsigned char)p[i + 1] == 0xbc))) i += 2;
		else break;
	}
	sstr un = us < i ? (sstr){ p + us, i - us } : defunit;
	/* after the unit: blanks, maybe a percentage ("99.9%") */
	if (i < n && !blank_at(p + i, n - i))
		die_at(I.fname, ln, "%s: not a figure: '%.*s'", col, (int)f.n, f.p);
	if (!un.p) die_at(I.fname, ln, "%s: figure without a unit: '%.*s'", col, (int)f.n, f.p);
	const struct unit *u = unit_named(un.p, un.n);
	if (!u) die_at(I.fname, ln, "%s: unknown unit '%.*s' (ns, us, ms, s, min; Kc, Mc, Gc; Bytes, KB, MB, GB)",
		       col, (int)un.n, un.p);
	unsigned __int128 d = 1;
	for (unsigned k = 0; k < frac; k++) d *= 10;
	unsigned __int128 r = (m * u->scale + d / 2) / d;
	if (r > UINT64_MAX) die_at(I.fname, ln, "%s: figure out of range: '%.*s'", col, (int)f.n, f.p);
	*v = (uint64_t)r;
	*tol2 = (uint64_t)((u->scale + d - 1) / d) + 1;
	return u->kind;
}

/* "84671", "14,337": a count. */
static uint64_t parse_count(sstr f, uint64_t ln)
{
	size_t i = skip_blanks(f.p, f.n, 0), e = f.n;
	while (e > i && blank_at(f.p + e - 1, 1)) e--;
	uint64_t v = 0;
	bool any = false;
	for (; i < e; i++) {
		if (f.p[i] == ',') continue;
		if (!c_digit(f.p[i]) || v > (UINT64_MAX - 9) / 10)
			die_at(I.fname, ln, "Count: not a count: '%.*s'", (int)f.n, f.p);
		v = v * 10 + (uint64_t)(f.p[i] - '0');
		any = true;
	}
	if (!any) die_at(I.fname, ln, "Count: not a count: '%.*s'", (int)f.n, f.p);
	return v;
}

static void declare(enum wkind k)
{
	if (I.declared[k]) return;
	I.declared[k] = true;
	if (k == W_TIME) {
		I.event[k] = builder_event(I.b, "cpu", "timer", "period", "cpu_ns", NULL);
		I.metric[k][0] = builder_metric(I.b, "cpu_ns", "nanoseconds");
	} else if (k == W_CYCLES) {
		I.event[k] = builder_event(I.b, "cycles", "hardware", "period", "cycles", NULL);
		I.metric[k][0] = builder_metric(I.b, "cycles", NULL);
	} else {
		I.event[k] = builder_event(I.b, "malloc", "allocation", "event", "alloc_bytes", NULL);
		I.metric[k][0] = builder_metric(I.b, "alloc_bytes", "bytes");
		I.metric[k][1] = builder_metric(I.b, "alloc_count", NULL);
	}
}

/* The node on top of the path is complete: its self weights to its stack. */
static void close_top(uint64_t ln)
{
	struct level *l = &I.lv[I.depth - 1];
	uint32_t nm = I.c_count >= 0 ? 2 : 1;
	/* the weights that are not 0 (SPAA has no weight 0), the first (the
	 * primary metric) one of them: a count of no bytes is told at the end */
	num vals[NM];
	uint32_t midx[NM], nv = 0;
	for (uint32_t m = 0; m < nm; m++) {
		uint64_t s = l->total[m] > l->child[m] ? l->total[m] - l->child[m] : 0;
		if (m == 0 && l->has_self) s = l->self;
		if (!s) continue;
		if (nv == 0 && m > 0) {
			I.lost_count += s, I.lost_nodes++;
			break;
		}
		midx[nv] = I.metric[I.kind][m];
		vals[nv++] = num_u(s);
	}
	if (nv) {
		for (uint32_t i = 0; i < I.depth; i++) I.fr[i] = I.lv[I.depth - 1 - i].frame;
		builder_ctx c = { 0 };
		c.event = I.event[I.kind];
		builder_where(I.b, I.fname, ln);
		builder_stack(I.b, &c, I.fr, I.depth, midx, vals, nv);
		I.nstacks++;
	}
	/* A self of '-' (none) whose rows under it leave part of its weight
	 * unaccounted for, beyond the figures' rounding: callees Instruments
	 * hid (a threshold, hidden libraries).  The node keeps its total as
	 * Instruments shows it: the rest is a frame "[unknown]" under it. */
	uint64_t rest = l->total[0] > l->child[0] ? l->total[0] - l->child[0] : 0;
	if (l->has_self && !l->self_figure && rest &&
	    2 * (unsigned __int128)rest > (unsigned __int128)l->tot_tol2 + l->child_tol2) {
		if (!I.unknown1) {
			builder_frame u;
			memset(&u, 0, sizeof u);
			u.func = sstr_c("[unknown]");
			u.dso = I.dso;
			u.kind = FK_UNKNOWN;
			u.func_resolved = true;
			u.inline_depth = -1;
			I.unknown1 = builder_frame_add(I.b, &u) + 1;
		}
		grow_array((void **)&I.fr, &I.frcap, I.depth + 1, sizeof *I.fr);
		I.fr[0] = I.unknown1 - 1;
		for (uint32_t i = 0; i < I.depth; i++) I.fr[i + 1] = I.lv[I.depth - 1 - i].frame;
		builder_ctx c = { 0 };
		c.event = I.event[I.kind];
		num v = num_u(rest);
		builder_where(I.b, I.fname, ln);
		builder_stack(I.b, &c, I.fr, I.depth + 1, &I.metric[I.kind][0], &v, 1);
		I.nstacks++;
	}
	I.depth--;
	if (I.depth) {
		struct level *p = &I.lv[I.depth - 1];
		for (uint32_t m = 0; m < nm; m++) {
			if (p->child[m] > UINT64_MAX - l->total[m])
				die_at(I.fname, ln, "the weights of a node's children add up beyond 64 bits");
			p->child[m] += l->total[m];
		}
		p->child_tol2 += l->tot_tol2;
	}
}

/* A node closed by the end of the input, its children closed before it:
 * when its self is a figure, its total is its self plus its children's
 * totals, within the rounding of all these figures.  Short of that, the
 * copy ends in the middle of its children: cut short.  (Where the self is
 * "-", or there is no self column, a node's own weight is not known, and
 * nothing can be told.) */
static void check_whole(const struct level *l)
{
	if (!l->self_figure) return;
	unsigned __int128 have = (unsigned __int128)l->self + l->child[0];
	if (l->total[0] <= have) return;
	unsigned __int128 short2 = 2 * ((unsigned __int128)l->total[0] - have);
	if (short2 <= (unsigned __int128)l->tot_tol2 + l->self_tol2 + l->child_tol2) return;
	die_at(I.fname, l->line, "the copy ends before the rows under this one add up to its weight (%llu, of "
	       "which %llu its own and %llu in the rows under it, rounding allowed for): the file is cut short",
	       (unsigned long long)l->total[0], (unsigned long long)l->self, (unsigned long long)l->child[0]);
}

/* The column named like one of names (NULL-terminated), -1 if none. */
static int column(sstr *h, int nh, const char *const *names)
{
	for (int i = 0; i < nh; i++)
		for (const char *const *n = names; *n; n++)
			if (sstr_eqc(h[i], *n)) return i;
	return -1;
}

static int split_tabs(char *line, size_t n, sstr *f)
{
	int nf = 0;
	size_t s = 0;
	for (size_t i = 0; i <= n; i++) {
		if (i < n && line[i] != '\t') continue;
		if (nf == MAX_COLS) return -1;
		f[nf++] = (sstr){ line + s, i - s };
		s = i + 1;
	}
	return nf;
}

static void header(char *line, size_t n, uint64_t ln)
{
	sstr h[MAX_COLS];
	int nh = split_tabs(line, n, h);
	if (nh < 0) die_at(I.fname, ln, "more than %d columns", MAX_COLS);
	for (int i = 0; i < nh; i++) {
		while (h[i].n && c_blank(h[i].p[h[i].n - 1])) h[i].n--;
		while (h[i].n && c_blank(h[i].p[0])) h[i].p++, h[i].n--;
	}
	static const char *const sym[] = { "Symbol Name", NULL }, *const syms[] = { "Symbol Names", NULL },
		*const total[] = { "Weight", "Running Time", "Bytes Used", NULL },
		*const count[] = { "Count", NULL }, *const src[] = { "Source Path", NULL };
	I.c_sym = column(h, nh, sym);
	I.names = I.c_sym < 0;
	if (I.names) I.c_sym = column(h, nh, syms);
	I.c_total = column(h, nh, total);
	if (I.c_sym < 0 || I.c_total < 0)
		die_at(I.fname, ln, "not an Instruments deep copy: the first line names no %s column "
		       "(expected a tab-separated header such as \"Weight<TAB>Self Weight<TAB>Symbol Name\")",
		       I.c_sym < 0 ? "Symbol Name" : "Weight, Running Time or Bytes Used");
	I.c_self = -1;
	for (int i = 0; i < nh && !I.derive && I.c_self < 0; i++)
		if (sstr_eqc(h[i], "Self Weight") || sstr_eqc(h[i], "Self") ||
		    (h[i].n > 6 && !memcmp(h[i].p, "Self (", 6) && h[i].p[h[i].n - 1] == ')'))
			I.c_self = i;
	I.c_count = column(h, nh, count);
	I.c_src = column(h, nh, src);
	I.self_unit = SSTR_NULL;
	if (I.c_self >= 0) {
		sstr s = h[I.c_self];
		const char *o = memchr(s.p, '(', s.n);
		if (o && s.p[s.n - 1] == ')') {
			/* a unit longer than the copy holds is no unit known anyway */
			size_t un = (size_t)(s.p + s.n - 1 - (o + 1));
			if (un > sizeof I.su) un = sizeof I.su;
			memcpy(I.su, o + 1, un);
			I.self_unit = (sstr){ I.su, un };
		}
	}
	/* the allocation count goes with bytes only; "Bytes Used" says the
	 * kind before any figure does (a row of "-" may have a count) */
	I.kind = W_NONE;
	if (sstr_eqc(h[I.c_total], "Bytes Used")) declare(W_BYTES), I.kind = W_BYTES;
	else I.c_count = -1;
}

static void row(char *line, size_t n, uint64_t ln)
{
	sstr f[MAX_COLS];
	int nf = split_tabs(line, n, f);
	if (nf < 0) die_at(I.fname, ln, "more than %d columns", MAX_COLS);
	if (nf <= I.c_sym || nf <= I.c_total)
		die_at(I.fname, ln, "%d column%s, not the %d of the header line", nf, nf == 1 ? "" : "s",
		       (I.c_sym > I.c_total ? I.c_sym : I.c_total) + 1);
	sstr s = f[I.c_sym];
	size_t ind = 0;
	while (ind < s.n && s.p[ind] == ' ') ind++;
	while (s.n > ind && c_blank(s.p[s.n - 1])) s.n--;
	if (ind == s.n) die_at(I.fname, ln, "a row without a symbol name");
	if (I.first_row) I.base = ind, I.first_row = false;
	if (ind < I.base)
		die_at(I.fname, ln, "symbol indented %zu spaces, less than the first row's %zu", ind, I.base);
	size_t d = ind - I.base;
	if (d > I.depth)
		die_at(I.fname, ln, "depth %zu under a row of depth %u: the tree skips a level", d,
		       I.depth ? I.depth - 1 : 0);
	if (d >= MAX_DEPTH) die_at(I.fname, ln, "deeper than %d levels", MAX_DEPTH);
	while (I.depth > d) close_top(ln);

	struct level l;
	memset(&l, 0, sizeof l);
	l.line = ln;
	enum wkind k = parse_figure(f[I.c_total], SSTR_NULL, "weight", ln, &l.total[0], &l.tot_tol2);
	if (I.c_self >= 0 && I.c_self < nf) {
		enum wkind ks = parse_figure(f[I.c_self], I.self_unit, "self weight", ln, &l.self, &l.self_tol2);
		l.self_figure = ks != W_NONE;
		if (ks != W_NONE && k != W_NONE && ks != k)
			die_at(I.fname, ln, "the self weight is not in the weight's kind of unit");
		if (k == W_NONE) k = ks;
		l.has_self = true;
	}
	if (I.c_count >= 0) {
		if (I.c_count >= nf) die_at(I.fname, ln, "no Count column");
		l.total[1] = parse_count(f[I.c_count], ln);
	}
	if (k != W_NONE) {
		if (I.kind != W_NONE && k != I.kind)
			die_at(I.fname, ln, "weights in units of another kind (times, cycles, bytes) than the column's or the rows before");
		if (I.kind == W_NONE) declare(k), I.kind = k;
	}
	if (I.kind == W_NONE && (l.total[0] || l.self)) die_at(I.fname, ln, "a weight without a unit");
	builder_frame fr;
	memset(&fr, 0, sizeof fr);
	fr.func = (sstr){ s.p + ind, s.n - ind };
	fr.dso = I.dso;
	fr.kind = FK_UNKNOWN;
	fr.func_resolved = true;
	fr.inline_depth = -1;
	if (I.c_src >= 0 && I.c_src < nf && f[I.c_src].n) fr.srcline = f[I.c_src];
	l.frame = builder_frame_add(I.b, &fr);
	grow_array((void **)&I.lv, &I.cap, I.depth + 1, sizeof *I.lv);
	grow_array((void **)&I.fr, &I.frcap, I.depth + 1, sizeof *I.fr);
	I.lv[I.depth++] = l;
	I.nrows++;
}

static void convert(input *in)
{
	I.fname = input_name(in);
	sniff_refuse_other(in, "instruments2spaa", "an Instruments deep copy");
	bool have_header = false;
	I.first_row = true;
	I.depth = 0;
	char *line;
	size_t n;
	uint64_t ln = 0;
	while ((line = input_line(in, &n)) != NULL) {
		ln = input_lineno(in);
		if (n && line[n - 1] == '\r') n--;
		size_t i = 0;
		while (i < n && c_blank(line[i])) i++;
		if (i == n) continue;
		if (!have_header) {
			/* a copy saved with a byte order mark */
			if (n >= 3 && !memcmp(line, "\xef\xbb\xbf", 3)) line += 3, n -= 3;
			header(line, n, ln);
			have_header = true;
			continue;
		}
		row(line, n, ln);
	}
	while (I.depth) {
		check_whole(&I.lv[I.depth - 1]);
		close_top(ln);
	}
}

/* its options, for getopt_long and the registry (readers/registry.h) */
enum { OPT_DERIVE = 256 };
const struct option instruments_longopts[] = {
	{ "derive-self", no_argument, 0, OPT_DERIVE },
	CLI_OUT_LONGOPTS,
	CLI_STD_LONGOPTS,
	{ 0, 0, 0, 0 }
};
const char instruments_shortopts[] = "o:zhV";

/* the converter instruments2spaa: argv as it gets it (argv[0] its name); the
 * exit status (readers/readers.h) */
int instruments_read(int argc, char **argv)
{
	/* a fresh state: the fuzz target (fuzz/fuzz_cmd.c) calls instruments_read again */
	memset(&I, 0, sizeof I);
	const char *outpath = NULL;
	bool zstd = false;
	int c;
	while ((c = getopt_long(argc, argv, instruments_shortopts, instruments_longopts, NULL)) != -1) {
		switch (c) {
		case OPT_DERIVE: I.derive = true; break;
		CLI_OUT_CASES(outpath, zstd);
		CLI_STD_CASES(help);
		}
	}
	I.b = builder_new();
	builder_source_tool(I.b, "instruments");
	I.dso = builder_dso(I.b, "[unknown]", 9, false);

	const char *what;
	uint64_t nlines = input_each(argv + optind, argc - optind, convert, &what);
	if (!nlines) die_empty_input(what);
	if (!I.nrows) die_no_stacks(what, "a header line and no row of the call tree");
	if (!I.nstacks) die_no_stacks(what, "%llu row%s of the call tree, all of weight 0",
				      (unsigned long long)I.nrows, I.nrows == 1 ? "" : "s");
	if (I.lost_nodes)
		warn_at(what, 0, "warning: %llu allocation%s of %llu node%s whose own bytes round to 0 left out "
			"(SPAA has no stack of 0 bytes)", (unsigned long long)I.lost_count, I.lost_count == 1 ? "" : "s",
			(unsigned long long)I.lost_nodes, I.lost_nodes == 1 ? "" : "s");
	reader_finish(I.b, outpath, zstd);
	free(I.lv);
	free(I.fr);
	return EXIT_OK;
}
