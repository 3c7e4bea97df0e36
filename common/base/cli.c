/* cli.c - program name, diagnostics, exit codes, help and version. */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "utf8.h"
#include "util.h"

const char *cli_prog = "spaa";
const char *cli_input;

#define MAX_HOOKS 8
static void (*hooks[MAX_HOOKS])(void);
static int nhooks;

void cli_init(int argc, char **argv)
{
	if (argc > 0 && argv[0]) {
		const char *s = strrchr(argv[0], '/');
		cli_prog = s ? s + 1 : argv[0];
		/* getopt's messages name argv[0]: the program's name, not its path */
		argv[0] = (char *)cli_prog;
	}
}

void cli_atexit(void (*fn)(void))
{
	if (nhooks < MAX_HOOKS) hooks[nhooks++] = fn;
}

void (*cli_exit_override)(int code);
void (*cli_before_die)(void);

noreturn void cli_exit(int code)
{
	while (nhooks > 0) hooks[--nhooks]();
	if (cli_exit_override) cli_exit_override(code);
	exit(code);
}

/* A message as the terminal should see it: control bytes (other than tab)
 * and bytes that are not UTF-8, which input echoed in a message may hold,
 * are written as \xNN. */
static void put_shown(const char *s, size_t n)
{
	const uint8_t *p = (const uint8_t *)s, *end = p + n;
	while (p < end) {
		int l = *p >= 0x80 ? utf8_seq(p, end) : 1;
		if (l < 0 || (*p < 0x20 && *p != '\t') || *p == 0x7f) {
			fprintf(stderr, "\\x%02x", *p);
			p++;
		} else {
			fwrite(p, 1, (size_t)l, stderr);
			p += l;
		}
	}
}

static void vmsg(const char *file, uint64_t line, const char *fmt, va_list ap)
{
	char buf[1024], *m = buf;
	va_list aq;
	va_copy(aq, ap);
	int n = vsnprintf(buf, sizeof buf, fmt, aq);
	va_end(aq);
	if (n < 0) n = 0;
	if ((size_t)n >= sizeof buf && (m = malloc((size_t)n + 1)) != NULL)
		vsnprintf(m, (size_t)n + 1, fmt, ap);
	if (!m) {
		m = buf;
		n = sizeof buf - 1;
	}
	fflush(stdout);
	fprintf(stderr, "%s: ", cli_prog);
	if (file) {
		put_shown(file, strlen(file));
		if (line) fprintf(stderr, ":%llu", (unsigned long long)line);
		fputs(": ", stderr);
	}
	put_shown(m, (size_t)n);
	fputc('\n', stderr);
	if (m != buf) free(m);
}

void warnmsg(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg(NULL, 0, fmt, ap);
	va_end(ap);
}

void warn_at(const char *file, uint64_t line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg(file, line, fmt, ap);
	va_end(ap);
}

noreturn void die(int code, const char *fmt, ...)
{
	va_list ap;
	if (cli_before_die) cli_before_die();
	va_start(ap, fmt);
	vmsg(NULL, 0, fmt, ap);
	va_end(ap);
	cli_exit(code);
}

noreturn void die_at(const char *file, uint64_t line, const char *fmt, ...)
{
	va_list ap;
	if (cli_before_die) cli_before_die();
	va_start(ap, fmt);
	vmsg(file, line, fmt, ap);
	va_end(ap);
	cli_exit(EXIT_DATA);
}

noreturn void die_input(const char *fmt, ...)
{
	va_list ap;
	if (cli_before_die) cli_before_die();
	va_start(ap, fmt);
	vmsg(cli_input, 0, fmt, ap);
	va_end(ap);
	cli_exit(EXIT_DATA);
}

noreturn void die_empty_input(const char *file)
{
	die_at(file ? file : "-", 0, "empty input: no profile written");
}

noreturn void die_cut_line(const char *file, uint64_t line)
{
	die_at(file ? file : "-", line, "the last line has no newline: the file is cut short "
	       "(a whole file ends with one: add it)");
}

noreturn void die_no_stacks(const char *file, const char *fmt, ...)
{
	char what[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	die_at(file ? file : "-", 0, "no stacks found: %s (no profile written)", what);
}

noreturn void cli_bad_option(void)
{
	fprintf(stderr, "Try '%s --help' for more information.\n", cli_prog);
	cli_exit(EXIT_USAGE);
}

noreturn void usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg(NULL, 0, fmt, ap);
	va_end(ap);
	cli_bad_option();
}

static noreturn void print_and_exit(const char *text)
{
	if (fputs(text, stdout) == EOF || fflush(stdout) == EOF || ferror(stdout)) {
		fprintf(stderr, "%s: write error: %s\n", cli_prog, strerror(errno));
		cli_exit(EXIT_DATA);
	}
	cli_exit(EXIT_OK);
}

noreturn void cli_help(const char *text)
{
	print_and_exit(text);
}

noreturn void cli_version(void)
{
	char buf[256];
	snprintf(buf, sizeof buf, "%s (spaa-tools) %s\n", cli_prog, SPAA_VERSION);
	print_and_exit(buf);
}

uint64_t opt_u64(const char *opt, const char *val)
{
	uint64_t v;
	if (!parse_u64(val, strlen(val), &v))
		usage_error("%s: '%s' is not a non-negative integer", opt, val);
	return v;
}

int64_t opt_i64(const char *opt, const char *val)
{
	int64_t v;
	if (!parse_i64(val, strlen(val), &v))
		usage_error("%s: '%s' is not an integer", opt, val);
	return v;
}

uint64_t opt_range(const char *opt, const char *val, uint64_t lo, uint64_t hi)
{
	uint64_t v = opt_u64(opt, val);
	if (v < lo || v > hi)
		usage_error("%s: '%s' is not from %llu to %llu", opt, val, (unsigned long long)lo,
			    (unsigned long long)hi);
	return v;
}

unsigned opt_jobs(const char *opt, const char *val)
{
	uint64_t v = opt_u64(opt, val);
	if (v < 1 || v > CLI_MAX_JOBS)
		usage_error("%s: '%s' is not a number of threads from 1 to %d", opt, val, CLI_MAX_JOBS);
	return (unsigned)v;
}

unsigned cli_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1) return 1;
	return n > CLI_MAX_JOBS ? CLI_MAX_JOBS : (unsigned)n;
}

double opt_double(const char *opt, const char *val)
{
	char *end;
	errno = 0;
	double d = strtod(val, &end);
	if (end == val || *end || isnan(d))
		usage_error("%s: '%s' is not a number", opt, val);
	/* ERANGE with a finite result is an underflow (4.9e-324): a number */
	if (!isfinite(d) || (errno == ERANGE && d == 0 && strpbrk(val, "123456789")))
		usage_error("%s: '%s' is out of range", opt, val);
	return d;
}

void cli_stdin_once(char *const *files, int n)
{
	int k = 0;
	for (int i = 0; i < n; i++) k += strcmp(files[i], "-") == 0;
	if (k > 1) usage_error("standard input (-) can be read only once");
}
