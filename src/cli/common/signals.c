#include <signal.h>
#include <string.h>

#include "cli/common/signals.h"
#include "flamegraph/signals.h"

static void on_signal(int sig)
{
	if ((sig == SIGINT || sig == SIGTERM || sig == SIGHUP) && fg_interrupt(sig) == 0)
		return;
	fg_cleanup_now_for_signal();
	signal(sig, SIG_DFL);
	raise(sig);
}

void fg_cli_signals_init(void)
{
	static const int sigs[] = {
		SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGALRM, SIGUSR1, SIGUSR2,
		SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL,
	};
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(*sigs); i++) {
		struct sigaction old;
		/* a signal ignored by whoever started us stays ignored (nohup,
		 * background jobs of a shell without job control) */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		/* the stop requests may come twice; anything else is fatal at
		 * once, and a crash inside the handler must not loop */
		sa.sa_flags = (sigs[i] == SIGINT || sigs[i] == SIGTERM || sigs[i] == SIGHUP) ?
			      SA_RESTART : SA_RESTART | SA_RESETHAND;
		sigaction(sigs[i], &sa, NULL);
	}
}
