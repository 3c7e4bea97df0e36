/* allocations kept and dropped, for a tcmalloc heap profile */
#include <stdlib.h>
#include <string.h>
static void *keep[1000];
__attribute__((noinline)) static void alloc_live(int n)
{
	for (int i = 0; i < n; i++) { keep[i] = malloc(4096); memset(keep[i], 1, 64); }
}
__attribute__((noinline)) static void alloc_temp(int n)
{
	for (int i = 0; i < n; i++) { char *p = malloc(8192); p[0] = 1; free(p); }
}
int main(void)
{
	alloc_live(300);
	alloc_temp(2000);
	return keep[5] == 0;
}
