/* spans.c - timed spans to self-cost call-path stacks (see spans.h). */
#define _GNU_SOURCE /* fallocate: give back the space of merged runs */
#include "spans.h"
#include "jsonbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "cli.h"
#include "spaa.h"
#include "strmap.h"

/* One entry of a stack of open spans. */
struct sp_ent {
	uint32_t frame;
	uint32_t node;      /* call-path node (STACK path, SORT walk) */
	uint32_t xi;        /* SORT walk: index of the span's aux data */
	uint32_t wn;        /* SORT walk: length of the extra weights after xn */
	uint64_t seq, pos;
	int64_t end;        /* SORT walk: end time */
	uint32_t xoff, xn;  /* sample extra in the thread's open-extra buffer
			     * (SORT walk: in s->wx) */
};

struct sp_stack {
	struct sp_ent *e;
	uint32_t n, cap;
	int64_t *beg, *child; /* n * nmetrics each */
	uint32_t vcap;        /* entries the value arrays hold */
};

/* A sorted run in the temporary file: records [off, end); runs merged from
 * runs of one level have the next level. */
struct sp_run { uint64_t off, end; uint32_t level; };

/* A span as written to the temporary file, followed by its nmetrics-1
 * inclusive values (int64) and xn + wn bytes of sample extras. */
struct sp_rec {
	int64_t start, end;
	uint64_t seq, pos;
	uint32_t thr, frame, xn, wn;
};

/* A run being read. */
struct sp_cur {
	uint64_t off, end;        /* file bytes not yet read */
	char *buf;
	size_t cap, lo, hi;       /* unread bytes: buf[lo, hi) */
	struct sp_rec h;          /* the current record */
	int64_t aux[SPANS_MAX_METRICS];
	const char *raw, *x;      /* its bytes; its sample extras */
	size_t rawn;
};

/* Cursors, the one with the first record on top. */
struct sp_heap { struct sp_cur **c; uint32_t n; };

/* A span fed to the nesting walk. */
struct sp_in {
	int64_t start, end;
	uint64_t seq, pos;
	uint32_t frame, xn, wn;
	const int64_t *aux;       /* nmetrics-1 values */
	const char *x;            /* xn + wn bytes */
};

/* A finished span waiting to be nested (SPANS_SORT). */
struct sp_span {
	int64_t start, end;
	uint64_t seq, pos;
	uint32_t frame;
	uint32_t xi;        /* arrival index: aux values and sample extra */
};

/* Children looked up under a call-path node (roots of a thread), in front of
 * the hash table: a span's begin then usually costs no hashing.  A hit moves
 * to the front, a miss is added at the front (the last entry drops out). */
#define SP_KIDS 4
#define SP_ROOTS 16
/* tag: name_tag() of the frame's name (spans_begin_name's quick check) */
struct sp_kids { uint32_t frame[SP_KIDS], node[SP_KIDS], tag[SP_KIDS]; };
struct sp_roots { uint32_t frame[SP_ROOTS], node[SP_ROOTS], tag[SP_ROOTS]; };

struct sp_thr {
	int64_t pid, tid;
	struct sp_roots roots;    /* the thread's root nodes */
	char *name;
	size_t name_n;
	struct sp_stack open;     /* STACK: the path; SORT: begin/end pairing */
	sbuf oextra;              /* sample extras of open spans (LIFO) */
	int64_t *last;            /* readings of the last event */
	bool has_t, has_be;
	int64_t tmin, tmax;       /* time of all spans seen */
	int64_t be_last;          /* last begin/end time (monotonicity) */
	struct sp_span *buf;      /* SORT: finished spans */
	uint32_t nbuf, bcap;
	int64_t *aux;             /* SORT: nmetrics-1 inclusive values per span */
	uint32_t auxcap;
	uint32_t *xoff, *xn;      /* SORT + samples: extra per span, in xbuf */
	uint32_t *xw;             /* and the length of its extra weights, after it */
	uint32_t xcap;
	sbuf xbuf;
};

#define SP_FCACHE 2048
/* a, b: the name's first and last 8 bytes (zero-padded): for names up to 16
 * bytes they are the whole name */
struct sp_fcache { uint64_t a, b; char *name; uint32_t n, frame; };

/* The name of each frame made by spans_frame (n = UINT32_MAX: none): a, b as
 * in sp_fcache, p the name (kept when longer than 16 bytes). */
struct sp_fname { uint64_t a, b; char *p; uint32_t n, tag; };

/* A call path of one thread: a node of a per-thread trie. */
struct sp_node {
	uint32_t parent;    /* UINT32_MAX: a root */
	uint32_t frame, thr, depth;
	int64_t stack;      /* builder stack index, -1 before the first span ends */
	uint64_t calls;
	uint32_t order;     /* first end: position in s->emitted, UINT32_MAX none */
	struct sp_kids kids;
};

struct spans {
	spans_conf c;
	uint64_t cur_pos;         /* the position of the event being nested */
	struct sp_node *nodes;
	uint32_t nnodes, nodecap, selfcap;
	int64_t *self;            /* nmetrics per node: summed self cost */
	uint64_t *htk;            /* path trie: (parent, frame) -> node + 1 */
	uint32_t *htv, htcap, htn; /* open addressing, htcap a power of two */
	uint32_t *emitted;        /* nodes in order of their first span's end */
	uint32_t nemitted, emcap;
	uint32_t dso;
	strmap thr_map;
	struct sp_thr *thr;
	uint32_t nthr, thrcap;
	int64_t cache_pid, cache_tid;
	int64_t cache_idx;        /* -1 none */
	uint64_t seq;
	struct sp_stack walk;
	uint32_t *leaf;           /* frames leaf first */
	uint32_t leafcap;
	sbuf sx;                  /* sample extra being built */
	struct sp_fcache fcache[SP_FCACHE];
	struct sp_fname *fn;
	uint32_t fncap;
	spans_stats st;
	bool finished;
	/* SORT: bounded memory.  At most buflimit spans (and about xlimit
	 * bytes of sample extras) wait in the threads' buffers; beyond, they
	 * are sorted and written as a run to an unlinked temporary file, and
	 * spans_finish() merges the runs. */
	uint64_t buflimit, xlimit;
	uint64_t nbuffered, xbuffered;
	bool nospill;             /* spans_finish: unclosed spans stay in memory */
	int fd;                   /* the temporary file, -1: none yet */
	uint64_t fend;            /* bytes written to it (with wbuf) */
	sbuf wbuf;                /* write buffer */
	struct sp_run *runs;
	uint32_t nruns, runcap;
	int64_t *waux;            /* SORT walk: nmetrics-1 inclusive values per entry */
	uint32_t wauxcap;
	sbuf wx;                  /* SORT walk: sample extras of the entries (LIFO) */
	struct sp_heap mh;        /* spans_finish: the runs being merged */
	struct sp_cur *mcs;
	uint32_t mn;
};

static inline uint64_t mix64(uint64_t k);
static void merge_end(spans *s);
static uint32_t frame_add(spans *s, const char *name, size_t n, const char *extra_json);
static void report(spans *s, uint64_t pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void report(spans *s, uint64_t pos, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (s->c.report) s->c.report(s->c.arg, pos, msg);
	else warn_at(cli_input, 0, "%s", msg);
}

/* An error that ends the conversion, at position pos: conf.fatal, else the
 * report with exit 1. */
static noreturn void fatal_at(spans *s, uint64_t pos, const char *msg)
{
	if (s->c.fatal) s->c.fatal(s->c.arg, pos, msg);
	if (s->c.report) s->c.report(s->c.arg, pos, msg);
	else warn_at(cli_input, 0, "%s", msg);
	cli_exit(EXIT_DATA);
}

spans *spans_new(const spans_conf *conf)
{
	spans *s = xcalloc(1, sizeof *s);
	s->c = *conf;
	if (!s->c.max_depth) s->c.max_depth = SPANS_DEFAULT_MAX_DEPTH;
	if (s->c.nmetrics < 1 || s->c.nmetrics > SPANS_MAX_METRICS)
		die(EXIT_DATA, "internal error: spans with %u metrics", s->c.nmetrics);
	s->dso = builder_dso(s->c.b, "[unknown]", 9, false);
	s->cache_idx = -1;
	s->fd = -1;
	s->buflimit = (uint64_t)1 << 20;
	const char *env = getenv("SPAA_SPANS_BUFFER");
	if (env && *env) {
		char *end;
		errno = 0;
		unsigned long long v = strtoull(env, &end, 10);
		if (errno || *end || v == 0 || *env < '0' || *env > '9')
			die(EXIT_DATA, "SPAA_SPANS_BUFFER: not a positive number of spans: %s", env);
		s->buflimit = v;
	}
	s->xlimit = s->buflimit > UINT64_MAX / 64 ? UINT64_MAX : s->buflimit * 64;
	return s;
}

static void stack_free(struct sp_stack *k)
{
	free(k->e);
	free(k->beg);
	free(k->child);
}

void spans_free(spans *s)
{
	if (!s) return;
	for (uint32_t i = 0; i < s->nthr; i++) {
		struct sp_thr *t = &s->thr[i];
		free(t->name);
		stack_free(&t->open);
		sbuf_free(&t->oextra);
		free(t->last);
		free(t->buf);
		free(t->aux);
		free(t->xoff);
		free(t->xn);
		free(t->xw);
		sbuf_free(&t->xbuf);
	}
	free(s->thr);
	merge_end(s);
	free(s->runs);
	free(s->waux);
	sbuf_free(&s->wx);
	free(s->nodes);
	free(s->self);
	free(s->htk);
	free(s->htv);
	free(s->emitted);
	for (uint32_t i = 0; i < SP_FCACHE; i++) free(s->fcache[i].name);
	for (uint32_t i = 0; i < s->fncap; i++) free(s->fn[i].p);
	free(s->fn);
	stack_free(&s->walk);
	free(s->leaf);
	sbuf_free(&s->sx);
	strmap_free(&s->thr_map);
	free(s);
}

void spans_set_dso(spans *s, const char *name)
{
	s->dso = builder_dso(s->c.b, name, strlen(name), false);
}

static inline uint32_t name_tag(uint64_t a, uint64_t b, size_t n)
{
	return (uint32_t)(a ^ (a >> 32) ^ b ^ (b >> 32)) ^ (uint32_t)n;
}

static inline void name_words(const char *name, size_t n, uint64_t *a, uint64_t *b)
{
	*a = *b = 0;
	if (n >= 8) {
		memcpy(a, name, 8);
		memcpy(b, name + n - 8, 8);
	} else if (n > 0) {
		memcpy(a, name, n);
	}
}

uint32_t spans_frame(spans *s, const char *name, size_t n, const char *extra_json)
{
	/* a direct-mapped cache in front of the builder's dictionary */
	uint64_t a, b;
	name_words(name, n, &a, &b);
	uint32_t h = (uint32_t)(mix64(a ^ (b * 0x9e3779b97f4a7c15ULL) ^ n) >> 40);
	/* two ways: a miss moves way 0 to way 1 and fills way 0 */
	struct sp_fcache *fc = &s->fcache[(h & (SP_FCACHE / 2 - 1)) * 2];
	if (fc->name && fc->n == n && fc->a == a && fc->b == b &&
	    (n <= 16 || memcmp(fc->name + 8, name + 8, n - 16) == 0))
		return fc->frame;
	if (fc[1].name && fc[1].n == n && fc[1].a == a && fc[1].b == b &&
	    (n <= 16 || memcmp(fc[1].name + 8, name + 8, n - 16) == 0))
		return fc[1].frame;
	uint32_t id = frame_add(s, name, n, extra_json);
	if (id >= s->fncap) {
		uint32_t old = s->fncap;
		grow_array((void **)&s->fn, &s->fncap, id + 1, sizeof *s->fn);
		for (uint32_t i = old; i < s->fncap; i++) s->fn[i].n = UINT32_MAX, s->fn[i].p = NULL;
	}
	if (s->fn[id].n == UINT32_MAX && n < UINT32_MAX) {
		struct sp_fname *x = &s->fn[id];
		x->a = a;
		x->b = b;
		x->n = (uint32_t)n;
		x->tag = name_tag(a, b, n);
		x->p = n > 16 ? xmemdup(name, n) : NULL;
	}
	if (n <= 64) {
		struct sp_fcache t = fc[1];
		fc[1] = fc[0];
		fc[0] = t;
		if (!fc->name) fc->name = xmalloc(64);
		memcpy(fc->name, name, n);
		fc->a = a;
		fc->b = b;
		fc->n = (uint32_t)n;
		fc->frame = id;
	}
	return id;
}

static uint32_t frame_add(spans *s, const char *name, size_t n, const char *extra_json)
{
	builder_frame f;
	memset(&f, 0, sizeof f);
	f.func = (sstr){ name, n };
	f.dso = s->dso;
	f.kind = FK_USER;
	f.func_resolved = true;
	f.inline_depth = -1;
	f.extra_json = extra_json;
	return builder_frame_add(s->c.b, &f);
}

uint32_t spans_thread(spans *s, int64_t pid, int64_t tid)
{
	if (s->cache_idx >= 0 && s->cache_pid == pid && s->cache_tid == tid)
		return (uint32_t)s->cache_idx;
	int64_t key[2] = { pid, tid };
	bool added;
	uint32_t i = strmap_intern(&s->thr_map, key, sizeof key, &added);
	if (added) {
		grow_array((void **)&s->thr, &s->thrcap, i + 1, sizeof *s->thr);
		struct sp_thr *t = &s->thr[i];
		memset(t, 0, sizeof *t);
		t->pid = pid;
		t->tid = tid;
		t->last = xcalloc(s->c.nmetrics, sizeof *t->last);
		memset(&t->roots, 0xff, sizeof t->roots);
		s->nthr = i + 1;
	}
	s->cache_pid = pid;
	s->cache_tid = tid;
	s->cache_idx = i;
	return i;
}

void spans_thread_name(spans *s, uint32_t thr, const char *name, size_t n)
{
	struct sp_thr *t = &s->thr[thr];
	free(t->name);
	t->name = xmemdup(name, n);
	t->name_n = n;
}

const spans_stats *spans_get_stats(const spans *s)
{
	return &s->st;
}

/* ---- call-path nodes ---------------------------------------------------- */

static inline uint64_t mix64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ULL;
	k ^= k >> 33;
	return k;
}

static void ht_grow(spans *s)
{
	uint32_t nc = s->htcap ? s->htcap * 2 : 1024;
	uint64_t *nk = xcalloc(nc, sizeof *nk);
	uint32_t *nv = xcalloc(nc, sizeof *nv);
	for (uint32_t i = 0; i < s->htcap; i++) {
		if (!s->htv[i]) continue;
		uint32_t j = (uint32_t)mix64(s->htk[i]) & (nc - 1);
		while (nv[j]) j = (j + 1) & (nc - 1);
		nk[j] = s->htk[i];
		nv[j] = s->htv[i];
	}
	free(s->htk);
	free(s->htv);
	s->htk = nk;
	s->htv = nv;
	s->htcap = nc;
}

static uint32_t node_find(spans *s, uint32_t thr, uint32_t parent, uint32_t frame);

/* The node for frame under parent (UINT32_MAX: a root of thread thr). */
static inline uint32_t node_get(spans *s, uint32_t thr, uint32_t parent, uint32_t frame)
{
	uint32_t *cf, *cn, *ct, size;
	if (parent == UINT32_MAX) {
		cf = s->thr[thr].roots.frame;
		cn = s->thr[thr].roots.node;
		ct = s->thr[thr].roots.tag;
		size = SP_ROOTS;
	} else {
		cf = s->nodes[parent].kids.frame;
		cn = s->nodes[parent].kids.node;
		ct = s->nodes[parent].kids.tag;
		size = SP_KIDS;
	}
	if (cf[0] == frame) return cn[0];
	for (uint32_t j = 1; j < size; j++) {
		if (cf[j] != frame) continue;
		uint32_t n = cn[j], tg = ct[j];
		cf[j] = cf[0];
		cn[j] = cn[0];
		ct[j] = ct[0];
		cf[0] = frame;
		cn[0] = n;
		ct[0] = tg;
		return n;
	}
	uint32_t n = node_find(s, thr, parent, frame);
	if (parent != UINT32_MAX) { /* node_find may move s->nodes */
		cf = s->nodes[parent].kids.frame;
		cn = s->nodes[parent].kids.node;
		ct = s->nodes[parent].kids.tag;
	}
	for (uint32_t j = size - 1; j > 0; j--) {
		cf[j] = cf[j - 1];
		cn[j] = cn[j - 1];
		ct[j] = ct[j - 1];
	}
	cf[0] = frame;
	cn[0] = n;
	ct[0] = frame < s->fncap && s->fn[frame].n != UINT32_MAX ? s->fn[frame].tag : 0;
	return n;
}

static uint32_t node_find(spans *s, uint32_t thr, uint32_t parent, uint32_t frame)
{
	uint64_t key = (uint64_t)(parent == UINT32_MAX ? 0x80000000u | thr : parent) << 32 | frame;
	if ((uint64_t)(s->htn + 1) * 4 > (uint64_t)s->htcap * 3) ht_grow(s);
	uint32_t j = (uint32_t)mix64(key) & (s->htcap - 1);
	while (s->htv[j]) {
		if (s->htk[j] == key) return s->htv[j] - 1;
		j = (j + 1) & (s->htcap - 1);
	}
	if (s->nnodes >= 0x7fffffffu) die_input("too many distinct call paths");
	uint32_t nm = s->c.nmetrics;
	uint32_t n = s->nnodes;
	struct sp_node *x = VEC_PUSH(s->nodes, s->nnodes, s->nodecap);
	x->parent = parent;
	x->frame = frame;
	x->thr = thr;
	x->depth = parent == UINT32_MAX ? 1 : s->nodes[parent].depth + 1;
	if (x->depth > s->c.max_depth) {
		/* output grows with the square of the depth (each stack holds
		 * all its ancestors): a limit, not gigabytes */
		char msg[160];
		snprintf(msg, sizeof msg, "spans nested deeper than %u level%s (the limit; --max-depth=N raises it)",
			 s->c.max_depth, s->c.max_depth == 1 ? "" : "s");
		fatal_at(s, s->cur_pos, msg);
	}
	x->stack = -1;
	x->calls = 0;
	x->order = UINT32_MAX;
	memset(&x->kids, 0xff, sizeof x->kids);
	if (s->nodecap * nm > s->selfcap) {
		s->selfcap = s->nodecap * nm;
		s->self = xrealloc(s->self, (size_t)s->selfcap * sizeof *s->self);
	}
	memset(s->self + (size_t)n * nm, 0, nm * sizeof *s->self);
	s->htk[j] = key;
	s->htv[j] = n + 1;
	s->htn++;
	return n;
}

/* The builder stack of node n (created without weights on first use). */
static uint32_t node_stack(spans *s, uint32_t n)
{
	struct sp_node *x = &s->nodes[n];
	if (x->stack >= 0) return (uint32_t)x->stack;
	struct sp_thr *t = &s->thr[x->thr];
	if (x->depth > s->leafcap) grow_array((void **)&s->leaf, &s->leafcap, x->depth, sizeof *s->leaf);
	uint32_t j = 0;
	for (uint32_t k = n; k != UINT32_MAX; k = s->nodes[k].parent) s->leaf[j++] = s->nodes[k].frame;
	builder_ctx ctx;
	memset(&ctx, 0, sizeof ctx);
	ctx.event = s->c.event;
	ctx.has_pid = ctx.has_tid = true;
	ctx.pid = t->pid;
	ctx.tid = t->tid;
	x->stack = builder_stack(s->c.b, &ctx, s->leaf, j, NULL, NULL, 0);
	return (uint32_t)x->stack;
}

/* ---- stacks of open spans ------------------------------------------------ */

/* nm >= 1 values (the first written out: one metric needs no memcpy call) */
static inline void copy_vals(int64_t *d, const int64_t *v, uint32_t nm)
{
	d[0] = v[0];
	for (uint32_t m = 1; m < nm; m++) d[m] = v[m];
}

static struct sp_ent *stack_push(spans *s, struct sp_stack *k)
{
	uint32_t nm = s->c.nmetrics;
	struct sp_ent *e = VEC_PUSH(k->e, k->n, k->cap);
	if (k->n > k->vcap) {
		uint32_t nc = k->cap;
		k->beg = xrealloc(k->beg, (size_t)nc * nm * sizeof *k->beg);
		k->child = xrealloc(k->child, (size_t)nc * nm * sizeof *k->child);
		k->vcap = nc;
	}
	int64_t *child = k->child + (size_t)(k->n - 1) * nm;
	child[0] = 0; /* nm >= 1; written out so that one metric needs no memset call */
	for (uint32_t m = 1; m < nm; m++) child[m] = 0;
	return e;
}

static void seen_time(struct sp_thr *t, int64_t ts)
{
	if (!t->has_t) {
		t->has_t = true;
		t->tmin = t->tmax = ts;
		return;
	}
	if (ts < t->tmin) t->tmin = ts;
	if (ts > t->tmax) t->tmax = ts;
}

/* Ends the top span of k (with readings endv): its self cost is added to
 * its call-path node, its inclusive cost to the parent's children.  extra:
 * the caller's sample members for this span; w: the caller's x_weights
 * elements for it. */
static void emit_top(spans *s, struct sp_thr *t, struct sp_stack *k, const int64_t *endv,
		     const char *extra, size_t extra_n, const char *w, size_t wn)
{
	uint32_t nm = s->c.nmetrics;
	uint32_t top = k->n - 1;
	const int64_t *beg = k->beg + (size_t)top * nm;
	const int64_t *child = k->child + (size_t)top * nm;
	uint32_t n = k->e[top].node;
	int64_t *acc = s->self + (size_t)n * nm;
	int64_t incl[SPANS_MAX_METRICS];
	incl[0] = 0;
	for (uint32_t m = 0; m < nm; m++) {
		if (__builtin_sub_overflow(endv[m], beg[m], &incl[m]))
			fatal_at(s, k->e[top].pos, "span cost overflows 64 bits");
	}
	if (incl[0] < 0) {
		s->st.negative++;
		report(s, k->e[top].pos, "span ends %lld ns before it begins; taken as 0",
		       (long long)-incl[0]);
		incl[0] = 0;
	}
	int64_t selfv[SPANS_MAX_METRICS];
	for (uint32_t m = 0; m < nm; m++) {
		int64_t self;
		if (__builtin_sub_overflow(incl[m], child[m], &self) ||
		    __builtin_add_overflow(acc[m], self, &acc[m]))
			fatal_at(s, k->e[top].pos, "span cost overflows 64 bits");
		selfv[m] = self;
		if (top > 0) {
			int64_t *pc = k->child + (size_t)(top - 1) * nm + m;
			if (__builtin_add_overflow(*pc, incl[m], pc))
				fatal_at(s, k->e[top].pos, "span cost overflows 64 bits");
		}
	}
	struct sp_node *x = &s->nodes[n];
	x->calls++;
	if (x->order == UINT32_MAX) {
		x->order = s->nemitted;
		*VEC_PUSH(s->emitted, s->nemitted, s->emcap) = n;
	}
	s->st.spans++;
	if (s->c.samples) {
		uint32_t si = node_stack(s, n);
		char nb[24];
		s->sx.n = 0;
		sbuf_adds(&s->sx, "\"x_dur_ns\":");
		sbuf_add(&s->sx, nb, fmt_i64(nb, incl[0]));
		/* the span's own share of its stack's weights: summed over the
		 * stack's samples they give the stack's weights exactly */
		sbuf_adds(&s->sx, ",\"x_weights\":[");
		for (uint32_t m = 0; m < nm; m++) {
			if (m) sbuf_addc(&s->sx, ',');
			sbuf_adds(&s->sx, "{\"metric\":");
			const char *mn = builder_metric_name(s->c.b, s->c.midx[m]);
			jb_str(&s->sx, mn, strlen(mn));
			sbuf_adds(&s->sx, ",\"value\":");
			sbuf_add(&s->sx, nb, fmt_i64(nb, selfv[m]));
			sbuf_addc(&s->sx, '}');
		}
		if (s->c.calls_midx >= 0) {
			const char *mn = builder_metric_name(s->c.b, (uint32_t)s->c.calls_midx);
			sbuf_adds(&s->sx, ",{\"metric\":");
			jb_str(&s->sx, mn, strlen(mn));
			sbuf_adds(&s->sx, ",\"value\":1}");
		}
		if (wn) {
			sbuf_addc(&s->sx, ',');
			sbuf_add(&s->sx, w, wn);
		}
		sbuf_addc(&s->sx, ']');
		if (extra_n) {
			sbuf_addc(&s->sx, ',');
			sbuf_add(&s->sx, extra, extra_n);
		}
		sbuf_addc(&s->sx, 0);
		builder_sample(s->c.b, si, true, (double)beg[0] / 1e9, s->sx.p);
	}
	(void)t;
	k->n--;
}

/* ---- events -------------------------------------------------------------- */

static void be_time(spans *s, struct sp_thr *t, int64_t ts, uint64_t pos)
{
	if (t->has_be && ts < t->be_last) {
		s->st.backwards++;
		/* the difference of two int64 may pass 2^63: taken unsigned */
		report(s, pos, "time goes backwards on thread %lld/%lld (%llu ns earlier than the previous event)",
		       (long long)t->pid, (long long)t->tid,
		       (unsigned long long)((uint64_t)t->be_last - (uint64_t)ts));
	}
	if (!t->has_be || ts > t->be_last) t->be_last = ts;
	t->has_be = true;
	seen_time(t, ts);
}

/* A begin whose call-path node is known (UINT32_MAX in SORT mode). */
static void begin_at(spans *s, uint32_t thr, uint32_t frame, uint32_t node, const int64_t *vals,
		     const char *sample_extra, size_t extra_n, uint64_t pos)
{
	struct sp_thr *t = &s->thr[thr];
	uint32_t nm = s->c.nmetrics;
	be_time(s, t, vals[0], pos);
	copy_vals(t->last, vals, nm);
	struct sp_ent *e = stack_push(s, &t->open);
	e->frame = frame;
	e->node = node;
	e->seq = s->seq++;
	e->pos = pos;
	e->xi = 0;
	e->end = 0;
	e->xoff = (uint32_t)t->oextra.n;
	e->xn = 0;
	if (s->c.samples && extra_n) {
		sbuf_add(&t->oextra, sample_extra, extra_n);
		e->xn = (uint32_t)extra_n;
	}
	int64_t *beg = t->open.beg + (size_t)(t->open.n - 1) * nm;
	copy_vals(beg, vals, nm);
}

void spans_begin(spans *s, uint32_t thr, uint32_t frame, const int64_t *vals,
		 const char *sample_extra, size_t extra_n, uint64_t pos)
{
	uint32_t node = UINT32_MAX;
	if (s->c.mode == SPANS_STACK) {
		const struct sp_stack *k = &s->thr[thr].open;
		s->cur_pos = pos;
		node = node_get(s, thr, k->n ? k->e[k->n - 1].node : UINT32_MAX, frame);
	}
	begin_at(s, thr, frame, node, vals, sample_extra, extra_n, pos);
}

void spans_begin_name(spans *s, uint32_t thr, const char *name, size_t n, const int64_t *vals,
		      const char *sample_extra, size_t extra_n, uint64_t pos)
{
	if (s->c.mode == SPANS_STACK) {
		/* the children of the open span (or the thread's roots), by name */
		const struct sp_thr *t = &s->thr[thr];
		const uint32_t *cf, *cn, *ct;
		uint32_t size;
		if (t->open.n) {
			const struct sp_kids *c = &s->nodes[t->open.e[t->open.n - 1].node].kids;
			cf = c->frame;
			cn = c->node;
			ct = c->tag;
			size = SP_KIDS;
		} else {
			cf = t->roots.frame;
			cn = t->roots.node;
			ct = t->roots.tag;
			size = SP_ROOTS;
		}
		uint64_t a, b;
		name_words(name, n, &a, &b);
		uint32_t tag = name_tag(a, b, n);
		for (uint32_t j = 0; j < size; j++) {
			uint32_t f = cf[j];
			if (ct[j] != tag || f >= s->fncap) continue;
			const struct sp_fname *x = &s->fn[f];
			if (x->n == n && x->a == a && x->b == b && (n <= 16 || !memcmp(x->p + 8, name + 8, n - 16))) {
				begin_at(s, thr, f, cn[j], vals, sample_extra, extra_n, pos);
				return;
			}
		}
	}
	spans_begin(s, thr, spans_frame(s, name, n, NULL), vals, sample_extra, extra_n, pos);
}

static void spill(spans *s);

/* SORT: keep a finished span of t. */
static void keep_span(spans *s, struct sp_thr *t, int64_t start, int64_t end, uint64_t seq,
		      uint64_t pos, uint32_t frame, const int64_t *incl, const char *extra,
		      size_t extra_n, const char *w, size_t wn)
{
	uint32_t nm = s->c.nmetrics;
	if (s->nbuffered >= s->buflimit || s->xbuffered >= s->xlimit) {
		if (!s->nospill) spill(s);
	}
	s->nbuffered++;
	uint32_t xi = t->nbuf;
	struct sp_span *sp = VEC_PUSH(t->buf, t->nbuf, t->bcap);
	sp->start = start;
	sp->end = end;
	sp->seq = seq;
	sp->pos = pos;
	sp->frame = frame;
	sp->xi = xi;
	if (nm > 1) {
		if ((size_t)(xi + 1) * (nm - 1) > t->auxcap) {
			t->auxcap = t->bcap * (nm - 1);
			t->aux = xrealloc(t->aux, (size_t)t->auxcap * sizeof *t->aux);
		}
		for (uint32_t m = 1; m < nm; m++)
			t->aux[(size_t)xi * (nm - 1) + m - 1] = incl ? incl[m - 1] : 0;
	}
	if (s->c.samples) {
		if (xi >= t->xcap) {
			t->xcap = t->bcap;
			t->xoff = xrealloc(t->xoff, (size_t)t->xcap * sizeof *t->xoff);
			t->xn = xrealloc(t->xn, (size_t)t->xcap * sizeof *t->xn);
			t->xw = xrealloc(t->xw, (size_t)t->xcap * sizeof *t->xw);
		}
		t->xoff[xi] = (uint32_t)t->xbuf.n;
		t->xn[xi] = (uint32_t)extra_n;
		t->xw[xi] = (uint32_t)wn;
		if (t->xbuf.n + extra_n + wn > UINT32_MAX)
			die_input("too much per-span data for samples on one thread");
		sbuf_add(&t->xbuf, extra, extra_n);
		sbuf_add(&t->xbuf, w, wn);
		s->xbuffered += extra_n + wn;
	}
	seen_time(t, start);
	seen_time(t, end);
}

static void close_top(spans *s, struct sp_thr *t, const int64_t *vals, const char *w, size_t wn)
{
	if (!s->c.samples) wn = 0;
	struct sp_stack *k = &t->open;
	struct sp_ent *e = &k->e[k->n - 1];
	const char *x = t->oextra.p + e->xoff;
	size_t xn = e->xn;
	if (s->c.mode == SPANS_STACK) {
		emit_top(s, t, k, vals, x, xn, w, wn);
	} else {
		uint32_t nm = s->c.nmetrics;
		const int64_t *beg = k->beg + (size_t)(k->n - 1) * nm;
		int64_t incl[SPANS_MAX_METRICS];
		int64_t end = vals[0];
		if (end < beg[0]) {
			s->st.negative++;
			report(s, e->pos, "span ends %lld ns before it begins; taken as 0",
			       (long long)(beg[0] - end));
			end = beg[0];
		}
		for (uint32_t m = 1; m < nm; m++)
			if (__builtin_sub_overflow(vals[m], beg[m], &incl[m - 1]))
				fatal_at(s, e->pos, "span cost overflows 64 bits");
		keep_span(s, t, beg[0], end, e->seq, e->pos, e->frame, incl, x, xn, w, wn);
		k->n--;
	}
	t->oextra.n = e->xoff;
}

bool spans_end(spans *s, uint32_t thr, const int64_t *vals, uint64_t pos)
{
	return spans_end_weights(s, thr, vals, NULL, 0, pos);
}

bool spans_end_weights(spans *s, uint32_t thr, const int64_t *vals, const char *weights,
		       size_t weights_n, uint64_t pos)
{
	struct sp_thr *t = &s->thr[thr];
	if (t->open.n == 0) {
		s->st.unmatched_ends++;
		report(s, pos, "end with no open begin on thread %lld/%lld; ignored",
		       (long long)t->pid, (long long)t->tid);
		return false;
	}
	be_time(s, t, vals[0], pos);
	copy_vals(t->last, vals, s->c.nmetrics);
	close_top(s, t, vals, weights, weights_n);
	return true;
}

int64_t spans_open_frame(const spans *s, uint32_t thr)
{
	const struct sp_thr *t = &s->thr[thr];
	return t->open.n ? (int64_t)t->open.e[t->open.n - 1].frame : -1;
}

uint64_t spans_open_count(const spans *s)
{
	uint64_t n = 0;
	for (uint32_t i = 0; i < s->nthr; i++) n += s->thr[i].open.n;
	return n;
}

void spans_complete(spans *s, uint32_t thr, uint32_t frame, int64_t start_ns,
		    int64_t dur_ns, const int64_t *incl, const char *sample_extra,
		    size_t extra_n, uint64_t pos)
{
	struct sp_thr *t = &s->thr[thr];
	int64_t end;
	if (s->c.mode != SPANS_SORT) die(EXIT_DATA, "internal error: complete span in stack mode");
	if (dur_ns < 0) {
		s->st.negative++;
		report(s, pos, "negative duration; span ignored");
		return;
	}
	if (__builtin_add_overflow(start_ns, dur_ns, &end)) {
		s->st.negative++;
		report(s, pos, "span end does not fit in 64 bits; span ignored");
		return;
	}
	keep_span(s, t, start_ns, end, s->seq++, pos, frame, incl,
		  s->c.samples ? sample_extra : NULL, s->c.samples ? extra_n : 0, NULL, 0);
}

/* ---- the temporary file (SORT beyond the buffer) ------------------------- */

#define SP_FANIN 16            /* runs merged at once */
#define SP_RBUF (1u << 16)     /* read buffer of a run being merged */
#define SP_WBUF (1u << 20)     /* write buffer */

static void tmp_open(spans *s)
{
	s->fd = tmpfile_unlinked("spaa-spans");
}

static void tmp_flush(spans *s)
{
	tmpfile_write(s->fd, s->wbuf.p, s->wbuf.n);
	s->wbuf.n = 0;
}

static inline void tmp_write(spans *s, const void *p, size_t n)
{
	sbuf_add(&s->wbuf, p, n);
	s->fend += n;
	if (s->wbuf.n >= SP_WBUF) tmp_flush(s);
}

/* At least n unread bytes in c's buffer. */
static void cur_need(spans *s, struct sp_cur *c, size_t n)
{
	if (c->hi - c->lo >= n) return;
	memmove(c->buf, c->buf + c->lo, c->hi - c->lo);
	c->hi -= c->lo;
	c->lo = 0;
	if (n > c->cap) {
		c->cap = n > 2 * c->cap ? n : 2 * c->cap;
		c->buf = xrealloc(c->buf, c->cap);
	}
	while (c->hi < n) {
		size_t want = c->cap - c->hi;
		if (want > c->end - c->off) want = (size_t)(c->end - c->off);
		if (want == 0) die(EXIT_DATA, "temporary file: read error: record cut short");
		ssize_t k = pread(s->fd, c->buf + c->hi, want, (off_t)c->off);
		if (k < 0) {
			if (errno == EINTR) continue;
			die(EXIT_DATA, "temporary file: read error: %s", strerror(errno));
		}
		if (k == 0) die(EXIT_DATA, "temporary file: read error: unexpected end of file");
		c->hi += (size_t)k;
		c->off += (uint64_t)k;
	}
}

/* The next record of c's run into c->h, c->aux, c->x; false at its end. */
static bool cur_next(spans *s, struct sp_cur *c)
{
	if (c->lo == c->hi && c->off == c->end) return false;
	uint32_t na = s->c.nmetrics - 1;
	size_t hn = sizeof c->h + (size_t)na * sizeof *c->aux;
	cur_need(s, c, hn);
	memcpy(&c->h, c->buf + c->lo, sizeof c->h);
	size_t n = hn + (size_t)c->h.xn + c->h.wn;
	cur_need(s, c, n);
	const char *p = c->buf + c->lo;
	if (na) memcpy(c->aux, p + sizeof c->h, (size_t)na * sizeof *c->aux);
	c->raw = p;
	c->rawn = n;
	c->x = p + hn;
	c->lo += n;
	return true;
}

/* The nesting order: start ascending, duration descending, arrival (a total
 * order: seq is unique). */
static inline bool key_before(int64_t s1, int64_t e1, uint64_t q1, int64_t s2, int64_t e2, uint64_t q2)
{
	if (s1 != s2) return s1 < s2;
	int64_t d1 = e1 - s1, d2 = e2 - s2;
	if (d1 != d2) return d1 > d2;
	return q1 < q2;
}

/* Records are in thread order, then in the nesting order. */
static inline bool rec_before(const struct sp_rec *x, const struct sp_rec *y)
{
	if (x->thr != y->thr) return x->thr < y->thr;
	return key_before(x->start, x->end, x->seq, y->start, y->end, y->seq);
}

static void heap_down(struct sp_heap *h, uint32_t i)
{
	for (;;) {
		uint32_t l = 2 * i + 1, m = i;
		if (l < h->n && rec_before(&h->c[l]->h, &h->c[m]->h)) m = l;
		if (l + 1 < h->n && rec_before(&h->c[l + 1]->h, &h->c[m]->h)) m = l + 1;
		if (m == i) return;
		struct sp_cur *x = h->c[i];
		h->c[i] = h->c[m];
		h->c[m] = x;
		i = m;
	}
}

/* A heap of cursors on runs [r0, r0 + n); returns the cursors to free. */
static struct sp_cur *heap_open(spans *s, struct sp_heap *h, uint32_t r0, uint32_t n)
{
	tmp_flush(s);
	struct sp_cur *cs = xcalloc(n, sizeof *cs);
	h->c = xmalloc((size_t)n * sizeof *h->c);
	h->n = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct sp_cur *c = &cs[i];
		c->off = s->runs[r0 + i].off;
		c->end = s->runs[r0 + i].end;
		c->cap = SP_RBUF;
		c->buf = xmalloc(c->cap);
		if (cur_next(s, c)) h->c[h->n++] = c;
	}
	for (uint32_t i = h->n / 2; i-- > 0;) heap_down(h, i);
	return cs;
}

/* Moves the top cursor to its next record. */
static void heap_pop(spans *s, struct sp_heap *h)
{
	if (!cur_next(s, h->c[0])) h->c[0] = h->c[--h->n];
	if (h->n) heap_down(h, 0);
}

static void heap_close(struct sp_heap *h, struct sp_cur *cs, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) free(cs[i].buf);
	free(cs);
	free(h->c);
	h->c = NULL;
	h->n = 0;
}

/* Merges the last n runs into one. */
static void merge_runs(spans *s, uint32_t n)
{
	uint32_t r0 = s->nruns - n;
	uint32_t level = s->runs[r0].level + 1;
	struct sp_heap h;
	struct sp_cur *cs = heap_open(s, &h, r0, n);
	uint64_t off = s->fend;
	while (h.n) {
		tmp_write(s, h.c[0]->raw, h.c[0]->rawn);
		heap_pop(s, &h);
	}
	heap_close(&h, cs, n);
#ifdef FALLOC_FL_PUNCH_HOLE
	/* the merged runs' space is free again (if the file system can) */
	for (uint32_t i = r0; i < s->nruns; i++)
		if (s->runs[i].end > s->runs[i].off)
			(void)fallocate(s->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)s->runs[i].off,
					(off_t)(s->runs[i].end - s->runs[i].off));
#endif
	s->runs[r0].off = off;
	s->runs[r0].end = s->fend;
	s->runs[r0].level = level;
	s->nruns = r0 + 1;
}

static void thr_buf_free(struct sp_thr *t)
{
	free(t->buf);
	free(t->aux);
	free(t->xoff);
	free(t->xn);
	free(t->xw);
	sbuf_free(&t->xbuf);
	t->buf = NULL;
	t->aux = NULL;
	t->xoff = t->xn = t->xw = NULL;
	t->nbuf = t->bcap = t->auxcap = t->xcap = 0;
}

static void sort_spans(struct sp_span *a, uint32_t n);

/* Writes the buffered spans of every thread, sorted, as one run (in thread
 * order), and empties the buffers. */
static void spill(spans *s)
{
	uint32_t nm = s->c.nmetrics;
	if (s->fd < 0) tmp_open(s);
	uint64_t off = s->fend, kept = 0, xkept = 0;
	for (uint32_t i = 0; i < s->nthr; i++) {
		struct sp_thr *t = &s->thr[i];
		if (!t->nbuf) continue;
		sort_spans(t->buf, t->nbuf);
		for (uint32_t j = 0; j < t->nbuf; j++) {
			const struct sp_span *sp = &t->buf[j];
			struct sp_rec r;
			r.start = sp->start;
			r.end = sp->end;
			r.seq = sp->seq;
			r.pos = sp->pos;
			r.thr = i;
			r.frame = sp->frame;
			r.xn = s->c.samples ? t->xn[sp->xi] : 0;
			r.wn = s->c.samples ? t->xw[sp->xi] : 0;
			tmp_write(s, &r, sizeof r);
			if (nm > 1)
				tmp_write(s, t->aux + (size_t)sp->xi * (nm - 1), (size_t)(nm - 1) * sizeof *t->aux);
			if (r.xn + r.wn) tmp_write(s, t->xbuf.p + t->xoff[sp->xi], (size_t)r.xn + r.wn);
		}
		/* the buffers are kept for the next spans (freed and grown
		 * again, their pages would be faulted in again), as long as
		 * all that is kept stays within one buffer's limits */
		if (kept + t->bcap <= s->buflimit && xkept + t->xbuf.cap <= s->xlimit) {
			kept += t->bcap;
			xkept += t->xbuf.cap;
			t->nbuf = 0;
			t->xbuf.n = 0;
		} else {
			thr_buf_free(t);
		}
	}
	s->nbuffered = s->xbuffered = 0;
	struct sp_run *r = VEC_PUSH(s->runs, s->nruns, s->runcap);
	r->off = off;
	r->end = s->fend;
	r->level = 0;
	/* runs of equal level are merged SP_FANIN at a time: few runs, each
	 * span rewritten once per level */
	while (s->nruns >= SP_FANIN && s->runs[s->nruns - SP_FANIN].level == s->runs[s->nruns - 1].level)
		merge_runs(s, SP_FANIN);
}

/* spans_finish: cursors on at most SP_FANIN runs, in one heap. */
static void merge_start(spans *s)
{
	if (!s->nruns) return;
	tmp_flush(s);
	while (s->nruns > SP_FANIN) merge_runs(s, SP_FANIN);
	s->mn = s->nruns;
	s->mcs = heap_open(s, &s->mh, 0, s->nruns);
}

static void merge_end(spans *s)
{
	if (s->mcs) heap_close(&s->mh, s->mcs, s->mn);
	s->mcs = NULL;
	if (s->fd >= 0) close(s->fd);
	s->fd = -1;
	sbuf_free(&s->wbuf);
}

/* ---- finishing ----------------------------------------------------------- */

static inline bool span_before(const struct sp_span *x, const struct sp_span *y)
{
	return key_before(x->start, x->end, x->seq, y->start, y->end, y->seq);
}

static inline void span_swap(struct sp_span *x, struct sp_span *y)
{
	struct sp_span t = *x;
	*x = *y;
	*y = t;
}

static void span_sift(struct sp_span *a, size_t i, size_t n)
{
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n) return;
		if (c + 1 < n && span_before(&a[c], &a[c + 1])) c++;
		if (!span_before(&a[i], &a[c])) return;
		span_swap(&a[i], &a[c]);
		i = c;
	}
}

/* Introsort in place (no memory beyond the spans): quicksort with the
 * median of three, heapsort past the depth limit, insertion sort for small
 * parts.  The order is total, so the result is the only sorted one. */
static void span_introsort(struct sp_span *a, size_t n, int depth)
{
	while (n > 24) {
		if (depth-- == 0) {
			for (size_t i = n / 2; i-- > 0;) span_sift(a, i, n);
			for (size_t e = n; e-- > 1;) {
				span_swap(&a[0], &a[e]);
				span_sift(a, 0, e);
			}
			return;
		}
		size_t mid = n / 2;
		if (span_before(&a[mid], &a[0])) span_swap(&a[mid], &a[0]);
		if (span_before(&a[n - 1], &a[0])) span_swap(&a[n - 1], &a[0]);
		if (span_before(&a[n - 1], &a[mid])) span_swap(&a[n - 1], &a[mid]);
		/* Hoare partition around a copy of the median; a[0] <= pivot <=
		 * a[n - 1] stop the scans, and both parts are non-empty */
		struct sp_span pv = a[mid];
		size_t i = (size_t)-1, j = n;
		for (;;) {
			do i++; while (span_before(&a[i], &pv));
			do j--; while (span_before(&pv, &a[j]));
			if (i >= j) break;
			span_swap(&a[i], &a[j]);
		}
		size_t left = j + 1;
		if (left < n - left) {
			span_introsort(a, left, depth);
			a += left;
			n -= left;
		} else {
			span_introsort(a + left, n - left, depth);
			n = left;
		}
	}
	for (size_t k = 1; k < n; k++) {
		struct sp_span x = a[k];
		size_t m = k;
		while (m > 0 && span_before(&x, &a[m - 1])) {
			a[m] = a[m - 1];
			m--;
		}
		a[m] = x;
	}
}

/* Sorts a[0..n) by span_before (an array already sorted is only checked). */
static void sort_spans(struct sp_span *a, uint32_t n)
{
	uint32_t i;
	for (i = 1; i < n && !span_before(&a[i], &a[i - 1]); i++)
		;
	if (i >= n) return;
	int depth = 0;
	for (uint32_t k = n; k > 1; k >>= 1) depth += 2;
	span_introsort(a, n, depth);
}

static void walk_pop(spans *s, struct sp_thr *t)
{
	uint32_t nm = s->c.nmetrics;
	struct sp_stack *k = &s->walk;
	struct sp_ent *e = &k->e[k->n - 1];
	int64_t endv[SPANS_MAX_METRICS];
	endv[0] = e->end;
	for (uint32_t m = 1; m < nm; m++) endv[m] = s->waux[(size_t)(k->n - 1) * (nm - 1) + m - 1];
	uint32_t xoff = e->xoff, xn = e->xn, wn = e->wn;
	const char *x = xn || wn ? s->wx.p + xoff : NULL;
	emit_top(s, t, k, endv, x, xn, wn ? x + xn : NULL, wn);
	s->wx.n = xoff;
}

/* The next span of thread thr in the nesting order: the spans it does not
 * nest in end, and it opens. */
static void nest_push(spans *s, uint32_t thr, const struct sp_in *cur)
{
	struct sp_thr *t = &s->thr[thr];
	uint32_t nm = s->c.nmetrics;
	struct sp_stack *k = &s->walk;
	bool overlap = false;
	while (k->n && k->e[k->n - 1].end < cur->end) {
		if (k->e[k->n - 1].end > cur->start) overlap = true;
		walk_pop(s, t);
	}
	if (overlap) {
		s->st.overlaps++;
		report(s, cur->pos, "span overlaps an earlier span of thread %lld/%lld without nesting in it",
		       (long long)t->pid, (long long)t->tid);
	}
	uint32_t parent = k->n ? k->e[k->n - 1].node : UINT32_MAX;
	struct sp_ent *e = stack_push(s, k);
	e->frame = cur->frame;
	s->cur_pos = cur->pos;
	e->node = node_get(s, thr, parent, cur->frame);
	e->xi = 0;
	e->seq = cur->seq;
	e->pos = cur->pos;
	e->end = cur->end;
	e->xoff = (uint32_t)s->wx.n;
	e->xn = cur->xn;
	e->wn = cur->wn;
	if (cur->xn || cur->wn) {
		if (s->wx.n + cur->xn + cur->wn > UINT32_MAX)
			die_input("too much per-span data for samples on one thread");
		sbuf_add(&s->wx, cur->x, (size_t)cur->xn + cur->wn);
	}
	int64_t *beg = k->beg + (size_t)(k->n - 1) * nm;
	beg[0] = cur->start;
	for (uint32_t m = 1; m < nm; m++) beg[m] = 0;
	if (nm > 1) {
		if ((size_t)k->n * (nm - 1) > s->wauxcap) {
			s->wauxcap = k->cap * (nm - 1);
			s->waux = xrealloc(s->waux, (size_t)s->wauxcap * sizeof *s->waux);
		}
		memcpy(s->waux + (size_t)(k->n - 1) * (nm - 1), cur->aux, (size_t)(nm - 1) * sizeof *s->waux);
	}
}

/* Nests the spans of thread thr: those in its buffer and, merged with them,
 * those in the runs of the temporary file. */
static void nest_sorted(spans *s, uint32_t thr)
{
	struct sp_thr *t = &s->thr[thr];
	uint32_t nm = s->c.nmetrics;
	sort_spans(t->buf, t->nbuf);
	s->walk.n = 0;
	s->wx.n = 0;
	struct sp_heap *h = &s->mh;
	struct sp_in in;
	uint32_t i = 0;
	for (;;) {
		bool run = h->n && h->c[0]->h.thr == thr;
		if (i < t->nbuf) {
			const struct sp_span *sp = &t->buf[i];
			if (!run || key_before(sp->start, sp->end, sp->seq, h->c[0]->h.start, h->c[0]->h.end,
					       h->c[0]->h.seq)) {
				in.start = sp->start;
				in.end = sp->end;
				in.seq = sp->seq;
				in.pos = sp->pos;
				in.frame = sp->frame;
				in.aux = nm > 1 ? t->aux + (size_t)sp->xi * (nm - 1) : NULL;
				in.xn = s->c.samples ? t->xn[sp->xi] : 0;
				in.wn = s->c.samples ? t->xw[sp->xi] : 0;
				in.x = in.xn || in.wn ? t->xbuf.p + t->xoff[sp->xi] : NULL;
				nest_push(s, thr, &in);
				i++;
				continue;
			}
		} else if (!run) {
			break;
		}
		const struct sp_cur *c = h->c[0];
		in.start = c->h.start;
		in.end = c->h.end;
		in.seq = c->h.seq;
		in.pos = c->h.pos;
		in.frame = c->h.frame;
		in.aux = c->aux;
		in.xn = c->h.xn;
		in.wn = c->h.wn;
		in.x = c->x;
		nest_push(s, thr, &in);
		heap_pop(s, h);
	}
	while (s->walk.n) walk_pop(s, t);
	thr_buf_free(t);
}

void spans_finish(spans *s)
{
	if (s->finished) return;
	s->finished = true;
	s->nospill = true;
	if (s->c.mode == SPANS_SORT) merge_start(s);
	uint32_t nm = s->c.nmetrics;
	int64_t endv[SPANS_MAX_METRICS];
	for (uint32_t i = 0; i < s->nthr; i++) {
		struct sp_thr *t = &s->thr[i];
		while (t->open.n) {
			struct sp_ent *e = &t->open.e[t->open.n - 1];
			s->st.unclosed++;
			if (s->c.drop_unclosed && s->c.mode == SPANS_SORT) {
				report(s, e->pos, "span never ends on thread %lld/%lld; dropped",
				       (long long)t->pid, (long long)t->tid);
				t->oextra.n = e->xoff;
				t->open.n--;
				continue;
			}
			report(s, e->pos, "span never ends on thread %lld/%lld; closed at the thread's last time",
			       (long long)t->pid, (long long)t->tid);
			memcpy(endv, t->last, nm * sizeof *endv);
			endv[0] = t->tmax;
			close_top(s, t, endv, NULL, 0);
		}
		if (s->c.mode == SPANS_SORT) nest_sorted(s, i);
	}
	if (s->c.mode == SPANS_SORT) merge_end(s);
	/* one builder stack per call path, in order of the first span's end */
	num vals[SPANS_MAX_METRICS + 1];
	uint32_t midx[SPANS_MAX_METRICS + 1];
	for (uint32_t i = 0; i < s->nemitted; i++) {
		uint32_t n = s->emitted[i];
		uint32_t si = node_stack(s, n);
		uint32_t nv = 0;
		for (uint32_t m = 0; m < nm; m++) {
			vals[nv] = num_i(s->self[(size_t)n * nm + m]);
			midx[nv++] = s->c.midx[m];
		}
		if (s->c.calls_midx >= 0) {
			vals[nv] = num_u(s->nodes[n].calls);
			midx[nv++] = (uint32_t)s->c.calls_midx;
		}
		struct sp_node *x = &s->nodes[n];
		struct sp_thr *t = &s->thr[x->thr];
		builder_ctx ctx;
		memset(&ctx, 0, sizeof ctx);
		ctx.event = s->c.event;
		ctx.has_pid = ctx.has_tid = true;
		ctx.pid = t->pid;
		ctx.tid = t->tid;
		if (s->leafcap < x->depth) grow_array((void **)&s->leaf, &s->leafcap, x->depth, sizeof *s->leaf);
		uint32_t j = 0;
		for (uint32_t k = n; k != UINT32_MAX; k = s->nodes[k].parent) s->leaf[j++] = s->nodes[k].frame;
		if (builder_stack(s->c.b, &ctx, s->leaf, j, midx, vals, nv) != si)
			die(EXIT_DATA, "internal error: call path and stack disagree");
	}
	for (uint32_t i = 0; i < s->nthr; i++) {
		struct sp_thr *t = &s->thr[i];
		builder_thread(s->c.b, t->pid, t->tid, t->name, t->name_n);
		if (t->has_t) {
			builder_time(s->c.b, (double)t->tmin / 1e9);
			builder_time(s->c.b, (double)t->tmax / 1e9);
		}
	}
}

/* ---- helpers ------------------------------------------------------------- */

bool spans_us_text_to_ns(const char *p, size_t n, int64_t *ns)
{
	return spans_text_to_ns(p, n, 3, ns);
}

bool spans_text_to_ns(const char *p, size_t n, int pow10, int64_t *ns)
{
	const char *e = p + n;
	bool neg = false;
	if (p < e && (*p == '-' || *p == '+')) neg = *p++ == '-';
	/* the significant digits as one integer m (at most 19 of them), with the
	 * decimal exponent x: value = m * 10^x; later digits only round */
	uint64_t m = 0;
	int64_t x = 0;
	bool any = false;
	int nd = 0;
	for (; p < e && *p >= '0' && *p <= '9'; p++) {
		any = true;
		if (nd < 19) {
			m = m * 10 + (uint64_t)(*p - '0');
			if (m) nd++;
		} else {
			x++;
		}
	}
	if (p < e && *p == '.') {
		p++;
		for (; p < e && *p >= '0' && *p <= '9'; p++) {
			any = true;
			if (nd < 19) {
				m = m * 10 + (uint64_t)(*p - '0');
				if (m) nd++;
				x--;
			}
		}
	}
	if (!any) return false;
	if (p < e && (*p == 'e' || *p == 'E')) {
		p++;
		bool eneg = false;
		if (p < e && (*p == '-' || *p == '+')) eneg = *p++ == '-';
		int64_t ex = 0;
		bool ed = false;
		for (; p < e && *p >= '0' && *p <= '9'; p++) {
			ed = true;
			if (ex < 100000) ex = ex * 10 + (*p - '0');
		}
		if (!ed) return false;
		x += eneg ? -ex : ex;
	}
	if (p != e) return false;
	x += pow10; /* the unit to nanoseconds */
	if (m == 0) {
		*ns = 0;
		return true;
	}
	uint64_t v = m;
	if (x >= 0) {
		for (int64_t i = 0; i < x; i++)
			if (__builtin_mul_overflow(v, 10, &v)) return false;
	} else {
		/* divide by 10^-x, rounding half away from zero (digits dropped
		 * beyond the 19th are worth less than one unit of rem) */
		int64_t k = -x;
		if (k > 19) {
			v = 0;
		} else {
			uint64_t div = 1;
			for (int64_t i = 0; i < k; i++) div *= 10;
			v = m / div + (m % div >= div / 2);
		}
	}
	if (v > (uint64_t)INT64_MAX) return false;
	*ns = neg ? -(int64_t)v : (int64_t)v;
	return true;
}

uint32_t spans_max_depth_arg(const char *arg)
{
	uint64_t v = opt_u64("--max-depth", arg);
	if (v < 1 || v > INT32_MAX) usage_error("--max-depth: '%s' is not from 1 to 2147483647", arg);
	return (uint32_t)v;
}
