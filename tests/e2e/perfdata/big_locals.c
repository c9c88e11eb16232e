/* A hot function with 3 KB of locals, built without a frame pointer
 * (test_recorder_grow compiles this file with -fomit-frame-pointer),
 * called through functions that keep one (big_locals_main.c): a sample
 * in it has its stack pointer 3 KB below the frame the frame-pointer
 * walk starts from. */
unsigned long churn(unsigned long n);

unsigned long churn(unsigned long n)
{
	volatile unsigned char buf[3072];
	unsigned long s = 0;

	for (unsigned long i = 0; i < n; i++) {
		buf[i % sizeof(buf)] = (unsigned char)i;
		s += buf[(i * 7) % sizeof(buf)];
	}
	return s;
}
