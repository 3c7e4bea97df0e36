/* v8code.h - the code map of a V8 tick log: the ranges of generated code
 * that exist at a moment, as code-creation, code-move and code-delete lines
 * change them, and the code at an address (V8's tools/codemap.mjs keeps the
 * same map for its tick processor).  A treap on start addresses; memory
 * grows with the code that exists, not with the changes made. */
#ifndef SPAA_V8CODE_H
#define SPAA_V8CODE_H

#include <stdbool.h>
#include <stdint.h>

typedef struct v8code_ent {
	uint64_t start, size;  /* [start, start + size) */
	uint32_t val;          /* the caller's: what the code is */
	uint8_t tag;           /* the caller's */
	uint32_t l, r, prio;   /* the tree's */
} v8code_ent;

typedef struct v8code {
	v8code_ent *n;         /* [0] is the empty tree */
	uint32_t nn, cap, root, freel, live, seed;
} v8code;

void v8code_init(v8code *m);
void v8code_free(v8code *m);
/* Adds code at [start, start + size) after removing every range that
 * overlaps it (one at start too, also when size is 0). */
void v8code_add(v8code *m, uint64_t start, uint64_t size, uint8_t tag, uint32_t val);
/* The code whose range holds addr, or NULL; valid until the next change. */
const v8code_ent *v8code_find(const v8code *m, uint64_t addr);
/* The code that starts at start, or NULL. */
const v8code_ent *v8code_at(const v8code *m, uint64_t start);
/* Moves the code that starts at from to to (removing what it then
 * overlaps); false when no code starts at from. */
bool v8code_move(v8code *m, uint64_t from, uint64_t to);
/* Removes the code that starts at start; false when there is none. */
bool v8code_delete(v8code *m, uint64_t start);
/* The number of ranges. */
static inline uint32_t v8code_count(const v8code *m) { return m->live; }

#endif
