#include <ctype.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "util/suggest.h"
#include "util/banned.h"

#define MAX_LEN 64

size_t fg_edit_distance(const char *a, const char *b)
{
	size_t la = strnlen(a, MAX_LEN), lb = strnlen(b, MAX_LEN);
	/* three rows of the dynamic-programming table: two back, one back, now */
	size_t rows[3][MAX_LEN + 1];
	size_t *prev2 = rows[0], *prev = rows[1], *cur = rows[2];

	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
			size_t best = prev[j - 1] + (ca != cb);
			if (prev[j] + 1 < best)
				best = prev[j] + 1;
			if (cur[j - 1] + 1 < best)
				best = cur[j - 1] + 1;
			if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == cb && prev2[j - 2] + 1 < best)
				best = prev2[j - 2] + 1;
			cur[j] = best;
		}
		size_t *t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return prev[lb];
}

static bool separator(char c)
{
	return c == '_' || c == '-' || c == '.' || c == ':' || c == '/' || c == ' ';
}

/* Whether every word of `small` is a word of `big` (case ignored). */
static bool words_within(const char *small, const char *big)
{
	const char *s = small;
	size_t nwords = 0;

	while (*s) {
		while (*s && separator(*s))
			s++;
		size_t len = 0;
		while (s[len] && !separator(s[len]))
			len++;
		if (!len)
			break;
		bool found = false;
		for (const char *b = big; *b && !found;) {
			while (*b && separator(*b))
				b++;
			size_t blen = 0;
			while (b[blen] && !separator(b[blen]))
				blen++;
			found = blen == len && !strncasecmp(b, s, len);
			b += blen;
		}
		if (!found)
			return false;
		nwords++;
		s += len;
	}
	return nwords > 0;
}

const char *fg_suggest(const char *word, const char *const *cands, size_t n)
{
	size_t limit = strlen(word) / 3, best_d = (size_t)-1;
	const char *best = NULL;

	if (limit < 1)
		limit = 1;
	for (size_t i = 0; i < n; i++) {
		size_t d = fg_edit_distance(word, cands[i]);
		if (d <= limit && d < best_d) {
			best = cands[i];
			best_d = d;
		}
	}
	if (best)
		return best;
	/* a word too many or too few: "parse_number_extra", "unit hash" */
	for (size_t i = 0; i < n; i++)
		if (words_within(cands[i], word) || words_within(word, cands[i]))
			return cands[i];
	return NULL;
}
