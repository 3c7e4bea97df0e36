/* gecko2spaa's own main, linked into any2spaa as gecko2spaa_main (see any2spaa.c). */
int gecko2spaa_main(int argc, char **argv);
#define main gecko2spaa_main
#include "../../common/readers/gecko.c"
