/* spx2spaa's own main, linked into any2spaa as spx2spaa_main (see any2spaa.c). */
int spx2spaa_main(int argc, char **argv);
#define main spx2spaa_main
#include "../../common/readers/spx.c"
