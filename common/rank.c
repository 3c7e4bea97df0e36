/* rank.c - self and total weight per name (see rank.h). */
#include "rank.h"

#include <stdio.h>
#include <stdlib.h>
#include "jsonw.h"
#include <string.h>
#include <math.h>

void ranker_init(ranker *k, int by, const fold_opts *fo)
{
	memset(k, 0, sizeof *k);
	k->by = by;
	k->fo = fo;
	strmap_init(&k->names);
	k->grand = num_i(0);
}

void ranker_free(ranker *k)
{
	strmap_free(&k->names);
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
		grow_array((void **)&k->stamp, &k->cap, i + 1, sizeof *k->stamp);
		for (uint32_t j = old; j < k->cap; j++) {
			k->self[j] = k->total[j] = num_i(0);
			k->stamp[j] = 0;
		}
	}
	return i;
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
	const char *func = k->tmp.p;
	uint32_t key;
	if (k->by == RANK_DSO) {
		const char *d = r->dsos[fr->dso].name;
		if (!d || !*d) d = "[unknown]";
		key = ranker_name_key(k, d, strlen(d));
	} else if (k->by == RANK_SRCLINE && !fr->srcline) {
		sbuf b = { 0 };
		sbuf_printf(&b, "?? (%s)", func);
		key = ranker_name_key(k, b.p, b.n);
		sbuf_free(&b);
	} else {
		const char *s = k->by == RANK_SRCLINE ? fr->srcline : func;
		key = ranker_name_key(k, s, strlen(s));
	}
	k->frame_key[f] = key;
	return key;
}

bool ranker_add(ranker *k, const spaa_reader *r, const spaa_stack *s, num w)
{
	num g = k->grand;
	if (!num_add(&g, w)) return false;
	if (s->nframes == 0) {
		k->grand = g;
		return true;
	}
	uint64_t stamp = ++k->serial;
	uint32_t leaf = ranker_frame_key(k, r, spaa_stack_leaf(r, s));
	/* check first, so that a failure adds nothing */
	num t = k->self[leaf];
	if (!num_add(&t, w)) return false;
	for (uint32_t i = 0; i < s->nframes; i++) {
		uint32_t key = ranker_frame_key(k, r, s->frames[i]);
		if (k->stamp[key] == stamp) continue;
		k->stamp[key] = stamp;
		t = k->total[key];
		if (!num_add(&t, w)) return false;
	}
	stamp = ++k->serial;
	for (uint32_t i = 0; i < s->nframes; i++) {
		uint32_t key = ranker_frame_key(k, r, s->frames[i]);
		if (k->stamp[key] == stamp) continue;
		k->stamp[key] = stamp;
		num_add(&k->total[key], w);
	}
	num_add(&k->self[leaf], w);
	k->grand = g;
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
	if (!c) c = num_cmp(p2[y], p2[x]);
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
		if (!num_is_zero(k->total[i]) || !num_is_zero(k->self[i])) v[(*n)++] = i;
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
	units_scale sc = rank_scale(u, uo, fig, n, k->grand);
	free(fig);
	free(v);
	return sc;
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
	rank_put_cell(o, "flat", w);
	out_puts(o, "  flat%   sum% ");
	rank_put_cell(o, "cum", w);
	out_printf(o, "   cum%%  %s\n", head);
	long double sum = 0, grand = num_ld(k->grand);
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
		out_puts(o, ranker_name(k, key));
		out_putc(o, '\n');
	}
	free(cell);
	free(v);
}

void ranker_put_json(output *o, const ranker *k, bool by_total, uint64_t nrows, bool array)
{
	uint32_t n;
	uint32_t *v = ranker_sorted(k, by_total, &n);
	if (nrows && n > nrows) n = (uint32_t)nrows;
	char buf[32];
	for (uint32_t i = 0; i < n; i++) {
		uint32_t key = v[i];
		if (array) out_printf(o, "%s{\"rank\":%u,\"name\":", i ? "," : "", i + 1);
		else out_printf(o, "{\"type\":\"row\",\"rank\":%u,\"name\":", i + 1);
		jw_strc(o, ranker_name(k, key));
		out_puts(o, ",\"self\":");
		out_write(o, buf, num_fmt(buf, k->self[key]));
		out_printf(o, ",\"self_percent\":%.2f,\"total\":", rank_percent(k->self[key], k->grand));
		out_write(o, buf, num_fmt(buf, k->total[key]));
		out_printf(o, ",\"total_percent\":%.2f}", rank_percent(k->total[key], k->grand));
		if (!array) out_putc(o, '\n');
	}
	free(v);
}
