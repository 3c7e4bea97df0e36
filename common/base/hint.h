/* hint.h - what to do next, when a profile or an argument looks wrong in a
 * way a command can recognise: the names close to a function that is not
 * there, the way to get source lines, broken call chains.  Each hint is one
 * line on standard error (spaa(7), MESSAGES). */
#ifndef SPAA_HINT_H
#define SPAA_HINT_H

#include <stdbool.h>
#include <stdint.h>
#include "spaa.h"
#include "strmap.h"
#include "util.h"

/* The names of m that contain want, ignoring case, but are not want (nor
 * one of skip, a NULL-terminated list; may be NULL): appended to out as
 * "'a', 'b'", the shortest first, then bytewise, at most max of them, and
 * ", ..." when there are more.  Returns how many there are. */
uint32_t hint_similar(sbuf *out, const strmap *m, const char *want, const char *const *skip, uint32_t max);

/* The end of a message that says a function named exactly want is not in
 * the profile: "; names that contain it (ignoring case): 'a', 'b'" or
 * "; no name contains it (ignoring case)", then "; OPT matches a regular
 * expression" when regex_opt is not NULL. */
void hint_not_found(sbuf *out, const strmap *m, const char *want, const char *const *skip,
		    const char *regex_opt);

/* No frame of r has a source line: says once how to get them (for
 * --by srcline).  Returns whether it said so. */
bool hint_no_srclines(const spaa_reader *r);

/* How to get sample records into a profile made by r's converter (its
 * header's source_tool), for a command that needs them (a flame chart,
 * spaa-window): "perf2spaa -s (--samples) writes them", "dtrace2spaa cannot
 * write them (dtrace profiles have no time order)" or, for a source it does
 * not know, "the converters' -s (--samples) writes them". */
void hint_samples(sbuf *out, const spaa_reader *r);

/* Broken-looking call chains, by their cause: a capture without call
 * chains (no stack of more than one frame: recorded without -g, or, when
 * its command line says -g or --call-graph, walks through code built
 * without frame pointers that all stopped at the first frame); frames
 * perf could not name in a file (stripped: its debug symbols); frame-pointer
 * walks through code built without frame pointers, that stop after a frame
 * or two (not at main or another thread entry), or at an address perf
 * cannot name (dwarf).  Feed every stack counted with its weight;
 * hint_stacks_say() then says once, when most of the weight of a perf
 * profile is in such stacks (or no stack has a chain), what to do. */
typedef struct hint_stacks {
	double all, broken;   /* weights: a ratio is all that is needed */
	double stripped;      /* the weight of stacks with frames unnamed in a file */
	bool perf;            /* the profile comes from perf */
	bool chains;          /* a stack of more than one frame was seen */
	bool asked;           /* its perf record command line asked for call chains */
	char dso[256];        /* the first file of stripped frames */
} hint_stacks;
void hint_stacks_header(hint_stacks *h, const spaa_reader *r);
void hint_stacks_add(hint_stacks *h, const spaa_reader *r, const spaa_stack *s, num w);
void hint_stacks_say(const hint_stacks *h, const char *file);

#endif
