/* elfsym-lookup - common/perf/elfsym's look-ups alone, printed as addr2line -f -i
 * prints them, for bench/symbolize.sh: what resolving an address costs
 * without a profile around it (the direct perf.data path's share).
 *
 * usage: elfsym-lookup FILE < ADDRESSES
 *
 * ADDRESSES: one "0xADDR" a line, link-time addresses of FILE.  Each gets
 * its frames, innermost first, "func" then "file:line" ("??" and "??:0"
 * for what is not known). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "elfsym.h"

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: elfsym-lookup FILE < ADDRESSES\n");
		return 2;
	}
	static char obuf[1 << 16];
	setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
	elfsym *e = elfsym_new(NULL, NULL);
	char line[64];
	while (fgets(line, sizeof line, stdin)) {
		uint64_t a = strtoull(line, NULL, 16);
		elfsym_res res;
		if (elfsym_lookup(e, argv[1], a, false, &res) != ES_OK) {
			fputs("??\n??:0\n", stdout);
			continue;
		}
		for (uint32_t k = 0; k < res.n; k++) {
			fputs(res.func[k], stdout);
			putchar('\n');
			fputs(res.srcline[k] ? res.srcline[k] : "??:0", stdout);
			putchar('\n');
		}
	}
	elfsym_free(e);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		perror("elfsym-lookup: write error");
		return 1;
	}
	return 0;
}
