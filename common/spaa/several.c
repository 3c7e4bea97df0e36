/* several.c - converting several inputs one by one in child processes and
 * merging the results (see several.h).  fork without exec keeps each
 * conversion the converter's own single-input code, with all its state
 * fresh, and needs no executable on the PATH. */
#define _GNU_SOURCE
#include "several.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cat.h"
#include "cli.h"
#include "output.h"
#include "util.h"

static char *dir;      /* the temporary directory */
static char **tmps;
static int ntmps;
static pid_t owner;    /* the process that removes them */

static void remove_tmps(void)
{
	if (getpid() != owner) return; /* a child's die(): the parent cleans up */
	for (int i = 0; i < ntmps; i++) unlink(tmps[i]);
	if (dir) rmdir(dir);
}

void several_inputs(char **files, int n, const char **file, const char **outpath, bool *zstd)
{
	if (n < 2) return;
	cli_stdin_once(files, n);
	const char *t = getenv("TMPDIR");
	if (!t || !*t) t = "/tmp";
	dir = xmalloc(strlen(t) + 32);
	sprintf(dir, "%s/spaa-XXXXXX", t);
	if (!mkdtemp(dir)) die(EXIT_DATA, "%s: cannot make a temporary directory: %s", t, strerror(errno));
	owner = getpid();
	tmps = xcalloc((size_t)n, sizeof *tmps);
	cli_atexit(remove_tmps);
	for (int i = 0; i < n; i++) {
		tmps[i] = xmalloc(strlen(dir) + 32);
		sprintf(tmps[i], "%s/%d.spaa", dir, i);
		ntmps = i + 1;
		fflush(NULL);
		pid_t pid = fork();
		if (pid < 0) die(EXIT_DATA, "fork: %s", strerror(errno));
		if (pid == 0) {
			*file = files[i];
			*outpath = tmps[i];
			*zstd = false;
			return;
		}
		int st;
		while (waitpid(pid, &st, 0) < 0)
			if (errno != EINTR) die(EXIT_DATA, "waitpid: %s", strerror(errno));
		if (WIFSIGNALED(st)) die(EXIT_DATA, "%s: killed by signal %d", files[i], WTERMSIG(st));
		if (WEXITSTATUS(st) != 0) cli_exit(WEXITSTATUS(st));
	}
	output *o = output_open(*outpath, *zstd);
	spaa_cat(tmps, (const char *const *)files, (uint32_t)n, true, NULL, o);
	output_close(o);
	cli_exit(EXIT_OK);
}
