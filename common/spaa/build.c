/* build.c - the converters' back end: interned dictionaries, aggregated
 * stacks with content ids, spooled samples, and the final write. */
#include "build.h"
#include "utf8.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "cli.h"
#include "idmap.h"
#include "jsonbuf.h"
#include "jsonw.h"
#include "spaa.h"
#include "spool.h"
#include "stackid.h"
#include "strmap.h"

#define MAX_METRICS 64

struct bevent {
	char *name, *kind, *mode, *primary, *sampling_extra, *extra;
};

/* One per distinct frame.  Its func, srcline and (exact frames) ip and
 * symoff are not copied: they point into its key in frame_map, which opens
 * with func (see builder_frame_add). */
struct bframe {
	stackid_memo memo;
	const char *srcline, *ip, *symoff, *extra;
	uint32_t func_n, srcline_n, ip_n, symoff_n;
	uint32_t dso;
	int32_t inline_depth;
	uint8_t kind;
	bool inlined, resolved, exact;
};

struct bthread {
	int64_t pid, tid;
	const char *comm;
	uint32_t comm_n;
};

/* A stack's context (builder_ctx), interned: many stacks share one. */
struct bctx {
	int64_t pid, tid;
	uint32_t event;
	/* index + 1 in str_map, 0 none; stack_type 0 also for "unified" */
	uint32_t comm, stack_type, extra;
	bool has_pid, has_tid;
};

/* One per distinct stack, so kept small: its frames are not copied (they
 * open its key in stack_map), its context is an index, its weights are
 * wpool[index * nmetrics ...]. */
struct bstack {
	uint64_t id, path;
	uint64_t present;  /* metric bitmask */
	uint32_t nframes;
	uint32_t ctx;      /* index in b->ctxs */
	uint32_t related;  /* head of related list in b->rel, +1; 0 none */
	uint32_t alias;    /* index + 1 of the stack this one is (same content), 0 none */
};

struct brel { uint32_t stack, next; };

/* builder_lean()'s flags for the builders made after it */
static unsigned lean_default;

void builder_lean(unsigned flags)
{
	lean_default = flags;
}

struct builder {
	unsigned lean;          /* builder_lean() */
	const char *where_file; /* builder_where */
	uint64_t where_line;
	bool where_byte;        /* where_line is a byte offset (builder_where_byte) */
	bool keep_overflow, overflowed; /* builder_keep_overflow */
	bool part;              /* builder_part: stacks without ids */
	char *source_tool;
	struct bevent *events;
	uint32_t nevents, evcap;
	sbuf source;      /* raw members of header.source */
	bool has_time, time_ns; /* time_ns: tmin_ns, tmax_ns in nanoseconds */
	double tmin, tmax;
	int64_t tmin_ns, tmax_ns;
	/* pre, post: a weight object's text before and after its value */
	struct { char *name, *unit, *pre, *post; size_t pre_n, post_n; } metrics[MAX_METRICS];
	uint32_t nmetrics;

	strmap dso_map, frame_map, thread_map, stack_map;
	strmap ctx_map;   /* the stacks' contexts, as binary keys -> ctxs */
	struct bctx *ctxs;
	uint32_t ccap;
	strmap str_map;   /* the contexts' comm, stack_type and extra */
	idmap ids;        /* stack id -> the first stack with that id */
	bool *dso_kernel;
	uint32_t dkcap;
	char **dso_extra;  /* raw members of dso records, NULL none */
	uint32_t dxcap;
	struct bframe *frames;
	uint32_t fcap;
	struct bthread *threads;
	uint32_t tcap;
	struct bstack *stacks;
	uint32_t scap;
	num *wpool;       /* nmetrics weights a stack */
	uint32_t wpcap;
	struct brel *rel;
	uint32_t nrel, relcap;
	arena mem;
	sbuf key;
	sbuf fix[4];      /* names as written (as_written()) */
	spool *samples;
	sbuf line;
	uint64_t nsamples;
};

bool builder_is_lean(const builder *b, unsigned flag)
{
	return (b->lean & flag) != 0;
}

builder *builder_new(void)
{
	builder *b = xcalloc(1, sizeof *b);
	b->lean = lean_default;
	return b;
}

void builder_free(builder *b)
{
	if (!b) return;
	strmap_free(&b->dso_map);
	strmap_free(&b->frame_map);
	strmap_free(&b->thread_map);
	strmap_free(&b->stack_map);
	strmap_free(&b->ctx_map);
	free(b->ctxs);
	strmap_free(&b->str_map);
	idmap_free(&b->ids);
	free(b->events);
	free(b->dso_kernel);
	free(b->dso_extra);
	free(b->frames);
	free(b->threads);
	free(b->stacks);
	free(b->wpool);
	free(b->rel);
	sbuf_free(&b->source);
	sbuf_free(&b->key);
	for (int i = 0; i < 4; i++) sbuf_free(&b->fix[i]);
	sbuf_free(&b->line);
	arena_free(&b->mem);
	if (b->samples) spool_free(b->samples);
	free(b);
}

static char *adup(builder *b, const char *s)
{
	return s ? arena_strdup(&b->mem, s, strlen(s)) : NULL;
}

void builder_source_tool(builder *b, const char *tool)
{
	b->source_tool = adup(b, tool);
}

/* A string as the JSON writers write it: bytes that are not UTF-8, and NUL
 * (utf8.h), become U+FFFD.  Names are interned, compared and hashed into content ids in this
 * form, so that the ids are those of the file as written and two names
 * written alike are one.  s itself when it is valid (nearly always), else a
 * copy in fix. */
static size_t valid_len(const uint8_t *p, const uint8_t *end)
{
	size_t n = utf8_valid_len(p, end);
	const uint8_t *z = memchr(p, 0, n);
	return z ? (size_t)(z - p) : n;
}

static sstr as_written(sbuf *fix, sstr s)
{
	if (!s.p) return s; /* (NULL + 0 is undefined) */
	const uint8_t *p = (const uint8_t *)s.p, *end = p + s.n;
	size_t ok = valid_len(p, end);
	if (ok == s.n) return s;
	fix->n = 0;
	while (p < end) {
		sbuf_add(fix, p, ok);
		p += ok;
		if (p == end) break;
		p += *p ? -utf8_seq(p, end) : 1;
		sbuf_add(fix, "\xef\xbf\xbd", 3);
		ok = valid_len(p, end);
	}
	sbuf_addc(fix, 0); /* for names used as C strings */
	return (sstr){ fix->p, fix->n - 1 };
}

uint32_t builder_event(builder *b, const char *name, const char *kind, const char *mode,
		       const char *primary_metric, const char *sampling_extra_json)
{
	name = as_written(&b->fix[0], (sstr){ name, strlen(name) }).p;
	int32_t e = builder_event_find(b, name, strlen(name));
	if (e >= 0) return (uint32_t)e;
	struct bevent *ev = VEC_PUSH(b->events, b->nevents, b->evcap);
	ev->name = adup(b, name);
	ev->kind = adup(b, kind);
	ev->mode = adup(b, mode);
	ev->primary = adup(b, primary_metric);
	ev->sampling_extra = adup(b, sampling_extra_json);
	ev->extra = NULL;
	return b->nevents - 1;
}

void builder_event_order(builder *b, const uint32_t *pos)
{
	/* the events moved, the contexts' event numbers and their keys
	 * (which open with it) made again, in their order: each its index */
	struct bevent *ev = xmalloc(((size_t)b->nevents + 1) * sizeof *ev);
	for (uint32_t e = 0; e < b->nevents; e++) ev[pos[e]] = b->events[e];
	memcpy(b->events, ev, (size_t)b->nevents * sizeof *ev);
	free(ev);
	strmap m;
	strmap_init(&m);
	for (uint32_t i = 0; i < b->ctx_map.count; i++) {
		size_t n;
		const char *k = strmap_key(&b->ctx_map, i, &n);
		b->key.n = 0;
		sbuf_add(&b->key, k, n);
		uint32_t e;
		memcpy(&e, b->key.p, sizeof e);
		e = pos[e];
		memcpy(b->key.p, &e, sizeof e);
		strmap_intern(&m, b->key.p, n, NULL);
		b->ctxs[i].event = e;
	}
	strmap_free(&b->ctx_map);
	b->ctx_map = m;
}

void builder_event_extra(builder *b, uint32_t event, const char *json_members)
{
	b->events[event].extra = adup(b, json_members);
}

int32_t builder_event_find(const builder *b, const char *name, size_t n)
{
	sbuf fix = { 0 };
	sstr w = as_written(&fix, (sstr){ name, n });
	int32_t found = -1;
	for (uint32_t i = 0; i < b->nevents && found < 0; i++)
		if (strlen(b->events[i].name) == w.n && memcmp(b->events[i].name, w.p, w.n) == 0)
			found = (int32_t)i;
	sbuf_free(&fix);
	return found;
}

/* header.source members are kept as raw JSON text: ,"key":value */
static void source_key(builder *b, const char *key)
{
	sbuf_addc(&b->source, ',');
	sbuf_addc(&b->source, '"');
	sbuf_adds(&b->source, key); /* keys are the converters' own literals */
	sbuf_adds(&b->source, "\":");
}

void builder_source_str(builder *b, const char *key, const char *val, size_t n)
{
	source_key(b, key);
	jb_str(&b->source, val, n);
}

void builder_source_json(builder *b, const char *key, const char *raw_json)
{
	source_key(b, key);
	sbuf_adds(&b->source, raw_json);
}

void builder_time(builder *b, double t)
{
	if (!isfinite(t)) return;
	if (!b->has_time) {
		b->has_time = true;
		b->tmin = b->tmax = t;
		return;
	}
	if (t < b->tmin) b->tmin = t;
	if (t > b->tmax) b->tmax = t;
}

void builder_time_range_ns(builder *b, int64_t start, int64_t end)
{
	b->has_time = b->time_ns = true;
	b->tmin_ns = start;
	b->tmax_ns = end;
}

void builder_time_range(builder *b, double start, double end)
{
	b->has_time = true;
	b->time_ns = false;
	b->tmin = start;
	b->tmax = end;
}

uint32_t builder_metric(builder *b, const char *name, const char *unit)
{
	for (uint32_t i = 0; i < b->nmetrics; i++)
		if (strcmp(b->metrics[i].name, name) == 0) return i;
	if (b->nmetrics == MAX_METRICS) die(EXIT_DATA, "too many metrics (at most %d)", MAX_METRICS);
	if (b->stack_map.count) {
		/* a metric after the first stack (a converter that meets a unit
		 * late: speedscope's profiles, one in milliseconds, the next in
		 * bytes): each stack's weights are laid out again, one more each,
		 * the last stack's first (they only move up) */
		uint32_t ns = b->stack_map.count, old = b->nmetrics, nm = old + 1;
		if ((uint64_t)ns * nm > UINT32_MAX) die_input("too many stacks");
		grow_array((void **)&b->wpool, &b->wpcap, ns * nm, sizeof *b->wpool);
		for (uint32_t i = ns; i-- > 0;) {
			memmove(&b->wpool[(size_t)i * nm], &b->wpool[(size_t)i * old], old * sizeof *b->wpool);
			b->wpool[(size_t)i * nm + old] = num_i(0);
		}
	}
	b->metrics[b->nmetrics].name = adup(b, name);
	b->metrics[b->nmetrics].unit = adup(b, unit);
	sbuf t = { 0 };
	sbuf_adds(&t, "{\"metric\":");
	jb_str(&t, name, strlen(name));
	sbuf_adds(&t, ",\"value\":");
	b->metrics[b->nmetrics].pre = arena_strdup(&b->mem, t.p, t.n);
	b->metrics[b->nmetrics].pre_n = t.n;
	t.n = 0;
	if (unit) {
		sbuf_adds(&t, ",\"unit\":");
		jb_str(&t, unit, strlen(unit));
	}
	sbuf_addc(&t, '}');
	b->metrics[b->nmetrics].post = arena_strdup(&b->mem, t.p, t.n);
	b->metrics[b->nmetrics].post_n = t.n;
	sbuf_free(&t);
	return b->nmetrics++;
}

const char *builder_metric_name(const builder *b, uint32_t m)
{
	if (m >= b->nmetrics) die(EXIT_DATA, "internal error: no metric %u", m);
	return b->metrics[m].name;
}

uint32_t builder_dso(builder *b, const char *name, size_t n, bool is_kernel)
{
	sstr w = as_written(&b->fix[0], (sstr){ name, n });
	bool added;
	uint32_t i = strmap_intern(&b->dso_map, w.p, w.n, &added);
	if (added) {
		grow_array((void **)&b->dso_kernel, &b->dkcap, i + 1, sizeof *b->dso_kernel);
		b->dso_kernel[i] = is_kernel;
	}
	return i;
}

void builder_dso_extra(builder *b, uint32_t dso, const char *json_members)
{
	uint32_t old = b->dxcap;
	grow_array((void **)&b->dso_extra, &b->dxcap, dso + 1, sizeof *b->dso_extra);
	for (uint32_t i = old; i < b->dxcap; i++) b->dso_extra[i] = NULL;
	b->dso_extra[dso] = adup(b, json_members);
}

static const char *adup_s(builder *b, sstr s, uint32_t *n)
{
	*n = (uint32_t)s.n;
	return s.p ? arena_strdup(&b->mem, s.p, s.n) : NULL;
}

/* Appends the identity of frame f (its strings as written) to k. */
static void frame_key(const builder_frame *f, sbuf *k)
{
	sbuf_add(k, f->func.p, f->func.n);
	sbuf_addc(k, 0x1f);
	sbuf_add(k, &f->dso, sizeof f->dso);
	sbuf_addc(k, f->inlined ? 'i' : 'p');
	if (f->srcline.p) {
		sbuf_addc(k, 0x1f);
		sbuf_add(k, f->srcline.p, f->srcline.n);
	}
	if (f->exact) {
		sbuf_addc(k, 0x1e);
		sbuf_add(k, &f->inline_depth, sizeof f->inline_depth);
		sbuf_add(k, f->ip.p, f->ip.n);
		sbuf_addc(k, 0x1f);
		sbuf_add(k, f->symoff.p, f->symoff.n);
	}
}

static uint32_t frame_intern_key(builder *b, const builder_frame *f, const void *key, size_t n, uint32_t h);

uint32_t builder_frame_add(builder *b, const builder_frame *in)
{
	builder_frame w = *in;
	w.func = as_written(&b->fix[0], in->func);
	w.srcline = as_written(&b->fix[1], in->srcline);
	w.ip = as_written(&b->fix[2], in->ip);
	w.symoff = as_written(&b->fix[3], in->symoff);
	sbuf *k = &b->key;
	k->n = 0;
	frame_key(&w, k);
	return frame_intern_key(b, &w, k->p, k->n, strmap_hash(k->p, k->n));
}

/* The frame f (strings as written) of key key (its strmap_hash h). */
static uint32_t frame_intern_key(builder *b, const builder_frame *f, const void *k, size_t kn, uint32_t h)
{
	bool added;
	uint32_t i = strmap_intern_h(&b->frame_map, k, kn, h, &added);
	if (!added) return i;
	grow_array((void **)&b->frames, &b->fcap, i + 1, sizeof *b->frames);
	struct bframe *x = &b->frames[i];
	/* the strings, where the key above put them */
	const char *key = strmap_key(&b->frame_map, i, NULL);
	size_t at = f->func.n + 1 + sizeof f->dso + 1;
	x->func_n = (uint32_t)f->func.n;
	x->srcline = f->srcline.p ? key + at + 1 : NULL;
	x->srcline_n = (uint32_t)f->srcline.n;
	if (f->srcline.p) at += 1 + f->srcline.n;
	if (f->exact) {
		at += 1 + sizeof f->inline_depth;
		x->ip = f->ip.p ? key + at : NULL;
		x->ip_n = (uint32_t)f->ip.n;
		at += f->ip.n + 1;
		x->symoff = f->symoff.p ? key + at : NULL;
		x->symoff_n = (uint32_t)f->symoff.n;
	} else { /* those of the first occurrence */
		x->ip = adup_s(b, f->ip, &x->ip_n);
		x->symoff = adup_s(b, f->symoff, &x->symoff_n);
	}
	x->extra = adup(b, f->extra_json);
	x->dso = f->dso;
	x->inline_depth = f->inline_depth;
	x->kind = f->kind;
	x->inlined = f->inlined;
	x->resolved = f->func_resolved;
	x->exact = f->exact;
	x->memo = (stackid_memo){ 0, 0 };
	return i;
}

uint32_t builder_thread(builder *b, int64_t pid, int64_t tid, const char *comm, size_t n)
{
	char key[24];
	size_t kn = fmt_i64(key, tid);
	bool added;
	uint32_t i = strmap_intern(&b->thread_map, key, kn, &added);
	if (added) {
		grow_array((void **)&b->threads, &b->tcap, i + 1, sizeof *b->threads);
		struct bthread *t = &b->threads[i];
		t->pid = pid;
		t->tid = tid;
		t->comm = comm ? adup_s(b, as_written(&b->fix[0], (sstr){ comm, n }), &t->comm_n) : NULL;
	}
	return i;
}

void builder_where(builder *b, const char *file, uint64_t line)
{
	b->where_file = file;
	b->where_line = line;
	b->where_byte = false;
}

void builder_where_byte(builder *b, const char *file, uint64_t offset)
{
	b->where_file = file;
	b->where_line = offset;
	b->where_byte = true;
}

void builder_keep_overflow(builder *b)
{
	b->keep_overflow = true;
}

void builder_part(builder *b)
{
	b->part = true;
}

bool builder_overflowed(const builder *b)
{
	return b->overflowed;
}

/* Interns a context string: its index + 1 in str_map, 0 for none. */
static uint32_t ctx_str(builder *b, sstr v)
{
	return v.p ? strmap_intern(&b->str_map, v.p, v.n, NULL) + 1 : 0;
}

static sstr ctx_get(const builder *b, uint32_t v)
{
	if (!v) return SSTR_NULL;
	size_t n;
	const char *p = strmap_key(&b->str_map, v - 1, &n);
	return (sstr){ p, n };
}

/* The index of context c (its comm as written) in b->ctxs. */
static uint32_t ctx_intern(builder *b, const builder_ctx *in)
{
	builder_ctx lean;
	const builder_ctx *c = in;
	if ((b->lean & BUILDER_NO_THREADS) && in->comm.p) {
		lean = *in;
		lean.has_pid = lean.has_tid = false;
		lean.pid = lean.tid = 0;
		c = &lean;
	}
	/* the context, interned by its binary form */
	sbuf *k = &b->key;
	k->n = 0;
	uint8_t flags = (uint8_t)(c->has_pid | c->has_tid << 1 | (c->comm.p != NULL) << 2);
	sbuf_add(k, &c->event, sizeof c->event);
	sbuf_addc(k, (char)flags);
	if (c->has_pid) sbuf_add(k, &c->pid, sizeof c->pid);
	if (c->has_tid) sbuf_add(k, &c->tid, sizeof c->tid);
	uint32_t len = (uint32_t)c->comm.n;
	sbuf_add(k, &len, sizeof len);
	sbuf_add(k, c->comm.p, c->comm.n);
	const char *st = c->stack_type ? c->stack_type : "";
	sbuf_add(k, st, strlen(st) + 1);
	len = (uint32_t)c->extra_json.n;
	sbuf_add(k, &len, sizeof len);
	sbuf_add(k, c->extra_json.p, c->extra_json.n);
	bool added;
	uint32_t ci = strmap_intern(&b->ctx_map, k->p, k->n, &added);
	if (added) {
		grow_array((void **)&b->ctxs, &b->ccap, ci + 1, sizeof *b->ctxs);
		struct bctx *x = &b->ctxs[ci];
		memset(x, 0, sizeof *x);
		x->event = c->event;
		x->has_pid = c->has_pid;
		x->has_tid = c->has_tid;
		x->pid = c->pid;
		x->tid = c->tid;
		x->comm = ctx_str(b, c->comm);
		if (c->stack_type && strcmp(c->stack_type, "unified"))
			x->stack_type = ctx_str(b, sstr_c(c->stack_type));
		if (c->extra_json.p && c->extra_json.n) x->extra = ctx_str(b, c->extra_json);
	}
	return ci;
}

/* The index of the stack of frames in context ci (the stack it is an alias
 * of, if any); path: the hash of its frames if known (from another
 * builder), NULL to compute it; id likewise, its content id (before an
 * extra context is folded into it). */
static uint32_t stack_intern_key(builder *b, const void *key, size_t n, uint32_t kh, uint32_t ci,
				 const uint32_t *frames, uint32_t nframes, const uint64_t *path,
				 const uint64_t *id);

/* A stack's aggregation key in k: the frame indices (first: the stack
 * keeps no other copy of them), then the context.  With prefetch (a stack
 * that may be new), its frames' records and names (its content id) are
 * asked for, to come into the cache while its slot is looked for. */
static void stack_key(builder *b, sbuf *k, uint32_t ci, const uint32_t *frames, uint32_t nframes, bool prefetch)
{
	k->n = 0;
	sbuf_add(k, frames, (size_t)nframes * sizeof *frames);
	sbuf_add(k, &ci, sizeof ci);
	if (prefetch)
		for (uint32_t j = 0; j < nframes; j++) {
			__builtin_prefetch(&b->frames[frames[j]]);
			__builtin_prefetch(&b->frame_map.keys[frames[j]]);
		}
}

static uint32_t stack_intern(builder *b, uint32_t ci, const uint32_t *frames, uint32_t nframes,
			     const uint64_t *path)
{
	sbuf *k = &b->key;
	stack_key(b, k, ci, frames, nframes, !path);
	return stack_intern_key(b, k->p, k->n, strmap_hash(k->p, k->n), ci, frames, nframes, path, NULL);
}

/* The same with the key made (its strmap_hash h). */
static uint32_t stack_intern_key(builder *b, const void *key, size_t n, uint32_t kh, uint32_t ci,
				 const uint32_t *frames, uint32_t nframes, const uint64_t *path,
				 const uint64_t *id)
{
	bool added;
	uint32_t i = strmap_intern_h(&b->stack_map, key, n, kh, &added);
	if (added) {
		const struct bctx *x = &b->ctxs[ci];
		grow_array((void **)&b->stacks, &b->scap, i + 1, sizeof *b->stacks);
		struct bstack *s = &b->stacks[i];
		memset(s, 0, sizeof *s);
		s->nframes = nframes;
		s->ctx = ci;
		/* 64-bit: i * nmetrics may pass 32 bits */
		uint64_t nw = ((uint64_t)i + 1) * b->nmetrics;
		if (nw > UINT32_MAX) die_input("too many stacks");
		grow_array((void **)&b->wpool, &b->wpcap, (uint32_t)nw, sizeof *b->wpool);
		for (uint32_t m = 0; m < b->nmetrics; m++) b->wpool[(size_t)i * b->nmetrics + m] = num_i(0);
		if (b->lean & BUILDER_NO_IDS) {
			/* no content ids, no aliases: a stack is its key */
			s->id = s->path = i;
			return i;
		}
		/* content ids */
		uint64_t h = FNV64_BASIS;
		if (path) h = *path;
		else
			for (uint32_t j = nframes; j-- > 0;) {
				struct bframe *f = &b->frames[frames[j]];
				if (stackid_memo_get(&f->memo, &h)) continue;
				size_t dn;
				const char *dname = strmap_key(&b->dso_map, f->dso, &dn);
				stackid_frame sf = { { strmap_key(&b->frame_map, frames[j], NULL), f->func_n }, { dname, dn },
						     { f->srcline, f->srcline_n }, f->inlined };
				uint64_t before = h;
				h = stackid_add_frame(h, &sf);
				stackid_memo_set(&f->memo, before, h);
			}
		s->path = h;
		if (id) {
			s->id = *id;
		} else {
			stackid_ctx sc = { sstr_c(b->events[x->event].name), ctx_get(b, x->stack_type),
					   ctx_get(b, x->comm), x->has_pid, x->has_tid, x->pid, x->tid };
			s->id = stackid_add_ctx(h, &sc);
		}
		/* a part's stacks have their content ids (the work of its
		 * thread, not the merge's), not made unique: the merge does
		 * that */
		if (b->part) goto done;
		bool fresh;
		uint32_t first = idmap_put(&b->ids, (int64_t)s->id, i, &fresh);
		if (!fresh && x->extra) {
			/* the same content with a different extra context: ids must stay
			 * unique, so fold the extra context into this one */
			sstr extra = ctx_get(b, x->extra);
			s->id = fnv1a64(s->id, extra.p, extra.n);
			first = idmap_put(&b->ids, (int64_t)s->id, i, &fresh);
		}
		/* frames that differ only in what is not part of a stack's
		 * identity (ip, symoff, inline_depth: the same function and line
		 * at two addresses) make the same stack: this one is the first one */
		if (!fresh) s->alias = first + 1;
	}
done:
	if (b->stacks[i].alias) i = b->stacks[i].alias - 1;
	return i;
}

uint32_t builder_stack(builder *b, const builder_ctx *in, const uint32_t *frames,
		       uint32_t nframes, const uint32_t *midx, const num *vals, uint32_t nvals)
{
	builder_ctx w = *in;
	w.comm = as_written(&b->fix[0], in->comm);
	uint32_t i = stack_intern(b, ctx_intern(b, &w), frames, nframes, NULL);
	builder_add(b, i, midx, vals, nvals);
	return i;
}

void builder_stack_prepare(builder *b, const builder_ctx *in, const uint32_t *frames, uint32_t nframes,
			   builder_pending *p)
{
	builder_ctx w = *in;
	w.comm = as_written(&b->fix[0], in->comm);
	p->ci = ctx_intern(b, &w);
	p->nframes = nframes;
	stack_key(b, &p->key, p->ci, frames, nframes, true);
	p->h = strmap_hash(p->key.p, p->key.n);
	strmap_prefetch(&b->stack_map, p->h);
}

uint32_t builder_stack_finish(builder *b, builder_pending *p, const uint32_t *midx, const num *vals, uint32_t nvals)
{
	/* the frames open the key (a copy of the caller's, aligned: malloc'ed) */
	const uint32_t *frames = (const uint32_t *)(const void *)p->key.p;
	uint32_t i = stack_intern_key(b, p->key.p, p->key.n, p->h, p->ci, frames, p->nframes, NULL, NULL);
	builder_add(b, i, midx, vals, nvals);
	return i;
}

void builder_pending_free(builder_pending *p)
{
	sbuf_free(&p->key);
}

void builder_add(builder *b, uint32_t i, const uint32_t *midx, const num *vals, uint32_t nvals)
{
	struct bstack *s = &b->stacks[i];
	num *w = &b->wpool[(size_t)i * b->nmetrics];
	for (uint32_t j = 0; j < nvals; j++) {
		num *acc = &w[midx[j]];
		if (!num_add(acc, vals[j])) {
			if (b->keep_overflow) {
				b->overflowed = true;
				return;
			}
			if (b->where_file && b->where_byte)
				die_at(b->where_file, 0, "byte %llu: metric %s of a stack overflows 64 bits",
				       (unsigned long long)b->where_line, b->metrics[midx[j]].name);
			if (b->where_file)
				die_at(b->where_file, b->where_line, "metric %s of a stack overflows 64 bits",
				       b->metrics[midx[j]].name);
			die_input("metric %s of a stack overflows 64 bits", b->metrics[midx[j]].name);
		}
		s->present |= (uint64_t)1 << midx[j];
	}
}

static bool related_has(const builder *b, uint32_t s1, uint32_t s2)
{
	for (uint32_t r = b->stacks[s1].related; r; r = b->rel[r - 1].next)
		if (b->rel[r - 1].stack == s2) return true;
	return false;
}

static void relate1(builder *b, uint32_t s1, uint32_t s2)
{
	if (related_has(b, s1, s2)) return;
	struct brel *r = VEC_PUSH(b->rel, b->nrel, b->relcap);
	r->stack = s2;
	r->next = b->stacks[s1].related;
	b->stacks[s1].related = b->nrel;
}

void builder_relate(builder *b, uint32_t s1, uint32_t s2)
{
	relate1(b, s1, s2);
	relate1(b, s2, s1);
}

const char *builder_stack_id(const builder *b, uint32_t s)
{
	static char buf[20];
	stackid_fmt(buf, b->stacks[s].id);
	return buf;
}

const char *builder_event_name(const builder *b, uint32_t e)
{
	return b->events[e].name;
}

uint32_t builder_nevents(const builder *b)
{
	return b->nevents;
}

static sstr opt_sstr(const char *p, uint32_t n)
{
	return p ? (sstr){ p, n } : SSTR_NULL;
}

bool builder_merge(builder *b, const builder *src)
{
	if (src->samples || src->nrel) die(EXIT_DATA, "internal error: builder_merge of samples or related stacks");
	uint32_t *ev = xmalloc(((size_t)src->nevents + 1) * sizeof *ev);
	uint32_t *dso = xmalloc(((size_t)src->dso_map.count + 1) * sizeof *dso);
	uint32_t *fr = xmalloc(((size_t)src->frame_map.count + 1) * sizeof *fr);
	uint32_t mx[MAX_METRICS];
	for (uint32_t e = 0; e < src->nevents; e++) {
		const struct bevent *x = &src->events[e];
		int32_t f = builder_event_find(b, x->name, strlen(x->name));
		if (f < 0) {
			f = (int32_t)builder_event(b, x->name, x->kind, x->mode, x->primary, x->sampling_extra);
			if (x->extra) builder_event_extra(b, (uint32_t)f, x->extra);
		}
		ev[e] = (uint32_t)f;
	}
	for (uint32_t m = 0; m < src->nmetrics; m++)
		mx[m] = builder_metric(b, src->metrics[m].name, src->metrics[m].unit);
	for (uint32_t i = 0; i < src->dso_map.count; i++) {
		size_t n;
		const char *name = strmap_key(&src->dso_map, i, &n);
		uint32_t before = b->dso_map.count;
		dso[i] = builder_dso(b, name, n, src->dso_kernel[i]);
		if (b->dso_map.count > before && i < src->dxcap && src->dso_extra[i])
			builder_dso_extra(b, dso[i], src->dso_extra[i]);
	}
	/* in batches, as the stacks below */
	enum { BATCH = 16 };
	sbuf keys = { 0 };
	size_t koff[BATCH + 1];
	uint32_t kh[BATCH];
	builder_frame fb[BATCH];
	for (uint32_t i0 = 0; i0 < src->frame_map.count; i0 += BATCH) {
		uint32_t nb = src->frame_map.count - i0 < BATCH ? src->frame_map.count - i0 : BATCH;
		keys.n = 0;
		for (uint32_t k = 0; k < nb; k++) {
			const struct bframe *f = &src->frames[i0 + k];
			fb[k] = (builder_frame){
				.func = { strmap_key(&src->frame_map, i0 + k, NULL), f->func_n },
				.dso = dso[f->dso], .kind = f->kind, .inlined = f->inlined,
				.func_resolved = f->resolved, .inline_depth = f->inline_depth,
				.srcline = opt_sstr(f->srcline, f->srcline_n), .ip = opt_sstr(f->ip, f->ip_n),
				.symoff = opt_sstr(f->symoff, f->symoff_n), .extra_json = f->extra, .exact = f->exact,
			};
			koff[k] = keys.n;
			frame_key(&fb[k], &keys);
			kh[k] = strmap_hash(keys.p + koff[k], keys.n - koff[k]);
			strmap_prefetch(&b->frame_map, kh[k]);
		}
		koff[nb] = keys.n;
		for (uint32_t k = 0; k < nb; k++) strmap_prefetch_key(&b->frame_map, kh[k]);
		for (uint32_t k = 0; k < nb; k++)
			fr[i0 + k] = frame_intern_key(b, &fb[k], keys.p + koff[k], koff[k + 1] - koff[k], kh[k]);
	}
	for (uint32_t i = 0; i < src->thread_map.count; i++) {
		const struct bthread *t = &src->threads[i];
		builder_thread(b, t->pid, t->tid, t->comm, t->comm_n);
	}
	sbuf st = { 0 };
	uint32_t *cx = xmalloc(((size_t)src->ctx_map.count + 1) * sizeof *cx);
	for (uint32_t i = 0; i < src->ctx_map.count; i++) {
		const struct bctx *x = &src->ctxs[i];
		builder_ctx c = { .event = ev[x->event], .has_pid = x->has_pid, .has_tid = x->has_tid,
				  .pid = x->pid, .tid = x->tid, .comm = ctx_get(src, x->comm),
				  .extra_json = ctx_get(src, x->extra) };
		if (x->stack_type) { /* a C string */
			sstr t = ctx_get(src, x->stack_type);
			st.n = 0;
			sbuf_add(&st, t.p, t.n);
			sbuf_addc(&st, 0);
			c.stack_type = st.p;
		}
		cx[i] = ctx_intern(b, &c);
	}
	uint32_t ns = src->stack_map.count, nundo = 0;
	uint32_t *dst = xmalloc(((size_t)ns + 1) * sizeof *dst);
	uint64_t *oldp = xmalloc(((size_t)ns + 1) * sizeof *oldp);
	num *oldw = xmalloc(((size_t)ns * b->nmetrics + 1) * sizeof *oldw);
	bool ok = true;
	/* in batches: the keys made and their slots prefetched, then looked up
	 * (the tables are large: each lookup would wait for memory) */
	for (uint32_t i0 = 0; i0 < src->stack_map.count; i0 += BATCH) {
		uint32_t nb = src->stack_map.count - i0 < BATCH ? src->stack_map.count - i0 : BATCH;
		keys.n = 0;
		for (uint32_t k = 0; k < nb; k++) {
			const struct bstack *s = &src->stacks[i0 + k];
			const char *fk = strmap_key(&src->stack_map, i0 + k, NULL);
			koff[k] = keys.n;
			sbuf_reserve(&keys, ((size_t)s->nframes + 1) * sizeof(uint32_t));
			for (uint32_t j = 0; j < s->nframes; j++) {
				uint32_t f;
				memcpy(&f, fk + (size_t)j * sizeof f, sizeof f);
				memcpy(keys.p + keys.n, &fr[f], sizeof f);
				keys.n += sizeof f;
			}
			memcpy(keys.p + keys.n, &cx[s->ctx], sizeof cx[s->ctx]);
			keys.n += sizeof cx[s->ctx];
			kh[k] = strmap_hash(keys.p + koff[k], keys.n - koff[k]);
			strmap_prefetch(&b->stack_map, kh[k]);
			if (!src->ctxs[s->ctx].extra)
				idmap_prefetch(&b->ids, (int64_t)s->id); /* (its id here too) */
		}
		koff[nb] = keys.n;
		for (uint32_t k = 0; k < nb; k++) strmap_prefetch_key(&b->stack_map, kh[k]);
		for (uint32_t k = 0; k < nb; k++) {
			uint32_t i = i0 + k;
			const struct bstack *s = &src->stacks[i];
			uint32_t midx[MAX_METRICS];
			num vals[MAX_METRICS];
			uint32_t nv = 0;
			for (uint32_t m = 0; m < src->nmetrics; m++) {
				if (!(s->present >> m & 1)) continue;
				midx[nv] = mx[m];
				vals[nv++] = src->wpool[(size_t)i * src->nmetrics + m];
			}
			/* the hash of the frames is the same in both builders */
			uint32_t d = stack_intern_key(b, keys.p + koff[k], koff[k + 1] - koff[k], kh[k], cx[s->ctx],
						      NULL, s->nframes, &s->path, src->part ? &s->id : NULL);
			/* the weights as they were, for an overflow */
			num *w = &b->wpool[(size_t)d * b->nmetrics];
			dst[i] = d;
			oldp[i] = b->stacks[d].present;
			memcpy(&oldw[(size_t)i * b->nmetrics], w, b->nmetrics * sizeof *w);
			for (uint32_t j = 0; j < nv; j++) {
				if (!num_add(&w[midx[j]], vals[j])) {
					ok = false;
					nundo = i + 1;
					goto out;
				}
				b->stacks[d].present |= (uint64_t)1 << midx[j];
			}
		}
	}
out:
	/* an overflow: every weight back as it was, the latest first (two
	 * stacks of src may be one of b) */
	for (uint32_t i = nundo; i-- > 0;) {
		memcpy(&b->wpool[(size_t)dst[i] * b->nmetrics], &oldw[(size_t)i * b->nmetrics],
		       b->nmetrics * sizeof *b->wpool);
		b->stacks[dst[i]].present = oldp[i];
	}
	free(dst);
	free(oldp);
	free(oldw);
	sbuf_free(&keys);
	free(cx);
	sbuf_free(&st);
	free(ev);
	free(dso);
	free(fr);
	return ok;
}

/* One sample record; ts: the timestamp's JSON text, NULL for none. */
static void sample_record(builder *b, uint32_t si, const char *ts, size_t tn, const char *extra_json)
{
	if (!b->samples) b->samples = spool_new();
	const struct bstack *st = &b->stacks[si];
	const struct bctx *s = &b->ctxs[st->ctx];
	sbuf *l = &b->line;
	char buf[40];
	l->n = 0;
	sbuf_adds(l, "{\"type\":\"sample\"");
	if (ts) {
		sbuf_adds(l, ",\"timestamp\":");
		sbuf_add(l, ts, tn);
	}
	if (s->has_pid) {
		sbuf_adds(l, ",\"pid\":");
		sbuf_add(l, buf, fmt_i64(buf, s->pid));
	}
	if (s->has_tid) {
		sbuf_adds(l, ",\"tid\":");
		sbuf_add(l, buf, fmt_i64(buf, s->tid));
	}
	if (extra_json && *extra_json) {
		sbuf_addc(l, ',');
		sbuf_adds(l, extra_json);
	}
	sbuf_adds(l, ",\"event\":");
	jb_str(l, b->events[s->event].name, strlen(b->events[s->event].name));
	sbuf_adds(l, ",\"stack_id\":\"");
	sbuf_add(l, buf, stackid_fmt(buf, st->id));
	sbuf_adds(l, "\"}\n");
	spool_write(b->samples, l->p, l->n);
	b->nsamples++;
}

void builder_sample(builder *b, uint32_t si, bool has_ts, double ts, const char *extra_json)
{
	char buf[40];
	size_t n = 0;
	if (has_ts) {
		builder_time(b, ts);
		n = num_fmt(buf, num_d(ts));
	}
	sample_record(b, si, has_ts ? buf : NULL, n, extra_json);
}

void builder_sample_ns(builder *b, uint32_t si, int64_t ts, const char *extra_json)
{
	char buf[24];
	if (!b->has_time) {
		b->has_time = b->time_ns = true;
		b->tmin_ns = b->tmax_ns = ts;
	} else if (b->time_ns) {
		if (ts < b->tmin_ns) b->tmin_ns = ts;
		if (ts > b->tmax_ns) b->tmax_ns = ts;
	}
	sample_record(b, si, buf, fmt_i64(buf, ts), extra_json);
}

/* ---- writing ------------------------------------------------------------ */

static void write_str_or_null(output *o, const char *s, size_t n)
{
	if (s) jw_str(o, s, n);
	else out_puts(o, "null");
}

static void write_header(builder *b, output *o)
{
	out_puts(o, "{\"type\":\"header\",\"format\":\"spaa\",\"version\":\"1.0\",\"source_tool\":");
	jw_strc(o, b->source_tool ? b->source_tool : "unknown");
	out_puts(o, ",\"frame_order\":\"leaf_to_root\",\"events\":[");
	for (uint32_t i = 0; i < b->nevents; i++) {
		const struct bevent *e = &b->events[i];
		if (i) out_putc(o, ',');
		out_puts(o, "{\"name\":");
		jw_strc(o, e->name);
		out_puts(o, ",\"kind\":");
		jw_strc(o, e->kind);
		out_puts(o, ",\"sampling\":{\"mode\":");
		jw_strc(o, e->mode);
		out_puts(o, ",\"primary_metric\":");
		jw_strc(o, e->primary);
		if (e->sampling_extra && *e->sampling_extra) {
			out_putc(o, ',');
			out_puts(o, e->sampling_extra);
		}
		out_putc(o, '}');
		if (e->extra && *e->extra) {
			out_putc(o, ',');
			out_puts(o, e->extra);
		}
		out_putc(o, '}');
	}
	out_putc(o, ']');
	if (b->has_time && b->time_ns) {
		out_puts(o, ",\"time_range\":{\"start\":");
		jw_num(o, num_i(b->tmin_ns));
		out_puts(o, ",\"end\":");
		jw_num(o, num_i(b->tmax_ns));
		out_puts(o, ",\"unit\":\"nanoseconds\"}");
	} else if (b->has_time) {
		out_puts(o, ",\"time_range\":{\"start\":");
		jw_num(o, num_d(b->tmin));
		out_puts(o, ",\"end\":");
		jw_num(o, num_d(b->tmax));
		out_puts(o, ",\"unit\":\"seconds\"}");
	}
	out_puts(o, ",\"source\":{\"tool\":");
	jw_strc(o, b->source_tool ? b->source_tool : "unknown");
	if (b->source.n) out_write(o, b->source.p, b->source.n);
	out_puts(o, "},\"stack_id_mode\":\"content_addressable\"}\n");
}

/* A stack's weights array, rendered once: it is written twice. */
static void render_weights(const builder *b, sbuf *t, uint32_t i)
{
	const struct bstack *s = &b->stacks[i];
	const num *w = &b->wpool[(size_t)i * b->nmetrics];
	char buf[32];
	t->n = 0;
	sbuf_addc(t, '[');
	bool first = true;
	for (uint32_t m = 0; m < b->nmetrics; m++) {
		if (!(s->present >> m & 1)) continue;
		if (!first) sbuf_addc(t, ',');
		first = false;
		sbuf_add(t, b->metrics[m].pre, b->metrics[m].pre_n);
		size_t n = w[m].kind == NUM_INT ? fmt_i64(buf, w[m].i)
			 : w[m].kind == NUM_UINT ? fmt_u64(buf, w[m].u) : num_fmt(buf, w[m]);
		sbuf_add(t, buf, n);
		sbuf_add(t, b->metrics[m].post, b->metrics[m].post_n);
	}
	sbuf_addc(t, ']');
}

/* The text before a stack record's context of event e:
 * ",\"context\":{\"event\":NAME". */
static void event_prefix(const builder *b, uint32_t e, sbuf *ev)
{
	sbuf_adds(ev, ",\"context\":{\"event\":");
	jb_str(ev, b->events[e].name, strlen(b->events[e].name));
}

/* Stack record i (not an alias): the fixed text, ids and numbers go
 * straight into the output buffer (out_room); ev is the text event_prefix
 * makes for its event, wt scratch. */
static void write_stack(builder *b, output *o, uint32_t i, const char *ev, size_t evn, sbuf *wt)
{
	const struct bstack *s = &b->stacks[i];
	const struct bctx *x = &b->ctxs[s->ctx];
	const char *fk = strmap_key(&b->stack_map, i, NULL); /* frames first */
	uint32_t f;
	char *w = out_room(o, 64);
	w = OUT_LIT(w, "{\"type\":\"stack\",\"id\":\"");
	w += fmt_hex(w, s->id, 16);
	w = OUT_LIT(w, "\",\"frames\":[");
	for (uint32_t j = 0; j < s->nframes; j++) {
		out_commit(o, w);
		w = out_room(o, 16);
		if (j) *w++ = ',';
		memcpy(&f, fk + (size_t)j * sizeof f, sizeof f);
		w += fmt_u64(w, (uint64_t)f + 1);
	}
	*w++ = ']';
	out_commit(o, w);
	if (x->stack_type) {
		sstr st = ctx_get(b, x->stack_type);
		out_puts(o, ",\"stack_type\":");
		jw_str(o, st.p, st.n);
	}
	out_write(o, ev, evn);
	w = out_room(o, 64);
	if (x->has_pid) {
		w = OUT_LIT(w, ",\"pid\":");
		w += fmt_i64(w, x->pid);
	}
	if (x->has_tid) {
		w = OUT_LIT(w, ",\"tid\":");
		w += fmt_i64(w, x->tid);
	}
	out_commit(o, w);
	if (x->comm) {
		sstr comm = ctx_get(b, x->comm);
		out_puts(o, ",\"comm\":");
		jw_str(o, comm.p, comm.n);
	}
	if (x->extra) {
		sstr extra = ctx_get(b, x->extra);
		out_putc(o, ',');
		out_write(o, extra.p, extra.n);
	}
	render_weights(b, wt, i);
	out_puts(o, "},\"weights\":");
	out_write(o, wt->p, wt->n);
	if (s->nframes) {
		memcpy(&f, fk, sizeof f);
		w = out_room(o, 64);
		w = OUT_LIT(w, ",\"exclusive\":{\"frame\":");
		w += fmt_u64(w, (uint64_t)f + 1);
		w = OUT_LIT(w, ",\"weights\":");
		out_commit(o, w);
		out_write(o, wt->p, wt->n);
		out_putc(o, '}');
	}
	if (s->related) {
		out_puts(o, ",\"related_stacks\":[");
		for (uint32_t r = s->related; r; r = b->rel[r - 1].next) {
			w = out_room(o, 32);
			*w++ = '"';
			w += fmt_hex(w, b->stacks[b->rel[r - 1].stack].id, 16);
			*w++ = '"';
			if (b->rel[r - 1].next) *w++ = ',';
			out_commit(o, w);
		}
		out_putc(o, ']');
	}
	w = out_room(o, 64);
	w = OUT_LIT(w, ",\"x_path_id\":\"");
	w += fmt_hex(w, s->path, 16);
	w = OUT_LIT(w, "\"}\n");
	out_commit(o, w);
}

/* The stack records of stacks [i0, i1) (the aliases left out); ev and
 * evoff: the text event_prefix makes for each event, one after another. */
static void write_stack_range(builder *b, output *o, uint32_t i0, uint32_t i1, const char *ev,
			      const size_t *evoff, sbuf *wt)
{
	for (uint32_t i = i0; i < i1; i++) {
		if (b->stacks[i].alias) continue;
		uint32_t e = b->ctxs[b->stacks[i].ctx].event;
		write_stack(b, o, i, ev + evoff[e], evoff[e + 1] - evoff[e], wt);
	}
}

/* builder_jobs(): the threads builder_write renders stack records on */
static unsigned write_jobs = 1;

void builder_jobs(unsigned n)
{
	write_jobs = n ? n : 1;
}

/* The stack records on several threads (builder_jobs): cut into runs of
 * WRUN stacks, each rendered by whichever thread is free into a buffer of
 * a ring of WSLOTS a thread, and written in order by the caller's thread,
 * which renders too while the next run to write is not ready.  A run is
 * rendered only when its slot is free (the run WSLOTS * threads before it
 * is written): the memory is the ring's, not the output's. */
enum { WRUN = 1024, WSLOTS = 4 };

/* The stacks a run: WRUN, or SPAA_WRITE_RUN's (the tests' small runs, so
 * that a small profile goes round the ring). */
static uint32_t wrun(void)
{
	const char *e = getenv("SPAA_WRITE_RUN");
	char *end;
	unsigned long v = e ? strtoul(e, &end, 10) : 0;
	return e && *e && !*end && v >= 1 && v <= WRUN ? (uint32_t)v : WRUN;
}

struct wpar {
	builder *b;
	const char *ev;
	const size_t *evoff;
	uint32_t nstacks, run, nruns, nslots;
	output **slot;       /* run r renders into slot[r % nslots] */
	uint32_t *ready;     /* slot s holds run ready[s] - 1 rendered, 0 none */
	uint32_t next;       /* the first run nobody has taken */
	uint32_t written;    /* the runs written */
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

/* Run r rendered into its slot (w->mu not held), then marked ready. */
static void wpar_render(struct wpar *w, uint32_t r, sbuf *wt)
{
	output *so = w->slot[r % w->nslots];
	so->n = 0;
	uint32_t i0 = r * w->run, i1 = w->nstacks - i0 > w->run ? i0 + w->run : w->nstacks;
	write_stack_range(w->b, so, i0, i1, w->ev, w->evoff, wt);
	pthread_mutex_lock(&w->mu);
	w->ready[r % w->nslots] = r + 1;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
}

/* A run to render, taken (w->mu held): UINT32_MAX when none can be now. */
static uint32_t wpar_take(struct wpar *w)
{
	if (w->next >= w->nruns || w->next >= w->written + w->nslots) return UINT32_MAX;
	return w->next++;
}

static void *wpar_thread(void *arg)
{
	struct wpar *w = arg;
	sbuf wt = { 0 };
	pthread_mutex_lock(&w->mu);
	while (w->next < w->nruns) {
		uint32_t r = wpar_take(w);
		if (r == UINT32_MAX) {
			pthread_cond_wait(&w->cv, &w->mu);
			continue;
		}
		pthread_mutex_unlock(&w->mu);
		wpar_render(w, r, &wt);
		pthread_mutex_lock(&w->mu);
	}
	pthread_mutex_unlock(&w->mu);
	sbuf_free(&wt);
	return NULL;
}

/* write_stacks on jobs threads: false when no thread could be started
 * (nothing written then). */
static bool write_stacks_par(builder *b, output *o, unsigned jobs, uint32_t run, const char *ev, const size_t *evoff,
			     sbuf *wt)
{
	struct wpar w = { .b = b, .ev = ev, .evoff = evoff, .nstacks = b->stack_map.count, .run = run };
	w.nruns = (uint32_t)(((uint64_t)w.nstacks + run - 1) / run);
	w.nslots = WSLOTS * jobs;
	pthread_mutex_init(&w.mu, NULL);
	pthread_cond_init(&w.cv, NULL);
	unsigned nth = jobs - 1, started = 0;
	pthread_t *th = xcalloc(nth, sizeof *th);
	w.slot = xcalloc(w.nslots, sizeof *w.slot);
	w.ready = xcalloc(w.nslots, sizeof *w.ready);
	for (uint32_t s = 0; s < w.nslots; s++) w.slot[s] = output_open_mem();
	for (unsigned t = 0; t < nth; t++)
		if (pthread_create(&th[started], NULL, wpar_thread, &w) == 0) started++;
	if (started) {
		pthread_mutex_lock(&w.mu);
		while (w.written < w.nruns) {
			uint32_t s = w.written % w.nslots;
			if (w.ready[s] == w.written + 1) { /* the next to write */
				pthread_mutex_unlock(&w.mu);
				out_write(o, w.slot[s]->buf, w.slot[s]->n);
				pthread_mutex_lock(&w.mu);
				w.ready[s] = 0;
				w.written++;
				pthread_cond_broadcast(&w.cv);
				continue;
			}
			uint32_t r = wpar_take(&w);
			if (r == UINT32_MAX) {
				pthread_cond_wait(&w.cv, &w.mu);
				continue;
			}
			pthread_mutex_unlock(&w.mu);
			wpar_render(&w, r, wt);
			pthread_mutex_lock(&w.mu);
		}
		pthread_mutex_unlock(&w.mu);
		for (unsigned t = 0; t < started; t++) pthread_join(th[t], NULL);
	}
	for (uint32_t s = 0; s < w.nslots; s++) {
		size_t n;
		free(output_close_mem(w.slot[s], &n));
	}
	free(w.slot);
	free(w.ready);
	free(th);
	pthread_mutex_destroy(&w.mu);
	pthread_cond_destroy(&w.cv);
	return started > 0;
}

/* The stack records, the bulk of the output: what every record of an
 * event repeats is rendered once. */
static void write_stacks(builder *b, output *o)
{
	sbuf ev = { 0 }, wt = { 0 };
	size_t *evoff = xmalloc(((size_t)b->nevents + 1) * sizeof *evoff);
	for (uint32_t e = 0; e < b->nevents; e++) {
		evoff[e] = ev.n;
		event_prefix(b, e, &ev);
	}
	evoff[b->nevents] = ev.n;
	/* (no more threads than cores: more would only hold more buffers) */
	unsigned jobs = write_jobs < 2 ? 1 : write_jobs < cli_jobs() ? write_jobs : cli_jobs();
	uint32_t run = jobs < 2 ? 0 : wrun();
	if (jobs < 2 || b->stack_map.count / 4 < run || !write_stacks_par(b, o, jobs, run, ev.p, evoff, &wt))
		write_stack_range(b, o, 0, b->stack_map.count, ev.p, evoff, &wt);
	free(evoff);
	sbuf_free(&ev);
	sbuf_free(&wt);
}

static void write_dso(builder *b, output *o, uint32_t i)
{
	size_t n;
	const char *name = strmap_key(&b->dso_map, i, &n);
	out_puts(o, "{\"type\":\"dso\",\"id\":");
	out_u64(o, i + 1);
	out_puts(o, ",\"name\":");
	jw_str(o, name, n);
	out_puts(o, b->dso_kernel[i] ? ",\"is_kernel\":true" : ",\"is_kernel\":false");
	if (i < b->dxcap && b->dso_extra[i]) {
		out_putc(o, ',');
		out_puts(o, b->dso_extra[i]);
	}
	out_puts(o, "}\n");
}

/* As the stack records: straight into the buffer. */
static void write_frame(builder *b, output *o, uint32_t i)
{
	const struct bframe *f = &b->frames[i];
	char *w = out_room(o, 64);
	w = OUT_LIT(w, "{\"type\":\"frame\",\"id\":");
	w += fmt_u64(w, (uint64_t)i + 1);
	w = OUT_LIT(w, ",\"func\":");
	out_commit(o, w);
	jw_str(o, strmap_key(&b->frame_map, i, NULL), f->func_n);
	w = out_room(o, 64);
	if (!f->resolved) w = OUT_LIT(w, ",\"func_resolved\":false");
	w = OUT_LIT(w, ",\"dso\":");
	w += fmt_u64(w, (uint64_t)f->dso + 1);
	out_commit(o, w);
	if (f->ip) {
		out_puts(o, ",\"ip\":");
		jw_str(o, f->ip, f->ip_n);
	}
	if (f->symoff) {
		out_puts(o, ",\"symoff\":");
		jw_str(o, f->symoff, f->symoff_n);
	}
	if (f->srcline) {
		out_puts(o, ",\"srcline\":");
		jw_str(o, f->srcline, f->srcline_n);
	}
	w = out_room(o, 80);
	if (f->inlined) w = OUT_LIT(w, ",\"inlined\":true");
	if (f->inline_depth >= 0) {
		w = OUT_LIT(w, ",\"inline_depth\":");
		w += fmt_i64(w, f->inline_depth);
	}
	w = f->kind == FK_USER ? OUT_LIT(w, ",\"kind\":\"user\"")
	  : f->kind == FK_KERNEL ? OUT_LIT(w, ",\"kind\":\"kernel\"")
	  : OUT_LIT(w, ",\"kind\":\"unknown\"");
	out_commit(o, w);
	if (f->extra && *f->extra) {
		out_putc(o, ',');
		out_puts(o, f->extra);
	}
	out_write(o, "}\n", 2);
}

static void write_thread(builder *b, output *o, uint32_t i)
{
	const struct bthread *t = &b->threads[i];
	out_puts(o, "{\"type\":\"thread\",\"pid\":");
	out_i64(o, t->pid);
	out_puts(o, ",\"tid\":");
	out_i64(o, t->tid);
	if (t->comm) {
		out_puts(o, ",\"comm\":");
		write_str_or_null(o, t->comm, t->comm_n);
	}
	out_puts(o, "}\n");
}

void builder_write(builder *b, output *o)
{
	write_header(b, o);
	for (uint32_t i = 0; i < b->dso_map.count; i++) write_dso(b, o, i);
	for (uint32_t i = 0; i < b->frame_map.count; i++) write_frame(b, o, i);
	for (uint32_t i = 0; i < b->thread_map.count; i++) write_thread(b, o, i);
	write_stacks(b, o);
	if (b->samples) {
		spool_rewind(b->samples);
		char *line;
		size_t n;
		while ((line = spool_line(b->samples, &n)) != NULL) {
			out_write(o, line, n);
			out_putc(o, '\n');
		}
	}
}

/* ---- reading a builder in process ------------------------------------- */

void builder_cursor_start(builder *b, builder_cursor *c)
{
	memset(c, 0, sizeof *c);
	c->b = b;
	c->o = output_open_mem();
	if (b->samples) spool_rewind(b->samples);
}

void builder_cursor_end(builder_cursor *c)
{
	size_t n;
	if (c->o) free(output_close_mem(c->o, &n));
	sbuf_free(&c->scratch);
	sbuf_free(&c->wt);
	c->o = NULL;
}

/* Is s plain: text the fast path takes as it is (printable ASCII, no '"'
 * or '\\')? */
static bool plain(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)p[i];
		if (ch < 0x20 || ch >= 0x7f || ch == '"' || ch == '\\') return false;
	}
	return true;
}

/* Stack i into *s as the reader's fast path would have parsed its record
 * (spaa.h), when it is in that layout: its strings plain, its weights
 * integers, no members the fast path leaves to the JSON parser. */
static bool stack_fill(builder_cursor *c, uint32_t i, spaa_stack *s)
{
	const builder *b = c->b;
	const struct bstack *st = &b->stacks[i];
	const struct bctx *x = &b->ctxs[st->ctx];
	if (st->related || x->extra) return false;
	const struct bevent *e = &b->events[x->event];
	sstr ev = { e->name, strlen(e->name) };
	if (!plain(ev.p, ev.n)) return false;
	sstr comm = SSTR_NULL, stype = SSTR_NULL;
	if (x->comm) comm = ctx_get(b, x->comm);
	if (x->stack_type) stype = ctx_get(b, x->stack_type);
	if ((comm.p && !plain(comm.p, comm.n)) || (stype.p && !plain(stype.p, stype.n))) return false;
	const num *w = &b->wpool[(size_t)i * b->nmetrics];
	s->nw = s->nxw = 0;
	for (uint32_t m = 0; m < b->nmetrics; m++) {
		if (!(st->present >> m & 1)) continue;
		if (w[m].kind == NUM_DBL) return false;
		const char *mn = b->metrics[m].name, *mu = b->metrics[m].unit;
		spaa_weight sw = { { mn, strlen(mn) }, mu ? (sstr){ mu, strlen(mu) } : SSTR_NULL, w[m] };
		if (!plain(sw.metric.p, sw.metric.n) || (mu && !plain(sw.unit.p, sw.unit.n))) return false;
		*VEC_PUSH(s->w, s->nw, s->wcap) = sw;
	}
	s->nframes = 0;
	const char *fk = strmap_key(&b->stack_map, i, NULL);
	for (uint32_t j = 0; j < st->nframes; j++) {
		uint32_t f;
		memcpy(&f, fk + (size_t)j * sizeof f, sizeof f);
		*VEC_PUSH(s->frames, s->nframes, s->fcap) = f;
	}
	s->has_excl = st->nframes > 0;
	if (s->has_excl) {
		s->excl_frame = s->frames[0];
		for (uint32_t k = 0; k < s->nw; k++) *VEC_PUSH(s->xw, s->nxw, s->xwcap) = s->w[k];
	}
	c->idbuf[0] = '0';
	s->id = (sstr){ c->idbuf, fmt_hex(c->idbuf, st->id, 16) };
	s->related = 0;
	s->context = 0;
	s->has_cpu = false;
	s->has_pid = x->has_pid;
	s->pid = x->pid;
	s->has_tid = x->has_tid;
	s->tid = x->tid;
	s->comm = comm;
	s->stack_type = stype;
	s->event_name = ev;
	return true;
}

/* Frame i's members into c->frame, when its record is in the fast path's
 * layout: its strings plain, no members of its own (write_frame's record
 * then holds exactly these). */
static bool frame_fill(builder_cursor *c, uint32_t i)
{
	const builder *b = c->b;
	const struct bframe *f = &b->frames[i];
	const char *fn = strmap_key(&b->frame_map, i, NULL);
	if ((f->extra && *f->extra) || !plain(fn, f->func_n) || (f->ip && !plain(f->ip, f->ip_n)) ||
	    (f->symoff && !plain(f->symoff, f->symoff_n)) || (f->srcline && !plain(f->srcline, f->srcline_n)))
		return false;
	builder_frame_rec *x = &c->frame;
	x->id = (uint64_t)i + 1;
	x->dso = (uint64_t)f->dso + 1;
	x->func = (sstr){ fn, f->func_n };
	x->ip = f->ip ? (sstr){ f->ip, f->ip_n } : SSTR_NULL;
	x->symoff = f->symoff ? (sstr){ f->symoff, f->symoff_n } : SSTR_NULL;
	x->srcline = f->srcline ? (sstr){ f->srcline, f->srcline_n } : SSTR_NULL;
	x->kind = f->kind;
	x->inline_depth = f->inline_depth >= 0 ? f->inline_depth : -1;
	x->resolved = f->resolved;
	x->inlined = f->inlined;
	return true;
}

/* The record's text in c->o as a line (without its newline). */
static void cursor_line(builder_cursor *c, const char **line, size_t *n)
{
	*line = c->o->buf;
	*n = c->o->n;
	/* without its newline, as input_line gives a line */
	if (*n && c->o->buf[*n - 1] == '\n') (*n)--;
	c->o->buf[*n] = 0;
}

void builder_cursor_frame_text(builder_cursor *c, const char **line, size_t *n)
{
	c->o->n = 0;
	write_frame(c->b, c->o, (uint32_t)c->frame.id - 1);
	cursor_line(c, line, n);
}

int builder_cursor_next(builder_cursor *c, spaa_stack *s, const char **line, size_t *n)
{
	builder *b = c->b;
	c->o->n = 0;
	for (;;) {
		switch (c->part) {
		case 0:
			c->part++;
			write_header(b, c->o);
			goto text;
		case 1:
			if (c->i < b->dso_map.count) {
				write_dso(b, c->o, c->i++);
				goto text;
			}
			break;
		case 2:
			if (c->i < b->frame_map.count) {
				uint32_t i = c->i++;
				if (s && frame_fill(c, i)) return BUILDER_FRAME;
				write_frame(b, c->o, i);
				goto text;
			}
			break;
		case 3:
			if (c->i < b->thread_map.count) {
				write_thread(b, c->o, c->i++);
				goto text;
			}
			break;
		case 4:
			while (c->i < b->stack_map.count && b->stacks[c->i].alias) c->i++;
			if (c->i < b->stack_map.count) {
				uint32_t i = c->i++;
				if (s && stack_fill(c, i, s)) return BUILDER_STACK;
				uint32_t e = b->ctxs[b->stacks[i].ctx].event;
				c->scratch.n = 0;
				event_prefix(b, e, &c->scratch);
				write_stack(b, c->o, i, c->scratch.p, c->scratch.n, &c->wt);
				goto text;
			}
			break;
		case 5:
			if (b->samples) {
				size_t k;
				char *l = spool_line(b->samples, &k);
				if (l) {
					*line = l;
					*n = k;
					return BUILDER_TEXT;
				}
			}
			break;
		default:
			return BUILDER_END;
		}
		c->part++;
		c->i = 0;
	}
text:
	cursor_line(c, line, n);
	return BUILDER_TEXT;
}
