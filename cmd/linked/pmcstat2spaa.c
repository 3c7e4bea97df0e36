/* pmcstat2spaa's own main, linked into any2spaa as pmcstat2spaa_main (see any2spaa.c). */
int pmcstat2spaa_main(int argc, char **argv);
#define main pmcstat2spaa_main
#include "../../common/readers/pmcstat.c"
