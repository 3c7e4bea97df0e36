/* srcpath.h - source files named by a profile, found as `go tool pprof`
 * finds them for -list (its internal/report: trimPath, openSourceFile), and
 * read into lines.
 *
 * A profile's file name is first trimmed: without a trim path, the part up
 * to and including "/BASE/" is cut, BASE the last component of a directory
 * of the search path (the first that occurs in the name); else the first of
 * the trim paths that prefixes the name is cut; "/proc/self/cwd/./" and
 * "/proc/self/cwd/" always are.  An absolute name is then opened as it is;
 * a relative one is looked for in each directory of the search path (the
 * current directory by default) and in each of their parents, the first
 * found wins.  Paths are lists separated by ':'.  Names are cleaned
 * lexically as Go's filepath.Clean does. */
#ifndef SPAA_SRCPATH_H
#define SPAA_SRCPATH_H

#include <stdint.h>
#include "util.h"

/* Go's filepath.Clean of p[0..n), into *out (replaced). */
void sp_clean(const char *p, size_t n, sbuf *out);
/* pprof's trimPath(path, trim, search) into *out (replaced); trim and
 * search may be NULL (empty). */
void sp_trim(const char *path, const char *trim, const char *search, sbuf *out);

/* A source file read into lines. */
typedef struct sp_file {
	char *text;           /* the bytes, each line's end replaced by NUL */
	uint32_t *line;       /* line[i]: offset of line i+1 in text */
	uint32_t nlines;
	char *err;            /* NULL, or why it was not read ("could not find
			       * file main.go on path /src", "open /a.go: no
			       * such file or directory") */
} sp_file;

/* Reads the file a profile names as name (pprof's rules above; search NULL:
 * the current directory).  Only regular files are read; a line's trailing
 * CR is dropped, as Go's bufio.Scanner does. */
void sp_read(sp_file *f, const char *name, const char *search, const char *trim);
void sp_free(sp_file *f);

#endif
