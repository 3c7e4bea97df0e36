/* output.c - checked, buffered output; atomic -o FILE; optional zstd or gzip. */
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include "cli.h"
#include "util.h"

struct output_priv {
	int fd;
	char *name;      /* for messages */
	char *target;    /* final path, NULL for stdout */
	char *tmp;       /* temporary path */
	ZSTD_CStream *zs;
	z_stream *gz;    /* gzip output (-o FILE.gz) */
	char *zbuf;
	size_t zcap;
	bool mem;        /* output_open_mem: the text stays in buf */
};

/* Only one output file is open at a time in every command; remember its
 * temporary name so that die() can remove it. */
static char *pending_tmp;

static void remove_tmp(void)
{
	if (pending_tmp) {
		unlink(pending_tmp);
		pending_tmp = NULL;
	}
}

static bool ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && strcmp(s + a - b, suf) == 0;
}

static output *open_impl(const char *path, bool zstd, bool gzip, int gzip_level);

output *output_open(const char *path, bool zstd)
{
	return open_impl(path, zstd, false, 6);
}

output *output_open_gzip(const char *path)
{
	/* the speed Go's runtime/pprof writes its profiles with */
	return open_impl(path, false, true, 1);
}

static output *open_impl(const char *path, bool zstd, bool gzip, int gzip_level)
{
	output *o = xcalloc(1, sizeof *o);
	struct output_priv *p = o->priv = xcalloc(1, sizeof *p);
	o->cap = 1 << 16;
	o->buf = xmalloc(o->cap);
	if (!path || strcmp(path, "-") == 0) {
		p->fd = 1;
		p->name = xstrdup("standard output");
	} else {
		if (ends_with(path, ".zst") && !gzip) zstd = true;
		else if (ends_with(path, ".gz") && !zstd) gzip = true;
		p->name = xstrdup(path);
		struct stat st;
		bool exists = stat(path, &st) == 0;
		if (exists && !S_ISREG(st.st_mode)) {
			/* a device, FIFO or socket (-o /dev/null, -o /dev/stdout):
			 * write to it directly; renaming over it would replace it */
			p->fd = open(path, O_WRONLY | O_CLOEXEC);
			if (p->fd < 0) die(EXIT_DATA, "%s: %s", path, strerror(errno));
		} else {
			/* a symbolic link stays one: the file it points to is
			 * replaced */
			char *real = exists ? realpath(path, NULL) : NULL;
			p->target = real ? real : xstrdup(path);
			size_t n = strlen(p->target);
			p->tmp = xmalloc(n + 16);
			snprintf(p->tmp, n + 16, "%s.tmpXXXXXX", p->target);
			p->fd = mkstemp(p->tmp);
			if (p->fd < 0) die(EXIT_DATA, "%s: %s", path, strerror(errno));
			pending_tmp = p->tmp;
			cli_atexit(remove_tmp);
			/* mkstemp makes 0600: a file replaced keeps its mode, a
			 * new one gets the umask's */
			mode_t mode;
			if (exists) {
				mode = st.st_mode & 07777;
			} else {
				mode_t um = umask(0);
				umask(um);
				mode = 0666 & ~um;
			}
			if (fchmod(p->fd, mode) != 0)
				die(EXIT_DATA, "%s: %s", path, strerror(errno));
		}
	}
	if (zstd) {
		p->zs = ZSTD_createCStream();
		if (!p->zs) die(EXIT_DATA, "out of memory");
		ZSTD_initCStream(p->zs, 3);
		p->zcap = ZSTD_CStreamOutSize();
		p->zbuf = xmalloc(p->zcap);
	} else if (gzip) {
		p->gz = xcalloc(1, sizeof *p->gz);
		/* windowBits 15 + 16: a gzip wrapper, as gzip(1) writes */
		if (deflateInit2(p->gz, gzip_level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
			die(EXIT_DATA, "out of memory");
		p->zcap = 1 << 16;
		p->zbuf = xmalloc(p->zcap);
	}
	return o;
}

static void write_all(output *o, const void *buf, size_t n)
{
	struct output_priv *p = o->priv;
	const char *s = buf;
	while (n > 0) {
		ssize_t k = write(p->fd, s, n);
		if (k < 0) {
			if (errno == EINTR) continue;
			die(EXIT_DATA, "%s: write error: %s", p->name, strerror(errno));
		}
		s += k;
		n -= (size_t)k;
	}
}

static void emit_gzip(output *o, const void *buf, size_t n, bool end)
{
	struct output_priv *p = o->priv;
	z_stream *z = p->gz;
	const unsigned char *s = buf;
	do { /* avail_in is 32 bits: feed at most 1 GiB at a time */
		size_t take = n > (1u << 30) ? (1u << 30) : n;
		z->next_in = (unsigned char *)s;
		z->avail_in = (uInt)take;
		s += take;
		n -= take;
		int flush = end && n == 0 ? Z_FINISH : Z_NO_FLUSH;
		for (;;) {
			z->next_out = (unsigned char *)p->zbuf;
			z->avail_out = (uInt)p->zcap;
			int r = deflate(z, flush);
			if (r == Z_STREAM_ERROR) die(EXIT_DATA, "%s: gzip: compression failed", p->name);
			write_all(o, p->zbuf, p->zcap - z->avail_out);
			if (flush == Z_FINISH ? r == Z_STREAM_END : z->avail_out != 0) break;
		}
	} while (n > 0);
}

static void emit(output *o, const void *buf, size_t n, ZSTD_EndDirective mode)
{
	struct output_priv *p = o->priv;
	if (p->gz) {
		emit_gzip(o, buf, n, mode == ZSTD_e_end);
		return;
	}
	if (!p->zs) {
		write_all(o, buf, n);
		return;
	}
	ZSTD_inBuffer in = { buf, n, 0 };
	for (;;) {
		ZSTD_outBuffer out = { p->zbuf, p->zcap, 0 };
		size_t r = ZSTD_compressStream2(p->zs, &out, &in, mode);
		if (ZSTD_isError(r)) die(EXIT_DATA, "%s: zstd: %s", p->name, ZSTD_getErrorName(r));
		write_all(o, p->zbuf, out.pos);
		if (mode == ZSTD_e_end ? r == 0 : in.pos == in.size) break;
	}
}

/* In memory: room for n more bytes, and 64 KiB beyond (out_room's most). */
static void mem_grow(output *o, size_t n)
{
	while (o->cap - o->n < n + (1 << 16)) o->cap *= 2;
	o->buf = xrealloc(o->buf, o->cap);
}

void output_flush_buf(output *o)
{
	if (o->priv->mem) {
		mem_grow(o, 0);
		return;
	}
	if (o->n) emit(o, o->buf, o->n, ZSTD_e_continue);
	o->n = 0;
}

void output_write_direct(output *o, const void *p, size_t n)
{
	if (o->priv->mem) {
		mem_grow(o, n);
		memcpy(o->buf + o->n, p, n);
		o->n += n;
		return;
	}
	emit(o, p, n, ZSTD_e_continue);
}

output *output_open_mem(void)
{
	output *o = xcalloc(1, sizeof *o);
	o->priv = xcalloc(1, sizeof *o->priv);
	o->priv->mem = true;
	o->cap = 1 << 17;
	o->buf = xmalloc(o->cap);
	return o;
}

char *output_close_mem(output *o, size_t *n)
{
	mem_grow(o, 1);
	char *t = o->buf;
	t[o->n] = 0;
	*n = o->n;
	free(o->priv);
	free(o);
	return t;
}

void out_printf(output *o, const char *fmt, ...)
{
	char small[512];
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (k < 0) return;
	if ((size_t)k < sizeof small) {
		out_write(o, small, (size_t)k);
		return;
	}
	char *big = xmalloc((size_t)k + 1);
	va_start(ap, fmt);
	vsnprintf(big, (size_t)k + 1, fmt, ap);
	va_end(ap);
	out_write(o, big, (size_t)k);
	free(big);
}

void out_u64(output *o, uint64_t v)
{
	if (o->n + 24 > o->cap) output_flush_buf(o);
	o->n += fmt_u64(o->buf + o->n, v);
}

void out_i64(output *o, int64_t v)
{
	if (o->n + 24 > o->cap) output_flush_buf(o);
	o->n += fmt_i64(o->buf + o->n, v);
}

void output_close(output *o)
{
	struct output_priv *p = o->priv;
	if (p->zs) {
		emit(o, o->buf, o->n, ZSTD_e_end);
		o->n = 0;
		ZSTD_freeCStream(p->zs);
	} else if (p->gz) {
		emit(o, o->buf, o->n, ZSTD_e_end);
		o->n = 0;
		deflateEnd(p->gz);
		free(p->gz);
	} else {
		output_flush_buf(o);
	}
	if (p->target) {
		if (fsync(p->fd) != 0 && errno != EINVAL)
			die(EXIT_DATA, "%s: write error: %s", p->name, strerror(errno));
		if (close(p->fd) != 0)
			die(EXIT_DATA, "%s: write error: %s", p->name, strerror(errno));
		if (rename(p->tmp, p->target) != 0)
			die(EXIT_DATA, "%s: %s", p->name, strerror(errno));
		pending_tmp = NULL;
	} else if (p->fd != 1) {
		if (close(p->fd) != 0)
			die(EXIT_DATA, "%s: write error: %s", p->name, strerror(errno));
	} else if (fflush(stdout) != 0 || close(1) != 0) {
		/* close() reports errors that write() could not see (NFS, fuse) */
		if (errno != EBADF)
			die(EXIT_DATA, "%s: write error: %s", p->name, strerror(errno));
	}
	free(p->zbuf);
	free(p->tmp);
	free(p->target);
	free(p->name);
	free(p);
	free(o->buf);
	free(o);
}
