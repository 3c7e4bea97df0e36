/* perf2spaa's own main, linked into any2spaa as perf2spaa_main (see any2spaa.c). */
int perf2spaa_main(int argc, char **argv);
#define main perf2spaa_main
#include "../../common/readers/perf.c"
