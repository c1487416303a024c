/* scala-switch-agg-buff-stats: each switch's buffer occupancy per pool, sampled, one row per series and interval. */
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

/*
 * The samples' count, minimum and maximum (@p arg 0, 1, 2), mean (3, 3 decimals), and the maximum and mean in
 * percent of the limit (4, 5, 9 decimals): "utilization (fraction)", which the page's example writes in percent of
 * the pool. scala-switch-buff-stats clamps them at 100 as its page says (a limit of 0 reads 100 once anything is
 * held, else 0).
 */
void ctl_rec_buf_stat(const void *row, uint32_t arg, struct ctl_rec_val *v)
{
	const struct ctl_rec_buf_row *r = row;
	const struct ctl_rec_occ *a = r->a;
	unsigned __int128 num = arg == 4 ? a->max : a->sum;
	unsigned __int128 den = arg == 3 ? a->count : arg == 4 ? r->limit : (unsigned __int128)a->count * r->limit;

	if (arg < 3) {
		v->u = arg == 0 ? a->count : arg == 1 ? a->min : a->max;
	} else if (arg == 3) {
		v->num = num;
		v->den = den;
	} else if (r->clamp && num >= den && num > 0) {
		v->num = 100;
		v->den = 1;
	} else {
		v->num = num * 100u;
		v->den = den;
	}
}

/* The 16 columns of simulation-output-files.md, Switch Buffer Statistics, in its order. total_bytes: the bytes
 * ever charged to the series (ingress: brought in, headroom included; egress: queued). */
static const struct ctl_rec_col sb_cols[] = {
	CTL_REC_COLS_SW_BUF,
	CTL_REC_COL_STR("uldl", struct ctl_rec_buf_row, uldl),
	CTL_REC_COL_U64("pool_num", struct ctl_rec_buf_row, pool),
	CTL_REC_COL_U64("total_bytes", struct ctl_rec_buf_row, total),
	CTL_REC_COL_U64("buffer_limit", struct ctl_rec_buf_row, limit),
	CTL_REC_BUF_STAT_COLS,
};
const struct ctl_rec_schema ctl_rec_sb_schema = CTL_REC_SCHEMA("scala-switch-agg-buff-stats", sb_cols);

struct ctl_swbuf {
	struct ctl_rec_sws w;                               /* first: the switches, the file, the arrays below */
	struct ctl_rec_occ (*acc)[SW_POOL_COUNT][SB_SERIES]; /* per switch */
	uint8_t (*has)[2];                                  /* per switch: it has uplink [0], downlink [1] ports */
	uint8_t *grp;                                       /* per run port (port0 + p): 0 uplink, 1 downlink */
};

struct ctl_swbuf *ctl_swbuf_open(const struct ctl_config *cfg, const struct ctl_swrec *sr, const char *dir,
				 int64_t epoch_s, char *err, size_t errlen)
{
	const size_t mem[CTL_REC_SWS_MEM] = { sr->n_sws * sizeof(*((struct ctl_swbuf *)0)->acc),
					      sr->n_sws * sizeof(*((struct ctl_swbuf *)0)->has),
					      sr->n_ports ? sr->n_ports : 1 };
	struct ctl_swbuf *b = ctl_rec_sws_new(sizeof(*b), mem, cfg, sr, dir, &ctl_rec_sb_schema, epoch_s, err, errlen);

	if (b == NULL)
		return NULL;
	b->acc = b->w.mem[0];
	b->has = b->w.mem[1];
	b->grp = b->w.mem[2];
	for (uint32_t s = 0; s < sr->n_sws; s++)
		for (uint32_t p = 0; p < sw_n_ports(sr->sws[s]); p++) {
			b->has[s][sr->ports[sr->port0[s] + p].ul ? 0 : 1] = 1;
			b->grp[sr->port0[s] + p] = sr->ports[sr->port0[s] + p].ul ? 0 : 1;
		}
	return b;
}

void ctl_swbuf_sample(struct ctl_swbuf *b)
{
	if (b == NULL)
		return;
	const struct ctl_swrec *sr = b->w.sr;

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
	const struct ctl_swrec *sr = b->w.sr;
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
	const struct sw *sw = b->w.sr->sws[s];
	const struct ctl_rec_occ *a = &b->acc[s][k][x];
	struct ctl_rec_buf_row r = {
		.a = a, .name = sw_name(sw), .buff_id = sb_names[x].buff_id, .uldl = sb_names[x].uldl,
		.tier = b->w.sr->ports[b->w.sr->port0[s]].tier, .node_id = sw_node_id(sw), .pool = k,
		.total = sb_total(b, s, k, x), .limit = sw_buffer(sw)->pool_size[k],
	};

	ctl_rec_row(b->w.csv, &ctl_rec_sb_schema, &r, now);
}

void ctl_swbuf_rows(struct ctl_swbuf *b, emu_ps_t now)
{
	if (b == NULL)
		return;
	for (uint32_t s = 0; s < b->w.sr->n_sws; s++) {
		if (!ctl_swrec_here(b->w.sr, s))
			continue;
		for (uint32_t k = 0; k < SW_POOL_COUNT; k++) {
			if (!sw_buffer(b->w.sr->sws[s])->pool_on[k])
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

