/* demangle.h - function names as their source language writes them: C++
 * (Itanium ABI), Rust (legacy "_ZN...17h<hash>E" and v0 "_R..."), D ("_D...")
 * and GCJ Java names through libiberty's demangler (the one c++filt uses),
 * plus two repairs of names a profiler already printed half-way: Rust's
 * legacy escapes ("_$LT$T$GT$::new::h0123456789abcdef" -> "<T>::new::h...")
 * and JVM class descriptors ("Ljava/io/PrintStream;::print" ->
 * "java.io.PrintStream::print").  Shared by spaa-demangle and the naming
 * module (fold.h, --demangle). */
#ifndef SPAA_DEMANGLE_H
#define SPAA_DEMANGLE_H

#include <stdbool.h>
#include <stddef.h>
#include "util.h"

enum {
	DEMANGLE_NO_PARAMS = 1, /* no argument lists (c++filt --no-params) */
	DEMANGLE_NO_HASH = 2,   /* no Rust "::h<16 hex>" hash and no v0 crate
				 * disambiguator "[...]" (as rustfilt prints) */
	DEMANGLE_NM = 4         /* as nm -C prints names: the standard
				 * library's abbreviations (std::ostream, std::string) */
};

/* Appends the demangled form of name[0..n) to b and returns true; returns
 * false, appending nothing, when the name is not a mangled name it knows
 * (or is one already demangled).  A suffix from '@' on ("@plt",
 * "@@GLIBC_2.2.5") is kept after the demangled name.  Threads may call it
 * at once (it keeps no scratch of its own). */
bool demangle_name(const char *name, size_t n, int flags, sbuf *b);

/* The repair alone of a Rust name a profiler printed half-demangled, with
 * its legacy hash ("GcBox$LT$T$GT$::new::h0123456789abcdef" ->
 * "GcBox<T>::new::h..."; the hash dropped with DEMANGLE_NO_HASH): appends
 * it to b and returns true, or returns false (b unchanged) when the name
 * has no such hash or nothing changes.  The naming module (naming.h) calls
 * it on every name. */
bool demangle_rust_repair(const char *s, size_t n, int flags, sbuf *b);

#endif
