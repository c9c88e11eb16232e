/* Requests to stop, made from signal handlers and seen by long-running
 * loops: a counter, the last signal, and a self-pipe that poll() can wait
 * on. The programs' handlers make the requests (fg_interrupt in
 * flamegraph/signals.h); the library never installs a handler. */
#ifndef FG_UTIL_INTERRUPT_H
#define FG_UTIL_INTERRUPT_H

#include <stdbool.h>

/* Creates the self-pipe (not async-signal-safe; idempotent). */
int fg_interrupt_init(void);
/* Async-signal-safe: counts a request for signal sig and wakes pollers.
 * Returns the number of requests so far. */
int fg_interrupt_request(int sig);
/* Requests so far, and the signal of the last one. */
int fg_interrupt_count(void);
int fg_interrupt_signal(void);
/* The read end of the self-pipe (-1 before fg_interrupt_init); drain it
 * with fg_interrupt_drain after poll reports it readable. */
int fg_interrupt_fd(void);
void fg_interrupt_drain(void);
/* Forgets the requests (between runs). */
void fg_interrupt_reset(void);

/* Whether a fg_profile_run is in progress and will see the requests. */
void fg_interrupt_set_active(bool active);
bool fg_interrupt_active(void);

#endif
