/* input.c - files or stdin, plain, zstd or gzip (by magic bytes), read as
 * lines of any length or as raw bytes. */
#include "input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include "cli.h"
#include "util.h"

enum codec { PLAIN, ZSTD, GZIP };

struct input {
	int fd;
	char *name;
	enum codec codec;
	bool raw_eof;
	/* compressed bytes */
	unsigned char *raw;
	size_t raw_pos, raw_end, raw_cap;
	/* decoded bytes */
	char *buf;
	size_t pos, end, cap;
	bool eof;
	uint64_t lineno, consumed;
	ZSTD_DStream *zs;
	size_t zs_last;     /* last ZSTD_decompressStream hint: 0 = frame complete */
	z_stream gz;
	bool gz_done;       /* the current gzip member ended */
	bool any_out;
	bool keep_truncated; /* input_keep_truncated(): end instead of dying */
	const char *damage;  /* why the compressed data ended early, or NULL */
	bool text;           /* a line with more than blanks was returned */
	bool sized;          /* a regular file: size is its bytes from start, */
	uint64_t size, start; /* the file offset where it was opened */
	bool dir;            /* a directory: not read here (input_is_dir) */
};

/* Does the line hold only blanks (spaces, tabs, a CR)? */
static bool blank_line(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r') return false;
	return true;
}

static void read_error(input *in)
{
	die(EXIT_DATA, "%s: read error: %s", in->name, strerror(errno));
}

/* Reads more compressed bytes; false at end of file. */
static bool raw_fill(input *in)
{
	if (in->raw_eof) return false;
	if (in->raw_pos == in->raw_end) in->raw_pos = in->raw_end = 0;
	if (in->raw_end == in->raw_cap) {
		memmove(in->raw, in->raw + in->raw_pos, in->raw_end - in->raw_pos);
		in->raw_end -= in->raw_pos;
		in->raw_pos = 0;
	}
	for (;;) {
		ssize_t k = read(in->fd, in->raw + in->raw_end, in->raw_cap - in->raw_end);
		if (k < 0) {
			if (errno == EINTR) continue;
			read_error(in);
		}
		if (k == 0) {
			in->raw_eof = true;
			return false;
		}
		in->raw_end += (size_t)k;
		return true;
	}
}

/* What a command reads, for the message below. */
static const char *expected(void)
{
	static const struct { const char *prog, *what; } table[] = {
		{ "perf2spaa", "the text 'perf script' prints" },
		{ "dtrace2spaa", "the stack aggregations DTrace prints" },
		{ "bpftrace2spaa", "the maps bpftrace prints" },
		{ "folded2spaa", "folded stacks (\"main;parse;lex 12\" lines)" },
		{ "pprof2spaa", "a pprof profile" },
		{ "heaptrack2spaa", "a heaptrack data file" },
		{ "chrome2spaa", "a Chrome or Node.js profile or trace" },
		{ "spall2spaa", "a Chrome JSON trace or a spall file" },
		{ "spx2spaa", "the events of an SPX report" },
		{ "afperf2spaa", "an AFPerf file" },
		{ "spaa-demangle", "a SPAA profile" },
	};
	for (size_t i = 0; i < sizeof table / sizeof *table; i++)
		if (!strcmp(cli_prog, table[i].prog)) return table[i].what;
	if (!strncmp(cli_prog, "spaa", 4)) return "a SPAA profile";
	return "its input";
}

/* Standard input is a terminal: someone ran the command without a FILE,
 * perhaps by mistake.  Say what it waits for, once, rather than wait
 * silently. */
static void tell_terminal(void)
{
	static bool said;
	if (said || !isatty(STDIN_FILENO)) return;
	said = true;
	warnmsg("reading %s from the terminal; end it with Ctrl-D (or name a FILE, see '%s --help')",
		expected(), cli_prog);
}

input *input_open(const char *path)
{
	if (!path || strcmp(path, "-") == 0) {
		tell_terminal();
		return input_open_fd(0, "-");
	}
	const char *name = input_display_name(path);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) die(EXIT_DATA, "%s: %s", name, strerror(errno));
	return input_open_fd(fd, name);
}

input *input_open_fd(int fd, const char *name)
{
	input *in = xcalloc(1, sizeof *in);
	in->fd = fd;
	in->name = xstrdup(name);
	struct stat st;
	in->dir = fstat(in->fd, &st) == 0 && S_ISDIR(st.st_mode);
	if (fstat(in->fd, &st) == 0 && S_ISREG(st.st_mode)) {
		off_t at = lseek(in->fd, 0, SEEK_CUR);
		in->sized = at >= 0 && at <= st.st_size;
		in->start = in->sized ? (uint64_t)at : 0;
		in->size = in->sized ? (uint64_t)(st.st_size - at) : 0;
	}
	/* messages name it, even after input_close */
	static char *named;
	free(named);
	named = xstrdup(in->name);
	cli_input = named;
	in->raw_cap = 1 << 17;
	in->raw = xmalloc(in->raw_cap);
	in->cap = 1 << 18;
	in->buf = xmalloc(in->cap + 1);
	/* sniff the magic (a directory: its first read is the error) */
	while (!in->dir && in->raw_end < 4 && raw_fill(in))
		;
	if (in->raw_end >= 4 && memcmp(in->raw, "\x28\xb5\x2f\xfd", 4) == 0) {
		in->codec = ZSTD;
		in->zs = ZSTD_createDStream();
		if (!in->zs) die_input("out of memory");
		ZSTD_initDStream(in->zs);
	} else if (in->raw_end >= 2 && in->raw[0] == 0x1f && in->raw[1] == 0x8b) {
		in->codec = GZIP;
		if (inflateInit2(&in->gz, 15 + 32) != Z_OK) die_input("out of memory");
	}
	return in;
}

const char *input_name(const input *in)
{
	return in->name;
}

bool input_is_dir(const input *in)
{
	return in->dir;
}

/* Appends decoded bytes at buf[end..cap); returns false at end of data. */
static bool fill(input *in)
{
	if (in->eof) return false;
	size_t room = in->cap - in->end;
	if (in->codec == PLAIN) {
		if (in->raw_pos < in->raw_end) { /* bytes read while sniffing */
			size_t k = in->raw_end - in->raw_pos;
			if (k > room) k = room;
			memcpy(in->buf + in->end, in->raw + in->raw_pos, k);
			in->raw_pos += k;
			in->end += k;
			return true;
		}
		/* the end seen while sniffing is the end: a terminal gives it once
		 * (Ctrl-D), and reading again would wait for a second one */
		if (in->raw_eof) {
			in->eof = true;
			return false;
		}
		for (;;) {
			ssize_t k = read(in->fd, in->buf + in->end, room);
			if (k < 0) {
				if (errno == EINTR) continue;
				read_error(in);
			}
			if (k == 0) {
				in->eof = true;
				return false;
			}
			in->end += (size_t)k;
			return true;
		}
	}
	for (;;) {
		if (in->raw_pos == in->raw_end && !raw_fill(in)) {
			/* end of the compressed file */
			bool complete = in->codec == ZSTD ? in->zs_last == 0 : in->gz_done;
			if (!complete && in->keep_truncated) {
				in->damage = "truncated";
				in->eof = true;
				return false;
			}
			if (!complete)
				die(EXIT_DATA, "%s: truncated %s data", in->name,
				    in->codec == ZSTD ? "zstd" : "gzip");
			in->eof = true;
			return false;
		}
		size_t before = in->end;
		if (in->codec == ZSTD) {
			ZSTD_inBuffer ib = { in->raw, in->raw_end, in->raw_pos };
			ZSTD_outBuffer ob = { in->buf, in->cap, in->end };
			size_t r = ZSTD_decompressStream(in->zs, &ob, &ib);
			if (ZSTD_isError(r) && in->keep_truncated) {
				in->damage = "corrupt";
				in->eof = true;
				return false;
			}
			if (ZSTD_isError(r))
				die(EXIT_DATA, "%s: corrupt zstd data: %s", in->name, ZSTD_getErrorName(r));
			in->zs_last = r;
			in->raw_pos = ib.pos;
			in->end = ob.pos;
		} else {
			if (in->gz_done) {
				/* another gzip member follows */
				if (inflateReset(&in->gz) != Z_OK) die(EXIT_DATA, "%s: corrupt gzip data", in->name);
				in->gz_done = false;
			}
			in->gz.next_in = in->raw + in->raw_pos;
			in->gz.avail_in = (uInt)(in->raw_end - in->raw_pos);
			in->gz.next_out = (Bytef *)in->buf + in->end;
			in->gz.avail_out = (uInt)room;
			int r = inflate(&in->gz, Z_NO_FLUSH);
			if (r == Z_STREAM_END) in->gz_done = true;
			else if (r != Z_OK && r != Z_BUF_ERROR && in->keep_truncated) {
				in->damage = "corrupt";
				in->eof = true;
				return false;
			} else if (r != Z_OK && r != Z_BUF_ERROR)
				die(EXIT_DATA, "%s: corrupt gzip data: %s", in->name,
				    in->gz.msg ? in->gz.msg : "inflate failed");
			in->raw_pos = in->raw_end - in->gz.avail_in;
			in->end = in->cap - in->gz.avail_out;
		}
		if (in->end > before) return true;
	}
}

/* Makes room at the end of buf: moves unread bytes to the front, grows. */
static void make_room(input *in)
{
	if (in->pos > 0) {
		memmove(in->buf, in->buf + in->pos, in->end - in->pos);
		in->end -= in->pos;
		in->pos = 0;
	}
	if (in->end == in->cap) {
		in->cap *= 2;
		in->buf = xrealloc(in->buf, in->cap + 1);
	}
}

size_t input_max_line(void)
{
	static size_t max;
	if (!max) {
		const char *e = getenv("SPAA_MAX_LINE");
		char *end;
		unsigned long long v = e && *e ? strtoull(e, &end, 10) : 0;
		max = e && *e && !*end && v > 0 && v <= SIZE_MAX / 2 ? (size_t)v : (size_t)64 << 20;
	}
	return max;
}

noreturn void input_long_line(const char *name, uint64_t line)
{
	die_at(name, line, "line longer than %zu bytes, the limit (SPAA_MAX_LINE=BYTES raises it)",
	       input_max_line());
}

char *input_line(input *in, size_t *len)
{
	size_t scan = in->pos;
	for (;;) {
		char *nl = memchr(in->buf + scan, '\n', in->end - scan);
		if (nl) {
			char *line = in->buf + in->pos;
			size_t n = (size_t)(nl - line);
			/* (a long line may fit in the buffer: the limit is the
			 * same wherever the buffer ends) */
			if (n > input_max_line()) input_long_line(in->name, in->lineno + 1);
			*nl = 0;
			in->pos += n + 1;
			in->consumed += n + 1;
			in->lineno++;
			*len = n;
			if (!in->text) in->text = !blank_line(line, n);
			return line;
		}
		size_t off = scan - in->pos;
		scan = in->end;
		size_t pending = in->end - in->pos;
		if (pending > input_max_line()) input_long_line(in->name, in->lineno + 1);
		if (in->end == in->cap || in->pos > 0) {
			make_room(in);
			scan = in->pos + pending;
		}
		(void)off;
		if (!fill(in)) {
			if (in->end == in->pos) return NULL;
			char *line = in->buf + in->pos;
			size_t n = in->end - in->pos;
			line[n] = 0; /* buf has cap+1 bytes */
			in->pos = in->end;
			in->consumed += n;
			in->lineno++;
			*len = n;
			if (!in->text) in->text = !blank_line(line, n);
			return line;
		}
	}
}

void input_keep_truncated(input *in)
{
	in->keep_truncated = true;
}

const char *input_damage(const input *in)
{
	return in->damage;
}

uint64_t input_lineno(const input *in)
{
	return in->lineno;
}

size_t input_read(input *in, void *out, size_t n)
{
	size_t got = 0;
	while (got < n) {
		if (in->pos == in->end) {
			in->pos = in->end = 0;
			if (!fill(in)) break;
		}
		size_t k = in->end - in->pos;
		if (k > n - got) k = n - got;
		memcpy((char *)out + got, in->buf + in->pos, k);
		in->pos += k;
		got += k;
	}
	in->consumed += got;
	return got;
}

static uint64_t max_size = INPUT_MAX_SIZE_DEFAULT;

uint64_t input_max_size(void)
{
	return max_size;
}

void input_set_max_size(uint64_t bytes)
{
	max_size = bytes;
}

void input_max_size_option(const char *val)
{
	size_t n = strlen(val);
	unsigned shift = 0;
	if (n && (val[n - 1] == 'K' || val[n - 1] == 'M' || val[n - 1] == 'G')) {
		shift = val[n - 1] == 'K' ? 10 : val[n - 1] == 'M' ? 20 : 30;
		n--;
	}
	uint64_t v;
	if (!parse_u64(val, n, &v) || v == 0 || v > (UINT64_MAX >> shift) || (v << shift) > (uint64_t)SIZE_MAX / 2)
		usage_error("--max-size: '%s' is not a size in bytes (a number, or with K, M or G)", val);
	max_size = v << shift;
}

noreturn void input_too_big(const char *name, const char *what)
{
	die_at(name, 0, "%s more than %llu bytes (decompressed), the limit (--max-size=BYTES raises it)", what,
	       (unsigned long long)max_size);
}

bool input_left(const input *in, uint64_t *left)
{
	if (in->codec != PLAIN || !in->sized) return false;
	*left = in->size > in->consumed ? in->size - in->consumed : 0;
	return true;
}

uint64_t input_offset(const input *in)
{
	return in->consumed;
}

size_t input_peek(input *in, const void **p, size_t n)
{
	while (in->end - in->pos < n) {
		if (in->end == in->cap || in->pos > 0) make_room(in);
		if (!fill(in)) break;
	}
	*p = in->buf + in->pos;
	size_t k = in->end - in->pos;
	return k < n ? k : n;
}

size_t input_window(input *in, const void **p, size_t want)
{
	if (want == 0) want = 1;
	while (in->end - in->pos < want) {
		if (in->end == in->cap || in->pos > 0) make_room(in);
		if (!fill(in)) break;
	}
	*p = in->buf + in->pos;
	return in->end - in->pos;
}

void input_skip(input *in, size_t n)
{
	if (n > in->end - in->pos) n = in->end - in->pos;
	in->pos += n;
	in->consumed += n;
}

bool input_seek(input *in, uint64_t off)
{
	if (off >= in->consumed && off - in->consumed <= in->end - in->pos) {
		input_skip(in, (size_t)(off - in->consumed));
		return true;
	}
	/* offsets count from where the file was opened (standard input may
	 * start anywhere in a file) */
	if (in->codec == PLAIN && in->sized) {
		off_t to = (off_t)(in->start + off);
		if (off > in->size || lseek(in->fd, to, SEEK_SET) != to) return false;
		in->pos = in->end = 0;
		in->raw_pos = in->raw_end = 0;
		in->raw_eof = in->eof = false;
		in->consumed = off;
		return true;
	}
	while (in->consumed < off) {
		const void *p;
		size_t k = input_window(in, &p, 1 << 16);
		if (!k) return false;
		input_skip(in, off - in->consumed < k ? (size_t)(off - in->consumed) : k);
	}
	return in->consumed == off;
}

void input_count_lines(input *in, uint64_t n, bool text)
{
	in->lineno += n;
	in->text |= text;
}

void input_close(input *in)
{
	if (!in) return;
	if (in->fd > 0) close(in->fd);
	if (in->zs) ZSTD_freeDStream(in->zs);
	if (in->codec == GZIP) inflateEnd(&in->gz);
	free(in->raw);
	free(in->buf);
	free(in->name);
	free(in);
}

uint64_t input_each(char **files, int n, void (*read)(input *in), const char **what)
{
	uint64_t lines = 0;
	bool text = false;
	for (int i = 0; i < (n ? n : 1); i++) {
		input *in = input_open(n ? files[i] : "-");
		read(in);
		lines += input_lineno(in);
		text |= in->text;
		input_close(in);
	}
	*what = n == 0 ? "-" : n == 1 ? input_display_name(files[0]) : "the inputs";
	return text ? lines : 0;
}

/* The copies input_rereadable made: "/dev/fd/FD" is NAME in messages. */
static struct spool {
	int fd;
	char *name;
} *spools;
static uint32_t nspools, spoolcap;

const char *input_display_name(const char *path)
{
	int fd;
	char end;
	if (path && sscanf(path, "/dev/fd/%d%c", &fd, &end) == 1)
		for (uint32_t i = nspools; i-- > 0;)
			if (spools[i].fd == fd) return spools[i].name;
	return path;
}

char *input_rereadable(const char *path)
{
	/* stat, not open: opening a FIFO to look at it would wait for a
	 * writer, or take the data the reader is to have */
	bool std = !path || strcmp(path, "-") == 0;
	struct stat st;
	if (!std && stat(path, &st) == 0 && (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))) return xstrdup(path);
	const char *name = std ? "-" : input_display_name(path);
	int in = 0;
	if (std) tell_terminal();
	else if ((in = open(path, O_RDONLY | O_CLOEXEC)) < 0) die(EXIT_DATA, "%s: %s", name, strerror(errno));
	/* the bytes as they come, compressed or not: the copy reads as the
	 * file would (a cut gzip stream is the reader's to judge) */
	int fd = tmpfile_unlinked(cli_prog);
	char *buf = xmalloc(1 << 17);
	for (;;) {
		ssize_t k = read(in, buf, 1 << 17);
		if (k < 0 && errno == EINTR) continue;
		if (k < 0) die(EXIT_DATA, "%s: read error: %s", name, strerror(errno));
		if (k == 0) break;
		tmpfile_write(fd, buf, (size_t)k);
	}
	free(buf);
	if (in > 0) close(in);
	return input_spool_named(fd, name);
}

char *input_spill(input *in)
{
	if (input_file_fd(in) >= 0 && strncmp(in->name, "/dev/fd/", 8) != 0 && strcmp(in->name, "-") != 0) {
		char *p = xstrdup(in->name);
		input_close(in);
		return p;
	}
	int fd = tmpfile_unlinked(cli_prog);
	char *buf = xmalloc(1 << 17);
	size_t k;
	while ((k = input_read(in, buf, 1 << 17)) > 0) tmpfile_write(fd, buf, k);
	free(buf);
	char *p = input_spool_named(fd, in->name);
	input_close(in);
	return p;
}

char *input_spool_named(int fd, const char *name)
{
	struct spool *sp = VEC_PUSH(spools, nspools, spoolcap);
	sp->fd = fd;
	sp->name = xstrdup(name);
	sbuf s = { 0 };
	sbuf_printf(&s, "/dev/fd/%d", fd);
	return s.p;
}

int input_file_fd(const input *in)
{
	return in->codec == PLAIN && in->sized && in->start == 0 ? in->fd : -1;
}

bool input_plain_rest(const input *in, int *fd, uint64_t *at, uint64_t *end)
{
	if (in->codec != PLAIN || !in->sized || in->fd < 0) return false;
	*fd = in->fd;
	*at = in->start + in->consumed;
	*end = in->start + in->size;
	return true;
}
