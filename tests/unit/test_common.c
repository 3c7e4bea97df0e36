/* test_common.c - unit tests of common/: numbers, integers, interning,
 * stack identity, input (plain, gzip, zstd, long lines), atomic output, and
 * a builder -> reader round trip. */
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>
#include <zlib.h>
#include <zstd.h>

#include "build.h"
#include "heapsnap.h"
#include "input.h"
#include "jsonbuf.h"
#include "naming.h"
#include "num.h"
#include "output.h"
#include "pb.h"
#include "readers/registry.h"
#include "rootpath.h"
#include "sniff.h"
#include "spaa.h"
#include "stackid.h"
#include "strmap.h"
#include "utf8.h"
#include "util.h"
#include "wsum.h"
#include "tap.h"

static char tmpdir[] = "/tmp/spaa-unit-XXXXXX";

static char *tmp_path(const char *name)
{
	static char buf[256];
	snprintf(buf, sizeof buf, "%s/%s", tmpdir, name);
	return buf;
}

static void write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	fwrite(p, 1, n, f);
	fclose(f);
}

static void test_num(void)
{
	char buf[32];
	num a = num_i(INT64_MAX);
	ok(num_add(&a, num_i(1)) && a.kind == NUM_UINT && a.u == (uint64_t)INT64_MAX + 1, "int64 max + 1 becomes uint");
	a = num_u(UINT64_MAX);
	ok(!num_add(&a, num_i(1)) && a.u == UINT64_MAX, "uint64 max + 1 overflows, value kept");
	is_str((buf[num_fmt(buf, num_u(UINT64_MAX))] = 0, buf), "18446744073709551615", "uint64 max formats exactly");
	a = num_i(INT64_MIN);
	ok(!num_add(&a, num_i(-1)), "int64 min - 1 overflows");
	a = num_u(UINT64_MAX);
	ok(num_add(&a, num_i(-5)) && a.u == UINT64_MAX - 5, "uint + negative stays exact");
	is_str((buf[num_fmt(buf, num_d(14.2343983248722834234))] = 0, buf), "14.234398324872284", "double shortest form");
	is_str((buf[num_fmt(buf, num_d(20.0))] = 0, buf), "20", "integral double prints as integer");
	is_str((buf[num_fmt(buf, num_d(0.00001))] = 0, buf), "0.00001", "small double without exponent");
	is_str((buf[num_fmt(buf, num_d(1e16))] = 0, buf), "10000000000000000", "large integral double without exponent");
	/* integral doubles beyond the integers a reader takes as integers keep a
	 * fraction, so that they read back as numbers in range (issue 20) */
	is_str((buf[num_fmt(buf, num_d(18446744073709551616.0))] = 0, buf), "18446744073709551616.0", "2^64 as a double keeps .0");
	is_str((buf[num_fmt(buf, num_d(-9223372036854775808.0))] = 0, buf), "-9223372036854775808", "-2^63 as a double is an integer");
	is_str((buf[num_fmt(buf, num_d(-9223372036854777856.0))] = 0, buf), "-9223372036854777856.0", "below -2^63 keeps .0");
	ok(num_cmp(num_u(UINT64_MAX), num_i(-1)) > 0, "compare uint with negative int");
}

static void test_ints(void)
{
	uint64_t u;
	int64_t i;
	/* the formatters against printf, at every length */
	char a[32], b[32];
	bool same = true;
	for (uint64_t v = 1, k = 0; k < 64; k++, v = v * 3 + k) {
		uint64_t vs[] = { 0, 9, 10, 99, 100, v, v - 1, UINT64_MAX, (uint64_t)1 << k };
		for (size_t j = 0; j < sizeof vs / sizeof *vs; j++) {
			a[fmt_u64(a, vs[j])] = 0;
			snprintf(b, sizeof b, "%llu", (unsigned long long)vs[j]);
			same = same && strcmp(a, b) == 0;
			a[fmt_hex(a, vs[j], 1)] = 0;
			snprintf(b, sizeof b, "0x%llx", (unsigned long long)vs[j]);
			same = same && strcmp(a, b) == 0;
			a[fmt_hex(a, vs[j], 16)] = 0;
			snprintf(b, sizeof b, "0x%016llx", (unsigned long long)vs[j]);
			same = same && strcmp(a, b) == 0;
		}
	}
	ok(same, "fmt_u64 and fmt_hex write what printf writes");
	a[fmt_i64(a, INT64_MIN)] = 0;
	is_str(a, "-9223372036854775808", "fmt_i64 of the least int64");
	ok(parse_u64("18446744073709551615", 20, &u) && u == UINT64_MAX, "parse u64 max");
	ok(!parse_u64("18446744073709551616", 20, &u), "u64 overflow rejected");
	ok(parse_i64("-9223372036854775808", 20, &i) && i == INT64_MIN, "parse i64 min");
	ok(!parse_i64("9223372036854775808", 19, &i), "i64 overflow rejected");
	ok(!parse_u64("", 0, &u) && !parse_u64("1x", 2, &u), "junk rejected");
}

static void test_strmap(void)
{
	strmap m;
	strmap_init(&m);
	char key[32];
	bool added, all = true;
	for (int i = 0; i < 100000; i++) {
		int n = snprintf(key, sizeof key, "k%d", i);
		if (strmap_intern(&m, key, (size_t)n, &added) != (uint32_t)i || !added) all = false;
	}
	ok(all, "100000 keys get dense indices in order");
	ok(strmap_intern(&m, "k77", 3, &added) == 77 && !added, "existing key found");
	ok(strmap_find(&m, "nope", 4) == -1, "absent key");
	size_t n;
	is_str(strmap_key(&m, 99999, &n), "k99999", "key by index");
	/* a batch: hashes first, prefetches, then lookups with those hashes */
	const char *batch[] = { "k5", "k99998", "new1", "", "k5" };
	uint32_t h[5];
	for (int i = 0; i < 5; i++) {
		h[i] = strmap_hash(batch[i], strlen(batch[i]));
		strmap_prefetch(&m, h[i]);
	}
	for (int i = 0; i < 5; i++) strmap_prefetch_key(&m, h[i]);
	uint32_t got[5];
	bool fresh[5];
	for (int i = 0; i < 5; i++) got[i] = strmap_intern_h(&m, batch[i], strlen(batch[i]), h[i], &fresh[i]);
	ok(got[0] == 5 && got[1] == 99998 && got[2] == 100000 && got[3] == 100001 && got[4] == 5 &&
	   !fresh[0] && fresh[2] && fresh[3] && !fresh[4], "batched lookups with precomputed hashes");
	ok(strmap_find(&m, "", 0) == 100001 && strmap_find(&m, "new", 3) == -1, "empty key and a prefix");
	strmap_free(&m);
}

static void test_jsonbuf(void)
{
	sbuf b = { 0 };
	jb_str(&b, "a\"b\\c\n\x01\xc3\xa9\xff!", 11);
	is_mem(b.p, b.n, "\"a\\\"b\\\\c\\n\\u0001\xc3\xa9\xef\xbf\xbd!\"", 23,
	       "jb_str escapes, keeps UTF-8, replaces a bad byte with U+FFFD");
	b.n = 0;
	jb_str(&b, "a\0b", 3);
	is_mem(b.p, b.n, "\"a\xef\xbf\xbd" "b\"", 7, "jb_str writes NUL as U+FFFD");
	sbuf_free(&b);
}

static void test_utf8(void)
{
	static const struct { const char *s; size_t n, want; } cases[] = {
		{ "plain ascii, longer than a word", 31, 31 },
		{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 15, 15 },
		{ "abcdefgh\xff", 9, 8 },
		{ "ab\xc3", 3, 2 },             /* cut short */
		{ "\xed\xa0\x80x", 4, 0 },      /* a surrogate */
		{ "\xc0\xaf", 2, 0 },            /* overlong */
		{ "abcdefghijklmno\xf4\x90\x80\x80", 19, 15 }, /* beyond U+10FFFF */
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const uint8_t *p = (const uint8_t *)cases[i].s;
		ok(utf8_valid_len(p, p + cases[i].n) == cases[i].want, "utf8_valid_len case %zu", i);
	}
}

static void test_pb(void)
{
	/* field 1 varint 150, field 2 "hi", field 3 packed 1 300, field 4 fixed64 */
	static const uint8_t m[] = { 0x08, 0x96, 0x01, 0x12, 2, 'h', 'i', 0x1a, 3, 0x01, 0xac, 0x02,
				     0x21, 1, 0, 0, 0, 0, 0, 0, 0x80 };
	pb_reader r = pb_init(m, sizeof m);
	pb_field f;
	ok(pb_next(&r, m, &f) == 1 && f.num == 1 && f.wire == PB_VARINT && f.v == 150, "pb varint field");
	ok(pb_next(&r, m, &f) == 1 && f.num == 2 && f.len == 2 && f.data == m + 5 && f.off == 3, "pb bytes field");
	ok(pb_next(&r, m, &f) == 1 && f.num == 3, "pb packed field");
	pb_ints it;
	uint64_t v1 = 0, v2 = 0, v3;
	ok(pb_ints_init(&it, &f) && pb_ints_next(&it, &v1) == 1 && pb_ints_next(&it, &v2) == 1 &&
	   pb_ints_next(&it, &v3) == 0 && v1 == 1 && v2 == 300, "pb packed varints");
	ok(pb_next(&r, m, &f) == 1 && f.num == 4 && f.v == 0x8000000000000001ULL, "pb fixed64, little endian");
	ok(pb_next(&r, m, &f) == 0, "pb end of message");
	/* the largest varint, one byte too many, a length beyond the end, a group */
	static const uint8_t big[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };
	static const uint8_t over[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02 };
	uint64_t v;
	r = pb_init(big, sizeof big);
	ok(pb_varint(&r, &v) && v == UINT64_MAX, "pb varint 2^64-1");
	r = pb_init(over, sizeof over);
	ok(!pb_varint(&r, &v), "pb varint beyond 64 bits refused");
	static const uint8_t cut[] = { 0x12, 5, 'a' }, group[] = { 0x0b, 0x0c };
	r = pb_init(cut, sizeof cut);
	ok(pb_next(&r, cut, &f) == -1, "pb length beyond the end refused");
	r = pb_init(group, sizeof group);
	ok(pb_next(&r, group, &f) == -1, "pb group refused");
}

static void test_stackid(void)
{
	/* FNV-1a 64 of "a": 0xaf63dc4c8601ec8c (the published test vector) */
	ok(fnv1a64(FNV64_BASIS, "a", 1) == 0xaf63dc4c8601ec8cULL, "FNV-1a 64 test vector");
	/* main;work in /bin/app, event cycles, comm app, pid 1, tid 2:
	 * the hash of the documented byte string, computed independently */
	const char path[] = "main\x1f/bin/app\x1fp\x1ework\x1f/bin/app\x1fp\x1e";
	uint64_t want_path = fnv1a64(FNV64_BASIS, path, sizeof path - 1);
	const char ctx[] = "event=cycles\x1e" "comm=app\x1e" "pid=1\x1e" "tid=2\x1e";
	uint64_t want_id = fnv1a64(want_path, ctx, sizeof ctx - 1);
	stackid_frame f1 = { sstr_c("main"), sstr_c("/bin/app"), SSTR_NULL, false };
	stackid_frame f2 = { sstr_c("work"), sstr_c("/bin/app"), SSTR_NULL, false };
	uint64_t h = stackid_add_frame(stackid_add_frame(FNV64_BASIS, &f1), &f2);
	ok(h == want_path, "path hash follows the documented bytes");
	/* a memo gives the step it saw for the state it saw, and nothing else */
	stackid_memo m = { 0, 0 };
	uint64_t s = FNV64_BASIS;
	ok(!stackid_memo_get(&m, &s) && s == FNV64_BASIS, "an empty memo has no step");
	uint64_t after = stackid_add_frame(s, &f1);
	stackid_memo_set(&m, s, after);
	ok(stackid_memo_get(&m, &s) && s == after && stackid_add_frame(s, &f2) == want_path,
	   "a memo takes the step it saw");
	uint64_t other = 12345;
	ok(!stackid_memo_get(&m, &other) && other == 12345, "a memo does not take another state");
	stackid_ctx c = { sstr_c("cycles"), SSTR_NULL, sstr_c("app"), true, true, 1, 2 };
	ok(stackid_add_ctx(h, &c) == want_id, "stack id follows the documented bytes");
	char buf[20];
	ok(stackid_fmt(buf, 0xabcULL) == 18 && strcmp(buf, "0x0000000000000abc") == 0, "id text form");
	uint64_t v = 0;
	ok(stackid_parse(buf, 18, &v) && v == 0xabcULL, "id text parsed back");
	ok(stackid_parse("0xffffffffffffffff", 18, &v) && v == UINT64_MAX, "largest id parsed");
	ok(!stackid_parse("0x0000000000000ABC", 18, &v), "upper-case hex is no content id");
	ok(!stackid_parse("0x000000000000abc", 17, &v) && !stackid_parse("1x0000000000000abc", 18, &v) &&
	   !stackid_parse("0x000000000000abcg", 18, &v), "short, unprefixed or non-hex text is none");
}

static void test_wsum(void)
{
	wsums W;
	wsums_init(&W);
	uint32_t a = 0, b = 0, bad = 99;
	spaa_weight w1[] = { { sstr_c("cycles"), sstr_c("events"), num_i(5) }, { sstr_c("samples"), SSTR_NULL, num_i(1) } };
	spaa_weight w2[] = { { sstr_c("samples"), sstr_c("count"), num_i(2) }, { sstr_c("cycles"), SSTR_NULL, num_i(7) } };
	ok(wsums_add_weights(&W, &a, w1, 2, &bad) && wsums_add_weights(&W, &a, w2, 2, &bad), "weights summed");
	ok(wsums_add_weights(&W, &b, w2, 1, &bad), "a second list in the same pool");
	uint32_t c = wsums_find(&W, a, "cycles", 6), s = wsums_find(&W, a, "samples", 7);
	ok(c && wsums_at(&W, c)->v.i == 12 && s && wsums_at(&W, s)->v.i == 3, "one sum per metric");
	ok(a == c && wsums_at(&W, c)->next == s && wsums_at(&W, s)->next == 0, "metrics in the order they came");
	size_t n;
	const char *u = strmap_key(&W.names, wsums_at(&W, c)->unit, &n);
	ok(n == 6 && memcmp(u, "events", 6) == 0 && wsums_at(&W, s)->unit == UINT32_MAX, "the first weight's unit kept");
	uint32_t bs = wsums_find(&W, b, "samples", 7);
	ok(bs && bs != s && wsums_at(&W, bs)->v.i == 2 && !wsums_find(&W, b, "cycles", 6), "lists apart");
	ok(!wsums_find(&W, a, "bytes", 5) && !wsums_find(&W, 0, "cycles", 6), "no sum: 0");
	sbuf t = { 0 };
	wsums_json(&W, c, &t);
	sbuf_addc(&t, ' ');
	wsums_json(&W, s, &t);
	sbuf_addc(&t, 0); /* (an sbuf's text ends at its n, not at a NUL) */
	is_str(t.p, "{\"metric\":\"cycles\",\"value\":12,\"unit\":\"events\"} {\"metric\":\"samples\",\"value\":3}",
	       "a sum as a weight object, with its unit or without");
	sbuf_free(&t);
	spaa_weight big[] = { { sstr_c("bytes"), SSTR_NULL, num_i(1) }, { sstr_c("cycles"), SSTR_NULL, num_u(UINT64_MAX) } };
	ok(!wsums_add_weights(&W, &a, big, 2, &bad) && bad == 1, "an overflow says which weight");

	json_doc d;
	json_doc_init(&d);
	const char *js = "{\"weights\":[{\"metric\":\"samples\",\"value\":4,\"unit\":\"u\"},{\"metric\":\"wall\","
			 "\"value\":1.5,\"unit\":\"s\"},{\"metric\":3,\"value\":1},{\"metric\":\"x\",\"value\":\"1\"},7],"
			 "\"big\":[{\"metric\":\"samples\",\"value\":18446744073709551615}]}";
	uint32_t mark = W.n, j = 0;
	sstr why = SSTR_NULL;
	ok(json_parse(&d, js, strlen(js)) == 0, "window weights parsed");
	uint32_t arr = json_get(&d, 0, "weights");
	ok(wsums_add_json(&W, &j, &d, 0, &why) && wsums_add_json(&W, &j, &d, json_get(&d, arr + 1, "value"), &why) &&
	   j == 0, "no array: nothing added");
	ok(wsums_add_json(&W, &j, &d, arr, &why) && wsums_add_json(&W, &j, &d, arr, &why), "window weights added");
	uint32_t js1 = wsums_find(&W, j, "samples", 7), js2 = wsums_find(&W, j, "wall", 4);
	ok(js1 == j && wsums_at(&W, js1)->v.i == 8 && js2 && wsums_at(&W, js2)->v.kind == NUM_DBL &&
	   wsums_at(&W, js2)->v.d == 3.0 && wsums_at(&W, js2)->next == 0, "their sums; a bad metric or value skipped");
	u = strmap_key(&W.names, wsums_at(&W, js2)->unit, &n);
	ok(n == 1 && u[0] == 's', "a window weight's unit kept");
	ok(!wsums_add_json(&W, &j, &d, json_get(&d, 0, "big"), &why) && sstr_eqc(why, "samples"),
	   "an overflow names the metric");
	W.n = mark;
	ok(W.n == mark && wsums_at(&W, a)->v.i == 12, "scratch sums dropped, earlier lists kept");
	wsums_free(&W);
	json_doc_free(&d);
}

static void test_input(void)
{
	/* plain text, no final newline, CRLF kept, a 1 MB line */
	size_t big = 1 << 20;
	char *text = xmalloc(big + 64);
	size_t n = (size_t)sprintf(text, "one\ntwo\r\n");
	memset(text + n, 'x', big);
	n += big;
	memcpy(text + n, "\nlast", 5);
	n += 5;
	write_file(tmp_path("plain"), text, n);

	/* gzip: two members, to check concatenation */
	gzFile gz = gzopen(tmp_path("text.gz"), "wb");
	gzwrite(gz, text, (unsigned)(n / 2));
	gzclose(gz);
	gz = gzopen(tmp_path("text2.gz"), "wb");
	gzwrite(gz, text + n / 2, (unsigned)(n - n / 2));
	gzclose(gz);
	/* zstd */
	size_t zcap = ZSTD_compressBound(n);
	char *z = xmalloc(zcap);
	size_t zn = ZSTD_compress(z, zcap, text, n, 3);
	write_file(tmp_path("text.zst"), z, zn);
	char cmd[200];
	snprintf(cmd, sizeof cmd, "cd %s && cat text.gz text2.gz > both.gz", tmpdir);
	ok(system(cmd) == 0, "made a two-member gzip file");

	const char *files[] = { "plain", "both.gz", "text.zst" };
	for (int i = 0; i < 3; i++) {
		char path[256];
		snprintf(path, sizeof path, "%s", tmp_path(files[i]));
		input *in = input_open(path);
		size_t len;
		char *l1 = input_line(in, &len);
		ok(l1 && len == 3 && strcmp(l1, "one") == 0, "%s: first line", files[i]);
		char *l2 = input_line(in, &len);
		ok(l2 && len == 4 && strcmp(l2, "two\r") == 0, "%s: CR kept", files[i]);
		char *l3 = input_line(in, &len);
		ok(l3 && len == big && l3[0] == 'x' && l3[big - 1] == 'x', "%s: 1 MB line", files[i]);
		char *l4 = input_line(in, &len);
		ok(l4 && strcmp(l4, "last") == 0 && input_lineno(in) == 4, "%s: last line without newline", files[i]);
		ok(input_line(in, &len) == NULL, "%s: end", files[i]);
		input_close(in);
	}
	/* raw reads and peek on zstd */
	input *in = input_open(tmp_path("text.zst"));
	const void *p;
	ok(input_peek(in, &p, 4) == 4 && memcmp(p, "one\n", 4) == 0, "peek sees decoded bytes");
	size_t total = 0, k;
	char chunk[4096];
	while ((k = input_read(in, chunk, sizeof chunk)) > 0) total += k;
	ok(total == n && input_offset(in) == n, "raw read of all decoded bytes");
	input_close(in);
	/* input_seek: a plain file either way, compressed data forward only */
	for (int i = 0; i < 3; i++) {
		in = input_open(tmp_path(files[i]));
		ok(input_seek(in, n - 4) && input_read(in, chunk, 8) == 4 && !memcmp(chunk, "last", 4),
		   "%s: seek forward", files[i]);
		bool back = input_seek(in, 4);
		ok(i == 0 ? back && input_read(in, chunk, 4) == 4 && !memcmp(chunk, "two\r", 4) : !back,
		   "%s: seek back %s", files[i], i == 0 ? "by lseek" : "refused");
		input_close(in);
		in = input_open(tmp_path(files[i]));
		ok(!input_seek(in, n + 1), "%s: no seek past the end", files[i]);
		input_close(in);
	}
	free(z);
	free(text);
}

/* jscan_seek: a second reader at a value the first one saw, and back */
static void test_jscan_seek(void)
{
	const char *text = "{\"a\": [1, 2],\n \"b\": [3, 4]}";
	write_file(tmp_path("seek.json"), text, strlen(text));
	input *in = input_open(tmp_path("seek.json"));
	jscan r;
	jscan_init(&r, in, "seek.json");
	ok(jscan_seek(&r, 20, 2), "jscan_seek: to b's array");
	bool first = true;
	jscan_open(&r, '[', "an array");
	ok(jscan_more(&r, &first, ']') && jscan_int(&r, "n") == 3 && r.line == 2, "jscan_seek: b's first value, line 2");
	ok(jscan_seek(&r, 6, 1), "jscan_seek: back to a's array, in the buffer");
	first = true;
	jscan_open(&r, '[', "an array");
	ok(jscan_more(&r, &first, ']') && jscan_int(&r, "n") == 1 && jscan_offset(&r) == 8, "jscan_seek: a's first value");
	jscan_free(&r);
	input_close(in);
}

static void test_output(void)
{
	char *path = xstrdup(tmp_path("out.txt"));
	output *o = output_open(path, false);
	out_puts(o, "hello ");
	out_u64(o, UINT64_MAX);
	ok(access(path, F_OK) != 0, "target does not exist before close");
	output_close(o);
	FILE *f = fopen(path, "r");
	char buf[64] = { 0 };
	fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	is_str(buf, "hello 18446744073709551615", "written atomically on close");
	free(path);
	/* -o /dev/null writes to the device; it must not be renamed over */
	o = output_open("/dev/null", false);
	out_puts(o, "discarded");
	output_close(o);
	struct stat st;
	ok(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode), "-o /dev/null leaves the device in place");
}

static void test_roundtrip(void)
{
	builder *b = builder_new();
	builder_source_tool(b, "perf");
	uint32_t ev = builder_event(b, "cycles", "hardware", "period", "period", NULL);
	uint32_t ms = builder_metric(b, "samples", NULL);
	uint32_t mp = builder_metric(b, "period", "events");
	uint32_t d = builder_dso(b, "/bin/app", 8, false);
	uint32_t k = builder_dso(b, "[kernel.kallsyms]", 17, true);
	builder_frame fr = { .func = sstr_c("main"), .dso = d, .kind = FK_USER, .func_resolved = true, .inline_depth = -1 };
	uint32_t fmain = builder_frame_add(b, &fr);
	fr.func = sstr_c("work");
	uint32_t fwork = builder_frame_add(b, &fr);
	builder_frame kf = { .func = sstr_c("do_syscall_64"), .dso = k, .kind = FK_KERNEL, .func_resolved = true, .inline_depth = -1 };
	uint32_t fk = builder_frame_add(b, &kf);
	ok(builder_frame_add(b, &fr) == fwork, "identical frame interned once");
	builder_ctx c = { .event = ev, .has_pid = true, .has_tid = true, .pid = 1, .tid = 2, .comm = sstr_c("app") };
	uint32_t st[] = { fk, fwork, fmain };
	uint32_t mi[] = { ms, mp };
	num v[] = { num_i(1), num_u(UINT64_MAX - 1) };
	uint32_t s1 = builder_stack(b, &c, st, 3, mi, v, 2);
	v[1] = num_i(1);
	ok(builder_stack(b, &c, st, 3, mi, v, 2) == s1, "same stack aggregated");
	builder_sample(b, s1, true, 12.5, "\"cpu\":3");
	char *path = xstrdup(tmp_path("rt.spaa"));
	output *o = output_open(path, false);
	builder_write(b, o);
	output_close(o);
	char idtext[20];
	snprintf(idtext, sizeof idtext, "%s", builder_stack_id(b, s1));
	builder_free(b);

	spaa_reader *r = spaa_open(path);
	int counts[SPAA_BAD + 1] = { 0 };
	enum spaa_rtype t;
	spaa_stack s = { 0 };
	bool stack_ok = false;
	while ((t = spaa_next(r)) != SPAA_EOF) {
		counts[t]++;
		if (t == SPAA_STACK) {
			ok(spaa_stack_parse(r, &s) == 0, "stack parses");
			const spaa_weight *w = spaa_weight_find(s.w, s.nw, "period");
			stack_ok = w && w->value.kind == NUM_UINT && w->value.u == UINT64_MAX &&
				   s.nframes == 3 && strcmp(r->frames[spaa_stack_leaf(r, &s)].func, "do_syscall_64") == 0 &&
				   r->dsos[r->frames[s.frames[0]].dso].is_kernel;
			uint64_t id;
			spaa_stack_ids(r, &s, &id, NULL);
			char buf[20];
			stackid_fmt(buf, id);
			is_mem(s.id.p, s.id.n, buf, strlen(buf), "reader recomputes the builder's id");
			is_str(buf, idtext, "builder_stack_id agrees");
		}
	}
	ok(stack_ok, "weights summed exactly to 2^64-1, leaf and kernel dso resolved");
	ok(counts[SPAA_HEADER] == 1 && counts[SPAA_DSO] == 2 && counts[SPAA_FRAME] == 3 &&
	   counts[SPAA_STACK] == 1 && counts[SPAA_SAMPLE] == 1, "record counts");
	ok(r->nevents == 1 && strcmp(r->events[0].primary_metric, "period") == 0 && r->has_time_range &&
	   r->tr_start == 12.5, "header read back");
	spaa_stack_free(&s);
	spaa_close(r);
	free(path);
}

/* Frame and dso ids: integers and strings are the same id when their text
 * is ("5" and 5), "-0" is not 0, and ids far beyond the number of records
 * (past the reader's direct cache) are found as well as small ones. */
static int id_errors;
static void count_error(spaa_reader *r, const char *msg)
{
	(void)r;
	diag("expected error: %s", msg);
	id_errors++;
}

static void test_ids(void)
{
	char *path = xstrdup(tmp_path("ids.spaa"));
	FILE *f = fopen(path, "w");
	fputs("{\"type\":\"header\",\"format\":\"spaa\",\"version\":\"1.0\",\"frame_order\":\"leaf_to_root\","
	      "\"events\":[{\"name\":\"e\",\"kind\":\"software\",\"sampling\":{\"mode\":\"event\",\"primary_metric\":\"samples\"}}]}\n"
	      "{\"type\":\"dso\",\"id\":\"7\",\"name\":\"a\"}\n"
	      "{\"type\":\"dso\",\"id\":1000000000000,\"name\":\"b\"}\n"
	      "{\"type\":\"frame\",\"id\":5,\"func\":\"five\",\"dso\":7}\n"
	      "{\"type\":\"frame\",\"id\":\"x\",\"func\":\"ex\",\"dso\":\"1000000000000\"}\n"
	      "{\"type\":\"frame\",\"id\":18446744073709551615,\"func\":\"max\",\"dso\":7}\n"
	      "{\"type\":\"frame\",\"id\":-0,\"func\":\"minus zero\",\"dso\":7}\n"
	      "{\"type\":\"frame\",\"id\":0,\"func\":\"zero\",\"dso\":1000000000000}\n"
	      "{\"type\":\"stack\",\"id\":1,\"frames\":[\"5\",\"x\",\"18446744073709551615\",0,-0],"
	      "\"context\":{\"event\":\"e\"},\"weights\":[{\"metric\":\"samples\",\"value\":1}]}\n"
	      "{\"type\":\"stack\",\"id\":2,\"frames\":[6],\"context\":{\"event\":\"e\"},\"weights\":[{\"metric\":\"samples\",\"value\":1}]}\n",
	      f);
	fclose(f);
	spaa_reader *r = spaa_open(path);
	r->on_error = count_error;
	spaa_stack s = { 0 };
	int stacks = 0, errors = 0;
	enum spaa_rtype t;
	while ((t = spaa_next(r)) != SPAA_EOF) {
		if (t == SPAA_BAD) errors++;
		if (t != SPAA_STACK) continue;
		int rc = spaa_stack_parse(r, &s);
		if (++stacks == 1) {
			ok(rc == 0 && s.nframes == 5, "stack 1: every spelling of its frame ids is found");
			const char *want[] = { "five", "ex", "max", "zero", "minus zero" };
			for (int i = 0; i < 5 && i < (int)s.nframes; i++)
				is_str(r->frames[s.frames[i]].func, want[i], "stack 1 frame %d", i);
			ok(strcmp(r->dsos[r->frames[s.frames[1]].dso].name, "b") == 0 &&
			   strcmp(r->dsos[r->frames[s.frames[0]].dso].name, "a") == 0, "dsos by integer and string ids");
		} else {
			ok(rc < 0, "stack 2: frame 6 is unknown");
		}
	}
	ok(stacks == 2 && errors == 0 && id_errors == 1, "two stacks read, one error (frame 6)");
	spaa_stack_free(&s);
	spaa_close(r);
	free(path);
}

/* sniff: each converter's input by its first line; SPAA and unknown text
 * are not claimed. */
static void test_sniff(void)
{
	static const struct { const char *line, *run; } cases[] = {
		{ "parser  4242/4243 [002] 52310.001012:   1001001 cpu-clock:", "perf2spaa" },
		{ "swapper     0 [000]  1234.567890: cycles:", "perf2spaa" },
		{ "PERFILE2h", "perf2spaa" },
		{ "              libc.so.1`__pollsys+0xa", "dtrace2spaa" },
		{ "dtrace: description 'profile-97 ' matched 1 probe", "dtrace2spaa" },
		{ "main;parse;lex 12", "folded2spaa" },
		{ "[{\"name\":\"a\",\"ph\":\"X\",\"ts\":1}]", "spall2spaa" },
		{ "{\"traceEvents\":[", "any2spaa" },
		{ "{\"traceEvents\":[{\"name\":\"ProfileChunk\",\"ph\":\"P\"}]}", "chrome2spaa" },
		{ "[", "any2spaa" },
		{ "{", "any2spaa" },
		{ "\x12\x04\x08\x01\x10\x02", "pprof2spaa" },
		{ "\x7f" "ELF\x02\x01\x01", "any2spaa" },
		{ "\x0D\xF0\xAD\x0B\x01", "spall2spaa" },
		{ "[events]", "spx2spaa" },
		{ "{\"exec_ts\": 1, \"enabled_metrics\": [\"wt\"]}", "spx2spaa" },
		{ "# AFPerf v1     ", "afperf2spaa" },
		{ "v 10400 3", "heaptrack2spaa" },
		{ "heap profile:  300: 1228800 [  300: 1228800] @ heapprofile", "pprof2spaa" },
		{ "heap_v2/524288", "pprof2spaa" },
		{ "{\"nodes\":[{\"id\":1,\"callFrame\":{}}]}", "chrome2spaa" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		sniff_result r = { 0 };
		int k = sniff_line(cases[i].line, strlen(cases[i].line), &r);
		ok(k == 0 && (cases[i].run ? r.run && strcmp(r.run, cases[i].run) == 0 : !r.run),
		   "sniff: %s -> %s", cases[i].line, cases[i].run ? cases[i].run : "no converter");
	}
	static const char *not_claimed[] = {
		"{\"type\":\"header\",\"format\":\"spaa\",\"version\":\"1.0\"}",
		"{\"type\":\"stack\",\"id\":1}",
		"hello world",
		"",
	};
	for (size_t i = 0; i < sizeof not_claimed / sizeof *not_claimed; i++) {
		sniff_result r;
		is_int(sniff_line(not_claimed[i], strlen(not_claimed[i]), &r), -1, "sniff: not claimed: '%s'", not_claimed[i]);
	}
}

/* sniff_bytes: whole-content recognition, the format any2spaa runs */
static void test_sniff_bytes(void)
{
	static const struct { const char *data, *name; bool more; } cases[] = {
		{ "java 19983 cycles:\nffffffff8103d0ca native_write_msr_safe ([kernel.kallsyms])\n", "perf-script", false },
		{ "dd 29776 66709.771979: 10101010 cpu-clock:\n\tffffffff8100 a (b)\n", "perf-script", false },
		{ "v 10400 3\nX ./heap\nI 1000 5e2919\n", "heaptrack", false },
		/* text with a control byte is not a protobuf message for it */
		{ "perf\x01 1 2.5: 1 cycles:\n\tffffffff81 n ([k])\n", NULL, false },
		{ "\x0a\x04\x08\x01\x10\x02\x12\x02\x08\x01", "pprof", false },
		/* bytes that are not UTF-8 are still text (perf prints names as they are) */
		{ "p\xe9rf 1 2.5: 1 cycles:\n\tffffffff81 n\xe9 ([k])\n", "perf-script", false },
		{ "Attaching 2 probes...\n\n\n@[\n    f+1\n]: 3\n", "bpftrace", false },
		{ "\n  sshd\n              libc.so.1`__pollsys+0xa\n                3\n", "dtrace", false },
		{ "a;b;c 1\na;b 2\na;b;c;d 1", "folded", true }, /* a last line cut short */
		{ "{\"snapshot\":{\"meta\":{}}}", "heapsnapshot", false },
		{ "{\"head\":{\"callFrame\":{}},\"samples\":[]}", "heapprofile", false },
		{ "[{\"ph\":\"X\",\"name\":\"a\"}]", "trace-json", false },
		{ "heap_v2/524288\n", "pprof-heap-text", false },
		{ "{\"type\":\"header\",\"format\":\"spaa\"}\n", "spaa", false },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const sniff_format *f = sniff_bytes(cases[i].data, strlen(cases[i].data), cases[i].more, NULL);
		ok(cases[i].name ? f && strcmp(f->name, cases[i].name) == 0 : !f, "sniff_bytes: %s (%s)",
		   cases[i].name ? cases[i].name : "none", f ? f->name : "none");
	}
	const char *looks;
	ok(!sniff_bytes("[{\"ph\":\"X\"},", 12, true, &looks) && strstr(looks, "whole content"),
	   "sniff_bytes: a JSON trace cut short is left open");
	ok(!sniff_bytes("hello\n", 6, false, &looks) && strcmp(looks, "text whose first line is \"hello\"") == 0,
	   "sniff_bytes: unknown text says its first line");
}

/* heapsnap: meta fields by name; the strings array with only the wanted
 * strings kept, lone surrogates and bad escapes as U+FFFD, pairs joined. */
static void test_heapsnap(void)
{
	json_doc d;
	json_doc_init(&d);
	const char *meta = "[\"type\",\"name\",\"id\",\"self_size\"]";
	ok(json_parse(&d, meta, strlen(meta)) == 0, "heapsnap: meta fields parsed");
	is_int(heapsnap_field(&d, 0, "self_size"), 3, "heapsnap: field found");
	is_int(heapsnap_field(&d, 0, "trace_node_id"), HEAPSNAP_NONE, "heapsnap: field absent");
	json_doc_free(&d);

	const char *text = "[\"a\", \"lone \\ud800 x\", \"pair \\ud83d\\ude00\", \"skipped \\ud800\", \"bad \\uZZZZ\\n\"]";
	write_file(tmp_path("strings.json"), text, strlen(text));
	heapsnap_strings t;
	heapsnap_strings_init(&t);
	heapsnap_strings_want(&t, 1);
	heapsnap_strings_want(&t, 2);
	heapsnap_strings_want(&t, 4);
	heapsnap_strings_want(&t, -1);
	input *in = input_open(tmp_path("strings.json"));
	jscan r;
	jscan_init(&r, in, "strings.json");
	heapsnap_strings_read(&r, &t);
	jscan_free(&r);
	input_close(in);
	is_int((int64_t)t.count, 5, "heapsnap: five strings read");
	sstr s;
	ok(!heapsnap_strings_get(&t, 0, &s), "heapsnap: string 0 not kept");
	ok(!heapsnap_strings_get(&t, 3, &s), "heapsnap: string 3 not kept");
	ok(heapsnap_strings_get(&t, 1, &s) && s.n == 10 && memcmp(s.p, "lone \xef\xbf\xbd x", 10) == 0,
	   "heapsnap: a lone surrogate becomes U+FFFD");
	ok(heapsnap_strings_get(&t, 2, &s) && s.n == 9 && memcmp(s.p, "pair \xf0\x9f\x98\x80", 9) == 0,
	   "heapsnap: a surrogate pair joined");
	ok(heapsnap_strings_get(&t, 4, &s) && s.n == 12 && memcmp(s.p, "bad \xef\xbf\xbd" "ZZZZ\n", 12) == 0,
	   "heapsnap: a bad escape becomes U+FFFD, the rest kept");
	heapsnap_strings_free(&t);
}

/* rootpath: resolution under a root as chroot(2) sees it, regular files only */
static void test_rootpath(void)
{
	char root[300], p[600];
	snprintf(root, sizeof root, "%s/root", tmpdir);
	const char *dirs[] = { "", "/usr", "/usr/bin", "/opt" };
	for (int i = 0; i < 4; i++) {
		snprintf(p, sizeof p, "%s%s", root, dirs[i]);
		mkdir(p, 0755);
	}
	snprintf(p, sizeof p, "%s/usr/bin/app", root);
	write_file(p, "x", 1);
	struct { const char *name, *target; } links[] = {
		{ "/opt/abs", "/usr/bin/app" }, { "/opt/rel", "../usr/bin/app" }, { "/opt/up", "../../../../usr/bin/app" },
		{ "/opt/host", "/etc/passwd" }, { "/opt/bin", "/usr/bin" }, { "/opt/l1", "l2" }, { "/opt/l2", "l1" },
	};
	for (size_t i = 0; i < sizeof links / sizeof *links; i++) {
		snprintf(p, sizeof p, "%s%s", root, links[i].name);
		if (symlink(links[i].target, p) != 0) diag("symlink %s", p);
	}
	struct { const char *path, *want; int why; } cases[] = {
		{ "/usr/bin/app", "/usr/bin/app", RP_OK },
		{ "/../../../usr/bin/app", "/usr/bin/app", RP_OK },
		{ "usr/./bin//app", "/usr/bin/app", RP_OK },
		{ "/opt/abs", "/usr/bin/app", RP_OK },
		{ "/opt/rel", "/usr/bin/app", RP_OK },
		{ "/opt/up", "/usr/bin/app", RP_OK },
		{ "/opt/bin/app", "/usr/bin/app", RP_OK },
		{ "/opt/bin/../bin/app", "/usr/bin/app", RP_OK },
		{ "/..", "/", RP_OK },
		{ "/opt/host", NULL, RP_MISSING },
		{ "/usr/bin/app/x", NULL, RP_MISSING },
		{ "/opt/l1", NULL, RP_LOOP },
		{ "", NULL, RP_MISSING },
	};
	sbuf out = { 0 }, want = { 0 };
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		int why = rp_resolve(root, cases[i].path, &out);
		is_int(why, cases[i].why, "rp_resolve %s: %s", cases[i].path, rp_why_text(cases[i].why));
		if (!cases[i].want) continue;
		want.n = 0;
		sbuf_printf(&want, "%s%s", root, cases[i].want);
		is_str(out.p, want.p, "rp_resolve %s under the root", cases[i].path);
	}
	/* the root given with a final slash, and no root at all */
	snprintf(p, sizeof p, "%s/", root);
	rp_resolve(p, "/opt/abs", &out);
	want.n = 0;
	sbuf_printf(&want, "%s/usr/bin/app", root);
	is_str(out.p, want.p, "a root with a final slash");
	rp_resolve(NULL, "/opt/abs", &out);
	is_str(out.p, "/opt/abs", "no root: the path as it is");
	/* only regular files are opened: a FIFO does not block */
	snprintf(p, sizeof p, "%s/usr/bin/fifo", root);
	mkfifo(p, 0644);
	int why, fd = rp_open(root, "/usr/bin/fifo", &out, &why);
	ok(fd < 0 && why == RP_FIFO, "a FIFO is not opened: %s", rp_why_text(why));
	fd = rp_open(root, "/usr", &out, &why);
	ok(fd < 0 && why == RP_DIRECTORY, "a directory is not opened: %s", rp_why_text(why));
	fd = rp_open_regular("/dev/null", &why);
	ok(fd < 0 && why == RP_DEVICE, "a device is not opened: %s", rp_why_text(why));
	fd = rp_open(root, "/opt/abs", &out, &why);
	ok(fd >= 0 && why == RP_OK, "a regular file through a link is");
	if (fd >= 0) close(fd);
	fd = rp_open_regular(p, &why);
	ok(fd < 0 && why == RP_FIFO, "a FIFO by its host path is not opened either: %s", rp_why_text(why));
	fd = rp_open(root, "/opt/l1", &out, &why);
	ok(fd < 0 && why == RP_LOOP, "a loop of links is not followed for ever: %s", rp_why_text(why));
	/* an absolute link to itself: from the root again, a loop */
	snprintf(p, sizeof p, "%s/opt/self", root);
	if (symlink("/opt/self", p) != 0) diag("symlink %s", p);
	is_int(rp_resolve(root, "/opt/self/x", &out), RP_LOOP, "an absolute link to itself is a loop");
	/* a relative root: from the current directory */
	char cwd[4096];
	if (getcwd(cwd, sizeof cwd) && chdir(tmpdir) == 0) {
		is_int(rp_resolve("root", "/../opt/up", &out), RP_OK, "a relative root");
		is_str(out.p, "root/usr/bin/app", "a relative root: the path from the current directory");
		fd = rp_open("root/", "opt/bin/../bin/app", &out, &why);
		ok(fd >= 0, "a relative root: the file opened");
		if (fd >= 0) close(fd);
		if (chdir(cwd) != 0) diag("chdir %s", cwd);
	}
	sbuf_free(&out);
	sbuf_free(&want);
}

/* naming.h: kernel and JIT dsos, the argument list of a name, tidy names */
static void test_naming(void)
{
	static const char *const kern[] = { "[kernel.kallsyms]", "[nf_conntrack_ipv4]", "vmlinux",
		"/lib/modules/4.3.0-rc1-virtual/build/vmlinux", "vmlinux-5.4.14-cloudflare-2020.1.11",
		"/usr/lib/debug/boot/vmlinux-5.4.14-cloudflare-2020.1.11", "/lib/modules/6.1.0/kernel/fs/ext4/ext4.ko",
		"ext4.ko.xz", "nvme.ko.zst", NULL };
	static const char *const user[] = { "[unknown]", "", "/usr/bin/vmlinux-tool x", "vmlinux/",
		"vmlinux-5.4.14)", "/usr/lib/libc.so.6", "/tmp/a.ko.bak", "/usr/lib/debug/boot/vmlinu", NULL };
	for (const char *const *d = kern; *d; d++)
		ok(naming_dso_is_kernel(*d, strlen(*d)), "naming: kernel dso %s", *d);
	for (const char *const *d = user; *d; d++)
		ok(!naming_dso_is_kernel(*d, strlen(*d)), "naming: not a kernel dso '%s'", *d);
	static const char *const jit[] = { "/tmp/perf-4242.map", "/tmp/jitted-4242-3.so",
		"/root/.debug/jit/java-jit-20261126.XXabc1/jitted-77-1234.so", NULL };
	static const char *const nojit[] = { "/tmp/perf-.map", "/tmp/perf-12.mapx", "/opt/lib/jitted-tools.so",
		"/tmp/jitted-1-.so", "jitted-1-2.so.1", "[unknown]", NULL };
	for (const char *const *d = jit; *d; d++)
		ok(naming_dso_is_jit(*d, strlen(*d)), "naming: JIT dso %s", *d);
	for (const char *const *d = nojit; *d; d++)
		ok(!naming_dso_is_jit(*d, strlen(*d)), "naming: not a JIT dso %s", *d);
	is_int(naming_dso_kind("[unknown]", 9), FK_UNKNOWN, "naming: [unknown] kind");
	is_int(naming_dso_kind("[vdso]", 6), FK_KERNEL, "naming: [vdso] kind (as stackcollapse-perf.pl)");
	is_int(naming_dso_kind("/bin/sh", 7), FK_USER, "naming: user kind");
	static const char *const tidy[][2] = {
		{ "foo(int)", "foo" },
		{ "foo", "foo" },
		{ "Shape::area(double) const [clone .cold]", "Shape::area" },
		{ "std::function<int (int, int)>::operator()", "std::function<int (int, int)>::operator()" },
		{ "std::function<int (int, int)>::operator()(int, int) const", "std::function<int (int, int)>::operator()" },
		{ "<HashMap<K, V, S> as Extend<(K, V)>>::extend", "<HashMap<K, V, S> as Extend<(K, V)>>::extend" },
		{ "run(int)::{lambda(int)#1}::operator()(int) const", "run(int)::{lambda(int)#1}::operator()" },
		{ "std::operator<< <std::char_traits<char> >(std::ostream&, char const*)", "std::operator<< <std::char_traits<char> >" },
		{ "Foo::operator<(Foo const&) const", "Foo::operator<" },
		{ "Foo::operator->() const", "Foo::operator->" },
		{ "operator new[](unsigned long)", "operator new[]" },
		{ "net/http.(*Client).Do", "net/http.(*Client).Do" },
		{ "(anonymous namespace)::helper(unsigned int)", "(anonymous namespace)::helper" },
		{ "Lorg/mozilla/javascript/ContextFactory;.call(Lorg/mozilla/javascript/C", "Lorg/mozilla/javascript/ContextFactory:.call" },
		{ "RegExp:[&<>\"']", "RegExp:[&<>\"']" },
		{ "a)b(c", "a)b" },
		{ "gc::gc::GcBox$LT$T$GT$::new::_$u7b$$u7b$closure$u7d$$u7d$::h0123456789abcdef",
		  "gc::gc::GcBox<T>::new::{{closure}}" },
		{ "_$LT$$RF$std..fs..File$u20$as$u20$std..io..Read$GT$::read::h5d84059cf335c8e6",
		  "<&std::fs::File as std::io::Read>::read" },
		{ "std::rt::lang_start::h5f4d2b5c0e8a9d1f", "std::rt::lang_start" },
		{ "not$LT$rust$GT$", "not$LT$rust$GT$" },
	};
	sbuf b = { 0 };
	for (size_t i = 0; i < sizeof tidy / sizeof *tidy; i++) {
		b.n = 0;
		naming_tidy(&b, tidy[i][0], strlen(tidy[i][0]));
		is_mem(b.p, b.n, tidy[i][1], strlen(tidy[i][1]), "naming: tidy %s", tidy[i][0]);
	}
	sbuf_free(&b);
}

/* fmt_fixed and fmt_g write what printf's "%.Nf" and "%g" write: ties
 * (x.125, x.25, x.5: rounded half to even), negatives, -0, the numbers of
 * an SVG, the largest doubles, and random bit patterns. */
static void test_fmt_dbl(void)
{
	char got[FMT_DBL_MAX], want[FMT_DBL_MAX];
	uint64_t st = 0x2545f4914f6cdd1dULL;
	unsigned bad = 0, n = 0;
	for (int i = 0; i < 300000; i++) {
		double v;
		uint64_t r = rand64(&st);
		switch (i % 7) {
		case 0: v = (double)(r % 2000000) / 1000.0; break;
		case 1: v = (double)(r % 100000) / 8.0; break;        /* ties */
		case 2: v = -(double)(r % 100000) / 4.0; break;
		case 3: v = (double)(r >> 11) / 9007199254740992.0 * 1180 + 10; break;
		case 4: memcpy(&v, &r, sizeof v); break;              /* any double */
		case 5: v = (double)(r % 40000) * 0.05; break;
		default: v = (double)(r % 3000) + 0.5; break;
		}
		for (int p = 0; p <= 2; p++) {
			fmt_fixed(got, v, p);
			snprintf(want, sizeof want, "%.*f", p, v);
			n++;
			if (strcmp(got, want) != 0 && bad++ < 5) diag("fmt_fixed %.17g %d: %s, printf %s", v, p, got, want);
		}
		fmt_g(got, v);
		snprintf(want, sizeof want, "%g", v);
		n++;
		if (strcmp(got, want) != 0 && bad++ < 5) diag("fmt_g %.17g: %s, printf %s", v, got, want);
	}
	static const double edge[] = { 0.0, -0.0, 0.05, 0.15, 0.25, 0.35, 2.5, 1e5, 99999.5, 1e6, 9007199254740992.0,
		-9007199254740991.0, 1.7976931348623157e308, -1.7976931348623157e308, 4.9e-324, 0.005, 0.015 };
	for (size_t i = 0; i < sizeof edge / sizeof *edge; i++) {
		for (int p = 0; p <= 2; p++) {
			fmt_fixed(got, edge[i], p);
			snprintf(want, sizeof want, "%.*f", p, edge[i]);
			n++;
			if (strcmp(got, want) != 0 && bad++ < 10) diag("fmt_fixed %.17g %d: %s, printf %s", edge[i], p, got, want);
		}
		fmt_g(got, edge[i]);
		snprintf(want, sizeof want, "%g", edge[i]);
		n++;
		if (strcmp(got, want) != 0 && bad++ < 10) diag("fmt_g %.17g: %s, printf %s", edge[i], got, want);
	}
	ok(bad == 0, "fmt_fixed, fmt_g: as printf writes %u numbers (%u differ)", n, bad);
}

/* radix_sort_u64: stable, by the key at an offset, as a stable qsort */
struct rs_rec { uint32_t seq; uint64_t key; char pad[5]; };
static int rs_cmp(const void *a, const void *b)
{
	const struct rs_rec *x = a, *y = b;
	if (x->key != y->key) return x->key < y->key ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}
static void test_radix_sort(void)
{
	uint64_t st = 42;
	enum { N = 5000 };
	static struct rs_rec a[N], b[N];
	for (uint32_t i = 0; i < N; i++) {
		uint64_t r = rand64(&st);
		/* many equal keys, and keys that share their high digits */
		a[i].key = i % 3 ? 0x7f0000000000ULL + (r & 0xfff0) : r;
		a[i].seq = i;
	}
	memcpy(b, a, sizeof a);
	radix_sort_u64(a, N, sizeof *a, offsetof(struct rs_rec, key));
	qsort(b, N, sizeof *b, rs_cmp);
	bool same = true;
	for (uint32_t i = 0; i < N; i++) same &= a[i].seq == b[i].seq && a[i].key == b[i].key;
	ok(same, "radix_sort_u64: the order of a stable sort by the key");
	radix_sort_u64(a, 1, sizeof *a, offsetof(struct rs_rec, key));
	radix_sort_u64(NULL, 0, sizeof *a, offsetof(struct rs_rec, key));
	ok(1, "radix_sort_u64: one record, and none");
}

/* The metrics samples and period (mi), the event cycles, and the frames of
 * /bin/app at 0x10, "main" (f[1]) and "work" (f[0]): the context of a
 * stack of app's thread 2. */
static builder_ctx app_frames(builder *b, uint32_t mi[2], uint32_t f[2])
{
	mi[0] = builder_metric(b, "samples", NULL);
	mi[1] = builder_metric(b, "period", "events");
	uint32_t ev = builder_event(b, "cycles", "hardware", "period", "period", NULL);
	uint32_t d = builder_dso(b, "/bin/app", 8, false);
	builder_frame fr = { .func = sstr_c("main"), .dso = d, .kind = FK_USER, .func_resolved = true,
			     .inline_depth = -1, .ip = sstr_c("0x10") };
	f[1] = builder_frame_add(b, &fr);
	fr.func = sstr_c("work");
	f[0] = builder_frame_add(b, &fr);
	return (builder_ctx){ .event = ev, .has_pid = true, .has_tid = true, .pid = 1, .tid = 2, .comm = sstr_c("app") };
}

/* The calls of a converter on part 1 and part 2 of its input (part 0: both,
 * on one builder). */
static void merge_calls(builder *b, int part)
{
	uint32_t mi[2];
	if (part != 2) {
		uint32_t f[2];
		builder_ctx c = app_frames(b, mi, f);
		builder_thread(b, 1, 2, "app", 3);
		num v[] = { num_i(1), num_u(1000) };
		builder_stack(b, &c, f, 2, mi, v, 2);
		builder_stack(b, &c, f + 1, 1, mi, v, 2);
	}
	if (part != 1) {
		mi[0] = builder_metric(b, "samples", NULL);
		mi[1] = builder_metric(b, "period", "events");
		uint32_t ev2 = builder_event(b, "sched:sched_switch", "probe", "event", "period", "\"x_k\":1");
		uint32_t ev = builder_event(b, "cycles", "hardware", "period", "period", NULL);
		uint32_t k = builder_dso(b, "[kernel.kallsyms]", 17, true);
		builder_dso_extra(b, k, "\"build_id\":\"ab\"");
		uint32_t d = builder_dso(b, "/bin/app", 8, false);
		builder_frame fr = { .func = sstr_c("work"), .dso = d, .kind = FK_USER, .func_resolved = true,
				     .inline_depth = -1, .ip = sstr_c("0x20") };
		uint32_t f[3];
		f[1] = builder_frame_add(b, &fr);
		fr.func = sstr_c("main");
		f[2] = builder_frame_add(b, &fr);
		builder_frame kf = { .func = sstr_c("schedule"), .dso = k, .kind = FK_KERNEL, .func_resolved = true,
				     .inline_depth = -1, .extra_json = "\"x_q\":true" };
		f[0] = builder_frame_add(b, &kf);
		/* the same function at another address, exact: an alias stack */
		builder_frame ex = { .func = sstr_c("work"), .dso = d, .kind = FK_USER, .func_resolved = true,
				     .inline_depth = 0, .ip = sstr_c("0x30"), .exact = true };
		uint32_t fx[2] = { builder_frame_add(b, &ex), f[2] };
		builder_thread(b, 1, 3, "app2", 4);
		builder_thread(b, 1, 2, "other", 5);
		builder_ctx c = { .event = ev, .has_pid = true, .has_tid = true, .pid = 1, .tid = 2, .comm = sstr_c("app") };
		builder_ctx c2 = { .event = ev2, .has_tid = true, .tid = 3, .comm = sstr_c("app2"),
				   .extra_json = { "\"x_t\":\"a\"", 9 } };
		num v[] = { num_i(1), num_u(7) };
		builder_stack(b, &c, f + 1, 2, mi, v, 2);
		builder_stack(b, &c, fx, 2, mi, v, 2);
		builder_stack(b, &c2, f, 3, mi, v, 1);
		builder_stack(b, &c, f + 2, 1, mi, v, 2);
	}
}

static char *write_to(builder *b, const char *name)
{
	char *path = xstrdup(tmp_path(name));
	output *o = output_open(path, false);
	builder_write(b, o);
	output_close(o);
	builder_free(b);
	return path;
}

/* Whether files p1 and p2 (at most 8 KiB) hold the same bytes, more than
 * min of them. */
static bool same_bytes(const char *p1, const char *p2, size_t min)
{
	FILE *f1 = fopen(p1, "rb"), *f2 = fopen(p2, "rb");
	char x[8192], y[8192];
	size_t n1 = f1 ? fread(x, 1, sizeof x, f1) : 0, n2 = f2 ? fread(y, 1, sizeof y, f2) : 0;
	if (f1) fclose(f1);
	if (f2) fclose(f2);
	return n1 > min && n1 == n2 && memcmp(x, y, n1) == 0;
}

/* Two stacks, "main" then "main;work", their periods p1, p2. */
static void overflow_calls(builder *b, uint64_t p1, uint64_t p2)
{
	uint32_t mi[2], f[2];
	builder_ctx c = app_frames(b, mi, f);
	num v[] = { num_i(1), num_u(p1) };
	builder_stack(b, &c, f + 1, 1, mi, v, 2);
	v[1] = num_u(p2);
	builder_stack(b, &c, f, 2, mi, v, 2);
}

static char *write_to(builder *b, const char *name);

/* builder_merge: a sum beyond 64 bits leaves every weight as it was; a
 * builder_keep_overflow builder says so rather than ending the program. */
static void test_merge_overflow(void)
{
	builder *a = builder_new(), *same = builder_new(), *b = builder_new();
	overflow_calls(a, 5, UINT64_MAX);
	overflow_calls(same, 5, UINT64_MAX);
	overflow_calls(b, 7, 1); /* "main" summed, then "main;work" overflows */
	ok(!builder_merge(a, b), "builder_merge: false on an overflow");
	builder_free(b);
	char *p1 = write_to(same, "same.spaa"), *p2 = write_to(a, "unmerged.spaa");
	ok(same_bytes(p1, p2, 100), "builder_merge: after an overflow, the weights as before");
	free(p1);
	free(p2);
	b = builder_new();
	builder_keep_overflow(b);
	overflow_calls(b, 1, UINT64_MAX);
	ok(!builder_overflowed(b), "builder_keep_overflow: no overflow yet");
	overflow_calls(b, 1, 1);
	ok(builder_overflowed(b), "builder_keep_overflow: the overflow is kept, the program goes on");
	builder_free(b);
}

/* spaa_reader.before_slow, counted */
static int slow_calls;
static void count_slow(spaa_reader *r)
{
	(void)r;
	slow_calls++;
}

static void test_merge(void)
{
	builder *whole = builder_new(), *a = builder_new(), *b = builder_new();
	builder_source_tool(whole, "perf");
	builder_source_tool(a, "perf");
	merge_calls(whole, 0);
	merge_calls(a, 1);
	merge_calls(b, 2);
	builder_merge(a, b);
	builder_free(b);
	char *p1 = write_to(whole, "whole.spaa"), *p2 = write_to(a, "merged.spaa");
	ok(same_bytes(p1, p2, 500), "builder_merge: the same bytes as one builder given all the calls");
	/* spaa_fast_stacks: what the JSON parser reads, read without it */
	spaa_reader *r1 = spaa_open(p1), *r2 = spaa_open(p2);
	spaa_stack s1 = { 0 }, s2 = { 0 };
	spaa_fast_stacks(r2, &s2);
	r2->before_slow = count_slow;
	slow_calls = 0;
	enum spaa_rtype t1, t2;
	int fast = 0, same = 0, n = 0, fast_stacks = 0;
	while ((t1 = spaa_next(r1)) != SPAA_EOF) {
		t2 = spaa_next(r2);
		fast += r2->fast;
		fast_stacks += r2->fast && t2 == SPAA_STACK;
		if (t1 != t2) break;
		n++;
		if (t1 != SPAA_STACK) {
			same++;
			continue;
		}
		spaa_stack_parse(r1, &s1);
		if (!r2->fast) spaa_stack_parse(r2, &s2);
		bool eq = s1.nframes == s2.nframes && memcmp(s1.frames, s2.frames, s1.nframes * sizeof *s1.frames) == 0 &&
			  s1.event == s2.event && sstr_eq(s1.id, s2.id) && s1.has_pid == s2.has_pid && s1.pid == s2.pid &&
			  s1.has_tid == s2.has_tid && s1.tid == s2.tid && (s1.comm.p != NULL) == (s2.comm.p != NULL) &&
			  (!s1.comm.p || sstr_eq(s1.comm, s2.comm)) && s1.nw == s2.nw && s1.has_excl == s2.has_excl &&
			  s1.excl_frame == s2.excl_frame && s1.nxw == s2.nxw;
		for (uint32_t i = 0; eq && i < s1.nw; i++)
			eq = sstr_eq(s1.w[i].metric, s2.w[i].metric) && num_cmp(s1.w[i].value, s2.w[i].value) == 0;
		same += eq;
	}
	ok(n > 10 && same == n && spaa_next(r2) == SPAA_EOF, "fast stacks and frames read as the JSON parser reads them");
	/* all but the stack with an extra context and the frame with x_q */
	ok(fast == 5, "stack and frame records taken by the fast path (%d of 7)", fast);
	ok(slow_calls == n - fast_stacks && fast_stacks > 0,
	   "before_slow is called before every record but the fast path's stacks (%d calls, %d records)", slow_calls, n);
	uint32_t counted = spaa_frame_count(r2);
	spaa_settle_frames(r2);
	ok(counted == r2->frame_ids.count, "spaa_frame_count: the frames read fast and settled (%u)", counted);
	for (uint32_t i = 0; i < r1->frame_ids.count && i < r2->frame_ids.count; i++) {
		size_t kn1, kn2;
		const char *k1 = strmap_key(&r1->frame_ids, i, &kn1), *k2 = strmap_key(&r2->frame_ids, i, &kn2);
		if (kn1 != kn2 || memcmp(k1, k2, kn1)) same = -1;
		const spaa_frame *a1 = &r1->frames[i], *a2 = &r2->frames[i];
		if (strcmp(a1->func, a2->func) || a1->dso != a2->dso || a1->kind != a2->kind || a1->inlined != a2->inlined ||
		    a1->func_resolved != a2->func_resolved || a1->inline_depth != a2->inline_depth ||
		    (a1->ip == NULL) != (a2->ip == NULL) || (a1->ip && strcmp(a1->ip, a2->ip)))
			same = -1;
	}
	ok(same >= 0 && r1->frame_ids.count == r2->frame_ids.count, "fast frames equal the JSON parser's");
	spaa_stack_free(&s1);
	spaa_stack_free(&s2);
	spaa_close(r1);
	spaa_close(r2);
	free(p1);
	free(p2);
}

/* readers/registry.h: a reader for every converter sniff.c names, and no
 * reader that no format leads to; each with its options table */
static void test_registry(void)
{
	size_t n = 0;
	for (const sniff_format *f = sniff_formats; f->name; f++) {
		if (!f->cmd) continue;
		const reader_def *r = reader_named(f->cmd);
		ok(r && r->read && strcmp(r->cmd, f->cmd) == 0, "registry: format %s has a reader, %s", f->name, f->cmd);
	}
	for (const reader_def *r = reader_defs; r->cmd; r++, n++) {
		bool named = false, has_output = false;
		for (const sniff_format *f = sniff_formats; f->name; f++) named |= f->cmd && strcmp(f->cmd, r->cmd) == 0;
		ok(named, "registry: %s is the converter of a format sniff.c knows", r->cmd);
		const struct option *o = r->longopts;
		for (; o->name; o++) has_output |= strcmp(o->name, "output") == 0 && o->val == 'o';
		ok(has_output && o->has_arg == 0 && o->flag == NULL && o->val == 0,
		   "registry: %s's options table has --output and ends with a zero entry", r->cmd);
		ok(strstr(r->shortopts, "o:") && strstr(r->shortopts, "hV"), "registry: %s's short options: %s", r->cmd,
		   r->shortopts);
		ok(reader_named(r->cmd) == r, "registry: %s is found by its name", r->cmd);
	}
	is_int(n, 21, "registry: the 21 converters' readers");
	ok(!reader_named("spaa-fold") && !reader_named(""), "registry: no reader for another name");
}

int main(void)
{
	if (!mkdtemp(tmpdir)) return 99;
	test_num();
	test_ints();
	test_strmap();
	test_stackid();
	test_wsum();
	test_jsonbuf();
	test_utf8();
	test_pb();
	test_input();
	test_jscan_seek();
	test_output();
	test_roundtrip();
	test_merge();
	test_merge_overflow();
	test_ids();
	test_sniff();
	test_sniff_bytes();
	test_heapsnap();
	test_radix_sort();
	test_rootpath();
	test_naming();
	test_fmt_dbl();
	test_registry();
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
	if (system(cmd) != 0) diag("could not remove %s", tmpdir);
	return done_testing();
}
