/* Tests of the exact unit parsers: rates, times, sizes, fractions, lists and addresses. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>

#include "emu_time.h"
#include "emu_units.h"

static char err[512];

/* Parse @p s with @p fn and expect success with @p want. */
#define EXPECT_U64(fn, s, want) \
	do { \
		uint64_t v_ = 0; \
		int rc_ = fn((s), &v_, err, sizeof(err)); \
		cr_expect_eq(rc_, 0, "%s(\"%s\") = %d: %s", #fn, (s), rc_, err); \
		cr_expect_eq(v_, (uint64_t)(want), "%s(\"%s\") = %llu", #fn, (s), (unsigned long long)v_); \
	} while (0)

/* Parse @p s with @p fn and expect error @p code with exactly the message @p msg (NULL: any message). */
#define EXPECT_ERR(fn, s, code, msg) \
	do { \
		uint64_t v_ = 0; \
		err[0] = '\0'; \
		int rc_ = fn((s), &v_, err, sizeof(err)); \
		cr_expect_eq(rc_, (code), "%s(\"%s\") = %d, want %d", #fn, (s), rc_, (code)); \
		if ((msg) != NULL) \
			cr_expect_str_eq(err, (const char *)(msg)); \
		else \
			cr_expect_neq(err[0], '\0'); \
	} while (0)

Test(emu_units, datarate_exact_decimal)
{
	/* The PCIe lane rate of the configuration page: 31.52 Gbps, exactly. */
	EXPECT_U64(emu_parse_datarate, "31.52Gbps", 31520000000ULL);
	EXPECT_U64(emu_parse_datarate, "400Gbps", 400000000000ULL);
	EXPECT_U64(emu_parse_datarate, "0.1Gbps", 100000000ULL);
	EXPECT_U64(emu_parse_datarate, "100Mbps", 100000000ULL);
	EXPECT_U64(emu_parse_datarate, "1.6Tbps", 1600000000000ULL);
	EXPECT_U64(emu_parse_datarate, "25 Kbps", 25000ULL);
	EXPECT_U64(emu_parse_datarate, "1e2Gbps", 100000000000ULL);
	EXPECT_U64(emu_parse_datarate, "7bps", 7);
}

Test(emu_units, datarate_refused)
{
	EXPECT_ERR(emu_parse_datarate, "400Gbit", -EINVAL,
		   "bad unit 'Gbit'; a datarate takes bps, Kbps, Mbps, Gbps or Tbps, e.g. 400Gbps");
	EXPECT_ERR(emu_parse_datarate, "0Gbps", -EINVAL, "zero datarate '0Gbps'; it must be above 0, e.g. 400Gbps");
	EXPECT_ERR(emu_parse_datarate, "400", -EINVAL,
		   "missing unit in '400'; a datarate takes bps, Kbps, Mbps, Gbps or Tbps, e.g. 400Gbps");
	EXPECT_ERR(emu_parse_datarate, "-1Gbps", -EINVAL,
		   "negative datarate '-1Gbps'; a datarate takes bps, Kbps, Mbps, Gbps or Tbps, e.g. 400Gbps");
	EXPECT_ERR(emu_parse_datarate, "0.5bps", -EINVAL,
		   "'0.5bps' is not a whole number of bit/s; a datarate takes bps, Kbps, Mbps, Gbps or Tbps, e.g. "
		   "400Gbps");
	EXPECT_ERR(emu_parse_datarate, "fast", -EINVAL,
		   "bad datarate 'fast'; a datarate takes bps, Kbps, Mbps, Gbps or Tbps, e.g. 400Gbps");
	EXPECT_ERR(emu_parse_datarate, "400gbps", -EINVAL, NULL);
	/* 2e7 Tbps = 2e19 bit/s, past UINT64_MAX (1.8e19). */
	EXPECT_ERR(emu_parse_datarate, "20000000Tbps", -ERANGE,
		   "datarate '20000000Tbps' too large; the largest is 18446744073709551615 bit/s");
}

Test(emu_units, timeval_whole_picoseconds)
{
	EXPECT_U64(emu_parse_timeval, "1.55ns", 1550);
	EXPECT_U64(emu_parse_timeval, "100us", 100000000ULL);
	EXPECT_U64(emu_parse_timeval, "150us", 150000000ULL);
	EXPECT_U64(emu_parse_timeval, "100ns", 100000ULL);
	EXPECT_U64(emu_parse_timeval, "4500ns", 4500000ULL);
	EXPECT_U64(emu_parse_timeval, "1ms", 1000000000ULL);
	EXPECT_U64(emu_parse_timeval, "2s", 2000000000000ULL);
	EXPECT_U64(emu_parse_timeval, "7ps", 7);
	EXPECT_U64(emu_parse_timeval, "0", 0);
	EXPECT_U64(emu_parse_timeval, "0.000001us", 1);
	EXPECT_U64(emu_parse_timeval, "1.000000000001s", 1000000000001ULL);
}

Test(emu_units, timeval_refused)
{
	EXPECT_ERR(emu_parse_timeval, "1.5ps", -EINVAL,
		   "'1.5ps' is not a whole number of picoseconds; a time takes ps, ns, us, ms or s, e.g. 100ns");
	EXPECT_ERR(emu_parse_timeval, "0.0000001us", -EINVAL, NULL);
	EXPECT_ERR(emu_parse_timeval, "5", -EINVAL,
		   "missing unit in '5'; a time takes ps, ns, us, ms or s, e.g. 100ns");
	EXPECT_ERR(emu_parse_timeval, "5min", -EINVAL,
		   "bad unit 'min'; a time takes ps, ns, us, ms or s, e.g. 100ns");
	EXPECT_ERR(emu_parse_timeval, "-5us", -EINVAL,
		   "negative time '-5us'; a time takes ps, ns, us, ms or s, e.g. 100ns");
	/* 2e7 s = 2e19 ps, past UINT64_MAX. */
	EXPECT_ERR(emu_parse_timeval, "20000000s", -ERANGE,
		   "time '20000000s' too large; the largest is 18446744073709551615 picoseconds");
	EXPECT_ERR(emu_parse_timeval, "99999999999999999999999999ps", -ERANGE, NULL);
}

Test(emu_units, seconds_bare_number)
{
	/* NDStatsReportInterval: Scala gives it as a double in seconds; 0.001 is the 1 ms default. */
	EXPECT_U64(emu_parse_seconds, "0.001", 1000000000ULL);
	EXPECT_U64(emu_parse_seconds, "1e-3", 1000000000ULL);
	EXPECT_U64(emu_parse_seconds, "1ms", 1000000000ULL);
	EXPECT_U64(emu_parse_seconds, "2", 2000000000000ULL);
	EXPECT_ERR(emu_parse_seconds, "1e-13", -EINVAL, NULL);
}

Test(emu_units, size_units)
{
	/* KB is 1,000 bytes, KiB 1,024 (configuration page, "How to read the tables"). */
	EXPECT_U64(emu_parse_size, "4MB", 4000000ULL);
	EXPECT_U64(emu_parse_size, "4MiB", 4194304ULL);
	EXPECT_U64(emu_parse_size, "256KB", 256000ULL);
	EXPECT_U64(emu_parse_size, "16KB", 16000ULL);
	EXPECT_U64(emu_parse_size, "1.5KiB", 1536ULL);
	EXPECT_U64(emu_parse_size, "2GB", 2000000000ULL);
	EXPECT_U64(emu_parse_size, "1GiB", 1073741824ULL);
	EXPECT_U64(emu_parse_size, "4096", 4096);
	EXPECT_U64(emu_parse_size, "12B", 12);
	EXPECT_U64(emu_parse_size, "0", 0);
}

Test(emu_units, size_refused)
{
	EXPECT_ERR(emu_parse_size, "-5", -EINVAL,
		   "negative size '-5'; a size is a whole number of bytes, e.g. 4096 or 1MiB");
	EXPECT_ERR(emu_parse_size, "1.5B", -EINVAL,
		   "'1.5B' is not a whole number of bytes; a size is a whole number of bytes, e.g. 4096 or 1MiB");
	EXPECT_ERR(emu_parse_size, "1.0001KB", -EINVAL, NULL);
	EXPECT_ERR(emu_parse_size, "4Mb", -EINVAL,
		   "bad unit 'Mb'; a size is a whole number of bytes, e.g. 4096 or 1MiB");
	/* 2^34 GiB = 2^64 bytes: one past UINT64_MAX. */
	EXPECT_ERR(emu_parse_size, "17179869184GiB", -ERANGE, NULL);
	EXPECT_U64(emu_parse_size, "18446744073709551615", UINT64_MAX);
	EXPECT_ERR(emu_parse_size, "18446744073709551616", -ERANGE, NULL);
}

Test(emu_units, uint_whole_only)
{
	EXPECT_U64(emu_parse_uint, "42", 42);
	EXPECT_U64(emu_parse_uint, "1.0", 1);
	EXPECT_U64(emu_parse_uint, "1e3", 1000);
	EXPECT_U64(emu_parse_uint, "18446744073709551615", UINT64_MAX);
	EXPECT_ERR(emu_parse_uint, "1.5", -EINVAL, "'1.5' is not a whole number; a uint is a whole number of 0 or "
		   "more, e.g. 42");
	EXPECT_ERR(emu_parse_uint, "-3", -EINVAL, "negative value '-3'; a uint is a whole number of 0 or more, e.g. 42");
	EXPECT_ERR(emu_parse_uint, "3x", -EINVAL, "bad uint '3x'; a uint is a whole number of 0 or more, e.g. 42");
	EXPECT_ERR(emu_parse_uint, "18446744073709551616", -ERANGE, NULL);
	EXPECT_ERR(emu_parse_uint, "", -EINVAL, NULL);
}

Test(emu_units, double_decimal_only)
{
	double v = 0;

	cr_expect_eq(emu_parse_double("0.15", &v, err, sizeof(err)), 0);
	cr_expect_eq(v, 0.15);
	cr_expect_eq(emu_parse_double("25", &v, err, sizeof(err)), 0);
	cr_expect_eq(v, 25.0);
	cr_expect_eq(emu_parse_double("-1e-3", &v, err, sizeof(err)), 0);
	cr_expect_eq(v, -0.001);
	cr_expect_eq(emu_parse_double("nan", &v, err, sizeof(err)), -EINVAL);
	cr_expect_str_eq(err, "bad number 'nan'; a double is a decimal number, e.g. 0.25");
	cr_expect_eq(emu_parse_double("inf", &v, err, sizeof(err)), -EINVAL);
	cr_expect_eq(emu_parse_double("0x10", &v, err, sizeof(err)), -EINVAL);
	cr_expect_eq(emu_parse_double("1e999", &v, err, sizeof(err)), -ERANGE);
}

Test(emu_units, bool_true_false_only)
{
	bool b = false;

	cr_expect_eq(emu_parse_bool("true", &b, err, sizeof(err)), 0);
	cr_expect(b);
	cr_expect_eq(emu_parse_bool("false", &b, err, sizeof(err)), 0);
	cr_expect(!b);
	cr_expect_eq(emu_parse_bool("yes", &b, err, sizeof(err)), -EINVAL);
	cr_expect_str_eq(err, "bad bool 'yes'; a bool is true or false");
	cr_expect_eq(emu_parse_bool("True", &b, err, sizeof(err)), -EINVAL);
}

Test(emu_units, ppm_exact)
{
	uint32_t v = 0;

	cr_expect_eq(emu_parse_ppm("0.9", &v, err, sizeof(err)), 0);
	cr_expect_eq(v, 900000);
	cr_expect_eq(emu_parse_ppm("0.1", &v, err, sizeof(err)), 0);
	cr_expect_eq(v, 100000);
	cr_expect_eq(emu_parse_ppm("1", &v, err, sizeof(err)), 0);
	cr_expect_eq(v, 1000000);
	cr_expect_eq(emu_parse_ppm("0.0", &v, err, sizeof(err)), 0);
	cr_expect_eq(v, 0);
	cr_expect_eq(emu_parse_ppm("0.1234560", &v, err, sizeof(err)), 0);
	cr_expect_eq(v, 123456);
	cr_expect_eq(emu_parse_ppm("1.5", &v, err, sizeof(err)), -EINVAL);
	cr_expect_str_eq(err, "fraction '1.5' out of range 0 to 1; a fraction is 0.0 to 1.0, e.g. 0.9");
	cr_expect_eq(emu_parse_ppm("-0.1", &v, err, sizeof(err)), -EINVAL);
	cr_expect_eq(emu_parse_ppm("0.1234567", &v, err, sizeof(err)), -EINVAL);
	cr_expect_str_eq(err, "fraction '0.1234567' is finer than 1 ppm; give at most 6 decimal places");
}

Test(emu_units, list_eight_entries)
{
	char items[8][EMU_LIST_ITEM_MAX];
	const char *ex = "[0.9, 0.1, 0, 0, 0, 0, 0, 0]";

	cr_assert_eq(emu_parse_list("[0.9, 0.1, 0, 0, 0, 0, 0, 0]", items, 8, ex, err, sizeof(err)), 0);
	cr_expect_str_eq(items[0], "0.9");
	cr_expect_str_eq(items[1], "0.1");
	cr_expect_str_eq(items[7], "0");
	cr_assert_eq(emu_parse_list(" [1,2,3,4,5,6,7,+8] ", items, 8, ex, err, sizeof(err)), 0);
	cr_expect_str_eq(items[7], "+8");
	cr_expect_eq(emu_parse_list("[0.9, 0.1]", items, 8, ex, err, sizeof(err)), -EINVAL);
	cr_expect_str_eq(err, "list '[0.9, 0.1]' has 2 entries; a list holds 8, e.g. \"[0.9, 0.1, 0, 0, 0, 0, 0, 0]\"");
	cr_expect_eq(emu_parse_list("0.9, 0.1, 0, 0, 0, 0, 0, 0", items, 8, ex, err, sizeof(err)), -EINVAL);
	cr_expect_str_eq(err, "bad list '0.9, 0.1, 0, 0, 0, 0, 0, 0'; a list is 8 entries in brackets, e.g. "
			 "\"[0.9, 0.1, 0, 0, 0, 0, 0, 0]\"");
	cr_expect_eq(emu_parse_list("[1, 2, 3, 4, 5, 6, 7, 8, 9]", items, 8, ex, err, sizeof(err)), -EINVAL);
	cr_expect_eq(emu_parse_list("[]", items, 8, ex, err, sizeof(err)), -EINVAL);
	cr_expect_eq(emu_parse_list("[1, , 3, 4, 5, 6, 7, 8]", items, 8, ex, err, sizeof(err)), -EINVAL);
	cr_expect_str_eq(err, "empty entry 1 in the list; write a value between each comma");
	cr_expect_eq(emu_parse_list("[1, 2 3, 3, 4, 5, 6, 7, 8]", items, 8, ex, err, sizeof(err)), -EINVAL);
	cr_expect_str_eq(err, "entry 1 '2 3' has a ' '; an entry uses letters, digits, '.', '_', '+' or '-'");
}

Test(emu_units, ipv4_and_mac)
{
	uint32_t ip = 0;
	uint8_t mac[6] = { 0 };
	const uint8_t want[6] = { 0x02, 0, 0, 0, 0xab, 0x0C };

	cr_expect_eq(emu_parse_ipv4("10.0.0.1", &ip, err, sizeof(err)), 0);
	cr_expect_eq(ip, 0x0a000001u);
	cr_expect_eq(emu_parse_ipv4("255.255.255.255", &ip, err, sizeof(err)), 0);
	cr_expect_eq(ip, 0xffffffffu);
	cr_expect_eq(emu_parse_ipv4("256.0.0.1", &ip, err, sizeof(err)), -EINVAL);
	cr_expect_str_eq(err, "bad IPv4 address '256.0.0.1'; write four numbers 0 to 255 with dots, e.g. 10.0.0.1");
	cr_expect_eq(emu_parse_ipv4("1.2.3", &ip, err, sizeof(err)), -EINVAL);
	cr_expect_eq(emu_parse_ipv4("1.2.3.4.5", &ip, err, sizeof(err)), -EINVAL);
	cr_expect_eq(emu_parse_ipv4("1.2.3.4 ", &ip, err, sizeof(err)), -EINVAL);
	cr_expect_eq(emu_parse_mac("02:00:00:00:ab:0C", mac, err, sizeof(err)), 0);
	cr_expect_arr_eq(mac, want, 6);
	cr_expect_eq(emu_parse_mac("02:00:00:00:00", mac, err, sizeof(err)), -EINVAL);
	cr_expect_str_eq(err, "bad MAC address '02:00:00:00:00'; write six hex pairs with colons, e.g. "
			 "02:00:00:00:00:01");
	cr_expect_eq(emu_parse_mac("02-00-00-00-00-01", mac, err, sizeof(err)), -EINVAL);
	cr_expect_eq(emu_parse_mac("0g:00:00:00:00:01", mac, err, sizeof(err)), -EINVAL);
}

Test(emu_units, error_buffer_truncated_and_optional)
{
	char small[8];
	uint64_t v;

	cr_expect_eq(emu_parse_size("-5", &v, small, sizeof(small)), -EINVAL);
	cr_expect_str_eq(small, "negativ");
	cr_expect_eq(emu_parse_size("-5", &v, NULL, 0), -EINVAL);
}

/* The checked time arithmetic (emu_time.h): sums and products of input times stay below EMU_PS_MAX (2^63 ps) or
 * are refused with -ERANGE, the output untouched; nothing wraps 2^64. */
Test(emu_time, checked_add_and_mul_refuse_past_the_range)
{
	emu_ps_t v = 7;

	cr_expect_eq(emu_ps_add_checked(1, 2, &v), 0);
	cr_expect_eq(v, 3);
	cr_expect_eq(emu_ps_add_checked(EMU_PS_MAX - 1, 0, &v), 0);
	cr_expect_eq(v, EMU_PS_MAX - 1);
	v = 7;
	cr_expect_eq(emu_ps_add_checked(EMU_PS_MAX - 1, 1, &v), -ERANGE);
	cr_expect_eq(emu_ps_add_checked(UINT64_MAX, 2, &v), -ERANGE, "2^64 + 1 wraps to 1: refused");
	cr_expect_eq(v, 7);
	cr_expect_eq(emu_ps_mul_checked(9223372036854ULL, EMU_PS_PER_US, &v), 0, "the largest us count that fits");
	cr_expect_eq(emu_ps_mul_checked(9223372036855ULL, EMU_PS_PER_US, &v), -ERANGE);
	cr_expect_eq(emu_ps_mul_checked(UINT64_MAX, EMU_PS_PER_US, &v), -ERANGE, "duration_micros 2^64 - 1");
	cr_expect_eq(emu_ps_mul_checked(18446745ULL * 1000000000ULL, EMU_PS_PER_NS, &v), -ERANGE,
		     "frames 18,446,745 s apart, in ns to ps");
	cr_expect_eq(emu_ps_mul_checked(0, UINT64_MAX, &v), 0);
	cr_expect_eq(v, 0);
}
