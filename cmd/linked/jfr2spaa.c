/* jfr2spaa's own main, linked into any2spaa as jfr2spaa_main (see any2spaa.c). */
int jfr2spaa_main(int argc, char **argv);
#define main jfr2spaa_main
#include "../jfr2spaa.c"
