/* Signals and libflamegraph. The library installs no signal handler: the
 * programs do, and call these from their handlers (both are
 * async-signal-safe).
 *
 *   static void on_signal(int sig) {
 *       if (fg_interrupt(sig) == 0)
 *           return;                  // the run in progress stops cleanly
 *       fg_cleanup_now_for_signal(); // else: abort now
 *       signal(sig, SIG_DFL);
 *       raise(sig);
 *   }
 */
#ifndef FLAMEGRAPH_SIGNALS_H
#define FLAMEGRAPH_SIGNALS_H

#include "flamegraph/api.h"

#ifdef __cplusplus
extern "C" {
#endif
FG_API_BEGIN

/* Asks the fg_profile_run in progress to stop: the first request ends the
 * recording cleanly (the recorder is told to stop, the workload is
 * stopped, the graph is written from what was recorded) or, after the
 * recording, abandons the processing. Returns 0 when a run is in progress
 * and this is its first request; -1 when no run is in progress or the run
 * was already asked once: the caller should abort. */
int fg_interrupt(int sig);

/* Kills (SIGKILL) every child process the library started that is still
 * running and removes every temporary file it made (half-written outputs,
 * temporary recordings). */
void fg_cleanup_now_for_signal(void);

FG_API_END
#ifdef __cplusplus
}
#endif
#endif
