/* realign.c - a function whose CFA is rbx (as glibc's _dl_runtime_resolve,
 * which realigns the stack) calling one whose CFI does not save rbx: the
 * unwinder must carry rbx down to find realign's caller.  x86_64 only. */
#include <stdio.h>
#include <stdlib.h>
static volatile unsigned long sink;
__attribute__((noinline, used)) void spin(void)
{
	for (int i = 0; i < 100000; i++) sink += (unsigned long)i;
}
__asm__(".text\n.globl realign\n.type realign,@function\nrealign:\n.cfi_startproc\n"
	"push %rbx\n.cfi_def_cfa_offset 16\n.cfi_offset %rbx,-16\n"
	"mov %rsp,%rbx\n.cfi_def_cfa_register %rbx\n"
	"and $-64,%rsp\ncall spin\n"
	"mov %rbx,%rsp\n.cfi_def_cfa_register %rsp\npop %rbx\n.cfi_def_cfa_offset 8\nret\n"
	".cfi_endproc\n.size realign,.-realign\n");
void realign(void);
int main(int argc, char **argv)
{
	int r = argc > 1 ? atoi(argv[1]) : 1000;
	for (int k = 0; k < r; k++) realign();
	printf("%lu\n", sink);
	return 0;
}
