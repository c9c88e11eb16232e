/* How the programs that read recordings ask for memory. */
#ifndef FG_CLI_COMMON_MEMORY_H
#define FG_CLI_COMMON_MEMORY_H

/* Makes the heap grow in large steps, backed by transparent huge pages
 * where the kernel gives them on request: a reader of a recording
 * touches tens of megabytes of fresh memory, and on virtual machines
 * each fresh 4 KB page can cost more to map than the work done with it.
 * Call first thing in main; harmless where huge pages are off. */
void fg_cli_tune_memory(void);

#endif
