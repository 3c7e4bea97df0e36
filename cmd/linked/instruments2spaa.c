/* instruments2spaa's own main, linked into any2spaa as instruments2spaa_main (see any2spaa.c). */
int instruments2spaa_main(int argc, char **argv);
#define main instruments2spaa_main
#include "../../common/readers/instruments.c"
