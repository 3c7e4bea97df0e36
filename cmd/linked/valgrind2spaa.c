/* valgrind2spaa's own main, linked into any2spaa as valgrind2spaa_main (see any2spaa.c). */
int valgrind2spaa_main(int argc, char **argv);
#define main valgrind2spaa_main
#include "../../common/readers/valgrind.c"
