/* scala-switch-buff-stats: each switch port's buffer occupancy per pool against the port's own limits, sampled, one
 * row per port, pool and buffer and interval (switch.ReportPerPortBufferStats). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_rec_pvt.h"

/* The buffers of one port and pool, in row order (the page's buff_id values). */
enum pb_series { PB_EGRESS = 0, PB_INGRESS, PB_HDRM, PB_SERIES };

static const char *const pb_names[PB_SERIES] = { "egressQueue", "ingressUsage", "hdrm" };

struct ctl_swportbuf {
	const struct ctl_swrec *sr;
	struct rec_csv *csv;
	struct ctl_rec_occ (*acc)[SW_POOL_COUNT][PB_SERIES]; /* per port of the run (sr->ports) */
};

/* One row: a buffer of a pool of a switch port, its samples since the last rows. */
struct pb_row {
	const struct ctl_rec_occ *a;
	const char *name, *buff_id, *uldl;
	uint64_t tier, node_id, ifid, pool, limit;
	uint64_t count, min, max;     /* the samples' */
};

/* ivl_mean_bytes (@p arg 0), 3 decimals; ivl_max_pct_util (1), ivl_mean_pct_util (2): 100 x num / den in percent
 * with 9 decimals, clamped at 100 as the page says (a limit of 0 reads 100 once anything is held, else 0). */
static void pb_stat(const void *row, uint32_t arg, struct ctl_rec_val *v)
{
	const struct pb_row *r = row;
	unsigned __int128 num = arg == 1 ? r->a->max : r->a->sum;
	unsigned __int128 den = arg == 0 ? r->a->count : arg == 1 ? r->limit : (unsigned __int128)r->a->count * r->limit;

	if (arg == 0) {
		v->num = num;
		v->den = den;
	} else if (num >= den && num > 0) {
		v->num = 100;
		v->den = 1;
	} else {
		v->num = num * 100u;
		v->den = den;
	}
}

/* The 16 columns of simulation-output-files.md, Per-Port Switch Buffer Statistics, in its order. */
static const struct ctl_rec_col pb_cols[] = {
	CTL_REC_COL_TIME_UTC,
	CTL_REC_COL_SIM_SEC,
	CTL_REC_COL_STR("component_name", struct pb_row, name),
	CTL_REC_COL_U64("tier", struct pb_row, tier),
	CTL_REC_COL_U64("node_id", struct pb_row, node_id),
	CTL_REC_COL_STR("buff_id", struct pb_row, buff_id),
	CTL_REC_COL_U64("ifid", struct pb_row, ifid),
	CTL_REC_COL_STR("uldl", struct pb_row, uldl),
	CTL_REC_COL_U64("pool_num", struct pb_row, pool),
	CTL_REC_COL_U64("buff_limit", struct pb_row, limit),
	CTL_REC_COL_U64("ivl_count", struct pb_row, count),
	CTL_REC_COL_U64("ivl_min_bytes", struct pb_row, min),
	CTL_REC_COL_U64("ivl_max_bytes", struct pb_row, max),
	CTL_REC_COL("ivl_mean_bytes", QUOT, 3, pb_stat, 0),
	CTL_REC_COL("ivl_max_pct_util", QUOT, 9, pb_stat, 1),
	CTL_REC_COL("ivl_mean_pct_util", QUOT, 9, pb_stat, 2),
};
const struct ctl_rec_schema ctl_rec_pb_schema = CTL_REC_SCHEMA("scala-switch-buff-stats", pb_cols);

struct ctl_swportbuf *ctl_swportbuf_open(const struct ctl_config *cfg, const struct ctl_swrec *sr, const char *dir,
					 int64_t epoch_s, char *err, size_t errlen)
{
	struct ctl_swportbuf *b = calloc(1, sizeof(*b));

	if (b == NULL || (b->acc = calloc(sr->n_ports ? sr->n_ports : 1, sizeof(*b->acc))) == NULL) {
		ctl_swportbuf_close(b, err, errlen);
		snprintf(err, errlen, "out of memory opening the records");
		errno = ENOMEM;
		return NULL;
	}
	b->sr = sr;
	b->csv = ctl_rec_schema_open(cfg, dir, &ctl_rec_pb_schema, epoch_s, err, errlen);
	if (b->csv == NULL) {
		int e = errno;
		ctl_swportbuf_close(b, err, errlen);
		errno = e;
		return NULL;
	}
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
	for (uint32_t i = 0; i < b->sr->n_ports; i++) {
		const struct ctl_swport *sp = &b->sr->ports[i];
		const struct sw_buffer *buf = sw_buffer(sp->sw);
		struct sw_port_occ o;

		if (!ctl_swrec_here(b->sr, sp->sw_idx))
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
	const struct ctl_swport *sp = &b->sr->ports[i];
	const struct ctl_rec_occ *a = &b->acc[i][k][x];
	struct pb_row r = {
		.a = a, .name = sw_name(sp->sw), .buff_id = pb_names[x], .uldl = sp->ul ? "ul" : "dl", .tier = sp->tier,
		.node_id = sw_node_id(sp->sw), .ifid = sp->port, .pool = k, .limit = pb_limit(sw_buffer(sp->sw), k, x),
		.count = a->count, .min = a->min, .max = a->max,
	};

	ctl_rec_row(b->csv, &ctl_rec_pb_schema, &r, now);
}

void ctl_swportbuf_rows(struct ctl_swportbuf *b, emu_ps_t now)
{
	if (b == NULL)
		return;
	for (uint32_t i = 0; i < b->sr->n_ports; i++) {
		const struct sw_buffer *buf = sw_buffer(b->sr->ports[i].sw);

		if (!ctl_swrec_here(b->sr, b->sr->ports[i].sw_idx))
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

int ctl_swportbuf_close(struct ctl_swportbuf *b, char *err, size_t errlen)
{
	if (b == NULL)
		return 0;
	int rc = rec_csv_close(b->csv, err, errlen);

	free(b->acc);
	free(b);
	return rc;
}

struct rec_csv *ctl_swportbuf_csv(const struct ctl_swportbuf *b)
{
	return b != NULL ? b->csv : NULL;
}
