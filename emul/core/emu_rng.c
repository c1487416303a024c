/* Per-device RNG streams: xoshiro256** seeded through splitmix64 from (RandomSeed, stream id). */
#include "emu_rng.h"

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void emu_rng_init(struct emu_rng *r, uint64_t seed, uint64_t stream_id)
{
	/* Mix the stream id through one splitmix step so that ids 0,1,2 give unrelated states. */
	uint64_t x = seed ^ (stream_id * 0xd1b54a32d192ed03ULL);

	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t emu_rng_next(struct emu_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

uint64_t emu_rng_below(struct emu_rng *r, uint64_t bound)
{
	if (bound == 0)
		return 0;
	/* Rejection sampling: drop the top partial range so every value is equally likely. */
	uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
	uint64_t v;

	do
		v = emu_rng_next(r);
	while (v >= limit);
	return v % bound;
}
