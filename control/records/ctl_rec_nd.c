/* nd-stats: every NIC port's packets, bytes, rates and drops every NDStatsReportInterval; the switches' ports
 * write their rows into the same file after the NICs' (ctl_rec_swport.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_rec_pvt.h"

/* nd-stats (Scala Simulation output files, Network Device Statistics): 22 columns. */
#define ND_STATS_HEADER \
	"time_utc,sim_time_sec,component_name,nd_name,component_type,ifid,uldl,node_id,tier,subtier," \
	"total_packets_tx,total_packets_rx,total_bytes_tx_GB,total_bytes_rx_GB,interval_bytes_tx_MB," \
	"interval_bytes_rx_MB,tx_rate_Gbps,rx_rate_Gbps,tx_link_percent_util,rx_link_percent_util,tx_drops,rx_drops"
#define ND_NAME "ScalaUETNicNetDevice"

#define ND_NAME_ROCE "ScalaRoceNicNetDevice"
#define ND_TYPE_ROCE "ScalaRoceNic"

struct ctl_ndstats {
	struct ctl_rec_nics w;        /* first: the NICs, the file, prev (the same array as the typed prev) */
	uint64_t (*prev)[NIC_C_COUNT]; /* per NIC: its counters at the previous rows */
	struct roce *const *roces;    /* Scala RoCE NICs instead, or NULL */
	uint32_t n_roces;
	uint64_t (*rprev)[2];         /* per RoCE NIC: tx and rx bytes at the previous rows */
};

/* Gb/s of @p bytes over @p dt ps (bits per ps are Tb/s). */
static double gbps(uint64_t bytes, emu_ps_t dt)
{
	return dt ? (double)bytes * 8.0 * 1000.0 / (double)dt : 0.0;
}

static void nd_row(struct ctl_ndstats *rc, uint32_t i, emu_ps_t now, emu_ps_t last)
{
	struct nic *nic = rc->w.nics[i];
	FILE *f = rec_csv_file(rc->w.csv);
	const uint64_t *c = nic_counters(nic), *p = rc->prev[i];
	uint64_t tx = c[NIC_C_PORT_TX_FRAME_BYTES], rx = c[NIC_C_PORT_RX_FRAME_BYTES];
	uint64_t dtx = tx - p[NIC_C_PORT_TX_FRAME_BYTES], drx = rx - p[NIC_C_PORT_RX_FRAME_BYTES];
	emu_ps_t dt = now - last;
	double link_gbps = (double)nic_link_bps(nic) / 1e9;

	ctl_rec_row_head(rc->w.csv, now);
	rec_put_ch(f, ',');
	rec_put_str(f, nic_name(nic));
	rec_put_str(f, "," ND_NAME "," CTL_REC_COMPONENT_TYPE ",0,ul");
	rec_put_cu64(f, nic_fep_id(nic));
	rec_put_ch(f, ',');
	rec_put_i64(f, CTL_REC_TIER_NIC);
	rec_put_cu64(f, CTL_REC_SUBTIER_NONE);
	rec_put_cu64(f, c[NIC_C_PORT_TX_FRAMES]);
	rec_put_cu64(f, c[NIC_C_PORT_RX_FRAMES]);
	rec_put_ch(f, ',');
	ctl_rec_put_fixed(f, tx, 9);
	rec_put_ch(f, ',');
	ctl_rec_put_fixed(f, rx, 9);
	rec_put_ch(f, ',');
	ctl_rec_put_fixed(f, dtx, 6);
	rec_put_ch(f, ',');
	ctl_rec_put_fixed(f, drx, 6);
	double rtx = gbps(dtx, dt), rrx = gbps(drx, dt);
	fprintf(f, ",%.6f,%.6f,%.6f,%.6f,%llu,%llu\n", rtx, rrx, link_gbps > 0 ? 100.0 * rtx / link_gbps : 0.0,
		link_gbps > 0 ? 100.0 * rrx / link_gbps : 0.0, (unsigned long long)c[NIC_C_DROP_TX_CTL_POOL_FULL],
		(unsigned long long)c[NIC_C_DROP_RX_POOL_FULL]);
}

struct ctl_ndstats *ctl_ndstats_open(const struct ctl_config *cfg, struct nic *const *nics, const char *dir,
				     int64_t epoch_s, char *err, size_t errlen)
{
	struct ctl_ndstats *n = ctl_rec_nics_new(sizeof(*n), sizeof(*n->prev), cfg, nics, dir,
						 "nd-stats", ND_STATS_HEADER, epoch_s, err, errlen);

	if (n == NULL)
		return NULL;
	n->prev = n->w.prev;
	return n;
}

int ctl_ndstats_set_roce(struct ctl_ndstats *n, struct roce *const *roces, uint32_t n_roces)
{
	if (n == NULL)
		return 0;
	n->rprev = calloc(n_roces ? n_roces : 1, sizeof(*n->rprev));
	if (n->rprev == NULL)
		return -ENOMEM;
	n->roces = roces;
	n->n_roces = n_roces;
	return 0;
}

/* A RoCE NIC's row (its buffers page, Records: every frame, Ethernet header and FCS included; rx_drops the
 * receive-pool drops, the data discarded for no queue pair and behind a gap). */
static void nd_roce_row(struct ctl_ndstats *rc, uint32_t i, emu_ps_t now, emu_ps_t last)
{
	struct roce *r = rc->roces[i];
	FILE *f = rec_csv_file(rc->w.csv);
	const uint64_t *c = roce_counters(r);
	uint64_t tx = c[ROCE_C_TX_BYTES], rx = c[ROCE_C_RX_BYTES];
	uint64_t dtx = tx - rc->rprev[i][0], drx = rx - rc->rprev[i][1];
	emu_ps_t dt = now - last;
	double link_gbps = (double)roce_line_bps(r) / 1e9, rtx = gbps(dtx, dt), rrx = gbps(drx, dt);

	ctl_rec_row_head(rc->w.csv, now);
	fprintf(f, ",%s,%s,%s,0,ul,%u,%d,%u,%llu,%llu,", roce_name(r), ND_NAME_ROCE, ND_TYPE_ROCE, roce_fep_id(r),
		CTL_REC_TIER_NIC, CTL_REC_SUBTIER_NONE, (unsigned long long)c[ROCE_C_PORT_TX_FRAMES],
		(unsigned long long)c[ROCE_C_PORT_RX_FRAMES]);
	ctl_rec_put_fixed(f, tx, 9);
	fputc(',', f);
	ctl_rec_put_fixed(f, rx, 9);
	fputc(',', f);
	ctl_rec_put_fixed(f, dtx, 6);
	fputc(',', f);
	ctl_rec_put_fixed(f, drx, 6);
	fprintf(f, ",%.6f,%.6f,%.6f,%.6f,0,%llu\n", rtx, rrx, link_gbps > 0 ? 100.0 * rtx / link_gbps : 0.0,
		link_gbps > 0 ? 100.0 * rrx / link_gbps : 0.0,
		(unsigned long long)(c[ROCE_C_RX_DROPS] + c[ROCE_C_RX_DROPS_NO_QP_DATA] + c[ROCE_C_RX_DROPS_AFTER_NAK]));
	rc->rprev[i][0] = tx;
	rc->rprev[i][1] = rx;
}

void ctl_ndstats_rows(struct ctl_ndstats *n, emu_ps_t now, emu_ps_t last)
{
	if (n == NULL)
		return;
	for (uint32_t i = 0; i < n->n_roces; i++)
		nd_roce_row(n, i, now, last);
	for (uint32_t i = 0; i < n->w.n_nics; i++) {
		if (!ctl_rec_nic_here(&n->w, i))
			continue;
		nd_row(n, i, now, last);
		memcpy(n->prev[i], nic_counters(n->w.nics[i]), sizeof(n->prev[i]));
	}
}

struct rec_csv *ctl_ndstats_csv(const struct ctl_ndstats *n)
{
	return n != NULL ? n->w.csv : NULL;
}

int ctl_ndstats_close(struct ctl_ndstats *n, char *err, size_t errlen)
{
	if (n != NULL)
		free(n->rprev);
	return ctl_rec_nics_free(n != NULL ? &n->w : NULL, err, errlen);
}
