/* open.c - every reading command reads every format (open.h). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "open.h"
#include "cli.h"
#include "input.h"
#include "reader.h"
#include "registry.h"
#include "cat.h"
#include "sniff.h"
#include "util.h"

/* The options given for the readers: "NAME" or "NAME=VALUE" (no dashes),
 * and the converters' own (--reader-option) as given. */
static struct ropt { char *name, *arg; bool own; } *ropts;
static uint32_t nropts, ropcap;
static const sniff_format *forced;
static bool keep_folded;

void readers_keep_folded(void)
{
	keep_folded = true;
}

/* Is f a format the command reads as SPAA (or itself)? */
static bool as_is(const sniff_format *f)
{
	return !f || !f->cmd || (keep_folded && strcmp(f->name, "folded") == 0);
}


void readers_option(const char *name, const char *value)
{
	struct ropt *o = VEC_PUSH(ropts, nropts, ropcap);
	o->name = xstrdup(name);
	o->arg = value ? xstrdup(value) : NULL;
	o->own = false;
}

bool readers_format(const char *name)
{
	forced = sniff_format_named(name);
	return forced != NULL;
}

void readers_getopt(int c, const char *arg)
{
	static const char *const names[] = { "symfs", "root", "kallsyms", "debug-dir", "no-inline", "samples" };
	int k = c - READERS_OPT_BASE;
	if (k == 6) {
		if (!readers_format(arg)) usage_error("--format: unknown format '%s' (any2spaa --help lists them)", arg);
	} else if (k == 7) {
		if (arg[0] != '-') usage_error("--reader-option: '%s' is not an option (--reader-option=--NAME=VALUE)", arg);
		struct ropt *o = VEC_PUSH(ropts, nropts, ropcap);
		o->name = xstrdup(arg);
		o->arg = NULL;
		o->own = true;
	} else if (k >= 0 && k < 6) {
		readers_option(names[k], arg);
	}
}

/* Does reader d take the long option name? */
static bool takes(const reader_def *d, const char *name)
{
	for (const struct option *o = d->longopts; o && o->name; o++)
		if (strcmp(o->name, name) == 0) return true;
	return false;
}

/* The profile of path (named name), of format f, read by its reader
 * (its window records in *extra). */
static builder *read_builder(const sniff_format *f, const char *path, const char *name, char **extra,
			     size_t *extra_n)
{
	const reader_def *d = reader_named(f->cmd);
	if (!d) die_at(name, 0, "%s: its reader (%s) is not linked here: run %s and read its output", f->what, f->cmd, f->cmd);
	/* its argv, as the converter would be run: name, the format's option,
	 * the readers' options it takes, the file */
	char **argv = xcalloc((size_t)nropts + 6, sizeof *argv);
	sbuf *held = xcalloc((size_t)nropts + 1, sizeof *held);
	int n = 0;
	argv[n++] = (char *)cli_prog;
	if (f->opt) argv[n++] = (char *)f->opt;
	for (uint32_t i = 0; i < nropts; i++) {
		if (!ropts[i].own && !takes(d, ropts[i].name)) continue;
		if (ropts[i].own) {
			argv[n++] = ropts[i].name;
			continue;
		}
		sbuf_printf(&held[i], "--%s%s%s", ropts[i].name, ropts[i].arg ? "=" : "", ropts[i].arg ? ropts[i].arg : "");
		argv[n++] = held[i].p;
	}
	argv[n++] = "--";
	argv[n++] = (char *)path;
	argv[n] = NULL;
	/* getopt afresh for the reader, and as it was for the command after */
	int save_ind = optind, save_err = opterr;
	char *save_arg = optarg;
	optind = 0;
	reader_capture();
	int status = d->read(n, argv);
	builder *b = reader_captured(extra, extra_n);
	optind = save_ind;
	opterr = save_err;
	optarg = save_arg;
	for (uint32_t i = 0; i <= nropts; i++) sbuf_free(&held[i]);
	free(held);
	free(argv);
	if (status != 0) cli_exit(status);
	if (!b) die_at(name, 0, "%s: its reader made no profile", f->what);
	return b;
}

/* The readers keep state of their own from one input to the next (a
 * converter reads one input a process): a process reads its first input
 * of another format in process, and the others through a "zygote", a
 * child process forked before that first read, so still in the state the
 * readers start from.  For each input the zygote forks a worker, which
 * reads it and writes its profile as SPAA to a temporary file the command
 * made (the worker's messages are the command's own; its exit status is
 * passed on).  The zygote ends when the command does. */
static unsigned nread;
static int zygote = -1;         /* the command's end of the socket */

static void send_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n) {
		ssize_t k = write(fd, c, n);
		if (k < 0 && errno == EINTR) continue;
		if (k <= 0) _exit(EXIT_DATA);
		c += k;
		n -= (size_t)k;
	}
}

static bool recv_all(int fd, void *p, size_t n)
{
	char *c = p;
	while (n) {
		ssize_t k = read(fd, c, n);
		if (k < 0 && errno == EINTR) continue;
		if (k <= 0) return false;
		c += k;
		n -= (size_t)k;
	}
	return true;
}

/* A path of the command's to open here: its /dev/fd/N (a copy of a pipe,
 * unlinked) through /proc/PID/fd/N. */
static char *their_path(pid_t parent, const char *path, const char *name)
{
	int fd;
	char end;
	if (sscanf(path, "/dev/fd/%d%c", &fd, &end) != 1) return xstrdup(path);
	char p[64];
	snprintf(p, sizeof p, "/proc/%d/fd/%d", (int)parent, fd);
	int mine = open(p, O_RDONLY | O_CLOEXEC);
	if (mine < 0) die(EXIT_DATA, "%s: %s", name, strerror(errno));
	return input_spool_named(mine, name);
}

static void zygote_loop(int sock, pid_t parent)
{
	for (;;) {
		uint32_t n;
		if (!recv_all(sock, &n, sizeof n)) _exit(EXIT_OK);
		char *req = xmalloc((size_t)n + 1);
		if (!recv_all(sock, req, n)) _exit(EXIT_OK);
		req[n] = 0;
		/* format name, path, display name, output path: NUL-separated */
		const char *fmt = req, *path = fmt + strlen(fmt) + 1, *name = path + strlen(path) + 1;
		const char *out = name + strlen(name) + 1;
		fflush(NULL);
		pid_t w = fork();
		if (w == 0) {
			close(sock);
			builder_lean(0); /* SPAA written: whole, with its content ids */
			const sniff_format *f = sniff_format_named(fmt);
			char *mine = their_path(parent, path, name);
			char *extra;
			size_t extra_n, tn;
			builder *b = read_builder(f, mine, name, &extra, &extra_n);
			output *o = output_open_mem();
			builder_write(b, o);
			if (extra) out_write(o, extra, extra_n);
			char *text = output_close_mem(o, &tn);
			int fd = open(out, O_WRONLY | O_CLOEXEC);
			if (fd < 0) die(EXIT_DATA, "%s: %s", out, strerror(errno));
			tmpfile_write(fd, text, tn);
			_exit(EXIT_OK);
		}
		int st = EXIT_DATA << 8;
		if (w < 0) st = -1;
		else
			while (waitpid(w, &st, 0) < 0 && errno == EINTR)
				;
		int32_t status = w < 0 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
		send_all(sock, &status, sizeof status);
		free(req);
	}
}

static void zygote_start(void)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) die(EXIT_DATA, "socketpair: %s", strerror(errno));
	pid_t parent = getpid();
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) die(EXIT_DATA, "fork: %s", strerror(errno));
	if (pid == 0) {
		close(sv[0]);
		zygote_loop(sv[1], parent);
		_exit(EXIT_OK);
	}
	close(sv[1]);
	zygote = sv[0];
}

/* The profile of path (format f, named name) as SPAA, read by a worker of
 * the zygote: "/dev/fd/N", named name. */
static char *read_in_child(const sniff_format *f, const char *path, const char *name)
{
	int fd = tmpfile_unlinked(cli_prog);
	char out[64];
	snprintf(out, sizeof out, "/proc/%d/fd/%d", (int)getpid(), fd);
	sbuf req = { 0 };
	sbuf_add(&req, f->name, strlen(f->name) + 1);
	sbuf_add(&req, path, strlen(path) + 1);
	sbuf_add(&req, name, strlen(name) + 1);
	sbuf_add(&req, out, strlen(out) + 1);
	uint32_t n = (uint32_t)req.n;
	int32_t status;
	if (zygote < 0 || send(zygote, &n, sizeof n, MSG_NOSIGNAL) != (ssize_t)sizeof n ||
	    send(zygote, req.p, n, MSG_NOSIGNAL) != (ssize_t)n ||
	    !recv_all(zygote, &status, sizeof status))
		die(EXIT_DATA, "%s: the process reading it ended: %s", name, strerror(errno));
	sbuf_free(&req);
	if (status >= 128) die(EXIT_DATA, "%s: its reader (%s) was killed by signal %d", name, f->cmd, status - 128);
	if (status != 0) cli_exit(status == EXIT_USAGE ? EXIT_USAGE : EXIT_DATA);
	return input_spool_named(fd, name);
}

static spaa_reader *read_format(const sniff_format *f, const char *path, const char *name)
{
	if (zygote < 0) zygote_start();
	if (nread++ > 0) {
		char *copy = read_in_child(f, path, name);
		spaa_reader *r = spaa_open(copy);
		r->name = name;
		free(copy);
		return r;
	}
	char *extra;
	size_t extra_n;
	builder *b = read_builder(f, path, name, &extra, &extra_n);
	return spaa_open_builder(b, name, extra, extra_n);
}

char *readers_rereadable(const char *path)
{
	bool std = !path || strcmp(path, "-") == 0;
	const char *name = std ? "-" : input_display_name(path);
	char *again = input_rereadable(path);
	const sniff_format *f = forced;
	if (!f) {
		const char *looks;
		input *in = input_open(again);
		f = sniff_input(in, &looks);
		input_close(in);
	}
	if (as_is(f)) return again;
	if (zygote < 0) zygote_start();
	nread++;
	char *copy = read_in_child(f, again, name);
	free(again);
	return copy;
}

spaa_reader *spaa_open_any(const char *path)
{
	bool std = !path || strcmp(path, "-") == 0;
	const char *name = std ? "-" : input_display_name(path);
	if (forced) {
		if (as_is(forced)) return spaa_open(path);
		char *again = input_rereadable(path);
		spaa_reader *r = read_format(forced, again, name);
		free(again);
		return r;
	}
	struct stat st;
	input *in = input_open(path);
	const char *looks = NULL;
	if (!std && stat(path, &st) == 0 && (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))) {
		/* a file: recognised, then read by its reader from the start */
		const sniff_format *f = sniff_input(in, &looks);
		input_close(in);
		if (as_is(f)) return spaa_open(path);
		return read_format(f, path, name);
	}
	/* a pipe: SPAA streams on as it comes; another format is copied for
	 * its reader */
	const void *p, *q;
	size_t k = input_peek(in, &p, 65536);
	bool more = input_peek(in, &q, k + 1) > k;
	const sniff_format *f = sniff_bytes(q, k, more, &looks);
	bool whole = !f && more && looks && strcmp(looks, "a JSON trace (whole content needed)") == 0;
	if (!whole && as_is(f)) return spaa_open_input(in);
	char *copy = input_spill(in);
	if (whole) {
		in = input_open(copy);
		f = sniff_input(in, &looks);
		input_close(in);
	}
	spaa_reader *r = read_format(f, copy, name);
	free(copy);
	return r;
}

char *readers_operands(char **files, int n)
{
	cli_stdin_once(files, n);
	if (n < 2) return xstrdup(n ? files[0] : "-");
	char **paths = xcalloc((size_t)n, sizeof *paths);
	for (int i = 0; i < n; i++) paths[i] = readers_rereadable(files[i]);
	char *merged = spaa_cat_merged(paths, (uint32_t)n);
	for (int i = 0; i < n; i++) free(paths[i]);
	free(paths);
	/* named "the inputs" in messages */
	int fd;
	char end;
	if (sscanf(merged, "/dev/fd/%d%c", &fd, &end) == 1) {
		char *named = input_spool_named(fd, "the inputs");
		free(merged);
		merged = named;
	}
	return merged;
}

spaa_reader *readers_open_all(char **files, int n)
{
	/* (path stays: the reader's name may be it) */
	return spaa_open_any(readers_operands(files, n));
}
