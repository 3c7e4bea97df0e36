/* wsum.c - weights summed per metric (see wsum.h). */
#include "wsum.h"
#include "jsonbuf.h"

#include <stdlib.h>

void wsums_init(wsums *s)
{
	s->v = NULL;
	s->n = s->cap = 0;
	strmap_init(&s->names);
}

void wsums_free(wsums *s)
{
	free(s->v);
	s->v = NULL;
	s->n = s->cap = 0;
	strmap_free(&s->names);
}

bool wsums_add(wsums *s, uint32_t *head, sstr metric, sstr unit, num v)
{
	uint32_t m = strmap_intern(&s->names, metric.p, metric.n, NULL);
	uint32_t *link = head;
	while (*link && s->v[*link - 1].metric != m) link = &s->v[*link - 1].next;
	if (!*link) {
		wsum *x = VEC_PUSH(s->v, s->n, s->cap);
		x->metric = m;
		x->unit = unit.p ? strmap_intern(&s->names, unit.p, unit.n, NULL) : UINT32_MAX;
		x->next = 0;
		x->v = num_i(0);
		*link = s->n;
	}
	return num_add(&s->v[*link - 1].v, v);
}

bool wsums_add_weights(wsums *s, uint32_t *head, const spaa_weight *w, uint32_t n, uint32_t *bad)
{
	for (uint32_t i = 0; i < n; i++)
		if (!wsums_add(s, head, w[i].metric, w[i].unit, w[i].value)) {
			*bad = i;
			return false;
		}
	return true;
}

bool wsums_add_json(wsums *s, uint32_t *head, const json_doc *d, uint32_t arr, sstr *bad)
{
	if (!arr || d->nodes[arr].type != JSON_ARRAY) return true;
	for (uint32_t e = arr + 1, i = 0; i < d->nodes[arr].count; i++, e = json_after(d, e)) {
		uint32_t m = d->nodes[e].type == JSON_OBJECT ? json_get(d, e, "metric") : 0;
		uint32_t v = m ? json_get(d, e, "value") : 0;
		uint32_t u = m ? json_get(d, e, "unit") : 0;
		if (!v || d->nodes[m].type != JSON_STRING || !json_is_num(d, v)) continue;
		const json_node *x = &d->nodes[v];
		num val = x->type == JSON_INT ? num_i(x->v.i) : x->type == JSON_UINT ? num_u(x->v.u) : num_d(x->v.d);
		sstr metric = { d->nodes[m].str, d->nodes[m].count };
		sstr unit = u && d->nodes[u].type == JSON_STRING ? (sstr){ d->nodes[u].str, d->nodes[u].count } : SSTR_NULL;
		if (!wsums_add(s, head, metric, unit, val)) {
			*bad = metric;
			return false;
		}
	}
	return true;
}

uint32_t wsums_find(const wsums *s, uint32_t head, const char *p, size_t n)
{
	int64_t m = strmap_find(&s->names, p, n);
	if (m < 0) return 0;
	uint32_t x = head;
	while (x && s->v[x - 1].metric != (uint32_t)m) x = s->v[x - 1].next;
	return x;
}

void wsums_json(const wsums *s, uint32_t x, sbuf *out)
{
	const wsum *w = wsums_at(s, x);
	size_t n;
	const char *name = strmap_key(&s->names, w->metric, &n);
	char nb[32];
	sbuf_adds(out, "{\"metric\":");
	jb_str(out, name, n);
	sbuf_adds(out, ",\"value\":");
	sbuf_add(out, nb, num_fmt(nb, w->v));
	if (w->unit != UINT32_MAX) {
		name = strmap_key(&s->names, w->unit, &n);
		sbuf_adds(out, ",\"unit\":");
		jb_str(out, name, n);
	}
	sbuf_addc(out, '}');
}
