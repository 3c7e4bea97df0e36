/* wsum.h - weights summed per metric: the bookkeeping of filters that merge
 * stacks which have become the same stack (spaa-demangle, spaa-symbolize).
 *
 * A sum list holds one sum per metric, in the order the metrics first came,
 * with the unit of the first weight of that metric.  A list is named by its
 * head, an index + 1 into the pool (0: the empty list); all lists of a pool
 * share one array and one map of metric and unit names.  A pool can drop
 * the sums made after a point by putting n back (a window's scratch sums). */
#ifndef SPAA_WSUM_H
#define SPAA_WSUM_H

#include <stdbool.h>
#include <stdint.h>
#include "json.h"
#include "num.h"
#include "spaa.h"
#include "strmap.h"
#include "util.h"

typedef struct wsum {
	uint32_t metric, unit;  /* names (keys of the pool's map); unit UINT32_MAX: none */
	uint32_t next;          /* the next sum of the list, index + 1; 0 ends it */
	num v;
} wsum;

typedef struct wsums {
	wsum *v;
	uint32_t n, cap;
	strmap names;           /* metric and unit names */
} wsums;

void wsums_init(wsums *s);
void wsums_free(wsums *s);

/* Sum x (an index + 1, as in heads and next links). */
static inline wsum *wsums_at(const wsums *s, uint32_t x) { return &s->v[x - 1]; }

/* Adds value v of metric (unit.p NULL: none) to list *head.  False when the
 * sum overflows 64 bits (the caller says so and stops). */
bool wsums_add(wsums *s, uint32_t *head, sstr metric, sstr unit, num v);

/* Adds n weights of a parsed record; false at an overflow, *bad then the
 * index of the weight whose sum overflowed. */
bool wsums_add_weights(wsums *s, uint32_t *head, const spaa_weight *w, uint32_t n, uint32_t *bad);

/* Adds the weights of JSON array node arr of d (a window entry's
 * "weights"; 0 or not an array: none): the objects with a string "metric"
 * and a number "value" ("unit" when a string), others skipped.  False at an
 * overflow, *bad then that weight's metric. */
bool wsums_add_json(wsums *s, uint32_t *head, const json_doc *d, uint32_t arr, sstr *bad);

/* Appends sum x as a weight object, {"metric":...,"value":...[,"unit":...]}. */
void wsums_json(const wsums *s, uint32_t x, sbuf *out);

/* The sum of metric p/n in list head, 0 if it has none. */
uint32_t wsums_find(const wsums *s, uint32_t head, const char *p, size_t n);

#endif
