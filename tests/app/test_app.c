/* The Scala RDMA application's pure parts (emul/app): the worked examples of spec seeds/003 (Worked example: 16
 * hosts, the default timeline, one WQE, Closed-loop generation) and the pairing and start-type rules. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "app_place.h"
#include "app_timeline.h"
#include "app_wqe.h"
#include "emu_rng.h"
#include "emu_time.h"

#define MS EMU_PS_PER_MS
#define MAX_HOSTS 64

/* One placement with its caller-owned arrays. */
struct placed {
	uint8_t role[MAX_HOSTS];
	struct app_pair pairs[MAX_HOSTS];
	struct app_place_out out;
	char err[160];
	int rc;
};

static void place(struct placed *pl, uint32_t n_hosts, uint32_t pr_i, uint32_t pr_r, uint64_t seed)
{
	struct app_place_in in = {.n_hosts = n_hosts, .pr_initiator = pr_i, .pr_responder = pr_r};
	struct emu_rng rng;

	memset(pl, 0xa5, sizeof(*pl));
	pl->out.role = pl->role;
	pl->out.pairs = pl->pairs;
	pl->err[0] = '\0';
	emu_rng_init(&rng, seed, APP_RNG_STREAM_PLACE);
	pl->rc = app_place(&in, &pl->out, &rng, pl->err, sizeof(pl->err));
}

static uint32_t ppb(double r)
{
	return app_ratio_ppb(r);
}

/* Times host h appears as an Initiator (resp. Responder) in the pairs. */
static void pair_degrees(const struct placed *pl, uint32_t *ideg, uint32_t *rdeg)
{
	memset(ideg, 0, MAX_HOSTS * sizeof(*ideg));
	memset(rdeg, 0, MAX_HOSTS * sizeof(*rdeg));
	for (uint32_t k = 0; k < pl->out.n_pairs; k++) {
		ideg[pl->pairs[k].initiator]++;
		rdeg[pl->pairs[k].responder]++;
	}
}

/* Every invariant of Placement and pairing, for any host count and ratios. */
static void check_rules(const struct placed *pl, uint32_t n_hosts)
{
	uint32_t ni = pl->out.n_initiators, nr = pl->out.n_responders, ci = 0, cr = 0;
	uint32_t min = ni < nr ? ni : nr, max = ni < nr ? nr : ni;
	uint32_t ideg[MAX_HOSTS], rdeg[MAX_HOSTS];

	cr_assert_eq(pl->rc, 0, "%s", pl->err);
	cr_assert_eq(ni + nr, n_hosts, "every host runs one component");
	cr_assert(ni >= 1 && nr >= 1);
	for (uint32_t h = 0; h < n_hosts; h++) {
		cr_assert(pl->role[h] == APP_ROLE_INITIATOR || pl->role[h] == APP_ROLE_RESPONDER);
		ci += pl->role[h] == APP_ROLE_INITIATOR;
		cr += pl->role[h] == APP_ROLE_RESPONDER;
	}
	cr_assert_eq(ci, ni);
	cr_assert_eq(cr, nr);
	cr_assert_eq(pl->out.n_pairs, max);
	for (uint32_t k = 0; k < max; k++) {
		cr_assert_lt(pl->pairs[k].initiator, n_hosts);
		cr_assert_lt(pl->pairs[k].responder, n_hosts);
		cr_assert_eq(pl->role[pl->pairs[k].initiator], APP_ROLE_INITIATOR);
		cr_assert_eq(pl->role[pl->pairs[k].responder], APP_ROLE_RESPONDER, "on another host");
	}
	pair_degrees(pl, ideg, rdeg);
	for (uint32_t h = 0; h < n_hosts; h++)
		cr_assert_geq(pl->role[h] == APP_ROLE_INITIATOR ? ideg[h] : rdeg[h], 1, "host %u has a partner", h);
	/* Rule 1: the first min(I, R) pairs: distinct Initiators, each with a Responder nobody else has. */
	for (uint32_t a = 0; a < min; a++)
		for (uint32_t b = a + 1; b < min; b++) {
			cr_assert_neq(pl->pairs[a].responder, pl->pairs[b].responder);
			cr_assert_neq(pl->pairs[a].initiator, pl->pairs[b].initiator);
		}
	/* Rule 2 (I > R): each Initiator in exactly one pair, Responders shared. Rule 3 (R > I): each Responder in
	 * exactly one pair, Initiators shared. */
	for (uint32_t h = 0; h < n_hosts; h++) {
		if (ni >= nr && pl->role[h] == APP_ROLE_INITIATOR)
			cr_assert_eq(ideg[h], 1);
		if (nr >= ni && pl->role[h] == APP_ROLE_RESPONDER)
			cr_assert_eq(rdeg[h], 1);
	}
}

/* Worked example, ratios 0.5 and 0.5: 8 + 8 = 16, no top-up, 8 pairs each with its own Responder. */
Test(app_place, sixteen_hosts_half_half_is_8_and_8_with_8_pairs)
{
	struct placed pl;

	cr_assert_eq(APP_RATIO_ALONE, ppb(0.5));
	place(&pl, 16, APP_RATIO_ALONE, APP_RATIO_ALONE, EMU_RNG_DEFAULT_SEED);
	check_rules(&pl, 16);
	cr_assert_eq(pl.out.n_initiators, 8);
	cr_assert_eq(pl.out.n_responders, 8);
	cr_assert_eq(pl.out.n_pairs, 8);
}

/* Worked example, ratios 0.9 and 0.1: floor 14 + 1 = 15, the Initiator (0.875 < 0.9) takes the last host first:
 * 15 + 1, and all 15 Initiators pair with the one Responder. */
Test(app_place, sixteen_hosts_09_01_tops_up_the_initiator_to_15)
{
	struct placed pl;
	uint32_t r;

	place(&pl, 16, ppb(0.9), ppb(0.1), EMU_RNG_DEFAULT_SEED);
	check_rules(&pl, 16);
	cr_assert_eq(pl.out.n_initiators, 15);
	cr_assert_eq(pl.out.n_responders, 1);
	cr_assert_eq(pl.out.n_pairs, 15);
	r = pl.pairs[0].responder;
	for (uint32_t k = 0; k < 15; k++)
		cr_assert_eq(pl.pairs[k].responder, r);
}

/* Worked example, ratios 0.25 and 0.75: 4 + 12, no top-up; 4 pairs with distinct Responders, then each of the
 * other 8 Responders gets an Initiator at random: 12 pairs, 3 Responders per Initiator on average. */
Test(app_place, sixteen_hosts_025_075_is_4_and_12_with_12_pairs)
{
	struct placed pl;
	uint32_t ideg[MAX_HOSTS], rdeg[MAX_HOSTS], sum = 0;

	place(&pl, 16, ppb(0.25), ppb(0.75), EMU_RNG_DEFAULT_SEED);
	check_rules(&pl, 16);
	cr_assert_eq(pl.out.n_initiators, 4);
	cr_assert_eq(pl.out.n_responders, 12);
	cr_assert_eq(pl.out.n_pairs, 12);
	pair_degrees(&pl, ideg, rdeg);
	for (uint32_t h = 0; h < 16; h++)
		sum += pl.role[h] == APP_ROLE_INITIATOR ? ideg[h] : 0;
	cr_assert_eq(sum, 12); /* 12 Responders / 4 Initiators = 3 on average */
}

/* Host counts on their own: the floors, the top-up in turn from the first component, the 3-component budget. */
Test(app_place, host_counts_floor_then_top_up_in_turn)
{
	const uint32_t two[2] = {ppb(0.9), ppb(0.1)};
	const uint32_t thirds[3] = {ppb(1.0 / 3), ppb(1.0 / 3), ppb(1.0 / 3)}; /* sum 999,999,999 ppb */
	const uint32_t skip[3] = {ppb(0.1), ppb(0.45), ppb(0.45)};
	const uint32_t exact[2] = {ppb(0.29), ppb(0.71)};
	uint32_t c[3];

	cr_assert_eq(app_host_counts(15, two, NULL, 2, c, NULL, 0), 0);
	cr_assert(c[0] == 14 && c[1] == 1); /* floor(13.5) + floor(1.5) = 14; 13/15 < 0.9 tops up the Initiator */
	cr_assert_eq(app_host_counts(10, thirds, NULL, 3, c, NULL, 0), 0);
	cr_assert(c[0] == 4 && c[1] == 3 && c[2] == 3, "%u %u %u", c[0], c[1], c[2]);
	/* 1 + 4 + 4 = 9: the first is at its ratio (0.1), so the second, at 0.4 < 0.45, takes the last host */
	cr_assert_eq(app_host_counts(10, skip, NULL, 3, c, NULL, 0), 0);
	cr_assert(c[0] == 1 && c[1] == 5 && c[2] == 4, "%u %u %u", c[0], c[1], c[2]);
	/* floor(0.29 x 100) is 29 in parts per billion (28.999... in binary floating point) */
	cr_assert_eq(app_host_counts(100, exact, NULL, 2, c, NULL, 0), 0);
	cr_assert(c[0] == 29 && c[1] == 71);
}

/* At least 1 for a ratio above 0: 0.95 / 0.05 on 10 hosts is floor(9.5) = 9 and max(floor(0.5), 1) = 1. */
Test(app_place, small_ratio_gets_at_least_one_host)
{
	struct placed pl;

	place(&pl, 10, ppb(0.95), ppb(0.05), 1);
	check_rules(&pl, 10);
	cr_assert(pl.out.n_initiators == 9 && pl.out.n_responders == 1);
	place(&pl, 2, ppb(0.5), ppb(0.5), 1);
	check_rules(&pl, 2);
	cr_assert_eq(pl.out.n_pairs, 1);
	cr_assert_neq(pl.pairs[0].initiator, pl.pairs[0].responder);
}

/* A ratio of 0 makes the configuration invalid; so do ratios not adding up to 1 and too few hosts. */
Test(app_place, invalid_ratios_and_hosts_give_messages)
{
	const uint32_t many[4] = {ppb(0.25), ppb(0.25), ppb(0.25), ppb(0.25)};
	uint32_t c[4];
	char err[160];
	struct placed pl;

	place(&pl, 16, APP_RATIO_ONE, 0, 1);
	cr_assert_eq(pl.rc, -EINVAL);
	cr_assert(strstr(pl.err, "prScalaRdmaResponder") != NULL, "%s", pl.err);
	cr_assert(pl.out.n_initiators == 0 && pl.out.n_responders == 0 && pl.out.n_pairs == 0);
	place(&pl, 16, 0, APP_RATIO_ONE, 1);
	cr_assert_eq(pl.rc, -EINVAL);
	cr_assert(strstr(pl.err, "prScalaRdmaInitiator") != NULL, "%s", pl.err);
	place(&pl, 16, ppb(0.5), ppb(0.4), 1);
	cr_assert_eq(pl.rc, -EINVAL);
	cr_assert(strstr(pl.err, "add up to 0.9") != NULL, "%s", pl.err);
	place(&pl, 16, ppb(0.7), ppb(0.5), 1);
	cr_assert_eq(pl.rc, -EINVAL);
	place(&pl, 1, APP_RATIO_ALONE, APP_RATIO_ALONE, 1);
	cr_assert_eq(pl.rc, -EINVAL);
	cr_assert(strstr(pl.err, "at least 2") != NULL, "%s", pl.err);
	place(&pl, 0, APP_RATIO_ALONE, APP_RATIO_ALONE, 1);
	cr_assert_eq(pl.rc, -EINVAL);
	cr_assert_eq(app_host_counts(3, many, NULL, 4, c, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "too few") != NULL, "%s", err);
	cr_assert_eq(app_host_counts(3, many, NULL, 0, c, NULL, 0), -EINVAL);
	cr_assert_eq(app_ratio_ppb(-1.0), 0);
	cr_assert_eq(app_ratio_ppb(2.0), APP_RATIO_ONE);
	cr_assert_eq(app_ratio_ppb(0.9), 900000000u);
}

/* The three pairing rules and every placement invariant, on many seeds, host counts and ratios. */
Test(app_place, pairing_rules_hold_on_many_seeds)
{
	static const double ratios[] = {0.5, 0.9, 0.1, 0.25, 0.75, 0.3, 0.05, 0.95};
	static const uint32_t hosts[] = {2, 3, 5, 16, 17, 64};
	struct placed pl;

	for (uint64_t seed = 1; seed <= 50; seed++)
		for (size_t r = 0; r < sizeof(ratios) / sizeof(ratios[0]); r++)
			for (size_t h = 0; h < sizeof(hosts) / sizeof(hosts[0]); h++) {
				place(&pl, hosts[h], ppb(ratios[r]), APP_RATIO_ONE - ppb(ratios[r]), seed);
				check_rules(&pl, hosts[h]);
			}
}

/* RandomSeed sets the pairs: the same seed gives the same roles and pairs, another seed others. */
Test(app_place, same_seed_same_pairs_other_seed_other_pairs)
{
	struct placed a, b, c;

	place(&a, 16, APP_RATIO_ALONE, APP_RATIO_ALONE, EMU_RNG_DEFAULT_SEED);
	place(&b, 16, APP_RATIO_ALONE, APP_RATIO_ALONE, EMU_RNG_DEFAULT_SEED);
	place(&c, 16, APP_RATIO_ALONE, APP_RATIO_ALONE, EMU_RNG_DEFAULT_SEED + 1);
	cr_assert_eq(memcmp(a.role, b.role, 16), 0);
	cr_assert_eq(memcmp(a.pairs, b.pairs, 8 * sizeof(a.pairs[0])), 0);
	cr_assert(memcmp(a.role, c.role, 16) != 0 || memcmp(a.pairs, c.pairs, 8 * sizeof(a.pairs[0])) != 0);
}

/* The random choices really vary: over seeds each host is sometimes an Initiator and sometimes a Responder, and
 * with one Initiator and 15 Responders (rule 3 aside) the first pair's Responder takes many values. */
Test(app_place, choices_vary_with_the_seed)
{
	uint32_t as_init[16] = {0}, first_resp[16] = {0}, distinct = 0;
	struct placed pl;

	for (uint64_t seed = 1; seed <= 400; seed++) {
		place(&pl, 16, APP_RATIO_ALONE, APP_RATIO_ALONE, seed);
		for (uint32_t h = 0; h < 16; h++)
			as_init[h] += pl.role[h] == APP_ROLE_INITIATOR;
		first_resp[pl.pairs[0].responder]++;
	}
	for (uint32_t h = 0; h < 16; h++) {
		cr_assert(as_init[h] > 100 && as_init[h] < 300, "host %u: Initiator %u of 400", h, as_init[h]);
		distinct += first_resp[h] > 0;
	}
	cr_assert_geq(distinct, 12);
}

/* Worked example: the default timeline. Responders 0.001 s, client start window 0.002 to 0.003 s, recording window
 * 0.005 to 0.505 s, stop 0.506 s. */
Test(app_timeline, defaults_give_the_pages_timeline)
{
	struct app_timeline_params p;
	struct app_timeline t;

	app_timeline_defaults(&p);
	cr_assert(p.start_time == MS && p.client_start_offset == MS && p.client_start_interval == MS);
	cr_assert(p.warm_up == 2 * MS && p.run_time == 500 * MS && p.cool_down == MS);
	cr_assert_eq(app_timeline_compute(&p, &t, NULL, 0), 0);
	cr_assert_eq(t.responders_start, 1 * MS);
	cr_assert_eq(t.client_start, 2 * MS);
	cr_assert_eq(t.client_end, 3 * MS);
	cr_assert_eq(t.record_start, 5 * MS);
	cr_assert_eq(t.record_end, 505 * MS);
	cr_assert_eq(t.stop, 506 * MS);
	cr_assert(app_in_record_window(&t, 5 * MS) && app_in_record_window(&t, 505 * MS));
	cr_assert(!app_in_record_window(&t, 5 * MS - 1) && !app_in_record_window(&t, 505 * MS + 1));
}

static struct app_timeline default_timeline(void)
{
	struct app_timeline_params p;
	struct app_timeline t;

	app_timeline_defaults(&p);
	app_timeline_compute(&p, &t, NULL, 0);
	return t;
}

/* simultaneous: every connection requests at 0.002 s and posts its first WQEs at 0.003 s; a setup completing after
 * the window starts the WQEs at once. */
Test(app_timeline, simultaneous_all_at_window_start_wqes_at_its_end)
{
	struct app_timeline t = default_timeline();

	for (uint32_t i = 0; i < 8; i++)
		cr_assert_eq(app_conn_start(&t, APP_START_SIMULTANEOUS, i, 8, NULL), 2 * MS);
	cr_assert_eq(app_wqe_start(&t, 2 * MS + 7 * EMU_PS_PER_US), 3 * MS);
	cr_assert_eq(app_wqe_start(&t, 3 * MS), 3 * MS);
	cr_assert_eq(app_wqe_start(&t, 3 * MS + 5), 3 * MS + 5);
}

/* uniform: independent draws in [0.002, 0.003) s, repeatable from the seed. */
Test(app_timeline, uniform_draws_in_the_window_from_the_seed)
{
	struct app_timeline t = default_timeline();
	struct emu_rng a, b;
	emu_ps_t lo = EMU_PS_NEVER, hi = 0;

	emu_rng_init(&a, EMU_RNG_DEFAULT_SEED, 9);
	emu_rng_init(&b, EMU_RNG_DEFAULT_SEED, 9);
	for (uint32_t i = 0; i < 1000; i++) {
		emu_ps_t x = app_conn_start(&t, APP_START_UNIFORM, i, 1000, &a);

		cr_assert(x >= 2 * MS && x < 3 * MS);
		cr_assert_eq(x, app_conn_start(&t, APP_START_UNIFORM, i, 1000, &b));
		lo = x < lo ? x : lo;
		hi = x > hi ? x : hi;
	}
	cr_assert(lo < 2 * MS + 10 * EMU_PS_PER_US && hi > 3 * MS - 10 * EMU_PS_PER_US, "spread over the window");
}

/* sequential: evenly spaced, the first at the window's start; each partition spaces its own connections. */
Test(app_timeline, sequential_evenly_spaced_per_partition)
{
	struct app_timeline t = default_timeline();
	struct app_timeline_params p;

	for (uint32_t i = 0; i < 4; i++) /* 4 connections in one process: 0.002, 0.00225, 0.0025, 0.00275 s */
		cr_assert_eq(app_conn_start(&t, APP_START_SEQUENTIAL, i, 4, NULL), 2 * MS + i * MS / 4);
	for (uint32_t i = 0; i < 2; i++) /* the same 4 over 2 processes: each has 0.002 and 0.0025 s */
		cr_assert_eq(app_conn_start(&t, APP_START_SEQUENTIAL, i, 2, NULL), 2 * MS + i * MS / 2);
	cr_assert_eq(app_conn_start(&t, APP_START_SEQUENTIAL, 0, 1, NULL), 2 * MS);
	cr_assert_eq(app_conn_start(&t, APP_START_SEQUENTIAL, 2, 3, NULL), 2 * MS + 666666666);
	/* a window near 2^64 ps cannot overflow idx x window */
	app_timeline_defaults(&p);
	p.start_time = p.client_start_offset = 0;
	p.client_start_interval = (emu_ps_t)1 << 62;
	p.warm_up = p.run_time = p.cool_down = 0;
	cr_assert_eq(app_timeline_compute(&p, &t, NULL, 0), 0);
	cr_assert_eq(app_conn_start(&t, APP_START_SEQUENTIAL, 1023, 1024, NULL), ((emu_ps_t)1 << 52) * 1023);
}

Test(app_timeline, start_type_names_and_errors)
{
	struct app_timeline_params p;
	struct app_timeline t;
	enum app_start s;
	char err[128];

	cr_assert_eq(app_start_parse("simultaneous", &s, NULL, 0), 0);
	cr_assert_eq(s, APP_START_SIMULTANEOUS);
	cr_assert_eq(app_start_parse("uniform", &s, NULL, 0), 0);
	cr_assert_eq(s, APP_START_UNIFORM);
	cr_assert_eq(app_start_parse("sequential", &s, NULL, 0), 0);
	cr_assert_eq(s, APP_START_SEQUENTIAL);
	cr_assert_eq(app_start_parse("random", &s, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "StartType: \"random\" is not simultaneous, uniform or sequential");
	cr_assert_str_eq(app_start_name(APP_START_SEQUENTIAL), "sequential");
	cr_assert_str_eq(app_start_name(7), "unknown");
	app_timeline_defaults(&p);
	p.run_time = EMU_PS_NEVER;
	cr_assert_eq(app_timeline_compute(&p, &t, err, sizeof(err)), -EOVERFLOW);
	cr_assert(strstr(err, "passes the emulated") != NULL, "%s", err);
	p.run_time = EMU_PS_MAX - 1 - 6 * EMU_PS_PER_MS; /* the defaults' other five add 6 ms: one ps short of 2^63 */
	cr_assert_eq(app_timeline_compute(&p, &t, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(t.stop, EMU_PS_MAX - 1);
	p.run_time++;
	cr_assert_eq(app_timeline_compute(&p, &t, err, sizeof(err)), -EOVERFLOW, "2^63 ps is past the range");
}

/* Worked example: one WQE on the Scala RoCE NIC: 92 B doorbell, 62 packets (61 x 4,096 + 144), 253,596 B on the
 * wire with 58 B of headers each, 5.07 us at 400 Gbps. */
Test(app_wqe, one_wqe_on_the_roce_nic)
{
	uint32_t n = app_wqe_packets(APP_WQE_BYTES, 4096);

	cr_assert_eq(app_doorbell_bytes(APP_DOORBELL_PAYLOAD_DEFAULT), 92);
	cr_assert_eq(n, 62);
	cr_assert_eq(app_wqe_last_bytes(APP_WQE_BYTES, 4096), 144);
	cr_assert_eq((n - 1) * 4096u, 249856);
	cr_assert_eq(APP_WQE_BYTES + n * 58u, 253596);
	cr_assert_eq(emu_ser_ps(253596, 400000000000ULL), 5071920); /* 5.07 us */
	cr_assert_eq(app_wqe_packets(8192, 4096), 2);
	cr_assert_eq(app_wqe_last_bytes(8192, 4096), 4096);
}

/* Closed-loop generation with the defaults on 16 hosts at 0.5 / 0.5: 10 per connection and per pair, 80 in the
 * topology. */
Test(app_wqe, outstanding_defaults_16_hosts_is_80)
{
	struct placed pl;

	place(&pl, 16, APP_RATIO_ALONE, APP_RATIO_ALONE, EMU_RNG_DEFAULT_SEED);
	cr_assert_eq(app_wqes_outstanding(1, 1, APP_MAX_PENDING_WQES_DEFAULT), 10);
	cr_assert_eq(app_wqes_outstanding(1, APP_NUM_CONNECTIONS_DEFAULT, APP_MAX_PENDING_WQES_DEFAULT), 10);
	cr_assert_eq(app_wqes_outstanding(pl.out.n_pairs, APP_NUM_CONNECTIONS_DEFAULT, APP_MAX_PENDING_WQES_DEFAULT),
		     80);
	cr_assert_eq(app_wqes_outstanding(8, APP_NUM_CONNECTIONS_MAX, 0), 0); /* none at MaxPendingWQEs 0 */
}
