/* fuzz_cmd.c - a libFuzzer target for one converter's reader.  Built once
 * per command (make fuzz): the command's own .c is compiled with
 * -Dmain=spaa_cmd_main and FUZZ_CMD names it.  Each input is written to a
 * file and converted in-process with `-o FILE` (and --samples when the first
 * byte is odd); die() comes back here through cli_exit_override.  When the
 * conversion succeeds, its output must read back as SPAA without a single
 * error: a converter that writes what its own readers refuse is a finding
 * (abort).  Commands keep their state in one struct that main() clears.
 * Leaks on error paths are expected: run with -detect_leaks=0 and a high
 * -rss_limit_mb (they add up over a run). */
#include <fcntl.h>
#include <getopt.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "spaa.h"

int spaa_cmd_main(int argc, char **argv);

static jmp_buf back;
static int exit_code;
static int first_free_fd; /* fds from here on are the command's */
static char in_path[64], out_path[80];

static void come_back(int code)
{
	exit_code = code;
	longjmp(back, 1);
}

static void reader_error(spaa_reader *r, const char *msg)
{
	fprintf(stderr, "fuzz_cmd: %s wrote SPAA its readers refuse: line %llu: %s\n",
		FUZZ_CMD, (unsigned long long)r->lineno, msg);
	abort();
}

/* The output must be SPAA that the record reader takes without an error. */
static void check_output(void)
{
	spaa_reader *r = spaa_open(out_path);
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

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"; /* fsync is free there */
	snprintf(in_path, sizeof in_path, "%s/spaa-fuzz-%d.in", dir, (int)getpid());
	snprintf(out_path, sizeof out_path, "%s/spaa-fuzz-%d.spaa", dir, (int)getpid());
	first_free_fd = open("/dev/null", O_RDONLY);
	close(first_free_fd);
	return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	/* corrupt compressed data ends in a message by design: the input
	 * layer is fuzzed with plain text */
	if (size >= 2 && ((data[0] == 0x28 && data[1] == 0xb5) || (data[0] == 0x1f && data[1] == 0x8b)))
		return 0;
	FILE *f = fopen(in_path, "wb");
	if (!f) return 0;
	if (fwrite(data, 1, size, f) != size) {
		fclose(f);
		return 0;
	}
	fclose(f);
	unlink(out_path);
	static char a0[] = FUZZ_CMD, a1[] = "-o", a2[] = "--samples";
	char *argv[6];
	int argc = 0;
	argv[argc++] = a0;
	argv[argc++] = a1;
	argv[argc++] = out_path;
	if (size > 0 && (data[0] & 1)) argv[argc++] = a2;
	argv[argc++] = in_path;
	argv[argc] = NULL;
	optind = 0; /* glibc: a full reset of getopt */
	cli_exit_override = come_back;
	exit_code = 0;
	if (!setjmp(back)) exit_code = spaa_cmd_main(argc, argv);
	cli_exit_override = NULL;
	/* files a die() left open */
	for (int fd = first_free_fd; fd < first_free_fd + 64; fd++) close(fd);
	if (exit_code == 0) check_output();
	return 0;
}
