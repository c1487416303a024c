/* Per-device random number streams (splitmix64-seeded xoshiro256**), so results do not depend on lcore placement. */
#ifndef EMU_RNG_H
#define EMU_RNG_H

#include <stdint.h>

/** One stream. Embedded by its owner (a device), hence public. */
struct emu_rng {
	uint64_t s[4];
};

/** Default RandomSeed of the Scala SimulationParameters. */
#define EMU_RNG_DEFAULT_SEED 18760ULL

/**
 * Seed @p r from the run's RandomSeed and a stream id (the device id). Two streams with different ids are
 * independent; the same (seed, id) always gives the same sequence.
 */
void emu_rng_init(struct emu_rng *r, uint64_t seed, uint64_t stream_id);

/** Next 64 random bits. */
uint64_t emu_rng_next(struct emu_rng *r);

/** Uniform integer in [0, bound) without modulo bias; @p bound 0 returns 0. */
uint64_t emu_rng_below(struct emu_rng *r, uint64_t bound);

#endif /* EMU_RNG_H */
