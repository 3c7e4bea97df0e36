/* fuzz_cmd.c - a libFuzzer target for one command's reader.  Built once
 * per command (make fuzz), FUZZ_CMD naming it: a converter runs its reader
 * (X_read, found in the registry, readers/registry.h, as any2spaa finds
 * it); another command's own .c is compiled with -Dmain=spaa_cmd_main.
 * Each input is written to a file and run in-process; die() comes back here
 * through cli_exit_override.
 *
 * The state is reset before each run: the readers (common/readers/) and the
 * command's .c are compiled with -fno-zero-initialized-in-bss, so that every
 * variable of static duration they have (file scope or function scope) is
 * in their .data, which objcopy renames spaardr_data (the readers) and
 * spaacmd_data (the command); the linker marks those sections' bounds, and
 * the bytes they had at start-up are copied back before each input.  (What
 * the variables pointed to is leaked: run with -detect_leaks=0 and a high
 * -rss_limit_mb.)
 *
 * How each command is run, and the property checked when it exits 0:
 *   converters      CMD -o OUT [--samples] IN  (--samples, where there is
 *                   one, when the first byte is odd); OUT must read back as
 *                   SPAA without one error, and spaa-validate (linked in,
 *                   reset the same way) must call it valid
 *   spx2spaa        the input is the .json metadata, a line "%%", then the
 *                   events: CMD -o OUT --metadata=META [--samples] EVENTS
 *   spaa-cat        CMD --merge -o OUT IN IN; OUT must read back, and be
 *                   valid when IN is
 *   spaa-demangle   CMD -o OUT IN; the same
 *   spaa-validate   CMD -q IN; a file it calls valid must read without error
 *   spaa-symbolize  CMD --root=EMPTY --kallsyms=K --perf-map=D --maps=D -o OUT
 *                   IN, with a small kallsyms, perf-1.map, perf-100.map and
 *                   maps of pid 1 written at start-up (no ELF file is read:
 *                   the root is empty); OUT as for spaa-demangle
 *   v8log2spaa      CMD --root=EMPTY [--samples] -o OUT IN: as a converter,
 *                   its shared libraries looked for under the empty root
 *   spaa-heapdiff   the input is BEFORE, a line "%%", then AFTER (no such
 *                   line: the input is both): CMD -o OUT BEFORE AFTER; OUT
 *                   must be heap-diff NDJSON, a header first
 *   spaa2pprof      CMD -o OUT IN; pprof2spaa's reader (reset the same
 *                   way) must read OUT back, into SPAA that reads back and
 *                   is valid
 *   perf2spaa       as a converter; a perf.data (PERFILE2) gets --samples
 *                   when its last byte is odd (its first is 'P'); an input
 *                   holding the line-less marker "%%data%%" is a perf record
 *                   --threads directory: the part before the first marker
 *                   is DIR/data, the next DIR/data.0, and so on (at most 16)
 *   spaa-fold       CMD -o OUT IN (the fast reader of the converters' own
 *                   records, spaa_fast_stacks); OUT must be folded stacks:
 *                   "PATH COUNT" lines in bytewise order, no path twice
 * A converter or filter that writes what its own readers refuse is a finding
 * (abort), as much as a crash.  With SPAA_FUZZ_TWICE=1 each input is run
 * twice, and a second run that exits or writes otherwise is a finding: it
 * checks the reset (and that the command is deterministic). */
#define _GNU_SOURCE /* memmem */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "reader.h"
#include "readers/registry.h"
#include "spaa.h"

/* the command's main, when it is no converter */
int spaa_cmd_main(int argc, char **argv) __attribute__((weak));

static bool is(const char *cmd) { return strcmp(FUZZ_CMD, cmd) == 0; }

static bool write_file(const char *path, const void *data, size_t size)
{
	FILE *f = fopen(path, "wb");
	if (!f) return false;
	bool ok = fwrite(data, 1, size, f) == size;
	return fclose(f) == 0 && ok;
}

/* spaa-symbolize's sources, in DIR/spaa-fuzz-PID.sym/: an empty root, a
 * kallsyms (symbols and a module), perf maps of pids 1 and 100, the maps of
 * pid 1 (a PIE under the empty root, and the perf map) */
static char sym_dir[80];
static char a_root[100], a_kallsyms[100], a_perfmap[100], a_maps[100];
static void make_sym_sources(const char *dir)
{
	static const char kallsyms[] =
		"ffffffff81000000 T _stext\nffffffff81000100 T do_syscall_64\nffffffff81000180 t helper\n"
		"ffffffff81000400 T entry_SYSCALL_64\nffffffffc0000000 t mod_fn\t[mod]\n";
	static const char perfmap[] = "1000 100 jit_a\n1100 80 jit_b\n7f0000001000 40 LazyCompile:*f a.js:1\n";
	static const char maps[] = "55d000000000-55d000001000 r-xp 00001000 08:01 42 /usr/bin/app\n"
				   "7f0000000000-7f0000010000 r-xp 00000000 00:00 0 /tmp/perf-1.map\n";
	char p[200];
	snprintf(sym_dir, sizeof sym_dir, "%s/spaa-fuzz-%d.sym", dir, (int)getpid());
	mkdir(sym_dir, 0755);
	snprintf(a_root, sizeof a_root, "--root=%s/root", sym_dir);
	snprintf(p, sizeof p, "%s/root", sym_dir);
	mkdir(p, 0755);
	snprintf(a_kallsyms, sizeof a_kallsyms, "--kallsyms=%s/kallsyms", sym_dir);
	snprintf(p, sizeof p, "%s/kallsyms", sym_dir);
	write_file(p, kallsyms, sizeof kallsyms - 1);
	snprintf(a_perfmap, sizeof a_perfmap, "--perf-map=%s", sym_dir);
	snprintf(a_maps, sizeof a_maps, "--maps=%s", sym_dir);
	snprintf(p, sizeof p, "%s/perf-1.map", sym_dir);
	write_file(p, perfmap, sizeof perfmap - 1);
	snprintf(p, sizeof p, "%s/perf-100.map", sym_dir);
	write_file(p, perfmap, sizeof perfmap - 1);
	snprintf(p, sizeof p, "%s/1", sym_dir);
	write_file(p, maps, sizeof maps - 1);
}

/* the bounds of the command's variables and the readers' (see above) */
extern char __start_spaacmd_data[] __attribute__((weak)), __stop_spaacmd_data[] __attribute__((weak));
static char *initial_data;
extern char __start_spaardr_data[] __attribute__((weak)), __stop_spaardr_data[] __attribute__((weak));
static char *initial_rdr;
/* spaa-validate, linked in the same way (its .data renamed spaaval_data)
 * into the targets of the other commands */
int spaa_validate_main(int argc, char **argv) __attribute__((weak));
extern char __start_spaaval_data[] __attribute__((weak)), __stop_spaaval_data[] __attribute__((weak));
static char *initial_val;
/* the converter under test (NULL for another command), and pprof2spaa's
 * reader, which reads spaa2pprof's output back */
static const reader_def *cmd_reader, *pprof_reader;

/* byte by byte and not through memcpy: the section holds ASan's poisoned
 * red zones between the variables */
__attribute__((no_sanitize("address"))) static void
copy_bytes(volatile char *to, const volatile char *from, size_t n)
{
	for (size_t i = 0; i < n; i++) to[i] = from[i];
}

static jmp_buf back;
static int exit_code;
static int first_free_fd; /* fds from here on are the command's */
static char in_path[64], out_path[80], meta_path[80], back_path[80], dir_path[80];

static void fail(const char *what)
{
	fprintf(stderr, "fuzz_cmd: %s: %s\n", FUZZ_CMD, what);
	abort();
}

/* perf2spaa's --threads directories: DIR/data, DIR/data.0 ... of the parts
 * of data between "%%data%%" markers; false when the input has none */
enum { DIR_PARTS = 16 };
static const char dir_mark[] = "%%data%%";
static void dir_clear(void)
{
	char p[120];
	snprintf(p, sizeof p, "%s/data", dir_path);
	unlink(p);
	for (int i = 0; i < DIR_PARTS; i++) {
		snprintf(p, sizeof p, "%s/data.%d", dir_path, i);
		unlink(p);
	}
}
static bool write_dir(const unsigned char *data, size_t size)
{
	const unsigned char *m = memmem(data, size, dir_mark, sizeof dir_mark - 1);
	if (!m) return false;
	dir_clear();
	mkdir(dir_path, 0755);
	for (int i = -1; i < DIR_PARTS - 1; i++) {
		char p[120];
		if (i < 0) snprintf(p, sizeof p, "%s/data", dir_path);
		else snprintf(p, sizeof p, "%s/data.%d", dir_path, i);
		size_t n = m ? (size_t)(m - data) : size;
		write_file(p, data, n);
		if (!m) break;
		size -= n + sizeof dir_mark - 1;
		data = m + sizeof dir_mark - 1;
		m = memmem(data, size, dir_mark, sizeof dir_mark - 1);
	}
	return true;
}

static pid_t harness_pid;

static void come_back(int code)
{
	/* a process the command forked (the zygote of readers/open.c, its
	 * workers) ends as it would: it must not go on fuzzing */
	if (getpid() != harness_pid) _exit(code);
	exit_code = code;
	longjmp(back, 1);
}

static bool twice;    /* SPAA_FUZZ_TWICE=1 */
static FILE *devnull; /* the command's stderr: its messages are expected */

static void reader_error(spaa_reader *r, const char *msg)
{
	fprintf(stderr, "fuzz_cmd: %s wrote SPAA its readers refuse: line %llu: %s\n",
		FUZZ_CMD, (unsigned long long)r->lineno, msg);
	abort();
}

/* FILE must be SPAA that the record reader takes without an error. */
static void check_reads(const char *path)
{
	spaa_reader *r = spaa_open(path);
	r->on_error = reader_error;
	spaa_stack s = { 0 };
	spaa_sample smp;
	enum spaa_rtype t;
	while ((t = spaa_next(r)) != SPAA_EOF) {
		if (t == SPAA_STACK) spaa_stack_parse(r, &s);
		else if (t == SPAA_SAMPLE) spaa_sample_parse(r, &smp);
	}
	if (!r->have_header) reader_error(r, "no header");
	spaa_stack_free(&s);
	spaa_close(r);
}

/* FILE must be folded stacks: lines "PATH COUNT", every line ended, in
 * bytewise order without repeats (spaa-fold sums identical paths); COUNT a
 * finite number (decimal where the input's weights are).  PATH may be
 * empty: a stack of no frames and no process name (a DTrace aggregation's
 * empty stack), which stackcollapse.pl and inferno-collapse-dtrace print
 * as " COUNT" too, and folded2spaa reads back as such. */
static void check_folded(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) return;
	char *line = NULL, *prev = NULL;
	size_t cap = 0, pl = 0, ppath = 0;
	ssize_t n;
	unsigned long long no = 0;
	while ((n = getline(&line, &cap, f)) > 0) {
		no++;
		const char *why = NULL;
		char *sp = memrchr(line, ' ', (size_t)n);
		if (line[n - 1] != '\n') why = "a line not ended";
		else if (!sp) why = "no count";
		else {
			/* an integer, or a decimal where the weights are (as num_fmt
			 * writes them) */
			char *end;
			errno = 0;
			double v = strtod(sp + 1, &end);
			if (end == sp + 1 || *end != '\n' || errno || v != v) why = "a count that is not a number";
		}
		if (!why && prev) {
			int d = memcmp(prev, line, pl < (size_t)n ? pl : (size_t)n);
			if (d > 0 || (d == 0 && pl > (size_t)n)) why = "lines out of order";
			if (ppath == (size_t)(sp - line) && memcmp(prev, line, ppath) == 0) why = "one path on two lines";
		}
		if (why) {
			fprintf(stderr, "fuzz_cmd: %s wrote folded stacks with %s: line %llu: %.*s", FUZZ_CMD, why, no,
				(int)(n > 200 ? 200 : n), line);
			abort();
		}
		free(prev);
		prev = malloc((size_t)n);
		memcpy(prev, line, (size_t)n);
		pl = (size_t)n;
		ppath = (size_t)(sp - line);
	}
	free(prev);
	free(line);
	fclose(f);
}

/* the files of the runs, at the end */
static void remove_files(void)
{
	unlink(in_path);
	unlink(out_path);
	unlink(meta_path);
	unlink(back_path);
	dir_clear();
	rmdir(dir_path);
	if (*sym_dir) { /* make_sym_sources' */
		static const char *const f[] = { "root", "kallsyms", "perf-1.map", "perf-100.map", "1" };
		for (size_t i = 0; i < sizeof f / sizeof *f; i++) {
			char p[200];
			snprintf(p, sizeof p, "%s/%s", sym_dir, f[i]);
			remove(p);
		}
		rmdir(sym_dir);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	harness_pid = getpid();
	const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"; /* fsync is free there */
	snprintf(in_path, sizeof in_path, "%s/spaa-fuzz-%d.in", dir, (int)getpid());
	snprintf(out_path, sizeof out_path, "%s/spaa-fuzz-%d.spaa", dir, (int)getpid());
	snprintf(meta_path, sizeof meta_path, "%s/spaa-fuzz-%d.json", dir, (int)getpid());
	snprintf(back_path, sizeof back_path, "%s/spaa-fuzz-%d.back.spaa", dir, (int)getpid());
	snprintf(dir_path, sizeof dir_path, "%s/spaa-fuzz-%d.data", dir, (int)getpid());
	atexit(remove_files);
	if (is("spaa-symbolize") || is("v8log2spaa")) make_sym_sources(dir);
	devnull = fopen("/dev/null", "w");
	twice = getenv("SPAA_FUZZ_TWICE") && strcmp(getenv("SPAA_FUZZ_TWICE"), "1") == 0;
	first_free_fd = open("/dev/null", O_RDONLY);
	close(first_free_fd);
	cmd_reader = reader_named(FUZZ_CMD);
	pprof_reader = reader_named("pprof2spaa");
	if (!cmd_reader && !spaa_cmd_main) fail("neither a reader nor a main");
	size_t n = __stop_spaacmd_data - __start_spaacmd_data;
	initial_data = malloc(n ? n : 1);
	copy_bytes(initial_data, __start_spaacmd_data, n);
	n = __stop_spaardr_data - __start_spaardr_data;
	initial_rdr = malloc(n ? n : 1);
	copy_bytes(initial_rdr, __start_spaardr_data, n);
	if (spaa_validate_main) {
		n = __stop_spaaval_data - __start_spaaval_data;
		initial_val = malloc(n ? n : 1);
		copy_bytes(initial_val, __start_spaaval_data, n);
	}
	return 0;
}

/* the reader of converter_run, run as its command runs it */
static const reader_def *converter_run;
static int converter_main(int argc, char **argv)
{
	cli_init(argc, argv);
	return converter_run->read(argc, argv);
}

/* A main, as if started afresh: its variables as they were at start-up,
 * and the readers' */
static int run_main(int (*fn)(int, char **), char *start, char *stop, const char *initial,
		    bool quiet, int argc, char **argv)
{
	char *args[12];
	memcpy(args, argv, (argc + 1) * sizeof *args); /* getopt permutes them */
	copy_bytes(start, initial, (size_t)(stop - start));
	copy_bytes(__start_spaardr_data, initial_rdr, (size_t)(__stop_spaardr_data - __start_spaardr_data));
	optind = 0; /* glibc: a full reset of getopt */
	/* a die() inside a reader run in process (a filter given another
	 * format) left the capture on: a reader would keep its profile
	 * rather than write it */
	char *left;
	size_t left_n;
	reader_captured(&left, &left_n);
	cli_exit_override = come_back;
	exit_code = 0;
	FILE *err = stderr;
	if (devnull && quiet) stderr = devnull; /* sanitizer reports go to fd 2 all the same */
	if (!setjmp(back)) exit_code = fn(argc, args);
	stderr = err;
	cli_exit_override = NULL;
	/* files a die() left open */
	for (int fd = first_free_fd; fd < first_free_fd + 64; fd++) close(fd);
	/* the zygotes of runs before, ended when their socket closed */
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	/* standard output closed by a command that wrote to it: /dev/null */
	if (fcntl(1, F_GETFD) == -1 && devnull) dup2(fileno(devnull), 1);
	return exit_code;
}

/* The command under test. */
static int run(int argc, char **argv)
{
	unlink(out_path);
	converter_run = cmd_reader;
	return run_main(cmd_reader ? converter_main : spaa_cmd_main, __start_spaacmd_data, __stop_spaacmd_data,
			initial_data, true, argc, argv);
}

/* spaa-validate on FILE: 0 when it calls it valid (warnings allowed). */
static int validate(const char *path, bool quiet)
{
	static char a0[] = "spaa-validate", aq[] = "-q";
	char file[96];
	snprintf(file, sizeof file, "%s", path);
	char *argv[4] = { a0, aq, file, NULL };
	if (!quiet) argv[1] = file, argv[2] = NULL;
	return run_main(spaa_validate_main, __start_spaaval_data, __stop_spaaval_data, initial_val, quiet,
			quiet ? 3 : 2, argv);
}

/* pprof2spaa's reader, -o back_path FILE: 0 when it reads the profile. */
static int pprof_back(const char *path, bool quiet)
{
	static char a0[] = "pprof2spaa", ao[] = "-o";
	char file[96];
	snprintf(file, sizeof file, "%s", path);
	char *argv[5] = { a0, ao, back_path, file, NULL };
	unlink(back_path);
	converter_run = pprof_reader;
	return run_main(converter_main, __start_spaacmd_data, __start_spaacmd_data, initial_data, quiet, 4, argv);
}

/* FILE must be heap-diff NDJSON: JSON objects with a "type", a header first. */
static void check_heapdiff(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) fail("wrote no output");
	json_doc d;
	json_doc_init(&d);
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	for (unsigned long k = 1; (n = getline(&line, &cap, f)) > 0; k++) {
		uint32_t t = 0;
		if (line[n - 1] != '\n' || json_parse(&d, line, (size_t)n - 1) || d.nodes[0].type != JSON_OBJECT ||
		    !(t = json_get(&d, 0, "type")) || d.nodes[t].type != JSON_STRING ||
		    (k == 1) != (d.nodes[t].count == 6 && memcmp(d.nodes[t].str, "header", 6) == 0)) {
			fprintf(stderr, "fuzz_cmd: line %lu: %.*s\n", k, (int)(n > 200 ? 200 : n), line);
			fail("wrote a line that is not heap-diff NDJSON");
		}
	}
	free(line);
	json_doc_free(&d);
	fclose(f);
}

/* a whole file (NULL and 0 when there is none) */
static char *slurp(const char *path, size_t *n)
{
	*n = 0;
	FILE *f = fopen(path, "rb");
	if (!f) return NULL;
	char *buf = NULL;
	size_t cap = 0, got;
	do {
		if (*n == cap) buf = realloc(buf, cap = cap ? 2 * cap : 65536);
		got = fread(buf + *n, 1, cap - *n, f);
		*n += got;
	} while (got > 0);
	fclose(f);
	return buf;
}


int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	/* corrupt compressed data ends in a message by design: the input
	 * layer is fuzzed with plain text */
	if (size >= 2 && ((data[0] == 0x28 && data[1] == 0xb5) || (data[0] == 0x1f && data[1] == 0x8b)))
		return 0;
	static char a_o[] = "-o", a_samples[] = "--samples", a_merge[] = "--merge", a_q[] = "-q";
	static char a_meta[100];
	static char a0[] = FUZZ_CMD;
	char *argv[12];
	int argc = 0;
	argv[argc++] = a0;
	if (is("spx2spaa")) {
		const unsigned char *sep = memmem(data, size, "\n%%\n", 4);
		size_t mlen = sep ? (size_t)(sep - data) + 1 : 0;
		if (!write_file(meta_path, data, mlen)) return 0;
		data += sep ? mlen + 3 : 0;
		size -= sep ? mlen + 3 : 0;
		snprintf(a_meta, sizeof a_meta, "--metadata=%s", meta_path);
		argv[argc++] = a_meta;
	}
	if (is("spaa-heapdiff")) { /* BEFORE %% AFTER, or the input twice */
		const unsigned char *sep = memmem(data, size, "\n%%\n", 4);
		size_t blen = sep ? (size_t)(sep - data) + 1 : size;
		if (!write_file(meta_path, data, blen)) return 0;
		data += sep ? blen + 3 : 0;
		size -= sep ? blen + 3 : 0;
	}
	if (is("v8log2spaa")) argv[argc++] = a_root; /* no ELF file read */
	if (is("spaa-symbolize")) {
		argv[argc++] = a_root;
		argv[argc++] = a_kallsyms;
		argv[argc++] = a_perfmap;
		argv[argc++] = a_maps;
	}
	bool perfdata = is("perf2spaa") && size >= 8 && memcmp(data, "PERFILE2", 8) == 0;
	bool dir = is("perf2spaa") && write_dir(data, size);
	if (!dir && !write_file(in_path, data, size)) return 0;
	if (is("spaa-heapdiff")) {
		argv[argc++] = a_o;
		argv[argc++] = out_path;
		argv[argc++] = meta_path;
	} else if (is("spaa-validate")) {
		argv[argc++] = a_q;
	} else {
		if (is("spaa-cat")) argv[argc++] = a_merge;
		else if (perfdata || dir) {
			if (data[size - 1] & 1) argv[argc++] = a_samples;
		} else if (size > 0 && (data[0] & 1) && (is("perf2spaa") || is("spall2spaa") ||
							 is("spx2spaa") || is("afperf2spaa") ||
							 is("v8log2spaa")))
			argv[argc++] = a_samples;
		argv[argc++] = a_o;
		argv[argc++] = out_path;
	}
	argv[argc++] = dir ? dir_path : in_path;
	if (is("spaa-cat")) argv[argc++] = in_path;
	argv[argc] = NULL;

	int code = run(argc, argv);
	if (twice) { /* SPAA_FUZZ_TWICE=1: the reset is complete */
		size_t n1, n2;
		char *out1 = slurp(out_path, &n1);
		if (run(argc, argv) != code) fail("a second run exits differently");
		char *out2 = slurp(out_path, &n2);
		if (n1 != n2 || (n1 && memcmp(out1, out2, n1))) fail("a second run writes other bytes");
		free(out1);
		free(out2);
	}
	if (code == 0 && is("spaa-heapdiff")) {
		check_heapdiff(out_path);
		return 0;
	}
	if (code == 0 && is("spaa2pprof")) { /* pprof2spaa reads it back */
		if (!pprof_reader) fail("built without pprof2spaa's reader");
		if (pprof_back(out_path, true) != 0) {
			pprof_back(out_path, false); /* its message, then the finding */
			fail("wrote a profile pprof2spaa refuses");
		}
		check_reads(back_path);
		if (validate(back_path, true) != 0) {
			validate(back_path, false);
			fail("wrote a profile pprof2spaa reads into SPAA spaa-validate calls invalid");
		}
		return 0;
	}
	if (code == 0 && is("spaa-fold")) {
		check_folded(out_path);
		return 0;
	}
	if (code == 0) check_reads(is("spaa-validate") ? in_path : out_path);
	/* and spaa-validate calls it valid (the property that found the
	 * inline_depth and period findings) */
	/* (spaa-cat passes what it does not change: its input must be valid
	 * for its output to have to be) */
	if (code == 0 && spaa_validate_main && !is("spaa-validate") &&
	    !((is("spaa-cat") || is("spaa-demangle") || is("spaa-symbolize")) && validate(in_path, true) != 0) &&
	    validate(out_path, true) != 0) {
		validate(out_path, false); /* its messages, then the finding */
		fail("wrote a profile spaa-validate calls invalid");
	}
	return 0;
}
