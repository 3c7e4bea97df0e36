/* rootpath.c - regular files only, resolved under a root (see rootpath.h). */
#include "rootpath.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const why_text[RP_NWHY] = {
	"opened", "no such file", "a FIFO, not a regular file", "a device, not a regular file",
	"a socket, not a regular file", "a directory, not a regular file", "too many symbolic links"
};

const char *rp_why_text(int why)
{
	return why >= 0 && why < RP_NWHY ? why_text[why] : "?";
}

static int why_of_mode(mode_t m)
{
	if (S_ISREG(m)) return RP_OK;
	if (S_ISFIFO(m)) return RP_FIFO;
	if (S_ISCHR(m) || S_ISBLK(m)) return RP_DEVICE;
	if (S_ISSOCK(m)) return RP_SOCKET;
	if (S_ISDIR(m)) return RP_DIRECTORY;
	return RP_MISSING; /* a symbolic link left by O_NOFOLLOW, or unknown */
}

/* A regular file opened for reading, the last component followed or not. */
static int open_regular(const char *path, bool follow, int *why)
{
	struct stat st;
	if ((follow ? stat(path, &st) : lstat(path, &st)) != 0) {
		*why = errno == ELOOP ? RP_LOOP : RP_MISSING;
		return -1;
	}
	if ((*why = why_of_mode(st.st_mode)) != RP_OK) return -1;
	/* O_NONBLOCK: what was replaced by a FIFO since does not block */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
	if (fd < 0) {
		*why = errno == ELOOP ? RP_LOOP : RP_MISSING;
		return -1;
	}
	int fl;
	if (fstat(fd, &st) != 0 || (*why = why_of_mode(st.st_mode)) != RP_OK ||
	    (fl = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		if (*why == RP_OK) *why = RP_MISSING;
		close(fd);
		return -1;
	}
	return fd;
}

int rp_open_regular(const char *path, int *why)
{
	return open_regular(path, true, why);
}

/* The length of root without its final slashes ("/" is 0: the host's root). */
static size_t root_len(const char *root)
{
	size_t n = strlen(root);
	while (n > 0 && root[n - 1] == '/') n--;
	return n;
}

int rp_resolve(const char *root, const char *path, sbuf *out)
{
	out->n = 0;
	if (!root || !*root) {
		sbuf_adds(out, path);
		return *path ? RP_OK : RP_MISSING;
	}
	if (!*path) return RP_MISSING;
	size_t rn = root_len(root);
	sbuf_add(out, root, rn);  /* root, then the resolved components */
	sbuf todo = { 0 }, next = { 0 }, link = { 0 };
	sbuf_adds(&todo, path);   /* what is left to resolve */
	size_t at = 0;
	int links = 0, why = RP_OK;
	while (at < todo.n) {
		const char *c = todo.p + at;
		size_t cn = strcspn(c, "/");
		size_t after = at + cn + (c[cn] == '/');
		if (cn == 0 || (cn == 1 && c[0] == '.')) {
			at = after;
			continue;
		}
		if (cn == 2 && c[0] == '.' && c[1] == '.') { /* up, never above the root */
			while (out->n > rn && out->p[out->n - 1] != '/') out->n--;
			if (out->n > rn) out->n--;
			out->p[out->n] = 0;
			at = after;
			continue;
		}
		size_t before = out->n;
		sbuf_addc(out, '/');
		sbuf_add(out, c, cn);
		struct stat st;
		if (lstat(out->p, &st) != 0) {
			why = errno == ELOOP ? RP_LOOP : RP_MISSING;
			break;
		}
		if (S_ISLNK(st.st_mode)) {
			if (++links > RP_MAX_LINKS) {
				why = RP_LOOP;
				break;
			}
			/* the link's target, then what was left after it */
			size_t cap = st.st_size > 0 && st.st_size < 65536 ? (size_t)st.st_size + 1 : 4096;
			ssize_t k;
			for (;;) {
				link.n = 0;
				sbuf_reserve(&link, cap);
				k = readlink(out->p, link.p, cap);
				if (k < 0 || (size_t)k < cap || cap >= 65536) break;
				cap *= 2;
			}
			if (k <= 0 || (size_t)k >= cap) {
				why = RP_MISSING;
				break;
			}
			out->n = before;
			out->p[out->n] = 0;
			if (link.p[0] == '/') out->n = rn; /* absolute: from the root again */
			out->p[out->n] = 0;
			next.n = 0;
			sbuf_add(&next, link.p, (size_t)k);
			sbuf_addc(&next, '/');
			sbuf_add(&next, todo.p + after, todo.n - after);
			sbuf tmp = todo;
			todo = next;
			next = tmp;
			at = 0;
			continue;
		}
		if (!S_ISDIR(st.st_mode) && after < todo.n && todo.p[after]) {
			/* more components after what is not a directory (unless
			 * they are only slashes and dots, as the kernel wants a
			 * directory then too) */
			why = RP_MISSING;
			break;
		}
		at = after;
	}
	if (why == RP_OK && out->n == rn) sbuf_addc(out, '/');
	sbuf_add(out, "", 0); /* the NUL */
	sbuf_free(&todo);
	sbuf_free(&next);
	sbuf_free(&link);
	return why;
}

int rp_open(const char *root, const char *path, sbuf *out, int *why)
{
	if ((*why = rp_resolve(root, path, out)) != RP_OK) return -1;
	/* under a root the path has no link left: a link there now was put
	 * there since, and is not followed */
	return open_regular(out->p, !root || !*root, why);
}
