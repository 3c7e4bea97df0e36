/* gen-symbolize - a large SPAA profile whose frames are only addresses, for
 * spaa-symbolize's benchmark (bench/symbolize.sh).
 *
 * usage: gen-symbolize [SAMPLES [STACKS]] < ADDRESSES   (default 1000000 150000)
 *
 * ADDRESSES: lines "PATH 0xADDR", addresses in ELF files of this machine
 * (bench/symbolize.sh picks them from the function symbols of ~20 files).
 * Every distinct address is one frame (func the address, func_resolved
 * false, ip, the file as dso, as perf2spaa and folded2spaa --addrs write
 * them); STACKS unique stacks of 12 to 48 frames of one process over 8
 * threads with content ids, and SAMPLES sample records after them (skewed
 * as bench/gen-spaa.c makes them).  Deterministic for the same input. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stackid.h"

#define NTHREADS 8

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint64_t next_rand(void) { return rand64(&rng); }
static uint32_t below(uint32_t n) { return (uint32_t)(next_rand() % n); }
static uint32_t skewed(uint32_t n)
{
	double u = (double)(next_rand() >> 11) / 9007199254740992.0;
	return (uint32_t)((double)n * u * u * u);
}

struct frame { char ip[24]; uint32_t dso; };
struct stack { uint32_t off, n, thread; uint64_t samples, period; char id[20]; };

int main(int argc, char **argv)
{
	uint64_t nsamples = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
	uint32_t nstacks = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 150000;
	static char obuf[1 << 20];
	setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
	char (*dsos)[256] = NULL;
	uint32_t ndso = 0, nframes = 0, fcap = 0, dcap = 0;
	struct frame *frames = NULL;
	char path[256], ip[64];
	while (scanf("%255s %63s", path, ip) == 2) {
		if (!ndso || strcmp(dsos[ndso - 1], path) != 0) {
			if (ndso == dcap) dsos = realloc(dsos, (dcap = dcap * 2 + 16) * sizeof *dsos);
			snprintf(dsos[ndso++], sizeof *dsos, "%s", path);
		}
		if (nframes == fcap) frames = realloc(frames, (fcap = fcap * 2 + 1024) * sizeof *frames);
		snprintf(frames[nframes].ip, sizeof frames[nframes].ip, "%s", ip);
		frames[nframes++].dso = ndso - 1;
	}
	if (!nframes) {
		fprintf(stderr, "gen-symbolize: no addresses on standard input\n");
		return 2;
	}
	printf("{\"type\":\"header\",\"format\":\"spaa\",\"version\":\"1.0\",\"source_tool\":\"folded\","
	       "\"frame_order\":\"leaf_to_root\",\"events\":[{\"name\":\"cpu\",\"kind\":\"software\","
	       "\"sampling\":{\"mode\":\"frequency\",\"primary_metric\":\"samples\"}}],"
	       "\"source\":{\"tool\":\"bpf-exporter\"},\"stack_id_mode\":\"content_addressable\"}\n");
	for (uint32_t d = 0; d < ndso; d++)
		printf("{\"type\":\"dso\",\"id\":%u,\"name\":\"%s\",\"is_kernel\":false}\n", d + 1, dsos[d]);
	for (uint32_t f = 0; f < nframes; f++)
		printf("{\"type\":\"frame\",\"id\":%u,\"func\":\"%s\",\"func_resolved\":false,\"dso\":%u,"
		       "\"ip\":\"%s\",\"kind\":\"user\"}\n", f + 1, frames[f].ip, frames[f].dso + 1, frames[f].ip);
	for (int t = 0; t < NTHREADS; t++)
		printf("{\"type\":\"thread\",\"pid\":4242,\"tid\":%d,\"comm\":\"bench-%d\"}\n", 4242 + t, t);
	struct stack *stacks = calloc(nstacks, sizeof *stacks);
	uint32_t *fpool = malloc((size_t)nstacks * 48 * sizeof *fpool);
	uint32_t used = 0;
	for (uint32_t s = 0; s < nstacks; s++) {
		struct stack *x = &stacks[s];
		x->off = used;
		x->n = 12 + below(37);
		x->thread = below(NTHREADS);
		for (uint32_t j = 0; j < x->n; j++) fpool[used + j] = below(nframes);
		used += x->n;
		uint64_t h = FNV64_BASIS;
		for (uint32_t j = x->n; j-- > 0;) {
			const struct frame *f = &frames[fpool[x->off + j]];
			stackid_frame sf = { sstr_c(f->ip), sstr_c(dsos[f->dso]), SSTR_NULL, false };
			h = stackid_add_frame(h, &sf);
		}
		stackid_ctx c = { sstr_c("cpu"), SSTR_NULL, SSTR_NULL, true, true, 4242, 4242 + x->thread };
		stackid_fmt(x->id, stackid_add_ctx(h, &c));
	}
	uint64_t seed = rng;
	for (uint64_t i = 0; i < nsamples; i++) stacks[skewed(nstacks)].samples++;
	for (uint32_t s = 0; s < nstacks; s++) {
		struct stack *x = &stacks[s];
		if (!x->samples) x->samples = 1;
		printf("{\"type\":\"stack\",\"id\":\"%s\",\"frames\":[", x->id);
		for (uint32_t j = 0; j < x->n; j++) printf(j ? ",%u" : "%u", fpool[x->off + j] + 1);
		printf("],\"context\":{\"event\":\"cpu\",\"pid\":4242,\"tid\":%u},"
		       "\"weights\":[{\"metric\":\"samples\",\"value\":%" PRIu64 "}],"
		       "\"exclusive\":{\"frame\":%u,\"weights\":[{\"metric\":\"samples\",\"value\":%" PRIu64 "}]}}\n",
		       4242 + x->thread, x->samples, fpool[x->off] + 1, x->samples);
	}
	rng = seed;
	for (uint64_t i = 0; i < nsamples; i++) {
		struct stack *x = &stacks[skewed(nstacks)];
		printf("{\"type\":\"sample\",\"timestamp\":%.6f,\"pid\":4242,\"tid\":%u,\"cpu\":%u,"
		       "\"event\":\"cpu\",\"stack_id\":\"%s\"}\n",
		       1000 + (double)i / 1000.0, 4242 + x->thread, x->thread % 4, x->id);
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		perror("gen-symbolize: write error");
		return 1;
	}
	return 0;
}
