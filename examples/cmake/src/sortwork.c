#include "stress.h"

static void sift_down(uint32_t *v, size_t start, size_t end)
{
	size_t root = start;
	while (2 * root + 1 <= end) {
		size_t child = 2 * root + 1, swap = root;
		if (v[swap] < v[child])
			swap = child;
		if (child + 1 <= end && v[swap] < v[child + 1])
			swap = child + 1;
		if (swap == root)
			return;
		uint32_t tmp = v[root];
		v[root] = v[swap];
		v[swap] = tmp;
		root = swap;
	}
}

/* Heap sort: deliberately not qsort, so its frames are the example's own. */
void sort_work(uint32_t *v, size_t n)
{
	if (n < 2)
		return;
	for (size_t s = (n - 2) / 2 + 1; s-- > 0;)
		sift_down(v, s, n - 1);
	for (size_t end = n - 1; end > 0; end--) {
		uint32_t tmp = v[0];
		v[0] = v[end];
		v[end] = tmp;
		sift_down(v, 0, end - 1);
	}
}
