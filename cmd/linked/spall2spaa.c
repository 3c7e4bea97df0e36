/* spall2spaa's own main, linked into any2spaa as spall2spaa_main (see any2spaa.c). */
int spall2spaa_main(int argc, char **argv);
#define main spall2spaa_main
#include "../../common/readers/spall.c"
