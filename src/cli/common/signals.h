/* Signal handling shared by every program. SIGINT, SIGTERM and SIGHUP
 * first ask a profiling run in progress to stop cleanly (fg_interrupt);
 * a second request, a request outside a run and every other catchable
 * fatal signal abort: the library's children are killed, its temporary
 * files removed, and the program dies by the signal as it would have. */
#ifndef FG_CLI_COMMON_SIGNALS_H
#define FG_CLI_COMMON_SIGNALS_H

void fg_cli_signals_init(void);

#endif
