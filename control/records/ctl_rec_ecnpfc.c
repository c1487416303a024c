/* ecn-pfc-stats: the PFC frames, paused time and ECN marks of each NIC and switch port per traffic class, every
 * NDStatsReportInterval. */

#include "ctl_rec_pvt.h"

/* One row: a port's class, its PFC frames, paused time and marks. */
struct ep_row {
	const char *job_id, *name, *type, *uldl;
	uint64_t node_id, ifid, tier, tc;
	uint64_t xoff_tx, xoff_rx, xon_tx, xon_rx;
	uint64_t paused, ivl, longest; /* ps: in all, in the interval, its longest single pause */
	uint64_t dt;                   /* the interval, ps */
	uint64_t ecn;
};

/* percent_xon: the part of the interval not paused. */
static void ep_xon(const void *row, uint32_t arg, struct ctl_rec_val *v)
{
	const struct ep_row *r = row;

	(void)arg;
	v->num = (unsigned __int128)(r->dt - r->ivl) * 100u;
	v->den = r->dt;
}

/*
 * The 24 columns of simulation-output-files.md, ECN/PFC Statistics, in its order. A switch keeps no per-pause
 * times, so its rows give the interval's total as the longest (docs/records.md). Both pause on ingress (receive)
 * occupancy only, so the three egress-occupancy columns read 0.
 */
static const struct ctl_rec_col ep_cols[] = {
	CTL_REC_COL_STR("job_id", struct ep_row, job_id),
	CTL_REC_COL_TIME_UTC,
	CTL_REC_COL_SIM_SEC,
	CTL_REC_COL_NODE_ID(struct ep_row),
	CTL_REC_COL_STR("component_name", struct ep_row, name),
	CTL_REC_COL_STR("component_type", struct ep_row, type),
	CTL_REC_COL_U64("ifid", struct ep_row, ifid),
	CTL_REC_COL_STR("uldl", struct ep_row, uldl),
	CTL_REC_COL_U64("tier", struct ep_row, tier),
	CTL_REC_COL_CONST("subtier", CTL_REC_SUBTIER_NONE_TEXT),
	CTL_REC_COL_U64("priority", struct ep_row, tc),
	CTL_REC_COL_U64("pfcxoff_tx", struct ep_row, xoff_tx),
	CTL_REC_COL_U64("pfcxoff_rx", struct ep_row, xoff_rx),
	CTL_REC_COL_U64("pfcxon_tx", struct ep_row, xon_tx),
	CTL_REC_COL_U64("pfcxon_rx", struct ep_row, xon_rx),
	CTL_REC_COL_FIXED("pfc_time_paused_usec", 6, struct ep_row, paused),
	CTL_REC_COL_FIXED("interval_total_time_xoff_usec", 6, struct ep_row, ivl),
	CTL_REC_COL_FIXED("interval_max_time_xoff_usec", 6, struct ep_row, longest),
	CTL_REC_COL_CONST("interval_total_time_xoff_egr_occ_usec", "0.000000"),
	CTL_REC_COL_CONST("interval_max_time_xoff_egr_occ_usec", "0.000000"),
	CTL_REC_COL_CONST("total_xoff_time_egr_occ_usec", "0.000000"),
	CTL_REC_COL("percent_xon", QUOT, 6, ep_xon, 0),
	CTL_REC_COL_CONST("xoff_egr_occ_ratio", "0.000000"),
	CTL_REC_COL_U64("pkts_ecn_marked", struct ep_row, ecn),
};
const struct ctl_rec_schema ctl_rec_ep_schema = CTL_REC_SCHEMA("ecn-pfc-stats", ep_cols);

/*
 * Received data is class 0 (uet-nic-buffers-and-pfc.md, worked example: "Class 0 holds received data and class 1
 * received control packets"), and NIC_C_ECN_CE_RCVD counts data packets only: its row carries the count.
 */
#define EP_DATA_TC 0

/* The writer: per host and class (prev), the paused time at the previous rows. */
struct ctl_pfcstats {
	struct ctl_rec_nics w;
	const char *job_id;              /* the simulation name */
	const struct ctl_swrec *sr;      /* the switches, or NULL */
};

struct ctl_pfcstats *ctl_pfcstats_open(const struct ctl_config *cfg, const struct port_nic *hosts,
				       const struct ctl_swrec *sr, const char *dir, int64_t epoch_s, char *err,
				       size_t errlen)
{
	struct ctl_pfcstats *p = ctl_rec_nics_new(sizeof(*p), sizeof(emu_ps_t[PORT_TC_COUNT]), cfg, hosts, dir,
						  &ctl_rec_ep_schema, epoch_s, err, errlen);

	if (p == NULL)
		return NULL;
	p->job_id = cfg->sim.simulation_name;
	p->sr = sr;
	return p;
}

/*
 * Write class @p tc's row of a port named in @p r (its identity columns), of PFC stats @p xoff_tx .. @p xon_rx,
 * @p paused in all, @p ivl of the interval of @p r->dt ps, @p longest the interval's longest single pause.
 */
static void ep_row_write(struct ctl_pfcstats *p, struct ep_row *r, uint32_t tc, const uint64_t *xoff_tx,
			 const uint64_t *xoff_rx, const uint64_t *xon_tx, const uint64_t *xon_rx, emu_ps_t paused,
			 emu_ps_t ivl, emu_ps_t longest, emu_ps_t now)
{
	r->job_id = p->job_id;
	r->tc = tc;
	r->xoff_tx = xoff_tx[tc];
	r->xoff_rx = xoff_rx[tc];
	r->xon_tx = xon_tx[tc];
	r->xon_rx = xon_rx[tc];
	r->paused = paused;
	r->ivl = ivl;
	r->longest = longest < ivl ? longest : ivl;
	ctl_rec_row(p->w.csv, &ctl_rec_ep_schema, r, now);
}

/*
 * The rows of host @p i's NIC, either model (uet-nic-records.md; the RoCE NIC's buffers page, Records the buffers
 * and PFC write): a class with a receive pool, once one of its PFC counters is non-zero, paused @p ivl of the
 * interval since @p last. Its component_type is its model's Scala name. Only the UET NIC counts the CE marks of
 * the data it receives.
 */
static void nic_ep_rows(struct ctl_pfcstats *p, uint32_t i, emu_ps_t now, emu_ps_t last)
{
	const struct port_nic *h = &p->w.hosts[i];
	emu_ps_t (*prev)[PORT_TC_COUNT] = p->w.prev;
	struct port_pfc_stats s;
	struct port_nic_rec nr;

	port_nic_pfc_stats(h, &s, now);
	h->ops->rec_row(h->dev, &nr);
	for (uint32_t tc = 0; tc < PORT_TC_COUNT; tc++) {
		emu_ps_t ivl = s.paused_ps[tc] - prev[i][tc];
		struct port_pool_stats pool;

		prev[i][tc] = s.paused_ps[tc];
		if (ivl > now - last) /* cannot happen: paused time grows no faster than time */
			ivl = now - last;
		h->ops->pool_stats(h->dev, false, tc, &pool);
		if (pool.size == 0 || (s.xoff_tx[tc] | s.xon_tx[tc] | s.xoff_rx[tc] | s.xon_rx[tc]) == 0)
			continue;
		struct ep_row r = {
			.node_id = h->ops->fep_id(h->dev), .name = h->ops->name(h->dev),
			.type = h->ops->json_nic != NULL ? h->ops->json_nic : CTL_REC_COMPONENT_TYPE, .ifid = 0,
			.uldl = "ul", .tier = CTL_REC_TIER_NIC, .dt = now - last,
			.ecn = tc == EP_DATA_TC ? nr.ecn_ce : 0,
		};

		ep_row_write(p, &r, tc, s.xoff_tx, s.xoff_rx, s.xon_tx, s.xon_rx, s.paused_ps[tc], ivl,
			     s.ivl_max_pause_ps[tc], now);
	}
	port_nic_pfc_interval_reset(h, now); /* each row time starts an interval, rows written or not */
}

/*
 * Switch port @p sp's rows (stats @p s at @p now), class by class; @p ctx the interval's struct ep_sw_ctx. A switch
 * has a row for every port and class, every interval (switch-packet-handling.md, Records a simulation writes), with
 * no wait for a first PFC frame.
 */
struct ep_sw_ctx {
	struct ctl_pfcstats *p;
	emu_ps_t dt;
};

static void sw_ep_rows(void *ctx, const struct ctl_swport *sp, uint32_t i, const struct sw_port_stats *s,
		       emu_ps_t now)
{
	const struct ep_sw_ctx *c = ctx;

	(void)i;
	for (uint32_t tc = 0; tc < SW_TC_COUNT; tc++) {
		emu_ps_t ivl = s->paused_ps[tc] - sp->prev->paused_ps[tc];
		struct ep_row r = {
			.node_id = sw_node_id(sp->sw), .name = sw_name(sp->sw), .type = CTL_REC_SW_COMPONENT_TYPE,
			.ifid = sp->port, .uldl = sp->ul ? "ul" : "dl", .tier = sp->tier, .dt = c->dt,
			.ecn = s->ecn_marked[tc],
		};

		if (ivl > c->dt) /* cannot happen: paused time grows no faster than time */
			ivl = c->dt;
		ep_row_write(c->p, &r, tc, s->xoff_tx, s->xoff_rx, s->xon_tx, s->xon_rx, s->paused_ps[tc], ivl,
			     s->ivl_max_pause_ps[tc], now);
	}
}

void ctl_pfcstats_rows(struct ctl_pfcstats *p, emu_ps_t now, emu_ps_t last)
{
	if (p == NULL)
		return;
	for (uint32_t i = 0; i < p->w.n_hosts; i++)
		if (ctl_rec_nic_here(&p->w, i))
			nic_ep_rows(p, i, now, last);
	if (p->sr != NULL)
		ctl_swrec_each_port(p->sr, now, sw_ep_rows, &(struct ep_sw_ctx){ p, now - last });
}
