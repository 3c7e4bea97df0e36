/* test_unwind.c - unit tests of common/perf/unwind (no perf needed): the test
 * captures its own registers and a copy of its stack three calls below
 * main, as perf's PERF_SAMPLE_REGS_USER and PERF_SAMPLE_STACK_USER would,
 * gives them to the unwinder with its own executable mappings
 * (/proc/self/maps), and checks that the frames it returns are capture, f1,
 * f2, f3 and main (named by common/perf/elfsym), then libc's start-up code.
 * Built with -O2 -fomit-frame-pointer: the unwinder has to use the CFI. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elfsym.h"
#include "unwind.h"
#include "util.h"
#include "tap.h"

/* LBR call stacks: the kernel part of the callchain, then the branches. */
static void test_lbr(void)
{
	const uint64_t K = UINT64_C(0xffffffffffffff80); /* PERF_CONTEXT_KERNEL */
	const uint64_t chain[] = { K, 0xffffffff81000010, 0xffffffff81000020, UNWIND_CONTEXT_USER, 0x401234, 0x7fff0000 };
	/* from, to, flags: main+0x10 -> f, f+0x8 -> g, g+0x4 -> leaf */
	const uint64_t br[] = { 0x401104, 0x401200, 0, 0x401008, 0x401100, 0, 0x400f10, 0x401000, 0 };
	uint64_t out[16];
	uint32_t n = unwind_lbr((const uint8_t *)chain, 6, (const uint8_t *)br, 3, out, 16);
	const uint64_t want[] = { K, 0xffffffff81000010, 0xffffffff81000020, UNWIND_CONTEXT_USER, 0x401200, 0x401104,
				  0x401008, 0x400f10 };
	ok(n == 8 && !memcmp(out, want, sizeof want), "lbr: kernel part, marker, entry 0's target, the sources");
	n = unwind_lbr((const uint8_t *)chain, 6, (const uint8_t *)br, 3, out, 5);
	ok(n == 5 && !memcmp(out, want, 5 * sizeof *want), "lbr: at most max entries");
	n = unwind_lbr((const uint8_t *)chain, 3, (const uint8_t *)br, 3, out, 16);
	ok(n == 3 && !memcmp(out, chain, 3 * sizeof *chain), "lbr: no user part: the callchain as it is");
	n = unwind_lbr((const uint8_t *)chain, 6, (const uint8_t *)br, 0, out, 16);
	ok(n == 6 && !memcmp(out, chain, sizeof chain), "lbr: no branches: the callchain as it is");
}

#if defined(__x86_64__)

/* perf's x86_64 registers AX BX CX DX SI DI BP SP IP (bits 0..8) and
 * R8..R15 (bits 16..23), in bit order */
#define REGS_MASK (UINT64_C(0x1ff) | UINT64_C(0xff) << 16)
static uint64_t regs[17];
static uint8_t stack_copy[65536];
static uint64_t stack_len;
extern void *__libc_stack_end;

/* Copies the stack from sp up (not instrumented: the copy crosses
 * sanitizers' redzones of the frames above). */
#if defined(__SANITIZE_ADDRESS__)
#define NO_ASAN __attribute__((no_sanitize_address))
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NO_ASAN __attribute__((no_sanitize_address))
#endif
#endif
#ifndef NO_ASAN
#define NO_ASAN
#endif
static NO_ASAN __attribute__((noinline)) void copy_stack(uint64_t sp)
{
	uint64_t top = (uint64_t)(uintptr_t)__libc_stack_end;
	uint64_t n = top > sp ? top - sp : 0;
	if (n > sizeof stack_copy) n = sizeof stack_copy;
	const volatile uint8_t *p = (const volatile uint8_t *)(uintptr_t)sp;
	for (uint64_t i = 0; i < n; i++) stack_copy[i] = p[i];
	stack_len = n;
}

/* The registers at the label inside it, then the stack at that point (the
 * frame does not move between the two). */
static __attribute__((noinline)) int capture(volatile int x)
{
	__asm__ volatile(
		"movq %%rax, 0(%0)\n\t"
		"movq %%rbx, 8(%0)\n\t"
		"movq %%rcx, 16(%0)\n\t"
		"movq %%rdx, 24(%0)\n\t"
		"movq %%rsi, 32(%0)\n\t"
		"movq %%rdi, 40(%0)\n\t"
		"movq %%rbp, 48(%0)\n\t"
		"movq %%rsp, 56(%0)\n\t"
		"1: leaq 1b(%%rip), %%rax\n\t"
		"movq %%rax, 64(%0)\n\t"
		"movq %%r8, 72(%0)\n\t"
		"movq %%r9, 80(%0)\n\t"
		"movq %%r10, 88(%0)\n\t"
		"movq %%r11, 96(%0)\n\t"
		"movq %%r12, 104(%0)\n\t"
		"movq %%r13, 112(%0)\n\t"
		"movq %%r14, 120(%0)\n\t"
		"movq %%r15, 128(%0)\n\t"
		: : "r"(regs) : "rax", "memory");
	copy_stack(regs[7]);
	return x + 1;
}

static __attribute__((noinline)) int f1(volatile int x) { return capture(x) * 3; }
static __attribute__((noinline)) int f2(volatile int x) { return f1(x + 1) * 5; }
static __attribute__((noinline)) int f3(volatile int x) { return f2(x + 2) * 7; }

static unwind_map maps[256];
static char *paths[256];
static uint32_t nmaps;

/* The executable mappings of this process, from /proc/self/maps. */
static void read_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];
	while (f && fgets(line, sizeof line, f) && nmaps < 256) {
		unsigned long long s, e, off;
		char perms[8];
		int pos = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &s, &e, perms, &off, &pos) < 4 || !pos) continue;
		if (perms[2] != 'x' || line[pos] != '/') continue;
		line[strcspn(line, "\n")] = 0;
		paths[nmaps] = xstrdup(line + pos);
		maps[nmaps] = (unwind_map){ s, e, off, paths[nmaps], NULL };
		nmaps++;
	}
	if (f) fclose(f);
}

/* The physical function at ip, "?" when unnamed. */
static const char *name_of(elfsym *es, uint64_t ip)
{
	for (uint32_t i = 0; i < nmaps; i++)
		if (ip >= maps[i].start && ip < maps[i].end) {
			elfsym_res r;
			if (elfsym_lookup(es, maps[i].path, ip - maps[i].start + maps[i].pgoff, true, &r) != ES_OK)
				return "?";
			return r.func[r.n - 1];
		}
	return "?";
}

static unwind_sample sample(uint64_t version)
{
	return (unwind_sample){ .pid = 1234, .maps = maps, .nmaps = nmaps, .maps_version = version,
				.abi = UNWIND_ABI_64, .regs_mask = REGS_MASK, .regs = (const uint8_t *)regs, .nregs = 17,
				.stack = stack_copy, .stack_size = stack_len };
}

int main(void)
{
	volatile int seed = 1;
	int v = f3(seed);
	ok(v > 0 && stack_len > 256, "captured the registers and %" PRIu64 " bytes of stack", stack_len);
	read_maps();
	ok(nmaps >= 2, "%u executable mappings", nmaps);

	elfsym *es = elfsym_new(NULL, NULL);
	unwind *u = unwind_new(unwind_arch_from_name("x86_64"), NULL, NULL);
	uint64_t ips[UNWIND_MAX_DEPTH];
	int why = -1;
	unwind_sample s = sample(1);
	uint32_t n = unwind_stack(u, &s, ips, UNWIND_MAX_DEPTH, &why);
	static const char *const want[] = { "capture", "f1", "f2", "f3", "main" };
	ok(n >= 6, "unwound %u frames, past main", n);
	is_int((int64_t)ips[0], (int64_t)regs[8], "frame 0 is the sampled pc");
	for (int i = 0; i < 5 && (uint32_t)i < n; i++) is_str(name_of(es, ips[i]), want[i], "frame %d", i);
	is_int(why, UW_OK, "ends at the outermost frame (%s)", unwind_why_text(why));
	for (uint32_t i = 0; i < n; i++) diag("%2u %#" PRIx64 " %s", i, ips[i], name_of(es, ips[i]));

	ok(!unwind_need_maps(u, 1234, 1) && unwind_need_maps(u, 1234, 2) && unwind_need_maps(u, 1235, 1),
	   "maps needed for a new version or a new process only");
	/* the same session again; a new one when the maps change */
	uint64_t again[UNWIND_MAX_DEPTH];
	uint32_t n2 = unwind_stack(u, &s, again, UNWIND_MAX_DEPTH, NULL);
	ok(n2 == n && !memcmp(again, ips, n * sizeof *ips), "the cached session gives the same frames");
	s.maps = NULL;
	s.nmaps = 0;
	n2 = unwind_stack(u, &s, again, UNWIND_MAX_DEPTH, NULL);
	ok(n2 == n && !memcmp(again, ips, n * sizeof *ips), "the cached session needs no maps");
	s = sample(2);
	n2 = unwind_stack(u, &s, again, UNWIND_MAX_DEPTH, NULL);
	ok(n2 == n && !memcmp(again, ips, n * sizeof *ips), "a rebuilt session gives the same frames");
	/* other processes, more than the sessions kept */
	for (int k = 0; k < UNWIND_MAX_PROCS + 3; k++) {
		s = sample(1);
		s.pid = 2000 + k;
		n2 = unwind_stack(u, &s, again, UNWIND_MAX_DEPTH, NULL);
		if (n2 != n || memcmp(again, ips, n * sizeof *ips)) break;
		if (k == UNWIND_MAX_PROCS + 2) ok(1, "%d processes through %d sessions", k + 1, UNWIND_MAX_PROCS);
	}

	/* mappings that change under a kept session (dlclose, dlopen): the
	 * same frames as a new unwinder's with the same mappings */
	int libc = -1;
	for (uint32_t i = 0; i < nmaps; i++)
		if (strstr(maps[i].path, "/libc.so")) libc = (int)i;
	ok(libc >= 0, "libc is mapped");
	unwind_map part[256];
	uint32_t npart = 0;
	for (uint32_t i = 0; i < nmaps; i++)
		if ((int)i != libc) part[npart++] = maps[i];
	unwind_map other[256];
	memcpy(other, maps, nmaps * sizeof *maps);
	if (libc >= 0) other[libc].path = maps[0].path; /* another file where libc was */
	const struct { const unwind_map *m; uint32_t n; const char *what; } change[] = {
		{ part, npart, "libc gone: its frames are in no file" },
		{ maps, nmaps, "libc mapped again where it was" },
		{ other, nmaps, "another file mapped where libc was" },
		{ maps, nmaps, "libc again" },
	};
	for (int k = 0; k < 4; k++) {
		s = sample(10 + (uint64_t)k);
		s.maps = change[k].m;
		s.nmaps = change[k].n;
		n2 = unwind_stack(u, &s, again, UNWIND_MAX_DEPTH, NULL);
		unwind *nu = unwind_new(unwind_arch_from_name("x86_64"), NULL, NULL);
		uint64_t fresh[UNWIND_MAX_DEPTH];
		uint32_t n3 = unwind_stack(nu, &s, fresh, UNWIND_MAX_DEPTH, NULL);
		unwind_free(nu);
		ok(n2 == n3 && !memcmp(again, fresh, n3 * sizeof *fresh) && (k != 1 || n2 == n), "%s: %u frames, as a new session's",
		   change[k].what, n2);
	}

	/* a depth limit */
	s = sample(1);
	n2 = unwind_stack(u, &s, again, 3, &why);
	ok(n2 == 3 && !memcmp(again, ips, 3 * sizeof *ips) && why == UW_OK, "max 3: the 3 innermost frames");

	/* a stack copy cut short: the frames it holds, then a stop */
	s.stack_size = 8;
	n2 = unwind_stack(u, &s, again, UNWIND_MAX_DEPTH, &why);
	ok(n2 >= 2 && n2 < n && why == UW_STOPPED, "an 8-byte stack copy: %u frames, then %s", n2,
	   unwind_why_text(why));
	ok(again[0] == regs[8] && again[n2 - 1] == UINT64_MAX, "a cut stack ends at 0 less one, as perf script's");
	/* the last word of the copy is not read (as perf with libunwind):
	 * the first return address, at the CFA less 8, in the last word */
	uint64_t cfa_ret = 0;
	for (uint64_t off = 0; off + 8 <= stack_len; off += 8) {
		uint64_t w;
		memcpy(&w, stack_copy + off, 8);
		if (w == ips[1] + 1) {
			cfa_ret = off + 8;
			break;
		}
	}
	s.stack_size = cfa_ret;
	n2 = unwind_stack(u, &s, again, UNWIND_MAX_DEPTH, &why);
	ok(cfa_ret && n2 == 2 && again[1] == UINT64_MAX, "a copy ending with the return address: not read (%u frames)", n2);
	s.stack_size = cfa_ret + 8;
	n2 = unwind_stack(u, &s, again, UNWIND_MAX_DEPTH, &why);
	ok(n2 >= 3 && again[1] == ips[1], "8 bytes more: read (%u frames)", n2);

	/* no user registers; 32-bit; no stack pointer */
	s = sample(1);
	s.abi = UNWIND_ABI_NONE;
	is_int(unwind_stack(u, &s, again, UNWIND_MAX_DEPTH, &why), 0, "abi none: no frames");
	is_int(why, UW_NO_REGS, "abi none: no user registers");
	s.abi = UNWIND_ABI_32;
	n2 = unwind_stack(u, &s, again, UNWIND_MAX_DEPTH, &why);
	ok(n2 == 1 && again[0] == regs[8], "abi 32: the pc alone");
	is_int(why, UW_BAD_REGS, "abi 32: not unwound");
	s = sample(1);
	s.regs_mask = REGS_MASK & ~(UINT64_C(1) << 7);
	is_int(unwind_stack(u, &s, again, UNWIND_MAX_DEPTH, &why), 0, "no sp: no frames");
	s = sample(1);
	s.nregs = 8;
	is_int(unwind_stack(u, &s, again, UNWIND_MAX_DEPTH, &why), 0, "fewer values than the mask has bits: no pc");
	is_int(why, UW_BAD_REGS, "fewer values than the mask has bits: refused");

	/* no file for the mappings: the pc alone */
	unwind_map none[1] = { { maps[0].start, maps[0].end, maps[0].pgoff, "/nonexistent/file", NULL } };
	s = sample(1);
	s.pid = 99;
	s.maps = none;
	s.nmaps = 1;
	n2 = unwind_stack(u, &s, again, UNWIND_MAX_DEPTH, &why);
	ok(n2 == 1 && again[0] == regs[8] && why == UW_NO_MODULE, "no readable file: the pc alone (%s)",
	   unwind_why_text(why));

	unwind_free(u);
	elfsym_free(es);
	for (uint32_t i = 0; i < nmaps; i++) free(paths[i]);
	is_int(unwind_arch_from_name("sparc"), UNWIND_ARCH_NONE, "an architecture it does not know");
	test_lbr();
	return done_testing();
}

#else

int main(void)
{
	ok(1, "# SKIP the capture is written for x86_64");
	test_lbr();
	return done_testing();
}

#endif
