/* test_json.c - unit tests for the JSON parser (json.c) and writer (jsonw.c).
 *
 * (a) JSONTestSuite: every y_* file must parse (and round-trip through
 *     jw_node), every n_* file must be rejected, i_* files must merely not
 *     crash.  The files are in $SPAA_TESTDATA/json.
 * (b) Exact tests of numbers, strings, escapes, errors, lookup and writing.
 *
 * Output is TAP; the last line is "N passed, N failed"; exit status 0 only if
 * everything passed. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json.h"
#include "jsonw.h"
#include "output.h"
#include "num.h"
#include "tap.h"

static json_doc doc;
static char tmpdir[64];
static unsigned cap_seq;

/* ---- helpers ------------------------------------------------------------ */

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0, k;
	if (!f)
		return NULL;
	for (;;) {
		if (cap - n < 4096) {
			cap = cap ? cap * 2 : 8192;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
		k = fread(buf + n, 1, cap - n, f);
		n += k;
		if (k == 0)
			break;
	}
	fclose(f);
	*len = n;
	return buf;
}

/* Output capture: open an output on a fresh file, let the caller write,
 * close it and read the bytes back (NUL-terminated, caller frees). */
static char *cap_path;
static output *cap_begin(void)
{
	static char path[128];
	snprintf(path, sizeof path, "%s/out%u", tmpdir, cap_seq++);
	cap_path = path;
	return output_open(path, false);
}

static char *cap_end(output *o, size_t *len)
{
	size_t n;
	char *s;
	output_close(o);
	s = read_file(cap_path, &n);
	unlink(cap_path);
	if (!s)
		return NULL;
	s = realloc(s, n + 1);
	s[n] = '\0';
	if (len)
		*len = n;
	return s;
}

static char *node_text(const json_doc *d, uint32_t k, size_t *len)
{
	output *o = cap_begin();
	jw_node(o, d, k);
	return cap_end(o, len);
}

static char *str_text(const char *s, size_t n)
{
	output *o = cap_begin();
	jw_str(o, s, n);
	return cap_end(o, NULL);
}

static char *num_text(num v)
{
	output *o = cap_begin();
	jw_num(o, v);
	return cap_end(o, NULL);
}

static int parse(const char *s)
{
	return json_parse(&doc, s, strlen(s));
}

/* Checks the tape's structure: next/count consistent for the subtree at k.
 * Returns the index after the subtree, or 0 on inconsistency. */
static uint32_t check_tape(const json_doc *d, uint32_t k)
{
	const json_node *x = &d->nodes[k];
	uint32_t c, n = 0;
	if (k >= d->n)
		return 0;
	switch (x->type) {
	case JSON_ARRAY:
		for (c = k + 1; c < x->next; n++) {
			c = check_tape(d, c);
			if (!c)
				return 0;
		}
		return c == x->next && n == x->count ? x->next : 0;
	case JSON_OBJECT:
		for (c = k + 1; c < x->next; n++) {
			if (d->nodes[c].type != JSON_STRING || d->nodes[c].next != c + 1)
				return 0;
			c = check_tape(d, c + 1);
			if (!c)
				return 0;
		}
		return c == x->next && n == x->count ? x->next : 0;
	default:
		return x->next == k + 1 ? k + 1 : 0;
	}
}

static bool tape_ok(const json_doc *d)
{
	return d->n > 0 && check_tape(d, 0) == d->n;
}

/* ---- (a) JSONTestSuite ---------------------------------------------------- */

static int cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_suite(void)
{
	const char *base = getenv("SPAA_TESTDATA");
	char dir[4096];
	DIR *dh;
	struct dirent *e;
	char **names = NULL;
	size_t nn = 0, i;
	unsigned ny = 0, nnn = 0, ni = 0;

	snprintf(dir, sizeof dir, "%s/json", base && *base ? base : "tests/data");
	dh = opendir(dir);
	if (!ok(dh != NULL, "JSONTestSuite directory %s opens", dir)) {
		diag("opendir: %s (set SPAA_TESTDATA)", strerror(errno));
		return;
	}
	while ((e = readdir(dh)) != NULL) {
		size_t l = strlen(e->d_name);
		if (l < 7 || strcmp(e->d_name + l - 5, ".json") != 0 || e->d_name[1] != '_')
			continue;
		names = realloc(names, (nn + 1) * sizeof *names);
		names[nn++] = strdup(e->d_name);
	}
	closedir(dh);
	qsort(names, nn, sizeof *names, cmpstr);
	ok(nn >= 300, "JSONTestSuite has %zu files", nn);

	for (i = 0; i < nn; i++) {
		char path[8192];
		size_t len;
		char *text;
		int r;

		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		text = read_file(path, &len);
		if (!text) {
			ok(false, "read %s: %s", names[i], strerror(errno));
			free(names[i]);
			continue;
		}
		/* exact-size copy so that ASan sees any read past the end */
		char *exact = malloc(len ? len : 1);
		memcpy(exact, text, len);
		r = json_parse(&doc, exact, len);
		switch (names[i][0]) {
		case 'y':
			ny++;
			if (!ok(r == 0 && tape_ok(&doc), "accepts %s", names[i]))
				diag("error at %zu: %s", doc.err_pos, doc.err_msg);
			if (r == 0) {
				/* compact re-serialisation parses to the same text again */
				size_t l1, l2;
				char *t1 = node_text(&doc, 0, &l1), *t2 = NULL;
				int r2 = json_parse(&doc, t1, l1);
				if (r2 == 0)
					t2 = node_text(&doc, 0, &l2);
				ok(r2 == 0 && t2 && l1 == l2 && memcmp(t1, t2, l1) == 0,
				   "round trip of %s", names[i]);
				free(t1);
				free(t2);
			}
			break;
		case 'n':
			nnn++;
			ok(r == -1 && doc.err_msg && doc.err_pos <= len,
			   "rejects %s (%s at %zu)", names[i],
			   doc.err_msg ? doc.err_msg : "accepted", doc.err_pos);
			break;
		default:
			ni++;
			ok(r == 0 ? tape_ok(&doc) : doc.err_msg != NULL,
			   "does not crash on %s (%s)", names[i],
			   r == 0 ? "accepted" : doc.err_msg);
			break;
		}
		free(exact);
		free(text);
		free(names[i]);
	}
	free(names);
	diag("JSONTestSuite: %u y_, %u n_, %u i_ files", ny, nnn, ni);
}

/* ---- (b) exact tests ------------------------------------------------------ */

static void test_numbers(void)
{
	char *t;

	ok(parse("-9223372036854775808") == 0 && doc.nodes[0].type == JSON_INT &&
	   doc.nodes[0].v.i == INT64_MIN, "int64 min is JSON_INT");
	ok(parse("9223372036854775807") == 0 && doc.nodes[0].type == JSON_INT &&
	   doc.nodes[0].v.i == INT64_MAX, "int64 max is JSON_INT");
	ok(parse("9223372036854775808") == 0 && doc.nodes[0].type == JSON_UINT &&
	   doc.nodes[0].v.u == (uint64_t)INT64_MAX + 1, "int64 max + 1 is JSON_UINT");
	ok(parse("-9223372036854775809") == 0 && doc.nodes[0].type == JSON_DOUBLE &&
	   doc.nodes[0].v.d == -9223372036854775809.0, "int64 min - 1 is JSON_DOUBLE");
	ok(parse("18446744073709551615") == 0 && doc.nodes[0].type == JSON_UINT &&
	   doc.nodes[0].v.u == UINT64_MAX, "uint64 max is JSON_UINT");
	t = node_text(&doc, 0, NULL);
	is_str(t, "18446744073709551615", "uint64 max written back identically");
	free(t);
	ok(parse("[18446744073709551615]") == 0 && doc.nodes[1].type == JSON_UINT,
	   "uint64 max in an array");
	t = node_text(&doc, 0, NULL);
	is_str(t, "[18446744073709551615]", "... and written back");
	free(t);
	ok(parse("18446744073709551616") == 0 && doc.nodes[0].type == JSON_DOUBLE &&
	   doc.nodes[0].v.d == 18446744073709551616.0, "uint64 max + 1 is JSON_DOUBLE");
	ok(parse("-18446744073709551616") == 0 && doc.nodes[0].type == JSON_DOUBLE,
	   "-(uint64 max + 1) is JSON_DOUBLE");
	ok(parse("123456789012345678901234567890") == 0 && doc.nodes[0].type == JSON_DOUBLE &&
	   doc.nodes[0].v.d == 123456789012345678901234567890.0, "30-digit integer is JSON_DOUBLE");
	t = node_text(&doc, 0, NULL);
	is_str(t, "123456789012345678901234567890", "... written with its raw text");
	free(t);
	ok(parse("0") == 0 && doc.nodes[0].type == JSON_INT && doc.nodes[0].v.i == 0, "0");
	ok(parse("-0") == 0 && doc.nodes[0].type == JSON_INT && doc.nodes[0].v.i == 0 &&
	   doc.nodes[0].num_len == 2 && memcmp(doc.nodes[0].str, "-0", 2) == 0,
	   "-0 is JSON_INT 0 with raw text -0");
	ok(parse("-0.0") == 0 && doc.nodes[0].type == JSON_DOUBLE && doc.nodes[0].v.d == 0 &&
	   signbit(doc.nodes[0].v.d), "-0.0 is a negative zero double");
	ok(parse("123.456") == 0 && doc.nodes[0].type == JSON_DOUBLE &&
	   doc.nodes[0].v.d == 123.456, "123.456");
	ok(parse("1E2") == 0 && doc.nodes[0].type == JSON_DOUBLE && doc.nodes[0].v.d == 100,
	   "1E2 is a double 100");
	ok(parse("2.5e-3") == 0 && doc.nodes[0].v.d == 2.5e-3, "2.5e-3");
	ok(parse("1e+308") == 0 && doc.nodes[0].v.d == 1e308, "1e+308");
	ok(parse("4.9e-324") == 0 && doc.nodes[0].v.d == 4.9e-324, "4.9e-324 (denormal)");
	ok(parse("0.1") == 0 && doc.nodes[0].v.d == 0.1, "0.1");
	ok(parse("1.7976931348623157e308") == 0 && doc.nodes[0].v.d == 1.7976931348623157e308,
	   "largest double");
	ok(parse("  42  ") == 0 && doc.nodes[0].type == JSON_INT && doc.nodes[0].v.i == 42 &&
	   doc.nodes[0].num_len == 2 && doc.nodes[0].str[0] == '4', "number raw text excludes blanks");

	static const char *bad[] = {
		"01", "-01", "00", "-", "+1", ".5", "1.", "1.e5", "1e", "1e+", "1e-",
		"0x1", "1ee2", "--1", "-a", "Infinity", "NaN", "1.5.", "1 2", ("\xef\xbb\xbf" "1"),
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		ok(parse(bad[i]) == -1, "rejects number '%s' (%s)", bad[i],
		   doc.err_msg ? doc.err_msg : "accepted");
	}

	/* the fast double path agrees with strtod bit for bit */
	unsigned long seed = 12345;
	unsigned bad_n = 0;
	for (int i = 0; i < 200000; i++) {
		char buf[64];
		int pos = 0, nd;
		seed = seed * 6364136223846793005UL + 1442695040888963407UL;
		if (seed >> 63)
			buf[pos++] = '-';
		nd = 1 + (int)((seed >> 40) % 19);
		int dot = (int)((seed >> 20) % (unsigned)nd);
		unsigned long r = seed;
		for (int j = 0; j < nd; j++) {
			r = r * 2862933555777941757UL + 3037000493UL;
			int dg = (int)((r >> 33) % 10);
			if (j == 0 && dg == 0 && (dot > 0 || nd > 1))
				dg = 1;
			buf[pos++] = (char)('0' + dg);
			if (j == dot && j != nd - 1)
				buf[pos++] = '.';
		}
		if ((seed >> 10) & 1)
			pos += snprintf(buf + pos, sizeof buf - (size_t)pos, "e%d",
					(int)((seed >> 12) % 61) - 30);
		buf[pos] = '\0';
		if (json_parse(&doc, buf, (size_t)pos) != 0) {
			if (bad_n++ < 5)
				diag("random number %s rejected: %s", buf, doc.err_msg);
			continue;
		}
		double want = strtod(buf, NULL), got;
		if (doc.nodes[0].type == JSON_DOUBLE)
			got = doc.nodes[0].v.d;
		else if (doc.nodes[0].type == JSON_INT)
			got = (double)doc.nodes[0].v.i;
		else
			got = (double)doc.nodes[0].v.u;
		if (memcmp(&got, &want, sizeof got) != 0 &&
		    !(doc.nodes[0].type != JSON_DOUBLE && got == want)) {
			if (bad_n++ < 5)
				diag("random number %s: got %.17g want %.17g", buf, got, want);
		}
	}
	ok(bad_n == 0, "200000 random decimals agree with strtod");

	/* random integers of every length, alone and inside a line (the
	 * parser has a word-at-a-time path when 8 bytes are available) */
	bad_n = 0;
	for (int i = 0; i < 200000; i++) {
		char buf[64], digs[32];
		int nl = 0, len;
		seed = seed * 6364136223846793005UL + 1442695040888963407UL;
		int nd = 1 + (int)((seed >> 40) % 21);
		bool neg = (seed >> 62) & 1;
		unsigned long r = seed;
		if (neg)
			digs[nl++] = '-';
		for (int j = 0; j < nd; j++) {
			r = r * 2862933555777941757UL + 3037000493UL;
			int dg = (int)((r >> 33) % 10);
			if (j == 0 && nd > 1 && dg == 0)
				dg = 9;
			digs[nl++] = (char)('0' + dg);
		}
		digs[nl] = '\0';
		if ((seed >> 8) & 1)
			len = snprintf(buf, sizeof buf, "%s", digs);
		else
			len = snprintf(buf, sizeof buf, "[%s,\"padding\"]", digs);
		int rc = json_parse(&doc, buf, (size_t)len);
		uint32_t at = buf[0] == '[' ? 1 : 0;
		errno = 0;
		bool ok1 = rc == 0 && doc.nodes[at].num_len == (uint32_t)nl &&
			   memcmp(doc.nodes[at].str, digs, (size_t)nl) == 0;
		if (ok1 && neg) {
			long long want = strtoll(digs, NULL, 10);
			if (errno == ERANGE)
				ok1 = doc.nodes[at].type == JSON_DOUBLE && doc.nodes[at].v.d == strtod(digs, NULL);
			else
				ok1 = doc.nodes[at].type == JSON_INT && doc.nodes[at].v.i == want;
		} else if (ok1) {
			unsigned long long want = strtoull(digs, NULL, 10);
			if (errno == ERANGE)
				ok1 = doc.nodes[at].type == JSON_DOUBLE && doc.nodes[at].v.d == strtod(digs, NULL);
			else if (want > (unsigned long long)INT64_MAX)
				ok1 = doc.nodes[at].type == JSON_UINT && doc.nodes[at].v.u == want;
			else
				ok1 = doc.nodes[at].type == JSON_INT && doc.nodes[at].v.i == (int64_t)want;
		}
		if (!ok1 && bad_n++ < 5)
			diag("random integer %s in %s: wrong", digs, buf);
	}
	ok(bad_n == 0, "200000 random integers agree with strtoll/strtoull");

	int64_t v;
	ok(parse("[-5,1.0,9223372036854775808,\"3\"]") == 0, "json_int64 input");
	ok(json_int64(&doc, 1, &v) && v == -5, "json_int64 on an integer");
	ok(!json_int64(&doc, 2, &v), "json_int64 false on a double");
	ok(!json_int64(&doc, 3, &v), "json_int64 false on JSON_UINT (out of range)");
	ok(!json_int64(&doc, 4, &v), "json_int64 false on a string");
}

static void test_strings(void)
{
	static const char in[] = "{\"key\":\"a\\nb\\u00e9\\\"\\\\\\/\\b\\f\\r\\t\",\"plain\":\"xyz\"}";
	char copy[sizeof in];
	uint32_t k;

	memcpy(copy, in, sizeof in);
	ok(parse(copy) == 0, "string escapes parse");
	ok(memcmp(copy, in, sizeof in) == 0, "input text unchanged");
	k = json_get(&doc, 0, "key");
	ok(k == 2, "json_get finds key");
	is_mem(doc.nodes[k].str, doc.nodes[k].count, "a\nb\xc3\xa9\"\\/\b\f\r\t", 12,
	       "escapes decoded");
	ok(doc.nodes[k].str >= doc.scratch && doc.nodes[k].str < doc.scratch + doc.scratch_len,
	   "decoded string lives in scratch");
	ok(doc.nodes[1].str == copy + 2 && doc.nodes[1].count == 3, "key without escapes points into input");
	k = json_get(&doc, 0, "plain");
	ok(k && doc.nodes[k].str == copy + strlen(copy) - 5, "plain value points into input");

	ok(parse("\"\\ud83d\\ude00\"") == 0, "surrogate pair parses");
	is_mem(doc.nodes[0].str, doc.nodes[0].count, "\xf0\x9f\x98\x80", 4, "surrogate pair -> F0 9F 98 80");
	/* no NUL in a string, one rule for every reader and writer (utf8.h) */
	ok(parse("\"a\\u0000b\\u0000\"") == 0 && doc.nuls == 2, "\\u0000 parses, and is counted");
	is_mem(doc.nodes[0].str, doc.nodes[0].count, "a\xef\xbf\xbd" "b\xef\xbf\xbd", 8, "\\u0000 decodes to U+FFFD");
	ok(parse("\"\\u0001\"") == 0 && doc.nuls == 0, "the count is per parse");
	ok(parse("\"\\u20AC\\u20ac\"") == 0, "upper and lower case hex");
	is_mem(doc.nodes[0].str, doc.nodes[0].count, "\xe2\x82\xac\xe2\x82\xac", 6, "U+20AC twice");
	ok(parse("\"\\uDBFF\\uDFFF\"") == 0, "U+10FFFF by surrogates");
	is_mem(doc.nodes[0].str, doc.nodes[0].count, "\xf4\x8f\xbf\xbf", 4, "U+10FFFF bytes");
	ok(parse("\"\xf0\x9f\x98\x80 \xc3\xa9 \xe2\x82\xac \xf4\x8f\xbf\xbf\"") == 0,
	   "raw valid UTF-8 accepted");
	ok(parse("\"\"") == 0 && doc.nodes[0].type == JSON_STRING && doc.nodes[0].count == 0,
	   "empty string");

	/* many escaped strings in one line after a short one: scratch grows once,
	 * and every decoded string stays valid */
	{
		char *big = malloc(200000), *p = big;
		int i, n = 5000;
		ok(parse("\"\\n\"") == 0, "short escaped string first");
		p += sprintf(p, "[");
		for (i = 0; i < n; i++)
			p += sprintf(p, "%s\"s%d\\t\\u00e9\"", i ? "," : "", i);
		p += sprintf(p, "]");
		ok(json_parse(&doc, big, (size_t)(p - big)) == 0 && doc.nodes[0].count == (uint32_t)n,
		   "line with %d escaped strings parses", n);
		int bad = 0;
		for (i = 0; i < n; i++) {
			char want[32];
			int wl = sprintf(want, "s%d\t\xc3\xa9", i);
			const json_node *x = &doc.nodes[1 + i];
			if (x->count != (uint32_t)wl || memcmp(x->str, want, (size_t)wl) != 0)
				bad++;
		}
		ok(bad == 0, "all %d decoded strings intact", n);
		free(big);
	}

	static const struct { const char *in; const char *msg; size_t pos; } bad[] = {
		{ "\"a\x01\"", "control character in string", 2 },
		{ "\"a\tb\"", "control character in string", 2 },
		{ "\"\\x\"", "invalid escape", 1 },
		{ "\"\\u12G4\"", "invalid \\u escape", 1 },
		{ "\"\\u12\"", "invalid \\u escape", 1 },
		{ "\"\\ud800\"", "lone surrogate in \\u escape", 1 },
		{ "\"\\ud800\\u0041\"", "lone surrogate in \\u escape", 1 },
		{ "\"\\ud800\\ud800\"", "lone surrogate in \\u escape", 1 },
		{ "\"x\\udc00\"", "lone surrogate in \\u escape", 2 },
		{ "\"\xc0\xaf\"", "invalid UTF-8 in string", 1 },          /* overlong */
		{ "\"\xe0\x80\xaf\"", "invalid UTF-8 in string", 1 },      /* overlong */
		{ "\"\xf0\x80\x80\xaf\"", "invalid UTF-8 in string", 1 },  /* overlong */
		{ "\"ab\xed\xa0\x80\"", "invalid UTF-8 in string", 3 },    /* surrogate */
		{ "\"\xf4\x90\x80\x80\"", "invalid UTF-8 in string", 1 },  /* > U+10FFFF */
		{ "\"\xf5\x80\x80\x80\"", "invalid UTF-8 in string", 1 },
		{ "\"\xe2\x82\"", "invalid UTF-8 in string", 1 },          /* truncated */
		{ "\"\x80\"", "invalid UTF-8 in string", 1 },              /* lone continuation */
		{ "\"\xff\"", "invalid UTF-8 in string", 1 },
		{ "\"\\n\xff\"", "invalid UTF-8 in string", 3 },           /* in the decoding path */
		{ "\"abc", "unexpected end of line", 4 },
		{ "\"abc\\", "unexpected end of line", 5 },
		{ "\"\\u12", "unexpected end of line", 5 },
		{ "'a'", "expected a value", 0 },
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		int r = parse(bad[i].in);
		ok(r == -1 && doc.err_msg && strcmp(doc.err_msg, bad[i].msg) == 0 &&
		   doc.err_pos == bad[i].pos, "bad string %zu: %s at %zu (got %s at %zu)", i,
		   bad[i].msg, bad[i].pos, r ? doc.err_msg : "success", doc.err_pos);
	}
}

static void test_structure(void)
{
	static const char *line =
		"{\"type\":\"stack\",\"id\":\"0xabc\",\"frames\":[101,102,[1,{\"x\":2}]],"
		"\"context\":{\"event\":\"cycles\"},\"weights\":[{\"metric\":\"period\",\"value\":12345}],"
		"\"empty\":{},\"none\":[],\"t\":true,\"f\":false,\"n\":null}";
	uint32_t k, w;
	int64_t v;

	ok(parse(line) == 0 && tape_ok(&doc), "SPAA stack line parses");
	ok(doc.nodes[0].type == JSON_OBJECT && doc.nodes[0].count == 10 && doc.nodes[0].next == doc.n,
	   "root object: 10 members, next = n");
	k = json_get(&doc, 0, "type");
	ok(json_is_str(&doc, k, "stack", 5), "json_get type = stack");
	k = json_get(&doc, 0, "frames");
	ok(k && doc.nodes[k].type == JSON_ARRAY && doc.nodes[k].count == 3, "frames: 3 elements");
	ok(json_get(&doc, k, "x") == 0, "json_get on an array is 0");
	ok(json_get(&doc, 0, "x") == 0, "json_get does not look into nested objects");
	ok(json_get(&doc, 0, "missing") == 0, "json_get of a missing key is 0");
	ok(json_get(&doc, 0, "typ") == 0 && json_get(&doc, 0, "types") == 0, "json_get compares lengths");
	{
		static const char *const keys[] = { "none", "typ", "frames", "x", "type", "n", "types", "t" };
		uint32_t got[8];
		bool same = true;
		json_get_keys(&doc, 0, keys, 8, got);
		for (int i = 0; i < 8; i++) same = same && got[i] == json_get(&doc, 0, keys[i]);
		ok(same && got[0] && !got[1] && !got[3] && !got[6], "json_get_keys finds what json_get finds");
		json_get_keys(&doc, k, keys, 8, got);
		ok(!got[2] && !got[4], "json_get_keys on an array finds nothing");
	}
	ok(parse("{\"a\":1,\"a\":2,\"\":3}") == 0, "repeated and empty keys parse");
	{
		static const char *const keys[] = { "a" };
		uint32_t got[1];
		json_get_keys(&doc, 0, keys, 1, got);
		ok(got[0] == 2 && doc.nodes[2].v.i == 1, "json_get_keys takes the first of a repeated key");
	}
	ok(parse(line) == 0, "the stack line again");
	/* next skips whole subtrees: the key after "frames"'s value is "context" */
	ok(json_is_str(&doc, doc.nodes[k].next, "context", 7), "node.next skips the frames subtree");
	{
		uint32_t e = json_first(&doc, k), i = 0;
		int64_t want[2] = { 101, 102 };
		for (; i < 2; i++, e = json_after(&doc, e))
			ok(json_int64(&doc, e, &v) && v == want[i], "frames[%u] = %" PRId64, i, want[i]);
		ok(doc.nodes[e].type == JSON_ARRAY && doc.nodes[e].count == 2 &&
		   json_after(&doc, e) == doc.nodes[k].next, "frames[2] is the last element");
	}
	w = json_get(&doc, 0, "weights");
	w = json_first(&doc, w);
	ok(doc.nodes[w].type == JSON_OBJECT, "weights[0] is an object");
	k = json_get(&doc, w, "value");
	ok(json_int64(&doc, k, &v) && v == 12345, "weights[0].value = 12345");
	k = json_get(&doc, 0, "context");
	ok(json_is_str(&doc, json_get(&doc, k, "event"), "cycles", 6), "context.event = cycles");
	k = json_get(&doc, 0, "empty");
	ok(doc.nodes[k].type == JSON_OBJECT && doc.nodes[k].count == 0 && doc.nodes[k].next == k + 1,
	   "empty object");
	k = json_get(&doc, 0, "none");
	ok(doc.nodes[k].type == JSON_ARRAY && doc.nodes[k].count == 0 && doc.nodes[k].next == k + 1,
	   "empty array");
	ok(doc.nodes[json_get(&doc, 0, "t")].type == JSON_TRUE &&
	   doc.nodes[json_get(&doc, 0, "f")].type == JSON_FALSE &&
	   doc.nodes[json_get(&doc, 0, "n")].type == JSON_NULL, "literals");
	char *t = node_text(&doc, 0, NULL);
	is_str(t, line, "jw_node writes a compact line back identically");
	free(t);
	k = json_get(&doc, 0, "weights");
	t = node_text(&doc, k, NULL);
	is_str(t, "[{\"metric\":\"period\",\"value\":12345}]", "jw_node of a subtree");
	free(t);

	/* duplicate keys: the first one wins */
	ok(parse("{\"a\":1,\"a\":2}") == 0 && json_int64(&doc, json_get(&doc, 0, "a"), &v) && v == 1,
	   "json_get returns the first of duplicate keys");
	/* escaped key is compared decoded */
	ok(parse("{\"\\u0061b\":7}") == 0 && json_int64(&doc, json_get(&doc, 0, "ab"), &v) && v == 7,
	   "json_get compares the decoded key");

	/* whitespace and compaction */
	ok(parse(" \t\r\n{ \"a\" : [ 1 , 2.50 , \"\\u00e9\\/\" ] , \"b\" : { } }\r\n ") == 0,
	   "all four whitespace characters");
	t = node_text(&doc, 0, NULL);
	is_str(t, "{\"a\":[1,2.50,\"\xc3\xa9/\"],\"b\":{}}", "jw_node output is compact, numbers raw");
	free(t);
	ok(parse("\f1") == -1, "form feed is not whitespace");
	ok(parse("1\v") == -1, "vertical tab is not whitespace");

	/* errors and their positions */
	static const struct { const char *in; const char *msg; size_t pos; } bad[] = {
		{ "", "unexpected end of line", 0 },
		{ "   ", "unexpected end of line", 3 },
		{ "{\"a\":1,}", "expected string key", 7 },
		{ "{\"a\" 1}", "expected ':'", 5 },
		{ "{\"a\":1 \"b\":2}", "expected ',' or '}'", 7 },
		{ "[1 2]", "expected ',' or ']'", 3 },
		{ "[1,2", "unexpected end of line", 4 },
		{ "[1,]", "expected a value", 3 },
		{ "{\"type\":\"stack\"} x", "trailing characters after value", 17 },
		{ "{} {}", "trailing characters after value", 3 },
		{ "[tru]", "invalid literal", 1 },
		{ "nul", "invalid literal", 0 },
		{ "{1:2}", "expected string key", 1 },
		{ "[01]", "invalid number", 2 },
		{ "[1.]", "invalid number", 3 },
		{ "{\"a\":-}", "invalid number", 6 },
		{ "]", "expected a value", 0 },
		{ "{\"a\":1}\0", "trailing characters after value", 7 },
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		size_t len = strlen(bad[i].in) + (i == sizeof bad / sizeof *bad - 1);
		int r = json_parse(&doc, bad[i].in, len);
		ok(r == -1 && doc.err_msg && strcmp(doc.err_msg, bad[i].msg) == 0 &&
		   doc.err_pos == bad[i].pos, "bad input %zu: %s at %zu (got %s at %zu)", i,
		   bad[i].msg, bad[i].pos, r ? doc.err_msg : "success", doc.err_pos);
	}

	/* nesting: JSON_MAX_DEPTH (128) levels are fine, one more is an error */
	char deep[2 * (JSON_MAX_DEPTH + 1) + 8];
	int d;
	for (d = 0; d < JSON_MAX_DEPTH; d++) {
		deep[d] = '[';
		deep[2 * JSON_MAX_DEPTH - 1 - d] = ']';
	}
	ok(json_parse(&doc, deep, 2 * JSON_MAX_DEPTH) == 0 && doc.n == JSON_MAX_DEPTH && tape_ok(&doc),
	   "%d nested arrays parse", JSON_MAX_DEPTH);
	{
		/* 128 nested objects {"a":{"a":...{}...}} */
		static char obj[8 * (JSON_MAX_DEPTH + 2)];
		char *p = obj;
		for (d = 0; d < JSON_MAX_DEPTH - 1; d++)
			p += sprintf(p, "{\"a\":");
		p += sprintf(p, "{}");
		for (d = 0; d < JSON_MAX_DEPTH - 1; d++)
			*p++ = '}';
		ok(json_parse(&doc, obj, (size_t)(p - obj)) == 0 && tape_ok(&doc),
		   "%d nested objects parse", JSON_MAX_DEPTH);
		p = obj;
		for (d = 0; d < JSON_MAX_DEPTH; d++)
			p += sprintf(p, "{\"a\":");
		p += sprintf(p, "{}");
		for (d = 0; d < JSON_MAX_DEPTH; d++)
			*p++ = '}';
		ok(json_parse(&doc, obj, (size_t)(p - obj)) == -1 &&
		   strcmp(doc.err_msg, "nesting too deep") == 0 && doc.err_pos == 5 * JSON_MAX_DEPTH,
		   "%d nested objects: nesting too deep at %d", JSON_MAX_DEPTH + 1, 5 * JSON_MAX_DEPTH);
	}
	for (d = 0; d <= JSON_MAX_DEPTH; d++) {
		deep[d] = '[';
		deep[2 * JSON_MAX_DEPTH + 1 - d] = ']';
	}
	ok(json_parse(&doc, deep, 2 * JSON_MAX_DEPTH + 2) == -1 &&
	   strcmp(doc.err_msg, "nesting too deep") == 0 && doc.err_pos == JSON_MAX_DEPTH,
	   "%d nested arrays: nesting too deep at %d", JSON_MAX_DEPTH + 1, JSON_MAX_DEPTH);

	/* reuse: a big line then a small one, and a failed parse then a good one */
	{
		size_t n = 100000, i;
		char *big = malloc(2 * n + 2);
		big[0] = '[';
		for (i = 0; i < n; i++) {
			big[1 + 2 * i] = '7';
			big[2 + 2 * i] = ',';
		}
		big[2 * n] = ']';
		ok(json_parse(&doc, big, 2 * n + 1) == 0 && doc.n == n + 1 && doc.nodes[0].count == n &&
		   tape_ok(&doc), "array of %zu numbers", n);
		free(big);
		ok(parse("[1,") == -1 && parse("{\"a\":[true]}") == 0 && doc.n == 4 && tape_ok(&doc),
		   "parse after an error and after a big line");
	}
}

static void test_writer(void)
{
	char *t;
	static const char ctl[] = "q\"b\\s/\n\r\t\b\f\x01\x1f\x7f";
	t = str_text(ctl, sizeof ctl - 1);
	is_str(t, "\"q\\\"b\\\\s/\\n\\r\\t\\b\\f\\u0001\\u001f\x7f\"",
	       "jw_str escapes quotes, backslash and control characters");
	free(t);
	t = str_text("a\0b", 3);
	is_str(t, "\"a\xef\xbf\xbd" "b\"", "jw_str writes NUL as U+FFFD");
	free(t);
	t = str_text("", 0);
	is_str(t, "\"\"", "jw_str of an empty string");
	free(t);
	t = str_text("caf\xc3\xa9 \xf0\x9f\x98\x80 \xe2\x82\xac", 14);
	is_str(t, "\"caf\xc3\xa9 \xf0\x9f\x98\x80 \xe2\x82\xac\"", "jw_str keeps valid UTF-8");
	free(t);
	t = str_text("a\xff" "b", 3);
	is_str(t, "\"a\xef\xbf\xbd" "b\"", "jw_str: invalid byte -> U+FFFD");
	free(t);
	t = str_text("a\xe2\x82", 3);
	is_str(t, "\"a\xef\xbf\xbd\"", "jw_str: truncated sequence -> one U+FFFD");
	free(t);
	t = str_text("\xe2\x82z", 3);
	is_str(t, "\"\xef\xbf\xbdz\"", "jw_str: truncated sequence before ASCII -> one U+FFFD");
	free(t);
	t = str_text("\xed\xa0\x80", 3);
	is_str(t, "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"", "jw_str: encoded surrogate -> U+FFFD x3");
	free(t);
	t = str_text("\xc0\xaf", 2);
	is_str(t, "\"\xef\xbf\xbd\xef\xbf\xbd\"", "jw_str: overlong -> U+FFFD x2");
	free(t);
	t = str_text("/usr/lib/x86_64-linux-gnu/libc.so.6 \"quoted\" and a long tail....",
		     strlen("/usr/lib/x86_64-linux-gnu/libc.so.6 \"quoted\" and a long tail...."));
	is_str(t, "\"/usr/lib/x86_64-linux-gnu/libc.so.6 \\\"quoted\\\" and a long tail....\"",
	       "jw_str of a long string");
	free(t);

	{
		/* jw_str output always parses back to the same bytes (valid input) */
		static const char *samples[] = { "plain", "tab\there", "\x01\x02\x03", "\"\"\\\\",
			"\xf0\x9f\x98\x80\xf0\x9f\x98\x80 12345678", "std::vector<int>::operator[](unsigned long)" };
		for (size_t i = 0; i < sizeof samples / sizeof *samples; i++) {
			size_t l;
			t = str_text(samples[i], strlen(samples[i]));
			l = strlen(t);
			ok(json_parse(&doc, t, l) == 0 &&
			   json_is_str(&doc, 0, samples[i], strlen(samples[i])),
			   "jw_str round trip %zu", i);
			free(t);
		}
	}

	output *o = cap_begin();
	out_putc(o, '{');
	jw_key(o, "a", true);
	jw_num(o, num_i(-5));
	jw_key(o, "b\"", false);
	jw_strc(o, "x");
	out_putc(o, '}');
	t = cap_end(o, NULL);
	is_str(t, "{\"a\":-5,\"b\\\"\":\"x\"}", "jw_key and jw_num");
	free(t);

	t = num_text(num_i(INT64_MIN));
	is_str(t, "-9223372036854775808", "jw_num int64 min");
	free(t);
	t = num_text(num_u(UINT64_MAX));
	is_str(t, "18446744073709551615", "jw_num uint64 max");
	free(t);
	t = num_text(num_d(1.5));
	is_str(t, "1.5", "jw_num 1.5");
	free(t);
	t = num_text(num_d(0.1));
	is_str(t, "0.1", "jw_num 0.1");
	free(t);
}

int main(void)
{
	snprintf(tmpdir, sizeof tmpdir, "%s", "/tmp/test_json.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	json_doc_init(&doc);
	test_suite();
	test_numbers();
	test_strings();
	test_structure();
	test_writer();
	json_doc_free(&doc);
	rmdir(tmpdir);
	return done_testing();
}
