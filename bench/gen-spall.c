/* gen-spall.c - deterministic large spall traces for bench/spall.sh.
 *
 *   gen-spall json MB   a Chrome JSON trace ({"traceEvents":[...]}, one event
 *                       a line) of about MB megabytes: 4 threads, nested
 *                       complete ("X") events written as they end (children
 *                       before parents) on threads 1-3, begin/end ("B"/"E")
 *                       pairs on thread 4; some events carry args
 *   gen-spall bin MB    a binary .spall v3 file of about MB megabytes: 4
 *                       threads, buffers of nested begin/end events, some
 *                       with args
 * The output goes to stdout.  Names come from a pool of 300 called along a
 * fixed call graph (depth up to 8), so distinct call paths are bounded, as
 * in real programs. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)((rng >> 11) % n);
}

#define NNAMES 300
static char names[NNAMES][48];
static const char *const stems[] = { "parse", "lex", "emit", "render_frame", "update_physics",
	"alloc", "io_wait", "schedule", "hash_insert", "compile_unit", "draw_sprites", "decode" };

/* a fixed call graph, as a program has: name i calls 1..3 callees */
static uint32_t callee(uint32_t name)
{
	uint32_t k = rnd(1 + name % 3);
	return (name * 7 + k * 31 + 1) % NNAMES;
}

static uint32_t root(void)
{
	return rnd(8) * 37 % NNAMES;
}

static void make_names(void)
{
	for (int i = 0; i < NNAMES; i++)
		snprintf(names[i], sizeof names[i], "%s_%d", stems[i % 12], i);
}

/* ---- JSON ---------------------------------------------------------------- */

static uint64_t out_bytes;

static void put_ts(char *b, size_t *n, uint64_t ns)
{
	*n += (size_t)sprintf(b + *n, "%llu.%03u", (unsigned long long)(ns / 1000), (unsigned)(ns % 1000));
}

static void jx(int tid, uint32_t name, uint64_t start, uint64_t dur, int args)
{
	char b[512];
	size_t n = 0;
	n += (size_t)sprintf(b + n, "{\"cat\":\"function\",\"name\":\"%s\",\"ph\":\"X\",\"pid\":1,\"tid\":%d,\"ts\":",
			     names[name], tid);
	put_ts(b, &n, start);
	n += (size_t)sprintf(b + n, ",\"dur\":");
	put_ts(b, &n, dur);
	if (args) n += (size_t)sprintf(b + n, ",\"args\":{\"size\":%u,\"file\":\"src/mod%u.c\"}", rnd(100000), rnd(50));
	n += (size_t)sprintf(b + n, "},\n");
	fwrite(b, 1, n, stdout);
	out_bytes += n;
}

/* a span tree in [start, start+dur): children first, then the span (X) */
static void jtree(int tid, uint32_t name, uint64_t start, uint64_t dur, int depth)
{
	uint64_t t = start + 1 + rnd(50);
	if (depth < 7) {
		int k = (int)rnd(4);
		for (int i = 0; i < k; i++) {
			uint64_t room = start + dur > t ? start + dur - t : 0;
			if (room < 100) break;
			uint64_t d = 50 + rnd((uint32_t)(room / 2 < 2000000 ? room / 2 : 2000000));
			jtree(tid, callee(name), t, d, depth + 1);
			t += d + 1 + rnd(20);
		}
	}
	jx(tid, name, start, dur, rnd(8) == 0);
}

static void jbe(int tid, char ph, uint32_t name, uint64_t ts)
{
	char b[256];
	size_t n = 0;
	if (ph == 'B')
		n += (size_t)sprintf(b + n, "{\"name\":\"%s\",\"cat\":\"io\",\"ph\":\"B\",\"pid\":1,\"tid\":%d,\"ts\":",
				     names[name], tid);
	else
		n += (size_t)sprintf(b + n, "{\"ph\":\"E\",\"pid\":1,\"tid\":%d,\"ts\":", tid);
	put_ts(b, &n, ts);
	n += (size_t)sprintf(b + n, "},\n");
	fwrite(b, 1, n, stdout);
	out_bytes += n;
}

static void gen_json(uint64_t limit)
{
	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", stdout);
	for (int tid = 1; tid <= 4; tid++)
		printf("{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":%d,\"args\":{\"name\":\"worker %d\"}},\n",
		       tid, tid);
	uint64_t now[5] = { 0, 1000, 1000, 1000, 1000 };
	uint32_t open[16];
	while (out_bytes < limit) {
		int tid = 1 + (int)rnd(4);
		if (tid < 4) {
			uint64_t d = 10000 + rnd(5000000);
			jtree(tid, root(), now[tid], d, 1);
			now[tid] += d + 10 + rnd(100);
		} else {
			/* a B/E tree, depth-first */
			int depth = 0, steps = 20 + (int)rnd(40);
			for (int i = 0; i < steps || depth > 0; i++) {
				now[4] += 1 + rnd(5000);
				if (depth < 8 && i < steps && (depth == 0 || rnd(2))) {
					open[depth] = depth ? callee(open[depth - 1]) : root();
					jbe(4, 'B', open[depth++], now[4]);
				} else {
					jbe(4, 'E', open[--depth], now[4]);
				}
			}
		}
	}
	printf("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":0,\"args\":{\"name\":\"bench\"}}\n]}\n");
}

/* ---- binary v3 ----------------------------------------------------------- */

static unsigned char bbuf[1 << 16];
static size_t bn;

static void put(const void *p, size_t n)
{
	memcpy(bbuf + bn, p, n);
	bn += n;
}

static void flush_buf(uint32_t tid)
{
	uint32_t h[3] = { (uint32_t)bn, tid, 7 };
	uint64_t first = 0;
	fwrite(h, 4, 3, stdout);
	fwrite(&first, 8, 1, stdout);
	fwrite(bbuf, 1, bn, stdout);
	out_bytes += 20 + bn;
	bn = 0;
}

static void gen_bin(uint64_t limit)
{
	uint64_t hdr[4] = { 0x0BADF00D, 3, 0, 0 };
	double unit = 1.0;
	memcpy(&hdr[2], &unit, 8);
	fwrite(hdr, 8, 4, stdout);
	uint64_t now[4] = { 1000, 1000, 1000, 1000 };
	int depth[4] = { 0 };
	uint32_t stk[4][16];
	static const char args[] = "frame=42 size=4096";
	uint32_t tid = 0;
	/* thread names */
	for (uint32_t t = 0; t < 4; t++) {
		char nm[16];
		int l = sprintf(nm, "worker %u", t);
		unsigned char e[2] = { 9, (unsigned char)l };
		put(e, 2);
		put(nm, (size_t)l);
		flush_buf(t);
	}
	while (out_bytes < limit) {
		tid = rnd(4);
		/* one buffer: events until it is nearly full (spans cross buffers) */
		while (bn < sizeof bbuf - 200) {
			now[tid] += 1 + rnd(3000);
			if (depth[tid] < 8 && (depth[tid] == 0 || rnd(2))) {
				int dd = depth[tid];
				stk[tid][dd] = dd ? callee(stk[tid][dd - 1]) : root();
				const char *nm = names[stk[tid][dd]];
				unsigned char e[11];
				size_t al = rnd(10) == 0 ? sizeof args - 1 : 0;
				e[0] = 3;
				memcpy(e + 1, &now[tid], 8);
				e[9] = (unsigned char)strlen(nm);
				e[10] = (unsigned char)al;
				put(e, 11);
				put(nm, e[9]);
				put(args, al);
				depth[tid]++;
			} else {
				unsigned char e[9];
				e[0] = 4;
				memcpy(e + 1, &now[tid], 8);
				put(e, 9);
				depth[tid]--;
			}
		}
		flush_buf(tid);
	}
	/* close what is open */
	for (tid = 0; tid < 4; tid++) {
		while (depth[tid] > 0) {
			unsigned char e[9];
			now[tid] += 1;
			e[0] = 4;
			memcpy(e + 1, &now[tid], 8);
			put(e, 9);
			depth[tid]--;
		}
		if (bn) flush_buf(tid);
	}
}

int main(int argc, char **argv)
{
	if (argc != 3 || (strcmp(argv[1], "json") && strcmp(argv[1], "bin"))) {
		fprintf(stderr, "usage: gen-spall json|bin MB\n");
		return 2;
	}
	uint64_t limit = strtoull(argv[2], NULL, 10) << 20;
	make_names();
	if (argv[1][0] == 'j') gen_json(limit);
	else gen_bin(limit);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		perror("gen-spall");
		return 1;
	}
	return 0;
}
