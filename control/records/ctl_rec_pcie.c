/* pcie-stats: each end of each NIC's PCIe link, every NDStatsReportInterval. */
#include <errno.h>
#include <stdlib.h>

#include "ctl_rec_pvt.h"

/*
 * uet-nic-records.md gives no columns for pcie-stats ("This page does not describe its columns"); these follow
 * nd-stats: names, then totals since the start, the interval's differences, and rates over the interval
 * (docs/records.md, pcie-stats). 17 columns.
 */
#define PCIE_HEADER \
	"time_utc,sim_time_sec,component_name,node_id,side,lane_count,lane_Gbps,link_Gbps,total_tlps,total_bytes," \
	"total_payload_bytes,interval_tlps,interval_bytes,interval_payload_bytes,tx_rate_Gbps,payload_rate_Gbps," \
	"percent_util"

struct ctl_pcie {
	struct ctl_rec_nics w;        /* first: the NICs, the file, prev (the same array as the typed prev) */
	const struct port_pcie_params *side_params[2]; /* NICSide, HostSide: every NIC has the nic section's */
	struct port_pcie_stats *prev;  /* per NIC: its counters at the previous rows */
};

struct ctl_pcie *ctl_pcie_open(const struct ctl_config *cfg, struct nic *const *nics, const char *dir,
			       int64_t epoch_s, char *err, size_t errlen)
{
	struct ctl_pcie *p = ctl_rec_nics_new(sizeof(*p), sizeof(*p->prev), cfg, nics, dir,
					      "pcie-stats", PCIE_HEADER, epoch_s, err, errlen);

	if (p == NULL)
		return NULL;
	p->prev = p->w.prev;
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
	FILE *f = rec_csv_file(p->w.csv);
	uint64_t dtlps = s->tlps[side] - prev->tlps[side], dbytes = s->bytes[side] - prev->bytes[side];
	uint64_t dpay = s->payload_bytes[side] - prev->payload_bytes[side];

	ctl_rec_row_head(p->w.csv, now);
	rec_put_ch(f, ',');
	rec_put_str(f, nic_name(nic));
	rec_put_cu64(f, nic_fep_id(nic));
	rec_put_ch(f, ',');
	rec_put_str(f, side_name[side]);
	rec_put_cu64(f, pp->lane_count);
	rec_put_ch(f, ',');
	ctl_rec_put_quot(f, pp->lane_bps, 1, 1000000000u, 3);
	rec_put_ch(f, ',');
	ctl_rec_put_quot(f, s->bps[side], 1, 1000000000u, 3);
	rec_put_cu64(f, s->tlps[side]);
	rec_put_cu64(f, s->bytes[side]);
	rec_put_cu64(f, s->payload_bytes[side]);
	rec_put_cu64(f, dtlps);
	rec_put_cu64(f, dbytes);
	rec_put_cu64(f, dpay);
	rec_put_ch(f, ',');
	ctl_rec_put_quot(f, dbytes, 8000, dt, 6); /* B x 8 / (dt ps x 1e-12) / 1e9 */
	rec_put_ch(f, ',');
	ctl_rec_put_quot(f, dpay, 8000, dt, 6);
	rec_put_ch(f, ',');
	ctl_rec_put_quot(f, s->busy_ps[side] - prev->busy_ps[side], 100, dt, 6);
	rec_put_ch(f, '\n');
}

void ctl_pcie_rows(struct ctl_pcie *p, emu_ps_t now, emu_ps_t last)
{
	if (p == NULL)
		return;
	for (uint32_t i = 0; i < p->w.n_nics; i++) {
		if (!ctl_rec_nic_here(&p->w, i))
			continue;
		struct port_pcie_stats s;

		nic_pcie_stats(p->w.nics[i], &s, now);
		for (int side = 0; side < 2; side++)
			pcie_row(p, p->w.nics[i], side, &s, &p->prev[i], now, now - last);
		p->prev[i] = s;
	}
}

int ctl_pcie_close(struct ctl_pcie *p, char *err, size_t errlen)
{
	return ctl_rec_nics_free(p != NULL ? &p->w : NULL, err, errlen);
}
