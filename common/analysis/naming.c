/* naming.c - kernel and JIT dsos, and tidy function names (naming.h).
 * The rules follow FlameGraph's stackcollapse-perf.pl where it names a
 * frame well, and inferno's collapse-perf where inferno does better
 * (parentheses inside template arguments, versioned vmlinux and module
 * dsos, jitdump objects, half-demangled Rust names, quotes kept); the C++
 * argument-list rule goes one step further than both ("operator()" and
 * local scopes "f()::" stay whole). */
#include "naming.h"

#include <string.h>
#include "demangle.h"
#include "spaa.h"

static bool ends_with(const char *d, size_t n, const char *suf)
{
	size_t k = strlen(suf);
	return n >= k && memcmp(d + n - k, suf, k) == 0;
}

/* The last "vmlinux" in d[0..n), followed by nothing but letters, digits,
 * '-', '.' and '_' (a version: "vmlinux-5.4.14-cloudflare-2020.1.11"). */
static bool is_vmlinux(const char *d, size_t n)
{
	size_t at = n;
	for (size_t i = n >= 7 ? n - 7 + 1 : 0; i-- > 0;)
		if (memcmp(d + i, "vmlinux", 7) == 0) {
			at = i;
			break;
		}
	if (at == n) return false;
	for (size_t i = at + 7; i < n; i++) {
		char c = d[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c_digit(c) || c == '-' ||
		      c == '.' || c == '_'))
			return false;
	}
	return true;
}

bool naming_dso_is_kernel(const char *d, size_t n)
{
	if (n == 0) return false;
	/* stackcollapse-perf.pl: nothing with "unknown" in it */
	for (size_t i = 0; i + 7 <= n; i++)
		if (memcmp(d + i, "unknown", 7) == 0) return false;
	return d[0] == '[' || ends_with(d, n, ".ko") || ends_with(d, n, ".ko.xz") ||
	       ends_with(d, n, ".ko.zst") || ends_with(d, n, ".ko.gz") || is_vmlinux(d, n);
}

static bool ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c_digit(c) || c == '_' || c == '$';
}

/* At p[0..n): DIGITS then suffix, and nothing more. */
static bool digits_then(const char *p, size_t n, const char *suffix)
{
	size_t i = 0;
	while (i < n && c_digit(p[i])) i++;
	return i > 0 && n - i == strlen(suffix) && memcmp(p + i, suffix, n - i) == 0;
}

bool naming_dso_is_jit(const char *d, size_t n)
{
	/* "/tmp/perf-PID.map" (perf prints it as the dso), anywhere but
	 * followed by no more of a name */
	for (size_t i = 0; i + 10 <= n; i++) {
		if (memcmp(d + i, "/tmp/perf-", 10) != 0) continue;
		size_t j = i + 10;
		while (j < n && c_digit(d[j])) j++;
		if (j > i + 10 && n - j >= 4 && memcmp(d + j, ".map", 4) == 0 &&
		    (j + 4 == n || !ident_char(d[j + 4])))
			return true;
	}
	/* a basename "jitted-PID-N.so" */
	size_t b = n;
	while (b > 0 && d[b - 1] != '/') b--;
	if (n - b < 7 || memcmp(d + b, "jitted-", 7) != 0) return false;
	const char *p = d + b + 7;
	size_t m = n - b - 7, i = 0;
	while (i < m && c_digit(p[i])) i++;
	return i > 0 && i < m && p[i] == '-' && digits_then(p + i + 1, m - i - 1, ".so");
}

int naming_dso_kind(const char *d, size_t n)
{
	if (naming_dso_is_kernel(d, n)) return FK_KERNEL;
	if (n == 0 || (n == 9 && memcmp(d, "[unknown]", 9) == 0)) return FK_UNKNOWN;
	return FK_USER;
}

/* At s[i], the word "operator" (not the end of a longer word) followed by
 * an operator symbol: returns the index past the symbol ("operator()",
 * "operator<<", "operator<=>", "operator[]"), else i. */
static size_t skip_operator(const char *s, size_t n, size_t i)
{
	if (n - i < 9 || memcmp(s + i, "operator", 8) != 0 || (i > 0 && ident_char(s[i - 1])))
		return i;
	size_t j = i + 8;
	if ((s[j] == '(' && j + 1 < n && s[j + 1] == ')') || (s[j] == '[' && j + 1 < n && s[j + 1] == ']'))
		return j + 2;
	size_t k = j;
	while (k < n && k - j < 3 && s[k] && strchr("<>=!+-*/%^&|~,", s[k])) k++;
	return k;
}

/* The ')' that closes the '(' at s[i], or n when it is not closed. */
static size_t closing_paren(const char *s, size_t n, size_t i)
{
	int depth = 0;
	for (size_t k = i; k < n; k++) {
		if (s[k] == '(') depth++;
		else if (s[k] == ')' && --depth == 0) return k;
	}
	return n;
}

size_t naming_args_at(const char *s, size_t n)
{
	static const char anon[] = "(anonymous namespace)";
	size_t depth = 0; /* of <>, [], {} and () not cut at */
	for (size_t i = 0; i < n; i++) {
		size_t j = skip_operator(s, n, i);
		if (j != i) {
			i = j - 1;
			continue;
		}
		switch (s[i]) {
		case '<': case '[': case '{':
			depth++;
			break;
		case '>': case ']': case '}': case ')':
			if (depth) depth--;
			break;
		case '(':
			if (depth == 0) {
				bool go = i > 0 && s[i - 1] == '.';
				bool ns = n - i >= sizeof anon - 1 && memcmp(s + i, anon, sizeof anon - 1) == 0;
				size_t k = closing_paren(s, n, i);
				bool scope = k + 2 < n && s[k + 1] == ':' && s[k + 2] == ':';
				if (!go && !ns && !scope) return i;
				/* past the group: what is inside does not matter,
				 * and each byte is looked at a bounded number of
				 * times (a name of many groups stays linear) */
				if (k < n) {
					i = k;
					break;
				}
			}
			depth++;
			break;
		}
	}
	return n;
}

void naming_tidy(sbuf *b, const char *s, size_t n)
{
	static sbuf rust;
	rust.n = 0;
	if (demangle_rust_repair(s, n, DEMANGLE_NO_HASH, &rust)) {
		s = rust.p;
		n = rust.n;
	}
	size_t end = naming_args_at(s, n);
	sbuf_reserve(b, end);
	char *d = b->p + b->n;
	for (size_t i = 0; i < end; i++) {
		char c = s[i];
		d[i] = c == ';' ? ':' : (c == '\n' || c == '\r' || c == 0) ? ' ' : c;
	}
	b->n += end;
}
