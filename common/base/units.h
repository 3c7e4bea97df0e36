/* units.h - weights as people read them: the unit of a metric, values
 * scaled the way `go tool pprof` prints them (300ms, 1.16MB), its
 * percentages, counts with a thousands separator, times as ISO 8601, names
 * of C++ and Rust functions shortened as pprof shows them, and the options
 * that choose (--raw-units, --iec, --full-names).
 *
 * pprof's rules (internal/measurement): bytes scale by 1024 to kB, MB, GB,
 * TB, PB; times from nanoseconds to us, ms, s, hrs; a value is printed
 * "%.2f" with a trailing ".00" dropped, and 0 as "0".  A table uses one
 * unit for all its cells, chosen from its smallest nonzero and its largest
 * figure (units_pick()). */
#ifndef SPAA_UNITS_H
#define SPAA_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "util.h"

enum units_dim { UNITS_COUNT, UNITS_BYTES, UNITS_TIME };

/* The unit of a metric's stored weights. */
typedef struct units {
	uint8_t dim;       /* enum units_dim */
	double factor;     /* one stored unit in base units (bytes, nanoseconds) */
	const char *name;  /* what JSON output says: "bytes", "nanoseconds",
			      "microseconds", "milliseconds", "seconds", "count" */
} units;

/* The display options every command that prints figures takes. */
typedef struct units_opts {
	bool raw;          /* --raw-units: exact integers, no unit */
	bool iec;          /* --iec: KiB, MiB ... for bytes */
	bool full_names;   /* --full-names: no shortening of names */
} units_opts;

enum { UNITS_OPT_RAW = 512, UNITS_OPT_IEC, UNITS_OPT_FULL_NAMES };
#define UNITS_LONGOPTS \
	{ "raw-units", no_argument, 0, UNITS_OPT_RAW }, \
	{ "iec", no_argument, 0, UNITS_OPT_IEC }, \
	{ "full-names", no_argument, 0, UNITS_OPT_FULL_NAMES }
#define UNITS_HELP \
	"Figures (as go tool pprof prints them: 1.71s, 310.47MB, 2,006):\n" \
	"      --raw-units      exact integers, without units\n" \
	"      --iec            bytes in KiB, MiB, GiB (pprof's kB, MB, GB are\n" \
	"                       1024-based too)\n" \
	"      --full-names     keep C++ and Rust template and parameter lists\n"
/* Sets option c in o: true when c is one of UNITS_LONGOPTS. */
bool units_opts_take(units_opts *o, int c);

/* The unit of metric's weights: from the weight's unit (n bytes at unit;
 * NULL: none) when it names a size or a time as pprof knows them ("bytes",
 * "nanoseconds", "ms" ...), else from the metric's name ("..._bytes",
 * "inuse_space", "..._ns", "cpu_time_ns" ...), else a count. */
units units_of(const char *metric, size_t mlen, const char *unit, size_t ulen);

/* How the cells of one table are printed. */
typedef struct units_scale {
	uint8_t dim;
	bool raw, iec;
	double div;          /* stored units per output unit */
	const char *suffix;  /* "ms", "kB", "" ... */
} units_scale;

/* The output unit for values from min (the smallest nonzero magnitude, 0:
 * none) to max (the largest, usually the total), as pprof's -top chooses
 * it: the unit of min, or when max needs a larger unit and min < max/100,
 * the unit of 100*min. */
units_scale units_pick(const units *u, const units_opts *o, long double min, long double max);
/* The best unit for one value alone. */
units_scale units_auto(const units *u, const units_opts *o, long double v);

/* v in scale s ("1.16MB", "300ms", "0", "12,345", raw: "1216512");
 * buf needs UNITS_BUF bytes; returns the length. */
enum { UNITS_BUF = 64 };
size_t units_fmt(char *buf, long double v, const units_scale *s);
/* The same with a sign always ("+1.5MB", "-300ms", "0"). */
size_t units_fmt_signed(char *buf, long double v, const units_scale *s);

/* part of whole as pprof prints it: "  100%" (99.95 to 100.05),
 * "%5.2f%%" from 1, else "%5.2g%%" (" 0.78%", "    0%"); a negative share
 * (pprof prints magnitudes) with its sign ("-71.85%"). */
size_t units_pct(char *buf, long double part, long double whole);

/* A time for people: t (a time_range bound in unit, "seconds" when NULL)
 * as ISO 8601 UTC ("2026-11-25T09:57:48.087541031Z") when it looks like a
 * wall-clock time (2001 to 2200), else as the reading of a clock whose
 * origin is not known (a monotonic clock): "clock 12.50s". */
void units_time(sbuf *out, long double t, const char *unit);
/* A duration d in unit ("seconds" when NULL), scaled ("502.44ms"). */
void units_duration(sbuf *out, long double d, const char *unit);

/* Appends name shortened as pprof shows C++ and Rust functions: for a name
 * with "::", the template argument lists and the parameter lists are left
 * out ("std::vector<int>::push_back(int const&)" -> "std::vector::push_back");
 * "(anonymous namespace)" and operator names stay.  Other names as they are. */
void units_shorten(const char *name, size_t n, sbuf *out);

#endif
