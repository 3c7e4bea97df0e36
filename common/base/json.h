/* json.h - strict RFC 8259 parser for one line of NDJSON, and a compact writer.
 *
 * The parser turns one text (normally one line) into a flat "tape" of nodes in
 * depth-first order.  Nothing is allocated per value: the tape and the scratch
 * buffer used for strings with escapes are owned by a json_doc and reused from
 * one call to the next.  Strings without escapes point straight into the input
 * text, which is never modified, so the raw line can still be written out
 * unchanged (pass-through); strings with escapes are decoded into the doc's
 * scratch buffer.
 *
 * Numbers: an integer that fits in int64 is JSON_INT; a non-negative integer
 * that fits in uint64 (but not int64) is JSON_UINT; anything else (fraction,
 * exponent, or an integer too large) is JSON_DOUBLE.  Every number also keeps
 * its raw text (num_text/num_len) so that it can be written back exactly.
 */
#ifndef SPAA_JSON_H
#define SPAA_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

enum json_type {
	JSON_NULL, JSON_FALSE, JSON_TRUE, JSON_INT, JSON_UINT, JSON_DOUBLE,
	JSON_STRING, JSON_ARRAY, JSON_OBJECT
};

#define JSON_MAX_DEPTH 128

typedef struct json_node {
	uint8_t type;       /* enum json_type */
	uint32_t next;      /* index of the node after this whole subtree */
	uint32_t count;     /* ARRAY: elements; OBJECT: members; STRING: byte length */
	const char *str;    /* STRING: bytes (not NUL-terminated); numbers: raw text */
	union {
		int64_t i;      /* JSON_INT */
		uint64_t u;     /* JSON_UINT */
		double d;       /* JSON_DOUBLE */
		uint32_t nlen;  /* unused for numbers (see num_len) */
	} v;
	uint32_t num_len;   /* numbers: length of raw text */
} json_node;
/* Object layout on the tape: OBJECT node, then for each member a STRING key
 * node immediately followed by the value's subtree.  Array: ARRAY node, then
 * each element's subtree.  node[k].next skips the subtree rooted at k. */

typedef struct json_doc {
	json_node *nodes;
	uint32_t n, cap;
	char *scratch;       /* decoded strings with escapes */
	size_t scratch_len, scratch_cap;
	uint32_t nuls;       /* \u0000 escapes read as U+FFFD (utf8.h) in this parse */
	/* error reporting after a failed parse */
	size_t err_pos;      /* byte offset in the text */
	const char *err_msg; /* static message, e.g. "invalid UTF-8 in string" */
} json_doc;

void json_doc_init(json_doc *d);
void json_doc_free(json_doc *d);

/* Parse text[0..len) as exactly one JSON value surrounded by optional
 * whitespace (space, tab, CR, LF).  Returns 0 on success (root is node 0),
 * -1 on error with d->err_pos and d->err_msg set.  Invalid UTF-8 anywhere in a
 * string, lone surrogates in \u escapes, control characters in strings,
 * nesting deeper than JSON_MAX_DEPTH are errors. */
int json_parse(json_doc *d, const char *text, size_t len);
/* The key node of the first member of object obj whose key an earlier
 * member has too, or 0 (quadratic in the member count: for records). */
uint32_t json_dup_key(const json_doc *d, uint32_t obj);

/* Object lookup: index of the value of member `key` in object node `obj`, or 0
 * if absent (node 0 is always the root, never a member value).  Keys are
 * compared bytewise with the decoded key. */
uint32_t json_get(const json_doc *d, uint32_t obj, const char *key);

/* json_get of several keys in one pass over obj's members: out[i] is the
 * value of keys[i] (the first one, as json_get finds), or 0.  For readers
 * that take many members of every record. */
void json_get_keys(const json_doc *d, uint32_t obj, const char *const *keys, uint32_t nkeys, uint32_t *out);
/* The same, each of keys at most once: -1, or the index in keys of the
 * first that obj has twice (linear, unlike json_dup_key). */
int json_get_keys_once(const json_doc *d, uint32_t obj, const char *const *keys, uint32_t nkeys, uint32_t *out);
/* Iteration helpers: first child of an array/object (for objects, the first
 * key node; its value is key+1), and the next sibling. */
static inline uint32_t json_first(const json_doc *d, uint32_t k) { (void)d; return k + 1; }
static inline uint32_t json_after(const json_doc *d, uint32_t k) { return d->nodes[k].next; }

static inline bool json_is_str(const json_doc *d, uint32_t k, const char *s, size_t n);
/* true when node k is a string equal to s[0..n) */
#include <string.h>
static inline bool json_is_str(const json_doc *d, uint32_t k, const char *s, size_t n)
{
	const json_node *x = &d->nodes[k];
	return x->type == JSON_STRING && x->count == n && memcmp(x->str, s, n) == 0;
}
static inline bool json_is_num(const json_doc *d, uint32_t k)
{
	uint8_t t = d->nodes[k].type;
	return t == JSON_INT || t == JSON_UINT || t == JSON_DOUBLE;
}
/* Node k as int64: returns false if not an integer or out of range. */
bool json_int64(const json_doc *d, uint32_t k, int64_t *out);

#endif
