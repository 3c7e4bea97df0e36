/* rel/inc/relh.h: a header included by a relative path (-I../inc) */
static inline unsigned long hmix(unsigned long x)
{
	x ^= x >> 31;
	x *= 0x7fb5d329728ea185UL;
	return x ^ (x >> 27);
}
