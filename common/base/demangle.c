/* demangle.c - mangled names to source names: libiberty's cplus_demangle()
 * for C++, Rust and D, and two small repairs of half-demangled names (Rust's
 * legacy escapes, JVM class descriptors) that no library does. */
#include "demangle.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
/* libiberty.h (included by demangle.h) declares its own xmalloc family;
 * its xmemdup differs from util.h's, and is not used here */
#define xmemdup libiberty_xmemdup
#include <libiberty/demangle.h>
#undef xmemdup

static bool starts(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}


/* Does s[0..n) end with Rust's legacy hash "::h" + 16 hex digits?  Returns
 * the length before the "::", or n when not. */
static size_t rust_hash_at(const char *s, size_t n)
{
	if (n < 19 || memcmp(s + n - 19, "::h", 3) != 0) return n;
	for (size_t i = n - 16; i < n; i++)
		if (!c_hex(s[i])) return n;
	return n - 19;
}

/* One legacy escape "$...$" at s[0..n) (s[0] == '$'): appends what it
 * stands for and returns its length, 0 if it is not one. */
static size_t rust_escape(const char *s, size_t n, sbuf *b)
{
	static const struct { const char *esc, *out; } tab[] = {
		{ "$SP$", "@" }, { "$BP$", "*" }, { "$RF$", "&" }, { "$LT$", "<" },
		{ "$GT$", ">" }, { "$LP$", "(" }, { "$RP$", ")" }, { "$C$", "," },
	};
	for (size_t i = 0; i < sizeof tab / sizeof *tab; i++) {
		size_t k = strlen(tab[i].esc);
		if (n >= k && memcmp(s, tab[i].esc, k) == 0) {
			sbuf_adds(b, tab[i].out);
			return k;
		}
	}
	/* $uXX$: a code point in hex (not a control character, not a
	 * surrogate) */
	if (n < 4 || s[1] != 'u') return 0;
	uint32_t c = 0;
	size_t i = 2;
	for (; i < n && i < 10 && c_hex(s[i]); i++) c = c * 16 + (uint32_t)c_hexval(s[i]);
	if (i == 2 || i >= n || s[i] != '$') return 0;
	if (c < 0x20 || c == 0x7f || (c >= 0xd800 && c < 0xe000) || c > 0x10ffff) return 0;
	sbuf_add_utf8(b, c);
	return i + 1;
}

/* The path of a Rust name perf printed with its legacy escapes left in:
 * "_$LT$T$GT$::new" -> "<T>::new".  In each "::"-separated element a
 * leading "_$" loses its '_', ".." is "::" and "$...$" an escape.  False
 * (b unchanged) when an escape is not one of Rust's. */
static bool rust_unescape(const char *s, size_t n, sbuf *b)
{
	size_t start = b->n;
	bool elem = true; /* at the start of an element */
	for (size_t i = 0; i < n;) {
		if (elem && n - i >= 2 && s[i] == '_' && s[i + 1] == '$') i++;
		elem = false;
		if (s[i] == '$') {
			size_t k = rust_escape(s + i, n - i, b);
			if (!k) {
				b->n = start;
				return false;
			}
			i += k;
		} else if (s[i] == '.' && i + 1 < n && s[i + 1] == '.') {
			sbuf_adds(b, "::");
			i += 2;
		} else if (s[i] == ':' && i + 1 < n && s[i + 1] == ':') {
			sbuf_adds(b, "::");
			i += 2;
			elem = true;
		} else {
			sbuf_addc(b, s[i++]);
		}
	}
	return true;
}

bool demangle_rust_repair(const char *s, size_t n, int flags, sbuf *b)
{
	size_t end = rust_hash_at(s, n);
	if (end == n) return false;
	size_t start = b->n;
	if (!rust_unescape(s, end, b)) sbuf_add(b, s, end);
	if (!(flags & DEMANGLE_NO_HASH)) sbuf_add(b, s + end, n - end);
	if (b->n - start == n && memcmp(b->p + start, s, n) == 0) {
		b->n = start;
		return false;
	}
	return true;
}

/* A JVM class descriptor in front of a method, as perf-map-agent writes
 * them: "Ljava/io/PrintStream;::print" -> "java.io.PrintStream::print". */
static bool jvm_repair(const char *s, size_t n, sbuf *b)
{
	if (n < 3 || s[0] != 'L') return false;
	size_t i = 1;
	bool slash = false;
	for (; i < n && s[i] != ';'; i++) {
		char c = s[i];
		if (c == '/') slash = true;
		else if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			   c == '_' || c == '$' || (unsigned char)c >= 0x80))
			return false;
	}
	if (i >= n || i == 1) return false;
	/* "LFoo;" alone or followed by "::" or '.': a class, not a word */
	if (!slash && !(i + 1 < n && (s[i + 1] == ':' || s[i + 1] == '.'))) return false;
	if (i + 1 < n && s[i + 1] != ':' && s[i + 1] != '.') return false;
	for (size_t k = 1; k < i; k++) sbuf_addc(b, s[k] == '/' ? '.' : s[k]);
	sbuf_add(b, s + i + 1, n - i - 1);
	return true;
}

/* libiberty on a NUL-terminated name: malloc'd text or NULL. */
static char *lib_demangle(const char *s, int flags)
{
	int base = DMGL_ANSI | (flags & DEMANGLE_NO_PARAMS ? 0 : DMGL_PARAMS);
	/* nm -C's way: std::ostream for std::basic_ostream<char, ...> */
	int verbose = flags & DEMANGLE_NM ? 0 : DMGL_VERBOSE;
	char *r = NULL;
	if (starts(s, "_R") || starts(s, "_ZN"))
		r = cplus_demangle(s, base | DMGL_RUST | (flags & DEMANGLE_NO_HASH ? 0 : verbose));
	/* C++ as c++filt prints it (DMGL_VERBOSE: std::string spelled out) */
	if (!r && starts(s, "_Z"))
		r = cplus_demangle(s, base | DMGL_GNU_V3 | verbose);
	if (!r && starts(s, "_D"))
		r = cplus_demangle(s, base | DMGL_DLANG);
	return r;
}

bool demangle_name(const char *name, size_t n, int flags, sbuf *b)
{
	if (n == 0 || memchr(name, 0, n)) return false;
	/* "NAME@plt", "NAME@@GLIBC_2.2.5": the suffix is not mangled */
	const char *at = memchr(name + 1, '@', n - 1);
	size_t base = at ? (size_t)(at - name) : n;
	if (name[0] == '_' && base >= 3 && (name[1] == 'Z' || name[1] == 'R' || name[1] == 'D')) {
		/* a copy of its own per call: threads demangle at once */
		sbuf tmp = { 0 };
		sbuf_add(&tmp, name, base);
		sbuf_addc(&tmp, 0);
		char *r = lib_demangle(tmp.p, flags);
		sbuf_free(&tmp);
		if (r) {
			size_t rn = strlen(r);
			/* a legacy Rust name's hash, when not wanted */
			if (flags & DEMANGLE_NO_HASH) rn = rust_hash_at(r, rn);
			sbuf_add(b, r, rn);
			free(r);
			sbuf_add(b, name + base, n - base);
			return true;
		}
	}
	if (demangle_rust_repair(name, n, flags, b)) return true;
	return jvm_repair(name, n, b);
}
