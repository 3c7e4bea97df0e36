/* v8log2spaa - V8's tick log (node --prof, d8 --prof: isolate-*-v8.log),
 * and the JSON that `node --prof-process --preprocess` makes of it, to SPAA.
 *
 * The story.  The first bytes say which of the two it is (a JSON object, or
 * log lines).  The log is read line by line, once: code-creation,
 * code-move, code-delete and sfi-move lines keep a map of the code that
 * exists at that moment (v8code.h), shared-library lines
 * the libraries; each tick line is resolved there and then, as V8's tick
 * processor (tools/tickprocessor.mjs, profile.mjs) resolves it: the pc (or
 * the external callback), the top of the stack when it is a JS function,
 * then the return addresses; the pc alone gives "[unknown]" when no code
 * holds it, the others are dropped then.  Addresses in generated code name
 * the JS function (its name and script:line:col as V8 prints them) or the
 * code object ("Builtin: X", "BytecodeHandler: X", ...); addresses in a
 * shared library are named from its ELF symbols (elfsym.h, libdw: what
 * prof-process asks nm for), demangled.  Memory: the code map and the
 * distinct frames and stacks, never the ticks.
 *
 * The preprocessed JSON has the tick processor's own resolution: "code" (a
 * table: name, type JS / CODE / CPP / SHARED_LIB, kind) and "ticks" (each
 * {tm, vm, s: [code index, offset, ...]}, index -1 for an address no code
 * holds).  It is read in two passes over the same bytes (jscan.h): the code
 * table, then the ticks, whatever the order of the members. */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "readers.h"
#include "build.h"
#include "reader.h"
#include "cli.h"
#include "demangle.h"
#include "elfsym.h"
#include "idmap.h"
#include "input.h"
#include "jscan.h"
#include "json.h"
#include "num.h"
#include "output.h"
#include "several.h"
#include "sniff.h"
#include "spaa.h"
#include "strmap.h"
#include "util.h"
#include "v8code.h"

static const char help[] =
"Usage: v8log2spaa [OPTION]... [FILE]...\n"
"Convert a V8 tick log (node --prof: isolate-*-v8.log), or the JSON of\n"
"node --prof-process --preprocess, to a SPAA 1.0 profile; which of the two\n"
"is told by the content.  Several FILEs are converted one by one and merged\n"
"as spaa-cat --merge merges them.  With no FILE, or when FILE is -, read\n"
"standard input (zstd and gzip allowed).\n"
"\n"
"Event \"ticks\", metric samples (one per tick); the VM state of each tick\n"
"is the stack's context member x_v8_vm_state.\n"
"\n"
"  -s, --samples        also write one sample record per tick, at its time\n"
"                       (seconds since the process started)\n"
"      --root=DIR       look for the shared libraries under DIR (a copy of\n"
"                       the profiled machine's files)\n"
CLI_HELP_TAIL;

#define NONE UINT32_MAX

/* ---- frames: one naming for both inputs ---------------------------------- */

static struct {
	bool samples;
	const char *fname, *root;
	builder *b;
	uint32_t midx;
	sbuf tmp, tmp2;
	uint64_t ticks;
	uint32_t *stack;
	uint32_t scap;
} P;

static uint32_t add_frame(sstr func, sstr dso, sstr src, const char *kind, bool resolved)
{
	sbuf *x = &P.tmp2;
	x->n = 0;
	sbuf_printf(x, "\"x_kind\":\"%s\"", kind);
	sbuf_addc(x, 0);
	builder_frame f = {
		.func = func,
		.dso = builder_dso(P.b, dso.p, dso.n, false),
		.kind = FK_USER,
		.func_resolved = resolved,
		.inline_depth = -1,
		.srcline = src,
		.extra_json = x->p,
	};
	return builder_frame_add(P.b, &f);
}

/* A JS function as V8 names it: "NAME SCRIPT:LINE:COL", "NAME" alone,
 * " SCRIPT:LINE:COL" (no name). */
static uint32_t frame_js(const char *s, size_t n)
{
	size_t sp = n;
	/* the location: after the last blank, when it ends in :LINE:COL */
	for (size_t i = n; i-- > 0;)
		if (s[i] == ' ') {
			size_t j = n, colons = 0;
			while (j > i + 1 && colons < 2) {
				size_t k = j;
				while (k > i + 1 && s[k - 1] >= '0' && s[k - 1] <= '9') k--;
				if (k == j || k <= i + 1 || s[k - 1] != ':') break;
				colons++;
				j = k - 1;
			}
			if (colons == 2 && j > i + 1) sp = i;
			break;
		}
	sstr func = { s, sp };
	sstr src = { s + sp + 1, n - sp - 1 };
	if (sp == n) {
		if (!func.n) func = sstr_c("<anonymous>");
		return add_frame(func, sstr_c("[js]"), SSTR_NULL, "js", true);
	}
	if (!func.n) {
		/* no name: named by where it is, as prof-process names it
		 * ("<anonymous> app.js:6:22"), each its own function; never
		 * a name that starts with '(', which folded stacks drop */
		sbuf *t = &P.tmp;
		t->n = 0;
		sbuf_adds(t, "<anonymous> ");
		sbuf_add(t, src.p, src.n);
		func = (sstr){ t->p, t->n };
	}
	size_t fl = src.n; /* the script: src less ":LINE:COL" */
	for (int c = 0; c < 2; c++)
		while (fl > 0 && src.p[--fl] != ':') {}
	return add_frame(func, (sstr){ src.p, fl }, src, "js", true);
}

/* V8's code objects as prof-process names them: "Builtin: ArrayMap". */
static uint32_t frame_code(sstr type, const char *name, size_t n)
{
	sbuf *t = &P.tmp;
	t->n = 0;
	sbuf_add(t, type.p, type.n);
	sbuf_add(t, ": ", 2);
	sbuf_add(t, name, n);
	return add_frame((sstr){ t->p, t->n }, sstr_c("[v8]"), SSTR_NULL, "v8", true);
}

static uint32_t frame_native(const char *lib, const char *name, size_t n)
{
	sbuf *t = &P.tmp;
	t->n = 0;
	sstr func = { name, n };
	if (demangle_name(name, n, DEMANGLE_NM, t)) func = (sstr){ t->p, t->n }; /* as prof-process's nm -C */
	return add_frame(func, sstr_c(lib), SSTR_NULL, "native", true);
}

/* An address in a library that no symbol holds: its offset there. */
static uint32_t frame_lib_addr(const char *lib, uint64_t off)
{
	char hex[24];
	size_t n = fmt_hex(hex, off, 1);
	return add_frame((sstr){ hex, n }, sstr_c(lib), SSTR_NULL, "native", false);
}

static uint32_t unknown_frame = NONE;
static uint32_t frame_unknown(void)
{
	if (unknown_frame == NONE)
		unknown_frame = add_frame(sstr_c("[unknown]"), sstr_c("[unknown]"), SSTR_NULL, "unknown", true);
	return unknown_frame;
}

/* One tick: frames[0..n) leaf first. */
static void add_tick(uint32_t n, int64_t vm, bool has_tm, int64_t tm)
{
	char ctx[48];
	int k = snprintf(ctx, sizeof ctx, "\"x_v8_vm_state\":%lld", (long long)vm);
	builder_ctx c = { .event = 0, .extra_json = { ctx, (size_t)k } };
	num one = num_i(1);
	uint32_t s = builder_stack(P.b, &c, P.stack, n, &P.midx, &one, 1);
	if (P.samples) builder_sample(P.b, s, has_tm, (double)tm / 1e6, NULL);
	P.ticks++;
}

static uint32_t *stack_slot(uint32_t n)
{
	if (n >= P.scap) grow_array((void **)&P.stack, &P.scap, n + 1, sizeof *P.stack);
	return &P.stack[n];
}

/* ---- the log: the code map ----------------------------------------------- */

/* The code (v8code.h): tag CODE_JS, val the function (F.fn); tag
 * CODE_V8, val the name "CTYPE: NAME" (F.names). */
enum { CODE_V8, CODE_JS };

struct fn { uint32_t name, frame; };

static struct {
	v8code code;
	struct fn *fn;
	uint32_t nfn, fncap;
	idmap sfi;            /* SharedFunctionInfo address -> slot of sfi_fn */
	uint32_t *sfi_fn, nsfi, sfi_cap;
	strmap names;         /* code names, and function names */
	uint32_t *name_frame, nfcap;
	struct lib { char *path; uint64_t start, end; } *lib;
	uint32_t nlib, libcap;
	idmap pcs;            /* library address -> frame */
	elfsym *es;
	uint64_t line;
	bool have_interval;
} F;

static noreturn void bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static noreturn void bad(const char *fmt, ...)
{
	char m[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m, sizeof m, fmt, ap);
	va_end(ap);
	die_at(P.fname, F.line, "%s", m);
}

/* ---- the log: fields ----------------------------------------------------- */

static char **fld;
static uint32_t nfld, fldcap;

/* "\\uXXXX" at p, before end */
static bool u_escape(const char *p, const char *end)
{
	return end - p >= 6 && p[0] == '\\' && p[1] == 'u' && c_hex(p[2]) && c_hex(p[3]) && c_hex(p[4]) &&
	       c_hex(p[5]);
}

static unsigned u_value(const char *p)
{
	unsigned u = 0;
	for (int k = 2; k < 6; k++) u = u * 16 + (unsigned)c_hexval(p[k]);
	return u;
}

/* Splits line into fields at commas, decoding V8's escapes (\x2C, \n,
 * \uXXXX, \\) and the double quotes of older V8s, in place. */
static void split_fields(char *p, size_t n)
{
	nfld = 0;
	char *end = p + n, *w = p;
	if (n && end[-1] == '\r') end--;
	for (;;) {
		*VEC_PUSH(fld, nfld, fldcap) = w;
		if (p < end && *p == '"') {
			p++;
			while (p < end && !(*p == '"' && (p + 1 == end || p[1] == ','))) {
				if (*p == '"' && p + 1 < end && p[1] == '"') p++;
				*w++ = *p++;
			}
			if (p == end) bad("a quoted field that does not end");
			p++;
		}
		while (p < end && *p != ',') {
			if (*p == '\\' && p + 1 < end) {
				char c = p[1];
				int hv;
				if (c == 'x' && p + 3 < end && c_hex(p[2]) && c_hex(p[3])) {
					/* a Latin-1 character (V8 writes those above 0x7e so) */
					hv = c_hexval(p[2]) * 16 + c_hexval(p[3]);
					if (hv == 0) hv = '?';
					if (hv < 0x80) {
						*w++ = (char)hv;
					} else {
						*w++ = (char)(0xC0 | hv >> 6);
						*w++ = (char)(0x80 | (hv & 63));
					}
					p += 4;
					continue;
				}
				if (c == 'u' && u_escape(p, end)) {
					unsigned u = u_value(p);
					size_t used = 6;
					if (!u) u = '?';
					/* UTF-8; a surrogate pair is one character, a lone
					 * surrogate U+FFFD */
					if (u >= 0xD800 && u < 0xDC00 && u_escape(p + 6, end)) {
						unsigned lo = u_value(p + 6);
						if (lo >= 0xDC00 && lo < 0xE000) {
							u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
							used = 12;
						}
					}
					if (u >= 0xD800 && u < 0xE000) u = 0xFFFD;
					if (u >= 0x10000) {
						*w++ = (char)(0xF0 | u >> 18);
						*w++ = (char)(0x80 | ((u >> 12) & 63));
						*w++ = (char)(0x80 | ((u >> 6) & 63));
						*w++ = (char)(0x80 | (u & 63));
					} else if (u < 0x80) {
						*w++ = (char)u;
					} else if (u < 0x800) {
						*w++ = (char)(0xC0 | u >> 6);
						*w++ = (char)(0x80 | (u & 63));
					} else {
						*w++ = (char)(0xE0 | u >> 12);
						*w++ = (char)(0x80 | ((u >> 6) & 63));
						*w++ = (char)(0x80 | (u & 63));
					}
					p += used;
					continue;
				}
				if (c == 'n') {
					*w++ = '\n';
					p += 2;
					continue;
				}
				if (c == '\\') {
					*w++ = '\\';
					p += 2;
					continue;
				}
			}
			*w++ = *p++;
		}
		bool more = p < end;
		*w++ = 0;
		if (!more) break;
		p++;
	}
}

static bool hexnum(const char *s, uint64_t *v)
{
	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || !s[2]) return false;
	uint64_t x = 0;
	for (const char *q = s + 2; *q; q++) {
		int h = c_hexval(*q);
		if (h < 0 || x >> 60) return false;
		x = x << 4 | (uint64_t)h;
	}
	*v = x;
	return true;
}

/* A number as V8 writes it: hex with 0x, else decimal (maybe negative). */
static bool anynum(const char *s, int64_t *v)
{
	uint64_t u;
	if (hexnum(s, &u)) {
		*v = (int64_t)u;
		return true;
	}
	const char *q = s;
	bool neg = *q == '-';
	if (neg) q++;
	if (!*q) return false;
	int64_t x = 0;
	for (; *q; q++) {
		if (*q < '0' || *q > '9') return false;
		if (__builtin_mul_overflow(x, 10, &x) || __builtin_add_overflow(x, *q - '0', &x)) return false;
	}
	*v = neg ? -x : x;
	return true;
}

static uint64_t addr_at(uint32_t i, const char *what)
{
	uint64_t v;
	if (i >= nfld) bad("%s: no %s", fld[0], what);
	if (!hexnum(fld[i], &v)) bad("%s: %s \"%.40s\" is not a hex address", fld[0], what, fld[i]);
	return v;
}

static int64_t int_at(uint32_t i, const char *what)
{
	int64_t v;
	if (i >= nfld) bad("%s: no %s", fld[0], what);
	if (!anynum(fld[i], &v)) bad("%s: %s \"%.40s\" is not a number", fld[0], what, fld[i]);
	return v;
}

/* ---- the log: its lines --------------------------------------------------- */

static uint32_t intern(const char *p, size_t n)
{
	uint32_t i = strmap_intern(&F.names, p, n, NULL);
	if (i >= F.nfcap) {
		uint32_t old = F.nfcap;
		grow_array((void **)&F.name_frame, &F.nfcap, i + 1, sizeof *F.name_frame);
		for (uint32_t k = old; k < F.nfcap; k++) F.name_frame[k] = NONE;
	}
	return i;
}

static void code_creation(void)
{
	/* code-creation,TYPE[,KIND[,TIME]],START,SIZE,NAME[,SFI,STATE] */
	uint32_t a = 2;
	uint64_t start, sfi = 0;
	while (a < nfld && a < 4 && !hexnum(fld[a], &start)) a++;
	start = addr_at(a, "code start");
	int64_t size = int_at(a + 1, "code size");
	if (size < 0) bad("code-creation: a negative code size");
	if (a + 2 >= nfld) bad("code-creation: no code name");
	const char *name = fld[a + 2];
	bool js = a + 3 < nfld && fld[a + 3][0];
	if (js) sfi = addr_at(a + 3, "function address");
	uint32_t nm;
	if (js) {
		sbuf *t = &P.tmp;
		t->n = 0;
		sbuf_addc(t, 'J');
		sbuf_adds(t, name);
		nm = intern(t->p, t->n);
		bool added;
		uint32_t slot = idmap_put(&F.sfi, (int64_t)sfi, F.nsfi, &added);
		if (added) {
			*VEC_PUSH(F.sfi_fn, F.nsfi, F.sfi_cap) = NONE;
		}
		uint32_t f = F.sfi_fn[slot];
		if (f == NONE) {
			f = F.nfn;
			*VEC_PUSH(F.fn, F.nfn, F.fncap) = (struct fn){ nm, NONE };
			F.sfi_fn[slot] = f;
		} else if (F.fn[f].name != nm) {
			F.fn[f] = (struct fn){ nm, NONE }; /* a new function at the old address */
		}
		const v8code_ent *e = v8code_at(&F.code, start);
		if (e && e->tag == CODE_JS && e->val == f && e->size == (uint64_t)size)
			return; /* the same code, in a new state */
		v8code_add(&F.code, start, (uint64_t)size, CODE_JS, f);
		return;
	}
	/* the name as prof-process prints it: "Builtin: ArrayMap" */
	sbuf *t = &P.tmp;
	t->n = 0;
	sbuf_addc(t, 'C');
	sbuf_adds(t, fld[1]);
	sbuf_add(t, ": ", 2);
	sbuf_adds(t, name);
	nm = intern(t->p, t->n);
	v8code_add(&F.code, start, (uint64_t)size, CODE_V8, nm);
}

static void code_move(void)
{
	uint64_t from = addr_at(1, "code address"), to = addr_at(2, "new code address");
	/* code the log never created: prof-process passes over it too */
	v8code_move(&F.code, from, to);
}

static void sfi_move(void)
{
	uint64_t from = addr_at(1, "function address"), to = addr_at(2, "new function address");
	uint32_t s = idmap_get(&F.sfi, (int64_t)from);
	if (s == NONE || F.sfi_fn[s] == NONE) return;
	uint32_t f = F.sfi_fn[s];
	F.sfi_fn[s] = NONE;
	bool added;
	uint32_t slot = idmap_put(&F.sfi, (int64_t)to, F.nsfi, &added);
	if (added) *VEC_PUSH(F.sfi_fn, F.nsfi, F.sfi_cap) = NONE;
	F.sfi_fn[slot] = f;
}

static void shared_library(void)
{
	if (nfld < 4) bad("shared-library: fewer than 3 fields");
	uint64_t start = addr_at(2, "library start"), end = addr_at(3, "library end");
	if (end < start) bad("shared-library: the end is below the start");
	struct lib *l = VEC_PUSH(F.lib, F.nlib, F.libcap);
	l->path = xstrdup(fld[1]);
	l->start = start;
	l->end = end;
}

static uint32_t frame_of_code(const v8code_ent *c)
{
	bool js = c->tag == CODE_JS;
	uint32_t nm = js ? F.fn[c->val].name : c->val;
	if (F.name_frame[nm] != NONE) return F.name_frame[nm];
	size_t n;
	const char *s = strmap_key(&F.names, nm, &n);
	uint32_t fr;
	if (js) {
		fr = frame_js(s + 1, n - 1);
	} else {
		fr = add_frame((sstr){ s + 1, n - 1 }, sstr_c("[v8]"), SSTR_NULL, "v8", true);
	}
	F.name_frame[nm] = fr;
	return fr;
}

/* The frame of offset off in library lib: the symbol that holds it, else
 * the offset.  The log and the JSON (whose ticks in a library keep the
 * offset, prof-process having found no symbol there) both name it so. */
static uint32_t frame_lib_off(const char *lib, uint64_t off)
{
	elfsym_res res;
	if (!F.es) F.es = elfsym_new(P.root, NULL);
	int w = elfsym_lookup(F.es, lib, off, true, &res);
	if (w == ES_OK && res.n) return frame_native(lib, res.func[res.n - 1], strlen(res.func[res.n - 1]));
	return frame_lib_addr(lib, off);
}

/* The frame of an address outside generated code: a library's, else NONE. */
static uint32_t frame_of_lib_addr(uint64_t pc)
{
	uint32_t fr = idmap_get(&F.pcs, (int64_t)pc);
	if (fr != NONE) return fr == NONE - 1 ? NONE : fr;
	const struct lib *l = NULL;
	for (uint32_t i = F.nlib; i-- > 0;)
		if (pc >= F.lib[i].start && pc < F.lib[i].end && (!l || F.lib[i].end > l->end)) l = &F.lib[i];
	fr = l ? frame_lib_off(l->path, pc - l->start) : NONE;
	bool added;
	idmap_put(&F.pcs, (int64_t)pc, fr == NONE ? NONE - 1 : fr, &added);
	return fr;
}

/* The frame at address pc (NONE: no code holds it); *js: a JS function's. */
static uint32_t frame_at(uint64_t pc, bool *js)
{
	const v8code_ent *c = v8code_find(&F.code, pc);
	if (js) *js = c && c->tag == CODE_JS;
	if (c) return frame_of_code(c);
	return frame_of_lib_addr(pc);
}

static void tick(void)
{
	/* tick,PC,TIME,IS_EXTERNAL_CALLBACK,TOS_OR_CALLBACK,VM_STATE,FRAME... */
	uint64_t pc = addr_at(1, "pc");
	int64_t tm = int_at(2, "time");
	int64_t ext = int_at(3, "external callback flag");
	uint64_t tos = addr_at(4, "top of stack");
	int64_t vm = int_at(5, "VM state");
	uint32_t n = 0;
	if (ext) {
		pc = tos; /* in the callback: its address, not the pc */
		tos = 0;
	}
	uint32_t fr = frame_at(pc, NULL);
	*stack_slot(n++) = fr == NONE ? frame_unknown() : fr;
	if (tos) {
		bool js;
		fr = frame_at(tos, &js);
		if (fr != NONE && js) *stack_slot(n++) = fr;
	}
	uint64_t prev = pc;
	for (uint32_t i = 6; i < nfld; i++) {
		const char *s = fld[i];
		uint64_t a;
		if (s[0] == '+' || s[0] == '-') {
			/* an offset from the frame before */
			uint64_t d;
			char tmp[24];
			size_t k = strlen(s + 1);
			if (k > 16) bad("tick: frame offset \"%.40s\" is not hex", s);
			tmp[0] = '0', tmp[1] = 'x';
			memcpy(tmp + 2, s + 1, k + 1);
			if (!hexnum(tmp, &d)) bad("tick: frame offset \"%.40s\" is not hex", s);
			a = s[0] == '+' ? prev + d : prev - d;
		} else if (s[0] == 'o') {
			continue; /* "overflow": the stack was cut */
		} else if (!hexnum(s, &a)) {
			bad("tick: frame \"%.40s\" is not a hex address", s);
		}
		prev = a;
		fr = frame_at(a, NULL);
		if (fr != NONE) *stack_slot(n++) = fr;
	}
	builder_where(P.b, P.fname, F.line);
	add_tick(n, vm, true, tm);
}

static void read_log(input *in)
{
	char *l;
	size_t n;
	bool any = false;
	v8code_init(&F.code);
	while ((l = input_line(in, &n))) {
		F.line = input_lineno(in);
		if (!n) continue;
		any = true;
		split_fields(l, n);
		const char *k = fld[0];
		if (!strcmp(k, "tick")) tick();
		else if (!strcmp(k, "code-creation")) code_creation();
		else if (!strcmp(k, "code-move")) code_move();
		else if (!strcmp(k, "code-delete")) {
			v8code_delete(&F.code, addr_at(1, "code address"));
		} else if (!strcmp(k, "sfi-move")) sfi_move();
		else if (!strcmp(k, "shared-library")) shared_library();
		else if (!strcmp(k, "v8-version") && nfld >= 5) {
			sbuf *t = &P.tmp;
			t->n = 0;
			sbuf_printf(t, "%s.%s.%s.%s%s", fld[1], fld[2], fld[3], fld[4], nfld > 5 ? fld[5] : "");
			builder_source_str(P.b, "tool_version", t->p, t->n);
		} else if (!strcmp(k, "profiler") && nfld >= 3 && !strcmp(fld[1], "begin") && !F.have_interval) {
			int64_t us;
			if (anynum(fld[2], &us) && us > 0) {
				char b[48];
				snprintf(b, sizeof b, "%lld", (long long)us);
				builder_source_json(P.b, "interval_us", b);
				F.have_interval = true;
			}
		}
		/* the rest (code-source-info, script-source, new, delete, heap-*,
		 * timer-event, code-deopt, ...) does not change what ticks are */
	}
	if (!any) die_empty_input(P.fname);
	if (input_damage(in)) bad("the input is %s", input_damage(in));
}

/* ---- the preprocessed JSON ------------------------------------------------ */

/* The input and reader open at the moment: closed on an exit through die()
 * too (the fuzz target runs main again in the same process). */
static input *open_in;
static jscan open_r;
static bool open_r_on;

static void close_open(void)
{
	if (open_r_on) jscan_free(&open_r);
	open_r_on = false;
	if (open_in) input_close(open_in);
	open_in = NULL;
}

static jscan *open_json(const char *path)
{
	close_open();
	open_in = input_open(path);
	jscan_init(&open_r, open_in, P.fname);
	open_r_on = true;
	return &open_r;
}

enum ctype { CT_JS, CT_CODE, CT_CPP, CT_LIB, CT_OTHER };
static struct jcode { uint8_t type; uint32_t name, kind, lib, frame; } *JC;
static uint32_t njc, jccap;
static strmap jnames;
static json_doc doc;

static uint32_t jintern(const char *p, size_t n) { return strmap_intern(&jnames, p, n, NULL); }

static void read_code(jscan *r)
{
	bool first = true;
	uint32_t lib = NONE;
	jscan_open(r, '[', "\"code\" (an array)");
	while (jscan_more(r, &first, ']')) {
		jscan_doc(r, &doc);
		if (doc.nodes[0].type != JSON_OBJECT) jscan_fail(r, "code entry %u is not an object", njc);
		struct jcode *c = VEC_PUSH(JC, njc, jccap);
		*c = (struct jcode){ CT_OTHER, NONE, NONE, NONE, NONE };
		uint32_t v = json_get(&doc, 0, "type");
		sstr ty = v && doc.nodes[v].type == JSON_STRING ? (sstr){ doc.nodes[v].str, doc.nodes[v].count } : SSTR_NULL;
		if (sstr_eqc(ty, "JS")) c->type = CT_JS;
		else if (sstr_eqc(ty, "CODE")) c->type = CT_CODE;
		else if (sstr_eqc(ty, "CPP")) c->type = CT_CPP;
		else if (sstr_eqc(ty, "SHARED_LIB")) c->type = CT_LIB;
		v = json_get(&doc, 0, "name");
		if (!v || doc.nodes[v].type != JSON_STRING) jscan_fail(r, "code entry %u has no \"name\" string", njc - 1);
		c->name = jintern(doc.nodes[v].str, doc.nodes[v].count);
		v = json_get(&doc, 0, "kind");
		if (v && doc.nodes[v].type == JSON_STRING) c->kind = jintern(doc.nodes[v].str, doc.nodes[v].count);
		else if (ty.p) c->kind = jintern(ty.p, ty.n);
		if (c->type == CT_LIB) lib = c->name;
		c->lib = lib;
	}
}

static bool jpass1(const char *path)
{
	jscan *r = open_json(path);
	jscan_start(r);
	jscan_open(r, '{', "the profile (an object)");
	bool first = true, code = false, ticks = false;
	while (jscan_more(r, &first, '}')) {
		sstr k = jscan_key(r);
		if (sstr_eqc(k, "code")) {
			if (code) jscan_fail(r, "a second \"code\" array");
			code = true;
			read_code(r);
		} else {
			if (sstr_eqc(k, "ticks")) ticks = true;
			jscan_skip(r); /* functions, scripts */
		}
	}
	if (jscan_peek(r) >= 0) jscan_fail(r, "more data after the profile");
	if (!code || !ticks)
		jscan_fail(r, "not the JSON of node --prof-process --preprocess: no \"%s\" array",
			   code ? "ticks" : "code");
	close_open();
	return true;
}

static uint32_t jframe(jscan *r, int64_t idx, int64_t off)
{
	if (idx < 0 || (uint64_t)idx >= njc) jscan_fail(r, "a tick names code %lld, which \"code\" does not have", (long long)idx);
	struct jcode *c = &JC[idx];
	if (c->type == CT_LIB && off >= 0) {
		size_t n;
		const char *lib = strmap_key(&jnames, c->name, &n);
		/* each offset its own: cached by library and offset */
		bool added;
		int64_t key = -2 - (int64_t)(((uint64_t)idx << 40) | ((uint64_t)off & ((1ull << 40) - 1)));
		bool cache = (uint64_t)off < 1ull << 40 && (uint64_t)idx < 1ull << 22;
		uint32_t fr = cache ? idmap_get(&F.pcs, key) : NONE;
		if (fr != NONE) return fr;
		fr = frame_lib_off(lib, (uint64_t)off);
		if (cache) idmap_put(&F.pcs, key, fr, &added);
		return fr;
	}
	if (c->frame != NONE) return c->frame;
	size_t n, kn, ln = 0;
	const char *s = strmap_key(&jnames, c->name, &n);
	const char *kind = c->kind != NONE ? strmap_key(&jnames, c->kind, &kn) : (kn = 4, "CODE");
	switch (c->type) {
	case CT_JS: c->frame = frame_js(s, n); break;
	case CT_CPP: {
		/* older tools kept nm's type letter: "T _name" */
		if (n > 2 && strchr("tTwW", s[0]) && s[1] == ' ') s += 2, n -= 2;
		const char *lib = c->lib != NONE ? strmap_key(&jnames, c->lib, &ln) : "[unknown]";
		c->frame = frame_native(lib, s, n);
		break;
	}
	case CT_LIB: c->frame = frame_lib_addr(s, 0); break;
	default: c->frame = frame_code((sstr){ kind, kn }, s, n); break;
	}
	return c->frame;
}

static void jpass2(const char *path)
{
	jscan *r = open_json(path);
	jscan_start(r);
	jscan_open(r, '{', "the profile (an object)");
	bool first = true;
	for (;;) {
		if (!jscan_more(r, &first, '}')) jscan_fail(r, "no \"ticks\"");
		if (sstr_eqc(jscan_key(r), "ticks")) break;
		jscan_skip(r);
	}
	jscan_open(r, '[', "\"ticks\" (an array)");
	bool tf = true;
	uint64_t nt = 0;
	while (jscan_more(r, &tf, ']')) {
		jscan_doc(r, &doc);
		nt++;
		if (doc.nodes[0].type != JSON_OBJECT) jscan_fail(r, "tick %llu is not an object", (unsigned long long)nt);
		int64_t tm = 0, vm = 0;
		uint32_t v = json_get(&doc, 0, "tm");
		bool has_tm = v && json_int64(&doc, v, &tm);
		v = json_get(&doc, 0, "vm");
		if (v && !json_int64(&doc, v, &vm)) jscan_fail(r, "tick %llu: \"vm\" is not a whole number", (unsigned long long)nt);
		uint32_t s = json_get(&doc, 0, "s");
		if (!s || doc.nodes[s].type != JSON_ARRAY || doc.nodes[s].count % 2)
			jscan_fail(r, "tick %llu: \"s\" is not an array of (code, offset) pairs", (unsigned long long)nt);
		uint32_t n = 0, k = 0;
		int64_t idx = 0;
		uint32_t cnt = doc.nodes[s].count;
		for (uint32_t e = json_first(&doc, s); k < cnt; e = json_after(&doc, e), k++) {
			int64_t x;
			if (!json_int64(&doc, e, &x)) jscan_fail(r, "tick %llu: \"s\" holds a value that is not a whole number", (unsigned long long)nt);
			if (!(k & 1)) {
				idx = x;
				continue;
			}
			if (idx == -1) {
				if (k == 1) *stack_slot(n++) = frame_unknown(); /* only the pc counts */
				continue;
			}
			*stack_slot(n++) = jframe(r, idx, x);
		}
		if (!n) *stack_slot(n++) = frame_unknown();
		add_tick(n, vm, has_tm, tm);
	}
	close_open();
}

/* ---- main ------------------------------------------------------------------ */

/* its options, for getopt_long and the registry (readers/registry.h) */
const struct option v8log_longopts[] = {
	{ "samples", no_argument, 0, 's' },
	{ "root", required_argument, 0, 'R' + 256 },
	CLI_OUT_LONGOPTS,
	CLI_STD_LONGOPTS,
	{ 0, 0, 0, 0 }
};
const char v8log_shortopts[] = "so:zhV";

/* the converter v8log2spaa: argv as it gets it (argv[0] its name); the
 * exit status (readers/readers.h) */
int v8log_read(int argc, char **argv)
{
	const char *outpath = NULL;
	bool zstd = false;
	int c;
	while ((c = getopt_long(argc, argv, v8log_shortopts, v8log_longopts, NULL)) != -1) {
		switch (c) {
		case 's': P.samples = true; break;
		case 'R' + 256: P.root = optarg; break;
		CLI_OUT_CASES(outpath, zstd);
		CLI_STD_CASES(help);
		}
	}
	const char *path = optind < argc ? argv[optind] : "-";
	several_inputs(argv + optind, argc - optind, &path, &outpath, &zstd);
	P.fname = strcmp(path, "-") ? path : "-";
	P.b = builder_new();
	builder_source_tool(P.b, "v8-prof");
	builder_event(P.b, "ticks", "timer", "frequency", "samples", NULL);
	P.midx = builder_metric(P.b, "samples", NULL);
	strmap_init(&F.names);
	strmap_init(&jnames);
	json_doc_init(&doc);

	/* read twice when JSON: standard input is first copied */
	char *again = input_rereadable(path);
	cli_atexit(close_open);
	input *in = open_in = input_open(again);
	input_keep_truncated(in); /* a cut log: the ticks before the cut are read */
	const void *p;
	size_t n = input_peek(in, &p, 4096), i = 0;
	const char *s = p;
	if (!n && input_damage(in)) die_at(P.fname, 0, "the input is %s", input_damage(in));
	if (!n) die_empty_input(P.fname);
	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) i++;
	bool json = i < n && s[i] == '{';
	sniff_refuse_other(in, "v8log2spaa", json ? "the JSON of node --prof-process --preprocess" : "a V8 tick log");
	if (json) {
		close_open();
		jpass1(again);
		jpass2(again);
	} else {
		read_log(in);
		close_open();
	}
	free(again);
	if (!P.ticks) die_no_stacks(P.fname, "no tick %s", json ? "in \"ticks\"" : "lines");
	reader_finish(P.b, outpath, zstd);
	return EXIT_OK;
}
