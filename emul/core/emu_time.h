/* Time in integer picoseconds and the one rounding rule for converting sizes to times. */
#ifndef EMU_TIME_H
#define EMU_TIME_H

#include <errno.h>
#include <stdint.h>

/** Time is a count of picoseconds since the start of the run (2^64 ps is 213 days; a run stays below EMU_PS_MAX). */
typedef uint64_t emu_ps_t;

#define EMU_PS_PER_NS 1000ULL
#define EMU_PS_PER_US 1000000ULL
#define EMU_PS_PER_MS 1000000000ULL
#define EMU_PS_PER_S 1000000000000ULL
#define EMU_PS_NEVER UINT64_MAX
/** The emulated time range: every instant of a run is below it (2^63 ps, 106 days). Input times are checked
 *  against it (emu_ps_add_checked, emu_ps_mul_checked) so that a sum of them can never wrap 2^64 or reach
 *  EMU_PS_NEVER, whatever a config, a capture or a trace holds. */
#define EMU_PS_MAX (1ULL << 63)

/** *@p out = @p a + @p b; 0, or -ERANGE (*@p out untouched) when the sum reaches EMU_PS_MAX. */
static inline int emu_ps_add_checked(emu_ps_t a, emu_ps_t b, emu_ps_t *out)
{
	emu_ps_t s;

	if (__builtin_add_overflow(a, b, &s) || s >= EMU_PS_MAX)
		return -ERANGE;
	*out = s;
	return 0;
}

/** *@p out = @p a x @p b; 0, or -ERANGE (*@p out untouched) when the product reaches EMU_PS_MAX. */
static inline int emu_ps_mul_checked(emu_ps_t a, uint64_t b, emu_ps_t *out)
{
	emu_ps_t p;

	if (__builtin_mul_overflow(a, b, &p) || p >= EMU_PS_MAX)
		return -ERANGE;
	*out = p;
	return 0;
}

/**
 * Serialization time of @p bytes at @p bps bit/s, rounded UP to the next whole picosecond.
 *
 * This is the only size-to-time conversion in the models: links, PCIe transfers and hold times all use it, so
 * every figure in the docs follows one rule (a 98 B PCIe read request at 504.32 Gb/s is 1554.57 ps -> 1555 ps).
 * @p bps must be non-zero; the config loader refuses a zero rate.
 */
static inline emu_ps_t emu_ser_ps(uint64_t bytes, uint64_t bps)
{
	if (bytes < (1ull << 20)) { /* every frame and PCIe transfer: the product fits 64 bits, one 64-bit divide */
		uint64_t num = bytes * 8u * EMU_PS_PER_S;

		return num / bps + (num % bps != 0);
	}
	unsigned __int128 num = (unsigned __int128)bytes * 8u * EMU_PS_PER_S;
	return (emu_ps_t)((num + bps - 1) / bps);
}

/**
 * Picoseconds per byte at @p bps when that is a whole number (100 Gb/s: 80, 400 Gb/s: 20), else 0. A link keeps
 * it, so a frame's serialization is one multiply: bytes x it equals emu_ser_ps(bytes, bps) exactly.
 */
static inline emu_ps_t emu_ps_per_byte(uint64_t bps)
{
	return bps != 0 && (8u * EMU_PS_PER_S) % bps == 0 ? (8u * EMU_PS_PER_S) / bps : 0;
}

/**
 * @p num / @p den, exactly as the 128-bit division gives it, with a 64-bit divide when @p num fits 64 bits (the
 * per-packet arithmetic's usual case: a 128-bit divide is a library call ten times slower).
 */
static inline unsigned __int128 emu_udiv128(unsigned __int128 num, uint64_t den)
{
	if ((uint64_t)(num >> 64) == 0)
		return (uint64_t)num / den;
	return num / den;
}

#endif /* EMU_TIME_H */
