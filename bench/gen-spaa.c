/* gen-spaa - writes a large, valid, perf-like SPAA profile for benchmarks.
 *
 * usage: gen-spaa [SAMPLES [STACKS [FRAMES]]]   (default 1000000 150000 20000)
 *
 * The file has 200 dsos (one kernel), FRAMES frames, STACKS unique stacks of
 * 12 to 48 frames over 8 threads with content ids (stackid.h, from the
 * spaa-tools library this is linked with), samples and period weights that
 * add up to the SAMPLES sample records written after the stacks (skewed:
 * a few stacks get most samples).  Deterministic: the same arguments give
 * the same bytes.  Frame order leaf_to_root. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stackid.h"

#define NDSO 200
#define NTHREADS 8

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint64_t next_rand(void) { return rand64(&rng); }
static uint32_t below(uint32_t n)
{
	return (uint32_t)(next_rand() % n);
}

static char dso_name[NDSO][64];
struct frame { char func[64]; char src[48]; uint32_t dso; };
static struct frame *frames;
struct stack { uint32_t off, n, thread; uint64_t samples, period; char id[20]; };
static struct stack *stacks;
static uint32_t *fpool;

/* Skewed pick: small indices are much more likely. */
static uint32_t skewed(uint32_t n)
{
	double u = (double)(next_rand() >> 11) / 9007199254740992.0;
	return (uint32_t)((double)n * u * u * u);
}

int main(int argc, char **argv)
{
	uint64_t nsamples = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
	uint32_t nstacks = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 150000;
	uint32_t nframes = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 10) : 20000;
	static char obuf[1 << 20];
	setvbuf(stdout, obuf, _IOFBF, sizeof obuf);

	printf("{\"type\":\"header\",\"format\":\"spaa\",\"version\":\"1.0\",\"source_tool\":\"perf\","
	       "\"frame_order\":\"leaf_to_root\",\"events\":[{\"name\":\"cycles\",\"kind\":\"hardware\","
	       "\"sampling\":{\"mode\":\"period\",\"primary_metric\":\"period\",\"sample_period\":1000003}}],"
	       "\"time_range\":{\"start\":1000,\"end\":%.6f,\"unit\":\"seconds\"},"
	       "\"source\":{\"tool\":\"perf\",\"command\":\"perf record -g ./bench\"},"
	       "\"stack_id_mode\":\"content_addressable\"}\n", 1000 + (double)nsamples / 1000.0);
	for (int d = 0; d < NDSO; d++) {
		if (d == 0) snprintf(dso_name[d], sizeof dso_name[d], "[kernel.kallsyms]");
		else snprintf(dso_name[d], sizeof dso_name[d], "/usr/lib/x86_64-linux-gnu/libbench%03d.so.1", d);
		printf("{\"type\":\"dso\",\"id\":%d,\"name\":\"%s\",\"build_id\":\"%016" PRIx64 "%08x\",\"is_kernel\":%s}\n",
		       d + 1, dso_name[d], next_rand(), (unsigned)d, d == 0 ? "true" : "false");
	}
	frames = calloc(nframes, sizeof *frames);
	for (uint32_t f = 0; f < nframes; f++) {
		struct frame *x = &frames[f];
		x->dso = f < nframes / 20 ? 0 : 1 + below(NDSO - 1);
		if (x->dso == 0) {
			snprintf(x->func, sizeof x->func, "ksys_handler_%05u", f);
			printf("{\"type\":\"frame\",\"id\":%u,\"func\":\"%s\",\"dso\":1,\"ip\":\"0xffffffff81%06x\","
			       "\"symoff\":\"0x%x\",\"kind\":\"kernel\"}\n", f + 1, x->func, f * 64, below(512));
		} else {
			snprintf(x->func, sizeof x->func, "bench::module%02u::function_%05u", f % 97, f);
			snprintf(x->src, sizeof x->src, "src/module%02u.rs:%u", f % 97, 10 + below(2000));
			printf("{\"type\":\"frame\",\"id\":%u,\"func\":\"%s\",\"dso\":%u,\"ip\":\"0x%x\","
			       "\"symoff\":\"0x%x\",\"srcline\":\"%s\",\"kind\":\"user\"}\n",
			       f + 1, x->func, x->dso + 1, 0x400000 + f * 48, below(256), x->src);
		}
	}
	for (int t = 0; t < NTHREADS; t++)
		printf("{\"type\":\"thread\",\"pid\":4242,\"tid\":%d,\"comm\":\"bench-%d\"}\n", 4242 + t, t);

	/* stacks: leaf first; the deeper frames are user frames, a kernel leaf
	 * part for one in four */
	stacks = calloc(nstacks, sizeof *stacks);
	fpool = malloc((size_t)nstacks * 48 * sizeof *fpool);
	uint32_t kframes = nframes / 20, uframes = nframes - kframes;
	uint32_t used = 0;
	for (uint32_t s = 0; s < nstacks; s++) {
		struct stack *x = &stacks[s];
		x->off = used;
		x->n = 12 + below(37);
		x->thread = below(NTHREADS);
		uint32_t nk = below(4) == 0 ? 1 + below(4) : 0;
		for (uint32_t j = 0; j < x->n; j++)
			fpool[used + j] = j < nk ? below(kframes) : kframes + below(uframes);
		used += x->n;
		uint64_t h = FNV64_BASIS;
		for (uint32_t j = x->n; j-- > 0;) {
			const struct frame *f = &frames[fpool[x->off + j]];
			stackid_frame sf = { sstr_c(f->func), sstr_c(dso_name[f->dso]),
					     f->src[0] ? sstr_c(f->src) : SSTR_NULL, false };
			h = stackid_add_frame(h, &sf);
		}
		stackid_ctx c = { sstr_c("cycles"), SSTR_NULL, SSTR_NULL, true, true, 4242, 4242 + x->thread };
		stackid_fmt(x->id, stackid_add_ctx(h, &c));
	}
	/* sample counts first (same generator state replayed for the records) */
	uint64_t seed = rng;
	for (uint64_t i = 0; i < nsamples; i++) {
		struct stack *x = &stacks[skewed(nstacks)];
		x->samples++;
		x->period += 1000003 + below(1000);
	}
	for (uint32_t s = 0; s < nstacks; s++) {
		struct stack *x = &stacks[s];
		if (!x->samples) { /* every stack has at least one sample's weight */
			x->samples = 1;
			x->period = 1000003;
		}
		printf("{\"type\":\"stack\",\"id\":\"%s\",\"frames\":[", x->id);
		for (uint32_t j = 0; j < x->n; j++)
			printf(j ? ",%u" : "%u", fpool[x->off + j] + 1);
		printf("],\"context\":{\"event\":\"cycles\",\"pid\":4242,\"tid\":%u},"
		       "\"weights\":[{\"metric\":\"samples\",\"value\":%" PRIu64 "},"
		       "{\"metric\":\"period\",\"value\":%" PRIu64 ",\"unit\":\"events\"}],"
		       "\"exclusive\":{\"frame\":%u,\"weights\":[{\"metric\":\"samples\",\"value\":%" PRIu64 "},"
		       "{\"metric\":\"period\",\"value\":%" PRIu64 "}]}}\n",
		       4242 + x->thread, x->samples, x->period, fpool[x->off] + 1, x->samples, x->period);
	}
	rng = seed;
	for (uint64_t i = 0; i < nsamples; i++) {
		struct stack *x = &stacks[skewed(nstacks)];
		uint32_t extra = below(1000);
		printf("{\"type\":\"sample\",\"timestamp\":%.6f,\"pid\":4242,\"tid\":%u,\"cpu\":%u,"
		       "\"event\":\"cycles\",\"period\":%u,\"stack_id\":\"%s\"}\n",
		       1000 + (double)i / 1000.0, 4242 + x->thread, x->thread % 4, 1000003 + extra, x->id);
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		perror("gen-spaa: write error");
		return 1;
	}
	return 0;
}
