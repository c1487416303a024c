/* nd-stats: every NIC port's packets, bytes, rates and drops every NDStatsReportInterval; the switches' ports
 * write their rows into the same file after the NICs' (ctl_rec_swport.c), with the same columns. */
#include <string.h>

#include "ctl_rec_pvt.h"

/* Gb/s of @p bytes over @p dt ps (bits per ps are Tb/s). */
static double gbps(uint64_t bytes, emu_ps_t dt)
{
	return dt ? (double)bytes * 8.0 * 1000.0 / (double)dt : 0.0;
}

/* tx_rate_Gbps (@p arg 0), rx_rate_Gbps (1): exact, or as the NICs' rows have them, a double. */
static void nd_rate(const void *row, uint32_t arg, struct ctl_rec_val *v)
{
	const struct ctl_rec_nd_row *r = row;
	uint64_t bytes = arg ? r->drx : r->dtx;

	if (r->exact) {
		v->fmt = CTL_REC_F_QUOT;
		v->num = (unsigned __int128)bytes * 8000u;
		v->den = r->dt;
	} else {
		v->d = gbps(bytes, r->dt);
	}
}

/* tx_link_percent_util (@p arg 0), rx_ (1): the interval's bytes in percent of what the link could carry
 * (bps x dt / 10^12 bits). */
static void nd_util(const void *row, uint32_t arg, struct ctl_rec_val *v)
{
	const struct ctl_rec_nd_row *r = row;
	uint64_t bytes = arg ? r->drx : r->dtx;
	double link_gbps = (double)r->bps / 1e9;

	if (r->exact) {
		v->fmt = CTL_REC_F_QUOT;
		v->num = (unsigned __int128)bytes * 800u * 1000000000000ull;
		v->den = (unsigned __int128)r->bps * r->dt;
	} else {
		v->d = link_gbps > 0 ? 100.0 * gbps(bytes, r->dt) / link_gbps : 0.0;
	}
}

/* Scala Simulation output files, Network Device Statistics: 22 columns. */
static const struct ctl_rec_col nd_cols[] = {
	CTL_REC_COLS_OPEN(struct ctl_rec_nd_row),
	CTL_REC_COL_STR("nd_name", struct ctl_rec_nd_row, nd_name),
	CTL_REC_COL_STR("component_type", struct ctl_rec_nd_row, type),
	CTL_REC_COL_U64("ifid", struct ctl_rec_nd_row, ifid),
	CTL_REC_COL_STR("uldl", struct ctl_rec_nd_row, uldl),
	CTL_REC_COL_NODE_ID(struct ctl_rec_nd_row),
	CTL_REC_COL_U64("tier", struct ctl_rec_nd_row, tier),
	CTL_REC_COL_U64("subtier", struct ctl_rec_nd_row, subtier),
	CTL_REC_COL_U64("total_packets_tx", struct ctl_rec_nd_row, tx_frames),
	CTL_REC_COL_U64("total_packets_rx", struct ctl_rec_nd_row, rx_frames),
	CTL_REC_COL_FIXED("total_bytes_tx_GB", 9, struct ctl_rec_nd_row, tx_bytes),
	CTL_REC_COL_FIXED("total_bytes_rx_GB", 9, struct ctl_rec_nd_row, rx_bytes),
	CTL_REC_COL_FIXED("interval_bytes_tx_MB", 6, struct ctl_rec_nd_row, dtx),
	CTL_REC_COL_FIXED("interval_bytes_rx_MB", 6, struct ctl_rec_nd_row, drx),
	CTL_REC_COL("tx_rate_Gbps", DBL, 6, nd_rate, 0),
	CTL_REC_COL("rx_rate_Gbps", DBL, 6, nd_rate, 1),
	CTL_REC_COL("tx_link_percent_util", DBL, 6, nd_util, 0),
	CTL_REC_COL("rx_link_percent_util", DBL, 6, nd_util, 1),
	CTL_REC_COL_U64("tx_drops", struct ctl_rec_nd_row, tx_drops),
	CTL_REC_COL_U64("rx_drops", struct ctl_rec_nd_row, rx_drops),
};
const struct ctl_rec_schema ctl_rec_nd_schema = CTL_REC_SCHEMA("nd-stats", nd_cols);

/* The writer: per NIC what its previous rows saw (prev, a struct port_nic_rec). */
struct ctl_ndstats {
	struct ctl_rec_nics w;
};

/* Host @p i's row, either model: the figures its model counts for nd-stats (port_nic_ops.rec_row; the UET NIC's
 * port frames from the Ethernet header on without the FCS, the RoCE NIC's with it), named as its model's page
 * names its net device. */
static void nd_row(struct ctl_ndstats *rc, uint32_t i, emu_ps_t now, emu_ps_t last)
{
	const struct port_nic *h = &rc->w.hosts[i];
	struct port_nic_rec *prev = rc->w.prev, c;

	h->ops->rec_row(h->dev, &c);
	struct ctl_rec_nd_row r = {
		.name = h->ops->name(h->dev), .nd_name = h->ops->nd_component, .type = h->ops->component_type,
		.uldl = "ul", .ifid = 0, .node_id = h->ops->fep_id(h->dev), .tier = CTL_REC_TIER_NIC,
		.subtier = CTL_REC_SUBTIER_NONE, .tx_frames = c.port_tx_frames, .rx_frames = c.port_rx_frames,
		.tx_bytes = c.nd_tx_bytes, .rx_bytes = c.nd_rx_bytes, .dtx = c.nd_tx_bytes - prev[i].nd_tx_bytes,
		.drx = c.nd_rx_bytes - prev[i].nd_rx_bytes, .tx_drops = c.nd_tx_drops, .rx_drops = c.nd_rx_drops,
		.dt = now - last, .bps = h->ops->link_bps(h->dev),
	};

	ctl_rec_row(rc->w.csv, &ctl_rec_nd_schema, &r, now);
	prev[i] = c;
}

struct ctl_ndstats *ctl_ndstats_open(const struct ctl_config *cfg, const struct port_nic *hosts, const char *dir,
				     int64_t epoch_s, char *err, size_t errlen)
{
	return ctl_rec_nics_new(sizeof(struct ctl_ndstats), sizeof(struct port_nic_rec), cfg, hosts, dir,
				&ctl_rec_nd_schema, epoch_s, err, errlen);
}

void ctl_ndstats_rows(struct ctl_ndstats *n, emu_ps_t now, emu_ps_t last)
{
	if (n == NULL)
		return;
	for (uint32_t i = 0; i < n->w.n_hosts; i++)
		if (ctl_rec_nic_here(&n->w, i))
			nd_row(n, i, now, last);
}
