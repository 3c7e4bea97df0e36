/* filter.h - pprof's frame filters, with pprof's meaning, for every command
 * that reads stacks (spaa-top, spaa-fold, spaa-flamegraph, spaa-grep).  Each
 * is a POSIX extended regex on a frame's function name (the name spaa-fold
 * prints, under the command's naming options):
 *
 *   --focus=RE       keep the stacks with a matching frame;
 *   --ignore=RE      drop the stacks with a matching frame;
 *   --hide=RE        remove the matching frames from stacks;
 *   --show=RE        keep only the matching frames;
 *   --show-from=RE   drop the frames above (root-ward of) the root-most
 *                    match, and the stacks without a match;
 *   --prune-from=RE  drop the frames beneath (leaf-ward of) the leaf-most
 *                    match, the name matched as pprof simplifies it (cut at
 *                    its first '('); stacks without a match stay whole.
 *
 * They apply in pprof's order (go tool pprof's applyFocus): focus and
 * ignore on the original stack, then hide and show, then show-from, then
 * prune-from; a stack left with no frame is dropped.  The weights stay on
 * what remains (a stack's weight goes to its new leaf). */
#ifndef SPAA_FILTER_H
#define SPAA_FILTER_H

#include <getopt.h>
#include <regex.h>
#include <stdbool.h>
#include <stdint.h>
#include "fold.h"
#include "spaa.h"
#include "util.h"

enum { FILTER_OPT_FOCUS = 768, FILTER_OPT_IGNORE, FILTER_OPT_HIDE, FILTER_OPT_SHOW,
       FILTER_OPT_SHOW_FROM, FILTER_OPT_PRUNE_FROM, FILTER_OPT_END };
#define FILTER_LONGOPTS \
	{ "focus", required_argument, 0, FILTER_OPT_FOCUS }, \
	{ "ignore", required_argument, 0, FILTER_OPT_IGNORE }, \
	{ "hide", required_argument, 0, FILTER_OPT_HIDE }, \
	{ "show", required_argument, 0, FILTER_OPT_SHOW }, \
	{ "show-from", required_argument, 0, FILTER_OPT_SHOW_FROM }, \
	{ "prune-from", required_argument, 0, FILTER_OPT_PRUNE_FROM }
#define FILTER_HELP \
	"Frame filters, as go tool pprof's (RE: a POSIX extended regex on function\n" \
	"names; applied in this order):\n" \
	"      --focus=RE       keep the stacks with a frame matching RE\n" \
	"      --ignore=RE      drop the stacks with a frame matching RE\n" \
	"      --hide=RE        remove the frames matching RE from the stacks\n" \
	"      --show=RE        keep only the frames matching RE\n" \
	"      --show-from=RE   drop the frames above the root-most match, and the\n" \
	"                       stacks with none\n" \
	"      --prune-from=RE  drop the frames beneath the leaf-most match\n"

enum { FILTER_FOCUS, FILTER_IGNORE, FILTER_HIDE, FILTER_SHOW, FILTER_SHOW_FROM, FILTER_PRUNE_FROM,
       FILTER_N };

typedef struct frame_filter {
	const char *src[FILTER_N];   /* the options' text, NULL when not given */
	regex_t re[FILTER_N];
	bool compiled;
	const fold_opts *fo;         /* how frames are named */
	uint8_t *memo;               /* per frame: bit 7 known, bit i matches filter i */
	uint32_t memo_cap;
	sbuf name, simple;
	uint32_t *keep, kcap;        /* the stack's frames kept, root first (positions) */
	uint32_t *locstart, lcap;    /* per root position: where its location starts */
	spaa_stack out;              /* the filtered stack (frames only its own) */
	uint8_t *inl;                /* per frame of out (file order): inlined into
				      * the frame root-ward of it, in the same location */
	uint32_t icap;
	uint32_t *pos, pcap;         /* per frame of out (file order): its index in s */
} frame_filter;

/* Takes option c (FILTER_LONGOPTS) with its argument: false when c is not
 * one of them.  The last of each option given wins. */
bool filter_take(frame_filter *f, int c, const char *arg);
/* Compiles the regexes (a bad one: a usage error naming the option); fo:
 * the naming options, kept by pointer.  Call once, after the options. */
void filter_compile(frame_filter *f, const fold_opts *fo);
/* Any filter given / one that changes the frames of a stack (not only
 * focus and ignore). */
bool filter_active(const frame_filter *f);
bool filter_rewrites(const frame_filter *f);
/* The frames of another reader follow: forget what is known of frames. */
void filter_reset(frame_filter *f);
/* Stack s of r through the filters: NULL when dropped, else s itself
 * (nothing changed) or f->out, a copy of s with the frames that remain (in
 * s's order; valid until the next call).  f->inl is set for the frames of
 * the result either way. */
const spaa_stack *filter_stack(frame_filter *f, const spaa_reader *r, const spaa_stack *s);
void filter_free(frame_filter *f);

#endif
