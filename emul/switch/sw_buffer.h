/* The Scala Switch's shared-buffer setup (spec/scala/switch-shared-buffer.md, "How the buffer is initialized"):
 * a pure function from the attributes and the connected-port count to every size and threshold the switch uses.
 *
 * Public so that the config checker can report the headroom rule and the tests can check the page's worked
 * examples; the switch computes the same struct once in sw_create() and only reads it afterwards.
 */
#ifndef SW_BUFFER_H
#define SW_BUFFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emu_time.h"
#include "sw_params.h"

/* Stage 4: the form of the lossy egress queue limit. */
enum sw_egress_form {
	SW_EG_DYNAMIC = 0, /* LossyAlpha > 0: LossyAlpha x the pool's free egress bytes, per packet */
	SW_EG_EVEN_SPLIT,  /* LossyAlpha 0, QueueDropThresholdEnable false: pool / connected ports */
	SW_EG_FIXED_CAP,   /* LossyAlpha 0, QueueDropThresholdEnable true: QueueDropThreshold x PlaneBDP */
	SW_EG_UET,         /* UETPolicyEnabled: PlaneBDP with trimming, QueueDropThreshold x PlaneBDP without */
};

/** Everything the buffer setup computes. All sizes in bytes. */
struct sw_buffer {
	uint32_t n_ports;                    /* connected ports */
	/* Stage 1 */
	uint64_t headroom_total;             /* HeadRoomPerPortLimit x connected ports */
	uint64_t sizing_total;               /* TotalSharedBufferSize - headroom_total */
	uint64_t headroom_per_port;          /* per port, in each pool that carries a lossless class */
	/* Stage 2 */
	uint64_t pool_nominal[SW_POOL_COUNT]; /* share x sizing total, rounded down: before the adjustment */
	uint64_t pool_size[SW_POOL_COUNT];   /* after the difference went to the last non-zero pool */
	uint8_t pool_on[SW_POOL_COUNT];      /* the pool exists (non-zero entry, or one of the 3 UET pools) */
	int8_t adjusted_pool;                /* the pool that took the difference, -1 when none */
	/* Stage 3 */
	uint8_t tc_pool[SW_TC_COUNT];        /* pool of each class */
	uint8_t tc_lossless[SW_TC_COUNT];    /* EnablePFC */
	uint8_t pool_pg[SW_POOL_COUNT];      /* priority group: bit c set for each lossless class c in the pool */
	/* Stage 4 */
	uint8_t egress_form;                 /* enum sw_egress_form */
	uint64_t alpha_ppm;                  /* LossyAlpha, SW_EG_DYNAMIC */
	uint64_t egress_limit[SW_POOL_COUNT];     /* fixed forms: the per-port limit of the pool; dynamic: 0 */
	uint64_t egress_limit_rtx[SW_POOL_COUNT]; /* SW_EG_UET: 1.5 x for TRIMMABLE_RTX packets; else = egress_limit */
	uint64_t ecn_min[SW_POOL_COUNT];     /* MinThreshold x the pool's static limit (ECN marking), rounded down */
	uint64_t ecn_max[SW_POOL_COUNT];     /* MaxThreshold x the same, rounded down */
	/* Stage 5 */
	uint64_t xoff;                       /* StaticPoolXoffThreshold, every port and pool */
	uint64_t xon;                        /* StaticPoolXonThreshold */
};

/**
 * Run the five stages for a switch with @p n_ports connected ports.
 * Returns 0, or -EINVAL with "<what>; <suggestion>" in @p err when the total headroom is larger than
 * TotalSharedBufferSize, or when PoolAllocationMap leaves its last non-zero pool below 0 (sw_params_check()
 * reports that one first).
 */
int sw_buffer_setup(const struct sw_params *p, uint32_t n_ports, struct sw_buffer *b, char *err, size_t errlen);

/**
 * The lossy egress queue limit of @p pool for one packet: for SW_EG_DYNAMIC, LossyAlpha x (pool size - @p eg_pool
 * bytes held at egress, 0 when none is free), rounded down; otherwise the fixed limit (the 1.5x TRIMMABLE_RTX
 * limit when @p rtx under the UET policy).
 */
static inline uint64_t sw_buffer_egress_limit(const struct sw_buffer *b, uint32_t pool, uint64_t eg_pool, bool rtx)
{
	if (b->egress_form != SW_EG_DYNAMIC)
		return rtx ? b->egress_limit_rtx[pool] : b->egress_limit[pool];
	uint64_t size = b->pool_size[pool];
	uint64_t free_bytes = eg_pool < size ? size - eg_pool : 0;

	return (uint64_t)emu_udiv128((unsigned __int128)free_bytes * b->alpha_ppm, SW_PPM); /* rounded down */
}

#endif /* SW_BUFFER_H */
