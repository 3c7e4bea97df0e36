/* dtrace2spaa's own main, linked into any2spaa as dtrace2spaa_main (see any2spaa.c). */
int dtrace2spaa_main(int argc, char **argv);
#define main dtrace2spaa_main
#include "../../common/readers/dtrace.c"
