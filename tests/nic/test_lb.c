/* The PDC group's load balancer (nic_lb): the worked examples of spec/scala/uet-nic-multipath.md and the REPS rules
 * of its Recycled entropy packet spraying section. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "emu_rng.h"
#include "nic_lb.h"
#include "nic_params.h"

#define US ((emu_ps_t)EMU_PS_PER_US)

static struct nic_params defaults_with(uint8_t spraying)
{
	struct nic_params p;

	nic_params_defaults(&p);
	p.spraying = spraying;
	return p;
}

/* A REPS load balancer at the defaults with its own rng stream. */
struct reps {
	struct nic_params p;
	struct nic_lb lb;
	struct emu_rng rng;
};

static void reps_setup(struct reps *r)
{
	r->p = defaults_with(NIC_SPRAY_REPS);
	nic_lb_init(&r->lb, &r->p);
	emu_rng_init(&r->rng, EMU_RNG_DEFAULT_SEED, 7);
}

static uint16_t next(struct reps *r, emu_ps_t now)
{
	return nic_lb_next(&r->lb, &r->p, &r->rng, now);
}

/* Multipath page, Worked example: the defaults are Default Packet Spraying, EntropyMaskBits 7, StartingPortOffset
 * 256, a 400 Gbps link, InitialBaseRTT 6 us, RdmaDataMSS 4096, and REPS's 3 / 65,536 / 100 us / 3. */
Test(nic_lb, defaults_are_the_pages)
{
	struct nic_params p;

	nic_params_defaults(&p);
	cr_assert_eq(p.spraying, NIC_SPRAY_DEFAULT);
	cr_assert_eq(p.entropy_mask_bits, 7);
	cr_assert_eq(p.starting_port_offset, 256);
	cr_assert_eq(p.data_rate_bps, 400000000000ULL);
	cr_assert_eq(p.initial_base_rtt, 6 * US);
	cr_assert_eq(p.rdma_data_mss, 4096);
	cr_assert_eq(p.reps_buffer_mask_bits, 3);
	cr_assert_eq(p.entropy_value_set_size, 65536);
	cr_assert_eq(p.freezing_timeout, 100 * US);
	cr_assert_eq(p.failure_detection_rtt_mult, 3);
}

/* 1 MiB alone: 256 packets / 128 values = each of ports 256..383 used twice, in turn. */
Test(nic_lb, default_lone_1mib_uses_ports_256_to_383_twice)
{
	struct nic_params p = defaults_with(NIC_SPRAY_DEFAULT);
	struct nic_lb lb;
	struct emu_rng rng;
	static int uses[65536];

	nic_lb_init(&lb, &p);
	emu_rng_init(&rng, EMU_RNG_DEFAULT_SEED, 1);
	struct emu_rng untouched = rng;

	for (int k = 0; k < (1 << 20) / 4096; k++) {
		uint16_t ev = nic_lb_next(&lb, &p, &rng, 0);

		cr_assert_eq(ev, 256 + k % 128, "packet %d: port %u", k, ev);
		uses[ev]++;
	}
	for (int port = 0; port < 65536; port++)
		cr_assert_eq(uses[port], port >= 256 && port <= 383 ? 2 : 0, "port %d used %d times", port, uses[port]);
	cr_assert_eq(emu_rng_next(&rng), emu_rng_next(&untouched), "Default Packet Spraying draws nothing from the rng");
	cr_assert_eq(nic_lb_counter(&lb, NIC_LB_C_PICKS), 256);
	cr_assert_eq(nic_lb_last_pick(&lb), NIC_LB_PICK_ROUND_ROBIN);
}

/* A control packet (the base-RTT probe) reads the last value without stepping: a probe sent after the first ACK
 * leaves the lone 1 MiB message's 256 packets on ports 256..383 twice each. */
Test(nic_lb, last_ev_does_not_step)
{
	struct nic_params p = defaults_with(NIC_SPRAY_DEFAULT);
	struct nic_lb lb;
	struct emu_rng rng;

	nic_lb_init(&lb, &p);
	emu_rng_init(&rng, 1, 1);
	cr_assert_eq(nic_lb_last_ev(&lb), 256, "before any packet: StartingPortOffset");
	for (int k = 0; k < 256; k++) {
		cr_assert_eq(nic_lb_next(&lb, &p, &rng, 0), 256 + k % 128);
		if (k == 40) {
			cr_assert_eq(nic_lb_last_ev(&lb), 296);
			cr_assert_eq(nic_lb_last_ev(&lb), 296);
		}
	}
	cr_assert_eq(nic_lb_counter(&lb, NIC_LB_C_PICKS), 256);

	struct reps r;
	reps_setup(&r);
	cr_assert_eq(nic_lb_last_ev(&r.lb), 0);
	nic_lb_on_ack(&r.lb, &r.p, 9, false, 0);
	cr_assert_eq(next(&r, 0), 9);
	cr_assert_eq(nic_lb_last_ev(&r.lb), 9);
	cr_assert_eq(nic_lb_cached(&r.lb), 0);

	p.spraying = NIC_SPRAY_NONE;
	nic_lb_init(&lb, &p);
	nic_lb_set_fixed(&lb, 777);
	cr_assert_eq(nic_lb_last_ev(&lb), 777);
}

/* StartingPortOffset 65,535 and EntropyMaskBits 8: 65,535 and then 0 to 254. */
Test(nic_lb, default_range_wraps_past_65535)
{
	struct nic_params p = defaults_with(NIC_SPRAY_DEFAULT);
	struct nic_lb lb;
	struct emu_rng rng;

	p.starting_port_offset = 65535;
	p.entropy_mask_bits = 8;
	nic_lb_init(&lb, &p);
	emu_rng_init(&rng, 1, 1);
	cr_assert_eq(nic_lb_next(&lb, &p, &rng, 0), 65535);
	for (uint32_t v = 0; v <= 254; v++)
		cr_assert_eq(nic_lb_next(&lb, &p, &rng, 0), v);
	cr_assert_eq(nic_lb_next(&lb, &p, &rng, 0), 65535, "257th packet starts the round again");
}

/* EntropyMaskBits 0: one value, StartingPortOffset, for every packet. */
Test(nic_lb, default_mask_bits_0_is_one_port)
{
	struct nic_params p = defaults_with(NIC_SPRAY_DEFAULT);
	struct nic_lb lb;
	struct emu_rng rng;

	p.entropy_mask_bits = 0;
	p.starting_port_offset = 4000;
	nic_lb_init(&lb, &p);
	emu_rng_init(&rng, 1, 1);
	for (int k = 0; k < 300; k++)
		cr_assert_eq(nic_lb_next(&lb, &p, &rng, 0), 4000);
}

/* The round robin belongs to the group: messages in flight continue one sequence; a new group starts over;
 * feedback changes nothing. */
Test(nic_lb, default_sequence_is_per_group_and_ignores_feedback)
{
	struct nic_params p = defaults_with(NIC_SPRAY_DEFAULT);
	struct nic_lb g1, g2;
	struct emu_rng rng;

	nic_lb_init(&g1, &p);
	emu_rng_init(&rng, 1, 1);
	for (uint32_t k = 0; k < 200; k++) {
		nic_lb_on_ack(&g1, &p, 1234, false, k * US);
		nic_lb_on_nack(&g1, &p, 1234, true, k * US);
		nic_lb_on_failure(&g1, NIC_LB_C_TIMEOUTS, k * US);
		nic_lb_on_failure(&g1, NIC_LB_C_LATE, k * US);
		cr_assert_eq(nic_lb_next(&g1, &p, &rng, k * US), 256 + k % 128);
	}
	nic_lb_init(&g2, &p);
	cr_assert_eq(nic_lb_next(&g2, &p, &rng, 0), 256);
	cr_assert_eq(nic_lb_next(&g1, &p, &rng, 0), 256 + 200 % 128);
	cr_assert_not(nic_lb_frozen(&g1));
	cr_assert_eq(nic_lb_counter(&g1, NIC_LB_C_RECYCLED), 0);
}

/* None: one value for the group's whole life, retransmissions included; another group has its own. */
Test(nic_lb, none_one_value_per_group)
{
	struct nic_params p = defaults_with(NIC_SPRAY_NONE);
	struct nic_lb g1, g2;
	struct emu_rng rng;

	emu_rng_init(&rng, 1, 1);
	nic_lb_init(&g1, &p);
	nic_lb_init(&g2, &p);
	nic_lb_set_fixed(&g1, 49152);
	nic_lb_set_fixed(&g2, 49153);
	for (int k = 0; k < 500; k++) {
		nic_lb_on_ack(&g1, &p, 7, false, 0);
		nic_lb_on_failure(&g1, NIC_LB_C_TIMEOUTS, 0);
		cr_assert_eq(nic_lb_next(&g1, &p, &rng, 0), 49152);
		cr_assert_eq(nic_lb_next(&g2, &p, &rng, 0), 49153);
	}
	cr_assert_eq(nic_lb_last_pick(&g1), NIC_LB_PICK_FIXED);
	cr_assert_not(nic_lb_frozen(&g1));
}

/* None without nic_lb_set_fixed() keeps today's value, StartingPortOffset. */
Test(nic_lb, none_defaults_to_starting_port_offset)
{
	struct nic_params p = defaults_with(NIC_SPRAY_NONE);
	struct nic_lb lb;
	struct emu_rng rng;

	emu_rng_init(&rng, 1, 1);
	nic_lb_init(&lb, &p);
	cr_assert_eq(nic_lb_next(&lb, &p, &rng, 0), 256);
}

/* A new group's cache starts empty, so its first packets explore 0..EntropyValueSetSize-1. */
Test(nic_lb, reps_explores_until_first_value_cached)
{
	struct reps r;
	int distinct = 0;
	static uint8_t seen[65536];

	reps_setup(&r);
	memset(seen, 0, sizeof(seen));
	for (int k = 0; k < 64; k++) {
		uint16_t ev = next(&r, 0);

		cr_assert_eq(nic_lb_last_pick(&r.lb), NIC_LB_PICK_EXPLORE);
		distinct += !seen[ev];
		seen[ev] = 1;
	}
	cr_assert_eq(nic_lb_counter(&r.lb, NIC_LB_C_EXPLORED), 64);
	cr_assert_gt(distinct, 60, "random over 65,536 values: %d distinct of 64", distinct);

	r.p.entropy_value_set_size = 16;
	for (int k = 0; k < 1000; k++)
		cr_assert_lt(next(&r, 0), 16);
	r.p.entropy_value_set_size = 1;
	for (int k = 0; k < 100; k++)
		cr_assert_eq(next(&r, 0), 0);
}

/* The same rng stream gives the same choices. */
Test(nic_lb, reps_is_reproducible)
{
	struct reps a, b;

	reps_setup(&a);
	reps_setup(&b);
	for (int k = 0; k < 2000; k++) {
		emu_ps_t now = (emu_ps_t)k * US;

		if (k % 3 == 0) {
			nic_lb_on_ack(&a.lb, &a.p, (uint16_t)(k * 7), k % 5 == 0, now);
			nic_lb_on_ack(&b.lb, &b.p, (uint16_t)(k * 7), k % 5 == 0, now);
		}
		if (k % 97 == 0) {
			nic_lb_on_failure(&a.lb, NIC_LB_C_TIMEOUTS, now);
			nic_lb_on_failure(&b.lb, NIC_LB_C_TIMEOUTS, now);
		}
		cr_assert_eq(next(&a, now), next(&b, now), "packet %d", k);
	}
}

/* Reuse: the oldest cached value, removed, so a value is sent once per recycle; then explore again. */
Test(nic_lb, reps_reuses_oldest_once_per_recycle)
{
	struct reps r;

	reps_setup(&r);
	nic_lb_on_ack(&r.lb, &r.p, 10, false, 0);
	nic_lb_on_ack(&r.lb, &r.p, 20, false, 0);
	nic_lb_on_ack(&r.lb, &r.p, 10, false, 0);
	cr_assert_eq(nic_lb_cached(&r.lb), 3);
	cr_assert_eq(next(&r, 0), 10);
	cr_assert_eq(nic_lb_last_pick(&r.lb), NIC_LB_PICK_REUSE);
	cr_assert_eq(next(&r, 0), 20);
	cr_assert_eq(next(&r, 0), 10);
	cr_assert_eq(nic_lb_cached(&r.lb), 0);
	next(&r, 0);
	cr_assert_eq(nic_lb_last_pick(&r.lb), NIC_LB_PICK_EXPLORE);
	cr_assert_eq(nic_lb_counter(&r.lb, NIC_LB_C_REUSED), 3);
	cr_assert_eq(nic_lb_counter(&r.lb, NIC_LB_C_EXPLORED), 1);
}

/* The cache holds 2^3 = 8 values; a full cache loses its oldest to a newly recycled value. */
Test(nic_lb, reps_cache_of_8_is_circular)
{
	struct reps r;

	reps_setup(&r);
	for (uint16_t v = 1; v <= 10; v++)
		nic_lb_on_ack(&r.lb, &r.p, v, false, 0);
	cr_assert_eq(nic_lb_cached(&r.lb), 8);
	cr_assert_eq(nic_lb_slots_used(&r.lb), 8);
	cr_assert_eq(nic_lb_counter(&r.lb, NIC_LB_C_OVERWRITTEN), 2);
	for (uint16_t v = 3; v <= 10; v++)
		cr_assert_eq(next(&r, 0), v);
	next(&r, 0);
	cr_assert_eq(nic_lb_last_pick(&r.lb), NIC_LB_PICK_EXPLORE);

	/* Interleaved: recycle two, reuse one, recycle one: FIFO order holds across the ring's wrap. */
	nic_lb_on_ack(&r.lb, &r.p, 100, false, 0);
	nic_lb_on_ack(&r.lb, &r.p, 101, false, 0);
	cr_assert_eq(next(&r, 0), 100);
	nic_lb_on_ack(&r.lb, &r.p, 102, false, 0);
	cr_assert_eq(next(&r, 0), 101);
	cr_assert_eq(next(&r, 0), 102);
}

/* REPSBufferSizeMaskBits 0: a cache of 1 value. */
Test(nic_lb, reps_cache_of_1)
{
	struct reps r;

	reps_setup(&r);
	r.p.reps_buffer_mask_bits = 0;
	nic_lb_init(&r.lb, &r.p);
	nic_lb_on_ack(&r.lb, &r.p, 5, false, 0);
	nic_lb_on_ack(&r.lb, &r.p, 6, false, 0);
	cr_assert_eq(nic_lb_cached(&r.lb), 1);
	cr_assert_eq(next(&r, 0), 6);
	next(&r, 0);
	cr_assert_eq(nic_lb_last_pick(&r.lb), NIC_LB_PICK_EXPLORE);
}

/* REPSBufferSizeMaskBits 16: 65,536 values in caller storage. */
Test(nic_lb, reps_cache_of_65536_in_caller_storage)
{
	struct reps r;

	reps_setup(&r);
	r.p.reps_buffer_mask_bits = 16;
	cr_assert_eq(nic_lb_storage_bytes(&r.p), 131072);
	uint16_t *store = malloc(nic_lb_storage_bytes(&r.p));
	cr_assert_not_null(store);
	nic_lb_init_ext(&r.lb, &r.p, r.p.data_rate_bps, store);
	for (uint32_t v = 0; v < 65536 + 5; v++)
		nic_lb_on_ack(&r.lb, &r.p, (uint16_t)v, false, 0);
	cr_assert_eq(nic_lb_cached(&r.lb), 65536);
	cr_assert_eq(nic_lb_counter(&r.lb, NIC_LB_C_OVERWRITTEN), 5);
	for (uint32_t v = 5; v < 65536 + 5; v++)
		cr_assert_eq(next(&r, 0), (uint16_t)v);
	next(&r, 0);
	cr_assert_eq(nic_lb_last_pick(&r.lb), NIC_LB_PICK_EXPLORE);
	free(store);

	struct nic_params q = defaults_with(NIC_SPRAY_REPS);
	cr_assert_eq(nic_lb_storage_bytes(&q), 0, "the default cache of 8 lives in the struct");
	q.reps_buffer_mask_bits = NIC_LB_INLINE_BITS;
	cr_assert_eq(nic_lb_storage_bytes(&q), 0);
	q.reps_buffer_mask_bits = NIC_LB_INLINE_BITS + 1;
	cr_assert_eq(nic_lb_storage_bytes(&q), 64);
	q.spraying = NIC_SPRAY_DEFAULT;
	cr_assert_eq(nic_lb_storage_bytes(&q), 0);
}

/* Path feedback table: ACK without ECN recycles; ACK with the ECN echo discards; a NACK for a trim on the way
 * discards; a NACK for a trim on the last hop recycles. */
Test(nic_lb, reps_feedback_recycles_or_discards_by_signal)
{
	struct reps r;

	reps_setup(&r);
	nic_lb_on_ack(&r.lb, &r.p, 11, true, 0);
	nic_lb_on_nack(&r.lb, &r.p, 12, false, 0);
	cr_assert_eq(nic_lb_cached(&r.lb), 0, "ECN-echo ACK and mid-path trim NACK add nothing");
	cr_assert_eq(nic_lb_counter(&r.lb, NIC_LB_C_DISCARDED_ECN), 1);
	cr_assert_eq(nic_lb_counter(&r.lb, NIC_LB_C_DISCARDED_TRIM), 1);
	nic_lb_on_nack(&r.lb, &r.p, 13, true, 0);
	nic_lb_on_ack(&r.lb, &r.p, 14, false, 0);
	nic_lb_on_ack(&r.lb, &r.p, 15, true, 0);
	cr_assert_eq(nic_lb_cached(&r.lb), 2);
	cr_assert_eq(nic_lb_counter(&r.lb, NIC_LB_C_RECYCLED), 2);
	cr_assert_eq(next(&r, 0), 13);
	cr_assert_eq(next(&r, 0), 14);
	next(&r, 0);
	cr_assert_eq(nic_lb_last_pick(&r.lb), NIC_LB_PICK_EXPLORE);
}

/* While freezing, once a value has been cached, REPS does not explore: cached values first, then the entries of
 * its cache in turn. */
Test(nic_lb, reps_freezing_reuses_cache_in_turn)
{
	struct reps r;

	reps_setup(&r);
	nic_lb_on_ack(&r.lb, &r.p, 5, false, 0);
	nic_lb_on_ack(&r.lb, &r.p, 6, false, 0);
	nic_lb_on_ack(&r.lb, &r.p, 7, false, 0);
	cr_assert_eq(next(&r, 0), 5, "consumed before freezing");
	nic_lb_on_failure(&r.lb, NIC_LB_C_TIMEOUTS, 1 * US);
	cr_assert(nic_lb_frozen(&r.lb));
	cr_assert_eq(nic_lb_counter(&r.lb, NIC_LB_C_FROZEN), 1);
	cr_assert_eq(next(&r, 2 * US), 6, "reuses cached values as usual");
	cr_assert_eq(next(&r, 2 * US), 7);
	uint16_t expect[] = { 5, 6, 7, 5, 6, 7, 5 };
	for (size_t i = 0; i < sizeof(expect) / sizeof(expect[0]); i++) {
		cr_assert_eq(next(&r, 3 * US), expect[i]);
		cr_assert_eq(nic_lb_last_pick(&r.lb), NIC_LB_PICK_REUSE_FROZEN);
	}
	cr_assert_eq(nic_lb_counter(&r.lb, NIC_LB_C_EXPLORED), 0);
	/* A value recycled while freezing (before FreezingTimeout) is reused first, and freezing goes on. */
	nic_lb_on_ack(&r.lb, &r.p, 42, false, 50 * US);
	cr_assert(nic_lb_frozen(&r.lb));
	cr_assert_eq(next(&r, 50 * US), 42);
	cr_assert_eq(next(&r, 50 * US), 6, "in turn resumes where it was");
}

/* Freezing with a full cache takes the entries in turn from the oldest. */
Test(nic_lb, reps_freezing_full_cache_in_turn_from_oldest)
{
	struct reps r;

	reps_setup(&r);
	for (uint16_t v = 1; v <= 11; v++) /* slots hold 9, 10, 11, 4, 5, 6, 7, 8; oldest is 4 */
		nic_lb_on_ack(&r.lb, &r.p, v, false, 0);
	for (int k = 0; k < 8; k++)
		next(&r, 0);
	nic_lb_on_failure(&r.lb, NIC_LB_C_LATE, 0);
	cr_assert(nic_lb_frozen(&r.lb));
	uint16_t expect[] = { 4, 5, 6, 7, 8, 9, 10, 11, 4 };
	for (size_t i = 0; i < sizeof(expect) / sizeof(expect[0]); i++)
		cr_assert_eq(next(&r, 0), expect[i]);
}

/* Freezing before anything was cached still explores: there is nothing to reuse. */
Test(nic_lb, reps_freezing_with_empty_cache_explores)
{
	struct reps r;

	reps_setup(&r);
	nic_lb_on_failure(&r.lb, NIC_LB_C_TIMEOUTS, 0);
	cr_assert(nic_lb_frozen(&r.lb));
	next(&r, 0);
	cr_assert_eq(nic_lb_last_pick(&r.lb), NIC_LB_PICK_EXPLORE);
}

/* Freezing lasts at least FreezingTimeout (100 us) and ends on the first value recycled after it; an ECN-echo ACK
 * or a mid-path trim NACK recycles nothing and so does not end it; failures while freezing start nothing new. */
Test(nic_lb, reps_freezing_exit_rule)
{
	struct reps r;
	emu_ps_t t0 = 10 * US;

	reps_setup(&r);
	nic_lb_on_failure(&r.lb, NIC_LB_C_TIMEOUTS, t0);
	nic_lb_on_ack(&r.lb, &r.p, 2, false, t0 + 100 * US - 1);
	cr_assert(nic_lb_frozen(&r.lb), "1 ps before FreezingTimeout: still freezing");
	nic_lb_on_failure(&r.lb, NIC_LB_C_TIMEOUTS, t0 + 100 * US);
	nic_lb_on_failure(&r.lb, NIC_LB_C_LATE, t0 + 100 * US);
	cr_assert_eq(nic_lb_counter(&r.lb, NIC_LB_C_FROZEN), 1);
	cr_assert_eq(nic_lb_counter(&r.lb, NIC_LB_C_FAILURES_IGNORED), 2);
	nic_lb_on_ack(&r.lb, &r.p, 3, true, t0 + 500 * US);
	nic_lb_on_nack(&r.lb, &r.p, 4, false, t0 + 500 * US);
	cr_assert(nic_lb_frozen(&r.lb), "nothing recycled: freezing goes on past FreezingTimeout");
	nic_lb_on_ack(&r.lb, &r.p, 5, false, t0 + 500 * US);
	cr_assert_not(nic_lb_frozen(&r.lb));
	cr_assert_eq(nic_lb_window_left(&r.lb), 71);
	cr_assert_eq(nic_lb_counter(&r.lb, NIC_LB_C_WINDOWS), 1);
	cr_assert_eq(nic_lb_cached(&r.lb), 2, "the exiting value is recycled too; the cache is kept");
}

/* Exactly at FreezingTimeout, a last-hop trim NACK (a recycle) ends freezing. */
Test(nic_lb, reps_freezing_ends_at_timeout_on_last_hop_nack)
{
	struct reps r;

	reps_setup(&r);
	nic_lb_on_failure(&r.lb, NIC_LB_C_LATE, 5 * US);
	nic_lb_on_nack(&r.lb, &r.p, 8, true, 105 * US);
	cr_assert_not(nic_lb_frozen(&r.lb));
	cr_assert_eq(nic_lb_window_left(&r.lb), 71);
}

/* Exploration window: 400 Gbps x 6 us / 8 = 300,000 B; / 4,184 B = 71 packets; the 71st and every 8th before it
 * explore: 7th, 15th, ..., 71st = 9 packets. The others choose as usual (here: reuse, the cache kept stocked). */
Test(nic_lb, reps_window_71_packets_7th_15th_to_71st_explore)
{
	struct reps r;
	int explored[80], n = 0;

	reps_setup(&r);
	cr_assert_eq(nic_lb_window_pkts(&r.p, r.p.data_rate_bps), 71);
	nic_lb_on_failure(&r.lb, NIC_LB_C_TIMEOUTS, 0);
	nic_lb_on_ack(&r.lb, &r.p, 1000, false, 100 * US);
	cr_assert_eq(nic_lb_window_left(&r.lb), 71);
	for (int k = 1; k <= 72; k++) {
		nic_lb_on_ack(&r.lb, &r.p, (uint16_t)(1000 + k), false, 100 * US);
		next(&r, 100 * US);
		if (nic_lb_last_pick(&r.lb) == NIC_LB_PICK_EXPLORE)
			explored[n++] = k;
		else
			cr_assert_eq(nic_lb_last_pick(&r.lb), NIC_LB_PICK_REUSE, "packet %d", k);
	}
	cr_assert_eq(n, 9);
	for (int i = 0; i < 9; i++)
		cr_assert_eq(explored[i], 7 + 8 * i, "exploring packet %d is the %dth", i, explored[i]);
	cr_assert_eq(explored[8], 71);
	cr_assert_eq(nic_lb_window_left(&r.lb), 0);
	cr_assert_eq(nic_lb_counter(&r.lb, NIC_LB_C_EXPLORED_WINDOW), 9);
}

/* A path failure in the exploration window starts no freezing; after the window closes, one does. */
Test(nic_lb, reps_failure_in_window_ignored)
{
	struct reps r;

	reps_setup(&r);
	nic_lb_on_failure(&r.lb, NIC_LB_C_TIMEOUTS, 0);
	nic_lb_on_ack(&r.lb, &r.p, 2, false, 200 * US);
	for (int k = 0; k < 70; k++)
		next(&r, 200 * US);
	nic_lb_on_failure(&r.lb, NIC_LB_C_LATE, 201 * US);
	cr_assert_not(nic_lb_frozen(&r.lb));
	cr_assert_eq(nic_lb_window_left(&r.lb), 1);
	next(&r, 202 * US);
	cr_assert_eq(nic_lb_last_pick(&r.lb), NIC_LB_PICK_EXPLORE, "the 71st explores");
	nic_lb_on_failure(&r.lb, NIC_LB_C_TIMEOUTS, 203 * US);
	cr_assert(nic_lb_frozen(&r.lb));
	cr_assert_eq(nic_lb_counter(&r.lb, NIC_LB_C_FROZEN), 2);
	cr_assert_eq(nic_lb_counter(&r.lb, NIC_LB_C_FAILURES_IGNORED), 1);
}

/* With an empty cache every packet of the window explores (choosing "as usual" explores too). */
Test(nic_lb, reps_window_with_empty_cache_explores_all)
{
	struct reps r;

	reps_setup(&r);
	nic_lb_on_failure(&r.lb, NIC_LB_C_TIMEOUTS, 0);
	nic_lb_on_ack(&r.lb, &r.p, 2, false, 100 * US);
	next(&r, 100 * US); /* reuses 2 */
	for (int k = 2; k <= 71; k++) {
		next(&r, 100 * US);
		cr_assert_eq(nic_lb_last_pick(&r.lb), NIC_LB_PICK_EXPLORE);
	}
	cr_assert_eq(nic_lb_counter(&r.lb, NIC_LB_C_EXPLORED), 70);
	cr_assert_eq(nic_lb_counter(&r.lb, NIC_LB_C_EXPLORED_WINDOW), 9);
}

/* The window follows the link rate and packet size: 100 Gbps gives 17 packets (75,000 / 4,184), the 1st, 9th and
 * 17th exploring; a cache of 1 makes every packet of the window explore. */
Test(nic_lb, reps_window_scales)
{
	struct reps r;

	reps_setup(&r);
	cr_assert_eq(nic_lb_window_pkts(&r.p, 100000000000ULL), 17);
	nic_lb_init_ext(&r.lb, &r.p, 100000000000ULL, NULL);
	nic_lb_on_failure(&r.lb, NIC_LB_C_TIMEOUTS, 0);
	nic_lb_on_ack(&r.lb, &r.p, 2, false, 100 * US);
	cr_assert_eq(nic_lb_window_left(&r.lb), 17);
	int n = 0;
	for (int k = 1; k <= 17; k++) {
		nic_lb_on_ack(&r.lb, &r.p, 3, false, 100 * US);
		next(&r, 100 * US);
		if (nic_lb_last_pick(&r.lb) == NIC_LB_PICK_EXPLORE) {
			cr_assert(k == 1 || k == 9 || k == 17, "packet %d explored", k);
			n++;
		}
	}
	cr_assert_eq(n, 3);

	r.p.reps_buffer_mask_bits = 0;
	nic_lb_init(&r.lb, &r.p);
	nic_lb_on_failure(&r.lb, NIC_LB_C_TIMEOUTS, 0);
	nic_lb_on_ack(&r.lb, &r.p, 2, false, 100 * US);
	for (int k = 1; k <= 71; k++) {
		nic_lb_on_ack(&r.lb, &r.p, 3, false, 100 * US);
		next(&r, 100 * US);
		cr_assert_eq(nic_lb_last_pick(&r.lb), NIC_LB_PICK_EXPLORE);
	}
	nic_lb_on_ack(&r.lb, &r.p, 3, false, 100 * US);
	cr_assert_eq(next(&r, 100 * US), 3, "window closed: reuse");
}

/* Early failure detection: 3 x 6 us = 18 us at the defaults; a lower base RTT shortens it; 0 turns it off; it
 * applies only under REPS. */
Test(nic_lb, early_failure_deadline)
{
	struct nic_params p = defaults_with(NIC_SPRAY_REPS);

	cr_assert_eq(nic_lb_failure_deadline(&p, p.initial_base_rtt), 18 * US);
	cr_assert_eq(nic_lb_failure_deadline(&p, 4 * US), 12 * US);
	p.failure_detection_rtt_mult = 0;
	cr_assert_eq(nic_lb_failure_deadline(&p, 6 * US), EMU_PS_NEVER);
	p.failure_detection_rtt_mult = 3;
	cr_assert_eq(nic_lb_failure_deadline(&p, EMU_PS_NEVER / 2), EMU_PS_NEVER, "overflow saturates");
	p.spraying = NIC_SPRAY_DEFAULT;
	cr_assert_eq(nic_lb_failure_deadline(&p, 6 * US), EMU_PS_NEVER);
	p.spraying = NIC_SPRAY_NONE;
	cr_assert_eq(nic_lb_failure_deadline(&p, 6 * US), EMU_PS_NEVER);
}

/* A late packet is a path failure like a timeout: it starts freezing, counted apart. */
Test(nic_lb, reps_late_packet_starts_freezing)
{
	struct reps r;

	reps_setup(&r);
	nic_lb_on_failure(&r.lb, NIC_LB_C_LATE, 18 * US);
	cr_assert(nic_lb_frozen(&r.lb));
	cr_assert_eq(nic_lb_counter(&r.lb, NIC_LB_C_LATE), 1);
	cr_assert_eq(nic_lb_counter(&r.lb, NIC_LB_C_TIMEOUTS), 0);
	nic_lb_on_ack(&r.lb, &r.p, 1, false, 117 * US);
	cr_assert(nic_lb_frozen(&r.lb), "FreezingTimeout counts from the late report at 18 us");
	nic_lb_on_ack(&r.lb, &r.p, 1, false, 118 * US);
	cr_assert_not(nic_lb_frozen(&r.lb));
}

Test(nic_lb, counter_names)
{
	cr_assert_str_eq(nic_lb_counter_name(NIC_LB_C_NONE), "none");
	cr_assert_str_eq(nic_lb_counter_name(NIC_LB_C_RECYCLED), "recycled");
	cr_assert_str_eq(nic_lb_counter_name(NIC_LB_C_COUNT), "unknown");
	cr_assert_str_eq(nic_lb_counter_desc(-1), "unknown");
	struct nic_lb lb;
	struct nic_params p = defaults_with(NIC_SPRAY_REPS);
	nic_lb_init(&lb, &p);
	cr_assert_eq(nic_lb_counter(&lb, NIC_LB_C_COUNT), 0);
	cr_assert_leq(sizeof(struct nic_lb), 256, "small enough to embed in every group");
}
