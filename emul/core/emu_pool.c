/* Object pool that grows with use: chunks of a power of two objects, a LIFO free list threaded through them.
 *
 * The first chunk holds about a page of objects; each further chunk doubles the pool, so after k chunks it holds
 * first x 2^k objects, never more than the capacity given at creation. A chunk is taken only when the free list is
 * empty (log2 times over a run at most: off the common path), and its objects go on the free list lowest address
 * first, so a short run's working set stays compact. At the capacity an empty pool is a counted failure.
 */
#include "emu_pool.h"

#include <errno.h>
#include <stdlib.h>

#define POOL_FIRST_BYTES 4096

struct emu_pool *emu_pool_create(size_t size, uint32_t count)
{
	if (size == 0 || count == 0) {
		errno = EINVAL;
		return NULL;
	}
	uint32_t n = 1, first = 1;

	while (n < count && n < (1u << 30))
		n <<= 1;
	size = (size + 15) & ~(size_t)15;
	while (first < n && (size_t)first * 2 * size <= POOL_FIRST_BYTES)
		first <<= 1;
	struct emu_pool *p = calloc(1, sizeof(*p));
	if (p == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	p->size = size;
	p->count = n;
	p->first = first;
	return p;
}

void emu_pool_destroy(struct emu_pool *p)
{
	if (p == NULL)
		return;
	for (uint32_t i = 0; i < p->n_chunks; i++)
		free(p->chunks[i]);
	free(p);
}

/* Take the next chunk: as many objects as the pool holds already (the first: p->first). 0 or -ENOMEM. */
static int pool_grow(struct emu_pool *p)
{
	uint32_t n = p->total == 0 ? p->first : p->total;

	if (p->total >= p->count || p->n_chunks == EMU_POOL_CHUNKS_MAX)
		return -ENOMEM;
	if (n > p->count - p->total)
		n = p->count - p->total;
	/* objects of a multiple of the cache line each start one (the packet pool's 256 B stride) */
	unsigned char *mem = aligned_alloc(p->size % 64 == 0 ? 64 : 16, (size_t)n * p->size);

	if (mem == NULL)
		return -ENOMEM;
	p->chunks[p->n_chunks++] = mem;
	for (uint32_t i = n; i-- > 0;) { /* the lowest address ends on top of the list */
		struct emu_pool_free *f = (struct emu_pool_free *)(mem + (size_t)i * p->size);

		f->next = p->free;
		p->free = f;
	}
	p->total += n;
	p->nfree += n;
	return 0;
}

void *emu_pool_get_slow(struct emu_pool *p)
{
	if (pool_grow(p) != 0) {
		p->failures++;
		return NULL;
	}
	return emu_pool_get(p);
}

uint32_t emu_pool_in_use(const struct emu_pool *p)
{
	return p->total - p->nfree;
}

uint32_t emu_pool_high_water(const struct emu_pool *p)
{
	return p->high;
}

uint64_t emu_pool_failures(const struct emu_pool *p)
{
	return p->failures;
}

uint32_t emu_pool_size(const struct emu_pool *p)
{
	return p->count;
}

uint32_t emu_pool_allocated(const struct emu_pool *p)
{
	return p->total;
}
