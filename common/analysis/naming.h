/* naming.h - the rules that name a profiled frame the way the best
 * collapser does: which dsos are kernel or JIT code, and how a function
 * name is tidied for a folded line (Rust names perf left half-demangled
 * repaired, the trailing argument list cut, template arguments kept whole).
 * One module for every path that makes or prints names: perf2spaa's text
 * and perf.data readers classify dsos with it, and fold.h (spaa-fold,
 * spaa-top, spaa-diff, spaa-flamegraph ...) names frames with it.  Where
 * the result differs from FlameGraph's stackcollapse-perf.pl, it is what
 * inferno's collapse-perf does, or better; spaa-fold(1) lists each case. */
#ifndef SPAA_NAMING_H
#define SPAA_NAMING_H

#include <stdbool.h>
#include <stddef.h>
#include "util.h"

/* A kernel dso: "[kernel.kallsyms]", "[nf_conntrack]" (any "[...]" but
 * "[unknown]"), a kernel module file ("*.ko", also compressed: ".ko.xz",
 * ".ko.zst", ".ko.gz"), or a vmlinux image, versioned or not
 * (".../vmlinux", "vmlinux-5.4.14-cloudflare-2020.1.11"). */
bool naming_dso_is_kernel(const char *d, size_t n);

/* JIT code: a perf map "/tmp/perf-PID.map" or a jitdump object written by
 * perf inject --jit, "jitted-PID-N.so" in any directory. */
bool naming_dso_is_jit(const char *d, size_t n);

/* The frame kind (enum spaa_fkind of spaa.h) of a frame in dso d: FK_KERNEL
 * (naming_dso_is_kernel), FK_UNKNOWN for "[unknown]" or an empty name,
 * else FK_USER.  The kind every perf reader gives a frame it names by its
 * dso. */
int naming_dso_kind(const char *d, size_t n);

/* Where the argument list of a function name starts ('(' at the outermost
 * level, not followed by "::"), or n when it has none.  Parentheses inside
 * template or generic arguments ("std::function<int (int, int)>",
 * "Extend<(K, V)>"), braces and brackets, "operator()", Go's
 * "pkg.(*T).M", "(anonymous namespace)" and a local scope "f()::" are not
 * one. */
size_t naming_args_at(const char *s, size_t n);

/* Appends the tidied function name s[0..n) to b: a Rust name with its
 * legacy hash ("::h" and 16 hex digits) loses the hash and has the escapes
 * perf left in it resolved ("_$LT$T$GT$" -> "<T>", ".." -> "::", "$u20$"
 * -> " "); then the argument list is cut (naming_args_at), ';' becomes
 * ':' and line breaks spaces.  Quotes are kept. */
void naming_tidy(sbuf *b, const char *s, size_t n);

#endif
