/* The PDC group's load balancer: None, Default Packet Spraying and Recycled Entropy Packet Spraying
 * (spec/scala/uet-nic-multipath.md; choices where the page is silent are in docs/multipath.md). */
#include "nic_lb.h"

#include <assert.h>
#include <string.h>

#include "emu_counter.h"
#include "nic_pvt.h"

EMU_COUNTER_NAMES(nic_lb_counter, NIC_LB_COUNTERS, NIC_LB_C_COUNT)

size_t nic_lb_storage_bytes(const struct nic_params *p)
{
	if (p->spraying != NIC_SPRAY_REPS || p->reps_buffer_mask_bits <= NIC_LB_INLINE_BITS)
		return 0;
	return sizeof(uint16_t) << p->reps_buffer_mask_bits;
}

uint32_t nic_lb_window_pkts(const struct nic_params *p, uint64_t link_bps)
{
	/* BDP = link rate x InitialBaseRTT / 8 (300,000 B at the defaults), over the nominal packet RdmaDataMSS + 88
	 * (4,184 B): 71 packets. floor(floor(a / b) / c) = floor(a / (b c)), so one division does both roundings. */
	unsigned __int128 num = (unsigned __int128)link_bps * p->initial_base_rtt;
	unsigned __int128 den = (unsigned __int128)8 * EMU_PS_PER_S * nic_nominal(p->rdma_data_mss);
	unsigned __int128 w = num / den;

	return w > UINT32_MAX ? UINT32_MAX : (uint32_t)w;
}

void nic_lb_init_ext(struct nic_lb *lb, const struct nic_params *p, uint64_t link_bps, uint16_t *storage)
{
	assert(nic_lb_storage_bytes(p) == 0 || storage != NULL);
	memset(lb, 0, sizeof(*lb));
	lb->type = p->spraying;
	lb->fixed = (uint16_t)p->starting_port_offset;
	if (p->spraying != NIC_SPRAY_REPS) {
		lb->last_ev = lb->fixed;
		return;
	}
	lb->mask = (1u << p->reps_buffer_mask_bits) - 1;
	lb->win_len = nic_lb_window_pkts(p, link_bps);
	lb->ext = nic_lb_storage_bytes(p) != 0 ? storage : NULL;
}

void nic_lb_init(struct nic_lb *lb, const struct nic_params *p)
{
	nic_lb_init_ext(lb, p, p->data_rate_bps, NULL);
}

void nic_lb_set_fixed(struct nic_lb *lb, uint16_t ev)
{
	lb->fixed = ev;
	if (lb->type == NIC_SPRAY_NONE)
		lb->last_ev = ev;
}

static inline uint16_t *cache_of(struct nic_lb *lb)
{
	return lb->ext != NULL ? lb->ext : lb->inl;
}

/* A random value from 0 to EntropyValueSetSize - 1 (StartingPortOffset does not apply). */
static uint16_t explore(struct nic_lb *lb, const struct nic_params *p, struct emu_rng *rng)
{
	lb->c[NIC_LB_C_EXPLORED]++;
	lb->last_pick = NIC_LB_PICK_EXPLORE;
	return (uint16_t)emu_rng_below(rng, p->entropy_value_set_size);
}

/* REPS outside the window's forced draws: reuse the oldest recycled value and remove it; while freezing with none
 * left, reuse the cache's entries in turn; explore only when nothing usable is held. */
static uint16_t reps_choose(struct nic_lb *lb, const struct nic_params *p, struct emu_rng *rng)
{
	uint16_t *cache = cache_of(lb);

	if (lb->fresh > 0) {
		uint32_t slot = (lb->head - lb->fresh) & lb->mask;

		lb->fresh--;
		lb->c[NIC_LB_C_REUSED]++;
		lb->last_pick = NIC_LB_PICK_REUSE;
		return cache[slot];
	}
	if (lb->frozen && lb->count > 0) {
		uint16_t ev = cache[lb->frz_next];

		/* Slots 0..count-1 hold values until the cache first fills; from then on all of them do. */
		lb->frz_next = (lb->frz_next + 1) % lb->count;
		lb->c[NIC_LB_C_REUSED_FROZEN]++;
		lb->last_pick = NIC_LB_PICK_REUSE_FROZEN;
		return ev;
	}
	return explore(lb, p, rng);
}

static uint16_t reps_next(struct nic_lb *lb, const struct nic_params *p, struct emu_rng *rng)
{
	if (lb->win_left > 0) {
		/* The window's last packet and every (mask + 1)-th before it explore: with win_left counting down to 1
		 * on the last packet, those are the ones where win_left - 1 is a multiple of the cache size. */
		bool forced = ((lb->win_left - 1) & lb->mask) == 0;

		lb->win_left--;
		if (forced) {
			lb->c[NIC_LB_C_EXPLORED_WINDOW]++;
			return explore(lb, p, rng);
		}
	}
	return reps_choose(lb, p, rng);
}

uint16_t nic_lb_next(struct nic_lb *lb, const struct nic_params *p, struct emu_rng *rng, emu_ps_t now)
{
	uint16_t ev;

	(void)now;
	lb->c[NIC_LB_C_PICKS]++;
	if (lb->type == NIC_SPRAY_DEFAULT) {
		/* StartingPortOffset + (step mod 2^EntropyMaskBits), modulo 65,536: 256..383 at the defaults. */
		uint32_t mask = (1u << p->entropy_mask_bits) - 1;

		lb->last_pick = NIC_LB_PICK_ROUND_ROBIN;
		ev = (uint16_t)((p->starting_port_offset + (lb->step++ & mask)) & 0xffffu);
	} else if (lb->type == NIC_SPRAY_REPS) {
		ev = reps_next(lb, p, rng);
	} else {
		lb->last_pick = NIC_LB_PICK_FIXED;
		ev = lb->fixed;
	}
	lb->last_ev = ev;
	return ev;
}

/* Add @p ev to the cache (a full cache loses its oldest value), then end freezing if FreezingTimeout has passed. */
static void recycle(struct nic_lb *lb, const struct nic_params *p, uint16_t ev, emu_ps_t now)
{
	uint32_t cap = lb->mask + 1;

	cache_of(lb)[lb->head] = ev;
	lb->head = (lb->head + 1) & lb->mask;
	if (lb->fresh < cap)
		lb->fresh++;
	else
		lb->c[NIC_LB_C_OVERWRITTEN]++;
	if (lb->count < cap)
		lb->count++;
	lb->c[NIC_LB_C_RECYCLED]++;
	if (lb->frozen && now - lb->frozen_since >= p->freezing_timeout) {
		lb->frozen = false;
		lb->win_left = lb->win_len;
		lb->c[NIC_LB_C_WINDOWS]++;
	}
}

void nic_lb_on_ack(struct nic_lb *lb, const struct nic_params *p, uint16_t ev, bool ecn_echo, emu_ps_t now)
{
	if (lb->type != NIC_SPRAY_REPS)
		return;
	if (ecn_echo)
		lb->c[NIC_LB_C_DISCARDED_ECN]++;
	else
		recycle(lb, p, ev, now);
}

void nic_lb_on_nack(struct nic_lb *lb, const struct nic_params *p, uint16_t ev, bool last_hop, emu_ps_t now)
{
	if (lb->type != NIC_SPRAY_REPS)
		return;
	if (last_hop)
		recycle(lb, p, ev, now);
	else
		lb->c[NIC_LB_C_DISCARDED_TRIM]++;
}

/* A path failure starts freezing unless REPS is freezing or in the exploration window already. The failed value
 * itself is not looked for in the cache: the page names the signal only as the start of freezing. */
static void path_failure(struct nic_lb *lb, emu_ps_t now)
{
	if (lb->frozen || lb->win_left > 0) {
		lb->c[NIC_LB_C_FAILURES_IGNORED]++;
		return;
	}
	lb->frozen = true;
	lb->frozen_since = now;
	/* Entries in turn start from the oldest: slot 0 until the cache first fills, then the slot after the newest. */
	lb->frz_next = lb->count > lb->mask ? lb->head : 0;
	lb->c[NIC_LB_C_FROZEN]++;
}

void nic_lb_on_failure(struct nic_lb *lb, enum nic_lb_counter why, emu_ps_t now)
{
	assert(why == NIC_LB_C_TIMEOUTS || why == NIC_LB_C_LATE);
	if (lb->type != NIC_SPRAY_REPS)
		return;
	lb->c[why]++;
	path_failure(lb, now);
}

emu_ps_t nic_lb_failure_deadline(const struct nic_params *p, emu_ps_t base_rtt)
{
	uint32_t m = p->failure_detection_rtt_mult;

	if (p->spraying != NIC_SPRAY_REPS || m == 0 || base_rtt > (EMU_PS_NEVER - 1) / m)
		return EMU_PS_NEVER;
	return (emu_ps_t)m * base_rtt;
}

uint64_t nic_lb_counter(const struct nic_lb *lb, int c)
{
	return c >= 0 && c < NIC_LB_C_COUNT ? lb->c[c] : 0;
}

bool nic_lb_frozen(const struct nic_lb *lb)
{
	return lb->frozen;
}

uint32_t nic_lb_window_left(const struct nic_lb *lb)
{
	return lb->win_left;
}

uint32_t nic_lb_cached(const struct nic_lb *lb)
{
	return lb->fresh;
}

uint32_t nic_lb_slots_used(const struct nic_lb *lb)
{
	return lb->count;
}

int nic_lb_last_pick(const struct nic_lb *lb)
{
	return lb->last_pick;
}

uint16_t nic_lb_last_ev(const struct nic_lb *lb)
{
	return lb->last_ev;
}
