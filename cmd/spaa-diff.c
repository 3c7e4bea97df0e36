/* spaa-diff - compare two SPAA profiles.
 *
 * Stacks are matched by what they resolve to (their folded paths, fold.h:
 * function and process names), never by ids, so that profiles from different
 * runs and tools compare.  Default output: the three-column folded form of
 * difffolded.pl ("stack BEFORE AFTER", bytewise order), the input of
 * flamegraph.pl's differential graphs.  --top prints a table of the functions
 * whose self and total weights changed most; --json writes the per-function
 * and per-stack figures as NDJSON.
 *
 * Figures are exact: integers, or for a time or a size decimals with as
 * many places as the weights have (speedscope's and Firefox's milliseconds
 * of 1e-6 and 5e-7), kept as integers of 10^-dscale; summed and scaled in
 * 128-bit arithmetic.  Fractional counts (samples) are truncated, as
 * inferno's diff-folded does: a folded file's counts are whole. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "readers/open.h"
#include "cli.h"
#include "fold.h"
#include "jsonw.h"
#include "metric.h"
#include "num.h"
#include "output.h"
#include "spaa.h"
#include "strmap.h"
#include "units.h"
#include "util.h"

typedef __int128 i128;

static const char help_text[] =
	"Usage: spaa-diff [OPTION]... BEFORE AFTER\n"
	"Compare two SPAA profiles stack by stack, matching stacks by their folded\n"
	"names (never by ids).  Default output: \"stack BEFORE AFTER\" lines in bytewise\n"
	"order, as difffolded.pl writes them, for flamegraph.pl differential graphs.\n"
	"Either file may be - for standard input; gzip and zstd are read too.\n"
	"\n"
	"Comparison:\n"
	"      --normalize      scale BEFORE's weights to AFTER's total\n"
	"                       (int(w * total_after / total_before), at the\n"
	"                       weights' last decimal place)\n"
	"      --strip-hex      replace hex addresses (0x1234abcd) in names with 0x...\n"
	"Event and weight (as spaa-fold):\n"
	"      --event=NAME     compare event NAME (default: the first one declared)\n"
	"      --all-events     compare every event, with its name as the root frame\n"
	"  -m, --metric=NAME    weigh by metric NAME (default: the primary metric);\n"
	"                       pprof's names too (inuse_space, alloc_objects, cpu ...)\n"
	FOLD_HELP
	"Output:\n"
	"      --top[=N]        a table of the N (default 10) functions whose weights\n"
	"                       changed most\n"
	"  -n, --lines=N        the table's rows (implies --top; 0: all)\n"
	"      --sort=KEY       rank functions by the change of self (default) or total\n"
	"      --raw-units      the table's figures as exact integers, without units\n"
	"      --iec            its bytes in KiB, MiB, GiB instead of kB, MB, GB\n"
	"      --full-names     keep C++ and Rust template and parameter lists in it\n"
	"  -J, --json           NDJSON: a summary, then function and stack records\n"
	"                       (ranked; only the first N of each with --top or -n)\n"
	READERS_HELP
	CLI_HELP_TAIL;

/* ---- options ---------------------------------------------------------------- */

static fold_opts fo;
static const char *event_opt, *metric_opt, *out_path;
static bool normalize, strip_hex, json, sort_total;
static uint64_t top_n = 10; /* rows of the table; 0: all */
static bool have_top;
static units_opts uo;
static bool shorten;        /* the table's function names as pprof shows them */
static units unit;          /* of the metric's weights (the first side that says) */
static bool have_unit;

/* ---- the tables ------------------------------------------------------------- */

/* Folded path -> weight in each profile. */
static strmap paths;
static i128 (*pw)[2];
static uint32_t npw, pwcap;

/* Function name -> self and total weight in each profile; stamp: the last
 * stack that counted it in its total (recursion counts once per stack). */
typedef struct func { i128 self[2], total[2]; uint64_t stamp; } func;
static strmap funcs;
static func *fn;
static uint32_t nfn, fncap;
static uint64_t stack_no;

static i128 totals[2];
/* The weights are integers of 10^-dscale: the most decimal places a weight
 * has (shortest form of its double), MAX_DSCALE at most. */
#define MAX_DSCALE 18
static int dscale;
static const char *metric_used[2], *event_used[2];


/* --strip-hex on b: every "0x" followed by hex digits becomes "0x...". */
static void strip_hex_in(sbuf *b)
{
	static sbuf t;
	t.n = 0;
	for (size_t i = 0; i < b->n;) {
		if (b->p[i] == '0' && i + 2 < b->n && b->p[i + 1] == 'x' && c_hex(b->p[i + 2])) {
			sbuf_add(&t, "0x...", 5);
			for (i += 2; i < b->n && c_hex(b->p[i]); i++) {}
		} else {
			sbuf_addc(&t, b->p[i++]);
		}
	}
	sbuf swap = *b;
	*b = t;
	t = swap;
}

static uint32_t func_index(const char *p, size_t n)
{
	bool added;
	uint32_t i = strmap_intern(&funcs, p, n, &added);
	if (added) memset(VEC_PUSH(fn, nfn, fncap), 0, sizeof *fn);
	return i;
}

static i128 pow10_i128(int k)
{
	i128 p = 1;
	while (k-- > 0) p *= 10;
	return p;
}

static const char *inputs[2]; /* the two files, for messages */

static noreturn void too_large(void)
{
	die(EXIT_DATA, "%s, %s: weights beyond 128 bits at %d decimal places", inputs[0], inputs[1], dscale);
}

static i128 mul_chk(i128 a, i128 b)
{
	i128 r;
	if (__builtin_mul_overflow(a, b, &r)) too_large();
	return r;
}

static i128 add_chk(i128 a, i128 b)
{
	i128 r;
	if (__builtin_add_overflow(a, b, &r)) too_large();
	return r;
}

/* Every figure in 10^-s (more places than dscale). */
static void rescale(int s)
{
	i128 f = pow10_i128(s - dscale);
	dscale = s;
	for (uint32_t i = 0; i < npw; i++)
		for (int k = 0; k < 2; k++) pw[i][k] = mul_chk(pw[i][k], f);
	for (uint32_t i = 0; i < nfn; i++)
		for (int k = 0; k < 2; k++) {
			fn[i].self[k] = mul_chk(fn[i].self[k], f);
			fn[i].total[k] = mul_chk(fn[i].total[k], f);
		}
	for (int k = 0; k < 2; k++) totals[k] = mul_chk(totals[k], f);
}

/* The weight of a stack in 10^-dscale: a double of a time or a size by
 * the decimal digits of its shortest form (0.0000005: 5 at 7 places), all
 * figures rescaled when it has more places than they, beyond MAX_DSCALE
 * places rounded; a fractional count truncated (warned once per file). */
static i128 weight_of(spaa_reader *r, num v, bool *warned)
{
	if (v.kind == NUM_INT) return mul_chk(v.i, pow10_i128(dscale));
	if (v.kind == NUM_UINT) return mul_chk(v.u, pow10_i128(dscale));
	if (!(v.d > -9.2e18 && v.d < 1.8e19)) spaa_error(r, "weight %g out of range", v.d);
	if (v.d == 0) return 0;
	if (unit.dim == UNITS_COUNT) {
		if (!*warned) {
			*warned = true;
			warn_at(r->name, r->lineno, "fractional weights truncated to integers");
		}
		return v.d < 0 ? -(i128)(uint64_t)(-v.d) : (i128)(uint64_t)v.d;
	}
	char b[40];
	int p = 1;
	for (; p < 17; p++) {
		snprintf(b, sizeof b, "%.*e", p - 1, v.d);
		if (strtod(b, NULL) == v.d) break;
	}
	snprintf(b, sizeof b, "%.*e", p - 1, v.d);
	/* [-]d.ddde[+-]xx: the digits as an integer, and where the point goes */
	i128 d = 0;
	const char *c = b + (b[0] == '-');
	for (; *c && *c != 'e'; c++)
		if (*c >= '0' && *c <= '9') d = d * 10 + (*c - '0');
	int places = (p - 1) - atoi(c + 1);
	while (places > 0 && d % 10 == 0) d /= 10, places--;
	if (places < 0) d *= pow10_i128(-places), places = 0;
	if (places > MAX_DSCALE) {
		i128 q = pow10_i128(places - MAX_DSCALE);
		d = (d + q / 2) / q;
		places = MAX_DSCALE;
	}
	if (b[0] == '-') d = -d;
	if (places > dscale) rescale(places);
	return mul_chk(d, pow10_i128(dscale - places));
}

static void read_profile(const char *path, int side)
{
	spaa_reader *r = spaa_open_any(path);
	fold_opts o = fo;
	fold_cache cache;
	fold_cache_init(&cache);
	spaa_stack s = { 0 };
	sbuf pb = { 0 }, nb = { 0 };
	int32_t ev = -2;
	const char *metric = NULL;
	metric_pick mp;
	metric_pick_init(&mp, NULL, NULL);
	uint64_t skipped = 0;
	bool warned = false;
	/* frame index -> function index + 1 (0 unknown), per java-or-not */
	uint32_t *fcache[2] = { NULL, NULL };
	uint32_t fccap[2] = { 0, 0 };
	uint32_t *sfun = NULL, nsfun = 0, sfcap = 0;

	enum spaa_rtype t;
	while ((t = spaa_next(r)) != SPAA_EOF) {
		if (t == SPAA_HEADER && ev == -2) {
			fold_opts_header(&o, r);
			if (o.all_events) {
				ev = -1;
				event_used[side] = NULL;
			} else {
				ev = fold_pick_event(r, event_opt, false);
				/* copies: the reader's strings go with spaa_close() */
				event_used[side] = ev >= 0 ? xstrdup(r->events[ev].name) : NULL;
			}
			metric = fold_pick_metric(r, ev, metric_opt);
			metric_used[side] = metric ? xstrdup(metric) : NULL;
			mp.want = metric_used[side];
			mp.event = event_used[side];
			continue;
		}
		if (t != SPAA_STACK) continue;
		if (spaa_stack_parse(r, &s) < 0) cli_exit(EXIT_DATA);
		if (!o.all_events && ev >= 0 && s.event != ev) continue;
		const spaa_weight *w = o.all_events
			? spaa_weight_find(s.w, s.nw, fold_pick_metric(r, s.event, metric_opt))
			: metric_find(&mp, s.w, s.nw);
		if (w && !have_unit) {
			unit = metric_units(w, s.event_name.p, s.event_name.n);
			have_unit = true;
			if (!o.all_events && mp.have_unit) unit = mp.unit;
		}
		if (!w) {
			skipped++;
			continue;
		}
		i128 v = weight_of(r, w->value, &warned);

		/* the path */
		pb.n = 0;
		fold_stack_path_cached(&cache, r, &s, &o, &pb);
		if (strip_hex) strip_hex_in(&pb);
		bool added;
		uint32_t pi = strmap_intern(&paths, pb.p, pb.n, &added);
		if (added) memset(VEC_PUSH(pw, npw, pwcap), 0, sizeof *pw);
		pw[pi][side] = add_chk(pw[pi][side], v);
		totals[side] = add_chk(totals[side], v);

		/* the functions: self for the leaf, total once per stack */
		sstr comm = fold_stack_comm(r, &s);
		int java = comm.p && comm.n >= 4 && memcmp(comm.p, "java", 4) == 0;
		stack_no++;
		nsfun = 0;
		for (uint32_t i = 0; i < s.nframes; i++) {
			uint32_t f = spaa_stack_root_frame(r, &s, i);
			if (f >= fccap[java]) {
				uint32_t old = fccap[java];
				grow_array((void **)&fcache[java], &fccap[java], f + 1, sizeof (uint32_t));
				memset(fcache[java] + old, 0, (fccap[java] - old) * sizeof (uint32_t));
			}
			if (!fcache[java][f]) {
				if (fold_frame_hidden(r, f, &o)) {
					fcache[java][f] = UINT32_MAX;
				} else {
					nb.n = 0;
					fold_frame_name(r, f, comm.p, comm.n, &o, &nb);
					if (strip_hex) strip_hex_in(&nb);
					if (shorten) {
						static sbuf sb;
						sb.n = 0;
						units_shorten(nb.p, nb.n, &sb);
						sbuf swap = nb;
						nb = sb;
						sb = swap;
					}
					fcache[java][f] = func_index(nb.p, nb.n) + 1;
				}
			}
			if (fcache[java][f] != UINT32_MAX) *VEC_PUSH(sfun, nsfun, sfcap) = fcache[java][f] - 1;
		}
		for (uint32_t i = 0; i < nsfun; i++) {
			func *x = &fn[sfun[i]];
			if (x->stamp != stack_no) {
				x->stamp = stack_no;
				x->total[side] = add_chk(x->total[side], v);
			}
		}
		if (nsfun) fn[sfun[nsfun - 1]].self[side] = add_chk(fn[sfun[nsfun - 1]].self[side], v);
	}
	spaa_need_header(r);
	if (!o.all_events) {
		metric_check(&mp, r->name, event_used[side]);
		if (mp.used && mp.used != metric_used[side]) { /* an alias: the file's name */
			free((void *)metric_used[side]);
			metric_used[side] = xstrdup(mp.used);
		}
	}
	metric_pick_free(&mp);
	if (skipped)
		warn_at(r->name, 0, "%llu stack%s without metric %s skipped",
			(unsigned long long)skipped, skipped == 1 ? "" : "s", metric_used[side] ? metric_used[side] : metric);
	free(fcache[0]);
	free(fcache[1]);
	free(sfun);
	sbuf_free(&pb);
	sbuf_free(&nb);
	fold_cache_free(&cache);
	spaa_stack_free(&s);
	spaa_close(r);
}

/* The path without its first frame (the process-name root). */
static sstr drop_root(sstr p)
{
	const char *s = memchr(p.p, ';', p.n);
	return s ? (sstr){ s + 1, p.n - (size_t)(s + 1 - p.p) } : SSTR_NULL;
}

/* Refuses what would compare apples with oranges: different metrics, or two
 * profiles with no path in common that would match without the process-name
 * root frame (perf against folded stacks made without it). */
static void check_comparable(const char *a, const char *b)
{
	if (!fo.all_events && metric_used[0] && metric_used[1] && strcmp(metric_used[0], metric_used[1]) != 0)
		die(EXIT_DATA, "%s is weighed by %s, %s by %s: compare one metric both have "
		    "with -m METRIC (e.g. -m samples)", a, metric_used[0], b, metric_used[1]);
	if (fo.no_comm || npw == 0) return;
	bool side[2] = { false, false };
	for (uint32_t i = 0; i < npw; i++) {
		if (pw[i][0] != 0 && pw[i][1] != 0) return; /* a path in common */
		side[0] |= pw[i][0] != 0;
		side[1] |= pw[i][1] != 0;
	}
	if (!side[0] || !side[1]) return;
	/* a path of one side that is another side's path less its root */
	bool match = false;
	for (uint32_t i = 0; i < npw && !match; i++) {
		size_t n;
		const char *k = strmap_key(&paths, i, &n);
		sstr q = drop_root((sstr){ k, n });
		if (!q.p) continue;
		int64_t j = strmap_find(&paths, q.p, q.n);
		int s = pw[i][0] != 0 ? 0 : 1;
		match = j >= 0 && pw[j][1 - s] != 0;
	}
	if (match)
		die(EXIT_DATA, "%s and %s have no stack in common, but would match without their "
		    "first frame: one has a process-name root frame, the other not; try --no-comm", a, b);
}

/* ---- figures ---------------------------------------------------------------- */

static size_t fmt_i128(char *buf, i128 v)
{
	char tmp[48];
	size_t n = 0;
	unsigned __int128 u = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
	do {
		tmp[n++] = (char)('0' + (int)(u % 10));
		u /= 10;
	} while (u);
	size_t k = 0;
	if (v < 0) buf[k++] = '-';
	while (n) buf[k++] = tmp[--n];
	buf[k] = 0;
	return k;
}

static void out_i128(output *o, i128 v)
{
	char b[48];
	out_write(o, b, fmt_i128(b, v));
}

/* A weight: v in 10^-dscale, its decimals without trailing zeros. */
static void out_dec(output *o, i128 v)
{
	if (!dscale) {
		out_i128(o, v);
		return;
	}
	unsigned __int128 u = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
	unsigned __int128 f = (unsigned __int128)pow10_i128(dscale);
	if (v < 0) out_putc(o, '-');
	out_i128(o, (i128)(u / f));
	unsigned __int128 frac = u % f;
	if (!frac) return;
	char b[MAX_DSCALE + 2];
	int n = dscale;
	b[0] = '.';
	for (int i = n; i > 0; i--, frac /= 10) b[i] = (char)('0' + (int)(frac % 10));
	while (n > 0 && b[n] == '0') n--;
	out_write(o, b, (size_t)n + 1);
}

/* int(v * total_after / total_before), truncated toward zero as Perl's
 * int() (at the last decimal place the weights have). */
static i128 scale(i128 v)
{
	if (!normalize || totals[0] == 0) return v;
	unsigned __int128 a = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
	unsigned __int128 b = totals[1] < 0 ? -(unsigned __int128)totals[1] : (unsigned __int128)totals[1];
	unsigned __int128 c = totals[0] < 0 ? -(unsigned __int128)totals[0] : (unsigned __int128)totals[0];
	unsigned __int128 lim = (unsigned __int128)1 << 64;
	if (a >= lim || b >= lim)
		die(EXIT_DATA, "%s, %s: weights too large to normalize (beyond 64 bits)", inputs[0], inputs[1]);
	unsigned __int128 q = a * b / c;
	bool neg = ((v < 0) != (totals[1] < 0)) != (totals[0] < 0);
	return neg ? -(i128)q : (i128)q;
}

static i128 iabs(i128 v) { return v < 0 ? -v : v; }

/* "+12.5%", "-100.0%", "0.0%", "new" (before 0, after not), "" (both 0). */
static void fmt_pct(char *buf, i128 before, i128 after)
{
	if (before == 0) {
		strcpy(buf, after == 0 ? "0.0%" : "new");
		return;
	}
	/* tenths of a percent, rounded half away from zero, exactly */
	i128 d = after - before;
	unsigned __int128 nu = (unsigned __int128)iabs(d) * 2000, den = (unsigned __int128)iabs(before);
	unsigned __int128 t = (nu / den + 1) / 2;
	char digits[48];
	fmt_i128(digits, (i128)(t / 10));
	sprintf(buf, "%s%s.%d%%", d > 0 ? "+" : d < 0 ? "-" : "", digits, (int)(t % 10));
}

/* ---- output ----------------------------------------------------------------- */

static int cmp_paths(const void *a, const void *b)
{
	size_t la, lb;
	const char *pa = strmap_key(&paths, *(const uint32_t *)a, &la);
	const char *pb = strmap_key(&paths, *(const uint32_t *)b, &lb);
	int c = memcmp(pa, pb, la < lb ? la : lb);
	return c ? c : la < lb ? -1 : la > lb;
}

static int cmp_i128_desc(i128 a, i128 b) { return a > b ? -1 : a < b; }

static int cmp_stack_rank(const void *a, const void *b)
{
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	int c = cmp_i128_desc(iabs(pw[i][1] - scale(pw[i][0])), iabs(pw[j][1] - scale(pw[j][0])));
	return c ? c : cmp_paths(a, b);
}

/* Functions: by the absolute change of self (or total), then of the other,
 * then by name. */
static i128 (*fx)[4]; /* scaled self before, self after, total before, total after */

static int cmp_func_rank(const void *a, const void *b)
{
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	i128 si = iabs(fx[i][1] - fx[i][0]), sj = iabs(fx[j][1] - fx[j][0]);
	i128 ti = iabs(fx[i][3] - fx[i][2]), tj = iabs(fx[j][3] - fx[j][2]);
	int c = sort_total ? cmp_i128_desc(ti, tj) : cmp_i128_desc(si, sj);
	if (!c) c = sort_total ? cmp_i128_desc(si, sj) : cmp_i128_desc(ti, tj);
	if (c) return c;
	size_t la, lb;
	const char *pa = strmap_key(&funcs, i, &la), *pb = strmap_key(&funcs, j, &lb);
	c = memcmp(pa, pb, la < lb ? la : lb);
	return c ? c : la < lb ? -1 : la > lb;
}

static void write_folded(output *o, const uint32_t *ord, uint32_t n)
{
	for (uint32_t k = 0; k < n; k++) {
		uint32_t i = ord[k];
		size_t len;
		const char *p = strmap_key(&paths, i, &len);
		out_write(o, p, len);
		out_putc(o, ' ');
		out_dec(o, scale(pw[i][0]));
		out_putc(o, ' ');
		out_dec(o, pw[i][1]);
		out_putc(o, '\n');
	}
}

static long double ld(i128 v) { return (long double)v / (long double)pow10_i128(dscale); }

/* "EVENT/METRIC: before 1.20s, after 1.50s, delta +300ms (+25.0%)": both
 * totals above the table, in its unit. */
static void write_totals(output *o, const units_scale *sc)
{
	char b[UNITS_BUF], p[48];
	i128 before = scale(totals[0]), after = totals[1];
	const char *ev = event_used[1] ? event_used[1] : event_used[0];
	if (fo.all_events) ev = "*";
	else if (event_used[0] && event_used[1] && strcmp(event_used[0], event_used[1]) != 0) ev = NULL;
	out_printf(o, "%s%s%s: before ", ev ? ev : "", ev ? "/" : "",
		   metric_used[1] ? metric_used[1] : metric_used[0] ? metric_used[0] : "samples");
	out_write(o, b, units_fmt(b, ld(before), sc));
	out_puts(o, ", after ");
	out_write(o, b, units_fmt(b, ld(after), sc));
	out_puts(o, ", delta ");
	out_write(o, b, units_fmt_signed(b, ld(after - before), sc));
	fmt_pct(p, before, after);
	out_printf(o, " (%s)%s\n", p, normalize && totals[0] != 0 ? ", BEFORE normalized to AFTER's total" : "");
}

static void write_table(output *o, const uint32_t *ord, uint32_t n)
{
	static const char *hdr[8] = { "SELF_DELTA", "SELF_%", "TOTAL_DELTA", "TOTAL_%",
				      "SELF_BEFORE", "SELF_AFTER", "TOTAL_BEFORE", "TOTAL_AFTER" };
	/* one unit for the table, as pprof picks it: from its smallest figure
	 * to the larger total */
	long double min = 0, max = ld(iabs(scale(totals[0])));
	if (ld(iabs(totals[1])) > max) max = ld(iabs(totals[1]));
	for (uint32_t k = 0; k < n; k++) {
		const i128 *x = fx[ord[k]];
		i128 f[6] = { x[1] - x[0], x[3] - x[2], x[0], x[1], x[2], x[3] };
		for (int c = 0; c < 6; c++) {
			long double a = ld(iabs(f[c]));
			if (a > 0 && (min == 0 || a < min)) min = a;
		}
	}
	units_scale sc = units_pick(&unit, &uo, min, max);
	write_totals(o, &sc);
	char (*cell)[8][UNITS_BUF] = xmalloc((n ? n : 1) * sizeof *cell);
	size_t width[8];
	for (int c = 0; c < 8; c++) width[c] = strlen(hdr[c]);
	for (uint32_t k = 0; k < n; k++) {
		const i128 *x = fx[ord[k]];
		units_fmt_signed(cell[k][0], ld(x[1] - x[0]), &sc);
		fmt_pct(cell[k][1], x[0], x[1]);
		units_fmt_signed(cell[k][2], ld(x[3] - x[2]), &sc);
		fmt_pct(cell[k][3], x[2], x[3]);
		for (int c = 0; c < 4; c++) units_fmt(cell[k][4 + c], ld(x[c]), &sc);
		for (int c = 0; c < 8; c++)
			if (strlen(cell[k][c]) > width[c]) width[c] = strlen(cell[k][c]);
	}
	for (int c = 0; c < 8; c++) out_printf(o, "%*s  ", (int)width[c], hdr[c]);
	out_puts(o, "FUNCTION\n");
	for (uint32_t k = 0; k < n; k++) {
		for (int c = 0; c < 8; c++) out_printf(o, "%*s  ", (int)width[c], cell[k][c]);
		size_t len;
		const char *p = strmap_key(&funcs, ord[k], &len);
		out_write(o, p, len);
		out_putc(o, '\n');
	}
	free(cell);
}

static void jw_i128(output *o, const char *key, i128 v)
{
	jw_key(o, key, false);
	out_i128(o, v);
}

static void jw_dec(output *o, const char *key, i128 v)
{
	jw_key(o, key, false);
	out_dec(o, v);
}

static uint32_t nstacks;

static void write_json(output *o, const char *before, const char *after,
		       const uint32_t *ford, uint32_t nf, const uint32_t *sord, uint32_t ns)
{
	out_puts(o, "{\"type\":\"summary\"");
	jw_key(o, "before", false);
	jw_strc(o, before);
	jw_key(o, "after", false);
	jw_strc(o, after);
	for (int side = 0; side < 2; side++) {
		jw_key(o, side ? "event_after" : "event_before", false);
		if (event_used[side]) jw_strc(o, event_used[side]);
		else out_puts(o, fo.all_events ? "\"*\"" : "null");
		jw_key(o, side ? "metric_after" : "metric_before", false);
		jw_strc(o, metric_used[side] ? metric_used[side] : "samples");
	}
	jw_key(o, "unit", false);
	jw_strc(o, have_unit ? unit.name : "count");
	jw_key(o, "normalized", false);
	out_puts(o, normalize && totals[0] != 0 ? "true" : "false");
	jw_dec(o, "total_before", scale(totals[0]));
	jw_dec(o, "total_after", totals[1]);
	jw_dec(o, "total_delta", totals[1] - scale(totals[0]));
	jw_i128(o, "functions", nfn);
	jw_i128(o, "stacks", nstacks);
	out_puts(o, "}\n");
	for (uint32_t k = 0; k < nf; k++) {
		const i128 *x = fx[ford[k]];
		size_t len;
		const char *p = strmap_key(&funcs, ford[k], &len);
		out_puts(o, "{\"type\":\"function\",\"name\":");
		jw_str(o, p, len);
		jw_dec(o, "self_before", x[0]);
		jw_dec(o, "self_after", x[1]);
		jw_dec(o, "self_delta", x[1] - x[0]);
		jw_dec(o, "total_before", x[2]);
		jw_dec(o, "total_after", x[3]);
		jw_dec(o, "total_delta", x[3] - x[2]);
		out_puts(o, "}\n");
	}
	for (uint32_t k = 0; k < ns; k++) {
		uint32_t i = sord[k];
		size_t len;
		const char *p = strmap_key(&paths, i, &len);
		out_puts(o, "{\"type\":\"stack\",\"stack\":");
		jw_str(o, p, len);
		jw_dec(o, "before", scale(pw[i][0]));
		jw_dec(o, "after", pw[i][1]);
		jw_dec(o, "delta", pw[i][1] - scale(pw[i][0]));
		out_puts(o, "}\n");
	}
}

/* ---- main ------------------------------------------------------------------- */

int main(int argc, char **argv)
{
	cli_init(argc, argv);
	enum { O_STRIP = FOLD_OPT_END, O_TOP, O_SORT, O_NORM };
	static const struct option longopts[] = {
		{ "normalize", no_argument, 0, O_NORM },
		{ "lines", required_argument, 0, 'n' },
		{ "strip-hex", no_argument, 0, O_STRIP },
		{ "event", required_argument, 0, 'e' },
		{ "metric", required_argument, 0, 'm' },
		FOLD_LONGOPTS,
		{ "top", optional_argument, 0, O_TOP },
		{ "sort", required_argument, 0, O_SORT },
		{ "json", no_argument, 0, 'J' },
		UNITS_LONGOPTS,
		CLI_OUT_LONGOPTS,
		READERS_LONGOPTS,
		CLI_STD_LONGOPTS,
		{ 0, 0, 0, 0 }
	};
	fo.inline_mode = -1;
	int c;
	bool zstd = false;
	while ((c = getopt_long(argc, argv, "m:n:so:zJhV", longopts, NULL)) != -1) {
		if (fold_opts_take(&fo, c, optarg) || units_opts_take(&uo, c)) continue;
		switch (c) {
		case O_NORM: normalize = true; break;
		case 'n': have_top = true; top_n = opt_u64("-n", optarg); break;
		case O_STRIP: strip_hex = true; break;
		case 'e': event_opt = optarg; break;
		case 'm': metric_opt = optarg; break;
		case O_TOP:
			have_top = true;
			if (optarg) top_n = opt_u64("--top", optarg);
			break;
		case O_SORT:
			if (strcmp(optarg, "self") == 0) sort_total = false;
			else if (strcmp(optarg, "total") == 0) sort_total = true;
			else usage_error("--sort: unknown key '%s' (self or total)", optarg);
			break;
		case 'J': json = true; break;
		CLI_OUT_CASES(out_path, zstd);
		READERS_OPT_CASES;
		CLI_STD_CASES(help_text);
		}
	}
	if (argc - optind != 2)
		usage_error(argc - optind < 2 ? "two files needed: BEFORE AFTER" : "too many arguments (two files: BEFORE AFTER)");
	if (event_opt && fo.all_events) usage_error("--event and --all-events exclude each other");
	cli_stdin_once(argv + optind, 2);
	shorten = have_top && !json && !uo.full_names;
	/* inline_mode < 0: the default, per file, as spaa-fold (see fold.h) */

	strmap_init(&paths);
	strmap_init(&funcs);
	output *o = output_open(out_path, zstd);
	inputs[0] = argv[optind], inputs[1] = argv[optind + 1];
	read_profile(argv[optind], 0);
	read_profile(argv[optind + 1], 1);
	check_comparable(argv[optind], argv[optind + 1]);
	if (normalize && totals[0] == 0)
		warn_at(argv[optind], 0, "total weight is 0: --normalize leaves the weights as they are");

	/* the stacks with a weight on either side, bytewise */
	uint32_t *sord = xmalloc((npw ? npw : 1) * sizeof *sord), ns = 0;
	for (uint32_t i = 0; i < npw; i++)
		if (pw[i][0] != 0 || pw[i][1] != 0) sord[ns++] = i;
	xqsort(sord, ns, sizeof *sord, cmp_paths);

	nstacks = ns;
	if (!have_top && !json) {
		write_folded(o, sord, ns);
	} else {
		fx = xmalloc((nfn ? nfn : 1) * sizeof *fx);
		uint32_t *ford = xmalloc((nfn ? nfn : 1) * sizeof *ford), nf = 0;
		for (uint32_t i = 0; i < nfn; i++) {
			fx[i][0] = scale(fn[i].self[0]);
			fx[i][1] = fn[i].self[1];
			fx[i][2] = scale(fn[i].total[0]);
			fx[i][3] = fn[i].total[1];
			if (fx[i][2] != 0 || fx[i][3] != 0 || fx[i][0] != 0 || fx[i][1] != 0) ford[nf++] = i;
		}
		xqsort(ford, nf, sizeof *ford, cmp_func_rank);
		uint32_t nft = have_top && top_n && top_n < nf ? (uint32_t)top_n : nf;
		if (json) {
			xqsort(sord, ns, sizeof *sord, cmp_stack_rank);
			uint32_t nst = have_top && top_n && top_n < ns ? (uint32_t)top_n : ns;
			write_json(o, argv[optind], argv[optind + 1], ford, nft, sord, nst);
		} else {
			write_table(o, ford, nft);
		}
		free(ford);
		free(fx);
	}
	output_close(o);
	free(sord);
	free(pw);
	free(fn);
	strmap_free(&paths);
	strmap_free(&funcs);
	return EXIT_OK;
}
