/* scala-switch-agg-buff-stats: each switch's buffer occupancy per pool, sampled, one row per series and interval. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_rec_pvt.h"

/*
 * The series of one pool of one switch, in row order: the egress queues and the ingress occupancy of its uplink
 * and of its downlink ports (summed over the ports), and the shared buffer as a whole (switch-packet-handling.md,
 * Records a simulation writes).
 */
enum sb_series { SB_EG_UL = 0, SB_EG_DL, SB_IN_UL, SB_IN_DL, SB_SHARED, SB_SERIES };

static const struct {
	const char *buff_id, *uldl;
} sb_names[SB_SERIES] = {
	{ "egressQueue", "ul" }, { "egressQueue", "dl" }, { "ingressUsage", "ul" }, { "ingressUsage", "dl" },
	{ "sharedBuffer", "-" },
};

/* One row: a series of a pool of a switch, its samples since the last rows. */
struct sb_row {
	const struct ctl_rec_occ *a;
	const char *name, *buff_id, *uldl;
	uint64_t tier, node_id, pool, total, limit;
	uint64_t count, min, max;     /* the samples' */
};

/* ivl_mean_bytes (@p arg 0), 3 decimals; ivl_max_pct_util (1) and ivl_mean_pct_util (2), 9 decimals:
 * "utilization (fraction)", which the page's example writes in percent of the pool: percent here. */
static void sb_stat(const void *row, uint32_t arg, struct ctl_rec_val *v)
{
	const struct sb_row *r = row;

	v->num = arg == 0 ? r->a->sum : arg == 1 ? (unsigned __int128)r->a->max * 100u : (unsigned __int128)r->a->sum * 100u;
	v->den = arg == 0 ? r->a->count : arg == 1 ? r->limit : (unsigned __int128)r->a->count * r->limit;
}

/* The 16 columns of simulation-output-files.md, Switch Buffer Statistics, in its order. total_bytes: the bytes
 * ever charged to the series (ingress: brought in, headroom included; egress: queued). */
static const struct ctl_rec_col sb_cols[] = {
	CTL_REC_COL_TIME_UTC,
	CTL_REC_COL_SIM_SEC,
	CTL_REC_COL_STR("component_name", struct sb_row, name),
	CTL_REC_COL_U64("tier", struct sb_row, tier),
	CTL_REC_COL_U64("node_id", struct sb_row, node_id),
	CTL_REC_COL_STR("buff_id", struct sb_row, buff_id),
	CTL_REC_COL_STR("uldl", struct sb_row, uldl),
	CTL_REC_COL_U64("pool_num", struct sb_row, pool),
	CTL_REC_COL_U64("total_bytes", struct sb_row, total),
	CTL_REC_COL_U64("buffer_limit", struct sb_row, limit),
	CTL_REC_COL_U64("ivl_count", struct sb_row, count),
	CTL_REC_COL_U64("ivl_min_bytes", struct sb_row, min),
	CTL_REC_COL_U64("ivl_max_bytes", struct sb_row, max),
	CTL_REC_COL("ivl_mean_bytes", QUOT, 3, sb_stat, 0),
	CTL_REC_COL("ivl_max_pct_util", QUOT, 9, sb_stat, 1),
	CTL_REC_COL("ivl_mean_pct_util", QUOT, 9, sb_stat, 2),
};
const struct ctl_rec_schema ctl_rec_sb_schema = CTL_REC_SCHEMA("scala-switch-agg-buff-stats", sb_cols);

struct ctl_swbuf {
	const struct ctl_swrec *sr;
	struct rec_csv *csv;
	struct ctl_rec_occ (*acc)[SW_POOL_COUNT][SB_SERIES]; /* per switch */
	uint8_t (*has)[2];                              /* per switch: it has uplink [0], downlink [1] ports */
	uint8_t *grp;                                   /* per run port (port0 + p): 0 uplink, 1 downlink */
};

struct ctl_swbuf *ctl_swbuf_open(const struct ctl_config *cfg, const struct ctl_swrec *sr, const char *dir,
				 int64_t epoch_s, char *err, size_t errlen)
{
	struct ctl_swbuf *b = calloc(1, sizeof(*b));

	if (b == NULL || (b->acc = calloc(sr->n_sws, sizeof(*b->acc))) == NULL ||
	    (b->has = calloc(sr->n_sws, sizeof(*b->has))) == NULL ||
	    (b->grp = calloc(sr->n_ports ? sr->n_ports : 1, sizeof(*b->grp))) == NULL) {
		ctl_swbuf_close(b, err, errlen);
		snprintf(err, errlen, "out of memory opening the records");
		errno = ENOMEM;
		return NULL;
	}
	b->sr = sr;
	for (uint32_t s = 0; s < sr->n_sws; s++)
		for (uint32_t p = 0; p < sw_n_ports(sr->sws[s]); p++) {
			b->has[s][sr->ports[sr->port0[s] + p].ul ? 0 : 1] = 1;
			b->grp[sr->port0[s] + p] = sr->ports[sr->port0[s] + p].ul ? 0 : 1;
		}
	b->csv = ctl_rec_schema_open(cfg, dir, &ctl_rec_sb_schema, epoch_s, err, errlen);
	if (b->csv == NULL) {
		int e = errno;
		ctl_swbuf_close(b, err, errlen);
		errno = e;
		return NULL;
	}
	return b;
}

void ctl_swbuf_sample(struct ctl_swbuf *b)
{
	if (b == NULL)
		return;
	const struct ctl_swrec *sr = b->sr;

	for (uint32_t s = 0; s < sr->n_sws; s++) {
		const struct sw *sw = sr->sws[s];
		const struct sw_buffer *buf = sw_buffer(sw);

		if (!ctl_swrec_here(sr, s))
			continue;
		uint64_t v[SW_POOL_COUNT][SB_SERIES] = { { 0 } };

		for (uint32_t k = 0; k < SW_POOL_COUNT; k++) { /* only the pools in use have rows */
			uint64_t in[2], eg[2];

			if (!buf->pool_on[k])
				continue;
			sw_pool_group_occ(sw, k, b->grp + sr->port0[s], in, eg, &v[k][SB_SHARED]);
			v[k][SB_EG_UL] = eg[0];
			v[k][SB_EG_DL] = eg[1];
			v[k][SB_IN_UL] = in[0];
			v[k][SB_IN_DL] = in[1];
			for (int x = 0; x < SB_SERIES; x++)
				ctl_rec_occ_add(&b->acc[s][k][x], v[k][x]);
		}
	}
}

/* total_bytes of series @p x of pool @p k of switch @p s: the bytes ever charged to it. */
static uint64_t sb_total(const struct ctl_swbuf *b, uint32_t s, uint32_t k, int x)
{
	const struct ctl_swrec *sr = b->sr;
	const struct sw *sw = sr->sws[s];
	uint64_t sum = 0;

	for (uint32_t p = 0; p < sw_n_ports(sw); p++) {
		struct sw_port_occ o;
		bool ul = sr->ports[sr->port0[s] + p].ul;

		sw_port_occ(sw, p, &o);
		if (x == SB_SHARED || (x == SB_IN_UL && ul) || (x == SB_IN_DL && !ul))
			sum += o.ingress_total[k];
		else if ((x == SB_EG_UL && ul) || (x == SB_EG_DL && !ul))
			sum += o.egress_total[k];
	}
	return sum;
}

/* One row: series @p x of pool @p k of switch @p s. */
static void sb_row(struct ctl_swbuf *b, uint32_t s, uint32_t k, int x, emu_ps_t now)
{
	const struct sw *sw = b->sr->sws[s];
	const struct ctl_rec_occ *a = &b->acc[s][k][x];
	struct sb_row r = {
		.a = a, .name = sw_name(sw), .buff_id = sb_names[x].buff_id, .uldl = sb_names[x].uldl,
		.tier = b->sr->ports[b->sr->port0[s]].tier, .node_id = sw_node_id(sw), .pool = k,
		.total = sb_total(b, s, k, x), .limit = sw_buffer(sw)->pool_size[k], .count = a->count, .min = a->min,
		.max = a->max,
	};

	ctl_rec_row(b->csv, &ctl_rec_sb_schema, &r, now);
}

void ctl_swbuf_rows(struct ctl_swbuf *b, emu_ps_t now)
{
	if (b == NULL)
		return;
	for (uint32_t s = 0; s < b->sr->n_sws; s++) {
		if (!ctl_swrec_here(b->sr, s))
			continue;
		for (uint32_t k = 0; k < SW_POOL_COUNT; k++) {
			if (!sw_buffer(b->sr->sws[s])->pool_on[k])
				continue;
			for (int x = 0; x < SB_SERIES; x++) {
				/* a switch without uplinks (a tor, a spine) has no ul series, one without downlinks no dl */
				bool ul = x == SB_EG_UL || x == SB_IN_UL, dl = x == SB_EG_DL || x == SB_IN_DL;
				if ((ul && !b->has[s][0]) || (dl && !b->has[s][1]))
					continue;
				sb_row(b, s, k, x, now);
			}
		}
		memset(b->acc[s], 0, sizeof(b->acc[s]));
	}
}

int ctl_swbuf_close(struct ctl_swbuf *b, char *err, size_t errlen)
{
	if (b == NULL)
		return 0;
	int rc = rec_csv_close(b->csv, err, errlen);

	free(b->acc);
	free(b->has);
	free(b->grp);
	free(b);
	return rc;
}

struct rec_csv *ctl_swbuf_csv(const struct ctl_swbuf *b)
{
	return b != NULL ? b->csv : NULL;
}
