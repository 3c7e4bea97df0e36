/* v8log2spaa's own main, linked into any2spaa as v8log2spaa_main (see any2spaa.c). */
int v8log2spaa_main(int argc, char **argv);
#define main v8log2spaa_main
#include "../../common/readers/v8log.c"
