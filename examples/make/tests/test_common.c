/* test_common: checks common_mix and common_arg. */
#include <stdio.h>

#include "common.h"

int main(void)
{
	char *argv[] = { "t", "7", NULL };
	int bad = 0;

	if (common_mix(1, 0) == common_mix(2, 0)) {
		puts("FAIL mix seeds");
		bad = 1;
	}
	if (common_arg(2, argv, 3) != 7 || common_arg(1, argv, 3) != 3) {
		puts("FAIL arg");
		bad = 1;
	}
	for (unsigned i = 0; i < 3000000; i++)
		bad |= common_mix(i, 16) == 0;
	puts(bad ? "test_common: FAIL" : "test_common: ok");
	return bad;
}
