/* The async-signal-safe entry points of flamegraph/signals.h. */
#include <signal.h>

#include "flamegraph/signals.h"
#include "util/cleanup.h"
#include "util/interrupt.h"
#include "util/banned.h"

int fg_interrupt(int sig)
{
	if (!fg_interrupt_active())
		return -1;
	return fg_interrupt_request(sig) == 1 ? 0 : -1;
}

void fg_cleanup_now_for_signal(void)
{
	fg_cleanup_now(SIGKILL);
}
