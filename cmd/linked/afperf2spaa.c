/* afperf2spaa's own main, linked into any2spaa as afperf2spaa_main (see any2spaa.c). */
int afperf2spaa_main(int argc, char **argv);
#define main afperf2spaa_main
#include "../../common/readers/afperf.c"
