/* heapsnap.h - what every reader of V8 heap snapshots (.heapsnapshot,
 * .heaptimeline: chrome2spaa, spaa-heapdiff) needs besides its own arrays:
 * the column of a named field in the layouts that snapshot.meta gives, and
 * the "strings" array read once, keeping only the strings asked for
 * beforehand (a snapshot's strings hold every JavaScript string's contents,
 * most of them never needed). */
#ifndef SPAA_HEAPSNAP_H
#define SPAA_HEAPSNAP_H

#include <stdbool.h>
#include <stdint.h>
#include "idmap.h"
#include "jscan.h"
#include "json.h"
#include "util.h"

#define HEAPSNAP_NONE UINT32_MAX

/* The position of the string name in array arr of doc d (a meta field list
 * such as node_fields), or HEAPSNAP_NONE. */
uint32_t heapsnap_field(const json_doc *d, uint32_t arr, const char *name);
/* The same for a field a reader needs: fails "snapshot.meta.LIST has no
 * NAME" at r when the list (arr, HEAPSNAP_NONE when absent) lacks it. */
uint32_t heapsnap_need(jscan *r, const json_doc *d, uint32_t arr, const char *list, const char *name);

/* The flat integer arrays of a snapshot (nodes, edges, functions,
 * samples): rows of n fields.  Opens the array at r (array names it in
 * messages, value names one of its values) and hands each whole row to
 * row(r, u, f), where f[k] is the row's value in the column whose role[col]
 * is k (role[col] < 0: a column not used; at most HEAPSNAP_ROLES roles, the
 * others 0).  Returns the number of values of a last, incomplete row (0 when
 * the rows are whole), for the caller's message; with n == 0 it stops at
 * the first value, if any, and returns 1 (the caller says what is missing
 * from the meta), else 0. */
#define HEAPSNAP_ROLES 8
/* (inline: the row function is called for every row of arrays of millions) */
static inline uint32_t heapsnap_rows(jscan *r, const char *array, const char *value, uint32_t n,
				     const int8_t *role, void (*row)(jscan *r, void *u, const int64_t *f), void *u)
{
	int64_t f[HEAPSNAP_ROLES] = { 0 };
	uint32_t col = 0;
	bool first = true;
	jscan_open(r, '[', array);
	while (jscan_more(r, &first, ']')) {
		if (!n) return 1;
		int64_t v = jscan_int(r, value);
		if (role[col] >= 0) f[role[col]] = v;
		if (++col == n) {
			col = 0;
			row(r, u, f); /* a role no column has stays 0 */
		}
	}
	return col;
}

/* The strings of a snapshot, by index; the wanted ones only. */
typedef struct heapsnap_strings {
	idmap want;      /* string index -> slot */
	char **s;        /* per slot, NULL until read */
	uint32_t *len;
	uint32_t n, cap, lcap;
	uint64_t need;   /* 1 + the largest index wanted; 0 for none */
	uint64_t count;  /* strings read */
	bool all;        /* keep every string */
} heapsnap_strings;

/* All zero is an empty table too (a static one needs no init). */
void heapsnap_strings_init(heapsnap_strings *t);
/* Keep string i when the array is read (i < 0 is ignored). */
void heapsnap_strings_want(heapsnap_strings *t, int64_t i);
/* Keep every string (for a reader that learns what it needs only after). */
void heapsnap_strings_want_all(heapsnap_strings *t);
/* Reads the strings array at r: fails when it is shorter than the largest
 * index wanted.  Strings are decoded leniently: V8 writes the lone
 * surrogates of JavaScript strings (\ud800), which strict JSON refuses; they
 * become U+FFFD. */
void heapsnap_strings_read(jscan *r, heapsnap_strings *t);
/* String i, if it was wanted and read. */
bool heapsnap_strings_get(const heapsnap_strings *t, int64_t i, sstr *s);
void heapsnap_strings_free(heapsnap_strings *t);

#endif
