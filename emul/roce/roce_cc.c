/* DCQCN-style rate control per queue pair (congestion-control page, The rate control loop): an episode begins on a
 * CNP, the loop runs every half ControlIntervalDurationNs alternating a reduction half and an increase half, fast
 * recovery then additive increase, a floor, and the return to line rate. Runs per control half, never per packet. */
#include "roce_pvt.h"

#define PPM 1000000u

void roce_cc_init(struct roce *r, struct roce_qp *qp)
{
	qp->cc = (struct roce_cc){ .rate = r->line_bps, .target = r->line_bps, .alpha_ppm = PPM };
}

uint64_t roce_cc_rate(const struct roce *r, const struct roce_qp *qp)
{
	return qp->cc.congested ? qp->cc.rate : r->line_bps;
}

emu_ps_t roce_cc_ser(const struct roce *r, const struct roce_qp *qp, uint32_t len)
{
	uint64_t rate = roce_cc_rate(r, qp);

	return emu_ser_ps(len, rate > r->floor_bps ? rate : r->floor_bps);
}

static uint64_t mul_ppm(uint64_t v, uint64_t ppm)
{
	return (uint64_t)(((unsigned __int128)v * ppm) / PPM);
}

/* The estimate takes the interval's marked share, CNPs over data packets sent (1 with CNPs and no packet). */
static void estimate(struct roce *r, struct roce_cc *cc)
{
	uint64_t g = r->cc_weight_ppm;
	uint64_t f = cc->pkt_ivl ? (uint64_t)cc->cnp_ivl * PPM / cc->pkt_ivl : (cc->cnp_ivl ? PPM : 0);

	if (f > PPM)
		f = PPM;
	cc->alpha_ppm = (uint32_t)((cc->alpha_ppm * (PPM - g) + f * g) / PPM);
}

static void clamp(struct roce *r, struct roce_cc *cc)
{
	if (cc->rate < r->floor_bps)
		cc->rate = r->floor_bps;
	if (cc->target < r->floor_bps)
		cc->target = r->floor_bps;
}

static void reduce(struct roce *r, struct roce_cc *cc, bool first)
{
	if (first || cc->recovery < r->p->fast_recovery_attempt) {
		cc->rate = mul_ppm(cc->rate, PPM - cc->alpha_ppm / 2); /* at most half */
		cc->recovery = 0;
	} else {
		cc->target = cc->target > cc->step ? cc->target - cc->step : 0;
		cc->rate = (cc->rate + cc->target) / 2;
		cc->recovery--;
	}
	clamp(r, cc);
	r->c[ROCE_C_RATE_CUTS]++;
}

/* An increase; true when it ends the episode. */
static bool increase(struct roce *r, struct roce_cc *cc)
{
	if (cc->recovery >= r->p->fast_recovery_attempt) {
		cc->target += cc->step;
		if (cc->target > r->line_bps)
			cc->target = r->line_bps;
	}
	cc->rate = (cc->rate + cc->target) / 2;
	cc->recovery++;
	clamp(r, cc);
	return r->line_bps - cc->rate < ROCE_RATE_EPS_BPS || cc->rate >= r->line_bps;
}

static void report(struct roce *r, struct roce_qp *qp, emu_ps_t now)
{
	if (r->env.hooks.rate != NULL)
		r->env.hooks.rate(r->env.hooks.arg, r->env.fep_id, qp->qpn, roce_cc_rate(r, qp), now);
}

static void ev_loop(void *a, void *b, emu_ps_t now);

static void loop_run(struct roce *r, struct roce_qp *qp, bool first, emu_ps_t now)
{
	struct roce_cc *cc = &qp->cc;
	bool changed = false, done = false;

	if (cc->reduce_next) {
		if (cc->cnp_ivl > 0) {
			reduce(r, cc, first);
			changed = true;
		}
		estimate(r, cc);
		cc->cnp_ivl = cc->pkt_ivl = 0; /* each interval counts afresh */
	} else {
		bool up = cc->cnp_ivl == 0 || ++cc->cnp_halves % (r->p->loops_per_increase + 1) == 0;

		estimate(r, cc);
		if (up) {
			done = increase(r, cc);
			changed = true;
		}
	}
	cc->reduce_next = !cc->reduce_next;
	if (done) { /* within 0.1 Gb/s of line rate: the episode ends, the loop stops */
		cc->congested = false;
		cc->rate = cc->target = r->line_bps;
		cc->cnp_ivl = cc->pkt_ivl = cc->cnp_halves = 0;
	} else {
		net_sched(r->env.np, now + (emu_ps_t)r->p->control_interval_ns * EMU_PS_PER_NS / 2, ev_loop, r, qp,
			  &cc->timer);
	}
	if (changed)
		report(r, qp, now);
}

static void ev_loop(void *a, void *b, emu_ps_t now)
{
	loop_run(a, b, false, now);
}

void roce_cc_cnp(struct roce *r, struct roce_qp *qp, emu_ps_t now)
{
	struct roce_cc *cc = &qp->cc;
	uint64_t keep = r->cc_keep_ppm;

	cc->cnp_ivl++;
	if (cc->congested)
		return;
	/* an episode begins: the target is the rate it had, the additive step is fixed, the loop runs at once */
	cc->congested = true;
	cc->target = cc->rate;
	cc->step = mul_ppm(cc->target, keep) / r->p->active_increase_steps;
	cc->recovery = 0;
	cc->cnp_halves = 0;
	cc->reduce_next = true;
	r->c[ROCE_C_RATE_EPISODES]++;
	loop_run(r, qp, true, now);
}
