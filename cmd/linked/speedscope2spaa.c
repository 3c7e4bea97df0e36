/* speedscope2spaa's own main, linked into any2spaa as speedscope2spaa_main (see any2spaa.c). */
int speedscope2spaa_main(int argc, char **argv);
#define main speedscope2spaa_main
#include "../../common/readers/speedscope.c"
