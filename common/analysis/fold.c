/* fold.c - folded names and paths: which event and metric to fold, and how a
 * SPAA frame is named in a folded line.  The default ("tidy") naming follows
 * FlameGraph's stackcollapse-perf.pl so that perf-derived SPAA folds to the
 * same lines that script makes from the perf script text, except where
 * inferno names a frame better (naming.h holds those rules). */
#include "fold.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "demangle.h"
#include "metric.h"
#include "naming.h"

int32_t fold_pick_event(spaa_reader *r, const char *name, bool quiet)
{
	if (name) {
		int32_t e = spaa_event_find(r, name, strlen(name));
		if (e < 0) {
			sbuf b = { 0 };
			for (uint32_t i = 0; i < r->nevents; i++) {
				if (!r->events[i].name) continue;
				sbuf_adds(&b, b.n ? ", " : "");
				sbuf_adds(&b, r->events[i].name);
			}
			sbuf_addc(&b, 0);
			die_at(r->name, r->header_line, "event %s is not declared in the header (events: %s)",
			       name, b.n > 1 ? b.p : "none");
		}
		return e;
	}
	if (r->nevents == 0) return -1;
	if (r->nevents > 1 && !quiet) {
		sbuf b = { 0 };
		for (uint32_t i = 1; i < r->nevents; i++) {
			sbuf_adds(&b, i > 1 ? ", " : "");
			sbuf_adds(&b, r->events[i].name ? r->events[i].name : "(unnamed)");
		}
		sbuf_addc(&b, 0);
		warn_at(r->name, r->header_line,
			"%u events; folding only %s, not %s (use --event or --all-events)",
			r->nevents, r->events[0].name ? r->events[0].name : "(unnamed)", b.p);
		sbuf_free(&b);
	}
	return 0;
}

const char *fold_pick_metric(const spaa_reader *r, int32_t event, const char *metric)
{
	const char *primary = event >= 0 && (uint32_t)event < r->nevents ? r->events[event].primary_metric : NULL;
	if (metric) return metric_resolve(metric, primary);
	return primary ? primary : "samples";
}

/* Appends n bytes of s with ';' -> ':' and line breaks -> ' ' (the two
 * things a folded name cannot hold). */
static void add_clean(sbuf *b, const char *s, size_t n)
{
	sbuf_reserve(b, n);
	char *d = b->p + b->n;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		d[i] = c == ';' ? ':' : (c == '\n' || c == '\r' || c == 0) ? ' ' : c;
	}
	b->n += n;
}

/* Does s[0..n) contain "_[i]" already? */
static bool has_mark(const char *s, size_t n)
{
	for (size_t i = 0; i + 4 <= n; i++)
		if (memcmp(s + i, "_[i]", 4) == 0) return true;
	return false;
}

/* A frame from a kernel dso (naming.h), or one SPAA marks as kernel. */
static bool is_kernel_frame(const spaa_reader *r, const spaa_frame *fr)
{
	const spaa_dso *d = &r->dsos[fr->dso];
	const char *n = d->name ? d->name : "";
	if (strstr(n, "unknown")) return false;
	return naming_dso_is_kernel(n, strlen(n)) || d->is_kernel || fr->kind == FK_KERNEL;
}

/* A function name, tidied (naming.h). */
static void add_tidy(sbuf *b, const char *s, size_t n)
{
	naming_tidy(b, s, n);
}

/* stackcollapse.pl's tidying of DTrace frames: ';' -> ':', and C++
 * arguments cut: from the last '(' or '<' that follows the first "::". */
static void add_tidy_dtrace(sbuf *b, const char *s, size_t n)
{
	size_t end = n;
	for (size_t i = 0; i + 1 < n; i++) {
		if (s[i] != ':' || s[i + 1] != ':') continue;
		for (size_t j = n; j-- > i + 2;)
			if (s[j] == '(' || s[j] == '<') { end = j; break; }
		break;
	}
	if (end == 0) {
		sbuf_addc(b, '-');
		return;
	}
	add_clean(b, s, end);
}

void fold_opts_header(fold_opts *o, const spaa_reader *r)
{
	uint32_t k = json_get(&r->doc, 0, "source_tool");
	const json_node *x = k ? &r->doc.nodes[k] : NULL;
	o->dtrace = x && x->type == JSON_STRING && x->count == 6 && memcmp(x->str, "dtrace", 6) == 0;
	o->perf = x && x->type == JSON_STRING && x->count == 4 && memcmp(x->str, "perf", 4) == 0;
	/* names that are whole, with no C argument list to cut: JavaScript,
	 * Ruby ("block (2 levels) in <main>"), and what speedscope files hold;
	 * Safari's JavaScript, GHC's cost centres, cProfile's
	 * "file:line(function)" */
	o->js = x && x->type == JSON_STRING &&
		((x->count == 6 && memcmp(x->str, "chrome", 6) == 0) ||
		 (x->count == 9 && memcmp(x->str, "stackprof", 9) == 0) ||
		 (x->count == 10 && memcmp(x->str, "speedscope", 10) == 0) ||
		 (x->count == 6 && memcmp(x->str, "safari", 6) == 0) ||
		 (x->count == 3 && memcmp(x->str, "ghc", 3) == 0) ||
		 (x->count == 8 && memcmp(x->str, "cProfile", 8) == 0));
	/* valgrind's tools name the function that calls main "(below main)",
	 * as callgrind_annotate and ms_print print it: a frame to keep */
	o->paren = x && x->type == JSON_STRING &&
		((x->count == 9 && memcmp(x->str, "callgrind", 9) == 0) ||
		 (x->count == 6 && memcmp(x->str, "massif", 6) == 0) ||
		 (x->count == 4 && memcmp(x->str, "dhat", 4) == 0));
}

/* The inline mode in effect: a negative inline_mode means "the default":
 * _[i] marks for DTrace (stackcollapse.pl marks "->" chains), plain names
 * otherwise (stackcollapse-perf.pl shows perf's "(inlined)" frames as they
 * are; it marks _[i] only with its --inline). */
static int inline_mode(const fold_opts *o)
{
	if (o->inline_mode >= 0) return o->inline_mode;
	return o->dtrace && !o->raw ? FOLD_INLINE_MARK : FOLD_INLINE_PLAIN;
}

bool fold_opts_take(fold_opts *o, int c, const char *arg)
{
	switch (c) {
	case FOLD_OPT_ALL_EVENTS: o->all_events = true; break;
	case FOLD_OPT_RAW: o->raw = true; break;
	case FOLD_OPT_NO_COMM: o->no_comm = true; break;
	case FOLD_OPT_PID: o->pid = true; break;
	case FOLD_OPT_TID: o->tid = true; break;
	case FOLD_OPT_KERNEL: o->kernel = true; break;
	case FOLD_OPT_JIT: o->jit = true; break;
	case FOLD_OPT_ALL: o->kernel = o->jit = true; break;
	case FOLD_OPT_ADDRS: o->addrs = true; break;
	case FOLD_OPT_DEMANGLE: o->demangle = true; break;
	case FOLD_OPT_INLINE:
		if (!arg || strcmp(arg, "mark") == 0) o->inline_mode = FOLD_INLINE_MARK;
		else if (strcmp(arg, "plain") == 0) o->inline_mode = FOLD_INLINE_PLAIN;
		else if (strcmp(arg, "hide") == 0) o->inline_mode = FOLD_INLINE_HIDE;
		else usage_error("--inline: unknown mode '%s' (mark, plain or hide)", arg);
		break;
	default: return false;
	}
	return true;
}

/* The function name of frame fr: with --demangle, demangled (valid until
 * the next call); its length in *n. */
static const char *frame_func(const spaa_frame *fr, const fold_opts *o, size_t *n)
{
	static sbuf dm;
	*n = fr->func_n;
	if (!o->demangle || !fr->func_resolved) return fr->func;
	dm.n = 0;
	if (!demangle_name(fr->func, fr->func_n, 0, &dm)) return fr->func;
	sbuf_addc(&dm, 0);
	*n = dm.n - 1;
	return dm.p;
}

bool fold_frame_hidden(const spaa_reader *r, uint32_t f, const fold_opts *o)
{
	const spaa_frame *fr = &r->frames[f];
	if (fr->inlined && inline_mode(o) == FOLD_INLINE_HIDE) return true;
	/* perf2spaa's placeholder for an empty callchain: the comm alone, as
	 * stackcollapse-perf.pl writes such a sample */
	if (fr->perf_nochain && !o->raw) return true;
	/* stackcollapse-perf.pl (and inferno) skip symbols that start with
	 * '('; not a C++ "(anonymous namespace)::f", a function of its own */
	if (o->raw || o->dtrace || o->js || o->paren || !fr->func_resolved) return false;
	size_t n;
	const char *fn = frame_func(fr, o, &n);
	static const char anon[] = "(anonymous namespace)";
	return fn[0] == '(' && !(n >= sizeof anon - 1 && memcmp(fn, anon, sizeof anon - 1) == 0);
}

/* The first "->" in [s, e) that is not C++'s "operator->", or NULL. */
static const char *find_arrow(const char *s, const char *e)
{
	for (const char *p = s; e - p >= 2; p++)
		if (p[0] == '-' && p[1] == '>' && !(p - s >= 8 && memcmp(p - 8, "operator", 8) == 0))
			return p;
	return NULL;
}

/* "[dso-basename]", or "[unknown]"; with addrs "[NAME <addr>]" */
static void add_unknown(sbuf *b, const spaa_frame *fr, const char *dname, const fold_opts *o)
{
	const char *nm = "unknown";
	if (dname[0] && strcmp(dname, "[unknown]") != 0) {
		const char *sl = strrchr(dname, '/');
		nm = sl ? sl + 1 : dname;
	}
	sbuf_addc(b, '[');
	add_clean(b, nm, strlen(nm));
	if (o->addrs) {
		const char *ip = fr->ip ? fr->ip : !fr->func_resolved ? fr->func : NULL;
		if (ip && ip[0] == '0' && (ip[1] == 'x' || ip[1] == 'X')) ip += 2;
		if (ip && *ip) {
			sbuf_adds(b, " <");
			add_clean(b, ip, strlen(ip));
			sbuf_addc(b, '>');
		}
	}
	sbuf_addc(b, ']');
}

/* The suffix of a frame name that starts at b->p[start]: _[i], _[k] or _[j]. */
static void add_mark(const spaa_reader *r, const spaa_frame *fr, const char *dname,
		     const fold_opts *o, sbuf *b, size_t start)
{
	if (fr->inlined && inline_mode(o) == FOLD_INLINE_MARK) {
		if (!has_mark(b->p + start, b->n - start))
			sbuf_adds(b, "_[i]");
	} else if (o->kernel && is_kernel_frame(r, fr)) {
		sbuf_adds(b, "_[k]");
	} else if (o->jit && naming_dso_is_jit(dname, strlen(dname))) {
		sbuf_adds(b, "_[j]");
	}
}

/* The inline mode of the parts of a "->" chain after the first (a JIT's
 * inlined calls, as perf-map-agent's unfolding writes them in a perf
 * map): as asked, else marked, as stackcollapse-perf.pl and inferno mark
 * them by default. */
static int arrow_mode(const fold_opts *o)
{
	return o->inline_mode >= 0 ? o->inline_mode : FOLD_INLINE_MARK;
}

void fold_frame_name(const spaa_reader *r, uint32_t f, const char *comm, size_t comm_n,
		     const fold_opts *o, sbuf *b)
{
	const spaa_frame *fr = &r->frames[f];
	const spaa_dso *d = &r->dsos[fr->dso];
	const char *dname = d->name ? d->name : "";
	size_t start = b->n;
	size_t func_n;
	const char *func = frame_func(fr, o, &func_n);
	if (o->raw || o->js || (o->paren && func_n && func[0] == '(')) {
		add_clean(b, func, func_n);
	} else if (o->dtrace) {
		add_tidy_dtrace(b, func, func_n);
	} else if (fr->perf_nosym && !fr->func_resolved) {
		/* no symbol at all (perf 3.x printed "IP  (DSO)"):
		 * stackcollapse-perf.pl's frame pattern makes that " " */
		sbuf_addc(b, ' ');
	} else if (!fr->func_resolved || func_n == 0) {
		add_unknown(b, fr, dname, o);
	} else {
		/* stackcollapse-perf.pl splits a symbol at "->" into frames,
		 * each named (and marked) on its own; a trailing empty part
		 * is dropped (perl's split) */
		const char *s = func, *e = s + func_n;
		bool java = comm && comm_n >= 4 && memcmp(comm, "java", 4) == 0;
		const char *arrow = o->perf ? find_arrow(s, e) : NULL;
		if (arrow) {
			while (e - s >= 2 && e[-2] == '-' && e[-1] == '>' &&
			       !(e - s >= 10 && memcmp(e - 10, "operator", 8) == 0))
				e -= 2;
			arrow = find_arrow(s, e);
			if (arrow_mode(o) == FOLD_INLINE_HIDE) e = arrow, arrow = NULL;
		}
		bool marked = false;
		for (;;) {
			const char *pe = arrow ? arrow : e;
			size_t ps = b->n;
			bool inl = s != func;
			if (pe - s == 9 && memcmp(s, "[unknown]", 9) == 0) {
				add_unknown(b, fr, dname, o);
			} else {
				add_tidy(b, s, (size_t)(pe - s));
				/* Java: drop the 'L' of "Ljava/lang/..." in java processes */
				if (java && b->n > ps && b->p[ps] == 'L' && memchr(b->p + ps, '/', b->n - ps))
					memmove(b->p + ps, b->p + ps + 1, --b->n - ps);
			}
			marked = inl && arrow_mode(o) == FOLD_INLINE_MARK;
			if (marked && !has_mark(b->p + ps, b->n - ps)) sbuf_adds(b, "_[i]");
			if (!arrow) break;
			if (!marked) add_mark(r, fr, dname, o, b, ps);
			sbuf_addc(b, ';');
			s = arrow + 2;
			arrow = find_arrow(s, e);
			start = b->n;
		}
		if (marked) return;
	}
	add_mark(r, fr, dname, o, b, start);
}

/* The process root frame: comm (spaces -> '_' unless raw), "-PID", "/TID". */
static void add_comm(const spaa_stack *s, sstr comm, const fold_opts *o, sbuf *b)
{
	size_t start = b->n;
	add_clean(b, comm.p, comm.n);
	if (!o->raw)
		for (size_t i = start; i < b->n; i++)
			if (b->p[i] == ' ') b->p[i] = '_';
	if (o->pid || o->tid) {
		char nb[24];
		/* (stackcollapse-perf.pl reads a "PID/0" header, the idle
		 * "swapper 0/0", as the single number PID: "swapper-?/0";
		 * inferno, and this, "swapper-0/0") */
		bool has_pid = s->has_pid, has_tid = s->has_tid;
		int64_t pid = s->pid, tid = s->tid;
		sbuf_addc(b, '-');
		if (has_pid) sbuf_add(b, nb, fmt_i64(nb, pid));
		else sbuf_addc(b, '?');
		if (o->tid) {
			sbuf_addc(b, '/');
			if (has_tid) sbuf_add(b, nb, fmt_i64(nb, tid));
			else sbuf_addc(b, '?');
		}
	}
}

sstr fold_stack_comm(const spaa_reader *r, const spaa_stack *s)
{
	if (s->comm.p) return s->comm;
	if (s->has_tid) {
		char nb[24];
		size_t n = fmt_i64(nb, s->tid);
		int64_t t = strmap_find(&r->thread_ids, nb, n);
		if (t >= 0 && r->threads[t].comm) return sstr_c(r->threads[t].comm);
	}
	return SSTR_NULL;
}

/* A frame's name from the cache (computing it the first time). */
/* The cache entry of frame f, with its hidden flag known. */
static struct fold_cache_ent *cache_ent(fold_cache *c, const spaa_reader *r, uint32_t f,
					const fold_opts *o)
{
	if (f >= c->n) {
		uint32_t n = c->n, cap = c->n;
		grow_array((void **)&c->ent, &cap, f + 1, sizeof *c->ent);
		memset(c->ent + n, 0, (cap - n) * sizeof *c->ent);
		c->n = cap;
	}
	struct fold_cache_ent *e = &c->ent[f];
	if (!(e->have & 4)) e->have |= 4 | (fold_frame_hidden(r, f, o) ? 8 : 0);
	return e;
}

/* A frame's name from the cache (computing it the first time). */
static void add_cached(fold_cache *c, struct fold_cache_ent *e, const spaa_reader *r, uint32_t f,
		       bool java, sstr comm, const fold_opts *o, sbuf *b)
{
	if (!(e->have & (1u << java))) {
		size_t at = c->text.n;
		fold_frame_name(r, f, comm.p, comm.n, o, &c->text);
		e->off[java] = at;
		e->len[java] = (uint32_t)(c->text.n - at);
		e->have |= 1u << java;
	}
	sbuf_add(b, c->text.p + e->off[java], e->len[java]);
}

static void stack_path(const spaa_reader *r, const spaa_stack *s, const fold_opts *o, sbuf *b,
		       fold_cache *c)
{
	bool first = true;
	if (o->all_events) {
		sstr ev = s->event_name.p ? s->event_name
			: s->event >= 0 && r->events[s->event].name ? sstr_c(r->events[s->event].name)
			: sstr_c("[unknown]");
		add_clean(b, ev.p, ev.n);
		first = false;
	}
	sstr comm = fold_stack_comm(r, s);
	if (!o->no_comm && (comm.p || o->pid || o->tid)) {
		if (!first) sbuf_addc(b, ';');
		add_comm(s, comm.p ? comm : sstr_c("[unknown]"), o, b);
		first = false;
	}
	bool java = comm.n >= 4 && memcmp(comm.p, "java", 4) == 0;
	for (uint32_t i = 0; i < s->nframes; i++) {
		uint32_t f = spaa_stack_root_frame(r, s, i);
		if (c) {
			struct fold_cache_ent *e = cache_ent(c, r, f, o);
			if (e->have & 8) continue;
			if (!first) sbuf_addc(b, ';');
			first = false;
			add_cached(c, e, r, f, java, comm, o, b);
		} else {
			if (fold_frame_hidden(r, f, o)) continue;
			if (!first) sbuf_addc(b, ';');
			first = false;
			fold_frame_name(r, f, comm.p, comm.n, o, b);
		}
	}
}

void fold_stack_path(const spaa_reader *r, const spaa_stack *s, const fold_opts *o, sbuf *b)
{
	stack_path(r, s, o, b, NULL);
}

void fold_cache_init(fold_cache *c)
{
	memset(c, 0, sizeof *c);
}

void fold_cache_reset(fold_cache *c)
{
	if (c->n) memset(c->ent, 0, c->n * sizeof *c->ent);
	c->text.n = 0;
}

void fold_cache_free(fold_cache *c)
{
	free(c->ent);
	sbuf_free(&c->text);
	memset(c, 0, sizeof *c);
}

void fold_stack_path_cached(fold_cache *c, const spaa_reader *r, const spaa_stack *s,
			    const fold_opts *o, sbuf *b)
{
	stack_path(r, s, o, b, c);
}

/* Packed paths: names interned once, a path as LEB128 varints of name ids. */

static void put_varint(sbuf *b, uint32_t v)
{
	sbuf_reserve(b, 5);
	uint8_t *d = (uint8_t *)b->p + b->n;
	while (v >= 128) {
		*d++ = (uint8_t)(v | 128);
		v >>= 7;
	}
	*d++ = (uint8_t)v;
	b->n = (size_t)((char *)d - b->p);
}

static inline uint32_t get_varint(const uint8_t **pp)
{
	const uint8_t *p = *pp;
	uint32_t v = 0;
	unsigned sh = 0;
	uint8_t x;
	do {
		x = *p++;
		v |= (uint32_t)(x & 127) << sh;
		sh += 7;
	} while (x & 128);
	*pp = p;
	return v;
}

void fold_names_init(fold_names *c)
{
	memset(c, 0, sizeof *c);
	strmap_init(&c->names);
}

void fold_names_reset(fold_names *c)
{
	if (c->n) memset(c->ent, 0, c->n * sizeof *c->ent);
	if (c->ndso_unknown) memset(c->dso_unknown, 0, c->ndso_unknown * sizeof *c->dso_unknown);
	c->memo.ok = false;
}

static const strmap *rank_map; /* for cmp_semi (qsort has no argument) */

/* bytewise order of "A;" and "B;" */
static int cmp_semi(const void *a, const void *b)
{
	size_t na, nb;
	const char *x = strmap_key(rank_map, *(const uint32_t *)a, &na);
	const char *y = strmap_key(rank_map, *(const uint32_t *)b, &nb);
	int d = memcmp(x, y, na < nb ? na : nb);
	if (d || na == nb) return d;
	return na < nb ? ';' - (unsigned char)y[na] : (unsigned char)x[nb] - ';';
}

void fold_names_rank(fold_names *c)
{
	uint32_t n = c->names.count;
	uint32_t *ids = xmalloc((n + 1) * sizeof *ids);
	for (uint32_t i = 0; i < n; i++) ids[i] = i;
	rank_map = &c->names;
	xqsort(ids, n, sizeof *ids, cmp_semi);
	free(c->rank);
	c->rank = xmalloc((n + 1) * sizeof *c->rank);
	for (uint32_t i = 0; i < n; i++) c->rank[ids[i]] = i;
	free(ids);
}

void fold_names_free(fold_names *c)
{
	strmap_free(&c->names);
	free(c->rank);
	free(c->ent);
	sbuf_free(&c->tmp);
	sbuf_free(&c->memo.comm);
	free(c->dso_unknown);
	memset(c, 0, sizeof *c);
}

static uint32_t intern_tmp(fold_names *c)
{
	return strmap_intern(&c->names, c->tmp.p ? c->tmp.p : "", c->tmp.n, NULL);
}

/* The name id of the process root frame of s (add_comm), through the memo
 * of the last one. */
static uint32_t comm_id(fold_names *c, const spaa_stack *s, sstr comm, const fold_opts *o)
{
	struct fold_comm_memo *m = &c->memo;
	bool pid = o->pid || o->tid, tid = o->tid;
	if (m->ok && m->comm.n == comm.n && (!comm.n || memcmp(m->comm.p, comm.p, comm.n) == 0) &&
	    (!pid || (m->has_pid == s->has_pid && (!s->has_pid || m->pid == s->pid))) &&
	    (!tid || (m->has_tid == s->has_tid && (!s->has_tid || m->tid == s->tid))))
		return m->id;
	c->tmp.n = 0;
	add_comm(s, comm, o, &c->tmp);
	m->id = intern_tmp(c);
	m->comm.n = 0;
	sbuf_add(&m->comm, comm.p, comm.n);
	m->has_pid = s->has_pid;
	m->pid = s->pid;
	m->has_tid = s->has_tid;
	m->tid = s->tid;
	m->ok = true;
	return m->id;
}

void fold_stack_packed(fold_names *c, const spaa_reader *r, const spaa_stack *s,
		       const fold_opts *o, sbuf *b)
{
	size_t start = b->n;
	uint32_t count = 0, first = 0;
	if (o->all_events) {
		sstr ev = s->event_name.p ? s->event_name
			: s->event >= 0 && r->events[s->event].name ? sstr_c(r->events[s->event].name)
			: sstr_c("[unknown]");
		c->tmp.n = 0;
		add_clean(&c->tmp, ev.p, ev.n);
		first = intern_tmp(c);
		put_varint(b, first);
		count++;
	}
	sstr comm = fold_stack_comm(r, s);
	if (!o->no_comm && (comm.p || o->pid || o->tid)) {
		uint32_t id = comm_id(c, s, comm.p ? comm : sstr_c("[unknown]"), o);
		if (!count++) first = id;
		put_varint(b, id);
	}
	bool java = comm.n >= 4 && memcmp(comm.p, "java", 4) == 0;
	/* the frames' entries asked for all at once: a deep stack's are
	 * scattered over megabytes, and waiting for each in turn was most of
	 * the time here */
	for (uint32_t i = 0; i < s->nframes; i++)
		if (s->frames[i] < c->n) __builtin_prefetch(&c->ent[s->frames[i]]);
	for (uint32_t i = 0; i < s->nframes; i++) {
		uint32_t f = spaa_stack_root_frame(r, s, i);
		if (f >= c->n) {
			uint32_t n = c->n, cap = c->n;
			grow_array((void **)&c->ent, &cap, f + 1, sizeof *c->ent);
			memset(c->ent + n, 0, (cap - n) * sizeof *c->ent);
			c->n = cap;
		}
		struct fold_names_ent *e = &c->ent[f];
		if (!(e->have & 4)) e->have |= 4 | (fold_frame_hidden(r, f, o) ? 8 : 0);
		if (e->have & 8) continue;
		if (!(e->have & (1u << java))) {
			const spaa_frame *fr = &r->frames[f];
			/* an unresolved frame that fold_frame_name names
			 * "[DSO-BASENAME]" and marks with nothing: its dso's
			 * name, made once */
			bool by_dso = !fr->func_resolved && !fr->perf_nosym && !fr->inlined && !o->raw && !o->js &&
				      !o->dtrace && !o->addrs && !o->kernel && !o->jit;
			if (by_dso && fr->dso < c->ndso_unknown && c->dso_unknown[fr->dso]) {
				e->id[java] = c->dso_unknown[fr->dso] - 1;
			} else {
				c->tmp.n = 0;
				fold_frame_name(r, f, comm.p, comm.n, o, &c->tmp);
				e->id[java] = intern_tmp(c);
				if (by_dso) {
					uint32_t n = c->ndso_unknown;
					if (fr->dso >= n) {
						grow_array((void **)&c->dso_unknown, &c->ndso_unknown, fr->dso + 1,
							   sizeof *c->dso_unknown);
						memset(c->dso_unknown + n, 0, (c->ndso_unknown - n) * sizeof *c->dso_unknown);
					}
					c->dso_unknown[fr->dso] = e->id[java] + 1;
				}
			}
			e->have |= 1u << java;
		}
		if (!count++) first = e->id[java];
		put_varint(b, e->id[java]);
	}
	/* one empty name reads the same as no name at all */
	if (count == 1 && c->names.keys[first].n == 0) b->n = start;
}

void fold_packed_text(const fold_names *c, const void *p, size_t n, sbuf *b)
{
	const uint8_t *q = p, *end = q + n;
	while (q < end) {
		size_t len;
		const char *nm = strmap_key(&c->names, get_varint(&q), &len);
		sbuf_add(b, nm, len);
		if (q < end) sbuf_addc(b, ';');
	}
}

void fold_packed_write(const fold_names *c, const void *p, size_t n, output *o)
{
	const uint8_t *q = p, *end = q + n;
	while (q < end) {
		size_t len;
		const char *nm = strmap_key(&c->names, get_varint(&q), &len);
		out_write(o, nm, len);
		if (q < end) out_putc(o, ';');
	}
}

/* The bytes of a line "NAME;...;NAME TAIL", one at a time. */
struct line_cur {
	const fold_names *c;
	const uint8_t *q, *end;
	const char *s;   /* the current name, or the tail */
	size_t n, k;
	int state;       /* 0 in a name, 1 before the tail's space, 2 in the tail */
	sstr tail;
};

static void cur_init(struct line_cur *u, const fold_names *c, const uint8_t *q,
		     const uint8_t *end, sstr tail)
{
	u->c = c;
	u->q = q;
	u->end = end;
	u->tail = tail;
	u->k = 0;
	if (q < end) {
		u->s = strmap_key(&c->names, get_varint(&u->q), &u->n);
		u->state = 0;
	} else {
		u->state = 1;
	}
}

static int cur_next(struct line_cur *u)
{
	switch (u->state) {
	case 0:
		if (u->k < u->n) return (unsigned char)u->s[u->k++];
		u->k = 0;
		if (u->q < u->end) {
			u->s = strmap_key(&u->c->names, get_varint(&u->q), &u->n);
			return ';';
		}
		u->state = 2;
		return ' ';
	case 1:
		u->state = 2;
		return ' ';
	default:
		if (u->k < u->tail.n) return (unsigned char)u->tail.p[u->k++];
		return -1;
	}
}

int fold_packed_cmp(const fold_names *c, const void *a, size_t na, sstr ta,
		    const void *b, size_t nb, sstr tb)
{
	const uint8_t *p = a, *pe = p + na, *q = b, *qe = q + nb;
	/* whole names at a time while they are the same */
	while (p < pe && q < qe) {
		const uint8_t *p1 = p, *q1 = q;
		uint32_t x = get_varint(&p1), y = get_varint(&q1);
		if (x != y && c->rank && p1 < pe && q1 < qe)
			return c->rank[x] < c->rank[y] ? -1 : 1; /* "X;" against "Y;" */
		if (x != y) {
			size_t lx, ly;
			const char *sx = strmap_key(&c->names, x, &lx), *sy = strmap_key(&c->names, y, &ly);
			int d = memcmp(sx, sy, lx < ly ? lx : ly);
			if (d) return d;
			break; /* one is a prefix of the other: byte by byte from here */
		}
		p = p1;
		q = q1;
		bool mx = p < pe, my = q < qe;
		if (mx != my) return mx ? 1 : -1; /* ';' > ' ' */
		if (!mx) {
			size_t m = ta.n < tb.n ? ta.n : tb.n;
			int d = m ? memcmp(ta.p, tb.p, m) : 0;
			if (d) return d;
			return ta.n < tb.n ? -1 : ta.n > tb.n;
		}
	}
	struct line_cur u, v;
	cur_init(&u, c, p, pe, ta);
	cur_init(&v, c, q, qe, tb);
	for (;;) {
		int x = cur_next(&u), y = cur_next(&v);
		if (x != y) return x < y ? -1 : 1;
		if (x < 0) return 0;
	}
}
