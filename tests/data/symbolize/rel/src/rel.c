/* rel/src/rel.c: built from rel/build as ../src/rel.c with -I../inc, so that
 * its line table names files relative to the unit's DW_AT_comp_dir */
#include <stdio.h>
#include "relh.h"
__attribute__((noinline)) unsigned long work(unsigned long n)
{
	unsigned long s = 0;
	for (unsigned long i = 0; i < n; i++) s += hmix(i + s);
	return s;
}
int main(int argc, char **argv)
{
	(void)argv;
	printf("%lu\n", work((unsigned long)argc * 1000));
	return 0;
}
