/* cat.c - concatenating and merging SPAA files (spaa-cat's engine; the
 * converters and any2spaa merge several inputs with it).
 *
 * One input without merging: every record is read (JSON, header first,
 * dictionaries checked) and written exactly as it was read.
 *
 * Otherwise the headers of all inputs are read first and merged into one
 * (events united, time range widened), then the inputs are read in turn:
 * dso and frame records equal to one already written are dropped and the
 * references to them renumbered, other records pass unchanged.  Without
 * merging a stack id may occur in one input only.  Merging, a first
 * pass over all inputs sums the stacks of the same identity (content id and
 * context), and the second pass writes each summed stack where it first
 * occurred, with its content id, and rewrites the stack references of
 * samples, windows and related_stacks.  See spaa-cat(1). */
#include "cat.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "input.h"
#include "jsonbuf.h"
#include "jsonw.h"
#include "output.h"
#include "spaa.h"
#include "stackid.h"
#include "strmap.h"
#include "units.h"

/* ---- state ---------------------------------------------------------------- */

/* One input. */
struct src {
	const char *path;     /* what to open */
	const char *name;     /* for messages */
	char *hline;          /* its header line */
	size_t hlen;
	uint64_t hline_no;
	bool leaf_first, content_ids;
	char *mode;           /* stack_id_mode, NULL if absent */
	json_doc hdoc;        /* the header, parsed again to write it */
	/* reader dense index -> output entry, and whether the id stays */
	uint32_t *dmap, *fmap;
	bool *dsame, *fsame;
	uint32_t dcap, fcap, dcap2, fcap2;
	/* --merge: input stack id -> merged stack */
	strmap stacks;
	uint32_t *stack_of;
	uint32_t scap;
	bool frames_kept;     /* every frame id stays and the order too */
	/* its time_range unit in nanoseconds (0: no time_range, or not a time
	 * unit) and the power of ten its times are multiplied by to be in the
	 * output's unit (inputs of different clocks, e.g. perf's seconds and
	 * Chrome's nanoseconds) */
	double unit_ns;
	char *unit;
	int shift;
};

/* A dictionary of the output (dsos or frames): entry i has output id
 * ids[i] and identity content[i]. */
struct dict {
	strmap ids, content;
	bool *is_str;         /* the id is written as a JSON string */
	uint32_t *src;        /* where the entry was defined */
	uint64_t *line;
	uint32_t cap, cap2, cap3;
	uint64_t fresh;       /* next integer to try for a new id */
};

struct wnode {               /* one summed weight of a merged stack */
	uint32_t metric, unit;   /* in C.names; unit UINT32_MAX: none */
	uint32_t next;           /* index + 1, 0 ends the list */
	uint32_t stamp;
	num v;
};

struct mstack {              /* a merged stack */
	uint64_t id;
	uint64_t line;           /* first occurrence */
	uint32_t src;
	uint32_t count;          /* occurrences */
	uint32_t w, xw;          /* weight lists (wnode index + 1) */
	uint32_t xframe;         /* exclusive frame entry, UINT32_MAX none */
};

static struct {
	bool merge, leaf_first, content_out;
	const char *metric; /* -m: the primary metric of every output event */
	struct src *src;
	uint32_t nsrc;
	struct dict dso, frame;
	/* threads: tid -> entry, and the whole record as identity */
	strmap thr_tid, thr_content;
	uint32_t *thr_src;
	uint64_t *thr_line;
	uint32_t thr_cap, thr_cap2;
	/* without --merge: the stack ids written */
	strmap sids;
	uint32_t *sid_src;
	uint64_t *sid_line;
	uint32_t sid_cap, sid_cap2;
	/* --merge */
	strmap mkeys, used_ids, names;
	struct mstack *ms;
	uint32_t mcap;
	struct wnode *wn;
	uint32_t nwn, wncap, stamp;
	sbuf key, extra;
	spaa_stack st;
	output *o;
} C;

/* the output's time_range unit and the input that has it */
static char *tr_unit;
static uint32_t tr_unit_src;

/* ---- small helpers ---------------------------------------------------------- */

static const json_node *nd(const spaa_reader *r, uint32_t k)
{
	return &r->doc.nodes[k];
}

static bool key_is(const json_doc *d, uint32_t k, const char *s)
{
	return json_is_str(d, k, s, strlen(s));
}

/* Writes `"key":` for the member whose key node is k, a comma first unless
 * it is the first member. */
static void member_key(const json_doc *d, uint32_t k, bool first)
{
	if (!first) out_putc(C.o, ',');
	jw_str(C.o, d->nodes[k].str, d->nodes[k].count);
	out_putc(C.o, ':');
}

static void write_line(spaa_reader *r)
{
	out_write(C.o, r->line, r->len);
	out_putc(C.o, '\n');
}

static const char *or_none(const char *s)
{
	return s ? s : "(none)";
}

/* Writes the JSON number text p[0..n) multiplied by 10^shift, exactly (the
 * decimal point moved, no floating point): "52310.001012" with 9 gives
 * "52310001012", "1500" with -3 "1.5". */
static void put_shifted(const char *p, size_t n, int shift)
{
	char dig[400];
	size_t nd = 0, i = 0;
	long e = 0;
	bool neg = i < n && p[i] == '-';
	if (neg) i++;
	for (; i < n && p[i] >= '0' && p[i] <= '9'; i++)
		if (nd < sizeof dig) dig[nd++] = p[i];
		else e++;
	if (i < n && p[i] == '.')
		for (i++; i < n && p[i] >= '0' && p[i] <= '9'; i++)
			if (nd < sizeof dig) dig[nd++] = p[i], e--;
	if (i < n && (p[i] == 'e' || p[i] == 'E')) {
		char *end;
		char buf[32];
		size_t k = n - i - 1 < sizeof buf - 1 ? n - i - 1 : sizeof buf - 1;
		memcpy(buf, p + i + 1, k);
		buf[k] = 0;
		long x = strtol(buf, &end, 10);
		if (x > 100000 || x < -100000) x = x > 0 ? 100000 : -100000;
		e += x;
	}
	e += shift;
	size_t a = 0;
	while (a < nd && dig[a] == '0') a++; /* leading zeros */
	while (nd > a && dig[nd - 1] == '0') nd--, e++; /* trailing zeros */
	if (a == nd) {
		out_putc(C.o, '0');
		return;
	}
	if (neg) out_putc(C.o, '-');
	long len = (long)(nd - a);
	if (e >= 0 && e <= 24) {
		out_write(C.o, dig + a, (size_t)len);
		for (long z = 0; z < e; z++) out_putc(C.o, '0');
	} else if (e < 0 && -e < len) {
		out_write(C.o, dig + a, (size_t)(len + e));
		out_putc(C.o, '.');
		out_write(C.o, dig + a + len + e, (size_t)-e);
	} else if (e < 0 && -e - len <= 24) {
		out_puts(C.o, "0.");
		for (long z = 0; z < -e - len; z++) out_putc(C.o, '0');
		out_write(C.o, dig + a, (size_t)len);
	} else {
		out_write(C.o, dig + a, (size_t)len);
		out_printf(C.o, "e%ld", e);
	}
}

/* A time node of input s, in the output's unit. */
static void put_time(const struct src *s, const json_doc *d, uint32_t k)
{
	const json_node *x = &d->nodes[k];
	if (s->shift && (x->type == JSON_INT || x->type == JSON_UINT || x->type == JSON_DOUBLE))
		put_shifted(x->str, x->num_len, s->shift);
	else
		jw_node(C.o, d, k);
}

/* Identity of a dictionary record: its compact members but "id", with the
 * value of member `ref` (the dso of a frame) replaced by an output entry. */
static void record_key(spaa_reader *r, const char *ref, uint32_t ref_entry)
{
	json_doc *d = &r->doc;
	C.key.n = 0;
	for (uint32_t k = 1, i = 0; i < d->nodes[0].count; i++, k = json_after(d, k + 1)) {
		if (key_is(d, k, "id")) continue;
		jb_node(&C.key, d, k);
		sbuf_addc(&C.key, ':');
		if (ref && key_is(d, k, ref)) {
			sbuf_addc(&C.key, 1);
			sbuf_add(&C.key, &ref_entry, sizeof ref_entry);
		} else {
			jb_node(&C.key, d, k + 1);
		}
		sbuf_addc(&C.key, ',');
	}
}

/* ---- dictionaries --------------------------------------------------------- */

static void write_dict_id(const struct dict *d, uint32_t e)
{
	size_t n;
	const char *id = strmap_key(&d->ids, e, &n);
	if (d->is_str[e]) jw_str(C.o, id, n);
	else out_write(C.o, id, n);
}

/* The output entry for the current dso or frame record (identity in C.key,
 * id node idk); *same tells whether its id stays as it is. */
static uint32_t dict_take(struct dict *d, spaa_reader *r, uint32_t srci, uint32_t idk, bool *same)
{
	sstr in;
	spaa_id_key(r, idk, &in);
	bool added;
	uint32_t e = strmap_intern(&d->content, C.key.p, C.key.n, &added);
	if (added) {
		bool is_str = nd(r, idk)->type == JSON_STRING;
		if (strmap_find(&d->ids, in.p, in.n) < 0) {
			strmap_intern(&d->ids, in.p, in.n, NULL);
		} else { /* the id is taken: the next free integer */
			char buf[24];
			size_t n;
			do n = fmt_u64(buf, d->fresh++);
			while (strmap_find(&d->ids, buf, n) >= 0);
			strmap_intern(&d->ids, buf, n, NULL);
			is_str = false;
		}
		grow_array((void **)&d->is_str, &d->cap, e + 1, sizeof *d->is_str);
		grow_array((void **)&d->src, &d->cap2, e + 1, sizeof *d->src);
		grow_array((void **)&d->line, &d->cap3, e + 1, sizeof *d->line);
		d->is_str[e] = is_str;
		d->src[e] = srci;
		d->line[e] = r->lineno;
	}
	size_t n;
	const char *out = strmap_key(&d->ids, e, &n);
	*same = n == in.n && memcmp(out, in.p, n) == 0;
	return e;
}

static void take_dso(struct src *s, spaa_reader *r, uint32_t srci)
{
	uint32_t i = r->dso_ids.count - 1;
	record_key(r, NULL, 0);
	bool same;
	uint32_t e = dict_take(&C.dso, r, srci, json_get(&r->doc, 0, "id"), &same);
	grow_array((void **)&s->dmap, &s->dcap, i + 1, sizeof *s->dmap);
	grow_array((void **)&s->dsame, &s->dcap2, i + 1, sizeof *s->dsame);
	s->dmap[i] = e;
	s->dsame[i] = same;
}

static void take_frame(struct src *s, spaa_reader *r, uint32_t srci)
{
	uint32_t i = r->frame_ids.count - 1;
	record_key(r, "dso", s->dmap[r->frames[i].dso]);
	bool same;
	uint32_t e = dict_take(&C.frame, r, srci, json_get(&r->doc, 0, "id"), &same);
	grow_array((void **)&s->fmap, &s->fcap, i + 1, sizeof *s->fmap);
	grow_array((void **)&s->fsame, &s->fcap2, i + 1, sizeof *s->fsame);
	s->fmap[i] = e;
	s->fsame[i] = same;
	s->frames_kept &= same;
}

/* Writes the current dso or frame record if it defined its entry. */
static void put_dict(struct src *s, spaa_reader *r, uint32_t srci, bool frame)
{
	struct dict *d = frame ? &C.frame : &C.dso;
	uint32_t i = frame ? r->frame_ids.count - 1 : r->dso_ids.count - 1;
	uint32_t e = frame ? s->fmap[i] : s->dmap[i];
	if (d->src[e] != srci || d->line[e] != r->lineno) return;
	uint32_t dso = frame ? r->frames[i].dso : 0;
	if ((frame ? s->fsame[i] : s->dsame[i]) && (!frame || s->dsame[dso])) {
		write_line(r);
		return;
	}
	json_doc *doc = &r->doc;
	out_putc(C.o, '{');
	for (uint32_t k = 1, j = 0; j < doc->nodes[0].count; j++, k = json_after(doc, k + 1)) {
		member_key(doc, k, j == 0);
		if (key_is(doc, k, "id")) write_dict_id(d, e);
		else if (frame && key_is(doc, k, "dso")) write_dict_id(&C.dso, s->dmap[dso]);
		else jw_node(C.o, doc, k + 1);
	}
	out_puts(C.o, "}\n");
}

/* Thread records are shared when equal; a different record for a tid already
 * written is dropped with a warning (a tid must stay unique). */
static bool take_thread(spaa_reader *r, uint32_t srci)
{
	sstr tid;
	spaa_id_key(r, json_get(&r->doc, 0, "tid"), &tid);
	record_key(r, NULL, 0);
	if (strmap_find(&C.thr_content, C.key.p, C.key.n) >= 0) return false;
	bool added;
	uint32_t t = strmap_intern(&C.thr_tid, tid.p, tid.n, &added);
	if (!added) {
		warn_at(r->name, r->lineno, "thread %.*s differs from the one in %s (line %llu); the first is kept",
			(int)tid.n, tid.p, C.src[C.thr_src[t]].name, (unsigned long long)C.thr_line[t]);
		return false;
	}
	strmap_intern(&C.thr_content, C.key.p, C.key.n, NULL);
	grow_array((void **)&C.thr_src, &C.thr_cap, t + 1, sizeof *C.thr_src);
	grow_array((void **)&C.thr_line, &C.thr_cap2, t + 1, sizeof *C.thr_line);
	C.thr_src[t] = srci;
	C.thr_line[t] = r->lineno;
	return true;
}

static bool thread_defined_here(spaa_reader *r, uint32_t srci)
{
	sstr tid;
	spaa_id_key(r, json_get(&r->doc, 0, "tid"), &tid);
	int64_t t = strmap_find(&C.thr_tid, tid.p, tid.n);
	return t >= 0 && C.thr_src[t] == srci && C.thr_line[t] == r->lineno;
}

/* ---- stacks ------------------------------------------------------------------ */

/* Frame j of the current stack in output order. */
static uint32_t out_frame(const struct src *s, const spaa_stack *st, uint32_t j)
{
	bool flip = s->leaf_first != C.leaf_first;
	return st->frames[flip ? st->nframes - 1 - j : j];
}

static bool frames_same(const struct src *s, const spaa_stack *st)
{
	if (s->leaf_first != C.leaf_first && st->nframes > 1) return false;
	for (uint32_t j = 0; j < st->nframes; j++)
		if (!s->fsame[st->frames[j]]) return false;
	return !st->has_excl || s->fsame[st->excl_frame];
}

static void write_frames(const struct src *s, const spaa_stack *st)
{
	out_putc(C.o, '[');
	for (uint32_t j = 0; j < st->nframes; j++) {
		if (j) out_putc(C.o, ',');
		write_dict_id(&C.frame, s->fmap[out_frame(s, st, j)]);
	}
	out_putc(C.o, ']');
}

static void write_stack_id(uint32_t m)
{
	char buf[20];
	stackid_fmt(buf, C.ms[m].id);
	out_putc(C.o, '"');
	out_write(C.o, buf, 18);
	out_putc(C.o, '"');
}

/* The merged stack of input stack id node k of the current record; -1 if
 * the input has no such stack. */
static int64_t merged_of(struct src *s, spaa_reader *r, uint32_t k)
{
	sstr id;
	if (!spaa_id_key(r, k, &id)) return -1;
	int64_t i = strmap_find(&s->stacks, id.p, id.n);
	return i < 0 ? -1 : (int64_t)s->stack_of[i];
}

/* true when id node k is already the string of merged stack m's id */
static bool id_same(spaa_reader *r, uint32_t k, uint32_t m)
{
	char buf[20];
	stackid_fmt(buf, C.ms[m].id);
	return nd(r, k)->type == JSON_STRING && json_is_str(&r->doc, k, buf, 18);
}

/* The merged stacks' weight lists. */
static struct wnode *wnode_find(uint32_t head, uint32_t metric)
{
	for (uint32_t w = head; w; w = C.wn[w - 1].next)
		if (C.wn[w - 1].metric == metric) return &C.wn[w - 1];
	return NULL;
}

static uint32_t name_id(sstr s)
{
	return strmap_intern(&C.names, s.p, s.n, NULL);
}

static void add_weights(spaa_reader *r, uint32_t *head, const spaa_weight *ws, uint32_t n, sstr id)
{
	for (uint32_t i = 0; i < n; i++) {
		uint32_t metric = name_id(ws[i].metric);
		struct wnode *w = wnode_find(*head, metric);
		if (!w) {
			struct wnode *x = VEC_PUSH(C.wn, C.nwn, C.wncap);
			x->metric = metric;
			x->unit = ws[i].unit.p ? name_id(ws[i].unit) : UINT32_MAX;
			x->next = 0;
			x->stamp = 0;
			x->v = num_i(0);
			uint32_t *link = head;
			while (*link) link = &C.wn[*link - 1].next;
			*link = C.nwn;
			w = x;
		}
		if (!num_add(&w->v, ws[i].value)) {
			size_t mn;
			const char *mname = strmap_key(&C.names, metric, &mn);
			die_at(r->name, r->lineno, "stack %.*s: the sum of metric %.*s overflows 64 bits",
			       (int)id.n, id.p, (int)mn, mname);
		}
	}
}

/* A weights array: the template's elements with the summed values, then the
 * metrics that only other occurrences had. */
static void write_weights(spaa_reader *r, uint32_t arr, uint32_t head)
{
	json_doc *d = &r->doc;
	uint32_t stamp = ++C.stamp;
	bool first = true;
	out_putc(C.o, '[');
	if (arr && d->nodes[arr].type == JSON_ARRAY) {
		for (uint32_t k = arr + 1, i = 0; i < d->nodes[arr].count; i++, k = json_after(d, k)) {
			uint32_t mk = d->nodes[k].type == JSON_OBJECT ? json_get(d, k, "metric") : 0;
			struct wnode *w = NULL;
			if (mk && d->nodes[mk].type == JSON_STRING) {
				int64_t metric = strmap_find(&C.names, d->nodes[mk].str, d->nodes[mk].count);
				if (metric >= 0) w = wnode_find(head, (uint32_t)metric);
			}
			if (!first) out_putc(C.o, ',');
			first = false;
			if (!w) {
				jw_node(C.o, d, k);
				continue;
			}
			w->stamp = stamp;
			out_putc(C.o, '{');
			for (uint32_t c = k + 1, j = 0; j < d->nodes[k].count; j++, c = json_after(d, c + 1)) {
				member_key(d, c, j == 0);
				if (key_is(d, c, "value")) jw_num(C.o, w->v);
				else jw_node(C.o, d, c + 1);
			}
			out_putc(C.o, '}');
		}
	}
	for (uint32_t x = head; x; x = C.wn[x - 1].next) {
		struct wnode *w = &C.wn[x - 1];
		if (w->stamp == stamp) continue;
		if (!first) out_putc(C.o, ',');
		first = false;
		size_t n;
		const char *s = strmap_key(&C.names, w->metric, &n);
		out_puts(C.o, "{\"metric\":");
		jw_str(C.o, s, n);
		out_puts(C.o, ",\"value\":");
		jw_num(C.o, w->v);
		if (w->unit != UINT32_MAX) {
			s = strmap_key(&C.names, w->unit, &n);
			out_puts(C.o, ",\"unit\":");
			jw_str(C.o, s, n);
		}
		out_putc(C.o, '}');
	}
	out_putc(C.o, ']');
}

/* Writes the current stack record with its frames renumbered; with a merged
 * stack m (or -1), also its id, weights and related stacks. */
static void write_stack(struct src *s, spaa_reader *r, const spaa_stack *st, int64_t m)
{
	json_doc *d = &r->doc;
	bool has_excl = false;
	out_putc(C.o, '{');
	for (uint32_t k = 1, j = 0; j < d->nodes[0].count; j++, k = json_after(d, k + 1)) {
		uint32_t v = k + 1;
		member_key(d, k, j == 0);
		if (key_is(d, k, "frames")) {
			write_frames(s, st);
		} else if (m >= 0 && key_is(d, k, "id")) {
			write_stack_id((uint32_t)m);
		} else if (m >= 0 && key_is(d, k, "weights")) {
			write_weights(r, v, C.ms[m].w);
		} else if (key_is(d, k, "exclusive") && d->nodes[v].type == JSON_OBJECT && st->has_excl) {
			has_excl = true;
			out_putc(C.o, '{');
			for (uint32_t c = v + 1, i = 0; i < d->nodes[v].count; i++, c = json_after(d, c + 1)) {
				member_key(d, c, i == 0);
				if (key_is(d, c, "frame")) write_dict_id(&C.frame, s->fmap[st->excl_frame]);
				else if (m >= 0 && key_is(d, c, "weights")) write_weights(r, c + 1, C.ms[m].xw);
				else jw_node(C.o, d, c + 1);
			}
			out_putc(C.o, '}');
		} else if (m >= 0 && key_is(d, k, "related_stacks") && d->nodes[v].type == JSON_ARRAY) {
			out_putc(C.o, '[');
			for (uint32_t c = v + 1, i = 0; i < d->nodes[v].count; i++, c = json_after(d, c)) {
				if (i) out_putc(C.o, ',');
				int64_t x = merged_of(s, r, c);
				if (x >= 0) write_stack_id((uint32_t)x);
				else jw_node(C.o, d, c);
			}
			out_putc(C.o, ']');
		} else {
			jw_node(C.o, d, v);
		}
	}
	if (m >= 0 && !has_excl && C.ms[m].xw && C.ms[m].xframe != UINT32_MAX) {
		/* only a later occurrence had exclusive weights */
		out_puts(C.o, ",\"exclusive\":{\"frame\":");
		write_dict_id(&C.frame, C.ms[m].xframe);
		out_puts(C.o, ",\"weights\":");
		write_weights(r, 0, C.ms[m].xw);
		out_putc(C.o, '}');
	}
	out_puts(C.o, "}\n");
}

/* Without --merge: a stack passes with its id, which must be new. */
static void cat_stack(struct src *s, spaa_reader *r, uint32_t srci)
{
	spaa_stack *st = &C.st;
	spaa_stack_parse(r, st);
	bool added;
	uint32_t i = strmap_intern(&C.sids, st->id.p, st->id.n, &added);
	if (!added) {
		if (C.sid_src[i] == srci)
			die_at(r->name, r->lineno, "duplicate stack id %.*s (first at line %llu)",
			       (int)st->id.n, st->id.p, (unsigned long long)C.sid_line[i]);
		die_at(r->name, r->lineno, "stack id %.*s is also in %s (line %llu); "
		       "use --merge to sum stacks of the same identity",
		       (int)st->id.n, st->id.p, C.src[C.sid_src[i]].name, (unsigned long long)C.sid_line[i]);
	}
	grow_array((void **)&C.sid_src, &C.sid_cap, i + 1, sizeof *C.sid_src);
	grow_array((void **)&C.sid_line, &C.sid_cap2, i + 1, sizeof *C.sid_line);
	C.sid_src[i] = srci;
	C.sid_line[i] = r->lineno;
	if (frames_same(s, st)) write_line(r);
	else write_stack(s, r, st, -1);
}

/* The context members other than those in the content id, compactly: part
 * of a merged stack's identity. */
static void context_extra(spaa_reader *r, uint32_t ctx)
{
	json_doc *d = &r->doc;
	C.extra.n = 0;
	if (!ctx) return;
	for (uint32_t k = ctx + 1, i = 0; i < d->nodes[ctx].count; i++, k = json_after(d, k + 1)) {
		if (key_is(d, k, "event") || key_is(d, k, "pid") || key_is(d, k, "tid") || key_is(d, k, "comm"))
			continue;
		if (C.extra.n) sbuf_addc(&C.extra, ',');
		jb_node(&C.extra, d, k);
		sbuf_addc(&C.extra, ':');
		jb_node(&C.extra, d, k + 1);
	}
}

/* --merge, first pass: sum the stack into its merged stack. */
static void merge_stack(struct src *s, spaa_reader *r, uint32_t srci)
{
	spaa_stack *st = &C.st;
	spaa_stack_parse(r, st);
	uint64_t id;
	spaa_stack_ids(r, st, &id, NULL);
	context_extra(r, st->context);
	C.key.n = 0;
	sbuf_add(&C.key, &id, sizeof id);
	sbuf_add(&C.key, C.extra.p, C.extra.n);
	bool added;
	uint32_t m = strmap_intern(&C.mkeys, C.key.p, C.key.n, &added);
	if (added) {
		bool fresh;
		strmap_intern(&C.used_ids, &id, sizeof id, &fresh);
		if (!fresh) {
			/* the same content id with other context members: fold them
			 * into the id, as the converters do */
			id = fnv1a64(id, C.extra.p, C.extra.n);
			strmap_intern(&C.used_ids, &id, sizeof id, &fresh);
			if (!fresh)
				die_at(r->name, r->lineno, "stack %.*s: stack id collision (0x%016llx)",
				       (int)st->id.n, st->id.p, (unsigned long long)id);
		}
		grow_array((void **)&C.ms, &C.mcap, m + 1, sizeof *C.ms);
		struct mstack *x = &C.ms[m];
		memset(x, 0, sizeof *x);
		x->id = id;
		x->src = srci;
		x->line = r->lineno;
		x->xframe = UINT32_MAX;
	}
	struct mstack *x = &C.ms[m];
	x->count++;
	add_weights(r, &x->w, st->w, st->nw, st->id);
	if (st->has_excl) {
		if (x->xframe == UINT32_MAX) x->xframe = s->fmap[st->excl_frame];
		add_weights(r, &x->xw, st->xw, st->nxw, st->id);
	}
	uint32_t i = strmap_intern(&s->stacks, st->id.p, st->id.n, &added);
	if (!added)
		die_at(r->name, r->lineno, "duplicate stack id %.*s", (int)st->id.n, st->id.p);
	grow_array((void **)&s->stack_of, &s->scap, i + 1, sizeof *s->stack_of);
	s->stack_of[i] = m;
}

/* --merge, second pass: the merged stack is written at its first occurrence. */
static void put_merged_stack(struct src *s, spaa_reader *r, uint32_t srci)
{
	spaa_stack *st = &C.st;
	uint32_t idk = json_get(&r->doc, 0, "id");
	int64_t m = merged_of(s, r, idk);
	struct mstack *x = &C.ms[m];
	if (x->src != srci || x->line != r->lineno) return;
	uint32_t rel = json_get(&r->doc, 0, "related_stacks");
	if (!rel && x->count == 1 && s->frames_kept && id_same(r, idk, (uint32_t)m)) {
		write_line(r); /* the common case, without parsing the stack */
		return;
	}
	spaa_stack_parse(r, st);
	bool raw = x->count == 1 && frames_same(s, st) && id_same(r, idk, (uint32_t)m);
	if (raw && rel && nd(r, rel)->type == JSON_ARRAY) {
		for (uint32_t c = rel + 1, i = 0; raw && i < nd(r, rel)->count; i++, c = json_after(&r->doc, c)) {
			int64_t y = merged_of(s, r, c);
			raw = y < 0 || id_same(r, c, (uint32_t)y);
		}
	}
	if (raw) write_line(r);
	else write_stack(s, r, st, m);
}

/* The power of ten that takes the times of window record r of input s
 * (in its own unit, else its input's) to the output's unit. */
static int window_shift(const struct src *s, spaa_reader *r)
{
	uint32_t uk = json_get(&r->doc, 0, "unit");
	if (!uk || nd(r, uk)->type != JSON_STRING || !s->unit || !tr_unit) return s->shift;
	if (json_is_str(&r->doc, uk, s->unit, strlen(s->unit))) return s->shift;
	units u = units_of(NULL, 0, nd(r, uk)->str, nd(r, uk)->count);
	double to = C.src[tr_unit_src].unit_ns;
	if (u.dim != UNITS_TIME || !to) return 0;
	int k = 0;
	double ratio = u.factor / to;
	while (k < 30 && ratio > 1.5) ratio /= 10, k++;
	return ratio == 1 ? k : 0;
}

/* A sample: its stack_id its merged stack's id (merging), its timestamp in
 * the output's unit. */
static void put_sample(struct src *s, spaa_reader *r)
{
	json_doc *d = &r->doc;
	uint32_t sk = json_get(d, 0, "stack_id");
	int64_t m = -1;
	if (C.merge) {
		sstr id;
		if (!sk || !spaa_id_key(r, sk, &id)) die_at(r->name, r->lineno, "sample has no valid \"stack_id\"");
		m = merged_of(s, r, sk);
		if (m < 0) die_at(r->name, r->lineno, "sample refers to unknown stack %.*s", (int)id.n, id.p);
		if (id_same(r, sk, (uint32_t)m)) m = -1;
	}
	if (m < 0 && !s->shift) {
		write_line(r);
		return;
	}
	out_putc(C.o, '{');
	for (uint32_t k = 1, j = 0; j < d->nodes[0].count; j++, k = json_after(d, k + 1)) {
		member_key(d, k, j == 0);
		if (m >= 0 && k + 1 == sk) write_stack_id((uint32_t)m);
		else if (key_is(d, k, "timestamp")) put_time(s, d, k + 1);
		else jw_node(C.o, d, k + 1);
	}
	out_puts(C.o, "}\n");
}

/* --merge, second pass: the stack ids of a window's by_stack entries. */
static void put_window(struct src *s, spaa_reader *r)
{
	json_doc *d = &r->doc;
	uint32_t bs = C.merge ? json_get(d, 0, "by_stack") : 0;
	struct src ws = *s;
	ws.shift = window_shift(s, r);
	bool retime = ws.shift != 0 || (s->shift && json_get(d, 0, "unit"));
	bool raw = !retime;
	if (bs && d->nodes[bs].type == JSON_ARRAY) {
		for (uint32_t e = bs + 1, i = 0; i < d->nodes[bs].count; i++, e = json_after(d, e)) {
			uint32_t sk = d->nodes[e].type == JSON_OBJECT ? json_get(d, e, "stack_id") : 0;
			sstr id;
			if (!sk || !spaa_id_key(r, sk, &id))
				die_at(r->name, r->lineno, "window: by_stack[%u] has no valid \"stack_id\"", i);
			int64_t m = merged_of(s, r, sk);
			if (m < 0)
				die_at(r->name, r->lineno, "window refers to unknown stack %.*s", (int)id.n, id.p);
			if (!id_same(r, sk, (uint32_t)m)) raw = false;
		}
	}
	if (raw) {
		write_line(r);
		return;
	}
	out_putc(C.o, '{');
	for (uint32_t k = 1, j = 0; j < d->nodes[0].count; j++, k = json_after(d, k + 1)) {
		member_key(d, k, j == 0);
		if (retime && (key_is(d, k, "start") || key_is(d, k, "end"))) {
			put_time(&ws, d, k + 1);
			continue;
		}
		if (retime && key_is(d, k, "unit")) {
			jw_strc(C.o, tr_unit);
			continue;
		}
		if (k + 1 != bs) {
			jw_node(C.o, d, k + 1);
			continue;
		}
		out_putc(C.o, '[');
		for (uint32_t e = bs + 1, i = 0; i < d->nodes[bs].count; i++, e = json_after(d, e)) {
			if (i) out_putc(C.o, ',');
			out_putc(C.o, '{');
			for (uint32_t c = e + 1, n = 0; n < d->nodes[e].count; n++, c = json_after(d, c + 1)) {
				member_key(d, c, n == 0);
				if (key_is(d, c, "stack_id")) write_stack_id((uint32_t)merged_of(s, r, c + 1));
				else jw_node(C.o, d, c + 1);
			}
			out_putc(C.o, '}');
		}
		out_putc(C.o, ']');
	}
	out_puts(C.o, "}\n");
}

/* ---- the header ------------------------------------------------------------- */

struct ev { char *name, *kind, *primary; uint32_t src; };
static struct ev *evs;
static uint32_t nevs, evcap;
static int32_t tr_min = -1, tr_max = -1; /* inputs with the earliest start, latest end */
static double tr_start, tr_end;  /* nanoseconds when the clocks are times */

static bool str_eq(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

/* Reads the header of input i: events must agree with those of the inputs
 * before it, the time range is widened. */
static void read_header(uint32_t i)
{
	struct src *s = &C.src[i];
	spaa_reader *r = spaa_open(s->path);
	r->name = s->name;
	if (spaa_next(r) == SPAA_EOF) die_at(s->name, 0, "no header record (empty input)");
	s->hline = xmemdup(r->line, r->len);
	s->hlen = r->len;
	s->hline_no = r->lineno;
	s->leaf_first = r->leaf_first;
	s->content_ids = r->content_ids;
	uint32_t mk = json_get(&r->doc, 0, "stack_id_mode");
	if (mk && nd(r, mk)->type == JSON_STRING) s->mode = xmemdup(nd(r, mk)->str, nd(r, mk)->count);
	for (uint32_t e = 0; e < r->nevents; e++) {
		const spaa_event *x = &r->events[e];
		if (!x->name) continue;
		uint32_t j;
		for (j = 0; j < nevs && strcmp(evs[j].name, x->name); j++)
			;
		if (j < nevs) {
			if (!str_eq(evs[j].kind, x->kind))
				die_at(s->name, r->lineno, "event %s: kind %s conflicts with kind %s in %s",
				       x->name, or_none(x->kind), or_none(evs[j].kind), C.src[evs[j].src].name);
			if (!C.metric && !str_eq(evs[j].primary, x->primary_metric))
				die_at(s->name, r->lineno, "event %s: primary metric %s conflicts with primary metric %s in %s: "
				       "choose one for the output with -m METRIC (e.g. -m %s), or convert the inputs alike",
				       x->name, or_none(x->primary_metric), or_none(evs[j].primary),
				       C.src[evs[j].src].name, x->primary_metric ? x->primary_metric : "samples");
			continue;
		}
		struct ev *v = VEC_PUSH(evs, nevs, evcap);
		v->name = xstrdup(x->name);
		v->kind = dup_or_null(x->kind);
		v->primary = dup_or_null(x->primary_metric);
		v->src = i;
	}
	if (r->has_time_range) {
		uint32_t tr = json_get(&r->doc, 0, "time_range");
		uint32_t uk = json_get(&r->doc, tr, "unit");
		s->unit = uk && nd(r, uk)->type == JSON_STRING ? xmemdup(nd(r, uk)->str, nd(r, uk)->count)
							       : xstrdup("seconds");
		units u = units_of(NULL, 0, s->unit, strlen(s->unit));
		s->unit_ns = u.dim == UNITS_TIME ? u.factor : 0;
		if (!tr_unit) {
			tr_unit = s->unit;
			tr_unit_src = i;
		} else if (strcmp(tr_unit, s->unit) != 0 && !(s->unit_ns && C.src[tr_unit_src].unit_ns)) {
			die_at(s->name, r->lineno, "time_range unit %s conflicts with unit %s in %s",
			       s->unit, tr_unit, C.src[tr_unit_src].name);
		} else if (s->unit_ns && s->unit_ns < C.src[tr_unit_src].unit_ns) {
			tr_unit = s->unit; /* the finest clock of all */
			tr_unit_src = i;
		}
		/* compared in nanoseconds when the clocks differ */
		double f = s->unit_ns ? s->unit_ns : 1;
		if (tr_min < 0 || r->tr_start * f < tr_start) {
			tr_min = (int32_t)i;
			tr_start = r->tr_start * f;
		}
		if (tr_max < 0 || r->tr_end * f > tr_end) {
			tr_max = (int32_t)i;
			tr_end = r->tr_end * f;
		}
	}
	spaa_close(r);
}

/* The power of ten that takes the times of every input with a time_range
 * to the output's unit (the finest of their clocks). */
static void time_shifts(void)
{
	double to = tr_unit ? C.src[tr_unit_src].unit_ns : 0;
	for (uint32_t i = 0; to && i < C.nsrc; i++) {
		struct src *s = &C.src[i];
		if (!s->unit_ns || s->unit_ns == to) continue;
		int k = 0;
		double ratio = s->unit_ns / to;
		while (k < 30 && ratio > 1.5) ratio /= 10, k++;
		if (ratio != 1)
			die_at(s->name, s->hline_no, "time_range unit %s conflicts with unit %s in %s "
			       "(not a power of ten apart)", s->unit, tr_unit, C.src[tr_unit_src].name);
		s->shift = k;
	}
}

static void write_time_range_value(uint32_t tr)
{
	json_doc *d0 = &C.src[0].hdoc;
	json_doc *dmin = &C.src[tr_min].hdoc, *dmax = &C.src[tr_max].hdoc;
	uint32_t smin = json_get(dmin, json_get(dmin, 0, "time_range"), "start");
	uint32_t smax = json_get(dmax, json_get(dmax, 0, "time_range"), "end");
	const struct src *smn = &C.src[tr_min], *smx = &C.src[tr_max];
	if (!tr) {
		out_puts(C.o, "{\"start\":");
		put_time(smn, dmin, smin);
		out_puts(C.o, ",\"end\":");
		put_time(smx, dmax, smax);
		out_puts(C.o, ",\"unit\":");
		jw_strc(C.o, tr_unit);
		out_putc(C.o, '}');
		return;
	}
	out_putc(C.o, '{');
	for (uint32_t c = tr + 1, i = 0; i < d0->nodes[tr].count; i++, c = json_after(d0, c + 1)) {
		member_key(d0, c, i == 0);
		if (key_is(d0, c, "start")) put_time(smn, dmin, smin);
		else if (key_is(d0, c, "end")) put_time(smx, dmax, smax);
		else if (key_is(d0, c, "unit")) jw_strc(C.o, tr_unit);
		else jw_node(C.o, d0, c + 1);
	}
	if (!json_get(d0, tr, "unit") && strcmp(tr_unit, "seconds") != 0) {
		out_puts(C.o, ",\"unit\":");
		jw_strc(C.o, tr_unit);
	}
	out_putc(C.o, '}');
}

/* An event object with its primary metric (sampling.primary_metric)
 * replaced by -m's. */
static void write_event(json_doc *d, uint32_t e)
{
	bool had = false;
	out_putc(C.o, '{');
	for (uint32_t c = e + 1, i = 0; i < d->nodes[e].count; i++, c = json_after(d, c + 1)) {
		member_key(d, c, i == 0);
		if (!key_is(d, c, "sampling") || d->nodes[c + 1].type != JSON_OBJECT) {
			jw_node(C.o, d, c + 1);
			continue;
		}
		uint32_t o = c + 1;
		had = true;
		out_puts(C.o, "{\"primary_metric\":");
		jw_strc(C.o, C.metric);
		for (uint32_t k = o + 1, j = 0; j < d->nodes[o].count; j++, k = json_after(d, k + 1)) {
			if (key_is(d, k, "primary_metric")) continue;
			member_key(d, k, false);
			jw_node(C.o, d, k + 1);
		}
		out_putc(C.o, '}');
	}
	if (!had) {
		out_puts(C.o, d->nodes[e].count ? ",\"sampling\":{\"primary_metric\":" : "\"sampling\":{\"primary_metric\":");
		jw_strc(C.o, C.metric);
		out_putc(C.o, '}');
	}
	out_putc(C.o, '}');
}

/* The first input's header with the events of all, the widest time range
 * and the output's stack_id_mode; the first header line as it is when that
 * changes nothing. */
static void write_header(void)
{
	const char *mode = C.content_out ? "content_addressable" : "local";
	struct src *s0 = &C.src[0];
	bool same = !C.metric && s0->mode && strcmp(s0->mode, mode) == 0;
	for (uint32_t i = 1; same && i < C.nsrc; i++)
		same = C.src[i].hlen == s0->hlen && memcmp(C.src[i].hline, s0->hline, s0->hlen) == 0;
	if (same) {
		out_write(C.o, s0->hline, s0->hlen);
		out_putc(C.o, '\n');
		return;
	}
	for (uint32_t i = 0; i < C.nsrc; i++) {
		json_doc_init(&C.src[i].hdoc);
		if (json_parse(&C.src[i].hdoc, C.src[i].hline, C.src[i].hlen) != 0)
			die(EXIT_DATA, "internal error: header of %s", C.src[i].name);
	}
	json_doc *d = &s0->hdoc;
	bool had_tr = false, had_mode = false;
	out_putc(C.o, '{');
	for (uint32_t k = 1, j = 0; j < d->nodes[0].count; j++, k = json_after(d, k + 1)) {
		uint32_t v = k + 1;
		member_key(d, k, j == 0);
		if (key_is(d, k, "stack_id_mode")) {
			had_mode = true;
			jw_strc(C.o, mode);
		} else if (key_is(d, k, "time_range") && tr_min >= 0 && d->nodes[v].type == JSON_OBJECT) {
			had_tr = true;
			write_time_range_value(v);
		} else if (key_is(d, k, "events") && d->nodes[v].type == JSON_ARRAY) {
			strmap seen = { 0 };
			bool first = true;
			out_putc(C.o, '[');
			for (uint32_t i = 0; i < C.nsrc; i++) {
				json_doc *di = &C.src[i].hdoc;
				uint32_t arr = json_get(di, 0, "events");
				if (!arr || di->nodes[arr].type != JSON_ARRAY) continue;
				for (uint32_t e = arr + 1, n = 0; n < di->nodes[arr].count; n++, e = json_after(di, e)) {
					uint32_t nk = di->nodes[e].type == JSON_OBJECT ? json_get(di, e, "name") : 0;
					bool added = false;
					if (nk && di->nodes[nk].type == JSON_STRING)
						strmap_intern(&seen, di->nodes[nk].str, di->nodes[nk].count, &added);
					if (i > 0 && !added) continue;
					if (!first) out_putc(C.o, ',');
					first = false;
					if (C.metric && di->nodes[e].type == JSON_OBJECT) write_event(di, e);
					else jw_node(C.o, di, e);
				}
			}
			out_putc(C.o, ']');
			strmap_free(&seen);
		} else {
			jw_node(C.o, d, v);
		}
	}
	if (!had_tr && tr_min >= 0) {
		out_puts(C.o, ",\"time_range\":");
		write_time_range_value(0);
	}
	if (!had_mode) {
		out_puts(C.o, ",\"stack_id_mode\":");
		jw_strc(C.o, mode);
	}
	out_puts(C.o, "}\n");
}

/* ---- the passes ---------------------------------------------------------------- */

enum pass { PASS_CAT, PASS_SCAN, PASS_WRITE };

static void run(uint32_t srci, enum pass pass)
{
	struct src *s = &C.src[srci];
	spaa_reader *r = spaa_open(s->path);
	r->name = s->name;
	enum spaa_rtype t;
	while ((t = spaa_next(r)) != SPAA_EOF) {
		switch (t) {
		case SPAA_HEADER:
			break; /* written already (a second one is an error of the reader) */
		case SPAA_DSO:
		case SPAA_FRAME:
			if (pass != PASS_WRITE) {
				if (t == SPAA_DSO) take_dso(s, r, srci);
				else take_frame(s, r, srci);
			}
			if (pass != PASS_SCAN) put_dict(s, r, srci, t == SPAA_FRAME);
			break;
		case SPAA_THREAD:
			if (pass == PASS_CAT) {
				if (take_thread(r, srci)) write_line(r);
			} else if (pass == PASS_SCAN) {
				take_thread(r, srci);
			} else if (thread_defined_here(r, srci)) {
				write_line(r);
			}
			break;
		case SPAA_STACK:
			if (pass == PASS_CAT) cat_stack(s, r, srci);
			else if (pass == PASS_SCAN) merge_stack(s, r, srci);
			else put_merged_stack(s, r, srci);
			break;
		case SPAA_SAMPLE:
			if (pass != PASS_SCAN) put_sample(s, r);
			break;
		case SPAA_WINDOW:
			if (pass != PASS_SCAN) put_window(s, r);
			break;
		default: /* records of other types pass unchanged */
			if (pass != PASS_SCAN) write_line(r);
			break;
		}
	}
	spaa_close(r);
}

/* A single input without --merge: every record as it was read. */
static void copy(const char *path)
{
	spaa_reader *r = spaa_open(path);
	while (spaa_next(r) != SPAA_EOF) write_line(r);
	spaa_need_header(r);
	spaa_close(r);
}

void spaa_cat(char **files, const char *const *names, uint32_t n, bool merge, const char *metric, output *o)
{
	/* from a clean state: in-process callers (the fuzz targets, any2spaa)
	 * may run it more than once */
	memset(&C, 0, sizeof C);
	evs = NULL;
	nevs = evcap = 0;
	tr_min = tr_max = -1;
	tr_start = tr_end = 0;
	tr_unit = NULL;
	tr_unit_src = 0;
	C.merge = merge;
	C.metric = metric;
	C.nsrc = n;
	C.o = o;
	if (C.nsrc == 1 && !C.merge && !C.metric) {
		copy(files[0]);
		return;
	}

	/* the headers first, then the records */
	C.src = xcalloc(C.nsrc, sizeof *C.src);
	for (uint32_t i = 0; i < C.nsrc; i++) {
		C.src[i].name = names ? names[i] : files[i];
		/* read twice (the headers, then the records): a pipe, a FIFO
		 * or standard input is copied to a file first */
		C.src[i].path = input_rereadable(files[i]);
	}
	C.content_out = true;
	for (uint32_t i = 0; i < C.nsrc; i++) {
		read_header(i);
		C.content_out &= C.src[i].content_ids;
	}
	C.content_out |= C.merge;
	C.leaf_first = C.src[0].leaf_first;
	for (uint32_t i = 0; i < C.nsrc; i++)
		C.src[i].frames_kept = C.src[i].leaf_first == C.leaf_first;
	C.dso.fresh = C.frame.fresh = 1;

	time_shifts();
	write_header();
	if (C.merge) {
		for (uint32_t i = 0; i < C.nsrc; i++) run(i, PASS_SCAN);
		for (uint32_t i = 0; i < C.nsrc; i++) run(i, PASS_WRITE);
	} else {
		for (uint32_t i = 0; i < C.nsrc; i++) run(i, PASS_CAT);
	}
}

static char *merged_tmp;

static void remove_merged(void)
{
	if (merged_tmp) unlink(merged_tmp);
}

char *spaa_cat_merged(char **files, uint32_t n)
{
	if (n == 1) return xstrdup(files[0]);
	cli_stdin_once(files, (int)n);
	const char *dir = getenv("TMPDIR");
	if (!dir || !*dir) dir = "/tmp";
	sbuf path = { 0 };
	sbuf_printf(&path, "%s/%s.XXXXXX", dir, cli_prog);
	int fd = mkstemp(path.p);
	if (fd < 0) die(EXIT_DATA, "%s: cannot make a temporary file: %s", dir, strerror(errno));
	close(fd);
	merged_tmp = path.p;
	cli_atexit(remove_merged);
	output *o = output_open(path.p, false);
	spaa_cat(files, NULL, n, true, NULL, o);
	output_close(o);
	fd = open(path.p, O_RDONLY | O_CLOEXEC);
	if (fd < 0) die(EXIT_DATA, "%s: %s", path.p, strerror(errno));
	unlink(path.p);
	merged_tmp = NULL;
	sbuf_free(&path);
	sbuf s = { 0 };
	sbuf_printf(&s, "/dev/fd/%d", fd);
	return s.p;
}
