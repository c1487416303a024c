/* Object pools of one size that grow with use up to a capacity: at the capacity an empty pool is a counted
 * failure. */
#ifndef EMU_POOL_H
#define EMU_POOL_H

#include <stddef.h>
#include <stdint.h>

#define EMU_POOL_CHUNKS_MAX 32

struct emu_pool_free {
	struct emu_pool_free *next;
};

/* The pool's state: in the header so that taking and returning an object inline; use the functions only. */
struct emu_pool {
	struct emu_pool_free *free;
	size_t size;               /* object size, a multiple of 16 */
	uint32_t nfree;
	uint32_t total;            /* objects in the chunks taken so far */
	uint32_t count;            /* capacity: a power of two */
	uint32_t first;            /* objects in the first chunk: a power of two */
	uint32_t high;
	uint32_t n_chunks;
	uint64_t failures;
	unsigned char *chunks[EMU_POOL_CHUNKS_MAX];
};

/**
 * Create a pool of up to @p count objects of @p size bytes each (count rounded up to a power of two, objects
 * aligned to 16 bytes, to 64 when @p size is a multiple of 64). No object memory is taken yet: the pool takes
 * chunks as objects are asked for, each doubling it (the first about a page), until it holds @p count. Returns
 * NULL with errno ENOMEM or EINVAL (size or count 0).
 */
struct emu_pool *emu_pool_create(size_t size, uint32_t count);

/** Free the pool and all its objects, taken or not. Accepts NULL. */
void emu_pool_destroy(struct emu_pool *p);

/** emu_pool_get() when the free list is empty: takes the next chunk, or counts the failure. */
void *emu_pool_get_slow(struct emu_pool *p);

/**
 * Take one object, or NULL when the pool is empty at its capacity, or a chunk could not be had (counted in
 * emu_pool_failures()). Contents are undefined.
 */
static inline void *emu_pool_get(struct emu_pool *p)
{
	struct emu_pool_free *o = p->free;

	if (o == NULL)
		return emu_pool_get_slow(p);
	uint32_t used = p->total - --p->nfree;

	p->free = o->next;
	if (used > p->high)
		p->high = used;
	return o;
}

/** Return @p obj, which must have come from @p p. Accepts NULL. */
static inline void emu_pool_put(struct emu_pool *p, void *obj)
{
	if (obj == NULL)
		return;
	struct emu_pool_free *f = obj;

	f->next = p->free;
	p->free = f;
	p->nfree++;
}

/** Objects taken and not returned; the most ever taken at once; gets that failed; the pool's capacity. */
uint32_t emu_pool_in_use(const struct emu_pool *p);
uint32_t emu_pool_high_water(const struct emu_pool *p);
uint64_t emu_pool_failures(const struct emu_pool *p);
uint32_t emu_pool_size(const struct emu_pool *p);

/** Objects the pool has memory for so far (its chunks): at most emu_pool_size(). */
uint32_t emu_pool_allocated(const struct emu_pool *p);

#endif /* EMU_POOL_H */
