/* Shared workloads of the crunch example. */
#ifndef CRUNCH_WORK_H
#define CRUNCH_WORK_H

#include <stddef.h>
#include <stdint.h>

/* Fills an n x n matrix with a deterministic pattern. */
void fill_matrix(double *m, size_t n, unsigned seed);
/* c = a * b for n x n matrices. */
void multiply(double *c, const double *a, const double *b, size_t n);
/* Sum of row checksums (only with the checksum feature). */
uint64_t checksum_rows(const double *m, size_t n);
/* A string hash, FNV-1a style. */
uint64_t hash_text(const char *s, size_t len);
/* Sorts n integers (insertion into runs, then merge). */
void sort_ints(int *v, size_t n);
/* Parses a decimal integer list "1,2,3" and returns the sum. */
long parse_list(const char *s);

#endif
