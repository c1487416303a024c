/* ecn-pfc-stats: the PFC frames, paused time and ECN marks of each NIC and switch port per traffic class, every
 * NDStatsReportInterval. */
#include <errno.h>
#include <stdlib.h>

#include "ctl_rec_pvt.h"

/* The 24 columns of simulation-output-files.md, ECN/PFC Statistics, in its order. */
#define EP_HEADER \
	"job_id,time_utc,sim_time_sec,node_id,component_name,component_type,ifid,uldl,tier,subtier,priority," \
	"pfcxoff_tx,pfcxoff_rx,pfcxon_tx,pfcxon_rx,pfc_time_paused_usec,interval_total_time_xoff_usec," \
	"interval_max_time_xoff_usec,interval_total_time_xoff_egr_occ_usec,interval_max_time_xoff_egr_occ_usec," \
	"total_xoff_time_egr_occ_usec,percent_xon,xoff_egr_occ_ratio,pkts_ecn_marked"

/*
 * Received data is class 0 (uet-nic-buffers-and-pfc.md, worked example: "Class 0 holds received data and class 1
 * received control packets"), and NIC_C_ECN_CE_RCVD counts data packets only: its row carries the count.
 */
#define EP_DATA_TC 0

struct ctl_pfcstats {
	struct ctl_rec_nics w;        /* first: the NICs, the file, prev (the same array as the typed prev) */
	const char *job_id;              /* the simulation name */
	const struct ctl_swrec *sr;      /* the switches, or NULL */
	emu_ps_t (*prev)[PORT_TC_COUNT];  /* per NIC and class: paused time at the previous rows */
	struct roce *const *roces;       /* Scala RoCE NICs instead, or NULL */
	uint32_t n_roces;
	emu_ps_t (*rprev)[PORT_TC_COUNT]; /* per RoCE NIC and class: paused time at the previous rows */
};

int ctl_pfcstats_set_roce(struct ctl_pfcstats *p, struct roce *const *roces, uint32_t n_roces)
{
	if (p == NULL)
		return 0;
	p->rprev = calloc(n_roces ? n_roces : 1, sizeof(*p->rprev));
	if (p->rprev == NULL)
		return -ENOMEM;
	p->roces = roces;
	p->n_roces = n_roces;
	return 0;
}

struct ctl_pfcstats *ctl_pfcstats_open(const struct ctl_config *cfg, struct nic *const *nics,
				       const struct ctl_swrec *sr, const char *dir, int64_t epoch_s, char *err,
				       size_t errlen)
{
	struct ctl_pfcstats *p = ctl_rec_nics_new(sizeof(*p), sizeof(*p->prev), cfg, nics, dir,
						  "ecn-pfc-stats", EP_HEADER, epoch_s, err, errlen);

	if (p == NULL)
		return NULL;
	p->prev = p->w.prev;
	p->job_id = cfg->sim.simulation_name;
	p->sr = sr;
	return p;
}

/* A row's first columns: job_id, time_utc, sim_time_sec and the comma before the identity columns. */
static FILE *ep_head(struct ctl_pfcstats *p, emu_ps_t now)
{
	FILE *f = rec_csv_file(p->w.csv);

	rec_put_str(f, p->job_id);
	rec_put_ch(f, ',');
	ctl_rec_row_head(p->w.csv, now);
	rec_put_ch(f, ',');
	return f;
}

/*
 * The rest of a row after its identity: class @p tc, the PFC frames, @p paused in all, @p ivl of the @p dt ps
 * since the previous rows, its longest single pause @p longest, and @p ecn marks. A switch keeps no per-pause
 * times, so its rows give the interval's total as the longest (docs/records.md). Both pause on ingress (receive)
 * occupancy only, so the three egress-occupancy columns read 0.
 */
static void ep_tail(FILE *f, uint32_t tc, const uint64_t *xoff_tx, const uint64_t *xoff_rx,
		    const uint64_t *xon_tx, const uint64_t *xon_rx, emu_ps_t paused, emu_ps_t ivl, emu_ps_t longest,
		    emu_ps_t dt, uint64_t ecn)
{
	rec_put_u64(f, tc);
	rec_put_cu64(f, xoff_tx[tc]);
	rec_put_cu64(f, xoff_rx[tc]);
	rec_put_cu64(f, xon_tx[tc]);
	rec_put_cu64(f, xon_rx[tc]);
	rec_put_ch(f, ',');
	ctl_rec_put_fixed(f, paused, 6);
	rec_put_ch(f, ',');
	ctl_rec_put_fixed(f, ivl, 6);
	rec_put_ch(f, ',');
	ctl_rec_put_fixed(f, longest, 6);
	rec_put_str(f, ",0.000000,0.000000,0.000000,");
	ctl_rec_put_quot(f, dt - ivl, 100, dt, 6);
	rec_put_str(f, ",0.000000");
	rec_put_cu64(f, ecn);
	rec_put_ch(f, '\n');
}

/* One row: class @p tc of @p nic, paused @p ivl of the @p dt ps since the previous rows. */
static void ep_row(struct ctl_pfcstats *p, struct nic *nic, uint32_t tc, const struct port_pfc_stats *s,
		   emu_ps_t ivl, emu_ps_t now, emu_ps_t dt)
{
	FILE *f = ep_head(p, now);

	rec_put_u64(f, nic_fep_id(nic));
	rec_put_ch(f, ',');
	rec_put_str(f, nic_name(nic));
	rec_put_str(f, "," CTL_REC_COMPONENT_TYPE ",0,ul,");
	rec_put_i64(f, CTL_REC_TIER_NIC);
	rec_put_cu64(f, CTL_REC_SUBTIER_NONE);
	rec_put_ch(f, ',');
	ep_tail(f, tc, s->xoff_tx, s->xoff_rx, s->xon_tx, s->xon_rx, s->paused_ps[tc], ivl,
		s->ivl_max_pause_ps[tc] < ivl ? s->ivl_max_pause_ps[tc] : ivl, dt,
		tc == EP_DATA_TC ? nic_counters(nic)[NIC_C_ECN_CE_RCVD] : 0);
}

/*
 * Class @p tc of switch port @p sp (stats @p s at @p now). A switch has a row for every port and class, every
 * interval (switch-packet-handling.md, Records a simulation writes), with no wait for a first PFC frame.
 */
static void sw_ep_row(struct ctl_pfcstats *p, const struct ctl_swport *sp, uint32_t tc, const struct sw_port_stats *s,
		      emu_ps_t now, emu_ps_t dt)
{
	emu_ps_t ivl = s->paused_ps[tc] - sp->prev.paused_ps[tc];
	FILE *f = ep_head(p, now);

	if (ivl > dt) /* cannot happen: paused time grows no faster than time */
		ivl = dt;
	rec_put_u64(f, sw_node_id(sp->sw));
	rec_put_ch(f, ',');
	rec_put_str(f, sw_name(sp->sw));
	rec_put_str(f, "," CTL_REC_SW_COMPONENT_TYPE);
	rec_put_cu64(f, sp->port);
	rec_put_str(f, sp->ul ? ",ul" : ",dl");
	rec_put_cu64(f, sp->tier);
	rec_put_cu64(f, CTL_REC_SUBTIER_NONE);
	rec_put_ch(f, ',');
	ep_tail(f, tc, s->xoff_tx, s->xoff_rx, s->xon_tx, s->xon_rx, s->paused_ps[tc], ivl,
		s->ivl_max_pause_ps[tc] < ivl ? s->ivl_max_pause_ps[tc] : ivl, dt, s->ecn_marked[tc]);
}

/* Every switch port's rows, switches in device order, ports then classes in order. */
static void sw_ep_rows(struct ctl_pfcstats *p, emu_ps_t now, emu_ps_t last)
{
	for (uint32_t i = 0; p->sr != NULL && i < p->sr->n_ports; i++) {
		const struct ctl_swport *sp = &p->sr->ports[i];
		struct sw_port_stats s;

		if (!ctl_swrec_here(p->sr, sp->sw_idx))
			continue;

		sw_port_stats(sp->sw, sp->port, &s, now);
		for (uint32_t tc = 0; tc < SW_TC_COUNT; tc++)
			sw_ep_row(p, sp, tc, &s, now, now - last);
	}
}

/* The RoCE NICs' rows: a class with a receive pool, once one of its PFC counters is non-zero (roce buffers page,
 * Records the buffers and PFC write), as the UET NIC's rows. */
static void roce_ep_rows(struct ctl_pfcstats *p, emu_ps_t now, emu_ps_t last)
{
	for (uint32_t i = 0; i < p->n_roces; i++) {
		struct roce *r = p->roces[i];
		struct port_pfc_stats s;
		uint64_t size, occ;

		roce_pfc_stats(r, &s, now);
		for (uint32_t tc = 0; tc < PORT_TC_COUNT; tc++) {
			emu_ps_t ivl = s.paused_ps[tc] - p->rprev[i][tc];

			p->rprev[i][tc] = s.paused_ps[tc];
			if (ivl > now - last)
				ivl = now - last;
			roce_pool(r, false, tc, &size, &occ);
			if (size == 0 || (s.xoff_tx[tc] | s.xon_tx[tc] | s.xoff_rx[tc] | s.xon_rx[tc]) == 0)
				continue;
			FILE *f = ep_head(p, now);

			fprintf(f, "%u,%s,ScalaRoceNic,0,ul,%d,%u,", roce_fep_id(r), roce_name(r), CTL_REC_TIER_NIC,
				CTL_REC_SUBTIER_NONE);
			ep_tail(f, tc, s.xoff_tx, s.xoff_rx, s.xon_tx, s.xon_rx, s.paused_ps[tc], ivl,
				s.ivl_max_pause_ps[tc] < ivl ? s.ivl_max_pause_ps[tc] : ivl, now - last, 0);
		}
		roce_pfc_interval_reset(r, now);
	}
}

void ctl_pfcstats_rows(struct ctl_pfcstats *p, emu_ps_t now, emu_ps_t last)
{
	if (p == NULL)
		return;
	roce_ep_rows(p, now, last);
	for (uint32_t i = 0; i < p->w.n_nics; i++) {
		if (!ctl_rec_nic_here(&p->w, i))
			continue;
		struct nic *nic = p->w.nics[i];
		struct port_pfc_stats s;

		nic_pfc_stats(nic, &s, now);
		for (uint32_t tc = 0; tc < PORT_TC_COUNT; tc++) {
			emu_ps_t ivl = s.paused_ps[tc] - p->prev[i][tc];

			p->prev[i][tc] = s.paused_ps[tc];
			if (ivl > now - last) /* cannot happen: paused time grows no faster than time */
				ivl = now - last;
			/* a class with a receive pool, once one of its counters is non-zero (uet-nic-records.md) */
			if (nic_pool_size(nic, false, tc) == 0 ||
			    (s.xoff_tx[tc] | s.xon_tx[tc] | s.xoff_rx[tc] | s.xon_rx[tc]) == 0)
				continue;
			ep_row(p, nic, tc, &s, ivl, now, now - last);
		}
		nic_pfc_interval_reset(nic, now); /* each row time starts an interval, rows written or not */
	}
	sw_ep_rows(p, now, last);
}

int ctl_pfcstats_close(struct ctl_pfcstats *p, char *err, size_t errlen)
{
	if (p != NULL)
		free(p->rprev);
	return ctl_rec_nics_free(p != NULL ? &p->w : NULL, err, errlen);
}
