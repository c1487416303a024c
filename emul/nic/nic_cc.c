/* NSCC: the constants derived from the attributes and the per-group window's reactions to ACKs, trims, timeouts
 * and probes (spec/scala/uet-nic-congestion-control.md; the UET 1.0 pseudocode of spec/uet-wire-and-algorithms.md
 * §2.3 for the formulas the page does not write). docs/nscc.md explains each choice. */
#include "nic_cc.h"

#include <string.h>

#include "nic_pvt.h"

enum {
	NIC_CC_F_INCREASE = 1u << 0, /* fast increase engaged */
	NIC_CC_F_TRIGGER_QA = 1u << 1, /* a trim NACK arrived since Quick Adapt last fired */
	NIC_CC_F_QA_OPEN = 1u << 2, /* the first observation window has opened */
	NIC_CC_F_DECREASED = 1u << 3, /* a multiplicative decrease happened (last_dec is valid) */
};

#define FRAC_MAX (1ULL << 40) /* a gain's numerator and denominator stay below this (docs/nscc.md) */
#define DELAY_MAX (1ULL << 54) /* ps; bounds the 128-bit products of proportional increase */

typedef unsigned __int128 u128;

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static uint64_t sat_u64(u128 x)
{
	return x > UINT64_MAX ? UINT64_MAX : (uint64_t)x;
}

/* A configured double as parts per million, rounded to nearest (the attributes are non-negative). */
static uint32_t to_ppm(double x)
{
	double v = x * (double)NIC_CC_PPM + 0.5;
	return v <= 0 ? 0 : v >= 4294967295.0 ? UINT32_MAX : (uint32_t)v;
}

static u128 gcd128(u128 a, u128 b)
{
	while (b != 0) {
		u128 t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* num / den reduced; if still too large (never at the defaults), both are halved together until they fit. */
static struct nic_cc_frac frac(u128 num, u128 den)
{
	u128 g = gcd128(num, den);
	struct nic_cc_frac f;

	if (g > 1) {
		num /= g;
		den /= g;
	}
	while (num >= FRAC_MAX || den >= FRAC_MAX) {
		num >>= 1;
		den >>= 1;
	}
	f.num = (uint64_t)num;
	f.den = den == 0 ? 1 : (uint64_t)den;
	return f;
}

/* link rate x rtt / 8, bytes, rounded down */
static uint64_t bdp_of(uint64_t bps, emu_ps_t rtt)
{
	return sat_u64((u128)bps * rtt / (8 * EMU_PS_PER_S));
}

uint64_t nic_cc_max_wnd_for(const struct nic_cc_consts *k, emu_ps_t rtt)
{
	uint64_t w = bdp_of(k->link_bps, rtt) * 3 / 2;
	return w < k->mtu ? k->mtu : w;
}

static void consts_gains(struct nic_cc_consts *k, const struct nic_params *p)
{
	/* scaling_a = BDP / reference BDP; scaling_b = target / ReferenceNetworkRTT (UET: target / 12 us, the RTT of
	 * its 150,000 B base_BDP). alpha = AlphaMultiplier x scaling_a x scaling_b x MTU / target
	 *       = AlphaMultiplier x MTU x BDP / (ReferenceNetworkRTT x reference BDP), bytes per ps. */
	u128 ref = k->ref_bdp == 0 ? 1 : k->ref_bdp;
	emu_ps_t ref_rtt = p->reference_network_rtt == 0 ? 1 : p->reference_network_rtt;

	k->prop = frac((u128)to_ppm(p->alpha_mult) * k->mtu * k->bdp, (u128)NIC_CC_PPM * ref_rtt * ref);
	/* fi = FairIncreaseMultiplier x MTU x scaling_a, bytes^2 per acked byte */
	k->fair = frac((u128)to_ppm(p->fair_increase_mult) * k->mtu * k->bdp, (u128)NIC_CC_PPM * ref);
	/* fi_scale = FastIncreaseMultiplier x 0.25 x scaling_a, window bytes per acked byte */
	k->fast = frac((u128)to_ppm(p->fast_increase_mult) * k->bdp, (u128)4 * NIC_CC_PPM * ref);
	/* eta = EtaMultiplier x MTU x scaling_a, bytes once per adjust period */
	k->eta = sat_u64((u128)to_ppm(p->eta_mult) * k->mtu * k->bdp / ((u128)NIC_CC_PPM * ref));
}

void nic_cc_consts_init(struct nic_cc_consts *k, const struct nic_params *p, uint64_t link_bps,
			uint64_t rx_data_pool_bytes)
{
	const uint64_t gbps = 1000000000ULL;

	memset(k, 0, sizeof(*k));
	k->mtu = nic_nominal(p->rdma_data_mss);
	k->link_bps = link_bps / gbps * gbps;
	k->base_rtt0 = p->initial_base_rtt;
	k->bdp = bdp_of(k->link_bps, p->initial_base_rtt);
	k->ref_bdp = bdp_of(p->reference_link_bps, p->reference_network_rtt);
	k->max_wnd = p->override_max_cwnd ? (uint64_t)p->max_cwnd_pkts * k->mtu : nic_cc_max_wnd_for(k, k->base_rtt0);
	if (k->max_wnd < k->mtu)
		k->max_wnd = k->mtu;
	if (p->override_target_qdelay)
		k->target = p->target_qdelay;
	else
		k->target = p->trimming_enabled ? p->initial_base_rtt * 3 / 4 : p->initial_base_rtt;
	k->margin = p->target_qdelay_margin;
	k->qa_threshold = p->quick_adapt_threshold;
	k->qa_gate = p->quick_adapt_gate > 63 ? 63 : p->quick_adapt_gate;
	k->adjust_bytes = NIC_CC_ADJUST_PKTS * k->mtu;
	consts_gains(k, p);
	k->gamma_ppm = to_ppm(p->gamma);
	k->md_jump_ppm = to_ppm(p->max_md_jump);
	k->delay_alpha_ppm = to_ppm(p->delay_alpha);
	if (k->delay_alpha_ppm > NIC_CC_PPM)
		k->delay_alpha_ppm = NIC_CC_PPM;
	/* percent x 10,000 = ppm of the pool */
	k->pen_low = sat_u64((u128)rx_data_pool_bytes * to_ppm(p->recv_cong_low_pct / 100.0) / NIC_CC_PPM);
	k->pen_high = sat_u64((u128)rx_data_pool_bytes * to_ppm(p->recv_cong_high_pct / 100.0) / NIC_CC_PPM);
	k->nscc = p->nscc_enable;
	k->quick_adapt = !p->disable_quick_adapt;
	k->qa_delay_trigger = !p->trimming_enabled;
	k->restore = p->restore_cwnd_enable;
}

void nic_cc_init(struct nic_cc *cc, const struct nic_cc_consts *k, emu_ps_t now)
{
	memset(cc, 0, sizeof(*cc));
	cc->max_wnd = k->max_wnd;
	cc->cwnd = k->max_wnd;
	cc->base_rtt = k->base_rtt0;
	cc->delay_ref = k->base_rtt0;
	cc->last_adjust = now;
}

/* Step 5: the window stays between one nominal packet and the max window. */
static void bound(struct nic_cc *cc, const struct nic_cc_consts *k)
{
	if (cc->cwnd > cc->max_wnd)
		cc->cwnd = cc->max_wnd;
	if (cc->cwnd < k->mtu)
		cc->cwnd = k->mtu;
}

/* cwnd - @p dec, at least one nominal packet */
static void shrink(struct nic_cc *cc, const struct nic_cc_consts *k, uint64_t dec)
{
	cc->cwnd = cc->cwnd > dec + k->mtu ? cc->cwnd - dec : k->mtu;
}

/* Base RTT: lowered by a sample more than 1 us below it, to sample + 1 us; the max window is derived again from
 * it (the override no longer applies) and delay samples are measured from the sample itself. */
static void offer_base(struct nic_cc *cc, const struct nic_cc_consts *k, emu_ps_t rtt)
{
	if (rtt >= cc->base_rtt || cc->base_rtt - rtt <= NIC_CC_BASE_SLACK_PS)
		return;
	cc->base_rtt = rtt + NIC_CC_BASE_SLACK_PS;
	cc->delay_ref = rtt;
	cc->max_wnd = nic_cc_max_wnd_for(k, cc->base_rtt);
	if (cc->cwnd > cc->max_wnd || !k->nscc)
		cc->cwnd = cc->max_wnd;
}

/* average = DelayAlpha x sample + (1 - DelayAlpha) x average, rounded down */
static void update_delay(struct nic_cc *cc, const struct nic_cc_consts *k, emu_ps_t sample)
{
	u128 a = k->delay_alpha_ppm;
	cc->avg_qdelay = sat_u64(emu_udiv128(a * sample + (NIC_CC_PPM - a) * cc->avg_qdelay, NIC_CC_PPM));
}

/* Step 1 (UET apply_cwnd_penalty, §3.6.13.2). Returns true when the ACK is receiver-limited. */
static bool apply_penalty(struct nic_cc *cc, const struct nic_cc_consts *k, const struct nic_cc_ack *a)
{
	if (a->penalty > 0) {
		uint8_t pen = a->penalty > NIC_CC_PENALTY_MAX ? NIC_CC_PENALTY_MAX : a->penalty;
		if (cc->saved_cwnd == 0)
			cc->saved_cwnd = cc->cwnd;
		cc->cwnd = min_u64(cc->cwnd, a->in_flight);
		shrink(cc, k, (uint64_t)pen * a->acked >> 7);
		return true;
	}
	if (a->restore && cc->saved_cwnd > 0) {
		cc->cwnd = cc->saved_cwnd;
		cc->saved_cwnd = 0;
	}
	return false;
}

/* A new observation window opens now: one base RTT plus the target long, nothing acknowledged in it yet. */
static void qa_open(struct nic_cc *cc, const struct nic_cc_consts *k, emu_ps_t now)
{
	cc->flags |= NIC_CC_F_QA_OPEN;
	cc->achieved_bytes = 0;
	cc->qa_end = now + cc->base_rtt + k->target;
}

/*
 * Quick Adapt (UET quick_adapt(is_loss, M, qdelay)). Returns true when processing of this signal stops: it fired,
 * or it is ignoring an ECN-marked ACK or a trim NACK (@p marked) for the bytes in flight when it last fired.
 */
static bool quick_adapt(struct nic_cc *cc, const struct nic_cc_consts *k, bool is_loss, bool marked,
			uint64_t in_flight, emu_ps_t now)
{
	bool stop = false;

	if (!k->quick_adapt)
		return false;
	if (marked && cc->bytes_ignored < cc->bytes_to_ignore) {
		stop = true;
	} else if (!(cc->flags & NIC_CC_F_QA_OPEN) || now > cc->qa_end) {
		bool trigger = (cc->flags & NIC_CC_F_TRIGGER_QA) || is_loss ||
			       (k->qa_delay_trigger && cc->avg_qdelay > k->qa_threshold);
		if ((cc->flags & NIC_CC_F_QA_OPEN) && trigger && cc->achieved_bytes < cc->max_wnd >> k->qa_gate) {
			cc->cwnd = cc->achieved_bytes > k->mtu ? cc->achieved_bytes : k->mtu;
			cc->bytes_to_ignore = in_flight;
			cc->bytes_ignored = 0;
			cc->flags &= (uint8_t)~NIC_CC_F_TRIGGER_QA;
			cc->quick_adapts++;
			stop = true;
		}
		qa_open(cc, k, now);
	}
	if (stop) {
		cc->inc_bytes = 0;
		cc->received_bytes = 0;
	}
	return stop;
}

static void add_inc(struct nic_cc *cc, u128 inc)
{
	cc->inc_bytes = sat_u64((u128)cc->inc_bytes + inc);
}

/* Proportional increase, or fast increase once engaged (UET proportional_increase / fast_increase). */
static void proportional_increase(struct nic_cc *cc, const struct nic_cc_consts *k, uint64_t n, emu_ps_t delay)
{
	if (delay < k->margin) {
		cc->fi_count = sat_u64((u128)cc->fi_count + n);
		if (cc->fi_count > cc->cwnd || (cc->flags & NIC_CC_F_INCREASE)) {
			cc->cwnd = sat_u64((u128)cc->cwnd + emu_udiv128((u128)n * k->fast.num, k->fast.den));
			cc->flags |= NIC_CC_F_INCREASE;
			return;
		}
	} else {
		cc->fi_count = 0;
	}
	cc->flags &= (uint8_t)~NIC_CC_F_INCREASE;
	emu_ps_t below = k->target - delay;
	if (below > DELAY_MAX)
		below = DELAY_MAX;
	add_inc(cc, emu_udiv128((u128)min_u64(n, UINT32_MAX) * k->prop.num * below, k->prop.den));
}

/* Multiplicative decrease: only while the average delay is above the target, at most once per base RTT. */
static void multiplicative_decrease(struct nic_cc *cc, const struct nic_cc_consts *k, emu_ps_t now)
{
	cc->flags &= (uint8_t)~NIC_CC_F_INCREASE;
	cc->fi_count = 0;
	if (cc->avg_qdelay <= k->target)
		return;
	if ((cc->flags & NIC_CC_F_DECREASED) && now - cc->last_dec <= cc->base_rtt)
		return;
	/* keep = max(1 - Gamma x (avg - target) / avg, MaxMultiplicativeDecreaseJump), in ppm, cut rounded down */
	uint64_t cut = sat_u64(emu_udiv128((u128)k->gamma_ppm * (cc->avg_qdelay - k->target), cc->avg_qdelay));
	uint64_t keep = cut >= NIC_CC_PPM ? 0 : NIC_CC_PPM - cut;
	if (keep < k->md_jump_ppm)
		keep = k->md_jump_ppm;
	cc->cwnd = sat_u64(emu_udiv128((u128)cc->cwnd * keep, NIC_CC_PPM));
	if (cc->cwnd < k->mtu)
		cc->cwnd = k->mtu;
	cc->last_dec = now;
	cc->flags |= NIC_CC_F_DECREASED;
}

/* UET fulfill_adjustment: the batched increases, normalised by the window, and eta once per base RTT. */
static void fulfill_adjustment(struct nic_cc *cc, const struct nic_cc_consts *k, emu_ps_t now)
{
	cc->cwnd += cc->inc_bytes / cc->cwnd;
	if (now - cc->last_adjust >= cc->base_rtt) {
		cc->last_adjust = now;
		cc->cwnd += k->eta;
	}
	cc->inc_bytes = 0;
	cc->received_bytes = 0;
}

/* Step 4: one routine by ECN echo x delay below target x receiver-limited. */
static void routine(struct nic_cc *cc, const struct nic_cc_consts *k, const struct nic_cc_ack *a, emu_ps_t delay,
		    bool rcv_limit, emu_ps_t now)
{
	if (a->ecn) {
		if (delay >= k->target)
			multiplicative_decrease(cc, k, now);
	} else if (!rcv_limit) {
		if (delay >= k->target)
			add_inc(cc, emu_udiv128((u128)a->acked * k->fair.num, k->fair.den));
		else
			proportional_increase(cc, k, a->acked, delay);
	}
}

void nic_cc_on_ack(struct nic_cc *cc, const struct nic_cc_consts *k, const struct nic_cc_ack *a, emu_ps_t now)
{
	if (!k->nscc) {
		if (a->has_rtt)
			offer_base(cc, k, a->rtt);
		return;
	}
	cc->bytes_ignored = sat_u64((u128)cc->bytes_ignored + a->acked);
	cc->received_bytes = sat_u64((u128)cc->received_bytes + a->acked);
	cc->achieved_bytes = sat_u64((u128)cc->achieved_bytes + a->acked);
	bool rcv_limit = apply_penalty(cc, k, a);
	if (!a->has_rtt) {
		/* The rest runs only on an ACK with a sample, but the first observation window opens with the first ACK
		 * or trim NACK, sampled or not (page: Quick Adapt). */
		if (k->quick_adapt && !(cc->flags & NIC_CC_F_QA_OPEN))
			qa_open(cc, k, now);
		bound(cc, k);
		return;
	}
	offer_base(cc, k, a->rtt);
	emu_ps_t delay = a->rtt > cc->delay_ref ? a->rtt - cc->delay_ref : 0;
	update_delay(cc, k, delay);
	if (quick_adapt(cc, k, false, a->ecn, a->in_flight, now)) {
		bound(cc, k);
		return;
	}
	routine(cc, k, a, delay, rcv_limit, now);
	bound(cc, k);
	if (cc->received_bytes > k->adjust_bytes || now - cc->last_adjust >= cc->base_rtt) {
		fulfill_adjustment(cc, k, now);
		bound(cc, k);
	}
}

void nic_cc_on_trim(struct nic_cc *cc, const struct nic_cc_consts *k, uint64_t bytes, emu_ps_t rtt,
		    uint64_t in_flight, emu_ps_t now)
{
	if (rtt != EMU_PS_NEVER)
		offer_base(cc, k, rtt);
	if (!k->nscc)
		return;
	/* UET OnNACK: InitialBaseRTT folded into the average as one sample; the trimmed bytes count as ignored */
	update_delay(cc, k, k->base_rtt0);
	cc->bytes_ignored = sat_u64((u128)cc->bytes_ignored + bytes);
	cc->flags |= NIC_CC_F_TRIGGER_QA;
	if (!quick_adapt(cc, k, true, true, in_flight, now))
		shrink(cc, k, bytes);
	bound(cc, k);
}

void nic_cc_on_timeout(struct nic_cc *cc, const struct nic_cc_consts *k, uint64_t bytes, emu_ps_t now)
{
	(void)now;
	if (!k->nscc)
		return;
	cc->bytes_ignored = sat_u64((u128)cc->bytes_ignored + bytes);
	shrink(cc, k, bytes);
	bound(cc, k);
}

void nic_cc_on_probe_rtt(struct nic_cc *cc, const struct nic_cc_consts *k, emu_ps_t rtt, emu_ps_t now)
{
	(void)now;
	offer_base(cc, k, rtt);
}

uint8_t nic_cc_penalty(const struct nic_cc_consts *k, uint64_t occupancy)
{
	if (occupancy < k->pen_low)
		return 0;
	if (occupancy >= k->pen_high)
		return NIC_CC_PENALTY_MAX;
	return (uint8_t)emu_udiv128((u128)NIC_CC_PENALTY_MAX * (occupancy - k->pen_low), k->pen_high - k->pen_low);
}
