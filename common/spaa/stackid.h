/* stackid.h - stack identity (see spaa(5), "STACK IDENTITY").
 *
 * Both hashes are 64-bit FNV-1a (offset basis 0xcbf29ce484222325, prime
 * 0x100000001b3) over a canonical byte string:
 *
 *   path bytes = for each frame from ROOT to LEAF:
 *                func, 0x1F, dso name, 0x1F, 'i' if inlined else 'p',
 *                [0x1F, srcline  -- only when the frame has a srcline], 0x1E
 *   x_path_id  = FNV-1a(path bytes)
 *   id         = FNV-1a(path bytes, then the context bytes:
 *                "event=" event 0x1E,
 *                "stack_type=" type 0x1E   -- only when not "unified",
 *                "comm=" comm 0x1E         -- only when present,
 *                "pid=" decimal 0x1E       -- only when present,
 *                "tid=" decimal 0x1E)      -- only when present
 *
 * Both are written as "0x" followed by 16 lowercase hex digits. */
#ifndef SPAA_STACKID_H
#define SPAA_STACKID_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include "util.h"

#define FNV64_BASIS 0xcbf29ce484222325ULL
#define FNV64_PRIME 0x100000001b3ULL

static inline uint64_t fnv1a64(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;
	for (size_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= FNV64_PRIME;
	}
	return h;
}

typedef struct stackid_frame {
	sstr func, dso, srcline; /* srcline.p NULL: none */
	bool inlined;
} stackid_frame;

typedef struct stackid_ctx {
	sstr event, stack_type, comm; /* comm.p NULL: absent; stack_type NULL or "unified": omitted */
	bool has_pid, has_tid;
	int64_t pid, tid;
} stackid_ctx;

/* Feed one frame (call from root to leaf). */
uint64_t stackid_add_frame(uint64_t h, const stackid_frame *f);

/* A frame's last step in a path hash: the state before it and after it.
 * Stacks share their callers, so a frame mostly follows the same path as
 * the last time: the step is then taken from the memo rather than hashing
 * the frame's bytes again.  Zeroed: empty. */
typedef struct stackid_memo { uint64_t in, out; } stackid_memo;

/* The state after the frame of memo m when *h is its last state before. */
static inline bool stackid_memo_get(const stackid_memo *m, uint64_t *h)
{
	if (!m->out || m->in != *h) return false;
	*h = m->out;
	return true;
}
static inline void stackid_memo_set(stackid_memo *m, uint64_t in, uint64_t out)
{
	m->in = in;
	m->out = out;
}
/* Finish the stack id from the path state. */
uint64_t stackid_add_ctx(uint64_t h, const stackid_ctx *c);
/* "0x%016" PRIx64 into buf (19 bytes incl. NUL); returns 18. */
size_t stackid_fmt(char *buf, uint64_t h);

/* The value of id text p/n when it has the form stackid_fmt writes ("0x"
 * and 16 lowercase hex digits): a content id as spaa(5) makes them.  Inline:
 * filters look up every sample's stack id with it. */
static inline bool stackid_parse(const char *p, size_t n, uint64_t *v)
{
	if (n != 18 || p[0] != '0' || p[1] != 'x') return false;
	uint64_t x = 0;
	for (size_t i = 2; i < 18; i++) {
		char c = p[i];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
		if (d < 0) return false;
		x = x << 4 | (uint64_t)d;
	}
	*v = x;
	return true;
}

#endif
