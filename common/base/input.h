/* input.h - reading a file or stdin, with zstd and gzip recognised by their
 * magic bytes and decompressed while streaming.  Lines of any length. */
#ifndef SPAA_INPUT_H
#define SPAA_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdnoreturn.h>

typedef struct input input;

/* Opens path ("-" or NULL for stdin).  On failure prints
 * "prog: path: strerror" and exits 1 (EXIT_DATA). */
input *input_open(const char *path);
/* The same of a file already open (closed by input_close), named name. */
input *input_open_fd(int fd, const char *name);
/* The name to use in messages: the path, or "-" for stdin. */
const char *input_name(const input *in);
/* Is it a directory (perf's perf.data directory, for the reader that
 * knows one)?  Reading one is the error "read error: Is a directory". */
bool input_is_dir(const input *in);

/* The longest line input_line() returns: SPAA_MAX_LINE bytes from the
 * environment, else 64 MiB.  A longer line is an error (file:line), so that
 * one endless line cannot take all memory. */
size_t input_max_line(void);
/* Its error: "prog: FILE:LINE: line longer than N bytes, the limit ...",
 * for a reader that cuts lines itself. */
noreturn void input_long_line(const char *name, uint64_t line);

/* Next line without its '\n' (a trailing '\r' is kept), NUL-terminated, valid
 * until the next call.  NULL at end of input.  A last line without '\n' is
 * returned too.  The line is writable (callers may modify it in place). */
char *input_line(input *in, size_t *len);
/* Number of the line last returned (1-based). */
uint64_t input_lineno(const input *in);

/* The most decompressed bytes a reader holds at once, for the readers that
 * hold a whole input (pprof2spaa's protobuf) or one whole value of it (a
 * JSON value, jscan.h): 1 GiB unless set (the commands' --max-size).  A
 * few kilobytes of zstd can decompress to gigabytes: beyond the limit is an
 * error naming the file, not "out of memory". */
#define INPUT_MAX_SIZE_DEFAULT ((uint64_t)1 << 30)
uint64_t input_max_size(void);
void input_set_max_size(uint64_t bytes);
/* Parses --max-size's value (bytes, or with a suffix K, M, G: powers of
 * 1024) and sets it; a usage error otherwise. */
void input_max_size_option(const char *val);
/* The error of a reader that went past it: "prog: FILE: WHAT more than N
 * bytes (decompressed), the limit (--max-size=BYTES raises it)". */
noreturn void input_too_big(const char *name, const char *what);

/* Raw (decompressed) bytes, for binary formats: up to n bytes, returns the
 * count, 0 at end.  Do not mix with input_line. */
size_t input_read(input *in, void *buf, size_t n);
/* Decompressed bytes consumed so far (through input_line or input_read). */
uint64_t input_offset(const input *in);
/* The decompressed bytes not yet consumed, when they are known without
 * reading them (a regular file, not compressed): true and *left; false for
 * a pipe or compressed data. */
bool input_left(const input *in, uint64_t *left);
/* The first up to n decompressed bytes, without consuming them (format
 * sniffing); returns the count available. */
size_t input_peek(input *in, const void **p, size_t n);

/* Damaged compressed data (truncated, or corrupt part way): by default a
 * fatal error.  After input_keep_truncated(), the input ends instead where the
 * good data ends, and input_damage() then says "truncated" or "corrupt" (NULL
 * while the data is sound), so that a converter can keep what it read and
 * report the damage itself. */
void input_keep_truncated(input *in);
const char *input_damage(const input *in);
/* Zero-copy raw reading (binary formats; do not mix with input_line): makes
 * at least want bytes available at *p if the input has them, without
 * consuming them, and returns how many are available (possibly more than
 * want; fewer only at the end of input, 0 at its end).  They stay valid until
 * the next call on in.  input_skip consumes n of them (n <= that count). */
size_t input_window(input *in, const void **p, size_t want);
void input_skip(input *in, size_t n);

/* Moves to decompressed offset off, to read on from there: a plain file
 * by lseek (either way), compressed data forward only, decoding and
 * dropping the bytes between.  False when it cannot go there (behind, in
 * compressed data or a pipe; past the end).  Line numbers are not counted
 * over what is jumped. */
bool input_seek(input *in, uint64_t off);

/* For a reader that reads text through input_window: n more lines, and
 * whether any was not blank (input_each's count of lines). */
void input_count_lines(input *in, uint64_t n, bool text);

void input_close(input *in);

/* The line readers' loop over their operands: read(in) on each of the n
 * files (standard input when n is 0), each opened and closed here.
 * Returns the lines of all of them, or 0 when no line holds more than
 * blanks (spaces, tabs, CR): an empty input (spaa(7)); *what is the name for
 * a message about the inputs as a whole ("-", the one file, or "the
 * inputs"). */
uint64_t input_each(char **files, int n, void (*read)(input *in), const char **what);

/* A name for the same data that can be opened again, for commands that read
 * their input twice: path itself when it is a regular file (or a directory,
 * whose reading is the caller's error); otherwise (standard input "-" or
 * NULL, a pipe, a FIFO, /dev/stdin, a process substitution's /dev/fd/N)
 * its bytes, as read, compressed or not, are copied to an unlinked
 * temporary file (in $TMPDIR, else /tmp) and the name is "/dev/fd/N".  Its
 * input is opened once: a FIFO is not opened to be looked at.  Errors are
 * fatal ("prog: FILE: ...").  The string is allocated. */
char *input_rereadable(const char *path);
/* The same of an input already open and not yet read from (only
 * peeked: sniffed): its bytes, decompressed, are copied to such a file;
 * in is closed.  For a regular file not compressed, its path. */
char *input_spill(input *in);
/* "/dev/fd/FD" for an unlinked temporary file fd (tmpfile_unlinked),
 * named name in messages (input_display_name). */
char *input_spool_named(int fd, const char *name);
/* The name for messages of a path input_rereadable gave: what it was given
 * ("-" for standard input); any other path itself.  input_open names its
 * input so, and input_each's *what. */
const char *input_display_name(const char *path);

/* The descriptor of a plain (not compressed) regular file read from its
 * start, for a reader that maps the whole file (perf.data); -1 otherwise
 * (a pipe, compressed data, standard input opened part way into a file). */
int input_file_fd(const input *in);
/* For a reader that reads the rest of a plain regular file itself, on
 * threads (pread): its descriptor, the file offset of the next byte not
 * consumed (*at) and the file's size then (*end); false for a pipe or
 * compressed data.  Input offsets (input_offset, input_seek) are file
 * offsets minus (*at - input_offset(in)). */
bool input_plain_rest(const input *in, int *fd, uint64_t *at, uint64_t *end);

#endif
