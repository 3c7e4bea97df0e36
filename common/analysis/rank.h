/* rank.h - self and total weight per function (or dso, or source line), the
 * figures behind spaa-top and spaa-stat.
 *
 * self(F)  = sum of the weights of the stacks whose leaf frame is F;
 * total(F) = sum of the weights of the stacks that contain F at least once
 *            (recursion counted once per stack).
 * Names: the frame's display name (fold_frame_name(): the name spaa-fold
 * prints, under the same naming options), its dso's name ("[unknown]" when
 * empty), or its srcline ("?? (FUNC)" when absent). */
#ifndef SPAA_RANK_H
#define SPAA_RANK_H

#include <stdbool.h>
#include <stdint.h>
#include "num.h"
#include "output.h"
#include "spaa.h"
#include "strmap.h"
#include "fold.h"
#include "units.h"

/* The keys rows are grouped by: of a frame (func, dso, srcline, file: the
 * srcline's file) or of the stack (comm, pid, tid: its context, or its
 * thread record's). */
enum rank_by { RANK_FUNC, RANK_DSO, RANK_SRCLINE, RANK_FILE, RANK_COMM, RANK_PID, RANK_TID, RANK_NBY };
enum { RANK_MAXBY = 8 };
extern const char *const rank_by_names[RANK_NBY];

typedef struct ranker {
	int by;                /* enum rank_by: the first key */
	uint8_t bys[RANK_MAXBY]; /* the keys, in order (ranker_by()) */
	uint32_t nby;
	bool ctx;              /* a key of the stack (comm, pid, tid) is among them */
	strmap parts, ctxs, pairs; /* with ctx: frame parts, stack parts, (ctx, part) */
	uint32_t *pair_key, pkcap; /* pair -> key */
	uint8_t *inl;          /* per key: 1 an inlined call to it seen, 2 another call */
	bool have_whole, have_cut;
	num whole;             /* percentages of this (the profile before filters) */
	num cut;               /* rows whose total is below: left out (--node-fraction) */
	strmap names;          /* key -> index */
	num *self, *total;
	uint64_t *stamp;       /* last stack that counted the key in total */
	uint32_t cap;
	int64_t *frame_key;    /* reader frame index -> key, -1 not yet known */
	uint32_t fkcap;
	uint64_t serial;       /* stacks added */
	num grand;             /* sum of all weights added */
	const fold_opts *fo;   /* how functions are named */
	bool shorten;          /* names shortened as pprof shows them (units_shorten) */
	sbuf tmp, stmp;
} ranker;

/* fo: the naming options (kept by pointer: fold_opts_header() may still
 * change them when the header is read). */
void ranker_init(ranker *k, int by, const fold_opts *fo);
/* Groups by the n keys by[] (enum rank_by) instead, in that order; call
 * right after ranker_init.  A row's name is then its keys' values joined by
 * RANK_SEP. */
void ranker_by(ranker *k, const uint8_t *by, uint32_t n);
#define RANK_SEP '\x1f'
/* Parses "KEY[,KEY...]" into by[] (at most RANK_MAXBY); false on an unknown
 * or repeated key (*bad: the offending key, NUL-terminated in a static
 * buffer). */
bool rank_parse_by(const char *text, uint8_t *by, uint32_t *n, const char **bad);
void ranker_free(ranker *k);
/* The key index of frame f of r (interned on first use). */
uint32_t ranker_frame_key(ranker *k, const spaa_reader *r, uint32_t f);
/* The key index of a name (interned). */
uint32_t ranker_name_key(ranker *k, const char *name, size_t n);
/* Adds stack s with weight w; false if a sum would pass 64 bits (nothing is
 * added then). */
bool ranker_add(ranker *k, const spaa_reader *r, const spaa_stack *s, num w);
/* The same, noting how each function is called (by func alone): inl[i] for
 * frame i of s in file order is true when that frame is inlined in the one
 * root-ward of it (NULL: the frames' own "inlined"); shown as pprof -top
 * does, "(inline)" or "(partial-inline)" after the name. */
bool ranker_add_inl(ranker *k, const spaa_reader *r, const spaa_stack *s, num w, const uint8_t *inl);
/* The keys with nonzero total (and not below k->cut), sorted by self (or
 * total) descending, then name ascending (bytewise), as go tool pprof -top
 * orders them; *n set.
 * The array is the caller's to free. */
uint32_t *ranker_sorted(const ranker *k, bool by_total, uint32_t *n);
static inline const char *ranker_name(const ranker *k, uint32_t key)
{
	return strmap_key(&k->names, key, NULL);
}
/* 100 * part / whole, 0 when whole is 0. */
double rank_percent(num part, num whole);

/* The table spaa-top and spaa-stat print, as `go tool pprof -top` does (the
 * first nrows rows of ranker_sorted(); 0: all):
 *       flat  flat%   sum%        cum   cum%  HEAD
 *      300ms 93.75% 93.75%      310ms 96.88%  main.sumSquares
 * flat = self, cum = total, sum% the running sum of flat%; the figures in
 * scale (ranker_scale()), percentages of k->grand. */
void ranker_put_table(output *o, const ranker *k, bool by_total, uint64_t nrows, const char *head,
		      const units_scale *scale);
/* The one output unit of that table, for figures in unit u, as pprof picks
 * it (units_pick(): from the smallest figure shown to k->grand); the line
 * above the table prints the total in it too. */
units_scale ranker_scale(const ranker *k, bool by_total, uint64_t nrows, const units *u, const units_opts *uo);
/* The same rows as JSON objects {"rank":1,"name":...,"self":...,
 * "self_percent":...,"total":...,"total_percent":...}: one per line with
 * "type":"row" first, or (array) as the comma-separated elements of an array.
 * Exact figures, in the stored unit. */
void ranker_put_json(output *o, const ranker *k, bool by_total, uint64_t nrows, bool array);
/* A figure, right-aligned in width (at least 10, as pprof's) */
void rank_put_cell(output *o, const char *s, int width);
/* The units_pick() of a set of figures: the smallest nonzero of v[0..n), and max. */
units_scale rank_scale(const units *u, const units_opts *uo, const num *v, uint32_t n, num max);

#endif
