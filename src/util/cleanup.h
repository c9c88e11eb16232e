/* Temporary files and child processes that must not outlive the program.
 *
 * Whoever creates a temporary file or starts a child registers it here and
 * unregisters it when done. A program's signal handler then calls
 * fg_cleanup_now(), which is async-signal-safe, to remove every registered
 * file and signal every registered child before the program dies. The
 * library never installs handlers itself: the programs own their signals. */
#ifndef FG_UTIL_CLEANUP_H
#define FG_UTIL_CLEANUP_H

#include <stdbool.h>
#include <sys/types.h>

/* Registers a temporary file (or, with is_dir, an empty folder removed
 * after the files). The path is copied. FG_ENOMEM, or FG_ELIMIT when the
 * table is full (then nothing is registered and the caller goes on). */
int fg_cleanup_add_path(const char *path, bool is_dir);
/* Forgets a registered path (the caller removes it itself). */
void fg_cleanup_remove_path(const char *path);

/* Registers / forgets a child process. */
void fg_cleanup_add_child(pid_t pid);
void fg_cleanup_remove_child(pid_t pid);

/* Async-signal-safe: sends kill_sig (when > 0) to every registered child,
 * then removes every registered file and folder. Registrations stay, so
 * calling it twice is harmless. */
void fg_cleanup_now(int kill_sig);

#endif
