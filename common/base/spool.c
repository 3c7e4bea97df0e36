/* spool.c - an unlinked temporary file, written then read back as lines or bytes. */
#include "spool.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "util.h"

#define SPOOL_BUF (1u << 17)

struct spool {
	int fd;
	char *buf;
	size_t n, cap;      /* writing: bytes buffered; reading: bytes in buf */
	size_t pos;         /* reading: next unread byte */
	uint64_t size;
	int reading, eof;
};

spool *spool_new(void)
{
	int fd = tmpfile_unlinked("spaa-spool");
	spool *s = xcalloc(1, sizeof *s);
	s->fd = fd;
	s->cap = SPOOL_BUF;
	s->buf = xmalloc(s->cap + 1);
	return s;
}

static void flush(spool *s)
{
	tmpfile_write(s->fd, s->buf, s->n);
	s->n = 0;
}

void spool_write(spool *s, const void *p, size_t n)
{
	s->size += n;
	if (s->n + n > s->cap) {
		flush(s);
		if (n > s->cap) {
			s->n = n;
			const char *save = s->buf;
			s->buf = (char *)p;
			flush(s);
			s->buf = (char *)save;
			return;
		}
	}
	memcpy(s->buf + s->n, p, n);
	s->n += n;
}

uint64_t spool_size(const spool *s) { return s->size; }

void spool_rewind(spool *s)
{
	flush(s);
	if (lseek(s->fd, 0, SEEK_SET) != 0)
		die(EXIT_DATA, "temporary file: seek error: %s", strerror(errno));
	s->reading = 1;
	s->n = s->pos = 0;
}

/* Reads more bytes after the unread tail; false at end of file. */
static int fill(spool *s)
{
	if (s->eof) return 0;
	memmove(s->buf, s->buf + s->pos, s->n - s->pos);
	s->n -= s->pos;
	s->pos = 0;
	if (s->n == s->cap) {
		s->cap *= 2;
		s->buf = xrealloc(s->buf, s->cap + 1);
	}
	for (;;) {
		ssize_t k = read(s->fd, s->buf + s->n, s->cap - s->n);
		if (k < 0) {
			if (errno == EINTR) continue;
			die(EXIT_DATA, "temporary file: read error: %s", strerror(errno));
		}
		if (k == 0) {
			s->eof = 1;
			return 0;
		}
		s->n += (size_t)k;
		return 1;
	}
}

char *spool_line(spool *s, size_t *len)
{
	size_t scan = s->pos;
	for (;;) {
		char *nl = memchr(s->buf + scan, '\n', s->n - scan);
		if (nl) {
			char *line = s->buf + s->pos;
			*len = (size_t)(nl - line);
			*nl = 0;
			s->pos = (size_t)(nl - s->buf) + 1;
			return line;
		}
		scan = s->n - s->pos;
		if (!fill(s)) {
			if (s->pos == s->n) return NULL;
			char *line = s->buf + s->pos; /* last line without '\n' */
			*len = s->n - s->pos;
			line[*len] = 0;
			s->pos = s->n;
			return line;
		}
	}
}

size_t spool_read(spool *s, void *p, size_t n)
{
	size_t got = 0;
	while (got < n) {
		if (s->pos == s->n && !fill(s)) break;
		size_t k = s->n - s->pos < n - got ? s->n - s->pos : n - got;
		memcpy((char *)p + got, s->buf + s->pos, k);
		s->pos += k;
		got += k;
	}
	return got;
}

void spool_free(spool *s)
{
	if (!s) return;
	close(s->fd);
	free(s->buf);
	free(s);
}
