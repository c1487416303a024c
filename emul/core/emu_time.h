/* Time in integer picoseconds and the one rounding rule for converting sizes to times. */
#ifndef EMU_TIME_H
#define EMU_TIME_H

#include <stdint.h>

/** Time is a count of picoseconds since the start of the run (2^64 ps is 213 days). */
typedef uint64_t emu_ps_t;

#define EMU_PS_PER_NS 1000ULL
#define EMU_PS_PER_US 1000000ULL
#define EMU_PS_PER_MS 1000000000ULL
#define EMU_PS_PER_S 1000000000000ULL
#define EMU_PS_NEVER UINT64_MAX

/**
 * Serialization time of @p bytes at @p bps bit/s, rounded UP to the next whole picosecond.
 *
 * This is the only size-to-time conversion in the models: links, PCIe transfers and hold times all use it, so
 * every figure in the docs follows one rule (a 98 B PCIe read request at 504.32 Gb/s is 1554.57 ps -> 1555 ps).
 * @p bps must be non-zero; the config loader refuses a zero rate.
 */
static inline emu_ps_t emu_ser_ps(uint64_t bytes, uint64_t bps)
{
	unsigned __int128 num = (unsigned __int128)bytes * 8u * EMU_PS_PER_S;
	return (emu_ps_t)((num + bps - 1) / bps);
}

#endif /* EMU_TIME_H */
