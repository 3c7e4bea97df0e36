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
