/* jfr2spaa - Java Flight Recorder recordings (what the JDK's
 * -XX:StartFlightRecording and jcmd JFR.dump write, and async-profiler's
 * JFR output) to SPAA.
 *
 * The story: the file is read whole; it is a sequence of chunks, each a
 * 68-byte header (magic "FLR\0", version, the chunk's size, the offsets of
 * its last constant-pool checkpoint and of its metadata, times, ticks per
 * second, features) followed by events.  Each event begins with its size
 * and its type id, both compressed integers (7 bits a byte, the 9th byte
 * all 8 bits) when the features say so.  The metadata event (type 0)
 * describes every class and its fields; the checkpoint events (type 1)
 * hold the constant pools (stack traces, methods, classes, symbols,
 * threads, frame types), chained backwards by a delta from the one the
 * header names.  Pool entries are found first (their offsets only) and
 * decoded when an event needs them, once each.  Every event type with a
 * stackTrace field becomes one SPAA event named as the JFR type, weighed
 * by what it counts: samples, allocated bytes or its duration. */
#include <getopt.h>
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
"Usage: jfr2spaa [OPTION]... [FILE]...\n"
"Convert Java Flight Recorder recordings (the JDK's .jfr files, and\n"
"async-profiler's JFR output) to a SPAA 1.0 profile; several FILEs are\n"
"converted one by one and merged as spaa-cat --merge merges them.  With no\n"
"FILE, or when FILE is -, read standard input (zstd and gzip allowed).\n"
"\n"
"One event per JFR event type that has stack traces, named as the type:\n"
"jdk.ExecutionSample and jdk.NativeMethodSample weigh samples (and\n"
"async-profiler's profiler.WallClockSample the samples it stands for);\n"
"jdk.ObjectAllocationSample its weight, jdk.ObjectAllocationInNewTLAB its\n"
"tlabSize and jdk.ObjectAllocationOutsideTLAB its allocationSize, as\n"
"alloc_bytes; a type with a duration (jdk.JavaMonitorEnter, jdk.ThreadPark,\n"
"...) its duration as wall_ns; any other one its count.  Frames are\n"
"package.Class.method with the line, their JFR frame type as the dso\n"
"([Interpreted], [JIT compiled], [Inlined], [Native]); threads are named\n"
"by their Java name.\n"
CLI_HELP_TAIL;

/* ---- the bytes --------------------------------------------------------------- */

static struct {
	const char *fname;
	const unsigned char *start, *p, *end; /* end: of the current region */
	const unsigned char *file_end;
	uint64_t file_off;       /* of start (the chunk read) in the file */
	bool compressed;
} R;

noreturn static void bad_at(const unsigned char *at, const char *what)
{
	die_at(R.fname, 0, "byte %llu: %s (not a JFR recording, or damaged)",
	       (unsigned long long)(R.file_off + (uint64_t)(at - R.start)), what);
}

noreturn static void bad(const char *what) { bad_at(R.p, what); }

static void need(size_t n)
{
	if ((size_t)(R.end - R.p) < n) {
		if (R.end == R.file_end) {
			R.p = R.end;
			bad("the data ends in the middle of a value: the file is cut short");
		}
		bad("a value runs past the end of its event");
	}
}

static unsigned u8(void)
{
	need(1);
	return *R.p++;
}

static uint64_t raw(unsigned n)
{
	need(n);
	uint64_t x = 0;
	for (unsigned k = 0; k < n; k++) x = x << 8 | R.p[k];
	R.p += n;
	return x;
}

/* a compressed integer: 7 bits a byte, least significant first, the high
 * bit saying more follow; the 9th byte gives its 8 bits whole */
static uint64_t varint(void)
{
	uint64_t x = 0;
	for (unsigned k = 0; k < 8; k++) {
		unsigned b = u8();
		x |= (uint64_t)(b & 0x7f) << (7 * k);
		if (!(b & 0x80)) return x;
	}
	return x | (uint64_t)u8() << 56;
}

static uint64_t rd_long(void) { return R.compressed ? varint() : raw(8); }

static int64_t rd_int(void)
{
	const unsigned char *at = R.p;
	uint64_t x = R.compressed ? varint() : raw(4);
	/* (the JDK writes an int's 32 bits; a negative one sign-extended to
	 * 64 is taken too) */
	if (R.compressed && x > UINT32_MAX && ((int64_t)x < INT32_MIN || (int64_t)x >= 0))
		bad_at(at, "an int beyond 32 bits");
	return (int32_t)(uint32_t)x;
}

/* a count of things each at least one byte long */
static uint32_t rd_count(void)
{
	const unsigned char *at = R.p;
	int64_t n = rd_int();
	if (n < 0 || n > R.end - R.p) bad_at(at, "a count greater than the bytes left");
	return (uint32_t)n;
}

/* ---- the metadata: classes and their fields ------------------------------------- */

enum prim { P_NONE, P_BOOL, P_BYTE, P_CHAR, P_SHORT, P_INT, P_LONG, P_FLOAT, P_DOUBLE, P_STRING };

struct field { sstr name; uint64_t cls; bool cp, array; };

struct cls {
	uint64_t id;
	sstr name;
	enum prim prim;
	uint32_t fields, nfields;   /* into C.fields */
	/* events: the fields used (-1 none) and their SPAA event */
	int32_t f_stack, f_thread, f_duration, f_weight, f_samples;
	int32_t event;               /* -1: not yet made */
	bool has_stack;
	bool visiting;
};

/* a decoded value */
enum vk { V_NULL, V_INT, V_FLOAT, V_STR, V_REF, V_OBJ, V_ARR };
typedef struct val {
	uint8_t k;
	uint64_t i;                  /* V_INT; V_REF: the key */
	uint64_t cls;                /* V_REF, V_OBJ */
	sstr s;
	uint32_t n;                  /* V_OBJ, V_ARR */
	struct val *a;
} val;

/* a constant pool entry: where its value is, what it became */
struct entry { uint64_t off; val *v; void *memo; uint32_t memo_n; bool busy; };

static struct {
	struct cls *cls;
	uint32_t ncls, clscap;
	strmap ids;                  /* class id (8 bytes) -> index */
	struct field *fields;
	uint32_t nfields, fieldcap;
	strmap pool;                 /* (class id, key) -> index in entries */
	struct entry *entries;
	uint32_t nentries, entcap;
	arena mem;                   /* the chunk's: strings, entries' values */
	arena tmp;                   /* one event's */
	uint64_t ticks_per_sec;
	uint64_t string_id;          /* java.lang.String's class id */
	bool have_string;
} C;

static struct {
	builder *b;
	uint32_t m_samples, m_alloc, m_wall, m_count;
	bool have_m[4];
	uint32_t dso_none;
	uint64_t events;
	bool have_time;           /* the chunks' span, in ns since the epoch */
	int64_t t0, t1;
} S;

static int32_t class_index(uint64_t id)
{
	int64_t i = strmap_find(&C.ids, &id, sizeof id);
	return (int32_t)i;
}

static struct cls *class_of(uint64_t id, const unsigned char *at)
{
	int32_t i = class_index(id);
	if (i < 0) {
		char what[96];
		snprintf(what, sizeof what, "a value of class id %llu, which the metadata does not describe",
			 (unsigned long long)id);
		bad_at(at, what);
	}
	return &C.cls[i];
}

/* a string: null, empty, a constant pool reference, UTF-8, chars, Latin-1 */
static val *rd_string(arena *a, val *v)
{
	const unsigned char *at = R.p;
	unsigned enc = u8();
	if (v) *v = (val){ .k = V_STR };
	switch (enc) {
	case 0:
		if (v) v->k = V_NULL;
		return v;
	case 1:
		if (v) v->s = (sstr){ "", 0 };
		return v;
	case 2: {
		uint64_t key = rd_long();
		if (v) *v = (val){ .k = V_REF, .i = key, .cls = C.string_id };
		if (!C.have_string) bad_at(at, "a string in a constant pool, and no java.lang.String class");
		return v;
	}
	case 3: case 5: {
		uint32_t n = rd_count();
		const unsigned char *q = R.p;
		R.p += n;
		if (!v) return v;
		if (enc == 3) {
			v->s = (sstr){ arena_strdup(a, q, n), n };
		} else {
			sbuf t = { 0 };
			for (uint32_t k = 0; k < n; k++) sbuf_add_utf8(&t, q[k]);
			v->s = (sstr){ arena_strdup(a, t.p ? t.p : "", t.n), t.n };
			sbuf_free(&t);
		}
		return v;
	}
	case 4: {
		uint32_t n = rd_count();
		sbuf t = { 0 };
		for (uint32_t k = 0; k < n; k++) {
			uint64_t c = R.compressed ? varint() : raw(2);
			if (v) sbuf_add_utf8(&t, c > 0x10ffff ? 0xfffd : (uint32_t)c);
		}
		if (v) v->s = (sstr){ arena_strdup(a, t.p ? t.p : "", t.n), t.n };
		sbuf_free(&t);
		return v;
	}
	default: {
		char what[64];
		snprintf(what, sizeof what, "a string of encoding %u, which JFR does not write", enc);
		bad_at(at, what);
	}
	}
}

static val *rd_value(uint64_t cid, arena *a, unsigned depth);

static val *rd_item(const struct field *f, arena *a, unsigned depth, val *out)
{
	if (f->cp) {
		uint64_t key = rd_long();
		if (out) *out = (val){ .k = V_REF, .i = key, .cls = f->cls };
		return out;
	}
	val *v = rd_value(f->cls, a, depth + 1);
	if (out) *out = *v;
	return out;
}

/* the value of class cid at R.p; with no arena only passed over (the
 * value returned then is not to be used) */
static val dummy;
static val *rd_value(uint64_t cid, arena *a, unsigned depth)
{
	const unsigned char *at = R.p;
	if (depth > 32) bad_at(at, "values nested more than 32 deep");
	/* classes whose values take no bytes, each holding two of the next,
	 * would make one value of no bytes a tree of 2^32: the values one
	 * value holds are bounded by its bytes */
	static const unsigned char *vstart;
	static uint64_t nvalues;
	if (depth == 0) {
		vstart = at;
		nvalues = 0;
	}
	if (++nvalues > 4096 + 64 * (uint64_t)(at - vstart)) bad_at(at, "a value that holds more values than its bytes can");
	struct cls *c = class_of(cid, at);
	val *v = a ? arena_alloc(a, sizeof *v) : &dummy;
	*v = (val){ .k = V_INT };
	switch (c->prim) {
	case P_BOOL: case P_BYTE: v->i = (int8_t)u8(); return v;
	case P_CHAR: case P_SHORT: v->i = R.compressed ? varint() : raw(2); return v;
	case P_INT: v->i = (uint64_t)rd_int(); return v;
	case P_LONG: v->i = rd_long(); return v;
	case P_FLOAT: v->k = V_FLOAT; v->i = raw(4); return v;
	case P_DOUBLE: v->k = V_FLOAT; v->i = raw(8); return v;
	case P_STRING: rd_string(a, a ? v : NULL); return v;
	case P_NONE: break;
	}
	uint32_t nf = c->nfields, f0 = c->fields;
	v->k = V_OBJ;
	v->cls = cid;
	v->n = nf;
	v->a = a ? arena_alloc(a, (size_t)(nf ? nf : 1) * sizeof *v->a) : NULL;
	for (uint32_t k = 0; k < nf; k++) {
		const struct field *f = &C.fields[f0 + k];
		val *slot = a ? &v->a[k] : NULL;
		if (f->array) {
			uint32_t n = rd_count();
			val *items = a ? arena_alloc(a, (size_t)(n ? n : 1) * sizeof *items) : NULL;
			for (uint32_t j = 0; j < n; j++) rd_item(f, a, depth, a ? &items[j] : NULL);
			if (slot) *slot = (val){ .k = V_ARR, .n = n, .a = items };
		} else {
			rd_item(f, a, depth, slot);
		}
	}
	return v;
}

/* ---- the metadata event ------------------------------------------------------------ */

static struct {
	sstr *str;
	uint32_t n;
} MS;

static sstr mstr(void)
{
	const unsigned char *at = R.p;
	int64_t i = rd_int();
	if (i < 0 || (uint64_t)i >= MS.n) bad_at(at, "a metadata string index out of range");
	return MS.str[i];
}

static bool eqc(sstr s, const char *c) { return sstr_eqc(s, c); }

static uint64_t num_of(sstr s, const unsigned char *at)
{
	uint64_t x;
	if (!parse_u64(s.p, s.n, &x)) bad_at(at, "a metadata number that is not a number");
	return x;
}

/* an element: name, attributes, children; classes and fields taken */
static void element(unsigned depth, int what /* 0 other, 1 metadata, 2 class */)
{
	if (depth > 16) bad("metadata elements nested more than 16 deep");
	const unsigned char *at = R.p;
	sstr name = mstr();
	uint32_t na = rd_count();
	sstr k_name = { 0 }, k_id = { 0 }, k_cls = { 0 }, k_cp = { 0 }, k_dim = { 0 };
	for (uint32_t k = 0; k < na; k++) {
		sstr key = mstr(), value = mstr();
		if (eqc(key, "name")) k_name = value;
		else if (eqc(key, "id")) k_id = value;
		else if (eqc(key, "class")) k_cls = value;
		else if (eqc(key, "constantPool")) k_cp = value;
		else if (eqc(key, "dimension")) k_dim = value;
	}
	int sub = 0;
	if (what == 1 && eqc(name, "class")) {
		if (!k_name.p || !k_id.p) bad_at(at, "a class without a name or an id");
		uint64_t id = num_of(k_id, at);
		bool added;
		strmap_intern(&C.ids, &id, sizeof id, &added);
		if (!added) bad_at(at, "two classes of one id");
		struct cls *c = VEC_PUSH(C.cls, C.ncls, C.clscap);
		*c = (struct cls){ .id = id, .name = k_name, .fields = C.nfields, .f_stack = -1, .f_thread = -1,
				   .f_duration = -1, .f_weight = -1, .f_samples = -1,
				   .event = -1 };
		static const char *const prims[] = { "", "boolean", "byte", "char", "short", "int", "long",
						     "float", "double", "java.lang.String" };
		for (unsigned p = 1; p < sizeof prims / sizeof *prims; p++)
			if (eqc(k_name, prims[p])) c->prim = (enum prim)p;
		if (c->prim == P_STRING) {
			C.string_id = id;
			C.have_string = true;
		}
		sub = 2;
	} else if (what == 2 && eqc(name, "field")) {
		if (!k_name.p || !k_cls.p) bad_at(at, "a field without a name or a class");
		struct field *f = VEC_PUSH(C.fields, C.nfields, C.fieldcap);
		*f = (struct field){ .name = k_name, .cls = num_of(k_cls, at), .cp = k_cp.p && eqc(k_cp, "true"),
				     .array = k_dim.p && !eqc(k_dim, "0") };
		if (f->array && !eqc(k_dim, "1")) bad_at(at, "a field of more than one dimension");
		C.cls[C.ncls - 1].nfields++;
	} else if (what == 0 && eqc(name, "metadata")) {
		sub = 1;
	}
	uint32_t nc = rd_count();
	for (uint32_t k = 0; k < nc; k++) element(depth + 1, sub == 0 && what == 0 ? 0 : sub);
}

static void metadata(const unsigned char *chunk, uint64_t off)
{
	R.p = chunk + off;
	const unsigned char *at = R.p;
	uint64_t size = R.compressed ? varint() : raw(4);
	if (size < 2 || size > (uint64_t)(R.end - at)) bad_at(at, "a metadata event whose size goes past its chunk");
	const unsigned char *chunk_end = R.end;
	R.end = at + size;
	if (rd_long() != 0) bad_at(at, "the metadata offset points at an event that is not the metadata");
	rd_long(); rd_long(); rd_long(); /* start, duration, metadata id */
	uint32_t n = rd_count();
	MS.str = xrealloc(MS.str, (size_t)(n ? n : 1) * sizeof *MS.str);
	MS.n = n;
	for (uint32_t k = 0; k < n; k++) {
		val v;
		const unsigned char *sat = R.p;
		rd_string(&C.mem, &v);
		if (v.k == V_REF) bad_at(sat, "a metadata string in a constant pool");
		MS.str[k] = v.k == V_NULL ? (sstr){ "", 0 } : v.s;
	}
	element(0, 0);
	R.end = chunk_end;
	/* every field's class is described; the events found */
	for (uint32_t k = 0; k < C.nfields; k++) class_of(C.fields[k].cls, at);
	for (uint32_t i = 0; i < C.ncls; i++) {
		struct cls *c = &C.cls[i];
		for (uint32_t k = 0; k < c->nfields; k++) {
			const struct field *f = &C.fields[c->fields + k];
			int32_t fi = (int32_t)k;
			if (eqc(f->name, "stackTrace") && f->cp && !f->array) c->f_stack = fi;
			else if ((eqc(f->name, "sampledThread") || (eqc(f->name, "eventThread") && c->f_thread < 0)) &&
				 f->cp && !f->array)
				c->f_thread = fi;
			else if (eqc(f->name, "duration") && !f->array) c->f_duration = fi;
			else if (!f->array &&
				 ((eqc(c->name, "jdk.ObjectAllocationSample") && eqc(f->name, "weight")) ||
				  (eqc(c->name, "jdk.ObjectAllocationInNewTLAB") && eqc(f->name, "tlabSize")) ||
				  (eqc(c->name, "jdk.ObjectAllocationOutsideTLAB") && eqc(f->name, "allocationSize")) ||
				  (eqc(c->name, "profiler.LiveObject") && eqc(f->name, "allocationSize"))))
				c->f_weight = fi;
			else if (eqc(f->name, "samples") && !f->array && !f->cp)
				c->f_samples = fi; /* async-profiler's batched wall-clock samples */
		}
		c->has_stack = c->f_stack >= 0;
	}
}

/* ---- the constant pools --------------------------------------------------------------- */

static void checkpoints(const unsigned char *chunk, uint64_t off)
{
	const unsigned char *chunk_end = R.end;
	for (;;) {
		R.p = chunk + off;
		R.end = chunk_end;
		const unsigned char *at = R.p;
		uint64_t size = R.compressed ? varint() : raw(4);
		if (size < 2 || size > (uint64_t)(chunk_end - at)) bad_at(at, "a checkpoint event whose size goes past its chunk");
		R.end = at + size;
		if (rd_long() != 1) bad_at(at, "a constant pool offset that points at an event that is not a checkpoint");
		rd_long(); rd_long(); /* start, duration */
		const unsigned char *dat = R.p;
		int64_t delta = (int64_t)rd_long();
		u8(); /* the checkpoint's kind (flush, header, statics, threads) */
		uint32_t npools = rd_count();
		for (uint32_t k = 0; k < npools; k++) {
			const unsigned char *pat = R.p;
			uint64_t type = rd_long();
			class_of(type, pat);
			uint32_t n = rd_count();
			for (uint32_t j = 0; j < n; j++) {
				uint64_t key[2] = { type, rd_long() };
				bool added;
				/* (a key seen again: the later checkpoint's, read
				 * first, is kept) */
				strmap_intern(&C.pool, key, sizeof key, &added);
				if (added) {
					struct entry *en = VEC_PUSH(C.entries, C.nentries, C.entcap);
					*en = (struct entry){ .off = (uint64_t)(R.p - R.start) };
				}
				rd_value(type, NULL, 0);
			}
		}
		if (delta == 0) break;
		/* each one's delta goes back to an earlier one: no loops */
		uint64_t back = (uint64_t)0 - (uint64_t)delta;
		if (delta > 0 || back > off || off - back < 68)
			bad_at(dat, "a checkpoint chained to one that is not before it in its chunk");
		off -= back;
	}
	R.end = chunk_end;
}

/* the value of pool entry (type, key), decoded on first use; NULL: none */
static struct entry *entry_of(uint64_t type, uint64_t key)
{
	uint64_t k[2] = { type, key };
	int64_t i = strmap_find(&C.pool, k, sizeof k);
	if (i < 0) return NULL;
	struct entry *e = &C.entries[i];
	if (!e->v) {
		const unsigned char *p = R.p, *end = R.end;
		R.p = R.start + e->off;
		R.end = R.file_end;
		e->v = rd_value(type, &C.mem, 0);
		R.p = p;
		R.end = end;
	}
	return e;
}

static const val *deref(const val *v)
{
	for (unsigned hop = 0; v && v->k == V_REF; hop++) {
		if (hop > 4) return NULL;
		struct entry *e = entry_of(v->cls, v->i);
		v = e ? e->v : NULL;
	}
	return v && v->k != V_NULL ? v : NULL;
}

/* field `name` of object v (dereferenced), or NULL */
static const val *get(const val *v, const char *name)
{
	v = deref(v);
	if (!v || v->k != V_OBJ) return NULL;
	struct cls *c = &C.cls[class_index(v->cls)];
	for (uint32_t k = 0; k < c->nfields && k < v->n; k++)
		if (eqc(C.fields[c->fields + k].name, name)) return deref(&v->a[k]);
	return NULL;
}

static sstr get_str(const val *v, const char *name)
{
	const val *s = get(v, name);
	if (s && s->k == V_OBJ) s = get(s, "string"); /* a Symbol */
	return s && s->k == V_STR ? s->s : (sstr){ NULL, 0 };
}

static int64_t get_int(const val *v, const char *name, int64_t dflt)
{
	const val *x = get(v, name);
	return x && x->k == V_INT ? (int64_t)x->i : dflt;
}

/* ---- frames, stacks, threads -------------------------------------------------------- */

static uint32_t frame_of(const val *fr)
{
	const val *m = get(fr, "method");
	sstr cname = get_str(get(m, "type"), "name");
	sstr mname = get_str(m, "name");
	sstr type = get_str(fr, "type");
	if (!type.p) {
		const val *t = get(fr, "type");
		type = get_str(t, "description");
	}
	int64_t line = get_int(fr, "lineNumber", -1);
	sbuf nm = { 0 }, src = { 0 }, dso = { 0 };
	for (size_t k = 0; k < cname.n; k++) sbuf_addc(&nm, cname.p[k] == '/' ? '.' : cname.p[k]);
	if (cname.n) sbuf_addc(&nm, '.');
	if (mname.n) sbuf_add(&nm, mname.p, mname.n);
	else sbuf_adds(&nm, "[unknown]");
	if (line > 0 && cname.n) {
		/* the source file the class's outer class is in, as Java's stack
		 * traces name it */
		size_t n = 0;
		while (n < cname.n && cname.p[n] != '$') n++;
		sbuf_printf(&src, "%.*s.java:%lld", (int)n, cname.p, (long long)line);
	}
	sbuf_printf(&dso, "[%.*s]", (int)type.n, type.p ? type.p : "");
	bool inlined = eqc(type, "Inlined");
	builder_frame bf = { .func = { nm.p, nm.n }, .dso = builder_dso(S.b, dso.p, dso.n, eqc(type, "Kernel")),
			     .kind = eqc(type, "Kernel") ? FK_KERNEL : FK_USER, .inlined = inlined,
			     .func_resolved = true, .inline_depth = -1 };
	if (src.n) bf.srcline = (sstr){ src.p, src.n };
	uint32_t id = builder_frame_add(S.b, &bf);
	sbuf_free(&nm);
	sbuf_free(&src);
	sbuf_free(&dso);
	return id;
}

/* the frames (leaf first) of stack trace entry e */
static struct entry *stack_of(const val *ref)
{
	if (!ref || ref->k != V_REF) return NULL;
	struct entry *e = entry_of(ref->cls, ref->i);
	if (!e) return NULL;
	if (e->memo) return e;
	const val *st = deref(ref);
	const val *frames = get(st, "frames");
	uint32_t n = frames && frames->k == V_ARR ? frames->n : 0;
	const val *tr = get(st, "truncated");
	bool truncated = tr && tr->k == V_INT && tr->i;
	uint32_t *ids = arena_alloc(&C.mem, (size_t)(n + 2) * sizeof *ids);
	uint32_t k = 0;
	for (uint32_t j = 0; j < n; j++) ids[k++] = frame_of(&frames->a[j]);
	if (truncated) {
		builder_frame bf = { .func = sstr_c("[truncated]"), .dso = S.dso_none, .kind = FK_UNKNOWN,
				     .func_resolved = true, .inline_depth = -1 };
		ids[k++] = builder_frame_add(S.b, &bf);
	}
	if (k == 0) {
		builder_frame bf = { .func = sstr_c("[no frames]"), .dso = S.dso_none, .kind = FK_UNKNOWN,
				     .func_resolved = true, .inline_depth = -1 };
		ids[k++] = builder_frame_add(S.b, &bf);
	}
	e->memo = ids;
	e->memo_n = k;
	return e;
}

struct thr { bool has; int64_t tid; sstr comm; };

static struct thr thread_of(const val *ref)
{
	struct thr t = { 0 };
	const val *th = deref(ref);
	if (!th) return t;
	t.comm = get_str(th, "javaName");
	if (!t.comm.p) t.comm = get_str(th, "osName");
	t.tid = get_int(th, "osThreadId", 0);
	if (t.tid == 0) t.tid = get_int(th, "javaThreadId", 0);
	t.has = true;
	return t;
}

/* ---- events ----------------------------------------------------------------------------- */

static uint32_t metric(int which)
{
	static const char *const names[] = { "samples", "alloc_bytes", "wall_ns", "count" };
	static const char *const units[] = { NULL, "bytes", "nanoseconds", NULL };
	uint32_t *m[] = { &S.m_samples, &S.m_alloc, &S.m_wall, &S.m_count };
	if (!S.have_m[which]) {
		*m[which] = builder_metric(S.b, names[which], units[which]);
		S.have_m[which] = true;
	}
	return *m[which];
}

static int event_metric(const struct cls *c)
{
	if (eqc(c->name, "jdk.ExecutionSample") || eqc(c->name, "jdk.NativeMethodSample") ||
	    eqc(c->name, "profiler.WallClockSample"))
		return 0;
	if (c->f_weight >= 0) return 1;
	if (c->f_duration >= 0) return 2;
	return 3;
}

static void one_event(struct cls *c, const unsigned char *at)
{
	val *v = rd_value(c->id, &C.tmp, 0);
	/* an event without a stack trace (key 0: the type's stack traces
	 * are off, as for jdk.ExceptionStatistics) is left out */
	const val *sref = &v->a[c->f_stack];
	if (sref->k != V_REF || sref->i == 0) {
		return;
	}
	struct entry *st = stack_of(sref);
	if (!st) bad_at(at, "an event whose stack trace is in no constant pool");
	int which = event_metric(c);
	if (c->event < 0) {
		static const char *const kinds[] = { "timer", "allocation", "probe", "probe" };
		static const char *const modes[] = { "frequency", "event", "event", "event" };
		static const char *const names[] = { "samples", "alloc_bytes", "wall_ns", "count" };
		char *name = xmemdup(c->name.p, c->name.n);
		metric(which);
		if (which == 1 || which == 2) metric(3);
		int32_t have = builder_event_find(S.b, name, c->name.n);
		c->event = have >= 0 ? have
				     : (int32_t)builder_event(S.b, name, kinds[which], modes[which], names[which], NULL);
		free(name);
	}
	int64_t w = 1;
	if (which == 0 && c->f_samples >= 0) {
		const val *x = &v->a[c->f_samples];
		if (x->k != V_INT || (int64_t)x->i < 0) bad_at(at, "an event's samples are not a count");
		w = (int64_t)x->i;
	}
	if (which == 1 || which == 2) {
		const val *x = &v->a[which == 1 ? c->f_weight : c->f_duration];
		if (x->k != V_INT) bad_at(at, "an event's weight or duration is not a number");
		w = (int64_t)x->i;
		if (w < 0) bad_at(at, "an event with a negative weight or duration");
		if (which == 2 && C.ticks_per_sec != 1000000000) {
			unsigned __int128 ns = (unsigned __int128)(uint64_t)w * 1000000000u / C.ticks_per_sec;
			if (ns > INT64_MAX) bad_at(at, "a duration beyond 2^63 nanoseconds");
			w = (int64_t)ns;
		}
	}
	builder_ctx ctx = { .event = (uint32_t)c->event };
	if (c->f_thread >= 0) {
		struct thr t = thread_of(&v->a[c->f_thread]);
		if (t.has) {
			ctx.has_tid = true;
			ctx.tid = t.tid;
			if (t.comm.p) ctx.comm = t.comm;
		}
	}
	/* weighed events count too */
	uint32_t m[2] = { metric(which), metric(3) };
	num n[2] = { num_i(w), num_i(1) };
	builder_stack(S.b, &ctx, st->memo, st->memo_n, m, n, which == 1 || which == 2 ? 2 : 1);
	S.events++;
}

static void chunk(const unsigned char *ck)
{
	R.p = ck;
	R.end = R.file_end;
	if ((size_t)(R.file_end - ck) < 68) {
		if (memcmp(ck, "FLR", (size_t)(R.file_end - ck) < 4 ? (size_t)(R.file_end - ck) : 4) == 0) {
			R.p = R.file_end;
			bad("the file ends in a chunk's header: the file is cut short");
		}
		bad("data after the last chunk that is not a chunk");
	}
	if (memcmp(ck, "FLR\0", 4) != 0) bad("not a chunk: no FLR magic");
	R.p = ck + 4;
	unsigned major = (unsigned)raw(2), minor = (unsigned)raw(2);
	if (major != 2) {
		/* (1.0 is JDK 9 and 10's, whose layout is not read here) */
		char what[80];
		snprintf(what, sizeof what, "JFR file format %u.%u, not 2.x (JDK 11 and later, async-profiler)",
			 major, minor);
		bad_at(ck + 4, what);
	}
	uint64_t size = raw(8), cp = raw(8), meta = raw(8);
	int64_t t0 = (int64_t)raw(8), dt = (int64_t)raw(8); /* start, duration, ns */
	if (t0 >= 0 && dt >= 0 && t0 <= INT64_MAX - dt) {
		if (!S.have_time || t0 < S.t0) S.t0 = t0;
		if (!S.have_time || t0 + dt > S.t1) S.t1 = t0 + dt;
		S.have_time = true;
	}
	raw(8);        /* start ticks */
	C.ticks_per_sec = raw(8);
	uint32_t features = (uint32_t)raw(4);
	R.compressed = features & 1;
	if (size < 68 || size > (uint64_t)(R.file_end - ck)) {
		if (size > (uint64_t)(R.file_end - ck)) {
			R.p = R.file_end;
			bad("a chunk larger than the rest of the file: the file is cut short");
		}
		bad_at(ck + 8, "a chunk size smaller than its header");
	}
	if (C.ticks_per_sec == 0) bad_at(ck + 48, "zero ticks per second");
	if (meta < 68 || meta >= size) bad_at(ck + 24, "a metadata offset outside its chunk");
	if (cp < 68 || cp >= size) bad_at(ck + 16, "a constant pool offset outside its chunk");
	R.end = ck + size;
	/* the chunk's own tables */
	strmap_init(&C.ids);
	strmap_init(&C.pool);
	C.ncls = C.nfields = C.nentries = 0;
	C.have_string = false;
	metadata(ck, meta);
	checkpoints(ck, cp);
	/* its events, in order */
	R.p = ck + 68;
	while (R.p < ck + size) {
		R.end = ck + size;
		const unsigned char *at = R.p;
		uint64_t esize = R.compressed ? varint() : raw(4);
		if (esize < (uint64_t)(R.p - at) + 1 || esize > (uint64_t)(ck + size - at))
			bad_at(at, "an event size of nothing, or past the end of its chunk");
		R.end = at + esize;
		uint64_t type = rd_long();
		if (type > 1) {
			struct cls *c = class_of(type, at);
			if (c->has_stack) {
				one_event(c, at);
				arena_free(&C.tmp);
			}
		}
		R.p = at + esize;
	}
	strmap_free(&C.ids);
	strmap_free(&C.pool);
	R.end = R.file_end;
}

/* reads into b until it holds want bytes or the input ends */
static void fill(input *in, sbuf *b, uint64_t want)
{
	char buf[1 << 16];
	while (b->n < want) {
		uint64_t n = want - b->n;
		size_t k = input_read(in, buf, n < sizeof buf ? (size_t)n : sizeof buf);
		if (k == 0) return;
		if (R.file_off + b->n + k > input_max_size()) input_too_big(R.fname, "JFR recording of");
		sbuf_add(b, buf, k);
	}
}

/* The chunks one at a time, each read whole (memory is the largest
 * chunk's, not the file's). */
static void convert(const char *path)
{
	input *in = input_open(path);
	R.fname = xstrdup(input_name(in));
	sniff_refuse_other(in, "jfr2spaa", "a JFR recording");
	sbuf data = { 0 };
	R.file_off = 0;
	for (;;) {
		data.n = 0;
		fill(in, &data, 68);
		if (data.n == 0) break;
		const unsigned char *u = (const unsigned char *)data.p;
		uint64_t size = 0;
		if (data.n == 68 && memcmp(u, "FLR", 4) == 0)
			for (unsigned j = 8; j < 16; j++) size = size << 8 | u[j];
		if (size > 68) fill(in, &data, size);
		R.start = (const unsigned char *)data.p;
		R.file_end = R.start + data.n;
		chunk(R.start);
		R.file_off += size;
		arena_free(&C.mem);
	}
	input_close(in);
	if (R.file_off == 0) die_empty_input(R.fname);
	if (S.events == 0) die_at(R.fname, 0, "no events with stack traces: nothing to convert");
	sbuf_free(&data);
}

const struct option jfr_longopts[] = {
	CLI_OUT_LONGOPTS,
	CLI_STD_LONGOPTS,
	{ 0, 0, 0, 0 }
};
const char jfr_shortopts[] = "o:zhV";

/* the converter jfr2spaa: argv as it gets it (argv[0] its name); the exit
 * status (readers/readers.h) */
int jfr_read(int argc, char **argv)
{
	const char *outpath = NULL;
	bool zstd = false;
	int c;
	while ((c = getopt_long(argc, argv, jfr_shortopts, jfr_longopts, NULL)) != -1) {
		switch (c) {
		CLI_OUT_CASES(outpath, zstd);
		CLI_STD_CASES(help);
		}
	}
	const char *path = optind < argc ? argv[optind] : "-";
	several_inputs(argv + optind, argc - optind, &path, &outpath, &zstd);
	S.b = builder_new();
	builder_source_tool(S.b, "jfr");
	S.dso_none = builder_dso(S.b, "[jfr]", 5, false);
	convert(path);
	if (S.have_time) builder_time_range_ns(S.b, S.t0, S.t1);
	reader_finish(S.b, outpath, zstd);
	return EXIT_OK;
}
