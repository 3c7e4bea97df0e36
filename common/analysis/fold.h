/* fold.h - from stacks to the folded format ("root;...;leaf COUNT"):
 * picking the event and metric, naming frames the way FlameGraph's
 * stackcollapse-perf.pl does, or inferno where it does better (the rules
 * are naming.h's), and building a stack's folded path.  Shared by
 * spaa-fold, spaa-diff, spaa-top and any command that prints stacks as
 * folded lines. */
#ifndef SPAA_FOLD_H
#define SPAA_FOLD_H

#include <stdbool.h>
#include <stdint.h>
#include "spaa.h"
#include "util.h"

enum fold_inline { FOLD_INLINE_MARK, FOLD_INLINE_PLAIN, FOLD_INLINE_HIDE };

typedef struct fold_opts {
	bool raw;        /* names exactly as stored (only ';' and line breaks replaced) */
	bool no_comm;    /* no process-name root frame */
	bool pid, tid;   /* root frame "comm-PID" / "comm-PID/TID" */
	bool kernel;     /* "_[k]" on kernel frames */
	bool jit;        /* "_[j]" on JIT frames (naming_dso_is_jit()) */
	bool addrs;      /* "[dso <ip>]" for unresolved frames */
	bool all_events; /* the event name as the root frame */
	int inline_mode; /* enum fold_inline; negative: the default, which is
			  * MARK for DTrace profiles (not raw), else PLAIN */
	bool dtrace;     /* stackcollapse.pl (DTrace) naming: see fold_opts_header() */
	bool perf;       /* a perf profile: names split at "->" as
			  * stackcollapse-perf.pl does (fold_opts_header()) */
	bool js;         /* a JavaScript profile (chrome2spaa): names are whole,
			  * "(anonymous)" and V8's "(program)" included, since
			  * no argument lists follow them (fold_opts_header()) */
	bool paren;      /* names that start with '(' are functions of their
			  * own: valgrind's "(below main)", kept (fold_opts_header()) */
	bool demangle;   /* mangled names demangled first (demangle.h, as
			  * spaa-demangle does with no options) */
} fold_opts;

/* The naming options of the commands that print folded stacks (spaa-fold,
 * spaa-diff): FOLD_LONGOPTS in their struct option array, and
 * fold_opts_take() first for every option getopt_long() returns.  Their own
 * long options take values from FOLD_OPT_END on. */
#include <getopt.h>
enum { FOLD_OPT_RAW = 256, FOLD_OPT_NO_COMM, FOLD_OPT_PID, FOLD_OPT_TID, FOLD_OPT_KERNEL,
       FOLD_OPT_JIT, FOLD_OPT_ALL, FOLD_OPT_ADDRS, FOLD_OPT_INLINE, FOLD_OPT_ALL_EVENTS,
       FOLD_OPT_DEMANGLE, FOLD_OPT_END };
/* The options that name one frame: every command that prints or matches
 * function names (spaa-top, spaa-stat, spaa-grep, spaa-window --list) takes
 * these, so that a frame has the name spaa-fold gives it everywhere. */
#define FOLD_NAME_LONGOPTS \
	{ "raw", no_argument, 0, FOLD_OPT_RAW }, \
	{ "kernel", no_argument, 0, FOLD_OPT_KERNEL }, \
	{ "jit", no_argument, 0, FOLD_OPT_JIT }, \
	{ "all", no_argument, 0, FOLD_OPT_ALL }, \
	{ "addrs", no_argument, 0, FOLD_OPT_ADDRS }, \
	{ "inline", optional_argument, 0, FOLD_OPT_INLINE }, \
	{ "demangle", no_argument, 0, FOLD_OPT_DEMANGLE }
#define FOLD_NAME_HELP \
	"Names of functions (as spaa-fold prints them):\n" \
	"      --raw            function names exactly as stored\n" \
	"      --kernel         mark kernel frames with _[k]\n" \
	"      --jit            mark JIT frames (perf-N.map, jitted-N-N.so) with _[j]\n" \
	"      --all            both --kernel and --jit\n" \
	"      --addrs          \"[dso <addr>]\" for unresolved frames\n" \
	"      --inline[=MODE]  inlined frames: mark (add _[i]), plain or hide\n" \
	"      --demangle       demangle C++, Rust and D names (as spaa-demangle)\n"
/* The help of FOLD_LONGOPTS, for the commands that print whole folded paths
 * as spaa-fold does (spaa-diff, spaa-flamegraph). */
#define FOLD_HELP \
	"Names (as spaa-fold):\n" \
	"      --raw            function names exactly as stored\n" \
	"      --no-comm        no process-name root frame\n" \
	"      --pid            root frame \"comm-PID\"\n" \
	"      --tid            root frame \"comm-PID/TID\"\n" \
	"      --kernel         mark kernel frames with _[k]\n" \
	"      --jit            mark JIT frames (perf-N.map, jitted-N-N.so) with _[j]\n" \
	"      --all            both --kernel and --jit\n" \
	"      --addrs          \"[dso <addr>]\" for unresolved frames\n" \
	"      --inline[=MODE]  inlined frames: mark (add _[i]; --inline alone), plain\n" \
	"                       or hide; default: as spaa-fold (mark for DTrace)\n" \
	"      --demangle       demangle C++, Rust and D names (as spaa-demangle)\n"
#define FOLD_LONGOPTS \
	FOLD_NAME_LONGOPTS, \
	{ "all-events", no_argument, 0, FOLD_OPT_ALL_EVENTS }, \
	{ "no-comm", no_argument, 0, FOLD_OPT_NO_COMM }, \
	{ "pid", no_argument, 0, FOLD_OPT_PID }, \
	{ "tid", no_argument, 0, FOLD_OPT_TID }
/* Sets option c (with its argument) in o: true when c is one of
 * FOLD_LONGOPTS, false for the caller's own options.  A bad
 * --inline mode is a usage error. */
bool fold_opts_take(fold_opts *o, int c, const char *arg);

/* Sets what the header implies (call right after spaa_next() returned
 * SPAA_HEADER, while r->doc holds it): for source_tool "dtrace", names are
 * tidied the way stackcollapse.pl does instead of stackcollapse-perf.pl;
 * for "perf", a name with "->" is split into frames as that script does. */
void fold_opts_header(fold_opts *o, const spaa_reader *r);

/* Which event to fold: by name (NULL: the first declared; when the header
 * declares several, warn once naming the others, unless quiet).  Exits 1
 * with a message if the name is not declared.  Call after the header. */
int32_t fold_pick_event(spaa_reader *r, const char *name, bool quiet);
/* Which metric: the given one, or the event's primary metric.  A name
 * users know from other tools (metric.h: inuse_space, cpu ...) is the SPAA
 * name it stands for, the event's primary metric when that is one of them. */
const char *fold_pick_metric(const spaa_reader *r, int32_t event, const char *metric);

/* Appends the folded name of frame f (index into r->frames) to b, for a
 * stack whose process name is comm (may be NULL). */
void fold_frame_name(const spaa_reader *r, uint32_t f, const char *comm, size_t comm_n,
		     const fold_opts *o, sbuf *b);
/* Appends the whole folded path of s (root first, ';'-separated, with the
 * process and event root frames as the options say) to b. */
void fold_stack_path(const spaa_reader *r, const spaa_stack *s, const fold_opts *o, sbuf *b);

/* Is frame f left out of folded paths (inlined with --inline=hide; in tidy
 * mode, a symbol starting with '(' as stackcollapse-perf.pl skips them, but
 * not "(anonymous namespace)::...")? */
bool fold_frame_hidden(const spaa_reader *r, uint32_t f, const fold_opts *o);
/* The process name of s: context.comm, else the comm of its thread record
 * (looked up by tid); .p NULL when neither. */
sstr fold_stack_comm(const spaa_reader *r, const spaa_stack *s);

/* The same as fold_stack_path, with each frame's name computed once and kept
 * (per frame index, and per java-or-not process).  The cache belongs to one
 * reader and one set of options: fold_cache_reset() it for the next file. */
typedef struct fold_cache {
	struct fold_cache_ent {
		size_t off[2];
		uint32_t len[2];
		uint8_t have; /* bit 0/1: name for non-java/java known; 4: hidden known; 8: hidden */
	} *ent;
	uint32_t n;
	sbuf text;
} fold_cache;
void fold_cache_init(fold_cache *c);
void fold_cache_reset(fold_cache *c);
void fold_cache_free(fold_cache *c);
void fold_stack_path_cached(fold_cache *c, const spaa_reader *r, const spaa_stack *s,
			    const fold_opts *o, sbuf *b);

/* Folded paths kept compactly, for commands that hold many of them: every
 * distinct name text (frames, and the process and event root frames) gets
 * an id once, and a path is "packed" as the varint-coded ids of its names,
 * root first.  Two paths have the same packed bytes exactly when their
 * folded texts are equal.  Ids stay valid over files: call
 * fold_names_reset() before each next file (it clears the per-frame cache,
 * which belongs to one reader and one set of options). */
#include "strmap.h"
typedef struct fold_names {
	strmap names;           /* name text -> id */
	struct fold_names_ent {
		uint32_t id[2]; /* name id for a non-java / java process */
		uint8_t have;   /* bit 0/1: id[0]/id[1] known; 4: hidden known; 8: hidden */
	} *ent;
	uint32_t n;
	sbuf tmp;
	uint32_t *rank;         /* fold_names_rank(): the order of "NAME;" */
	/* the process root frame of the last stack (stacks come in runs of
	 * one process): its comm text, pid and tid, and its name id */
	struct fold_comm_memo {
		bool ok, has_pid, has_tid;
		int64_t pid, tid;
		uint32_t id;
		sbuf comm;
	} memo;
	/* the name id + 1 of an unresolved frame of each dso (index into
	 * r->dsos; 0: not known yet), for the options that name it by its
	 * dso alone: most frames of a capture without symbols */
	uint32_t *dso_unknown, ndso_unknown;
} fold_names;
void fold_names_init(fold_names *c);
void fold_names_reset(fold_names *c);
void fold_names_free(fold_names *c);
/* Appends the packed folded path of s (as fold_stack_path would write it)
 * to b. */
void fold_stack_packed(fold_names *c, const spaa_reader *r, const spaa_stack *s,
		       const fold_opts *o, sbuf *b);
/* Ranks the names by their bytes followed by ';' (no name holds one), so
 * that fold_packed_cmp() can compare paths that differ at a name followed by
 * more names without reading the names.  Call once no more names are added. */
void fold_names_rank(fold_names *c);
/* Appends the text of packed path p[0..n) to b. */
void fold_packed_text(const fold_names *c, const void *p, size_t n, sbuf *b);
/* Writes it to o. */
#include "output.h"
void fold_packed_write(const fold_names *c, const void *p, size_t n, output *o);
/* The bytewise order (memcmp, shorter first) of the text lines
 * "PATH_A TAIL_A" and "PATH_B TAIL_B", for packed paths a and b, without
 * building them. */
int fold_packed_cmp(const fold_names *c, const void *a, size_t na, sstr ta,
		    const void *b, size_t nb, sstr tb);

#endif
