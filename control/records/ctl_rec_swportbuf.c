/* scala-switch-buff-stats: each switch port's buffer occupancy per pool against the port's own limits, sampled, one
 * row per port, pool and buffer and interval (switch.ReportPerPortBufferStats). */
#include <string.h>

#include "ctl_rec_pvt.h"

/* The buffers of one port and pool, in row order (the page's buff_id values). */
enum pb_series { PB_EGRESS = 0, PB_INGRESS, PB_HDRM, PB_SERIES };

static const char *const pb_names[PB_SERIES] = { "egressQueue", "ingressUsage", "hdrm" };

struct ctl_swportbuf {
	struct ctl_rec_sws w;                               /* first: the switches, the file, acc */
	struct ctl_rec_occ (*acc)[SW_POOL_COUNT][PB_SERIES]; /* per port of the run (sr->ports) */
};

/* The 16 columns of simulation-output-files.md, Per-Port Switch Buffer Statistics, in its order. */
static const struct ctl_rec_col pb_cols[] = {
	CTL_REC_COLS_SW_BUF,
	CTL_REC_COL_U64("ifid", struct ctl_rec_buf_row, ifid),
	CTL_REC_COL_STR("uldl", struct ctl_rec_buf_row, uldl),
	CTL_REC_COL_U64("pool_num", struct ctl_rec_buf_row, pool),
	CTL_REC_COL_U64("buff_limit", struct ctl_rec_buf_row, limit),
	CTL_REC_BUF_STAT_COLS,
};
const struct ctl_rec_schema ctl_rec_pb_schema = CTL_REC_SCHEMA("scala-switch-buff-stats", pb_cols);

struct ctl_swportbuf *ctl_swportbuf_open(const struct ctl_config *cfg, const struct ctl_swrec *sr, const char *dir,
					 int64_t epoch_s, char *err, size_t errlen)
{
	const size_t mem[CTL_REC_SWS_MEM] = { (sr->n_ports ? sr->n_ports : 1) *
					      sizeof(*((struct ctl_swportbuf *)0)->acc) };
	struct ctl_swportbuf *b = ctl_rec_sws_new(sizeof(*b), mem, cfg, sr, dir, &ctl_rec_pb_schema, epoch_s, err,
						  errlen);

	if (b != NULL)
		b->acc = b->w.mem[0];
	return b;
}

/* Whether pool @p k of @p buf has a headroom series: it carries a lossless class (Shared buffer manager, Stage 1). */
static bool pb_has_hdrm(const struct sw_buffer *buf, uint32_t k)
{
	return buf->pool_pg[k] != 0;
}

void ctl_swportbuf_sample(struct ctl_swportbuf *b)
{
	if (b == NULL)
		return;
	for (uint32_t i = 0; i < b->w.sr->n_ports; i++) {
		const struct ctl_swport *sp = &b->w.sr->ports[i];
		const struct sw_buffer *buf = sw_buffer(sp->sw);
		struct sw_port_occ o;

		if (!ctl_swrec_here(b->w.sr, sp->sw_idx))
			continue;

		sw_port_occ(sp->sw, sp->port, &o);
		for (uint32_t k = 0; k < SW_POOL_COUNT; k++) {
			if (!buf->pool_on[k])
				continue;
			ctl_rec_occ_add(&b->acc[i][k][PB_EGRESS], o.egress[k]);
			ctl_rec_occ_add(&b->acc[i][k][PB_INGRESS], o.ingress[k]);
			if (pb_has_hdrm(buf, k))
				ctl_rec_occ_add(&b->acc[i][k][PB_HDRM], o.headroom[k]);
		}
	}
}

/*
 * buff_limit, "this port and pool's own limit" (docs/records.md): the egress queue limit of the pool with nothing
 * held at egress (the fixed limit; LossyAlpha x the pool under the dynamic form); the Xoff threshold for a pool
 * that carries a lossless class, else the pool's size; HeadRoomPerPortLimit.
 */
static uint64_t pb_limit(const struct sw_buffer *buf, uint32_t k, int x)
{
	switch (x) {
	case PB_EGRESS:
		return sw_buffer_egress_limit(buf, k, 0, false);
	case PB_INGRESS:
		return pb_has_hdrm(buf, k) ? buf->xoff : buf->pool_size[k];
	default:
		return buf->headroom_per_port;
	}
}

/* One row: buffer @p x of pool @p k of run port @p i. */
static void pb_row(struct ctl_swportbuf *b, uint32_t i, uint32_t k, int x, emu_ps_t now)
{
	const struct ctl_swport *sp = &b->w.sr->ports[i];
	const struct ctl_rec_occ *a = &b->acc[i][k][x];
	struct ctl_rec_buf_row r = {
		.a = a, .name = sw_name(sp->sw), .buff_id = pb_names[x], .uldl = sp->ul ? "ul" : "dl", .tier = sp->tier,
		.node_id = sw_node_id(sp->sw), .ifid = sp->port, .pool = k, .limit = pb_limit(sw_buffer(sp->sw), k, x),
		.clamp = true,
	};

	ctl_rec_row(b->w.csv, &ctl_rec_pb_schema, &r, now);
}

void ctl_swportbuf_rows(struct ctl_swportbuf *b, emu_ps_t now)
{
	if (b == NULL)
		return;
	for (uint32_t i = 0; i < b->w.sr->n_ports; i++) {
		const struct sw_buffer *buf = sw_buffer(b->w.sr->ports[i].sw);

		if (!ctl_swrec_here(b->w.sr, b->w.sr->ports[i].sw_idx))
			continue;

		for (uint32_t k = 0; k < SW_POOL_COUNT; k++) {
			if (!buf->pool_on[k])
				continue;
			for (int x = 0; x < PB_SERIES; x++)
				if (x != PB_HDRM || pb_has_hdrm(buf, k))
					pb_row(b, i, k, x, now);
		}
		memset(b->acc[i], 0, sizeof(b->acc[i]));
	}
}

