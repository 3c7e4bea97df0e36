/* gecko2spaa - Firefox Profiler profiles (what Firefox, samply and
 * profiler.firefox.com write) to SPAA: both the "processed" format (tables
 * of columns, strings in stringArray, per thread or in profile.shared) and
 * the older Gecko format (tables of rows keyed by a "schema", a stringTable
 * per thread, subprocess profiles in "processes"), plain or inside the
 * Firefox devtools wrapper {"profile": {...}}.
 *
 * The story: the file is read twice (jscan.h).  The first pass takes what
 * the threads need and may come after them: each process's "meta"
 * (startTime) and "libs", and the tables of "shared".  The second walks the
 * threads: a thread's tables (stackTable, frameTable, funcTable,
 * resourceTable, strings) are read whole, in whichever form they come (a
 * table is a Gecko one when it has a "schema"), its samples only counted,
 * where they start noted; then the samples are read again from there, their
 * columns in step (a second reader of the file per column, jscan_seek),
 * and each sample's stack is followed from its leaf up the prefix chain to
 * its root, each frame named (func, library as the dso, file:line:col as
 * the srcline), and its weight added: 1 (or "weight") sample, or "weight"
 * milliseconds (weightType "tracing-ms") or bytes ("bytes").  Markers,
 * counters and the rest are skipped.
 *
 * Memory: the tables (distinct stacks, frames and functions), and a buffer
 * per reader; nothing per sample. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "readers.h"
#include "build.h"
#include "reader.h"
#include "cli.h"
#include "input.h"
#include "jscan.h"
#include "json.h"
#include "num.h"
#include "output.h"
#include "several.h"
#include "sniff.h"
#include "spaa.h"
#include "util.h"

static const char help[] =
"Usage: gecko2spaa [OPTION]... [FILE]...\n"
"Convert Firefox Profiler profiles (JSON: the processed format samply and\n"
"profiler.firefox.com write, and the Gecko format Firefox writes) to a SPAA\n"
"1.0 profile; several FILEs are converted one by one and merged as\n"
"spaa-cat --merge merges them.  With no FILE, or when FILE is -, read\n"
"standard input (zstd and gzip allowed).\n"
"\n"
"Each thread is a thread record (its name, pid and tid); each sample adds\n"
"its stack: event \"samples\" (metric samples), or with weightType\n"
"tracing-ms event \"tracing\" (wall_ms), with bytes event \"alloc\"\n"
"(alloc_bytes).\n"
"\n"
"  -s, --samples        also write one sample record per sample, at its time\n"
"      --max-frames=N   keep the N innermost frames of a longer stack, under a\n"
"                       frame [truncated] (default 512)\n"
CLI_HELP_TAIL;

#define NONE UINT32_MAX
#define NUL_KIND 0xFF /* a num that is null */

/* ---- tables: columns of numbers (processed) or rows keyed by a schema (Gecko) */

enum { MAXC = 8, ROWC = 8 };
#define U32_BAD (UINT32_MAX - 1) /* a sample's stack that is not an index */
typedef struct column { num *v; uint32_t n, cap; } column;
typedef struct table {
	const char *const *names; /* the columns wanted, NULL-ended */
	column c[MAXC];
	bool have[MAXC];
	uint32_t rows;
	bool present;
} table;

static const char *const STACK_COLS[] = { "prefix", "frame", "prefixOffset", NULL };
enum { SC_PREFIX, SC_FRAME, SC_PREFIXOFF };
static const char *const FRAME_COLS[] = { "func", "address", "line", "column", "inlineDepth", "lib", "location", NULL };
enum { FC_FUNC, FC_ADDR, FC_LINE, FC_COL, FC_DEPTH, FC_LIB, FC_LOC };
static const char *const FUNC_COLS[] = { "name", "resource", "fileName", "lineNumber", "columnNumber", "source", NULL };
enum { UC_NAME, UC_RES, UC_FILE, UC_LINE, UC_COL, UC_SOURCE };
static const char *const RES_COLS[] = { "lib", "name", NULL };
enum { RC_LIB, RC_NAME };
static const char *const SRC_COLS[] = { "filename", NULL };
static const char *const SAMPLE_COLS[] = { "stack", "time", "timeDeltas", "weight", NULL };
enum { XC_STACK, XC_TIME, XC_DELTA, XC_WEIGHT };

typedef struct strs { sbuf text; uint32_t *off; uint32_t n, cap; bool present; } strs;
typedef struct lib { char *name, *build_id; uint64_t start, end; uint32_t dso; } lib;
typedef struct libs { lib *v; uint32_t n, cap; bool present; } libs;

/* A set of tables: a thread's own, or profile.shared's. */
typedef struct tabs {
	table stack, frame, func, res, src;
	strs str;
	libs lib;
	uint32_t *fmemo;             /* frame -> builder frame */
	uint32_t nfmemo;
} tabs;

static struct {
	bool samples;
	uint32_t max_frames;         /* --max-frames */
	uint32_t cut;                /* the frame [truncated], NONE before one is needed */
	uint64_t ncut;               /* stacks cut to --max-frames */
	const char *fname;
	const char *path;            /* the file read now, to read again */
	builder *b;
	struct proc { double start; libs lib; } *pr; /* per process, in file order */
	uint32_t npr, prcap, cur_pr, next_pr;
	tabs shared;
	int32_t ev[3];
	uint32_t metric[3];
	uint32_t nthreads;
	uint64_t nsamples;
	json_doc doc;
	sbuf tmp, loc;
	/* second readers of the file, at the columns of samples (XC_*) */
	struct cursor { input *in; jscan r; bool first; uint32_t left; } cur[4];
} G;

static void table_init(table *t, const char *const *names)
{
	memset(t, 0, sizeof *t);
	t->names = names;
}

static void table_free(table *t)
{
	for (int i = 0; i < MAXC; i++) {
		free(t->c[i].v);
		t->c[i].v = NULL;
		t->c[i].n = t->c[i].cap = 0;
	}
	memset(t->have, 0, sizeof t->have);
	t->rows = 0;
	t->present = false;
}

static int name_index(const char *const *names, sstr k)
{
	for (int i = 0; names[i]; i++)
		if (sstr_eqc(k, names[i])) return i;
	return -1;
}

static int col_index(const table *t, sstr k) { return name_index(t->names, k); }

/* One cell: a number, or null for null and anything else (strings, objects). */
static num cell(jscan *r)
{
	num x;
	x.kind = NUL_KIND;
	x.i = 0;
	int c = jscan_peek(r);
	if (c == '-' || (c >= '0' && c <= '9')) return jscan_numv(r); /* 2^64-1 exactly */
	jscan_skip(r);
	return x;
}

static bool is_null(num x) { return x.kind == NUL_KIND; }

/* A number as a message shows it (1e400 as inf), in buf[40]. */
static void num_text(char *buf, num x)
{
	if (x.kind == NUM_DBL) snprintf(buf, 40, "%.17g", x.d);
	else buf[num_fmt(buf, x)] = 0;
}

static num num_null(void)
{
	num x;
	x.kind = NUL_KIND;
	x.i = 0;
	return x;
}

static void col_push(column *c, num v)
{
	*VEC_PUSH(c->v, c->n, c->cap) = v;
}

/* A column's value at row i, null past its end. */
static num at(const table *t, int c, uint32_t i)
{
	num x;
	x.kind = NUL_KIND;
	x.i = 0;
	const column *k = &t->c[c];
	if (!t->have[c] || i >= k->n) return x;
	return k->v[i];
}

/* A whole number at row i of column c, or -1 (null, absent, negative). */
static int64_t at_idx(const table *t, int c, uint32_t i)
{
	num x = at(t, c, i);
	if (x.kind == NUM_INT && x.i >= 0) return x.i;
	if (x.kind == NUM_DBL && x.d >= 0 && x.d < 9e15 && x.d == (double)(int64_t)x.d) return (int64_t)x.d;
	return -1;
}

static void read_column(jscan *r, column *c, const char *what)
{
	bool first = true;
	jscan_open(r, '[', what);
	while (jscan_more(r, &first, ']')) {
		if (c->n == UINT32_MAX - 1) jscan_fail(r, "more than %u rows in a table", UINT32_MAX - 2);
		col_push(c, cell(r));
	}
}

/* A table of either form. */
/* A Gecko table's "schema" object, its key just read: the row position of
 * each of the columns names[] (pos[], -1 for the columns it does not name);
 * *seen says a schema came already (a second one is an error). */
static void read_schema(jscan *r, const char *what, const char *const *names, int *pos, bool *seen)
{
	if (*seen) jscan_fail(r, "%s: a second \"schema\"", what);
	*seen = true;
	bool first = true;
	jscan_open(r, '{', "a \"schema\" (an object)");
	while (jscan_more(r, &first, '}')) {
		int j = name_index(names, jscan_key(r));
		int64_t p = jscan_int(r, "a schema position");
		if (p < 0 || p > 1000) jscan_fail(r, "%s: schema position %lld out of range", what, (long long)p);
		if (j >= 0) pos[j] = (int)p;
	}
}

static void read_table(jscan *r, table *t, const char *what)
{
	if (t->present) jscan_fail(r, "a second %s", what);
	t->present = true;
	int pos[MAXC];                  /* the schema: row position of each column */
	for (int i = 0; i < MAXC; i++) pos[i] = -1;
	bool have_schema = false, have_data = false;
	column rowc[ROWC];                 /* rows read before their schema */
	memset(rowc, 0, sizeof rowc);
	uint32_t nrows = 0;
	bool first = true;
	jscan_open(r, '{', what);
	while (jscan_more(r, &first, '}')) {
		sstr k = jscan_key(r);
		int ci = col_index(t, k);
		if (sstr_eqc(k, "schema")) {
			read_schema(r, what, t->names, pos, &have_schema);
		} else if (sstr_eqc(k, "data")) {
			if (have_data) jscan_fail(r, "%s: a second \"data\"", what);
			have_data = true;
			bool f2 = true;
			jscan_open(r, '[', "\"data\" (an array of rows)");
			while (jscan_more(r, &f2, ']')) {
				if (nrows == UINT32_MAX - 1) jscan_fail(r, "more than %u rows in a table", UINT32_MAX - 2);
				bool f3 = true;
				int p = 0;
				num row[MAXC];
				for (int j = 0; j < MAXC; j++) row[j].kind = NUL_KIND, row[j].i = 0;
				jscan_open(r, '[', "a row (an array)");
				while (jscan_more(r, &f3, ']')) {
					if (have_schema) {
						int j;
						for (j = 0; t->names[j] && pos[j] != p; j++) {}
						if (t->names[j]) row[j] = cell(r);
						else jscan_skip(r);
					} else if (p < ROWC) {
						row[p] = cell(r);
					} else {
						jscan_skip(r);
					}
					p++;
				}
				if (have_schema)
					for (int j = 0; t->names[j]; j++) col_push(&t->c[j], row[j]);
				else
					for (int j = 0; j < ROWC; j++) col_push(&rowc[j], row[j]);
				nrows++;
			}
		} else if (ci >= 0 && jscan_null(r)) {
			continue; /* "weight": null, no such column */
		} else if (ci >= 0) {
			if (t->have[ci]) jscan_fail(r, "%s: a second \"%s\"", what, t->names[ci]);
			t->have[ci] = true;
			read_column(r, &t->c[ci], t->names[ci]);
		} else {
			jscan_skip(r); /* length, and the columns not used */
		}
	}
	if (have_data && !have_schema) jscan_fail(r, "%s: \"data\" rows without a \"schema\"", what);
	if (have_data) {
		for (int j = 0; t->names[j]; j++) {
			if (pos[j] < 0) continue;
			t->have[j] = true;
			if (t->c[j].n) continue; /* filled as the rows came */
			if (pos[j] >= ROWC)
				jscan_fail(r, "%s: column \"%s\" at position %d of rows read before their schema "
					   "(put \"schema\" first)", what, t->names[j], pos[j]);
			for (uint32_t i = 0; i < rowc[pos[j]].n; i++) col_push(&t->c[j], rowc[pos[j]].v[i]);
		}
	}
	for (int j = 0; j < ROWC; j++) free(rowc[j].v);
	t->rows = 0;
	for (int j = 0; t->names[j]; j++)
		if (t->have[j] && t->c[j].n > t->rows) t->rows = t->c[j].n;
}

static void read_strings(jscan *r, strs *s, const char *what)
{
	if (s->present) jscan_fail(r, "a second %s", what);
	s->present = true;
	bool first = true;
	jscan_open(r, '[', what);
	while (jscan_more(r, &first, ']')) {
		if (s->n == UINT32_MAX - 1 || s->text.n > UINT32_MAX - 65536) jscan_fail(r, "%s: too many strings", what);
		*VEC_PUSH(s->off, s->n, s->cap) = (uint32_t)s->text.n;
		sstr v = jscan_str(r, "a string");
		sbuf_add(&s->text, v.p, v.n);
		sbuf_addc(&s->text, 0);
	}
}

static const char *str_at(const strs *s, int64_t i)
{
	if (i < 0 || (uint64_t)i >= s->n) return NULL;
	return s->text.p + s->off[i];
}

static void strs_free(strs *s)
{
	sbuf_free(&s->text);
	free(s->off);
	memset(s, 0, sizeof *s);
}

/* "libs": an array of objects (old Gecko profiles: the array as a string
 * of JSON). */
static void read_libs(jscan *r, libs *l)
{
	if (l->present) jscan_fail(r, "a second \"libs\"");
	l->present = true;
	json_doc *d = &G.doc;
	char *text = NULL;
	if (jscan_peek(r) == '"') {
		sstr s = jscan_str(r, "\"libs\"");
		text = xmemdup(s.p, s.n);
		if (json_parse(d, text, s.n)) jscan_fail(r, "\"libs\" (a string of JSON): %s", d->err_msg);
	} else {
		jscan_doc(r, d);
	}
	if (d->nodes[0].type != JSON_ARRAY) jscan_fail(r, "\"libs\" is not an array");
	uint32_t k = json_first(d, 0);
	for (uint32_t e = 0; e < d->nodes[0].count; e++, k = json_after(d, k)) {
		if (d->nodes[k].type != JSON_OBJECT) jscan_fail(r, "a lib that is not an object");
		lib *x = VEC_PUSH(l->v, l->n, l->cap);
		memset(x, 0, sizeof *x);
		x->dso = NONE;
		static const char *const keys[] = { "name", "debugName", "path", "start", "end", "codeId" };
		uint32_t v[6];
		json_get_keys(d, k, keys, 6, v);
		for (int i = 0; i < 3 && !x->name; i++)
			if (v[i] && d->nodes[v[i]].type == JSON_STRING && d->nodes[v[i]].count)
				x->name = xmemdup(d->nodes[v[i]].str, d->nodes[v[i]].count);
		if (!x->name) x->name = xstrdup("[unknown]");
		int64_t a;
		if (v[3] && json_int64(d, v[3], &a) && a >= 0) x->start = (uint64_t)a;
		if (v[4] && json_int64(d, v[4], &a) && a >= 0) x->end = (uint64_t)a;
		/* codeId: the full GNU build id on Linux (hex) */
		if (v[5] && d->nodes[v[5]].type == JSON_STRING && d->nodes[v[5]].count && d->nodes[v[5]].count <= 128) {
			const char *p = d->nodes[v[5]].str;
			uint32_t n = d->nodes[v[5]].count, i;
			for (i = 0; i < n && c_hex(p[i]); i++) {}
			if (i == n) {
				x->build_id = xmemdup(p, n);
				for (i = 0; i < n; i++)
					if (x->build_id[i] >= 'A' && x->build_id[i] <= 'F') x->build_id[i] += 'a' - 'A';
			}
		}
	}
	free(text);
}

static void libs_free(libs *l)
{
	for (uint32_t i = 0; i < l->n; i++) {
		free(l->v[i].name);
		free(l->v[i].build_id);
	}
	free(l->v);
	memset(l, 0, sizeof *l);
}

/* samply names the kernel's library as perf does */
static bool lib_is_kernel(const lib *x)
{
	return !strncmp(x->name, "[kernel", 7) || !strcmp(x->name, "vmlinux") || !strncmp(x->name, "vmlinux-", 8);
}

static uint32_t lib_dso(lib *x)
{
	if (x->dso != NONE) return x->dso;
	x->dso = builder_dso(G.b, x->name, strlen(x->name), lib_is_kernel(x));
	if (x->build_id) {
		sbuf *t = &G.tmp;
		t->n = 0;
		sbuf_printf(t, "\"build_id\":\"%s\"", x->build_id);
		sbuf_addc(t, 0);
		builder_dso_extra(G.b, x->dso, t->p);
	}
	return x->dso;
}

static void tabs_init(tabs *t)
{
	memset(t, 0, sizeof *t);
	table_init(&t->stack, STACK_COLS);
	table_init(&t->frame, FRAME_COLS);
	table_init(&t->func, FUNC_COLS);
	table_init(&t->res, RES_COLS);
	table_init(&t->src, SRC_COLS);
}

static void tabs_free(tabs *t)
{
	table_free(&t->stack);
	table_free(&t->frame);
	table_free(&t->func);
	table_free(&t->res);
	table_free(&t->src);
	strs_free(&t->str);
	libs_free(&t->lib);
	free(t->fmemo);
	tabs_init(t);
}

/* A member of a thread or of "shared" that is a table; false if k is none. */
static bool read_tabs_member(jscan *r, tabs *t, sstr k)
{
	if (sstr_eqc(k, "stackTable")) read_table(r, &t->stack, "\"stackTable\"");
	else if (sstr_eqc(k, "frameTable")) read_table(r, &t->frame, "\"frameTable\"");
	else if (sstr_eqc(k, "funcTable")) read_table(r, &t->func, "\"funcTable\"");
	else if (sstr_eqc(k, "resourceTable")) read_table(r, &t->res, "\"resourceTable\"");
	else if (sstr_eqc(k, "sources")) read_table(r, &t->src, "\"sources\"");
	else if (sstr_eqc(k, "stringArray") || sstr_eqc(k, "stringTable")) read_strings(r, &t->str, "string array");
	else if (sstr_eqc(k, "libs")) read_libs(r, &t->lib);
	else return false;
	return true;
}

/* ---- frames ------------------------------------------------------------------ */

static bool all_hex(const char *p, size_t n)
{
	if (n < 3 || p[0] != '0' || (p[1] != 'x' && p[1] != 'X')) return false;
	for (size_t i = 2; i < n; i++)
		if (!c_hex(p[i])) return false;
	return true;
}

/* digits at p[0..n): their value, or -1 */
static int64_t digits(const char *p, size_t n)
{
	int64_t v;
	if (!n || n > 18) return -1;
	for (size_t i = 0; i < n; i++)
		if (!c_digit(p[i])) return -1;
	return parse_i64(p, n, &v) ? v : -1;
}

/* A Gecko location string: "func (in lib)...", "func (file:line:col)[src]",
 * "file:line:col", "0xADDRESS" or a label. */
struct loc { sstr func, file, lib; int64_t line, col; bool addr; uint64_t address; };

static void parse_location(const char *s, struct loc *l)
{
	size_t n = strlen(s);
	memset(l, 0, sizeof *l);
	l->func = (sstr){ s, n };
	l->line = l->col = -1;
	if (all_hex(s, n) && n <= 18) {
		l->addr = true;
		for (size_t i = 2; i < n; i++) l->address = l->address * 16 + (uint64_t)c_hexval(s[i]);
		return;
	}
	const char *in = strstr(s, " (in ");
	if (in) {
		const char *e = strchr(in + 5, ')');
		if (e) {
			l->func = (sstr){ s, (size_t)(in - s) };
			l->lib = (sstr){ in + 5, (size_t)(e - in - 5) };
			return;
		}
	}
	/* JS: drop a trailing "[N]" (a source index) */
	size_t m = n;
	if (m && s[m - 1] == ']') {
		size_t j = m - 1;
		while (j > 0 && c_digit(s[j - 1])) j--;
		if (j > 0 && j < m - 1 && s[j - 1] == '[') m = j - 1;
	}
	size_t b = 0, e = m;
	bool paren = m && s[m - 1] == ')';
	if (paren) {
		/* "func (url:line:col)": the last " (" */
		size_t j = m - 1;
		while (j > 1 && !(s[j - 1] == '(' && s[j - 2] == ' ')) j--;
		if (j <= 1) return;
		b = j;
		e = m - 1;
	}
	/* url:line[:col] in s[b..e) */
	int64_t nums[2] = { -1, -1 };
	int nn = 0;
	size_t k = e;
	while (nn < 2) {
		size_t j = k;
		while (j > b && c_digit(s[j - 1])) j--;
		if (j == k || j == b || s[j - 1] != ':') break;
		nums[nn++] = digits(s + j, k - j);
		k = j - 1;
	}
	if (nn == 0 || k <= b || nums[0] < 0 || (nn == 2 && nums[1] < 0)) return;
	l->file = (sstr){ s + b, k - b };
	if (nn == 2) l->line = nums[1], l->col = nums[0];
	else l->line = nums[0];
	l->func = paren ? (sstr){ s, b - 2 } : l->file;
}

static uint32_t dso_named(sstr name)
{
	if (!name.n) name = sstr_c("[unknown]");
	return builder_dso(G.b, name.p, name.n, false);
}

static uint32_t frame_of(tabs *t, const libs *plibs, uint32_t f)
{
	if (f < t->nfmemo && t->fmemo[f] != NONE) return t->fmemo[f];
	if (f >= t->nfmemo) {
		uint32_t n = t->frame.rows;
		t->fmemo = xrealloc(t->fmemo, (size_t)(n ? n : 1) * sizeof *t->fmemo);
		for (uint32_t i = t->nfmemo; i < n; i++) t->fmemo[i] = NONE;
		t->nfmemo = n;
	}
	const libs *ll = t->lib.present ? &t->lib : plibs;
	sbuf *src = &G.loc;
	src->n = 0;
	builder_frame bf = { .kind = FK_USER, .func_resolved = true, .inline_depth = -1 };
	char ipbuf[24], xbuf[48];
	int64_t loc = at_idx(&t->frame, FC_LOC, f);
	if (t->frame.have[FC_LOC]) {
		/* Gecko: the location string says it all */
		const char *s = str_at(&t->str, loc);
		if (!s) die_at(G.fname, 0, "frame %u: location %lld is not in the string table (%u strings)", f,
			       (long long)loc, t->str.n);
		struct loc l;
		parse_location(s, &l);
		bf.func = l.func;
		uint32_t dso = NONE;
		if (l.addr) {
			bf.func_resolved = false;
			for (uint32_t i = 0; ll && i < ll->n; i++)
				if (l.address >= ll->v[i].start && l.address < ll->v[i].end) {
					dso = lib_dso((lib *)&ll->v[i]);
					if (lib_is_kernel(&ll->v[i])) bf.kind = FK_KERNEL;
					break;
				}
			bf.ip = (sstr){ ipbuf, fmt_hex(ipbuf, l.address, 1) };
		} else if (l.lib.n) {
			dso = dso_named(l.lib);
		}
		int64_t line = l.line >= 0 ? l.line : at_idx(&t->frame, FC_LINE, f);
		int64_t col = l.line >= 0 ? l.col : at_idx(&t->frame, FC_COL, f);
		if (l.file.n) {
			sbuf_add(src, l.file.p, l.file.n);
			if (line >= 0) sbuf_printf(src, ":%lld", (long long)line);
			if (line >= 0 && col >= 0) sbuf_printf(src, ":%lld", (long long)col);
			if (dso == NONE) dso = dso_named(l.file);
		}
		if (!bf.func.n) bf.func = sstr_c("(anonymous)");
		bf.dso = dso == NONE ? dso_named(SSTR_NULL) : dso;
	} else {
		/* processed: frame -> func -> name, file, resource -> lib */
		int64_t fn = at_idx(&t->frame, FC_FUNC, f);
		if (fn < 0 || (uint64_t)fn >= t->func.rows)
			die_at(G.fname, 0, "frame %u: func %lld is not in the funcTable (%u functions)", f, (long long)fn,
			       t->func.rows);
		const char *name = str_at(&t->str, at_idx(&t->func, UC_NAME, (uint32_t)fn));
		if (!name) die_at(G.fname, 0, "function %lld: its name is not in the string array", (long long)fn);
		bf.func = sstr_c(name);
		if (all_hex(name, strlen(name))) bf.func_resolved = false;
		/* an index given (not null) must point somewhere */
		if (!is_null(at(&t->func, UC_FILE, (uint32_t)fn)) && !str_at(&t->str, at_idx(&t->func, UC_FILE, (uint32_t)fn)))
			die_at(G.fname, 0, "function %lld: its fileName is not in the string array (%u strings)", (long long)fn,
			       t->str.n);
		const char *file = str_at(&t->str, at_idx(&t->func, UC_FILE, (uint32_t)fn));
		if (!file && !is_null(at(&t->func, UC_SOURCE, (uint32_t)fn))) {
			int64_t si = at_idx(&t->func, UC_SOURCE, (uint32_t)fn);
			const table *srct = t->src.present ? &t->src : &G.shared.src;
			if (si < 0 || (uint64_t)si >= srct->rows)
				die_at(G.fname, 0, "function %lld: source %lld is not in the sources table (%u sources)",
				       (long long)fn, (long long)si, srct->rows);
			file = str_at(&t->str, at_idx(srct, 0, (uint32_t)si));
		}
		int64_t line = at_idx(&t->frame, FC_LINE, f), col = at_idx(&t->frame, FC_COL, f);
		if (line < 0) line = at_idx(&t->func, UC_LINE, (uint32_t)fn), col = at_idx(&t->func, UC_COL, (uint32_t)fn);
		if (file && *file) {
			sbuf_adds(src, file);
			if (line >= 0) sbuf_printf(src, ":%lld", (long long)line);
			if (line >= 0 && col >= 0) sbuf_printf(src, ":%lld", (long long)col);
		}
		int64_t res = at_idx(&t->func, UC_RES, (uint32_t)fn);
		/* -1 is the Firefox Profiler's "no resource" */
		num rv = at(&t->func, UC_RES, (uint32_t)fn);
		if (!is_null(rv) && !(rv.kind == NUM_INT && rv.i == -1) && (res < 0 || (uint64_t)res >= t->res.rows)) {
			char nb[40];
			num_text(nb, rv);
			die_at(G.fname, 0, "function %lld: resource %s is not in the resourceTable (%u resources)",
			       (long long)fn, nb, t->res.rows);
		}
		int64_t li = t->frame.have[FC_LIB] ? at_idx(&t->frame, FC_LIB, f)
			   : res >= 0 ? at_idx(&t->res, RC_LIB, (uint32_t)res) : -1;
		if (li >= 0 && ll && (uint64_t)li < ll->n) {
			bf.dso = lib_dso((lib *)&ll->v[li]);
			if (lib_is_kernel(&ll->v[li])) bf.kind = FK_KERNEL;
		}
		else if (li >= 0) die_at(G.fname, 0, "frame %u: lib %lld is not in \"libs\" (%u libraries)", f,
				      (long long)li, ll ? ll->n : 0);
		else if (file && *file) bf.dso = dso_named(sstr_c(file));
		else if (res >= 0 && str_at(&t->str, at_idx(&t->res, RC_NAME, (uint32_t)res)))
			bf.dso = dso_named(sstr_c(str_at(&t->str, at_idx(&t->res, RC_NAME, (uint32_t)res))));
		else bf.dso = dso_named(SSTR_NULL);
		int64_t addr = at_idx(&t->frame, FC_ADDR, f);
		if (addr >= 0) {
			bf.ip = (sstr){ ipbuf, fmt_hex(ipbuf, (uint64_t)addr, 1) };
		}
		/* kept aside: SPAA's inlined frames must sit next to their caller
		 * in every stack, which nothing here guarantees */
		int64_t depth = at_idx(&t->frame, FC_DEPTH, f);
		if (depth > 0) {
			snprintf(xbuf, sizeof xbuf, "\"x_inline_depth\":%lld", (long long)depth);
			bf.extra_json = xbuf;
		}
	}
	if (src->n) bf.srcline = (sstr){ src->p, src->n };
	t->fmemo[f] = builder_frame_add(G.b, &bf);
	return t->fmemo[f];
}

/* ---- threads ----------------------------------------------------------------- */

enum { W_SAMPLES, W_TRACING, W_BYTES };

static uint32_t weight_event(int w)
{
	if (G.ev[w] >= 0) return (uint32_t)G.ev[w];
	static const char *const ev[] = { "samples", "tracing", "alloc" };
	static const char *const kind[] = { "timer", "probe", "allocation" };
	static const char *const mode[] = { "period", "event", "event" };
	static const char *const metric[] = { "samples", "wall_ms", "alloc_bytes" };
	static const char *const unit[] = { NULL, "milliseconds", "bytes" };
	G.ev[w] = (int32_t)builder_event(G.b, ev[w], kind[w], mode[w], metric[w], NULL);
	G.metric[w] = builder_metric(G.b, metric[w], unit[w]);
	return (uint32_t)G.ev[w];
}

/* An id given as a number or a string of digits; -1 otherwise. */
static int64_t read_id(jscan *r)
{
	int c = jscan_peek(r);
	if (c == '"') {
		sstr s = jscan_str(r, "an id");
		return digits(s.p, s.n);
	}
	num x = cell(r);
	return x.kind == NUM_INT && x.i >= 0 ? x.i : -1;
}

/* ---- samples: where their columns are, read in step after the thread ----------- */

/* A thread's "samples": where each column (or the Gecko rows holding them
 * all) starts in the file, and how many values it has.  The values are read
 * once the thread's tables are known (the stackTable may come after them),
 * all columns in step, each by a second reader of the same file: nothing is
 * held per sample. */
typedef struct where { uint64_t off, line; uint32_t n; bool have; } where;
typedef struct samples {
	bool present;
	where c[4];   /* the columns, XC_* (for rows: have, and n the rows) */
	where rows;   /* the Gecko rows, when they hold the columns */
	int pos[4];   /* the rows' schema: the cell of each column, -1 */
} samples;

static where here(jscan *r)
{
	jscan_peek(r);
	return (where){ jscan_offset(r), r->line, 0, true };
}

/* The first column at row position p, -1. */
static int at_pos(const int *pos, int p)
{
	for (int j = 0; j < 4; j++)
		if (pos[j] == p) return j;
	return -1;
}

/* A thread's "samples", its values counted (and checked as numbers, null or
 * skipped, as the other tables' are; with -s the times when read again),
 * not kept. */
static void read_samples(jscan *r, samples *s, char *wtype, size_t wcap)
{
	static const char what[] = "\"samples\"";
	if (s->present) jscan_fail(r, "a second %s", what);
	s->present = true;
	for (int j = 0; j < 4; j++) s->pos[j] = -1;
	bool have_schema = false, have_data = false, have_col = false;
	bool first = true;
	jscan_open(r, '{', what);
	while (jscan_more(r, &first, '}')) {
		sstr k = jscan_key(r);
		int ci = name_index(SAMPLE_COLS, k);
		if (sstr_eqc(k, "schema")) {
			read_schema(r, what, SAMPLE_COLS, s->pos, &have_schema);
		} else if (sstr_eqc(k, "data")) {
			if (have_data) jscan_fail(r, "%s: a second \"data\"", what);
			have_data = true;
			s->rows = here(r);
			bool f2 = true;
			jscan_open(r, '[', "\"data\" (an array of rows)");
			while (jscan_more(r, &f2, ']')) {
				if (s->rows.n == UINT32_MAX - 1) jscan_fail(r, "more than %u rows in a table", UINT32_MAX - 2);
				bool f3 = true;
				int p = 0;
				jscan_open(r, '[', "a row (an array)");
				while (jscan_more(r, &f3, ']')) {
					if (have_schema ? at_pos(s->pos, p) >= 0 : p < ROWC) cell(r);
					else jscan_skip(r);
					p++;
				}
				s->rows.n++;
			}
		} else if (ci >= 0 && jscan_null(r)) {
			continue; /* "weight": null, no such column */
		} else if (ci >= 0) {
			if (s->c[ci].have) jscan_fail(r, "%s: a second \"%s\"", what, SAMPLE_COLS[ci]);
			have_col = true;
			where *c = &s->c[ci];
			*c = here(r);
			/* times, read again with -s, are checked then: their numbers
			 * are the slow ones to parse */
			bool later = G.samples && (ci == XC_TIME || ci == XC_DELTA);
			bool f2 = true;
			jscan_open(r, '[', SAMPLE_COLS[ci]);
			while (jscan_more(r, &f2, ']')) {
				if (c->n == UINT32_MAX - 1) jscan_fail(r, "more than %u rows in a table", UINT32_MAX - 2);
				if (later) jscan_skip(r);
				else cell(r);
				c->n++;
			}
		} else if (sstr_eqc(k, "weightType")) {
			if (jscan_null(r)) continue;
			sstr w = jscan_str(r, "\"weightType\"");
			snprintf(wtype, wcap, "%.*s", (int)(w.n > 40 ? 40 : w.n), w.p);
		} else {
			jscan_skip(r); /* length, and the columns not used */
		}
	}
	if (have_data && !have_schema) jscan_fail(r, "%s: \"data\" rows without a \"schema\"", what);
	if (have_data && have_col) jscan_fail(r, "%s: both \"data\" rows and columns", what);
	if (have_data)
		for (int j = 0; j < 4; j++) s->c[j] = (where){ 0, 0, s->rows.n, s->pos[j] >= 0 };
}

static void cursor_close(struct cursor *c)
{
	if (!c->in) return;
	jscan_free(&c->r);
	input_close(c->in);
	c->in = NULL;
}

/* Cursor c at the array at a, of n values: the file opened again, or the
 * reader already open moved there (on: a plain file seeks, compressed data
 * is read on, as the columns of the next threads come further on). */
static void cursor_at(struct cursor *c, const where *a)
{
	if (c->in && !jscan_seek(&c->r, a->off, a->line)) cursor_close(c);
	if (!c->in) {
		c->in = input_open(G.path);
		jscan_init(&c->r, c->in, G.fname);
		if (!jscan_seek(&c->r, a->off, a->line))
			die_at(G.fname, a->line, "the file ends before byte %llu: did it change while read?",
			       (unsigned long long)a->off);
	}
	jscan_open(&c->r, '[', "an array (did the file change while read?)");
	c->first = true;
	c->left = a->n;
}

static void cursor_more(struct cursor *c)
{
	c->left--;
	if (!jscan_more(&c->r, &c->first, ']')) jscan_fail(&c->r, "an array shorter than at first: did the file change?");
}

/* The next value of c's column, null past its end. */
static num cursor_cell(struct cursor *c)
{
	if (!c->left) return num_null();
	cursor_more(c);
	return cell(&c->r);
}

/* The next row of c into v (XC_*, null where the schema has no column). */
static void cursor_row(struct cursor *c, const int *pos, num *v)
{
	for (int j = 0; j < 4; j++) v[j] = num_null();
	if (!c->left) return;
	cursor_more(c);
	bool first = true;
	int p = 0;
	jscan_open(&c->r, '[', "a row (an array)");
	while (jscan_more(&c->r, &first, ']')) {
		int j = at_pos(pos, p++);
		if (j >= 0) v[j] = cell(&c->r);
		else jscan_skip(&c->r);
	}
}

/* A sample's stack index, -1 when it is not a whole number below U32_BAD. */
static int64_t stack_index(num v)
{
	if (v.kind == NUM_INT) return v.i >= 0 && v.i < U32_BAD ? v.i : -1;
	if (v.kind == NUM_DBL && v.d >= 0 && v.d < U32_BAD && v.d == (double)(uint32_t)v.d) return (int64_t)v.d;
	return -1;
}

/* A thread's samples, once its tables are known. */
struct walk {
	tabs *tt;                /* the thread's tables, or the shared ones */
	const libs *plibs;       /* its process's libraries */
	uint32_t index;          /* the thread's place in the file, from 1 */
	uint64_t line;           /* where it starts, for messages */
	builder_ctx ctx;
	uint32_t metric;
	int wt;                  /* W_SAMPLES, W_TRACING, W_BYTES */
	uint32_t *smemo;         /* stack index -> builder stack */
	uint32_t *depth;         /* stack index -> its frames (0 not yet known) */
	uint32_t *fr, frcap;
};

/* The prefix of stack x: NONE for a root (prefix null, prefixOffset 0 or
 * null), else a stack index; anything else (a negative, fractional or
 * too large index, an offset past the table's start) is an error. */
static uint32_t prefix_of(struct walk *w, uint32_t x)
{
	const table *st = &w->tt->stack;
	bool off = st->have[SC_PREFIXOFF];
	num v = at(st, off ? SC_PREFIXOFF : SC_PREFIX, x);
	if (is_null(v)) return NONE;
	bool whole = v.kind == NUM_INT || (v.kind == NUM_DBL && v.d > -9e15 && v.d < 9e15 && v.d == (double)(int64_t)v.d);
	int64_t q = !whole ? -1 : v.kind == NUM_INT ? v.i : (int64_t)v.d;
	if (off && q == 0) return NONE;
	if (off) q = q > 0 && q <= x ? x - q : -1;
	if (q < 0 || q >= (int64_t)st->rows) {
		char nb[40];
		num_text(nb, v);
		die_at(G.fname, w->line, "thread %u: stack %u: %s %s is not in the stackTable (%u stacks)", w->index, x,
		       off ? "prefixOffset" : "prefix", nb, st->rows);
	}
	return (uint32_t)q;
}

/* The number of frames of stack s, from those known (w->depth[k], 0 not
 * yet): each stack is walked once, however deep the chain; its frame is
 * checked on the way. */
#define WALKING UINT32_MAX
static uint32_t *walk_stk;
static uint32_t walk_cap;

static uint32_t stack_depth(struct walk *w, uint32_t s)
{
	tabs *tt = w->tt;
	uint32_t n = 0, k = s;
	while (k != NONE && w->depth[k] == 0) {
		int64_t f = at_idx(&tt->stack, SC_FRAME, k);
		if (f < 0 || (uint64_t)f >= tt->frame.rows) {
			char nb[40] = "null";
			num fv = at(&tt->stack, SC_FRAME, k);
			if (!is_null(fv)) num_text(nb, fv);
			die_at(G.fname, w->line, "thread %u: stack %u: frame %s is not in the frameTable (%u frames)",
			       w->index, k, nb, tt->frame.rows);
		}
		w->depth[k] = WALKING;
		grow_array((void **)&walk_stk, &walk_cap, n + 1, sizeof *walk_stk);
		walk_stk[n++] = k;
		k = prefix_of(w, k);
	}
	if (k != NONE && w->depth[k] == WALKING) die_at(G.fname, w->line, "thread %u: the stackTable's prefixes loop", w->index);
	uint32_t len = k == NONE ? 0 : w->depth[k];
	while (n) w->depth[walk_stk[--n]] = ++len;
	return w->depth[s];
}

/* The builder stack of stack index s: its frames leaf first, following the
 * prefixes up to the root, at most --max-frames of them, the innermost
 * (then a frame [truncated] stands for the rest). */
static uint32_t stack_of(struct walk *w, uint32_t s)
{
	if (w->smemo[s] != NONE) return w->smemo[s];
	tabs *tt = w->tt;
	uint32_t len = stack_depth(w, s), keep = len < G.max_frames ? len : G.max_frames, nf = 0;
	grow_array((void **)&w->fr, &w->frcap, keep + 1, sizeof *w->fr);
	for (uint32_t x = s; nf < keep; x = prefix_of(w, x))
		w->fr[nf++] = frame_of(tt, w->plibs, (uint32_t)at_idx(&tt->stack, SC_FRAME, x));
	if (len > keep) {
		if (G.cut == NONE) {
			builder_frame bf = { .func = sstr_c("[truncated]"), .dso = dso_named(SSTR_NULL), .kind = FK_USER,
					     .func_resolved = true, .inline_depth = -1 };
			G.cut = builder_frame_add(G.b, &bf);
		}
		w->fr[nf++] = G.cut;
		G.ncut++;
	}
	num z = num_i(0);
	return w->smemo[s] = builder_stack(G.b, &w->ctx, w->fr, nf, &w->metric, &z, 1);
}

/* Each sample with a stack adds its weight to it (and a sample record with
 * -s, at its time), read where read_samples() found them. */
static void add_samples(struct walk *w, const samples *smp, double offset)
{
	uint32_t ns = w->tt->stack.rows;
	uint32_t n = smp->c[XC_STACK].n;
	const where *c = smp->c;
	if (c[XC_WEIGHT].have && c[XC_WEIGHT].n != n)
		die_at(G.fname, w->line, "thread %u: %u samples but %u weights", w->index, n, c[XC_WEIGHT].n);
	for (int j = XC_TIME; j <= XC_DELTA; j++)
		if (c[j].have && c[j].n != n)
			die_at(G.fname, w->line, "thread %u: %u samples but %u %s", w->index, n, c[j].n,
			       j == XC_TIME ? "times" : "timeDeltas");
	bool timed = c[XC_TIME].have || c[XC_DELTA].have;
	/* the time only for sample records */
	int tc = !G.samples ? -1 : c[XC_TIME].have ? XC_TIME : c[XC_DELTA].have ? XC_DELTA : -1;
	struct cursor *cur = G.cur;
	if (smp->rows.have) {
		cursor_at(&cur[0], &smp->rows);
	} else {
		cursor_at(&cur[XC_STACK], &c[XC_STACK]);
		if (c[XC_WEIGHT].have) cursor_at(&cur[XC_WEIGHT], &c[XC_WEIGHT]);
		if (tc >= 0) cursor_at(&cur[tc], &c[tc]);
	}
	double clock = 0;
	for (uint32_t i = 0; i < n; i++) {
		num v[4];
		if (smp->rows.have) {
			cursor_row(&cur[0], smp->pos, v);
		} else {
			for (int j = 0; j < 4; j++)
				v[j] = j == XC_STACK || j == tc || (j == XC_WEIGHT && c[j].have) ? cursor_cell(&cur[j])
				     : num_null();
		}
		double d = 0;
		if (tc == XC_TIME) {
			timed = !is_null(v[XC_TIME]);
			d = timed ? num_to_double(v[XC_TIME]) : 0;
		} else if (tc == XC_DELTA) {
			if (!is_null(v[XC_DELTA])) clock += num_to_double(v[XC_DELTA]);
			d = clock;
		}
		if (!isfinite(d + offset))
			die_at(G.fname, cur[smp->rows.have ? 0 : tc].r.line, "thread %u: sample %u: its time is not a finite "
			       "number%s", w->index, i, tc == XC_DELTA ? " (the timeDeltas add up past the doubles)" : "");
		if (is_null(v[XC_STACK])) continue; /* a sample with no stack: nothing to add to */
		int64_t s = stack_index(v[XC_STACK]);
		if (s < 0 || (uint64_t)s >= ns)
			die_at(G.fname, w->line, "thread %u: sample %u: its stack is not an index into the stackTable "
			       "(%u stacks)", w->index, i, ns);
		num wv = num_i(1);
		if (c[XC_WEIGHT].have) {
			wv = v[XC_WEIGHT];
			if (is_null(wv)) wv = num_i(1);
			/* where the weight was read (a sum past 64 bits is named there) */
			uint64_t wl = cur[smp->rows.have ? 0 : XC_WEIGHT].r.line;
			builder_where(G.b, G.fname, wl);
			char nb[40];
			num_text(nb, wv);
			if (wv.kind == NUM_INT && wv.i < 0)
				die_at(G.fname, wl, "thread %u: sample %u: a negative weight (%s)", w->index, i, nb);
			if (wv.kind == NUM_DBL && !(wv.d >= 0 && wv.d <= 1.8e19))
				die_at(G.fname, wl, "thread %u: sample %u: weight %s out of range", w->index, i, nb);
			/* samples and bytes are whole; milliseconds need not be */
			if (wv.kind == NUM_DBL && w->wt != W_TRACING && wv.d != (double)(uint64_t)wv.d)
				die_at(G.fname, wl, "thread %u: sample %u: weight %s is not a whole number (of %s)", w->index,
				       i, nb, w->wt == W_BYTES ? "bytes" : "samples");
			if (wv.kind == NUM_DBL && w->wt != W_TRACING) wv = num_u((uint64_t)wv.d); /* 4096.0, 1e3 */
		}
		uint32_t bs = stack_of(w, (uint32_t)s);
		builder_add(G.b, bs, &w->metric, &wv, 1);
		if (G.samples) builder_sample(G.b, bs, timed, (d + offset) / 1000, NULL);
		G.nsamples++;
	}
}

/* One thread: its members in any order, then its samples. */
static void read_thread(jscan *r)
{
	tabs t;
	tabs_init(&t);
	samples smp;
	memset(&smp, 0, sizeof smp);
	char wtype[48] = "";
	sbuf name = { 0 };
	int64_t pid = -1, tid = -1;
	struct walk w = { .index = ++G.nthreads, .line = r->line };
	jscan_open(r, '{', "a thread (an object)");
	bool first = true;
	while (jscan_more(r, &first, '}')) {
		sstr k = jscan_key(r);
		if (read_tabs_member(r, &t, k)) continue;
		if (sstr_eqc(k, "samples")) {
			read_samples(r, &smp, wtype, sizeof wtype);
		} else if (sstr_eqc(k, "name")) {
			if (jscan_null(r)) continue;
			sstr v = jscan_str(r, "the thread's \"name\"");
			name.n = 0;
			sbuf_add(&name, v.p, v.n);
		} else if (sstr_eqc(k, "pid")) {
			pid = read_id(r);
		} else if (sstr_eqc(k, "tid")) {
			tid = read_id(r);
		} else {
			jscan_skip(r); /* markers, processType, registerTime, ... */
		}
	}
	/* the thread's own tables, else the shared ones */
	w.tt = &t;
	if (!t.stack.present) {
		if (!G.shared.stack.present) die_at(G.fname, w.line, "thread %u has no \"stackTable\"", w.index);
		w.tt = &G.shared;
		if (t.frame.present || t.func.present)
			die_at(G.fname, w.line, "thread %u has a frameTable but no stackTable", w.index);
	}
	if (!w.tt->str.present) {
		if (!G.shared.str.present) die_at(G.fname, w.line, "thread %u has no string array", w.index);
		w.tt->str = G.shared.str; /* borrowed: not freed with t */
	}
	/* a prefix column shorter than the frames would make roots of the
	 * stacks past its end */
	const table *st = &w.tt->stack;
	static const int prefix_cols[] = { SC_PREFIX, SC_PREFIXOFF };
	for (int i = 0; i < 2; i++) {
		int j = prefix_cols[i];
		if (st->have[j] && st->c[j].n != st->c[SC_FRAME].n)
			die_at(G.fname, w.line, "thread %u: the stackTable has %u frames but %u %s", w.index,
			       st->c[SC_FRAME].n, st->c[j].n, STACK_COLS[j]);
	}
	if (w.tt == &t && !t.func.present && !t.frame.have[FC_LOC] && t.frame.rows)
		die_at(G.fname, w.line, "thread %u: a frameTable without \"location\" needs a funcTable", w.index);
	if (smp.present) {
		int wt = W_SAMPLES;
		if (!*wtype || !strcmp(wtype, "samples")) wt = W_SAMPLES;
		else if (!strcmp(wtype, "tracing-ms")) wt = W_TRACING;
		else if (!strcmp(wtype, "bytes")) wt = W_BYTES;
		else die_at(G.fname, w.line, "thread %u: weightType \"%s\": the Firefox Profiler's are samples, "
			    "tracing-ms and bytes", w.index, wtype);
		if (wt != W_SAMPLES && !smp.c[XC_WEIGHT].have)
			die_at(G.fname, w.line, "thread %u: weightType %s without a \"weight\" column", w.index, wtype);
		if (!smp.c[XC_STACK].have)
			die_at(G.fname, w.line, "thread %u: samples without a \"stack\" column", w.index);
		if (pid < 0) pid = G.cur_pr + 1;
		if (tid < 0) tid = w.index;
		builder_thread(G.b, pid, tid, name.p ? name.p : "", name.n);
		w.ctx = (builder_ctx){ .event = weight_event(wt), .has_pid = true, .has_tid = true, .pid = pid, .tid = tid };
		w.metric = G.metric[wt];
		w.wt = wt;
		w.plibs = &G.pr[G.cur_pr].lib;
		uint32_t ns = w.tt->stack.rows;
		w.smemo = xmalloc((size_t)(ns ? ns : 1) * sizeof *w.smemo);
		for (uint32_t i = 0; i < ns; i++) w.smemo[i] = NONE;
		w.depth = xcalloc(ns ? ns : 1, sizeof *w.depth);
		add_samples(&w, &smp, G.pr[G.cur_pr].start - G.pr[0].start);
		free(w.fr);
		free(w.smemo);
		free(w.depth);
	}
	if (w.tt == &t && t.str.text.p == G.shared.str.text.p) memset(&t.str, 0, sizeof t.str); /* borrowed */
	tabs_free(&t);
	sbuf_free(&name);
}

/* ---- the profile: pass 1 (meta, libs, shared), pass 2 (threads) ---------------- */

static void read_meta(jscan *r, struct proc *p)
{
	bool first = true;
	jscan_open(r, '{', "\"meta\" (an object)");
	while (jscan_more(r, &first, '}')) {
		sstr k = jscan_key(r);
		if (sstr_eqc(k, "startTime")) {
			num x = cell(r);
			if (!is_null(x)) p->start = num_to_double(x);
			if (!isfinite(p->start)) jscan_fail(r, "meta.startTime is not a finite number");
		} else if (sstr_eqc(k, "interval") && p == &G.pr[0]) {
			num x = cell(r);
			if (!is_null(x)) {
				char nb[32];
				nb[num_fmt(nb, x)] = 0;
				builder_source_json(G.b, "interval_ms", nb);
			}
		} else if (sstr_eqc(k, "product") && p == &G.pr[0]) {
			if (jscan_null(r)) continue;
			sstr v = jscan_str(r, "\"product\"");
			builder_source_str(G.b, "product", v.p, v.n);
		} else {
			jscan_skip(r);
		}
	}
}

static bool profile(jscan *r, int pass, bool top);
static bool profile_body(jscan *r, int pass, bool top);

/* A subprocess profile as a string of JSON (old Gecko profiles put them
 * among the threads): read in pass 2, both passes over its text (in a
 * temporary file), its processes numbered after the file's. */
static void string_profile(jscan *r, int pass)
{
	if (pass == 1) {
		jscan_skip(r);
		return;
	}
	sstr s = jscan_str(r, "a subprocess profile (a string of JSON)");
	int fd = tmpfile_unlinked("gecko2spaa");
	tmpfile_write(fd, s.p, s.n);
	char path[32];
	snprintf(path, sizeof path, "/dev/fd/%d", fd);
	uint32_t next = G.next_pr, cur = G.cur_pr, base = G.npr;
	/* its own second readers, the outer file's set aside */
	const char *outer = G.path;
	struct cursor keep[4];
	memcpy(keep, G.cur, sizeof keep);
	memset(G.cur, 0, sizeof G.cur);
	G.path = path;
	for (int n = 1; n <= 2; n++) {
		input *in = input_open(path);
		jscan r2;
		jscan_init(&r2, in, G.fname);
		if (jscan_start(&r2) != '{') jscan_fail(r, "a subprocess profile string that is not a JSON object");
		G.next_pr = base;
		profile(&r2, n, false);
		if (jscan_peek(&r2) >= 0) jscan_fail(r, "more data after a subprocess profile string");
		jscan_free(&r2);
		input_close(in);
	}
	for (int i = 0; i < 4; i++) cursor_close(&G.cur[i]);
	memcpy(G.cur, keep, sizeof keep);
	G.path = outer;
	close(fd);
	G.next_pr = next;
	G.cur_pr = cur;
}

static void read_processes(jscan *r, int pass)
{
	bool first = true;
	jscan_open(r, '[', "\"processes\" (an array)");
	while (jscan_more(r, &first, ']')) {
		if (jscan_peek(r) == '"') string_profile(r, pass);
		else profile(r, pass, false);
	}
}

/* One profile object (the file, the devtools wrapper's "profile", or a
 * subprocess); true when it had threads or processes. */
/* Profiles inside profiles ("processes", subprocess strings): Firefox
 * writes one level; the walk recurses, so a bound keeps the C stack. */
#define MAX_NESTING 64
static int nesting;

static bool profile(jscan *r, int pass, bool top)
{
	if (nesting >= MAX_NESTING) jscan_fail(r, "profiles nested deeper than %d levels (processes in processes)", MAX_NESTING);
	nesting++;
	bool found = profile_body(r, pass, top);
	nesting--;
	return found;
}

static bool profile_body(jscan *r, int pass, bool top)
{
	uint32_t me;
	if (pass == 1) {
		me = G.npr;
		struct proc *p = VEC_PUSH(G.pr, G.npr, G.prcap);
		memset(p, 0, sizeof *p);
	} else {
		me = G.next_pr++;
	}
	bool first = true, found = false;
	/* JSON.parse would take the last of each: one only */
	static const char *const once[] = { "threads", "processes", "meta", "shared", NULL };
	bool seen[4] = { false };
	jscan_open(r, '{', top ? "the profile (an object)" : "a profile (an object)");
	while (jscan_more(r, &first, '}')) {
		sstr k = jscan_key(r);
		for (int i = 0; once[i]; i++)
			if (sstr_eqc(k, once[i])) {
				if (seen[i]) jscan_fail(r, "a second \"%s\"", once[i]);
				seen[i] = true;
			}
		if (sstr_eqc(k, "profile") && top) {
			/* the devtools wrapper: its "profile" is the profile */
			if (pass == 1) G.npr--;
			else G.next_pr--;
			if (jscan_peek(r) != '{') jscan_fail(r, "\"profile\" is not an object");
			found |= profile(r, pass, false);
			if (pass == 1) {
				me = G.npr;
				VEC_PUSH(G.pr, G.npr, G.prcap);
				memset(&G.pr[me], 0, sizeof G.pr[me]);
			} else {
				me = G.next_pr++;
			}
		} else if (sstr_eqc(k, "threads")) {
			found = true;
			bool f2 = true;
			jscan_open(r, '[', "\"threads\" (an array)");
			while (jscan_more(r, &f2, ']')) {
				G.cur_pr = me;
				if (jscan_peek(r) == '"') string_profile(r, pass);
				else if (pass == 2) read_thread(r);
				else jscan_skip(r);
			}
		} else if (sstr_eqc(k, "processes")) {
			found = true;
			read_processes(r, pass);
		} else if (pass == 1 && sstr_eqc(k, "meta")) {
			read_meta(r, &G.pr[me]);
		} else if (pass == 1 && sstr_eqc(k, "libs")) {
			read_libs(r, &G.pr[me].lib);
		} else if (pass == 1 && sstr_eqc(k, "shared") && me == 0) {
			bool f2 = true;
			jscan_open(r, '{', "\"shared\" (an object)");
			while (jscan_more(r, &f2, '}')) {
				sstr sk = jscan_key(r);
				if (!read_tabs_member(r, &G.shared, sk)) jscan_skip(r);
			}
		} else {
			jscan_skip(r);
		}
	}
	return found;
}

static void pass(const char *path, int n)
{
	input *in = input_open(path);
	G.path = path;
	if (n == 1) sniff_refuse_other(in, "gecko2spaa", "a Firefox Profiler profile");
	jscan r;
	jscan_init(&r, in, G.fname);
	int c0 = jscan_start(&r);
	if (c0 < 0) die_empty_input(G.fname);
	if (c0 != '{') jscan_fail(&r, "not a Firefox Profiler profile: it does not start with a JSON object");
	G.next_pr = 0;
	if (!profile(&r, n, true))
		jscan_fail(&r, "not a Firefox Profiler profile: no \"threads\" (nor \"processes\", nor a devtools "
			   "\"profile\" with them)");
	if (jscan_peek(&r) >= 0) jscan_fail(&r, "more data after the profile");
	jscan_free(&r);
	input_close(in);
	for (int i = 0; i < 4; i++) cursor_close(&G.cur[i]);
}

/* its options, for getopt_long and the registry (readers/registry.h) */
const struct option gecko_longopts[] = {
	{ "samples", no_argument, 0, 's' },
	{ "max-frames", required_argument, 0, 'f' + 256 },
	CLI_OUT_LONGOPTS,
	CLI_STD_LONGOPTS,
	{ 0, 0, 0, 0 }
};
const char gecko_shortopts[] = "so:zhV";

/* the converter gecko2spaa: argv as it gets it (argv[0] its name); the
 * exit status (readers/readers.h) */
int gecko_read(int argc, char **argv)
{
	const char *outpath = NULL;
	bool zstd = false;
	int c;
	G.max_frames = 512;
	G.cut = NONE;
	while ((c = getopt_long(argc, argv, gecko_shortopts, gecko_longopts, NULL)) != -1) {
		switch (c) {
		case 's': G.samples = true; break;
		case 'f' + 256: G.max_frames = (uint32_t)opt_range("--max-frames", optarg, 1, 1000000); break;
		CLI_OUT_CASES(outpath, zstd);
		CLI_STD_CASES(help);
		}
	}
	const char *path = optind < argc ? argv[optind] : "-";
	several_inputs(argv + optind, argc - optind, &path, &outpath, &zstd);
	G.fname = strcmp(path, "-") ? path : "-";
	for (int i = 0; i < 3; i++) G.ev[i] = -1;
	json_doc_init(&G.doc);
	tabs_init(&G.shared);
	G.b = builder_new();
	builder_source_tool(G.b, "gecko");
	/* read twice: standard input is first copied */
	char *again = input_rereadable(path);
	pass(again, 1);
	pass(again, 2);
	free(again);
	if (!G.nsamples) die_no_stacks(G.fname, "no thread has a sample with a stack");
	if (G.ncut)
		warn_at(G.fname, 0, "%llu stack%s of more than %u frames: cut to the %u innermost under [truncated] (--max-frames)",
			(unsigned long long)G.ncut, G.ncut == 1 ? "" : "s", G.max_frames, G.max_frames);
	reader_finish(G.b, outpath, zstd);
	return EXIT_OK;
}
