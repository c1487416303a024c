/* pcie-stats: each end of each NIC's PCIe link, every NDStatsReportInterval. */

#include "ctl_rec_pvt.h"

/* One row: one end of a NIC's link. */
struct pcie_row {
	const char *name, *side;
	uint64_t node_id, lanes, lane_bps, link_bps;
	uint64_t tlps, bytes, payload, dtlps, dbytes, dpay, dbusy; /* since the start, then in the interval */
	uint64_t dt;                                                /* the interval, ps */
};

/* lane_Gbps (@p arg 0), link_Gbps (1): bit/s as Gb/s, 3 decimals. */
static void pcie_gbps(const void *row, uint32_t arg, struct ctl_rec_val *v)
{
	const struct pcie_row *r = row;

	v->num = arg ? r->link_bps : r->lane_bps;
	v->den = 1000000000u;
}

/* tx_rate_Gbps (@p arg 0), payload_rate_Gbps (1): B x 8 / (dt ps x 1e-12) / 1e9; percent_util (2). */
static void pcie_rate(const void *row, uint32_t arg, struct ctl_rec_val *v)
{
	const struct pcie_row *r = row;

	v->num = arg == 2 ? (unsigned __int128)r->dbusy * 100u : (unsigned __int128)(arg ? r->dpay : r->dbytes) * 8000u;
	v->den = r->dt;
}

/*
 * uet-nic-records.md gives no columns for pcie-stats ("This page does not describe its columns"); these follow
 * nd-stats: names, then totals since the start, the interval's differences, and rates over the interval
 * (docs/records.md, pcie-stats). 17 columns.
 */
static const struct ctl_rec_col pcie_cols[] = {
	CTL_REC_COLS_OPEN(struct pcie_row),
	CTL_REC_COL_NODE_ID(struct pcie_row),
	CTL_REC_COL_STR("side", struct pcie_row, side),
	CTL_REC_COL_U64("lane_count", struct pcie_row, lanes),
	CTL_REC_COL("lane_Gbps", QUOT, 3, pcie_gbps, 0),
	CTL_REC_COL("link_Gbps", QUOT, 3, pcie_gbps, 1),
	CTL_REC_COL_U64("total_tlps", struct pcie_row, tlps),
	CTL_REC_COL_U64("total_bytes", struct pcie_row, bytes),
	CTL_REC_COL_U64("total_payload_bytes", struct pcie_row, payload),
	CTL_REC_COL_U64("interval_tlps", struct pcie_row, dtlps),
	CTL_REC_COL_U64("interval_bytes", struct pcie_row, dbytes),
	CTL_REC_COL_U64("interval_payload_bytes", struct pcie_row, dpay),
	CTL_REC_COL("tx_rate_Gbps", QUOT, 6, pcie_rate, 0),
	CTL_REC_COL("payload_rate_Gbps", QUOT, 6, pcie_rate, 1),
	CTL_REC_COL("percent_util", QUOT, 6, pcie_rate, 2),
};
const struct ctl_rec_schema ctl_rec_pcie_schema = CTL_REC_SCHEMA("pcie-stats", pcie_cols);

/* The writer: per NIC its counters at the previous rows (prev). */
struct ctl_pcie {
	struct ctl_rec_nics w;
	const struct port_pcie_params *side_params[2]; /* NICSide, HostSide: every NIC has the nic section's */
};

struct ctl_pcie *ctl_pcie_open(const struct ctl_config *cfg, const struct port_nic *hosts, const char *dir,
			       int64_t epoch_s, char *err, size_t errlen)
{
	struct ctl_pcie *p = ctl_rec_nics_new(sizeof(*p), sizeof(struct port_pcie_stats), cfg, hosts, dir,
					      &ctl_rec_pcie_schema, epoch_s, err, errlen);

	if (p == NULL)
		return NULL;
	p->side_params[0] = &cfg->nic.pcie_nic;
	p->side_params[1] = &cfg->nic.pcie_host;
	return p;
}

/* One row: end @p side (0 the NIC side, sending NIC-to-host; 1 the host side, sending host-to-NIC). */
static void pcie_row(struct ctl_pcie *p, struct nic *nic, int side, const struct port_pcie_stats *s,
		     const struct port_pcie_stats *prev, emu_ps_t now, emu_ps_t dt)
{
	static const char *const side_name[2] = { "NIC", "Host" };
	const struct port_pcie_params *pp = p->side_params[side];
	struct pcie_row r = {
		.name = nic_name(nic), .side = side_name[side], .node_id = nic_fep_id(nic), .lanes = pp->lane_count,
		.lane_bps = pp->lane_bps, .link_bps = s->bps[side], .tlps = s->tlps[side], .bytes = s->bytes[side],
		.payload = s->payload_bytes[side], .dtlps = s->tlps[side] - prev->tlps[side],
		.dbytes = s->bytes[side] - prev->bytes[side], .dpay = s->payload_bytes[side] - prev->payload_bytes[side],
		.dbusy = s->busy_ps[side] - prev->busy_ps[side], .dt = dt,
	};

	ctl_rec_row(p->w.csv, &ctl_rec_pcie_schema, &r, now);
}

void ctl_pcie_rows(struct ctl_pcie *p, emu_ps_t now, emu_ps_t last)
{
	if (p == NULL)
		return;
	struct port_pcie_stats *prev = p->w.prev;

	for (uint32_t i = 0; i < p->w.n_hosts; i++) {
		struct nic *nic = port_nic_uet(&p->w.hosts[i]); /* the UET NIC's record: other models have no row */

		if (nic == NULL || !ctl_rec_nic_here(&p->w, i))
			continue;
		struct port_pcie_stats s;

		nic_pcie_stats(nic, &s, now);
		for (int side = 0; side < 2; side++)
			pcie_row(p, nic, side, &s, &prev[i], now, now - last);
		prev[i] = s;
	}
}

