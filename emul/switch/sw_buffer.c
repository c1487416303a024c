/* The shared-buffer setup in its five stages (switch-shared-buffer.md), and the UET-policy partition. */
#include "sw_buffer.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* The three UET pools are 1.5 : 1 : 1 of the sizing total, in sevenths: 3/7, 2/7 and the rest. */
#define SB_UET_POOLS 3

static uint64_t frac(uint64_t total, uint64_t ppm)
{
	return (uint64_t)emu_udiv128((unsigned __int128)total * ppm, SW_PPM);
}

/* Stage 2 under PoolAllocationMap. Returns 0, or -EINVAL when the last non-zero pool would go below 0. */
static int stage2_map(const struct sw_params *p, struct sw_buffer *b, char *err, size_t errlen)
{
	uint64_t sum = 0;
	int last = -1;

	for (int i = 0; i < SW_POOL_COUNT; i++) {
		b->pool_nominal[i] = frac(b->sizing_total, p->pool_alloc_ppm[i]);
		b->pool_size[i] = b->pool_nominal[i];
		b->pool_on[i] = p->pool_alloc_ppm[i] != 0;
		sum += b->pool_nominal[i];
		if (b->pool_on[i])
			last = i;
	}
	if (last < 0) {
		snprintf(err, errlen, "PoolAllocationMap has no non-zero entry; e.g. [0.9, 0.1, 0, 0, 0, 0, 0, 0]");
		return -EINVAL;
	}
	/* The pools sum to the sizing total exactly: the difference (rounding, or a map not summing to 1) goes
	 * to the last pool with a non-zero entry. */
	if (sum > b->sizing_total && sum - b->sizing_total > b->pool_size[last]) {
		snprintf(err, errlen, "PoolAllocationMap sums to more than 1 by more than its last non-zero entry; make "
			 "the entries sum to 1");
		return -EINVAL;
	}
	b->pool_size[last] = b->pool_size[last] + b->sizing_total - sum;
	b->adjusted_pool = (int8_t)last;
	for (int tc = 0; tc < SW_TC_COUNT; tc++)
		b->tc_pool[tc] = p->tc_pool[tc];
	return 0;
}

/* Stage 2 and 3 under the UET policy: pools 0, 1, 2 in the ratio 1.5 : 1 : 1; class n uses pool n. */
static void stage2_uet(struct sw_buffer *b)
{
	b->pool_nominal[0] = b->sizing_total * 3 / 7;
	b->pool_nominal[1] = b->sizing_total * 2 / 7;
	b->pool_nominal[2] = b->sizing_total - b->pool_nominal[0] - b->pool_nominal[1];
	for (int i = 0; i < SB_UET_POOLS; i++) {
		b->pool_size[i] = b->pool_nominal[i];
		b->pool_on[i] = 1;
	}
	/* Classification yields only TC0..TC2; the other classes keep pool 0 so every index stays valid. */
	for (int tc = 0; tc < SW_TC_COUNT; tc++)
		b->tc_pool[tc] = tc < SB_UET_POOLS ? (uint8_t)tc : 0;
}

/* Stage 4: the egress limit and the static limit the ECN band is taken from, per pool. */
static void stage4(const struct sw_params *p, struct sw_buffer *b)
{
	if (p->uet_policy)
		b->egress_form = SW_EG_UET;
	else if (p->lossy_alpha_ppm > 0)
		b->egress_form = SW_EG_DYNAMIC;
	else
		b->egress_form = p->qdt_enable ? SW_EG_FIXED_CAP : SW_EG_EVEN_SPLIT;
	b->alpha_ppm = p->lossy_alpha_ppm;
	for (int i = 0; i < SW_POOL_COUNT; i++) {
		uint64_t lim = 0, stat = 0, nominal = b->pool_nominal[i];

		switch (b->egress_form) {
		case SW_EG_DYNAMIC:
			stat = nominal; /* the whole pool, before the Stage 2 adjustment */
			break;
		case SW_EG_EVEN_SPLIT:
			lim = stat = b->n_ports ? nominal / b->n_ports : nominal;
			break;
		case SW_EG_FIXED_CAP:
			lim = stat = (uint64_t)p->qdt * p->plane_bdp;
			break;
		default: /* SW_EG_UET */
			lim = stat = p->trimming_enabled ? p->plane_bdp : (uint64_t)p->qdt * p->plane_bdp;
			break;
		}
		b->egress_limit[i] = lim;
		b->egress_limit_rtx[i] = b->egress_form == SW_EG_UET ? lim * 3 / 2 : lim;
		b->ecn_min[i] = frac(stat, p->ecn_min_ppm);
		b->ecn_max[i] = frac(stat, p->ecn_max_ppm);
	}
}

int sw_buffer_setup(const struct sw_params *p, uint32_t n_ports, struct sw_buffer *b, char *err, size_t errlen)
{
	char dummy[1];

	if (err == NULL || errlen == 0) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	memset(b, 0, sizeof(*b));
	b->n_ports = n_ports;
	b->adjusted_pool = -1;
	/* Stage 1: headroom first. */
	b->headroom_per_port = p->headroom_per_port;
	b->headroom_total = p->headroom_per_port * n_ports;
	if (b->headroom_total > p->total_buffer) {
		snprintf(err, errlen,
			 "total headroom, HeadRoomPerPortLimit %llu B x %u connected ports = %llu B, is larger than "
			 "TotalSharedBufferSize %llu B; lower HeadRoomPerPortLimit or raise TotalSharedBufferSize",
			 (unsigned long long)p->headroom_per_port, n_ports, (unsigned long long)b->headroom_total,
			 (unsigned long long)p->total_buffer);
		return -EINVAL;
	}
	b->sizing_total = p->total_buffer - b->headroom_total;
	/* Stages 2 and 3. */
	if (p->uet_policy) {
		stage2_uet(b);
	} else {
		int rc = stage2_map(p, b, err, errlen);

		if (rc != 0)
			return rc;
	}
	for (int tc = 0; tc < SW_TC_COUNT; tc++) {
		/* Under the UET policy only TC0..TC2 carry traffic, so only their EnablePFC entries apply. */
		b->tc_lossless[tc] = p->pfc_enable[tc] == 1 && (!p->uet_policy || tc < SB_UET_POOLS);
		if (b->tc_lossless[tc])
			b->pool_pg[b->tc_pool[tc]] |= (uint8_t)(1u << tc);
	}
	stage4(p, b);
	/* Stage 5. */
	b->xoff = p->xoff;
	b->xon = p->xon;
	return 0;
}

