/* Calls malloc with garbage in the frame-pointer register, as code built
 * without frame pointers may leave it: near the top of the address space
 * (where adding a frame's size wraps around), a small number, a
 * misaligned stack address, an address above the stack. The allocation
 * tracker must walk none of them into a crash. Prints "badframes: N
 * allocations" (N = 5) once all are done. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static void *with_rbp(uintptr_t rbp, size_t n)
{
	void *p;

	/* rbp is saved and restored around the call; the push keeps the
	 * stack 16-byte aligned at the call */
	__asm__ volatile("push %%rbp\n\t"
			 "mov %2, %%rbp\n\t"
			 "call malloc@PLT\n\t"
			 "pop %%rbp"
			 : "=a"(p), "+D"(n)
			 : "r"(rbp)
			 : "rcx", "rdx", "rsi", "r8", "r9", "r10", "r11", "memory", "cc");
	return p;
}

int main(void)
{
	int here;
	uintptr_t sp = (uintptr_t)&here;
	const uintptr_t bad[] = {
		(uintptr_t)-16, (uintptr_t)-8, 0x1000, sp + 3, sp + ((uintptr_t)1 << 40),
	};
	int n = 0;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		void *p = with_rbp(bad[i], 100 + i);
		if (!p)
			return 1;
		free(p);
		n++;
	}
	printf("badframes: %d allocations\n", n);
	return 0;
}
