/* Object pools of one size that grow with use up to a capacity: at the capacity an empty pool is a counted
 * failure. */
#ifndef EMU_POOL_H
#define EMU_POOL_H

#include <stddef.h>
#include <stdint.h>

struct emu_pool;

/**
 * Create a pool of up to @p count objects of @p size bytes each (count rounded up to a power of two, objects
 * aligned to 16 bytes). No object memory is taken yet: the pool takes chunks as objects are asked for, each
 * doubling it (the first about a page), until it holds @p count. Returns NULL with errno ENOMEM or EINVAL (size or
 * count 0).
 */
struct emu_pool *emu_pool_create(size_t size, uint32_t count);

/** Free the pool and all its objects, taken or not. Accepts NULL. */
void emu_pool_destroy(struct emu_pool *p);

/**
 * Take one object, or NULL when the pool is empty at its capacity, or a chunk could not be had (counted in
 * emu_pool_failures()). Contents are undefined.
 */
void *emu_pool_get(struct emu_pool *p);

/** Return @p obj, which must have come from @p p. Accepts NULL. */
void emu_pool_put(struct emu_pool *p, void *obj);

/** Objects taken and not returned; the most ever taken at once; gets that failed; the pool's capacity. */
uint32_t emu_pool_in_use(const struct emu_pool *p);
uint32_t emu_pool_high_water(const struct emu_pool *p);
uint64_t emu_pool_failures(const struct emu_pool *p);
uint32_t emu_pool_size(const struct emu_pool *p);

/** Objects the pool has memory for so far (its chunks): at most emu_pool_size(). */
uint32_t emu_pool_allocated(const struct emu_pool *p);

#endif /* EMU_POOL_H */
