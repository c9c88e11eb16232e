/* "Did you mean": the nearest of a list of names to a word that named
 * none of them. */
#ifndef FG_UTIL_SUGGEST_H
#define FG_UTIL_SUGGEST_H

#include <stddef.h>

/* The edit distance between a and b, ignoring case: insertions,
 * deletions, substitutions and swaps of neighbours count one each
 * (optimal string alignment). Long words are compared on their first 64
 * characters. */
size_t fg_edit_distance(const char *a, const char *b);

/* The candidate nearest to word, or NULL when none is near enough to be
 * what was meant: within a third of the word's length in edits (at least
 * one), or sharing all its words with it (words split at '_', '-', '.',
 * ':', '/' and spaces: "parse_number_x" and "parse_number", "unit hash"
 * and "unit"). Ties go to the first candidate. */
const char *fg_suggest(const char *word, const char *const *cands, size_t n);

#endif
