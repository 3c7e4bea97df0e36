/* heaptrack2spaa's own main, linked into any2spaa as heaptrack2spaa_main (see any2spaa.c). */
int heaptrack2spaa_main(int argc, char **argv);
#define main heaptrack2spaa_main
#include "../../common/readers/heaptrack.c"
