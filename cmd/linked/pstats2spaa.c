/* pstats2spaa's own main, linked into any2spaa as pstats2spaa_main (see any2spaa.c). */
int pstats2spaa_main(int argc, char **argv);
#define main pstats2spaa_main
#include "../pstats2spaa.c"
