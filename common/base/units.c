/* units.c - weights as people read them (see units.h). */
#include "units.h"

#include <ctype.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

bool units_opts_take(units_opts *o, int c)
{
	switch (c) {
	case UNITS_OPT_RAW: o->raw = true; return true;
	case UNITS_OPT_IEC: o->iec = true; return true;
	case UNITS_OPT_FULL_NAMES: o->full_names = true; return true;
	default: return false;
	}
}

/* pprof's unit names (measurement.go): aliases -> factor in base units. */
static const struct alias { const char *name; uint8_t dim; double factor; const char *json; } aliases[] = {
	{ "b", UNITS_BYTES, 1, "bytes" }, { "byte", UNITS_BYTES, 1, "bytes" },
	{ "kb", UNITS_BYTES, 1024.0, "kilobytes" }, { "kbyte", UNITS_BYTES, 1024.0, "kilobytes" },
	{ "kilobyte", UNITS_BYTES, 1024.0, "kilobytes" },
	{ "mb", UNITS_BYTES, 1048576.0, "megabytes" }, { "mbyte", UNITS_BYTES, 1048576.0, "megabytes" },
	{ "megabyte", UNITS_BYTES, 1048576.0, "megabytes" },
	{ "gb", UNITS_BYTES, 1073741824.0, "gigabytes" }, { "gbyte", UNITS_BYTES, 1073741824.0, "gigabytes" },
	{ "gigabyte", UNITS_BYTES, 1073741824.0, "gigabytes" },
	{ "ns", UNITS_TIME, 1, "nanoseconds" }, { "nanosecond", UNITS_TIME, 1, "nanoseconds" },
	{ "\xce\xbcs", UNITS_TIME, 1e3, "microseconds" }, { "us", UNITS_TIME, 1e3, "microseconds" },
	{ "microsecond", UNITS_TIME, 1e3, "microseconds" },
	{ "ms", UNITS_TIME, 1e6, "milliseconds" }, { "millisecond", UNITS_TIME, 1e6, "milliseconds" },
	{ "s", UNITS_TIME, 1e9, "seconds" }, { "sec", UNITS_TIME, 1e9, "seconds" },
	{ "second", UNITS_TIME, 1e9, "seconds" },
	{ "hour", UNITS_TIME, 3.6e12, "hours" }, { "hr", UNITS_TIME, 3.6e12, "hours" },
};

/* pprof's sniffUnit: lower case, a trailing 's' dropped from names longer
 * than 2. */
static const struct alias *find_alias(const char *p, size_t n)
{
	char b[32];
	if (n == 0 || n >= sizeof b) return NULL;
	for (size_t i = 0; i < n; i++) b[i] = (char)tolower((unsigned char)p[i]);
	if (n > 2 && b[n - 1] == 's') n--;
	b[n] = 0;
	for (size_t i = 0; i < sizeof aliases / sizeof *aliases; i++)
		if (!strcmp(b, aliases[i].name)) return &aliases[i];
	return NULL;
}

static bool ends_with(const char *p, size_t n, const char *s)
{
	size_t k = strlen(s);
	return n >= k && memcmp(p + n - k, s, k) == 0;
}

static bool is(const char *p, size_t n, const char *s)
{
	return n == strlen(s) && memcmp(p, s, n) == 0;
}

units units_of(const char *metric, size_t mlen, const char *unit, size_t ulen)
{
	const struct alias *a = unit ? find_alias(unit, ulen) : NULL;
	if (a) return (units){ a->dim, a->factor, a->json };
	if (metric) {
		const char *m = metric;
		size_t n = mlen;
		if (ends_with(m, n, "_bytes") || is(m, n, "bytes") || is(m, n, "inuse_space") ||
		    is(m, n, "alloc_space") || is(m, n, "space") || is(m, n, "self_size") ||
		    is(m, n, "size"))
			return (units){ UNITS_BYTES, 1, "bytes" };
		if (ends_with(m, n, "_ns") || ends_with(m, n, "_nanos") || ends_with(m, n, "_nanoseconds"))
			return (units){ UNITS_TIME, 1, "nanoseconds" };
		if (ends_with(m, n, "_us") || ends_with(m, n, "_microseconds"))
			return (units){ UNITS_TIME, 1e3, "microseconds" };
		if (ends_with(m, n, "_ms") || ends_with(m, n, "_milliseconds"))
			return (units){ UNITS_TIME, 1e6, "milliseconds" };
	}
	return (units){ UNITS_COUNT, 1, "count" };
}

/* The output units of a dimension, smallest first. */
struct ounit { const char *name, *iec; double factor; };
static const struct ounit byte_units[] = {
	{ "B", "B", 1 }, { "kB", "KiB", 1024.0 }, { "MB", "MiB", 1048576.0 },
	{ "GB", "GiB", 1073741824.0 }, { "TB", "TiB", 1099511627776.0 },
	{ "PB", "PiB", 1125899906842624.0 },
};
static const struct ounit time_units[] = {
	{ "ns", "ns", 1 }, { "us", "us", 1e3 }, { "ms", "ms", 1e6 }, { "s", "s", 1e9 },
	{ "hrs", "hrs", 3.6e12 },
};

/* pprof's autoScale: the largest unit in which base is at least 1; when
 * none, the default for 0 (B, or s), and the smallest unit for a fraction
 * of it (a weight of 5e-7 milliseconds, which speedscope and Firefox
 * profiles give: "0.50ns", not "0s"; pprof's integers have none). */
static const struct ounit *auto_unit(int dim, long double base)
{
	const struct ounit *t = dim == UNITS_BYTES ? byte_units : time_units;
	size_t n = dim == UNITS_BYTES ? sizeof byte_units / sizeof *byte_units
				      : sizeof time_units / sizeof *time_units;
	const struct ounit *best = NULL;
	for (size_t i = 0; i < n; i++)
		if (base / t[i].factor >= 1.0L) best = &t[i];
	if (!best && base > 0) best = &t[0];
	if (!best) best = dim == UNITS_BYTES ? &byte_units[0] : &time_units[3];
	return best;
}

static units_scale make_scale(const units *u, const units_opts *o, const struct ounit *ou)
{
	units_scale s = { u->dim, o && o->raw, o && o->iec, 1, "" };
	if (ou && !s.raw) {
		s.div = ou->factor / u->factor;
		s.suffix = s.iec ? ou->iec : ou->name;
	}
	return s;
}

units_scale units_pick(const units *u, const units_opts *o, long double min, long double max)
{
	if (u->dim == UNITS_COUNT || (o && o->raw)) return make_scale(u, o, NULL);
	min = fabsl(min);
	max = fabsl(max);
	if (min == 0) min = max;
	const struct ounit *a = auto_unit(u->dim, min * u->factor);
	const struct ounit *b = auto_unit(u->dim, max * u->factor);
	if (a != b && min * 100 < max) a = auto_unit(u->dim, 100 * min * u->factor);
	return make_scale(u, o, a);
}

units_scale units_auto(const units *u, const units_opts *o, long double v)
{
	return units_pick(u, o, v, v);
}

/* Commas between the thousands of the digits at s (after a sign). */
static size_t group(char *buf, size_t n)
{
	size_t start = buf[0] == '-' || buf[0] == '+', end = start;
	while (end < n && buf[end] >= '0' && buf[end] <= '9') end++;
	size_t digits = end - start, commas = digits > 3 ? (digits - 1) / 3 : 0;
	if (!commas) return n;
	memmove(buf + end + commas, buf + end, n - end + 1);
	size_t d = end + commas;
	for (size_t i = 0; i < digits; i++) {
		if (i && i % 3 == 0) buf[--d] = ',';
		buf[--d] = buf[end - 1 - i];
	}
	return n + commas;
}

/* "%.2Lf" without a trailing ".00". */
static size_t fixed2(char *buf, long double x)
{
	int n = snprintf(buf, UNITS_BUF, "%.2Lf", x);
	if (n >= 3 && !strcmp(buf + n - 3, ".00")) buf[n -= 3] = 0;
	if (!strcmp(buf, "-0")) strcpy(buf, "0"), n = 1;
	return (size_t)n;
}

size_t units_fmt(char *buf, long double v, const units_scale *s)
{
	bool integral = v == floorl(v) && fabsl(v) < 1.9e19L;
	if (s->raw) {
		int n = integral ? snprintf(buf, UNITS_BUF, "%.0Lf", v) : snprintf(buf, UNITS_BUF, "%.17Lg", v);
		if (!integral && strchr(buf, 'e') && fabsl(v) < 1) { /* 0.0000015, not 1.5e-06, as JSON has it */
			int dec = 16 - (int)floorl(log10l(fabsl(v)));
			if (dec > UNITS_BUF - 8) dec = UNITS_BUF - 8;
			n = snprintf(buf, UNITS_BUF, "%.*Lf", dec, v);
			while (n > 0 && buf[n - 1] == '0') buf[--n] = 0;
		}
		return (size_t)n;
	}
	if (s->dim == UNITS_COUNT) {
		size_t n = integral ? (size_t)snprintf(buf, UNITS_BUF, "%.0Lf", v) : fixed2(buf, v);
		if (!strcmp(buf, "-0")) strcpy(buf, "0"), n = 1;
		return group(buf, n);
	}
	size_t n = fixed2(buf, v / s->div);
	if (!strcmp(buf, "0")) return n;
	n += (size_t)snprintf(buf + n, UNITS_BUF - n, "%s", s->suffix);
	return n;
}

size_t units_fmt_signed(char *buf, long double v, const units_scale *s)
{
	size_t n = units_fmt(buf, v, s);
	if (v > 0 && strcmp(buf, "0") != 0) {
		memmove(buf + 1, buf, n + 1);
		buf[0] = '+';
		n++;
	}
	return n;
}

size_t units_pct(char *buf, long double part, long double whole)
{
	long double r = whole != 0 ? fabsl(part / whole) * 100 : 0;
	/* pprof prints magnitudes; a negative share (memory freed) keeps its sign */
	const char *sign = whole != 0 && (part < 0) != (whole < 0) && part != 0 ? "-" : "";
	char t[16];
	if (r >= 99.95L && r <= 100.05L) snprintf(t, sizeof t, "%s100", sign);
	else if (r >= 1) snprintf(t, sizeof t, "%s%.2f", sign, (double)r);
	else snprintf(t, sizeof t, "%s%.2g", sign, (double)r); /* Go's %5.2g: two significant digits */
	return (size_t)snprintf(buf, 16, "%5s%%", t);
}

static const char *unit_or_seconds(const char *unit)
{
	return unit ? unit : "seconds";
}

void units_duration(sbuf *out, long double d, const char *unit)
{
	const char *un = unit_or_seconds(unit);
	units u = units_of(NULL, 0, un, strlen(un));
	if (u.dim != UNITS_TIME) { /* not a time: as it is */
		sbuf_printf(out, "%.9Lg %s", d, un);
		return;
	}
	units_scale s = units_auto(&u, NULL, d);
	char b[UNITS_BUF];
	sbuf_add(out, b, units_fmt(b, d, &s));
}

void units_time(sbuf *out, long double t, const char *unit)
{
	const char *un = unit_or_seconds(unit);
	units u = units_of(NULL, 0, un, strlen(un));
	long double ns = t * u.factor;
	if (u.dim == UNITS_TIME && ns >= 978307200e9L && ns < 7258118400e9L) {
		time_t sec = (time_t)floorl(ns / 1e9L);
		long nsec = (long)(ns - (long double)sec * 1e9L);
		if (nsec < 0) nsec = 0;
		if (nsec > 999999999) nsec = 999999999;
		struct tm tm;
		gmtime_r(&sec, &tm);
		char b[64];
		size_t n = strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%S", &tm);
		if (nsec) {
			n += (size_t)snprintf(b + n, sizeof b - n, ".%09ld", nsec);
			while (b[n - 1] == '0') n--;
		}
		sbuf_add(out, b, n);
		sbuf_addc(out, 'Z');
		return;
	}
	sbuf_adds(out, "clock ");
	units_duration(out, t, unit);
}

/* ---- names ------------------------------------------------------------------- */

static bool ident(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '$' || (unsigned char)c >= 0x80;
}

/* The end of the balanced group opened at s[i] (open/close), or n. */
static size_t skip_group(const char *s, size_t n, size_t i, char open, char close)
{
	int depth = 0;
	for (; i < n; i++) {
		if (s[i] == open) depth++;
		else if (s[i] == close && --depth == 0) return i + 1;
	}
	return n;
}

/* Skips the parameter list at s[i] and the method's qualifiers after it
 * (" const", " volatile", " &", " &&"). */
static size_t skip_params(const char *s, size_t n, size_t i)
{
	i = skip_group(s, n, i, '(', ')');
	while (i < n && s[i] == ' ') {
		size_t j = i + 1;
		while (j < n && (ident(s[j]) || s[j] == '&')) j++;
		size_t k = j - i - 1;
		bool qual = (k == 5 && !memcmp(s + i + 1, "const", 5)) ||
			    (k == 8 && !memcmp(s + i + 1, "volatile", 8)) || (k && s[i + 1] == '&');
		if (!qual) break;
		i = j;
	}
	return i;
}

static bool has_colons(const char *s, size_t n)
{
	for (size_t i = 0; i + 1 < n; i++)
		if (s[i] == ':' && s[i + 1] == ':') return true;
	return false;
}

void units_shorten(const char *s, size_t n, sbuf *out)
{
	if (!has_colons(s, n)) {
		sbuf_add(out, s, n);
		return;
	}
	size_t start = out->n;
	for (size_t i = 0; i < n;) {
		char c = s[i];
		if (c == 'o' && n - i >= 8 && !memcmp(s + i, "operator", 8) &&
		    (i == 0 || !ident(s[i - 1])) && (i + 8 >= n || !ident(s[i + 8]))) {
			/* the operator's symbol stays: operator<<, operator(), operator-> */
			size_t j = i + 8;
			if (j + 1 < n && s[j] == '(' && s[j + 1] == ')') j += 2;
			else while (j < n && strchr("<>=!+-*/%^&|~[]", s[j])) j++;
			sbuf_add(out, s + i, j - i);
			i = j;
			if (i < n && s[i] == '(') i = skip_params(s, n, i);
			continue;
		}
		if (c == '(' && n - i >= 21 && !memcmp(s + i, "(anonymous namespace)", 21)) {
			sbuf_add(out, s + i, 21);
			i += 21;
			continue;
		}
		bool after_name = out->n > start && (ident(out->p[out->n - 1]) || out->p[out->n - 1] == '>');
		if (c == '<' && after_name) {
			i = skip_group(s, n, i, '<', '>');
			continue;
		}
		if (c == '(' && after_name) {
			i = skip_params(s, n, i);
			continue;
		}
		sbuf_addc(out, c);
		i++;
	}
}
