/* The record schemas (control/records/ctl_rec.h): one column table writes a record's header and its rows, each
 * column in its format (docs/records.md, Declaring a record). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl_rec.h"

struct t_stats {
	uint64_t a, b;
};

struct t_row {
	struct ctl_rec_cur c;         /* struct t_stats */
	const char *name;
	uint64_t n, us_ps;
	int64_t neg;
	const uint32_t *ports;
	uint32_t n_ports;
};

static void t_quot(const void *row, uint32_t arg, struct ctl_rec_val *v)
{
	(void)row;
	v->num = arg ? 0 : 2; /* 2 / 3; 0 / 0 */
	v->den = arg ? 0 : 3;
}

static void t_misc(const void *row, uint32_t arg, struct ctl_rec_val *v)
{
	const struct t_row *r = row;

	switch (arg) {
	case 0:
		v->i = r->neg;
		break;
	case 1:
		v->d = 2.0 / 3.0;
		break;
	case 2:
		v->u = 0x0a000001u; /* 10.0.0.1 */
		v->id = 5;
		break;
	case 3:
		v->list = r->ports;
		v->n = r->n_ports;
		break;
	case 4:
		v->u = 0x15; /* bits 0, 2, 4 */
		v->id = 100;
		break;
	case 5: /* a cell this row leaves empty */
		v->fmt = CTL_REC_F_EMPTY;
		break;
	default: /* this row writes the column otherwise: 0 instead of a fixed-point value */
		v->fmt = CTL_REC_F_U64;
		v->u = 0;
	}
}

static const struct ctl_rec_col t_cols[] = {
	CTL_REC_COL_TIME_UTC,
	CTL_REC_COL_SIM_SEC,
	CTL_REC_COL_STR("component_name", struct t_row, name),
	CTL_REC_COL_CONST("subtier", "4294967295"),
	CTL_REC_COL_U64("n", struct t_row, n),
	CTL_REC_COL_FIXED("t_usec", 6, struct t_row, us_ps),
	CTL_REC_COL_PAIR(a, struct t_stats, a),
	CTL_REC_COL_CUR("b", struct t_stats, b),
	CTL_REC_COL("neg", I64, 0, t_misc, 0),
	CTL_REC_COL("dbl", DBL, 3, t_misc, 1),
	CTL_REC_COL("pdc", PDC, 0, t_misc, 2),
	CTL_REC_COL("ifids", LIST, 0, t_misc, 3),
	CTL_REC_COL("psns", BITS, 0, t_misc, 4),
	CTL_REC_COL("empty", U64, 0, t_misc, 5),
	CTL_REC_COL("other", FIXED, 6, t_misc, 6),
	CTL_REC_COL("third", QUOT, 6, t_quot, 0),
	CTL_REC_COL("none", QUOT, 6, t_quot, 1),
};
static const struct ctl_rec_schema t_schema = CTL_REC_SCHEMA("test-record", t_cols);

#define T_HEADER \
	"time_utc,sim_time_sec,component_name,subtier,n,t_usec,a,ivl_a,b,neg,dbl,pdc,ifids,psns,empty,other,third,none"

Test(ctl_rec, header_is_the_column_names)
{
	char buf[256], small[8];

	cr_assert_eq(ctl_rec_header(&t_schema, buf, sizeof(buf)), strlen(T_HEADER));
	cr_assert_str_eq(buf, T_HEADER);
	/* too small: the length it needs, and an empty string rather than a cut header */
	cr_assert_eq(ctl_rec_header(&t_schema, small, sizeof(small)), strlen(T_HEADER));
	cr_assert_str_eq(small, "");
	cr_assert_eq(ctl_rec_header(&t_schema, NULL, 0), strlen(T_HEADER));
}

Test(ctl_rec, row_writes_each_format)
{
	char dir[] = "/tmp/ctl_rec_XXXXXX", path[64], text[512] = { 0 };
	static const uint32_t ports[] = { 4, 5, 6, 7 };
	struct t_stats now = { 10, 7 }, prev = { 4, 0 };
	struct t_row r = { .c = { &now, &prev }, .name = "host0", .n = 42, .us_ps = 1234567, .neg = -3,
			   .ports = ports, .n_ports = 4 };

	cr_assert_not_null(mkdtemp(dir));
	/* epoch 2026-01-01T00:00:00Z; the row at 3.5 s */
	struct rec_csv *csv = rec_csv_open(dir, "sim", t_schema.record, T_HEADER, 1767225600);

	cr_assert_not_null(csv);
	ctl_rec_row(csv, &t_schema, &r, 3500000000000ull);
	cr_assert_eq(rec_csv_close(csv, NULL, 0), 0);
	snprintf(path, sizeof(path), "%s/sim-test-record-0.csv", dir);
	FILE *f = fopen(path, "r");

	cr_assert_not_null(f);
	cr_assert_gt(fread(text, 1, sizeof(text) - 1, f), 0);
	fclose(f);
	remove(path);
	rmdir(dir);
	cr_assert_str_eq(text, T_HEADER "\n"
			 "2026-01-01T00:00:03Z,3.500000000000,host0,4294967295,42,1.234567,10,6,7,-3,0.667,10.0.0.1:5,"
			 "[4:5:6:7],[100:102:104],,0,0.666667,0.000000\n");
}

Test(ctl_rec, number_formats_into_a_buffer)
{
	static const struct {
		uint64_t v;
		int digits;
		const char *want;
	} cases[] = {
		{ 0, 0, "0" }, { 9, 0, "9" }, { 10, 0, "10" }, { 99, 0, "99" }, { 100, 0, "100" },
		{ 18446744073709551615ull, 0, "18446744073709551615" }, { 0, 3, "0.000" }, { 85845, 3, "85.845" },
		{ 1000000, 6, "1.000000" }, { 18446744073709551615ull, 12, "18446744.073709551615" },
	};
	char buf[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *end = cases[i].digits ? rec_str_fixed(buf, cases[i].v, cases[i].digits)
					    : rec_str_u64(buf, cases[i].v);

		*end = '\0';
		cr_expect_str_eq(buf, cases[i].want, "%llu / 10^%d", (unsigned long long)cases[i].v, cases[i].digits);
	}
	*rec_str_ip(buf, 0xc0a80aff) = '\0';
	cr_expect_str_eq(buf, "192.168.10.255");
}
