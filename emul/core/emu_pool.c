/* Fixed-size object pool: one allocation at create, a LIFO free list of pointers. */
#include "emu_pool.h"

#include <errno.h>
#include <stdlib.h>

struct emu_pool {
	unsigned char *mem;
	void **free;
	uint32_t nfree;
	uint32_t count;
	uint32_t high;
	uint64_t failures;
};

struct emu_pool *emu_pool_create(size_t size, uint32_t count)
{
	if (size == 0 || count == 0) {
		errno = EINVAL;
		return NULL;
	}
	uint32_t n = 1;

	while (n < count && n < (1u << 30))
		n <<= 1;
	size = (size + 15) & ~(size_t)15;
	struct emu_pool *p = calloc(1, sizeof(*p));
	if (p == NULL)
		goto fail;
	p->mem = calloc(n, size);
	if (p->mem == NULL)
		goto fail_p;
	p->free = malloc(sizeof(void *) * n);
	if (p->free == NULL)
		goto fail_mem;
	p->count = n;
	/* Hand out low addresses first: keeps a short run's working set compact. */
	for (uint32_t i = 0; i < n; i++)
		p->free[i] = p->mem + (size_t)(n - 1 - i) * size;
	p->nfree = n;
	return p;

fail_mem:
	free(p->mem);
fail_p:
	free(p);
fail:
	errno = ENOMEM;
	return NULL;
}

void emu_pool_destroy(struct emu_pool *p)
{
	if (p == NULL)
		return;
	free(p->free);
	free(p->mem);
	free(p);
}

void *emu_pool_get(struct emu_pool *p)
{
	if (p->nfree == 0) {
		p->failures++;
		return NULL;
	}
	void *o = p->free[--p->nfree];
	uint32_t used = p->count - p->nfree;

	if (used > p->high)
		p->high = used;
	return o;
}

void emu_pool_put(struct emu_pool *p, void *obj)
{
	if (obj == NULL)
		return;
	p->free[p->nfree++] = obj;
}

uint32_t emu_pool_in_use(const struct emu_pool *p)
{
	return p->count - p->nfree;
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
