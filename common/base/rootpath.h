/* rootpath.h - opening the files that input data names (a dso's path, a
 * debug link, a perf map): regular files only, and under a root directory
 * (spaa-symbolize's --root and --debug-dir, perf2spaa's --symfs) as a
 * process chrooted there would see them.
 *
 * Only regular files are opened: a FIFO, a device, a socket or a directory
 * named by a profile would block the reader or feed it endless bytes.  The
 * type is looked at before the open (stat), the file opened with O_NONBLOCK
 * (a FIFO swapped in meanwhile does not block) and looked at again (fstat).
 *
 * Under a root, a path is resolved one component at a time, as the kernel
 * would after chroot(2): ".." never goes above the root, a symbolic link is
 * read and its target resolved in turn (an absolute target from the root
 * again, a relative one from the link's directory), at most RP_MAX_LINKS
 * links in all; the last component is opened with O_NOFOLLOW, so that no
 * link put there after the resolution leads out.  Nothing outside the root
 * is read, not even to follow a link. */
#ifndef SPAA_ROOTPATH_H
#define SPAA_ROOTPATH_H

#include "util.h"

#define RP_MAX_LINKS 40 /* the kernel's limit (MAXSYMLINKS) */

/* Why a file was not opened. */
enum rp_why {
	RP_OK = 0,
	RP_MISSING,   /* no such file (or a component is not a directory, or unreadable) */
	RP_FIFO,      /* a FIFO */
	RP_DEVICE,    /* a character or block device */
	RP_SOCKET,    /* a socket */
	RP_DIRECTORY, /* a directory */
	RP_LOOP,      /* more than RP_MAX_LINKS symbolic links */
	RP_NWHY
};
/* "no such file", "a FIFO, not a regular file", ... */
const char *rp_why_text(int why);

/* The host path of path under root (NULL or "": no root, path as it is) in
 * *out (replaced, NUL-terminated): RP_OK, RP_MISSING or RP_LOOP.  A relative
 * path under a root starts at the root, as after chroot(2). */
int rp_resolve(const char *root, const char *path, sbuf *out);

/* Opens path (a host path) for reading if it is a regular file: the file
 * descriptor (blocking, close-on-exec), else -1 with *why set. */
int rp_open_regular(const char *path, int *why);

/* rp_resolve, then rp_open_regular (the last component not followed): the
 * file descriptor, its host path in *out; or -1 with *why set. */
int rp_open(const char *root, const char *path, sbuf *out, int *why);

#endif
