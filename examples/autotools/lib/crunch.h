#ifndef CRUNCH_H
#define CRUNCH_H
#include <stddef.h>
#include <stdint.h>

/* Mixes n bytes of buf into a 64-bit value, `rounds` times over. */
uint64_t crunch_digest(const unsigned char *buf, size_t n, unsigned rounds);
/* Fills buf with n pseudo-random bytes from seed. */
void crunch_fill(unsigned char *buf, size_t n, uint64_t seed);
/* "crunch 1.0 (fast mix)" or "crunch 1.0". */
const char *crunch_version(void);
#endif
