/* tap.h - a tiny header-only TAP (Test Anything Protocol) helper.
 *
 *   plan(n);                      optional: "1..n" up front (0: no plan yet)
 *   ok(cond, "fmt", ...);         one test point
 *   is_str(got, want, "fmt", ...) string equality (NULL-safe)
 *   is_mem(got, gn, want, wn, ...) byte-string equality
 *   is_int(got, want, "fmt", ...) integer equality (int64)
 *   diag("fmt", ...);             "# ..." comment line
 *   return done_testing();        trailing plan if none was given, the
 *                                 summary line "N passed, N failed", and
 *                                 the exit status (0 only if all passed and
 *                                 the count matches the plan)
 */
#ifndef SPAA_TAP_H
#define SPAA_TAP_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static unsigned tap_run, tap_failed, tap_planned;

static inline void plan(unsigned n)
{
	tap_planned = n;
	if (n)
		printf("1..%u\n", n);
}

static inline void tap_vdiag(const char *fmt, va_list ap)
{
	fputs("# ", stdout);
	vprintf(fmt, ap);
	fputc('\n', stdout);
}

static inline __attribute__((format(printf, 1, 2))) void diag(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	tap_vdiag(fmt, ap);
	va_end(ap);
}

static inline bool tap_vok(bool cond, const char *fmt, va_list ap)
{
	tap_run++;
	if (!cond)
		tap_failed++;
	printf("%sok %u - ", cond ? "" : "not ", tap_run);
	vprintf(fmt, ap);
	fputc('\n', stdout);
	return cond;
}

static inline __attribute__((format(printf, 2, 3))) bool ok(bool cond, const char *fmt, ...)
{
	va_list ap;
	bool r;
	va_start(ap, fmt);
	r = tap_vok(cond, fmt, ap);
	va_end(ap);
	return r;
}

/* Prints bytes with C-style escapes for a diagnostic. */
static inline void tap_show(const char *label, const char *s, size_t n)
{
	printf("#   %s: ", label);
	if (!s) {
		fputs("(null)\n", stdout);
		return;
	}
	fputc('"', stdout);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c >= 0x20 && c < 0x7f)
			fputc(c, stdout);
		else
			printf("\\x%02x", c);
	}
	fputs("\"\n", stdout);
}

static inline __attribute__((format(printf, 5, 6)))
bool is_mem(const char *got, size_t gn, const char *want, size_t wn, const char *fmt, ...)
{
	va_list ap;
	bool r = (got == NULL) == (want == NULL) &&
		 (!got || (gn == wn && memcmp(got, want, gn) == 0));
	va_start(ap, fmt);
	tap_vok(r, fmt, ap);
	va_end(ap);
	if (!r) {
		tap_show("got", got, gn);
		tap_show("expected", want, wn);
	}
	return r;
}

static inline __attribute__((format(printf, 3, 4)))
bool is_str(const char *got, const char *want, const char *fmt, ...)
{
	va_list ap;
	bool r = (got == NULL) == (want == NULL) && (!got || strcmp(got, want) == 0);
	va_start(ap, fmt);
	tap_vok(r, fmt, ap);
	va_end(ap);
	if (!r) {
		tap_show("got", got, got ? strlen(got) : 0);
		tap_show("expected", want, want ? strlen(want) : 0);
	}
	return r;
}

static inline __attribute__((format(printf, 3, 4)))
bool is_int(int64_t got, int64_t want, const char *fmt, ...)
{
	va_list ap;
	bool r = got == want;
	va_start(ap, fmt);
	tap_vok(r, fmt, ap);
	va_end(ap);
	if (!r)
		printf("#   got: %" PRId64 "\n#   expected: %" PRId64 "\n", got, want);
	return r;
}

static inline int done_testing(void)
{
	bool plan_ok = true;
	if (!tap_planned)
		printf("1..%u\n", tap_run);
	else if (tap_planned != tap_run) {
		printf("# planned %u tests but ran %u\n", tap_planned, tap_run);
		plan_ok = false;
	}
	printf("%u passed, %u failed\n", tap_run - tap_failed, tap_failed);
	fflush(stdout);
	return tap_failed == 0 && plan_ok ? 0 : 1;
}

#endif
