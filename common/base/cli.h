/* cli.h - what every command shares: program name, diagnostics, exit codes,
 * usage and version text, and option value parsing. */
#ifndef SPAA_CLI_H
#define SPAA_CLI_H

#include <stdint.h>
#include <stdbool.h>
#include <stdnoreturn.h>

enum { EXIT_OK = 0, EXIT_DATA = 1, EXIT_USAGE = 2 };

extern const char *cli_prog;

/* Sets cli_prog from argv[0]'s basename; call first in main(). */
void cli_init(int argc, char **argv);

/* The input being read (set by input_open), or NULL: the out-of-memory
 * message names it ("prog: FILE: out of memory"). */
extern const char *cli_input;

/* "prog: message" on stderr. */
void warnmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "prog: file:line: message" on stderr (line 0: "prog: file: message"). */
void warn_at(const char *file, uint64_t line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The same, then exit(code) after running the exit hooks (temporary output
 * files are removed). */
noreturn void die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
noreturn void die_at(const char *file, uint64_t line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* die_at(cli_input, 0, ...), exit 1: for what the data caused where the
 * code at hand does not know the file (the library's limits and sums), so
 * that every message names its input. */
noreturn void die_input(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "prog: message" + "Try 'prog --help' for more information.", exit 2. */
noreturn void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints text to stdout (checked) and exits 0: for --help. */
noreturn void cli_help(const char *text);
/* "prog (spaa-tools) VERSION" on stdout, exit 0. */
noreturn void cli_version(void);
/* A usage error if "-" (standard input) is among the n files more than once. */
void cli_stdin_once(char *const *files, int n);
/* Exit through the same path as die (hooks run), with no message. */
noreturn void cli_exit(int code);

/* After getopt has printed its own complaint: the "Try" line, exit 2. */
noreturn void cli_bad_option(void);

/* Called by die/cli_exit before exiting (e.g. to remove a temp file). */
void cli_atexit(void (*fn)(void));

/* When set, called by die, die_at and die_input before their message: a
 * reader whose earlier records are still being finished on another thread
 * lets them finish first, so that their messages come first, as with one
 * thread. */
extern void (*cli_before_die)(void);

/* For fuzz targets and tests that run a command's code in-process: when set,
 * cli_exit calls it (after the hooks) instead of exit(); it must not return
 * (it longjmps back to the harness). */
extern void (*cli_exit_override)(int code);

/* The toolbox's two messages for a converter that has nothing to write
 * (spaa(7), "EMPTY INPUT"), both exit 1:
 *   "prog: FILE: empty input: no profile written"
 *   "prog: FILE: no stacks found: WHAT (no profile written)" */
noreturn void die_empty_input(const char *file);
noreturn void die_no_stacks(const char *file, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A text input whose last line has no newline, where a line cut short would
 * read as another whole line (a count of 12 cut to 1): exit 1 with
 *   "prog: FILE:LINE: the last line has no newline: the file is cut short
 *    (a whole file ends with one: add it)" */
noreturn void die_cut_line(const char *file, uint64_t line);

/* Option values; on a bad value they call usage_error naming the option. */
uint64_t opt_u64(const char *opt, const char *val);
int64_t opt_i64(const char *opt, const char *val);
double opt_double(const char *opt, const char *val);
/* opt_u64 within lo..hi, else "OPT: 'VAL' is not from LO to HI". */
uint64_t opt_range(const char *opt, const char *val, uint64_t lo, uint64_t hi);

/* -j/--jobs N, the number of threads a command parses with (spaa(7)): a
 * whole number from 1 to CLI_MAX_JOBS, else a usage error.  cli_jobs() is
 * the default, the online cores (at least 1, at most CLI_MAX_JOBS). */
enum { CLI_MAX_JOBS = 256 };
unsigned opt_jobs(const char *opt, const char *val);
unsigned cli_jobs(void);

/* The standard long options every command accepts; put CLI_STD_LONGOPTS at
 * the end of a struct option array (before the terminator), handle 'h' and
 * 'V' in the switch with CLI_STD_CASES(help_text). */
#define CLI_STD_LONGOPTS { "help", no_argument, 0, 'h' }, { "version", no_argument, 0, 'V' }
#define CLI_STD_CASES(help_text) \
	case 'h': cli_help(help_text); \
	case 'V': cli_version(); \
	default: cli_bad_option()

/* The end of every --help, one wording and one column (23) for every
 * command: CLI_HELP_TAIL for a command that writes with -o and -z,
 * CLI_HELP_OUTPUT CLI_HELP_END for -o alone, CLI_HELP_END for neither.  The
 * command's own option lines put their text in the same column. */
#define CLI_HELP_OUTPUT \
	"  -o, --output=FILE    write to FILE, replaced only when all went well,\n" \
	"                       instead of standard output\n"
#define CLI_HELP_ZSTD \
	"  -z, --zstd           compress the output with zstd (so does a FILE\n" \
	"                       ending in .zst; one ending in .gz gets gzip)\n"
#define CLI_HELP_END \
	"  -h, --help           display this help and exit\n" \
	"  -V, --version        output version information and exit\n" \
	"\n" \
	"Exit status: 0 ok, 1 bad input or write error, 2 usage error.\n"
#define CLI_HELP_TAIL CLI_HELP_OUTPUT CLI_HELP_ZSTD CLI_HELP_END

/* -o/--output FILE and -z/--zstd, which every command that writes SPAA or
 * text takes (spaa(7)): CLI_OUT_LONGOPTS in the option array, and
 * CLI_OUT_CASES(path, zstd) in the switch, setting a const char *path and a
 * bool zstd. */
#define CLI_OUT_LONGOPTS { "output", required_argument, 0, 'o' }, { "zstd", no_argument, 0, 'z' }
#define CLI_OUT_CASES(path, zstd) \
	case 'o': (path) = optarg; break; \
	case 'z': (zstd) = true; break

#endif
