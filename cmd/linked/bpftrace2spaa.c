/* bpftrace2spaa's own main, linked into any2spaa as bpftrace2spaa_main (see any2spaa.c). */
int bpftrace2spaa_main(int argc, char **argv);
#define main bpftrace2spaa_main
#include "../../common/readers/bpftrace.c"
