/* The flow generators (emul/app/app_flows.c): CDF files, the fixed-point logarithm, the offered load, the patterns
 * and the constant-rate streams. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_flows.h"

static const char websearch[] = "# web search\n0 0\n10000 0.15\n20000 0.2\n30000 0.3\n50000 0.4\n80000 0.53\n"
				"200000 0.6\n1000000 0.7\n2000000 0.8\n5000000 0.9\n10000000 0.97\n30000000 1\n";

static void load_ws(struct app_cdf *c)
{
	char err[128];

	cr_assert_eq(app_cdf_parse(websearch, c, err, sizeof(err)), 0, "%s", err);
}

Test(app_flows, cdf_parse_points_and_errors)
{
	struct app_cdf c;
	char err[128];

	load_ws(&c);
	cr_expect_eq(c.n, 12);
	cr_expect_eq(c.size[11], 30000000);
	cr_expect_eq(c.cum[1], 150000000);
	/* the mean: sum over the segments of their middle size x their probability, exactly 1,711,250 B */
	cr_expect(app_cdf_mean2e9(&c) == (unsigned __int128)1711250 * 2000000000u);
	/* quantiles: below the first point's probability the first size (at least 1 B), linear in between */
	cr_expect_eq(app_cdf_size(&c, 0), 1);
	cr_expect_eq(app_cdf_size(&c, 75000000), 5000);
	cr_expect_eq(app_cdf_size(&c, 150000000), 10000);
	cr_expect_eq(app_cdf_size(&c, APP_PPB_ONE - 1), 29999999); /* 1 ppb short of the top */
	struct {
		const char *text, *why;
	} bad[] = {
		{ "", "no point" },
		{ "100 0.5\n", "probability below 1" },
		{ "100 0.5\n50 1\n", "line 2: the size goes down" },
		{ "100 0.5\n200 0.4\n300 1\n", "line 2: the probability goes down" },
		{ "100 1.5\n", "line 1: bad probability" },
		{ "100 0.1234567891\n", "line 1: bad probability" },
		{ "x 1\n", "line 1: expected" },
		{ "100\n", "line 1: bad size" },
		{ "100 1 7\n", "line 1: more than two values" },
		{ "0 1\n", "has size 0" },
		{ "2000000000000 1\n", "above 2^40" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_expect_eq(app_cdf_parse(bad[i].text, &c, err, sizeof(err)), -EINVAL, "%s", bad[i].text);
		cr_expect(strstr(err, bad[i].why) != NULL, "'%s': %s", bad[i].text, err);
	}
	cr_expect_eq(app_cdf_parse("# comment\n\n  5 0.25  # a quarter\n10 1\r\n", &c, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(c.n, 2);
}

Test(app_flows, neglog_to_a_few_ppb)
{
	/* -ln(1 - u) in Q32 against the true value, to a few parts per billion */
	uint32_t us[] = { 0, 1, 500000000, 900000000, 990000000, 999999999, 123456789 };

	for (size_t i = 0; i < sizeof(us) / sizeof(us[0]); i++) {
		double want = -log(1.0 - us[i] / 1e9), got = (double)app_flows_neglog_q32(us[i]) / 4294967296.0;

		cr_expect(fabs(got - want) < 1e-8 * (1 + want), "u %u: %.12f, want %.12f", us[i], got, want);
	}
}

static struct app_flows_in ws_in(const struct app_cdf *c)
{
	return (struct app_flows_in){ .n_hosts = 16, .bps = 100000000000ULL, .load_ppm = 500000, .cdf = c,
				      .pattern = APP_FLOWS_UNIFORM, .seed = 18760, .start = 0,
				      .stop = 20 * EMU_PS_PER_MS };
}

Test(app_flows, offered_load_within_2pct)
{
	struct app_cdf c;
	char err[160];

	load_ws(&c);
	/* the default (strata 0) is within 2 % of the load for every seed tried; the flows are deterministic */
	for (uint64_t seed = 1; seed <= 20; seed++) {
		struct app_flows_in in = ws_in(&c);
		struct app_flows_out a, b;

		in.seed = seed;
		cr_assert_eq(app_flows_gen(&in, &a, err, sizeof(err)), 0, "%s", err);
		cr_expect(a.offered_ppm >= 490000 && a.offered_ppm <= 510000, "seed %llu: offered %u ppm",
			  (unsigned long long)seed, a.offered_ppm);
		cr_expect_eq(a.senders, 16);
		cr_expect_eq(a.window_ps, 16 * 20 * EMU_PS_PER_MS);
		uint64_t sum = 0;

		for (uint64_t i = 0; i < a.n; i++) {
			sum += a.flows[i].bytes;
			cr_expect(a.flows[i].src != a.flows[i].dst && a.flows[i].dst < 16);
			cr_expect(a.flows[i].start < in.stop && (i == 0 || a.flows[i - 1].start <= a.flows[i].start));
			cr_expect(a.flows[i].bytes >= 1 && a.flows[i].bytes <= 30000000);
		}
		cr_expect_eq(sum, a.bytes);
		cr_assert_eq(app_flows_gen(&in, &b, err, sizeof(err)), 0);
		cr_expect(a.n == b.n && memcmp(a.flows, b.flows, a.n * sizeof(*a.flows)) == 0, "not deterministic");
		free(a.flows);
		free(b.flows);
	}
	/* strata 1: a plain Poisson process with independent sizes; its load strays more (here by a few percent) */
	struct app_flows_in in = ws_in(&c);
	struct app_flows_out o;
	uint32_t worst = 0;

	in.strata = 1;
	for (uint64_t seed = 1; seed <= 8; seed++) {
		in.seed = seed;
		cr_assert_eq(app_flows_gen(&in, &o, err, sizeof(err)), 0);
		uint32_t d = o.offered_ppm > 500000 ? o.offered_ppm - 500000 : 500000 - o.offered_ppm;
		worst = d > worst ? d : worst;
		free(o.flows);
	}
	cr_expect(worst > 10000, "independent draws stray by %u ppm at most", worst);
	/* a count stop: exactly count flows per host, the window up to each host's last arrival */
	in = ws_in(&c);
	in.stop = 0;
	in.count = 500;
	cr_assert_eq(app_flows_gen(&in, &o, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(o.n, 16 * 500);
	cr_expect(o.offered_ppm >= 490000 && o.offered_ppm <= 510000, "count stop: offered %u ppm", o.offered_ppm);
	free(o.flows);
	/* a count and a stop, the count first (5 flows, about 73 expected in the window): 5 flows per host */
	in = ws_in(&c);
	in.count = 5;
	cr_assert_eq(app_flows_gen(&in, &o, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(o.n, 16 * 5);
	cr_expect(o.window_ps < 16 * in.stop, "the windows end at each host's last flow (%llu ps)",
		  (unsigned long long)o.window_ps);
	free(o.flows);
	/* the stop first (about 73 expected, count 1,000): the window is the stop's */
	in.count = 1000;
	cr_assert_eq(app_flows_gen(&in, &o, err, sizeof(err)), 0, "%s", err);
	cr_expect(o.n > 16 * 60 && o.n < 16 * 90 && o.window_ps == 16 * in.stop, "%llu flows",
		  (unsigned long long)o.n);
	free(o.flows);
}

Test(app_flows, patterns_pick_destinations)
{
	struct app_cdf c;
	char err[160];
	struct app_flows_in in;
	struct app_flows_out o;

	load_ws(&c);
	/* permutation: each host one other host, every host the destination of one */
	in = ws_in(&c);
	in.pattern = APP_FLOWS_PERMUTATION;
	cr_assert_eq(app_flows_gen(&in, &o, err, sizeof(err)), 0, "%s", err);
	uint32_t dst_of[16], seen[16] = { 0 };

	memset(dst_of, 0xff, sizeof(dst_of));
	for (uint64_t i = 0; i < o.n; i++) {
		const struct app_flow *f = &o.flows[i];

		cr_expect(dst_of[f->src] == UINT32_MAX || dst_of[f->src] == f->dst, "host %u: two destinations", f->src);
		if (dst_of[f->src] == UINT32_MAX)
			seen[f->dst]++;
		dst_of[f->src] = f->dst;
		cr_expect_neq(f->src, f->dst);
	}
	for (int h = 0; h < 16; h++)
		cr_expect_eq(seen[h], 1, "host %d the destination of %u hosts", h, seen[h]);
	free(o.flows);
	/* incast: 5 senders, all to host3 */
	in = ws_in(&c);
	in.pattern = APP_FLOWS_INCAST;
	in.receiver = 3;
	in.senders = 5;
	cr_assert_eq(app_flows_gen(&in, &o, err, sizeof(err)), 0, "%s", err);
	uint8_t sends[16] = { 0 };
	uint32_t n_send = 0;

	for (uint64_t i = 0; i < o.n; i++) {
		cr_expect_eq(o.flows[i].dst, 3);
		n_send += !sends[o.flows[i].src];
		sends[o.flows[i].src] = 1;
	}
	cr_expect_eq(n_send, 5);
	cr_expect_eq(o.senders, 5);
	cr_expect_eq(sends[3], 0);
	free(o.flows);
	/* all-to-all: each host's flows go to src + 1, src + 2, ... in turn */
	in = ws_in(&c);
	in.pattern = APP_FLOWS_ALL_TO_ALL;
	cr_assert_eq(app_flows_gen(&in, &o, err, sizeof(err)), 0, "%s", err);
	uint32_t k[16] = { 0 };

	for (uint64_t i = 0; i < o.n; i++) {
		const struct app_flow *f = &o.flows[i];

		cr_expect_eq(f->dst, (f->src + 1 + k[f->src] % 15) % 16);
		k[f->src]++;
	}
	free(o.flows);
	/* rack_local 0.3 on 4 racks of 4: about 30 % of the flows stay in their rack (plain uniform: 3 in 15) */
	uint32_t rack[16];

	for (int h = 0; h < 16; h++)
		rack[h] = (uint32_t)h / 4;
	in = ws_in(&c);
	in.rack = rack;
	in.rack_local_ppm = 300000;
	in.stop = 200 * EMU_PS_PER_MS;
	cr_assert_eq(app_flows_gen(&in, &o, err, sizeof(err)), 0, "%s", err);
	uint64_t local = 0;

	for (uint64_t i = 0; i < o.n; i++)
		local += rack[o.flows[i].src] == rack[o.flows[i].dst];
	cr_expect(local * 100 >= o.n * 27 && local * 100 <= o.n * 33, "%llu of %llu flows in their rack",
		  (unsigned long long)local, (unsigned long long)o.n);
	free(o.flows);
	/* bad parameters */
	in = ws_in(&c);
	in.stop = 0;
	cr_expect_eq(app_flows_gen(&in, &o, err, sizeof(err)), -EINVAL);
	in = ws_in(&c);
	in.pattern = APP_FLOWS_INCAST;
	in.receiver = 3;
	in.senders = 16;
	cr_expect_eq(app_flows_gen(&in, &o, err, sizeof(err)), -EINVAL);
}

Test(app_flows, stream_times_exact)
{
	char err[160];
	struct app_flows_out o;
	/* 10 Gb/s of 4,096 B messages: one every 3,276.8 ns, exactly, for 1 ms */
	struct app_stream_in in = { .src = 0, .dst = 1, .size = 4096, .bps = 10000000000ULL, .start = 5 * EMU_PS_PER_US,
				    .stop = 5 * EMU_PS_PER_US + EMU_PS_PER_MS };

	cr_assert_eq(app_stream_gen(&in, &o, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(o.n, 306); /* ceil(1 ms / 3,276.8 ns) */
	for (uint64_t i = 0; i < o.n; i++)
		cr_expect_eq(o.flows[i].start, in.start + i * 32768000 / 10, "message %llu", (unsigned long long)i);
	cr_expect_eq(o.bytes, 306 * 4096);
	free(o.flows);
	/* on/off: 100 us on, 100 us off, at 1,000 messages a second... 1 per ms: take 100,000 pps, one per 10 us */
	in = (struct app_stream_in){ .src = 0, .dst = 1, .size = 100, .pps = 100000, .start = 0,
				     .stop = EMU_PS_PER_MS, .on = 100 * EMU_PS_PER_US, .off = 100 * EMU_PS_PER_US };
	cr_assert_eq(app_stream_gen(&in, &o, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(o.n, 50); /* 5 on periods of 10 messages */
	for (uint64_t i = 0; i < o.n; i++)
		cr_expect_eq(o.flows[i].start, (i / 10) * 200 * EMU_PS_PER_US + (i % 10) * 10 * EMU_PS_PER_US);
	free(o.flows);
	in.pps = 0;
	cr_expect_eq(app_stream_gen(&in, &o, err, sizeof(err)), -EINVAL);
}
