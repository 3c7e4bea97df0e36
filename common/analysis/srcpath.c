/* srcpath.c - source files named by a profile, found as pprof finds them
 * (see srcpath.h). */
#include "srcpath.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "rootpath.h"

void sp_clean(const char *p, size_t n, sbuf *out)
{
	out->n = 0;
	sbuf_reserve(out, n + 2);
	if (n == 0) {
		sbuf_addc(out, '.');
		out->p[out->n] = 0;
		return;
	}
	bool rooted = p[0] == '/';
	size_t r = 0, dotdot = 0, w = 0;
	char *b = out->p;
	if (rooted) {
		b[w++] = '/';
		r = dotdot = 1;
	}
	while (r < n) {
		if (p[r] == '/') {
			r++;
		} else if (p[r] == '.' && (r + 1 == n || p[r + 1] == '/')) {
			r++;
		} else if (p[r] == '.' && r + 1 < n && p[r + 1] == '.' && (r + 2 == n || p[r + 2] == '/')) {
			r += 2;
			if (w > dotdot) {
				w--;
				while (w > dotdot && b[w] != '/') w--;
			} else if (!rooted) {
				if (w > 0) b[w++] = '/';
				b[w++] = '.';
				b[w++] = '.';
				dotdot = w;
			}
		} else {
			if ((rooted && w != 1) || (!rooted && w != 0)) b[w++] = '/';
			while (r < n && p[r] != '/') b[w++] = p[r++];
		}
	}
	if (w == 0) b[w++] = '.';
	out->n = w;
	b[w] = 0;
}

/* Go's filepath.Base */
static void base(const char *p, sbuf *out)
{
	size_t n = strlen(p);
	out->n = 0;
	if (n == 0) {
		sbuf_adds(out, ".");
		return;
	}
	while (n > 0 && p[n - 1] == '/') n--;
	size_t i = n;
	while (i > 0 && p[i - 1] != '/') i--;
	if (i == n) sbuf_adds(out, "/");
	else sbuf_add(out, p + i, n - i);
}

/* Go's filepath.Join(dir, elem) */
static void join(const char *dir, const char *elem, sbuf *out)
{
	sbuf t = { 0 };
	if (*dir) sbuf_adds(&t, dir);
	if (*dir && *elem) sbuf_addc(&t, '/');
	sbuf_adds(&t, elem);
	if (!t.n) {
		out->n = 0;
		sbuf_add(out, "", 0);
	} else {
		sp_clean(t.p, t.n, out);
	}
	sbuf_free(&t);
}

/* Go's filepath.Dir */
static void dirname(const char *p, sbuf *out)
{
	size_t i = strlen(p);
	while (i > 0 && p[i - 1] != '/') i--;
	sp_clean(p, i, out);
}

/* Go's filepath.SplitList: nothing for "", else the parts between ':'. */
static char **split_list(const char *s, uint32_t *n)
{
	char **v = NULL;
	uint32_t cap = 0;
	*n = 0;
	if (!s || !*s) return NULL;
	for (;;) {
		const char *e = strchr(s, ':');
		size_t k = e ? (size_t)(e - s) : strlen(s);
		*VEC_PUSH(v, *n, cap) = xmemdup(s, k);
		if (!e) break;
		s = e + 1;
	}
	return v;
}

static void free_list(char **v, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) free(v[i]);
	free(v);
}

void sp_trim(const char *path, const char *trim, const char *search, sbuf *out)
{
	sbuf bs = { 0 }, want = { 0 };
	uint32_t n;
	char **v;
	out->n = 0;
	sbuf_add(out, "", 0);
	if (!trim || !*trim) {
		v = split_list(search, &n);
		for (uint32_t i = 0; i < n; i++) {
			base(v[i], &bs);
			want.n = 0;
			sbuf_add(&want, "/", 1);
			sbuf_add(&want, bs.p, bs.n);
			sbuf_add(&want, "/", 1);
			const char *f = strstr(path, want.p);
			if (f) {
				sbuf_adds(out, f + want.n);
				free_list(v, n);
				goto done;
			}
		}
		free_list(v, n);
	}
	v = split_list(trim, &n);
	for (uint32_t i = 0; i < n + 2; i++) {
		want.n = 0;
		sbuf_adds(&want, i < n ? v[i] : i == n ? "/proc/self/cwd/./" : "/proc/self/cwd/");
		if (!want.n || want.p[want.n - 1] != '/') sbuf_add(&want, "/", 1);
		if (!strncmp(path, want.p, want.n)) {
			sbuf_adds(out, path + want.n);
			free_list(v, n);
			goto done;
		}
	}
	free_list(v, n);
	sbuf_adds(out, path);
done:
	sbuf_free(&bs);
	sbuf_free(&want);
}

/* The file's bytes, or -1 with the reason in *why. */
static int slurp(const char *path, sbuf *text, int *why)
{
	int fd = rp_open_regular(path, why);
	if (fd < 0) return -1;
	char buf[65536];
	for (;;) {
		ssize_t k = read(fd, buf, sizeof buf);
		if (k < 0 && errno == EINTR) continue;
		if (k <= 0) break;
		sbuf_add(text, buf, (size_t)k);
	}
	close(fd);
	return 0;
}

void sp_read(sp_file *f, const char *name, const char *search, const char *trim)
{
	memset(f, 0, sizeof *f);
	char cwd[4096];
	if (!search || !*search) {
		if (!getcwd(cwd, sizeof cwd)) {
			f->err = xstrdup("could not stat current dir");
			return;
		}
		search = cwd;
	}
	sbuf path = { 0 }, text = { 0 }, cand = { 0 }, parent = { 0 };
	sp_trim(name, trim, search, &path);
	int why = 0;
	bool found = false;
	if (path.p[0] == '/') {
		if (slurp(path.p, &text, &why) == 0) {
			found = true;
		} else {
			sbuf m = { 0 };
			sbuf_printf(&m, "open %s: %s", path.p,
				    why == RP_MISSING ? "no such file or directory" : rp_why_text(why));
			f->err = m.p;
		}
	} else {
		uint32_t n;
		char **v = split_list(search, &n);
		for (uint32_t i = 0; !found && i < n; i++) {
			sbuf dir = { 0 };
			sbuf_adds(&dir, v[i]);
			for (;;) {
				join(dir.p, path.p, &cand);
				if (slurp(cand.p, &text, &why) == 0) {
					found = true;
					break;
				}
				dirname(dir.p, &parent);
				if (!strcmp(parent.p, dir.p)) break;
				dir.n = 0;
				sbuf_add(&dir, parent.p, parent.n);
			}
			sbuf_free(&dir);
		}
		free_list(v, n);
		if (!found) {
			sbuf m = { 0 };
			sbuf_printf(&m, "could not find file %s on path %s", path.p, search);
			f->err = m.p;
		}
	}
	if (found) {
		/* lines as bufio.Scanner gives them: split at \n, a trailing \r
		 * dropped, a last line without \n kept when not empty */
		uint32_t cap = 0;
		size_t i = 0;
		sbuf_add(&text, "", 0);
		while (i < text.n) {
			char *nl = memchr(text.p + i, '\n', text.n - i);
			size_t e = nl ? (size_t)(nl - text.p) : text.n;
			if (text.n - i > UINT32_MAX || f->nlines == UINT32_MAX) break;
			*VEC_PUSH(f->line, f->nlines, cap) = (uint32_t)i;
			size_t ce = e;
			if (ce > i && text.p[ce - 1] == '\r') ce--;
			text.p[ce] = 0;
			i = e + 1;
		}
		f->text = text.p;
		text.p = NULL;
	}
	sbuf_free(&text);
	sbuf_free(&path);
	sbuf_free(&cand);
	sbuf_free(&parent);
}

void sp_free(sp_file *f)
{
	free(f->text);
	free(f->line);
	free(f->err);
	memset(f, 0, sizeof *f);
}
