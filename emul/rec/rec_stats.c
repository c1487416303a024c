/* Percentiles for the end-of-run summary: nearest rank over sorted integers. */
#include <stdlib.h>

#include "rec.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void rec_sort_u64(uint64_t *v, uint64_t n)
{
	if (v != NULL && n > 1)
		qsort(v, n, sizeof(*v), cmp_u64);
}

uint64_t rec_pct(const uint64_t *v, uint64_t n, uint32_t p)
{
	if (n == 0)
		return 0;
	uint64_t rank = ((uint64_t)p * n + 99) / 100;
	return v[rank == 0 ? 0 : rank - 1];
}
