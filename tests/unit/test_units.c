/* test_units.c - unit tests of common/base/units: pprof's scaling, its table
 * unit choice, percentages, counts, times and shortened names. */
#include <stdio.h>
#include <string.h>

#include "metric.h"
#include "units.h"
#include "tap.h"

static const char *fmt(const char *metric, const char *unit, long double min, long double max,
		       long double v, const units_opts *o)
{
	static char b[UNITS_BUF];
	units u = units_of(metric, strlen(metric), unit, unit ? strlen(unit) : 0);
	units_scale s = units_pick(&u, o, min, max);
	units_fmt(b, v, &s);
	return b;
}

static const char *pct(long double part, long double whole)
{
	static char b[16];
	units_pct(b, part, whole);
	return b;
}

static const char *shorten(const char *name)
{
	static sbuf b;
	b.n = 0;
	units_shorten(name, strlen(name), &b);
	sbuf_addc(&b, 0);
	return b.p;
}

int main(void)
{
	units_opts none = { 0 }, raw = { .raw = true }, iec = { .iec = true };
	/* go tool pprof -top examples/go-cpu.pprof: 300ms ... of 320ms */
	is_str(fmt("cpu", "nanoseconds", 10000000, 320000000, 300000000, &none), "300ms", "cpu in ms");
	is_str(fmt("cpu", "nanoseconds", 10000000, 320000000, 0, &none), "0", "zero is 0");
	/* inuse_space: min 9.25kB, total 1181.80kB -> kB */
	is_str(fmt("live_bytes", NULL, 9472, 1210163, 1192257, &none), "1164.31kB", "bytes in kB");
	is_str(fmt("live_bytes", "bytes", 9472, 1210163, 1210163, &iec), "1181.80KiB", "--iec");
	/* min not below max/100: the unit of min */
	is_str(fmt("alloc_bytes", "bytes", 204800, 20046827, 20046827, &none), "19576.98kB", "kB kept");
	is_str(fmt("alloc_bytes", "bytes", 0, 325549877, 325549877, &none), "310.47MB", "one value: MB");
	is_str(fmt("x", "seconds", 0, 1.71L, 1.71L, &none), "1.71s", "seconds");
	is_str(fmt("x", "ms", 0, 7200000, 7200000, &none), "2hrs", "hours as pprof");
	is_str(fmt("alloc_count", NULL, 1, 2395, 2006, &none), "2,006", "count with a separator");
	is_str(fmt("samples", NULL, 1, 1, 1234567890123LL, &none), "1,234,567,890,123", "long count");
	is_str(fmt("samples", NULL, 1, 1, -1234567, &none), "-1,234,567", "negative count");
	is_str(fmt("samples", NULL, 1, 1, 999, &none), "999", "short count");
	is_str(fmt("cpu", "nanoseconds", 1, 1, 18446744073709551615.0L, &raw), "18446744073709551615", "raw: exact");
	is_str(fmt("cpu", "nanoseconds", 1, 1, 1.5L, &none), "1.50ns", "fraction");
	{
		char b[UNITS_BUF];
		units u = units_of("cpu", 3, "nanoseconds", 11);
		units_scale s = units_pick(&u, &none, 1e6, 1e6);
		units_fmt_signed(b, 2500000, &s);
		is_str(b, "+2.50ms", "signed +");
		units_fmt_signed(b, -2500000, &s);
		is_str(b, "-2.50ms", "signed -");
	}
	is_str(pct(320, 320), "  100%", "100 percent");
	is_str(pct(300, 320), "93.75%", "93.75 percent");
	is_str(pct(9472, 1210163), " 0.78%", "below 1: two digits");
	is_str(pct(0, 320), "    0%", "0 percent");
	is_str(pct(1, 0), "    0%", "whole 0");
	is_str(pct(-10616, 14776), "-71.85%", "a negative share keeps its sign");
	is_str(pct(-1, 1000), " -0.1%", "small negative");
	is_str(units_of("inuse_space", 11, NULL, 0).name, "bytes", "inuse_space is bytes");
	is_str(units_of("period", 6, "events", 6).name, "count", "events are counts");
	{
		sbuf b = { 0 };
		units_time(&b, 1795600668087541031.0L, "nanoseconds");
		units_duration(&b, 502437998, "nanoseconds");
		sbuf_addc(&b, 0);
		is_str(b.p, "2026-11-25T09:57:48.087541031Z502.44ms", "ISO 8601 start and a duration");
		b.n = 0;
		units_time(&b, 12.5L, "seconds");
		sbuf_addc(&b, 0);
		is_str(b.p, "clock 12.50s", "not a wall clock");
		sbuf_free(&b);
	}
	is_str(shorten("std::vector<int, std::allocator<int> >::push_back(int const&)"),
	       "std::vector::push_back", "C++ templates and parameters");
	is_str(shorten("Foo::bar() const"), "Foo::bar", "const method");
	is_str(shorten("(anonymous namespace)::Shape::area(double)"), "(anonymous namespace)::Shape::area",
	       "anonymous namespace kept");
	is_str(shorten("std::operator<<(std::ostream&, int)"), "std::operator<<", "operator<<");
	is_str(shorten("Foo::operator()(int)"), "Foo::operator()", "operator()");
	is_str(shorten("core::ptr::drop_in_place<alloc::vec::Vec<u8>>"), "core::ptr::drop_in_place", "Rust generics");
	is_str(shorten("<alloc::vec::Vec<T> as core::ops::Drop>::drop"), "<alloc::vec::Vec as core::ops::Drop>::drop",
	       "Rust trait impl");
	is_str(shorten("compress/gzip.(*Writer).Write"), "compress/gzip.(*Writer).Write", "Go untouched");
	is_str(shorten("foo (app.js:12)"), "foo (app.js:12)", "JS untouched");
	/* the metric names users know */
	is_str(metric_resolve("inuse_space", NULL), "live_bytes", "inuse_space");
	is_str(metric_resolve("alloc_objects", "live_bytes"), "alloc_count", "alloc_objects");
	is_str(metric_resolve("cpu", "period"), "period", "cpu: perf's period when primary");
	is_str(metric_resolve("cpu", "cpu"), "cpu", "cpu: pprof's cpu");
	is_str(metric_resolve("cpu", "wall_us"), "wall_us", "cpu: V8's wall_us");
	is_str(metric_resolve("samples", "count"), "count", "samples: DTrace's count");
	is_str(metric_resolve("leaked", NULL), "live_bytes", "heaptrack's leaked");
	is_str(metric_resolve("period", "period"), "period", "no alias: as it is");
	{
		/* a pick: the first stack that has a name decides; misses counted */
		metric_pick m;
		metric_pick_init(&m, "cpu", "cpu-clock");
		spaa_weight w1[1] = { { { "samples", 7 }, { NULL, 0 }, { .kind = NUM_INT, .i = 3 } } };
		spaa_weight w2[2] = { { { "samples", 7 }, { NULL, 0 }, { .kind = NUM_INT, .i = 1 } },
				      { { "period", 6 }, { NULL, 0 }, { .kind = NUM_INT, .i = 1000 } } };
		ok(metric_find(&m, w1, 1) == NULL, "a stack without it: none");
		ok(metric_find(&m, w2, 2) == &w2[1], "cpu found as period");
		is_str(metric_pick_name(&m), "period", "the file's name");
		is_str(m.unit.name, "nanoseconds", "cpu-clock periods are nanoseconds");
		is_int((int64_t)m.missing, 1, "one stack missed it");
		metric_pick_free(&m);
	}
	return done_testing();
}
