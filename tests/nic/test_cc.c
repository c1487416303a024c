/* NSCC (emul/nic/nic_cc.c): the worked examples of spec/scala/uet-nic-congestion-control.md, the routine table,
 * and scripted ACK / trim / timeout sequences whose expected windows are computed by hand in the comments.
 *
 * Unless a test says otherwise: every attribute at its default, a 400 Gb/s link, a 3,600,000 B data pool; so
 * MTU (nominal packet) 4,184 B, target 6 us, margin 1 us, gains: proportional 4 x 4,184 x n x (target - delay) /
 * 6 us bytes^2, fair 5 x 4,184 = 20,920 x n bytes^2, fast n / 4 bytes, eta 0.15 x 4,184 = 627 B; increases are
 * applied as inc_bytes / cwnd (rounded down) once more than 8 x 4,184 = 33,472 B have been acknowledged or a base
 * RTT has passed since the last eta (eta then added). Divisions round down. */
#include <criterion/criterion.h>
#include <string.h>

#include "nic_cc.h"
#include "nic_params.h"

#define US ((emu_ps_t)1000000) /* ps per us */
#define NS (1000ULL)
#define GBPS (1000000000ULL)
#define POOL 3600000ULL /* 0.9 x 4,000,000 B: the default receive pool for data */

static struct nic_params P;
static struct nic_cc_consts K;
static struct nic_cc CC;

static void defaults(void)
{
	nic_params_defaults(&P);
}

static void mk(void)
{
	nic_cc_consts_init(&K, &P, 400 * GBPS, POOL);
	nic_cc_init(&CC, &K, 0);
}

/* An ACK with an RTT sample, no penalty, in flight 400,000 B. */
static void ack(emu_ps_t now, uint64_t acked, emu_ps_t rtt, bool ecn)
{
	struct nic_cc_ack a = { .acked = acked, .in_flight = 400000, .rtt = rtt, .has_rtt = true, .ecn = ecn };
	nic_cc_on_ack(&CC, &K, &a, now);
}

static void ack_full(emu_ps_t now, uint64_t acked, uint64_t in_flight, emu_ps_t rtt, bool has_rtt, bool ecn,
		     uint8_t pen, bool rc)
{
	struct nic_cc_ack a = { .acked = acked, .in_flight = in_flight, .rtt = rtt, .has_rtt = has_rtt, .ecn = ecn,
				.penalty = pen, .restore = rc };
	nic_cc_on_ack(&CC, &K, &a, now);
}

#define CWND(v) cr_assert_eq(nic_cc_cwnd(&CC), (uint64_t)(v), "cwnd %llu, expected %llu", \
			     (unsigned long long)nic_cc_cwnd(&CC), (unsigned long long)(v))

/* ---- Worked example: the defaults (page section "Worked example: the defaults") ---- */

Test(nic_cc, worked_example_window_sizes, .init = defaults)
{
	mk();
	cr_assert_eq(K.mtu, 4184);                  /* 4,096 + 44 + 16 + 8 + 20 */
	cr_assert_eq(K.bdp, 300000);                /* 400 Gbps x 6 us / 8 */
	cr_assert_eq(K.max_wnd, 450000);            /* 1.5 x BDP */
	cr_assert_eq(K.max_wnd / K.mtu, 107);       /* 107.55 nominal packets: the default MaxCongestionWindow */
	cr_assert_eq(nic_cc_cwnd(&CC), 450000);     /* the starting window is the max window */
	cr_assert_eq(nic_cc_max_wnd(&CC), 450000);
	cr_assert_eq(nic_cc_base_rtt(&CC), 6 * US);
	cr_assert_eq(nic_cc_avg_qdelay(&CC), 0);
	cr_assert_eq(nic_cc_quick_adapts(&CC), 0);
}

Test(nic_cc, worked_example_override_max_cwnd, .init = defaults)
{
	P.override_max_cwnd = true;
	mk();
	cr_assert_eq(K.max_wnd, 447688);            /* 107 x 4,184 */
	CWND(447688);
}

Test(nic_cc, worked_example_targets_and_quick_adapt, .init = defaults)
{
	mk();
	cr_assert_eq(K.target, 6 * US);             /* InitialBaseRTT */
	cr_assert_eq(K.qa_threshold, 24 * US);      /* QuickAdaptThreshold */
	cr_assert(K.qa_delay_trigger);
	cr_assert_eq(K.max_wnd >> K.qa_gate, 56250); /* 450,000 / 2^3 */
	ack(7 * US, 4184, 6 * US, false);           /* the first ACK opens the first observation window */
	cr_assert_eq(CC.qa_end - 7 * US, 12 * US);  /* 6 us base RTT + 6 us target */

	P.trimming_enabled = true;
	mk();
	cr_assert_eq(K.target, 4500 * NS);          /* 0.75 x 6 us */
	cr_assert_not(K.qa_delay_trigger);          /* only trims trigger Quick Adapt */
	ack(7 * US, 4184, 6 * US, false);
	cr_assert_eq(CC.qa_end - 7 * US, 10500 * NS); /* 6 us + 4.5 us */
}

Test(nic_cc, target_override, .init = defaults)
{
	P.override_target_qdelay = true;            /* TargetQueueDelay, default 4,500 ns, with trimming off */
	mk();
	cr_assert_eq(K.target, 4500 * NS);
	P.target_qdelay = 3 * US;
	P.trimming_enabled = true;                  /* the override wins over trimming */
	mk();
	cr_assert_eq(K.target, 3 * US);
}

Test(nic_cc, worked_example_penalty_band, .init = defaults)
{
	mk();
	cr_assert_eq(K.pen_low, 900000);            /* 25% of 3,600,000 B */
	cr_assert_eq(K.pen_high, 2700000);          /* 75% */
	cr_assert_eq(nic_cc_penalty(&K, 0), 0);
	cr_assert_eq(nic_cc_penalty(&K, 899999), 0);
	cr_assert_eq(nic_cc_penalty(&K, 900000), 0); /* 127 x 0 / 1,800,000 */
	cr_assert_eq(nic_cc_penalty(&K, 914174), 1); /* 127 x 14,174 / 1,800,000 = 1.00006 */
	cr_assert_eq(nic_cc_penalty(&K, 1800000), 63); /* 127 x 900,000 / 1,800,000 = 63.5 */
	cr_assert_eq(nic_cc_penalty(&K, 2699999), 126);
	cr_assert_eq(nic_cc_penalty(&K, 2700000), 127);
	cr_assert_eq(nic_cc_penalty(&K, 9000000), 127);
	cr_assert_not(nic_cc_rc_bit(&K));           /* RestoreCWindEnable false */
	P.restore_cwnd_enable = true;
	P.recv_cong_low_pct = 50.0;
	P.recv_cong_high_pct = 50.0;                /* an empty band: 0 below, 127 at or above */
	mk();
	cr_assert(nic_cc_rc_bit(&K));
	cr_assert_eq(nic_cc_penalty(&K, 1799999), 0);
	cr_assert_eq(nic_cc_penalty(&K, 1800000), 127);
}

Test(nic_cc, derived_gains_and_reference_scaling, .init = defaults)
{
	mk();
	/* alpha = 4 x 4,184 / 6 us bytes per ps; fi = 20,920; fi_scale = 1/4; eta = floor(627.6) = 627 */
	cr_assert_eq((unsigned __int128)K.prop.num * 6000000, (unsigned __int128)K.prop.den * 16736);
	cr_assert_eq(K.fair.num, 20920);
	cr_assert_eq(K.fair.den, 1);
	cr_assert_eq(K.fast.num * 4, K.fast.den);
	cr_assert_eq(K.eta, 627);
	cr_assert_eq(K.adjust_bytes, 33472);

	/* ReferenceNetworkRTT 12 us: reference BDP 600,000 B, scaling_a = 1/2, scaling_b = 6/12 */
	P.reference_network_rtt = 12 * US;
	mk();
	cr_assert_eq(K.ref_bdp, 600000);
	cr_assert_eq((unsigned __int128)K.prop.num * 24000000, (unsigned __int128)K.prop.den * 16736);
	cr_assert_eq(K.fair.num * 1, K.fair.den * 10460);
	cr_assert_eq(K.fast.num * 8, K.fast.den);
	cr_assert_eq(K.eta, 313);                   /* 0.15 x 4,184 / 2 = 313.8 */
	cr_assert_eq(K.max_wnd, 450000);            /* the reference does not change the max window or the target */
	cr_assert_eq(K.target, 6 * US);

	/* a 100.7 Gb/s link counts as 100 Gb/s: BDP 75,000 B, max window 112,500 B, scaling_a = 1/4 */
	defaults();
	nic_cc_consts_init(&K, &P, 100700000000ULL, POOL);
	cr_assert_eq(K.link_bps, 100 * GBPS);
	cr_assert_eq(K.bdp, 75000);
	cr_assert_eq(K.max_wnd, 112500);
	cr_assert_eq(K.fair.num, 5230);             /* 20,920 / 4 */
	cr_assert_eq(K.eta, 156);                   /* 627.6 / 4 = 156.9 */
}

/* ---- Base RTT ---- */

Test(nic_cc, base_rtt_lowered_only_by_more_than_1us, .init = defaults)
{
	mk();
	nic_cc_on_probe_rtt(&CC, &K, 5500 * NS, 1 * US); /* 0.5 us below: no change */
	cr_assert_eq(nic_cc_base_rtt(&CC), 6 * US);
	nic_cc_on_probe_rtt(&CC, &K, 5 * US, 1 * US);  /* exactly 1 us below: not more than 1 us, no change */
	cr_assert_eq(nic_cc_base_rtt(&CC), 6 * US);
	nic_cc_on_probe_rtt(&CC, &K, 9 * US, 1 * US);  /* never rises */
	cr_assert_eq(nic_cc_base_rtt(&CC), 6 * US);
	CWND(450000);
	nic_cc_on_probe_rtt(&CC, &K, 4999999, 1 * US); /* base = 4,999,999 + 1 us = 5,999,999 ps */
	cr_assert_eq(nic_cc_base_rtt(&CC), 5999999);
	/* BDP = 400e9 x 5,999,999e-12 / 8 = 299,999.95 -> 299,999; max = 299,999 x 3 / 2 = 449,998 */
	cr_assert_eq(nic_cc_max_wnd(&CC), 449998);
	CWND(449998);
	nic_cc_on_probe_rtt(&CC, &K, 3 * US, 2 * US);  /* base 4 us: max = 1.5 x 200,000 = 300,000 */
	cr_assert_eq(nic_cc_base_rtt(&CC), 4 * US);
	cr_assert_eq(nic_cc_max_wnd(&CC), 300000);
	CWND(300000);
	/* the target keeps its InitialBaseRTT value; the observation window is 4 + 6 = 10 us */
	cr_assert_eq(K.target, 6 * US);
	ack(10 * US, 4184, 3500 * NS, false);
	cr_assert_eq(CC.qa_end - 10 * US, 10 * US);
	/* the delay sample is measured from the lowering RTT, 3 us: 0.5 us; average 0.25 x 0.5 us */
	cr_assert_eq(nic_cc_avg_qdelay(&CC), 125000);
}

Test(nic_cc, base_rtt_from_ack_and_trim_samples, .init = defaults)
{
	mk();
	nic_cc_on_timeout(&CC, &K, 200000, 1 * US);   /* 450,000 - 200,000 = 250,000 */
	CWND(250000);
	ack(2 * US, 4184, 3 * US, false);              /* base 4 us, max 300,000; a smaller window stays */
	cr_assert_eq(nic_cc_base_rtt(&CC), 4 * US);
	cr_assert_eq(nic_cc_max_wnd(&CC), 300000);
	CWND(250000);
	nic_cc_on_trim(&CC, &K, 4184, 2 * US, 100000, 3 * US); /* the NACK's sample: base 3 us, max 225,000 */
	cr_assert_eq(nic_cc_base_rtt(&CC), 3 * US);
	cr_assert_eq(nic_cc_max_wnd(&CC), 225000);
	CWND(225000 - 4184);                           /* capped, then the trim's reduction: 220,816 */
}

Test(nic_cc, base_rtt_lowering_ends_the_override, .init = defaults)
{
	P.override_max_cwnd = true;
	P.max_cwnd_pkts = 50;                          /* 209,200 B, below the derived 450,000 */
	mk();
	CWND(209200);
	nic_cc_on_probe_rtt(&CC, &K, 4 * US, 1 * US);  /* base 5 us: max = 1.5 x 250,000 = 375,000 */
	cr_assert_eq(nic_cc_max_wnd(&CC), 375000);
	CWND(209200);
	nic_cc_on_timeout(&CC, &K, 1, 2 * US);         /* window may now grow to 375,000: check the bound moved */
	ack(3 * US, 40000, 10 * US, false);            /* delay 10 - 4 = 6 us: fair, 20,920 x 40,000 / 209,199 */
	CWND(209199 + 4000);                           /* 836,800,000 / 209,199 = 4,000.0 -> 4,000 */
}

/* ---- The routine table (page: How the window responds to each ACK), one cell per test case ----
 * Each case: window lowered to 350,000 by a timeout, then one ACK at 1 us of 40,000 B (> 33,472: the batched
 * increase is applied at once; 1 us < 6 us: no eta), 400,000 B in flight. Delay 6 us (RTT 12 us) is "at or above
 * the target"; delay 2 us (RTT 8 us) "below"; delay 30 us (RTT 36 us, average 7.5 us) drives MD. */

static void cell(bool ecn, emu_ps_t rtt, uint8_t pen, uint64_t expect)
{
	defaults();
	mk();
	nic_cc_on_timeout(&CC, &K, 100000, 0);
	cr_assert_eq(nic_cc_cwnd(&CC), 350000);
	ack_full(1 * US, 40000, 400000, rtt, true, ecn, pen, false);
	cr_assert_eq(nic_cc_cwnd(&CC), expect, "ecn %d rtt %llu pen %u: cwnd %llu, expected %llu", ecn,
		     (unsigned long long)rtt, pen, (unsigned long long)nic_cc_cwnd(&CC), (unsigned long long)expect);
}

Test(nic_cc, routine_table_every_cell)
{
	/* no ECN, at or above target, not limited: fair, 20,920 x 40,000 / 350,000 = 2,390.86 -> 352,390 */
	cell(false, 12 * US, 0, 352390);
	/* no ECN, below target: proportional, 16,736 x 40,000 x 4 us / 6 us = 446,293,333 / 350,000 -> 1,275 */
	cell(false, 8 * US, 0, 351275);
	/* ECN, at or above target (average 7.5 us > 6 us): MD, keep 1 - 0.8 x 1.5 / 7.5 = 0.84 -> 294,000 */
	cell(true, 36 * US, 0, 294000);
	/* ECN, below target: none */
	cell(true, 8 * US, 0, 350000);
	/* receiver-limited (penalty 1: 350,000 - (1 x 40,000 >> 7 = 312) = 349,688), no ECN, either delay: none */
	cell(false, 12 * US, 1, 349688);
	cell(false, 8 * US, 1, 349688);
	/* receiver-limited, ECN, at or above target: MD after the penalty, 349,688 x 0.84 = 293,737.9 */
	cell(true, 36 * US, 1, 293737);
	/* receiver-limited, ECN, below target: none */
	cell(true, 8 * US, 1, 349688);
}

/* ---- Multiplicative decrease ---- */

Test(nic_cc, md_at_most_once_per_base_rtt, .init = defaults)
{
	P.delay_alpha = 1.0; /* the average is the last sample */
	mk();
	/* 10 us: ECN, delay 12 us: keep 1 - 0.8 x 6 / 12 = 0.6 -> 270,000; a base RTT since creation: eta -> 270,627 */
	ack(10 * US, 4184, 18 * US, true);
	CWND(270627);
	ack(14 * US, 4184, 18 * US, true);            /* 4 us after the decrease: none */
	CWND(270627);
	ack(16 * US, 4184, 18 * US, true);            /* exactly one base RTT after: none; eta (6 us since) -> 271,254 */
	CWND(271254);
	/* 16 us + 1 ps: more than a base RTT; delay 36 us: 1 - 0.8 x 30 / 36 = 0.333 < MaxMDJump 0.5 -> 135,627 */
	ack(16 * US + 1, 4184, 42 * US, true);
	CWND(135627);
	ack(17 * US, 4184, 18 * US, true);            /* none */
	CWND(135627);
	/* 22 us + 2 ps: past the observation window (22 us) but average 12 us < 24 us: no Quick Adapt; MD 0.6
	 * -> 81,376.2 -> 81,376; eta (6.000002 us since 16 us) -> 82,003 */
	ack(22 * US + 2, 4184, 18 * US, true);
	CWND(82003);
	cr_assert_eq(nic_cc_quick_adapts(&CC), 0);
}

Test(nic_cc, md_needs_average_above_target, .init = defaults)
{
	mk();
	/* ECN, delay 8 us >= target, but the average is 0.25 x 8 = 2 us: no cut */
	ack(1 * US, 4184, 14 * US, true);
	CWND(450000);
	cr_assert_eq(nic_cc_avg_qdelay(&CC), 2 * US);
}

Test(nic_cc, md_gamma_and_jump_attributes, .init = defaults)
{
	P.delay_alpha = 1.0;
	P.gamma = 0.5;                                 /* keep 1 - 0.5 x 6 / 12 = 0.75 */
	mk();
	ack(1 * US, 4184, 18 * US, true);
	CWND(337500);
	P.gamma = 1.0;
	P.max_md_jump = 0.9;                           /* 1 - 1 x 6 / 12 = 0.5, kept at 0.9 */
	mk();
	ack(1 * US, 4184, 18 * US, true);
	CWND(405000);
}

/* ---- Proportional, fast, fair increase; eta ---- */

/* Window 50,000; ACKs of 20,000 B at 1.0, 1.1 ... us (no eta before 6 us). */
static void fast_engage(void)
{
	defaults();
	mk();
	nic_cc_on_timeout(&CC, &K, 400000, 0);
	CWND(50000);
	/* delay 0 (below the 1 us margin): fi_count 20,000 <= 50,000: proportional, 16,736 x 20,000 x 6 us / 6 us
	 * = 334,720,000 batched (20,000 <= 33,472 acknowledged) */
	ack(1000 * NS, 20000, 6 * US, false);
	CWND(50000);
	/* fi_count 40,000 <= 50,000: proportional again, batch 669,440,000; 40,000 > 33,472: applied,
	 * 669,440,000 / 50,000 = 13,388.8 -> 63,388 */
	ack(1100 * NS, 20000, 6 * US, false);
	CWND(63388);
	/* fi_count 60,000 <= 63,388: proportional, 334,720,000 batched */
	ack(1200 * NS, 20000, 6 * US, false);
	CWND(63388);
	/* delay 0.5 us < margin: fi_count 80,000 > 63,388: fast increase, + 20,000 / 4 = 68,388; then the batch
	 * (40,000 acknowledged): 334,720,000 / 68,388 = 4,894.4 -> 73,282 */
	ack(1300 * NS, 20000, 6500 * NS, false);
	CWND(73282);
}

Test(nic_cc, fast_increase_engages_and_continues)
{
	fast_engage();
	/* engaged: + 4,000 / 4 = 1,000 (batch empty: 4,000 acknowledged) */
	ack(1400 * NS, 4000, 6 * US, false);
	CWND(74282);
	/* an unmarked ACK at or above the target takes fair increase and does not end fast increase */
	ack(1500 * NS, 4000, 12 * US, false);
	CWND(74282);
	ack(1600 * NS, 4000, 6 * US, false);
	CWND(75282);
}

Test(nic_cc, fast_increase_ends_between_margin_and_target)
{
	fast_engage();
	/* delay 2 us: between margin and target: fast increase ends; proportional 16,736 x 4,000 x 4/6 batched */
	ack(1400 * NS, 4000, 8 * US, false);
	CWND(73282);
	/* delay 0: fi_count restarts at 4,000 <= 73,282: proportional, no +1,000 */
	ack(1500 * NS, 4000, 6 * US, false);
	CWND(73282);
}

Test(nic_cc, fast_increase_ends_on_marked_ack_at_target)
{
	fast_engage();
	/* ECN, delay 6 us: MD clears fast increase (average 1,593,750 ps < target: no cut) */
	ack(1400 * NS, 4000, 12 * US, true);
	CWND(73282);
	ack(1500 * NS, 4000, 6 * US, false);           /* proportional, not fast */
	CWND(73282);
}

Test(nic_cc, eta_once_per_base_rtt, .init = defaults)
{
	mk();
	nic_cc_on_timeout(&CC, &K, 100000, 0);         /* 350,000 */
	/* ECN-marked ACKs below the target run no routine: only eta moves the window, at 6, 12 and 18 us */
	for (int t = 1; t <= 20; t++) {
		ack((emu_ps_t)t * US, 1000, 6 * US, true);
		CWND(350000 + (uint64_t)(t / 6) * 627);
	}
}

Test(nic_cc, increases_bounded_by_max_window, .init = defaults)
{
	mk();
	for (int i = 1; i <= 50; i++)
		ack((emu_ps_t)i * US, 40000, 6 * US, false);
	CWND(450000);
}

/* ---- Quick Adapt ---- */

Test(nic_cc, quick_adapt_delay_trigger_ignore_and_trim_trigger, .init = defaults)
{
	mk();
	/* 1 us: delay 100 us, average 25 us > 24 us, but this ACK opens the first window (ends 13 us): no firing */
	ack(1 * US, 4184, 106 * US, false);
	CWND(450000);
	cr_assert_eq(CC.qa_end, 13 * US);
	ack(5 * US, 20000, 106 * US, false);          /* in the window: fair increase batched, window at max */
	CWND(450000);
	/* 13 us + 1 ps: acknowledged in the window 20,000 + 30,000 = 50,000 < 56,250 and average > 24 us: fires,
	 * window = 50,000; bytes to ignore = 300,000 in flight */
	ack_full(13 * US + 1, 30000, 300000, 106 * US, true, false, 0, false);
	CWND(50000);
	cr_assert_eq(nic_cc_quick_adapts(&CC), 1);
	cr_assert_eq(CC.qa_end, 25 * US + 1);
	/* an ECN-marked ACK while ignoring (4,184 < 300,000): stops, no MD */
	ack(14 * US, 4184, 106 * US, true);
	CWND(50000);
	/* unmarked: fair 20,920 x 4,184 = 87,529,280; 15 us since the last eta: applied, / 50,000 = 1,750.6
	 * -> 51,750, + eta 627 -> 52,377 */
	ack(15 * US, 4184, 106 * US, false);
	CWND(52377);
	/* a trim NACK while ignoring (12,552 < 300,000): no reduction; the trigger is set */
	nic_cc_on_trim(&CC, &K, 4184, EMU_PS_NEVER, 280000, 16 * US);
	CWND(52377);
	/* 300,000 more bytes acknowledged: no longer ignoring; ECN, average > 16 us: MD at the 0.5 jump
	 * -> 26,188 (batch empty, 2 us since the last eta) */
	ack(17 * US, 300000, 106 * US, true);
	CWND(26188);
	/* 26 us, past the window: trigger present but 312,552 B acknowledged >= 56,250: no firing. Fair
	 * 87,529,280 / 26,188 = 3,342.3 -> 29,530; eta (11 us since) -> 30,157 */
	ack(26 * US, 4184, 106 * US, false);
	CWND(30157);
	cr_assert_eq(nic_cc_quick_adapts(&CC), 1);
	/* 38 us + 1 ps, past the window that opened at 26 us: 4,184 < 56,250 with the trim's trigger still set:
	 * fires, window = max(4,184, one packet) */
	ack(38 * US + 1, 4184, 6 * US, false);
	CWND(4184);
	cr_assert_eq(nic_cc_quick_adapts(&CC), 2);
}

static void qa_gate_case(uint64_t acked, uint64_t expect, uint32_t n_qa)
{
	mk();
	ack(1 * US, 1000, 106 * US, false);            /* opens; average 25 us */
	ack(13 * US + 1, acked, 106 * US, false);      /* average 43.75 us > 24 us */
	cr_assert_eq(nic_cc_quick_adapts(&CC), n_qa, "acked %llu", (unsigned long long)acked);
	CWND(expect);
}

Test(nic_cc, quick_adapt_gate, .init = defaults)
{
	qa_gate_case(56249, 56249, 1);                 /* below 450,000 >> 3: fires */
	qa_gate_case(56250, 450000, 0);                /* not below: no firing; increases stay at the max */
	P.quick_adapt_gate = 0;                        /* threshold 450,000 */
	qa_gate_case(449999, 449999, 1);
	P.quick_adapt_gate = 4;                        /* threshold 28,125 */
	qa_gate_case(28125, 450000, 0);
	qa_gate_case(28124, 28124, 1);
}

Test(nic_cc, quick_adapt_threshold, .init = defaults)
{
	P.quick_adapt_threshold = 50 * US;             /* average 43.75 us is not above it */
	qa_gate_case(1000, 450000, 0);
	P.quick_adapt_threshold = 43 * US;
	qa_gate_case(1000, 4184, 1);                   /* 1,000 B -> at least one nominal packet */
}

Test(nic_cc, quick_adapt_not_before_the_first_window_ends, .init = defaults)
{
	mk();
	/* a trim NACK is the first signal: it opens the window (no firing), the window shrinks by the packet */
	nic_cc_on_trim(&CC, &K, 4184, EMU_PS_NEVER, 100000, 1 * US);
	CWND(445816);
	cr_assert_eq(nic_cc_avg_qdelay(&CC), 1500 * NS); /* InitialBaseRTT folded in: 0.25 x 6 us */
	/* a trim in the window: trigger set, shrink */
	nic_cc_on_trim(&CC, &K, 4184, EMU_PS_NEVER, 100000, 2 * US);
	CWND(441632);
	/* 13 us + 1 ps, delay 0: the trims' trigger, 10,000 < 56,250 acknowledged: fires */
	ack(13 * US + 1, 10000, 6 * US, false);
	CWND(10000);
	cr_assert_eq(nic_cc_quick_adapts(&CC), 1);
}

/* Quick Adapt: "A destination's first observation window opens with its first ACK or trim NACK", whether or not
 * that ACK gives an RTT sample (the check itself runs only on ACKs with a sample, step 1 of the per-ACK order). */
Test(nic_cc, quick_adapt_first_window_opens_on_an_ack_without_rtt_sample, .init = defaults)
{
	mk();
	/* 1 us: the first ACK gives no RTT sample (e.g. it answers a retransmission): it opens the first window,
	 * 1 + 6 + 6 = 13 us, and nothing else changes */
	ack_full(1 * US, 4184, 100000, 0, false, false, 0, false);
	cr_assert_eq(CC.qa_end, 13 * US);
	CWND(450000);
	/* 14 us, after that window: a trim NACK is a trigger, 0 B acknowledged in the window (the opening ACK's
	 * bytes do not count, as with an opening ACK that has a sample) < 56,250: fires, window = one packet */
	nic_cc_on_trim(&CC, &K, 4184, EMU_PS_NEVER, 100000, 14 * US);
	cr_assert_eq(nic_cc_quick_adapts(&CC), 1);
	CWND(4184);
}

Test(nic_cc, quick_adapt_trimming_only_trims_trigger, .init = defaults)
{
	P.trimming_enabled = true;
	mk();
	ack(1 * US, 1000, 106 * US, false);            /* opens; window ends 1 + 6 + 4.5 = 11.5 us */
	cr_assert_eq(CC.qa_end, 11500 * NS);
	/* 12 us: average 43.75 us but no delay trigger with trimming: no firing; new window to 22.5 us */
	ack(12 * US, 1000, 106 * US, false);
	cr_assert_eq(nic_cc_quick_adapts(&CC), 0);
	CWND(450000);
	/* 24 us: a trim NACK after the window: fires with 0 B acknowledged -> one packet */
	nic_cc_on_trim(&CC, &K, 4184, EMU_PS_NEVER, 100000, 24 * US);
	CWND(4184);
	cr_assert_eq(nic_cc_quick_adapts(&CC), 1);
}

Test(nic_cc, quick_adapt_disabled, .init = defaults)
{
	P.disable_quick_adapt = true;
	qa_gate_case(1000, 450000, 0);
	/* marked ACKs are not ignored: ECN at delay 100 us, average 0.25 x 100 + 0.75 x 43.75 = 57.8 us: MD 0.5 */
	ack(14 * US, 1000, 106 * US, true);
	CWND(225000);
}

/* ---- Loss reactions ---- */

Test(nic_cc, timeout_and_trim_shrink_by_the_packet, .init = defaults)
{
	mk();
	nic_cc_on_timeout(&CC, &K, 4184, 1 * US);
	CWND(445816);
	nic_cc_on_timeout(&CC, &K, 1000000, 2 * US);   /* never below one nominal packet */
	CWND(4184);
	nic_cc_on_trim(&CC, &K, 4184, EMU_PS_NEVER, 0, 3 * US);
	CWND(4184);
	cr_assert_eq(nic_cc_quick_adapts(&CC), 0);
}

/* ---- Receiver penalty at the sender ---- */

Test(nic_cc, receiver_penalty_cap_reduce_save_restore, .init = defaults)
{
	mk();
	/* penalty 64, 300,000 in flight: saved 450,000; min(450,000, 300,000) - (64 x 4,184 >> 7 = 2,092) */
	ack_full(1000 * NS, 4184, 300000, 6 * US, true, false, 64, false);
	CWND(297908);
	/* penalty 127 on an ACK without an RTT sample (step 1 runs for every ACK): - (127 x 4,184 >> 7 = 4,151) */
	ack_full(1100 * NS, 4184, 400000, 0, false, false, 127, false);
	CWND(293757);
	/* penalty 0 without the RC flag: no restore; proportional increase batched (12,552 acknowledged) */
	ack_full(1200 * NS, 4184, 400000, 6 * US, true, false, 0, false);
	CWND(293757);
	/* penalty 0 with RC: the window saved when the penalty began, 450,000 */
	ack_full(1300 * NS, 4184, 400000, 6 * US, true, false, 0, true);
	CWND(450000);
	/* a new penalty saves again; 10 x 4,184 >> 7 = 326 from min(450,000, 100,000) */
	ack_full(1400 * NS, 4184, 100000, 6 * US, true, false, 10, false);
	CWND(99674);
	/* nothing in flight: min(99,674, 0) - ... -> one nominal packet */
	ack_full(1500 * NS, 4184, 0, 6 * US, true, false, 10, false);
	CWND(4184);
	ack_full(1600 * NS, 4184, 0, 6 * US, true, false, 0, true);
	CWND(450000);
}

/* ---- NSCCEnable false, PassThrough ---- */

Test(nic_cc, nscc_disabled_window_stays_at_max, .init = defaults)
{
	P.nscc_enable = false;
	mk();
	ack(1 * US, 4184, 106 * US, true);
	ack_full(2 * US, 4184, 1000, 6 * US, true, false, 127, false);
	nic_cc_on_trim(&CC, &K, 4184, EMU_PS_NEVER, 0, 3 * US);
	nic_cc_on_timeout(&CC, &K, 100000, 4 * US);
	for (int i = 0; i < 5; i++)
		ack((emu_ps_t)(20 + 13 * i) * US, 100, 106 * US, false);
	CWND(450000);
	cr_assert_eq(nic_cc_avg_qdelay(&CC), 0);
	cr_assert_eq(nic_cc_quick_adapts(&CC), 0);
	/* a lower measured base RTT still lowers the max window and the window with it */
	ack(100 * US, 4184, 3 * US, false);
	cr_assert_eq(nic_cc_base_rtt(&CC), 4 * US);
	CWND(300000);
	nic_cc_on_probe_rtt(&CC, &K, 2 * US, 101 * US);
	CWND(225000);
}

Test(nic_cc, pass_through_still_computes, .init = defaults)
{
	P.cc_pass_through = true;                      /* the NIC stops gating; the window moves as usual */
	mk();
	nic_cc_on_timeout(&CC, &K, 100000, 0);
	CWND(350000);
}

/* ---- One scripted sequence mixing every signal ---- */

Test(nic_cc, scripted_sequence, .init = defaults)
{
	mk();
	nic_cc_on_timeout(&CC, &K, 50000, 2 * US);     /* 450,000 - 50,000 */
	CWND(400000);
	/* 3 us, delay 1 us (>= margin): proportional 16,736 x 20,000 x 5/6 = 278,933,333 batched; average 250,000;
	 * opens the observation window to 15 us */
	ack(3 * US, 20000, 7 * US, false);
	CWND(400000);
	/* 4 us, delay 8 us: fair + 418,400,000 = 697,333,333; 40,000 acknowledged > 33,472: / 400,000 = 1,743;
	 * average 2,000,000 + 187,500 = 2,187,500 */
	ack(4 * US, 20000, 14 * US, false);
	CWND(401743);
	cr_assert_eq(nic_cc_avg_qdelay(&CC), 2187500);
	/* 5 us, trim NACK in the window: average 1,500,000 + 1,640,625 = 3,140,625; trigger set; - 4,184 */
	nic_cc_on_trim(&CC, &K, 4184, EMU_PS_NEVER, 350000, 5 * US);
	CWND(397559);
	cr_assert_eq(nic_cc_avg_qdelay(&CC), 3140625);
	/* 7 us, ECN, delay 40 us: average 10,000,000 + 2,355,468.75 = 12,355,468; MD cut
	 * 800,000 x 6,355,468 / 12,355,468 = 411,508 ppm, keep 588,492: 397,559 x 0.588492 = 233,960.4 -> 233,960;
	 * 7 us since creation: eta -> 234,587 */
	ack(7 * US, 4184, 46 * US, true);
	cr_assert_eq(nic_cc_avg_qdelay(&CC), 12355468);
	CWND(234587);
	/* 8 us, penalty 32, 200,000 in flight: saved 234,587; min(234,587, 200,000) - (32 x 8,368 >> 7 = 2,092) */
	ack_full(8 * US, 8368, 200000, 6 * US, true, false, 32, false);
	CWND(197908);
	/* 9 us, penalty 0 with RC: restored to 234,587; proportional batched */
	ack_full(9 * US, 4184, 200000, 6 * US, true, false, 0, true);
	CWND(234587);
	/* 15.5 us: past the window; trigger from the trim; acknowledged 20,000 + 4,184 + 8,368 + 4,184 + 8,000
	 * = 44,736 < 56,250: Quick Adapt, window 44,736; 100,000 B to ignore */
	ack_full(15500 * NS, 8000, 100000, 6 * US, true, false, 0, false);
	CWND(44736);
	cr_assert_eq(nic_cc_quick_adapts(&CC), 1);
	ack(16 * US, 4184, 46 * US, true);            /* ECN ignored */
	CWND(44736);
	nic_cc_on_trim(&CC, &K, 4184, EMU_PS_NEVER, 90000, 17 * US); /* trim ignored */
	CWND(44736);
	nic_cc_on_timeout(&CC, &K, 4184, 18 * US);     /* a timeout always reduces */
	CWND(40552);
}

/* ---- Determinism and invariants ---- */

static uint64_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 33;
}

static void random_run(struct nic_cc *cc, uint64_t seed)
{
	emu_ps_t now = 0;

	nic_cc_init(cc, &K, 0);
	for (int i = 0; i < 20000; i++) {
		uint64_t r = lcg(&seed);
		now += 1 + lcg(&seed) % (2 * US);
		if (r % 20 == 0) {
			nic_cc_on_trim(cc, &K, 4184, r % 3 ? EMU_PS_NEVER : 5 * US + lcg(&seed) % (4 * US),
				       lcg(&seed) % 450000, now);
		} else if (r % 20 == 1) {
			nic_cc_on_timeout(cc, &K, 4184, now);
		} else if (r % 20 == 2) {
			nic_cc_on_probe_rtt(cc, &K, 4 * US + lcg(&seed) % (3 * US), now);
		} else {
			struct nic_cc_ack a = { .acked = lcg(&seed) % 12000, .in_flight = lcg(&seed) % 450000,
						.rtt = 4 * US + lcg(&seed) % (60 * US), .has_rtt = r % 7 != 0,
						.ecn = r % 5 == 0, .penalty = r % 11 == 0 ? (uint8_t)(lcg(&seed) % 128) : 0,
						.restore = r % 3 == 0 };
			nic_cc_on_ack(cc, &K, &a, now);
		}
		cr_assert_geq(cc->cwnd, K.mtu);
		cr_assert_leq(cc->cwnd, cc->max_wnd);
		cr_assert_leq(cc->max_wnd, K.max_wnd);
	}
}

Test(nic_cc, deterministic_and_bounded, .init = defaults)
{
	struct nic_cc a, b;

	mk();
	memset(&a, 0xa5, sizeof(a));
	memset(&b, 0x5a, sizeof(b));
	random_run(&a, 42);
	random_run(&b, 42);
	cr_assert_eq(memcmp(&a, &b, sizeof(a)), 0);
	cr_assert_gt(nic_cc_quick_adapts(&a), 0);
}
