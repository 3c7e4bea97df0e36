/* optdump.c - the option table a command really hands to getopt_long, for
 * tests/man.bats: preloaded (LD_PRELOAD) into a command, it replaces
 * getopt_long, prints the short options and every long option on standard
 * output, one a line, and exits 0 before the command does anything:
 *   "LETTER LONG ARG", LETTER "-" for a long-only option and LONG "-" for a
 *   letter with no long name; ARG 0 (none), 1 (required) or 2 (optional). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int arg_of(const char *optstring, int c)
{
	const char *p = c > 0 && c < 128 && c != ':' ? strchr(optstring, c) : NULL;
	if (!p) return -1;
	return p[1] != ':' ? 0 : p[2] == ':' ? 2 : 1;
}

int getopt_long(int argc, char *const argv[], const char *optstring,
		const struct option *longopts, int *longindex)
{
	(void)argc, (void)argv, (void)longindex;
	if (*optstring == '+' || *optstring == '-') optstring++;
	if (*optstring == ':') optstring++;
	for (const char *s = optstring; *s; s++) {
		if (*s == ':') continue;
		int named = 0;
		for (const struct option *o = longopts; o && o->name; o++)
			named |= !o->flag && o->val == *s;
		if (!named) printf("%c - %d\n", *s, arg_of(optstring, *s));
	}
	for (const struct option *o = longopts; o && o->name; o++) {
		int a = o->flag ? -1 : arg_of(optstring, o->val);
		if (a >= 0 && a != o->has_arg)
			printf("%c %s MISMATCH(-%c takes %d, --%s %d)\n", o->val, o->name,
			       o->val, a, o->name, o->has_arg);
		else if (a >= 0)
			printf("%c %s %d\n", o->val, o->name, o->has_arg);
		else
			printf("- %s %d\n", o->name, o->has_arg);
	}
	fflush(stdout);
	_exit(0);
}
