/* bpf/ on the host: the CE marker's virtual queue and marking (ebpf_ecn_step(), the code the BPF program runs under
 * its lock), and the loader's rate parsing and configuration check. No kernel, no libbpf. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "ebpf.h"

/* 8 Gbit/s drains one byte per nanosecond, so times and bytes read alike. */
static struct ebpf_ecn_cfg cfg(void)
{
	return (struct ebpf_ecn_cfg){ .rate_bps = 8000000000ull, .min_bytes = 1000, .max_bytes = 2000,
				      .limit_bytes = 8000, .pmax_ppm = EBPF_PPM, .generation = 1 };
}

Test(ecn_step, nothing_below_min_linear_band_everything_at_max)
{
	struct ebpf_ecn_cfg c = cfg();
	struct ebpf_ecn_state st;

	memset(&st, 0, sizeof(st));
	for (int i = 0; i < 10; i++) /* q after = 100 .. 1000: below min, or at min with probability 0 */
		cr_assert_eq(ebpf_ecn_step(&c, &st, 0, 100, EBPF_ECN_ECT0, 0), 0, "packet %d", i);
	cr_assert_eq(st.vq_bytes, 1000);
	/* q = 1100: p = 0.1; a draw of 0 marks, the largest draw does not */
	cr_assert_eq(ebpf_ecn_step(&c, &st, 0, 100, EBPF_ECN_ECT1, 0), 1);
	cr_assert_eq(ebpf_ecn_step(&c, &st, 0, 100, EBPF_ECN_ECT0, 0xffffffffu), 0); /* q 1200 */
	/* q = 1500: p = 0.5: a draw just under half marks, just over does not */
	cr_assert_eq(ebpf_ecn_step(&c, &st, 0, 300, EBPF_ECN_ECT0, 0x7fff0000u), 1);
	cr_assert_eq(ebpf_ecn_step(&c, &st, 0, 0, EBPF_ECN_ECT0, 0x80010000u), 0);
	/* q >= 2000: always, whatever the draw; Not-ECT never, counted as would-drop; CE left alone */
	cr_assert_eq(ebpf_ecn_step(&c, &st, 0, 500, EBPF_ECN_ECT0, 0xffffffffu), 1);
	cr_assert_eq(ebpf_ecn_step(&c, &st, 0, 100, EBPF_ECN_NOT_ECT, 0), 0);
	cr_assert_eq(ebpf_ecn_step(&c, &st, 0, 100, EBPF_ECN_CE, 0), 0);
	cr_assert_eq(ebpf_ecn_step(&c, &st, 0, 100, EBPF_ECN_OTHER, 0), 0);
	cr_assert_eq(st.vq_bytes, 2300);
	cr_assert_eq(st.packets, 18);
	cr_assert_eq(st.marked, 3);
	cr_assert_eq(st.would_drop, 1);
	cr_assert_eq(st.ce_in, 1);
	cr_assert_eq(st.ect, 16);
	cr_assert_eq(st.not_ect, 1);
	cr_assert_eq(st.ipv4, 17);
	cr_assert_eq(st.vq_peak, 2300);
}

Test(ecn_step, drains_at_the_rate_and_stops_at_the_limit)
{
	struct ebpf_ecn_cfg c = cfg();
	struct ebpf_ecn_state st;

	memset(&st, 0, sizeof(st));
	ebpf_ecn_step(&c, &st, 1000, 1500, EBPF_ECN_NOT_ECT, 0);
	ebpf_ecn_step(&c, &st, 1600, 100, EBPF_ECN_NOT_ECT, 0); /* 600 ns later: 900 left + 100 */
	cr_assert_eq(st.vq_bytes, 1000);
	ebpf_ecn_step(&c, &st, 5000, 100, EBPF_ECN_NOT_ECT, 0); /* long drained: 0 + 100 */
	cr_assert_eq(st.vq_bytes, 100);
	cr_assert_eq(st.vq_peak, 1500);
	ebpf_ecn_step(&c, &st, 5000, 7900, EBPF_ECN_NOT_ECT, 0); /* exactly the limit */
	cr_assert_eq(st.vq_bytes, 8000);
	ebpf_ecn_step(&c, &st, 5000, 1, EBPF_ECN_NOT_ECT, 0); /* over it: not counted in */
	cr_assert_eq(st.vq_bytes, 8000);
	cr_assert_eq(st.overflow, 1);
	/* 1 Mbit/s: 1000 B take 8 ms; a packet every 1 ms keeps the remainder exact (no rounding carried) */
	c.rate_bps = 1000000;
	c.generation = 2; /* re-configured: the queue restarts, the counters go on */
	for (int i = 0; i < 8; i++)
		ebpf_ecn_step(&c, &st, 10000000ull + (unsigned long long)i * 1000000ull, 125, EBPF_ECN_OTHER, 0);
	cr_assert_eq(st.vq_bytes, 125, "125 B drain per ms, 125 B arrive per ms: %llu", (unsigned long long)st.vq_bytes);
	cr_assert_eq(st.vq_peak, 125);
	cr_assert_eq(st.packets, 13);
}

Test(ecn_loader, rates_sizes_and_checks)
{
	char err[256];
	uint64_t r;

	cr_assert_eq(ebpf_parse_rate("1Gbit", &r, err, sizeof(err)), 0);
	cr_assert_eq(r, 1000000000ull);
	cr_assert_eq(ebpf_parse_rate("100mbit", &r, err, sizeof(err)), 0);
	cr_assert_eq(r, 100000000ull);
	cr_assert_eq(ebpf_parse_rate("64kbit", &r, err, sizeof(err)), 0);
	cr_assert_eq(r, 64000);
	cr_assert_eq(ebpf_parse_rate("1000bit", &r, err, sizeof(err)), 0);
	cr_assert_eq(r, 1000);
	cr_assert_eq(ebpf_parse_rate("2.5Gbps", &r, err, sizeof(err)), 0);
	cr_assert_eq(r, 2500000000ull);
	cr_assert_neq(ebpf_parse_rate("999bit", &r, err, sizeof(err)), 0);
	cr_assert_neq(ebpf_parse_rate("fast", &r, err, sizeof(err)), 0);
	cr_assert_neq(ebpf_parse_rate("bit", &r, err, sizeof(err)), 0);

	struct ebpf_ecn_cfg c = cfg();
	cr_assert_eq(ebpf_ecn_cfg_check(&c, err, sizeof(err)), 0);
	c.min_bytes = 2000;
	cr_assert_neq(ebpf_ecn_cfg_check(&c, err, sizeof(err)), 0);
	cr_assert(strstr(err, "--min") != NULL, "%s", err);
	c = cfg();
	c.limit_bytes = EBPF_ECN_LIMIT_MAX + 1;
	cr_assert_neq(ebpf_ecn_cfg_check(&c, err, sizeof(err)), 0);
	c = cfg();
	c.pmax_ppm = EBPF_PPM + 1;
	cr_assert_neq(ebpf_ecn_cfg_check(&c, err, sizeof(err)), 0);
}

static struct ebpf_trim_cfg trim_cfg(void)
{
	return (struct ebpf_trim_cfg){ .rate_bps = 8000000, .min_bytes = 3000, .limit_bytes = 12000, .generation = 1,
				       .uet_port = 4793, .dscp_trimmable = 8, .dscp_trimmed = 16 };
}

/* 1 byte per microsecond: a burst of 1,000 B trimmable packets fills the queue to min, then each is trimmed to
 * 58 B and queued at that; a non-trimmable packet is never trimmed, only stopped at the limit. */
Test(trim_step, trims_above_min_and_queues_the_trimmed_length)
{
	struct ebpf_trim_cfg c = trim_cfg();
	struct ebpf_trim_state st = { 0 };

	for (int i = 0; i < 3; i++)
		cr_assert_eq(ebpf_trim_step(&c, &st, 1000, 1000, 58), 0, "packet %d fits under min", i);
	cr_assert_eq(st.vq_bytes, 3000);
	cr_assert_eq(ebpf_trim_step(&c, &st, 1000, 1000, 58), 1, "the 4th would go above min: trimmed");
	cr_assert_eq(st.vq_bytes, 3058);
	cr_assert_eq(ebpf_trim_step(&c, &st, 1000, 1000, 0), 0, "not trimmable: passes whole");
	cr_assert_eq(st.vq_bytes, 4058);
	cr_assert_eq(st.trimmed, 1);
	cr_assert_eq(st.trimmable, 4);
	cr_assert_eq(st.packets, 5);
	/* 4,058 us later the queue is empty again: the next one fits */
	cr_assert_eq(ebpf_trim_step(&c, &st, 1000 + 4058000, 1000, 58), 0);
	cr_assert_eq(st.vq_bytes, 1000);
	for (int i = 0; i < 20; i++)
		ebpf_trim_step(&c, &st, 1000 + 4058000, 1000, 0);
	cr_assert_eq(st.vq_bytes, 12000, "non-trimmable packets stop at the limit");
	cr_assert_eq(st.overflow, 9);
	cr_assert_eq(ebpf_trim_step(&c, &st, 1000 + 4058000, 1000, 58), 1, "a trimmed one is queued even there");
	c.generation = 2;
	cr_assert_eq(ebpf_trim_step(&c, &st, 1000 + 4058000, 1000, 58), 0, "a new generation starts empty");
	cr_assert_eq(st.vq_bytes, 1000);
}

Test(trim_loader, checks)
{
	struct ebpf_trim_cfg c = trim_cfg();
	char err[256];

	cr_assert_eq(ebpf_trim_cfg_check(&c, err, sizeof(err)), 0);
	c.dscp_trimmed = 8;
	cr_assert_eq(ebpf_trim_cfg_check(&c, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "must differ") != NULL, "%s", err);
	c = trim_cfg();
	c.limit_bytes = 100;
	cr_assert_eq(ebpf_trim_cfg_check(&c, err, sizeof(err)), -EINVAL);
	c = trim_cfg();
	c.rate_bps = 10;
	cr_assert_eq(ebpf_trim_cfg_check(&c, err, sizeof(err)), -EINVAL);
	c = trim_cfg();
	c.dscp_trimmable = 64;
	cr_assert_eq(ebpf_trim_cfg_check(&c, err, sizeof(err)), -EINVAL);
}
