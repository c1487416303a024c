/* nd-stats: every NIC port's packets, bytes, rates and drops every NDStatsReportInterval; the switches' ports
 * write their rows into the same file after the NICs' (ctl_rec_swport.c), with the same columns. */
#include <string.h>

#include "ctl_rec_pvt.h"

#define ND_NAME "ScalaUETNicNetDevice"
#define ND_NAME_ROCE "ScalaRoceNicNetDevice"
#define ND_TYPE_ROCE "ScalaRoceNic"

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
	CTL_REC_COL_TIME_UTC,
	CTL_REC_COL_SIM_SEC,
	CTL_REC_COL_STR("component_name", struct ctl_rec_nd_row, name),
	CTL_REC_COL_STR("nd_name", struct ctl_rec_nd_row, nd_name),
	CTL_REC_COL_STR("component_type", struct ctl_rec_nd_row, type),
	CTL_REC_COL_U64("ifid", struct ctl_rec_nd_row, ifid),
	CTL_REC_COL_STR("uldl", struct ctl_rec_nd_row, uldl),
	CTL_REC_COL_U64("node_id", struct ctl_rec_nd_row, node_id),
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

/* The writer: per UET NIC its counters at the previous rows (prev), per RoCE NIC its tx and rx bytes (rprev). */
struct ctl_ndstats {
	struct ctl_rec_nics w;
};

static void nd_row(struct ctl_ndstats *rc, uint32_t i, emu_ps_t now, emu_ps_t last)
{
	struct nic *nic = rc->w.nics[i];
	const uint64_t (*prev)[NIC_C_COUNT] = rc->w.prev;
	const uint64_t *c = nic_counters(nic), *p = prev[i];
	struct ctl_rec_nd_row r = {
		.name = nic_name(nic), .nd_name = ND_NAME, .type = CTL_REC_COMPONENT_TYPE, .uldl = "ul", .ifid = 0,
		.node_id = nic_fep_id(nic), .tier = CTL_REC_TIER_NIC, .subtier = CTL_REC_SUBTIER_NONE,
		.tx_frames = c[NIC_C_PORT_TX_FRAMES], .rx_frames = c[NIC_C_PORT_RX_FRAMES],
		.tx_bytes = c[NIC_C_PORT_TX_FRAME_BYTES], .rx_bytes = c[NIC_C_PORT_RX_FRAME_BYTES],
		.dtx = c[NIC_C_PORT_TX_FRAME_BYTES] - p[NIC_C_PORT_TX_FRAME_BYTES],
		.drx = c[NIC_C_PORT_RX_FRAME_BYTES] - p[NIC_C_PORT_RX_FRAME_BYTES],
		.tx_drops = c[NIC_C_DROP_TX_CTL_POOL_FULL], .rx_drops = c[NIC_C_DROP_RX_POOL_FULL],
		.dt = now - last, .bps = nic_link_bps(nic),
	};

	ctl_rec_row(rc->w.csv, &ctl_rec_nd_schema, &r, now);
}

struct ctl_ndstats *ctl_ndstats_open(const struct ctl_config *cfg, struct nic *const *nics, const char *dir,
				     int64_t epoch_s, char *err, size_t errlen)
{
	struct ctl_ndstats *n = ctl_rec_nics_new(sizeof(*n), sizeof(uint64_t[NIC_C_COUNT]), cfg, NULL, nics, dir,
						 &ctl_rec_nd_schema, epoch_s, err, errlen);

	if (n != NULL)
		n->w.rprev_size = sizeof(uint64_t[2]);
	return n;
}

/* A RoCE NIC's row (its buffers page, Records: every frame, Ethernet header and FCS included; rx_drops the
 * receive-pool drops, the data discarded for no queue pair and behind a gap). */
static void nd_roce_row(struct ctl_ndstats *rc, uint32_t i, emu_ps_t now, emu_ps_t last)
{
	struct roce *rn = rc->w.roces[i];
	uint64_t (*rprev)[2] = rc->w.rprev;
	const uint64_t *c = roce_counters(rn);
	struct ctl_rec_nd_row r = {
		.name = roce_name(rn), .nd_name = ND_NAME_ROCE, .type = ND_TYPE_ROCE, .uldl = "ul", .ifid = 0,
		.node_id = roce_fep_id(rn), .tier = CTL_REC_TIER_NIC, .subtier = CTL_REC_SUBTIER_NONE,
		.tx_frames = c[ROCE_C_PORT_TX_FRAMES], .rx_frames = c[ROCE_C_PORT_RX_FRAMES],
		.tx_bytes = c[ROCE_C_TX_BYTES], .rx_bytes = c[ROCE_C_RX_BYTES],
		.dtx = c[ROCE_C_TX_BYTES] - rprev[i][0], .drx = c[ROCE_C_RX_BYTES] - rprev[i][1],
		.tx_drops = 0,
		.rx_drops = c[ROCE_C_RX_DROPS] + c[ROCE_C_RX_DROPS_NO_QP_DATA] + c[ROCE_C_RX_DROPS_AFTER_NAK],
		.dt = now - last, .bps = roce_line_bps(rn),
	};

	ctl_rec_row(rc->w.csv, &ctl_rec_nd_schema, &r, now);
	rprev[i][0] = c[ROCE_C_TX_BYTES];
	rprev[i][1] = c[ROCE_C_RX_BYTES];
}

void ctl_ndstats_rows(struct ctl_ndstats *n, emu_ps_t now, emu_ps_t last)
{
	if (n == NULL)
		return;
	uint64_t (*prev)[NIC_C_COUNT] = n->w.prev;

	for (uint32_t i = 0; i < n->w.n_roces; i++)
		nd_roce_row(n, i, now, last);
	for (uint32_t i = 0; i < n->w.n_nics; i++) {
		if (!ctl_rec_nic_here(&n->w, i))
			continue;
		nd_row(n, i, now, last);
		memcpy(prev[i], nic_counters(n->w.nics[i]), sizeof(prev[i]));
	}
}

