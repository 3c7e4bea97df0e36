/* rank.c - self and total weight per name (see rank.h). */
#include "rank.h"

#include <stdio.h>
#include <stdlib.h>
#include "jsonw.h"
#include <string.h>
#include <math.h>

const char *const rank_by_names[RANK_NBY] = { "func", "dso", "srcline", "file", "comm", "pid", "tid" };

void ranker_init(ranker *k, int by, const fold_opts *fo)
{
	memset(k, 0, sizeof *k);
	k->by = by;
	k->bys[0] = (uint8_t)by;
	k->nby = 1;
	k->fo = fo;
	strmap_init(&k->names);
	strmap_init(&k->parts);
	strmap_init(&k->ctxs);
	strmap_init(&k->pairs);
	k->grand = num_i(0);
}

static bool is_ctx_key(int by) { return by == RANK_COMM || by == RANK_PID || by == RANK_TID; }

/* Appends value v of a key to b; with several keys (or one of the stack's,
 * which are joined to the frame's part), a byte RANK_SEP in it
 * (a control character) becomes '?', so that the values stay apart. */
static void add_value(const ranker *k, sbuf *b, const char *v, size_t n)
{
	size_t at = b->n;
	sbuf_add(b, v, n);
	if (k->nby > 1 || k->ctx)
		for (size_t i = at; i < b->n; i++)
			if (b->p[i] == RANK_SEP) b->p[i] = '?';
}

void ranker_by(ranker *k, const uint8_t *by, uint32_t n)
{
	memcpy(k->bys, by, n);
	k->nby = n;
	k->by = by[0];
	k->ctx = false;
	for (uint32_t i = 0; i < n; i++) k->ctx |= is_ctx_key(by[i]);
}

bool rank_parse_by(const char *text, uint8_t *by, uint32_t *n, const char **bad)
{
	static char word[64];
	*n = 0;
	const char *p = text;
	for (;;) {
		size_t len = strcspn(p, ",");
		snprintf(word, sizeof word, "%.*s", (int)(len < 63 ? len : 63), p);
		*bad = word;
		int b = 0;
		while (b < RANK_NBY && (strlen(rank_by_names[b]) != len || strncmp(rank_by_names[b], p, len))) b++;
		if (b == RANK_NBY || *n == RANK_MAXBY) return false;
		for (uint32_t i = 0; i < *n; i++)
			if (by[i] == b) return false;
		by[(*n)++] = (uint8_t)b;
		if (!p[len]) return true;
		p += len + 1;
	}
}

void ranker_free(ranker *k)
{
	strmap_free(&k->names);
	strmap_free(&k->parts);
	strmap_free(&k->ctxs);
	strmap_free(&k->pairs);
	free(k->pair_key);
	free(k->inl);
	free(k->self);
	free(k->total);
	free(k->stamp);
	free(k->frame_key);
	sbuf_free(&k->tmp);
	sbuf_free(&k->stmp);
	memset(k, 0, sizeof *k);
}

uint32_t ranker_name_key(ranker *k, const char *name, size_t n)
{
	uint32_t i = strmap_intern(&k->names, name, n, NULL);
	if (i >= k->cap) {
		uint32_t old = k->cap, c1 = k->cap, c2 = k->cap;
		grow_array((void **)&k->self, &c1, i + 1, sizeof *k->self);
		grow_array((void **)&k->total, &c2, i + 1, sizeof *k->total);
		uint32_t c3 = k->cap;
		grow_array((void **)&k->inl, &c3, i + 1, sizeof *k->inl);
		grow_array((void **)&k->stamp, &k->cap, i + 1, sizeof *k->stamp);
		for (uint32_t j = old; j < k->cap; j++) {
			k->self[j] = k->total[j] = num_i(0);
			k->stamp[j] = 0;
			k->inl[j] = 0;
		}
	}
	return i;
}

/* Appends the value of frame key `by` of frame f to b; func: its name. */
static void frame_part(ranker *k, const spaa_reader *r, const spaa_frame *fr, int by, const char *func, sbuf *b)
{
	if (by == RANK_DSO) {
		const char *d = r->dsos[fr->dso].name;
		if (!d || !*d) d = "[unknown]";
		add_value(k, b, d, strlen(d));
	} else if ((by == RANK_SRCLINE || by == RANK_FILE) && !fr->srcline) {
		sbuf t = { 0 };
		sbuf_printf(&t, "?? (%s)", func);
		add_value(k, b, t.p, t.n);
		sbuf_free(&t);
	} else if (by == RANK_SRCLINE) {
		add_value(k, b, fr->srcline, strlen(fr->srcline));
	} else if (by == RANK_FILE) {
		/* the srcline less its ":LINE" (and ":COLUMN") */
		size_t n = strlen(fr->srcline);
		for (int i = 0; i < 2; i++) {
			size_t j = n;
			while (j > 0 && fr->srcline[j - 1] >= '0' && fr->srcline[j - 1] <= '9') j--;
			if (j == n || j == 0 || fr->srcline[j - 1] != ':') break;
			n = j - 1;
		}
		add_value(k, b, fr->srcline, n);
	} else {
		add_value(k, b, func, strlen(func));
	}
}

uint32_t ranker_frame_key(ranker *k, const spaa_reader *r, uint32_t f)
{
	if (f >= k->fkcap) {
		uint32_t old = k->fkcap;
		grow_array((void **)&k->frame_key, &k->fkcap, f + 1, sizeof *k->frame_key);
		for (uint32_t j = old; j < k->fkcap; j++) k->frame_key[j] = -1;
	}
	if (k->frame_key[f] >= 0) return (uint32_t)k->frame_key[f];
	const spaa_frame *fr = &r->frames[f];
	static const fold_opts plain = { .inline_mode = -1 };
	k->tmp.n = 0;
	fold_frame_name(r, f, NULL, 0, k->fo ? k->fo : &plain, &k->tmp);
	if (k->shorten) {
		k->stmp.n = 0;
		units_shorten(k->tmp.p, k->tmp.n, &k->stmp);
		sbuf t = k->tmp;
		k->tmp = k->stmp;
		k->stmp = t;
	}
	sbuf_addc(&k->tmp, 0);
	sbuf b = { 0 };
	bool first = true;
	for (uint32_t i = 0; i < k->nby; i++) {
		if (is_ctx_key(k->bys[i])) continue;
		if (!first) sbuf_addc(&b, RANK_SEP);
		first = false;
		frame_part(k, r, fr, k->bys[i], k->tmp.p, &b);
	}
	uint32_t key = k->ctx ? strmap_intern(&k->parts, b.p ? b.p : "", b.n, NULL)
			      : ranker_name_key(k, b.p ? b.p : "", b.n);
	sbuf_free(&b);
	k->frame_key[f] = key;
	return key;
}

/* With keys of the stack: the stack's part (its index in k->ctxs). */
static uint32_t ctx_part(ranker *k, const spaa_reader *r, const spaa_stack *s)
{
	sbuf *b = &k->stmp;
	b->n = 0;
	bool first = true;
	int64_t pid = 0, tid = 0;
	bool has_pid = s->has_pid, has_tid = s->has_tid;
	if (has_pid) pid = s->pid;
	if (has_tid) tid = s->tid;
	if (!has_pid && has_tid) {
		char nb[24];
		size_t n = fmt_i64(nb, tid);
		int64_t t = strmap_find(&r->thread_ids, nb, n);
		if (t >= 0 && r->threads[t].pid >= 0) has_pid = true, pid = r->threads[t].pid;
	}
	for (uint32_t i = 0; i < k->nby; i++) {
		int by = k->bys[i];
		if (!is_ctx_key(by)) continue;
		if (!first) sbuf_addc(b, RANK_SEP);
		first = false;
		if (by == RANK_COMM) {
			sstr c = fold_stack_comm(r, s);
			if (c.p && c.n) add_value(k, b, c.p, c.n);
			else sbuf_adds(b, "[unknown]");
		} else if (by == RANK_PID ? has_pid : has_tid) {
			sbuf_printf(b, "%lld", (long long)(by == RANK_PID ? pid : tid));
		} else {
			sbuf_adds(b, "?");
		}
	}
	return strmap_intern(&k->ctxs, b->p ? b->p : "", b->n, NULL);
}

/* The key of (stack part c, frame part p): the values in the keys' order. */
static uint32_t pair_key(ranker *k, uint32_t c, uint32_t p)
{
	uint32_t kb[2] = { c, p };
	bool fresh;
	uint32_t i = strmap_intern(&k->pairs, (const char *)kb, sizeof kb, &fresh);
	if (!fresh) return k->pair_key[i];
	size_t cn, pn;
	const char *cs = strmap_key(&k->ctxs, c, &cn), *ps = strmap_key(&k->parts, p, &pn);
	const char *ce = cs + cn, *pe = ps + pn;
	sbuf b = { 0 };
	for (uint32_t j = 0; j < k->nby; j++) {
		const char **q = is_ctx_key(k->bys[j]) ? &cs : &ps, *e = is_ctx_key(k->bys[j]) ? ce : pe;
		const char *sep = memchr(*q, RANK_SEP, (size_t)(e - *q));
		size_t len = sep ? (size_t)(sep - *q) : (size_t)(e - *q);
		if (j) sbuf_addc(&b, RANK_SEP);
		sbuf_add(&b, *q, len);
		*q += len + (sep ? 1 : 0);
	}
	uint32_t key = ranker_name_key(k, b.p ? b.p : "", b.n);
	sbuf_free(&b);
	grow_array((void **)&k->pair_key, &k->pkcap, i + 1, sizeof *k->pair_key);
	k->pair_key[i] = key;
	return key;
}

bool ranker_add(ranker *k, const spaa_reader *r, const spaa_stack *s, num w)
{
	return ranker_add_inl(k, r, s, w, NULL);
}

bool ranker_add_inl(ranker *k, const spaa_reader *r, const spaa_stack *s, num w, const uint8_t *inl)
{
	num g = k->grand;
	if (!num_add(&g, w)) return false;
	if (s->nframes == 0) {
		k->grand = g;
		return true;
	}
	uint32_t c = k->ctx ? ctx_part(k, r, s) : 0;
#define KEY_OF(f) (k->ctx ? pair_key(k, c, ranker_frame_key(k, r, (f))) : ranker_frame_key(k, r, (f)))
	uint64_t stamp = ++k->serial;
	uint32_t leaf = KEY_OF(spaa_stack_leaf(r, s));
	/* check first, so that a failure adds nothing */
	num t = k->self[leaf];
	if (!num_add(&t, w)) return false;
	for (uint32_t i = 0; i < s->nframes; i++) {
		uint32_t key = KEY_OF(s->frames[i]);
		if (k->stamp[key] == stamp) continue;
		k->stamp[key] = stamp;
		t = k->total[key];
		if (!num_add(&t, w)) return false;
	}
	stamp = ++k->serial;
	for (uint32_t i = 0; i < s->nframes; i++) {
		uint32_t key = KEY_OF(s->frames[i]);
		if (k->stamp[key] == stamp) continue;
		k->stamp[key] = stamp;
		num_add(&k->total[key], w);
	}
	num_add(&k->self[leaf], w);
	k->grand = g;
	/* the calls: into each frame from the one root-ward of it, when they
	 * are two functions (go tool pprof's edges, inlined or not) */
	if (!k->ctx && memchr(k->bys, RANK_FUNC, k->nby)) {
		for (uint32_t j = 1; j < s->nframes; j++) {
			uint32_t i = r->leaf_first ? s->nframes - 1 - j : j;          /* the callee */
			uint32_t p = r->leaf_first ? i + 1 : i - 1;                    /* its caller */
			uint32_t key = KEY_OF(s->frames[i]);
			if (key == KEY_OF(s->frames[p])) continue;
			bool in = inl ? inl[i] != 0 : r->frames[s->frames[i]].inlined;
			k->inl[key] |= in ? 1 : 2;
		}
	}
#undef KEY_OF
	return true;
}

static const ranker *sort_k;
static bool sort_total;

static int cmp_keys(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const num *p1 = sort_total ? sort_k->total : sort_k->self;
	const num *p2 = sort_total ? sort_k->self : sort_k->total;
	int c = num_cmp(p1[y], p1[x]);
	(void)p2;
	if (!c) {
		size_t nx, ny;
		const char *sx = strmap_key(&sort_k->names, x, &nx);
		const char *sy = strmap_key(&sort_k->names, y, &ny);
		c = memcmp(sx, sy, nx < ny ? nx : ny);
		if (!c) c = nx < ny ? -1 : nx > ny;
	}
	return c;
}

uint32_t *ranker_sorted(const ranker *k, bool by_total, uint32_t *n)
{
	uint32_t *v = xmalloc(((size_t)k->names.count + 1) * sizeof *v);
	*n = 0;
	for (uint32_t i = 0; i < k->names.count; i++)
		if ((!num_is_zero(k->total[i]) || !num_is_zero(k->self[i])) &&
		    !(k->have_cut && num_cmp(k->total[i], k->cut) < 0))
			v[(*n)++] = i;
	sort_k = k;
	sort_total = by_total;
	xqsort(v, *n, sizeof *v, cmp_keys);
	return v;
}

double rank_percent(num part, num whole)
{
	double w = num_to_double(whole);
	return w == 0 ? 0 : 100.0 * num_to_double(part) / w;
}

void rank_put_cell(output *o, const char *s, int width)
{
	for (int i = (int)strlen(s); i < width; i++) out_putc(o, ' ');
	out_puts(o, s);
}

static long double num_ld(num v)
{
	return v.kind == NUM_INT ? (long double)v.i : v.kind == NUM_UINT ? (long double)v.u : (long double)v.d;
}

units_scale rank_scale(const units *u, const units_opts *uo, const num *v, uint32_t n, num max)
{
	long double min = 0;
	for (uint32_t i = 0; i < n; i++) {
		long double x = fabsl(num_ld(v[i]));
		if (x > 0 && (min == 0 || x < min)) min = x;
	}
	return units_pick(u, uo, min, num_ld(max));
}

units_scale ranker_scale(const ranker *k, bool by_total, uint64_t nrows, const units *u, const units_opts *uo)
{
	uint32_t n;
	uint32_t *v = ranker_sorted(k, by_total, &n);
	if (nrows && n > nrows) n = (uint32_t)nrows;
	/* pprof's choice: per row its flat figure, or its cum when flat is 0 */
	num *fig = xmalloc(((size_t)n + 1) * sizeof *fig);
	for (uint32_t i = 0; i < n; i++)
		fig[i] = num_is_zero(k->self[v[i]]) ? k->total[v[i]] : k->self[v[i]];
	units_scale sc = rank_scale(u, uo, fig, n, k->have_whole ? k->whole : k->grand);
	free(fig);
	free(v);
	return sc;
}

/* The columns text of n bytes takes: its UTF-8 characters. */
static size_t text_cols(const char *s, size_t n)
{
	size_t c = 0;
	for (size_t i = 0; i < n; i++) c += ((unsigned char)s[i] & 0xc0) != 0x80;
	return c;
}

/* The percentages' base: the profile before filters, or what was added. */
static num pct_base(const ranker *k)
{
	return k->have_whole ? k->whole : k->grand;
}

/* pprof -top's label of a function called inlined: "(inline)" when every
 * call to it seen is, "(partial-inline)" when some are; NULL when none. */
static const char *inline_label(const ranker *k, uint32_t key)
{
	return k->inl[key] == 1 ? "(inline)" : k->inl[key] == 3 ? "(partial-inline)" : NULL;
}

/* Column widths of the keys but the last over rows v[0..n) (and the heads). */
static void key_widths(const ranker *k, const uint32_t *v, uint32_t n, size_t *wd)
{
	for (uint32_t j = 0; j < k->nby; j++) wd[j] = strlen(rank_by_names[k->bys[j]]);
	for (uint32_t i = 0; i < n; i++) {
		size_t len;
		const char *q = strmap_key(&k->names, v[i], &len), *e = q + len;
		for (uint32_t j = 0; j < k->nby; j++) {
			const char *sep = memchr(q, RANK_SEP, (size_t)(e - q));
			size_t l = sep ? (size_t)(sep - q) : (size_t)(e - q);
			size_t c = text_cols(q, l);
			if (c > wd[j]) wd[j] = c;
			q += l + (sep ? 1 : 0);
		}
	}
}

static void put_padded(output *o, const char *s, size_t n, size_t width)
{
	out_write(o, s, n);
	for (size_t c = text_cols(s, n); c < width; c++) out_putc(o, ' ');
}

void ranker_put_table(output *o, const ranker *k, bool by_total, uint64_t nrows, const char *head,
		      const units_scale *scale)
{
	uint32_t n;
	uint32_t *v = ranker_sorted(k, by_total, &n);
	if (nrows && n > nrows) n = (uint32_t)nrows;
	units_scale sc = *scale;
	char (*cell)[2][UNITS_BUF] = xmalloc(((size_t)n + 1) * sizeof *cell);
	int w = 10;
	for (uint32_t i = 0; i < n; i++) {
		int a = (int)units_fmt(cell[i][0], num_ld(k->self[v[i]]), &sc);
		int b = (int)units_fmt(cell[i][1], num_ld(k->total[v[i]]), &sc);
		if (a > w) w = a;
		if (b > w) w = b;
	}
	size_t wd[RANK_MAXBY];
	if (k->nby > 1) key_widths(k, v, n, wd);
	rank_put_cell(o, "flat", w);
	out_puts(o, "  flat%   sum% ");
	rank_put_cell(o, "cum", w);
	out_puts(o, "   cum%  ");
	if (k->nby > 1) {
		for (uint32_t j = 0; j + 1 < k->nby; j++) {
			const char *h = rank_by_names[k->bys[j]];
			put_padded(o, h, strlen(h), wd[j] + 2);
		}
		out_puts(o, rank_by_names[k->bys[k->nby - 1]]);
	} else {
		out_puts(o, head);
	}
	out_putc(o, '\n');
	long double sum = 0, grand = num_ld(pct_base(k));
	char p[16];
	for (uint32_t i = 0; i < n; i++) {
		uint32_t key = v[i];
		long double self = num_ld(k->self[key]);
		sum += self;
		rank_put_cell(o, cell[i][0], w);
		out_putc(o, ' ');
		out_write(o, p, units_pct(p, self, grand));
		out_putc(o, ' ');
		out_write(o, p, units_pct(p, sum, grand));
		out_putc(o, ' ');
		rank_put_cell(o, cell[i][1], w);
		out_putc(o, ' ');
		out_write(o, p, units_pct(p, num_ld(k->total[key]), grand));
		out_puts(o, "  ");
		size_t len;
		const char *q = strmap_key(&k->names, key, &len), *e = q + len;
		if (k->nby > 1) {
			for (uint32_t j = 0; j < k->nby; j++) {
				const char *sep = memchr(q, RANK_SEP, (size_t)(e - q));
				size_t l = sep ? (size_t)(sep - q) : (size_t)(e - q);
				if (j + 1 < k->nby) put_padded(o, q, l, wd[j] + 2);
				else out_write(o, q, l);
				q += l + (sep ? 1 : 0);
			}
		} else {
			out_write(o, q, len);
		}
		const char *il = inline_label(k, key);
		if (il) {
			out_putc(o, ' ');
			out_puts(o, il);
		}
		out_putc(o, '\n');
	}
	free(cell);
	free(v);
}

/* The row's name as JSON: "name":..., or with several keys one member per
 * key (pid and tid as numbers when they are known). */
static void put_json_name(output *o, const ranker *k, uint32_t key)
{
	size_t len;
	const char *q = strmap_key(&k->names, key, &len), *e = q + len;
	if (k->nby == 1) {
		out_puts(o, "\"name\":");
		jw_str(o, q, len);
		return;
	}
	for (uint32_t j = 0; j < k->nby; j++) {
		const char *sep = memchr(q, RANK_SEP, (size_t)(e - q));
		size_t l = sep ? (size_t)(sep - q) : (size_t)(e - q);
		int by = k->bys[j];
		out_printf(o, "%s\"%s\":", j ? "," : "", rank_by_names[by]);
		if ((by == RANK_PID || by == RANK_TID) && !(l == 1 && *q == '?')) out_write(o, q, l);
		else jw_str(o, q, l);
		q += l + (sep ? 1 : 0);
	}
}

void ranker_put_json(output *o, const ranker *k, bool by_total, uint64_t nrows, bool array)
{
	uint32_t n;
	uint32_t *v = ranker_sorted(k, by_total, &n);
	if (nrows && n > nrows) n = (uint32_t)nrows;
	char buf[32];
	num base = pct_base(k);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t key = v[i];
		if (array) out_printf(o, "%s{\"rank\":%u,", i ? "," : "", i + 1);
		else out_printf(o, "{\"type\":\"row\",\"rank\":%u,", i + 1);
		put_json_name(o, k, key);
		const char *il = inline_label(k, key);
		if (il) out_printf(o, ",\"inline\":\"%.*s\"", (int)strlen(il) - 2, il + 1);
		out_puts(o, ",\"self\":");
		out_write(o, buf, num_fmt(buf, k->self[key]));
		out_printf(o, ",\"self_percent\":%.2f,\"total\":", rank_percent(k->self[key], base));
		out_write(o, buf, num_fmt(buf, k->total[key]));
		out_printf(o, ",\"total_percent\":%.2f}", rank_percent(k->total[key], base));
		if (!array) out_putc(o, '\n');
	}
	free(v);
}
