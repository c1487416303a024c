/* net-buff-stats: each receive and transmit pool of each NIC, every NetworkBufferStatsReportingInterval. */

#include "ctl_rec_pvt.h"

/* One row: a pool's stats now and at the previous rows, and whose it is. */
struct nb_row {
	struct ctl_rec_cur c;         /* struct port_pool_stats */
	const char *job_id, *name, *buffer_id;
	uint64_t node_id, tc;
	uint64_t dt;                  /* the interval, ps */
};

/* "RX_TC<n>_BUFFER", "TX_TC<n>_BUFFER": [tx][class]. */
#define NB_IDS(d) { d "_TC0_BUFFER", d "_TC1_BUFFER", d "_TC2_BUFFER", d "_TC3_BUFFER", d "_TC4_BUFFER", \
		    d "_TC5_BUFFER", d "_TC6_BUFFER", d "_TC7_BUFFER" }
static const char *const nb_ids[2][PORT_TC_COUNT] = { NB_IDS("RX"), NB_IDS("TX") };
_Static_assert(PORT_TC_COUNT == 8, "nb_ids names 8 classes");

/* enq_Gbps (@p arg 0), deq_Gbps (1): B x 8 / (dt ps x 1e-12) / 1e9. */
static void nb_gbps(const void *row, uint32_t arg, struct ctl_rec_val *v)
{
	const struct nb_row *r = row;
	const struct port_pool_stats *s = r->c.cur, *p = r->c.prev;

	v->num = (unsigned __int128)(arg ? s->deq_bytes - p->deq_bytes : s->enq_bytes - p->enq_bytes) * 8000u;
	v->den = r->dt;
}

static void nb_pct(const void *row, uint32_t arg, struct ctl_rec_val *v)
{
	const struct port_pool_stats *s = ((const struct nb_row *)row)->c.cur;

	(void)arg;
	v->num = (unsigned __int128)s->occupancy * 100u;
	v->den = s->size;
}

/* The 21 columns uet-nic-records.md lists (net-buff-stats), in its order. */
static const struct ctl_rec_col nb_cols[] = {
	CTL_REC_COL_STR("job_id", struct nb_row, job_id),
	CTL_REC_COLS_OPEN(struct nb_row),
	CTL_REC_COL_NODE_ID(struct nb_row),
	CTL_REC_COL_STR("buffer_id", struct nb_row, buffer_id),
	CTL_REC_COL_U64("tc", struct nb_row, tc),
	CTL_REC_COL_CUR("occupancy_B", struct port_pool_stats, occupancy),
	CTL_REC_COL_CUR("max_occupancy_B", struct port_pool_stats, max_occupancy),
	CTL_REC_COL_CUR("buffer_max_size_B", struct port_pool_stats, size),
	CTL_REC_COL_CUR("num_enq", struct port_pool_stats, num_enq),
	CTL_REC_COL_CUR("num_deq", struct port_pool_stats, num_deq),
	CTL_REC_COL_IVL("interval_num_enq", struct port_pool_stats, num_enq),
	CTL_REC_COL_IVL("interval_num_deq", struct port_pool_stats, num_deq),
	CTL_REC_COL_IVL("interval_enq_B", struct port_pool_stats, enq_bytes),
	CTL_REC_COL_IVL("interval_deq_B", struct port_pool_stats, deq_bytes),
	CTL_REC_COL_CUR("interval_max_occupancy_B", struct port_pool_stats, ivl_max_occupancy),
	CTL_REC_COL("enq_Gbps", QUOT, 6, nb_gbps, 0),
	CTL_REC_COL("deq_Gbps", QUOT, 6, nb_gbps, 1),
	CTL_REC_COL_CUR("overflow", struct port_pool_stats, overflow),
	CTL_REC_COL("percent_occupancy", QUOT, 6, nb_pct, 0),
};
const struct ctl_rec_schema ctl_rec_nb_schema = CTL_REC_SCHEMA("net-buff-stats", nb_cols);

/* Pools of one NIC: receive pools of classes 0..7, then transmit pools of classes 0..7. */
#define NB_POOLS (2 * PORT_TC_COUNT)

/* The writer: per host and pool (prev), its stats at the previous rows. */
struct ctl_netbuff {
	struct ctl_rec_nics w;
	const char *job_id;              /* the simulation name */
};

struct ctl_netbuff *ctl_netbuff_open(const struct ctl_config *cfg, const struct port_nic *hosts, const char *dir,
				     int64_t epoch_s, char *err, size_t errlen)
{
	struct ctl_netbuff *b = ctl_rec_nics_new(sizeof(*b), sizeof(struct port_pool_stats[NB_POOLS]), cfg, hosts,
						 dir, &ctl_rec_nb_schema, epoch_s, err, errlen);

	if (b != NULL)
		b->job_id = cfg->sim.simulation_name;
	return b;
}

/* One row: the receive (@p tx false) or transmit pool of class @p tc, over the @p dt ps since the last rows. */
static void nb_row(struct ctl_netbuff *b, const char *name, uint32_t node, bool tx, uint32_t tc,
		   const struct port_pool_stats *s, const struct port_pool_stats *prev, emu_ps_t now, emu_ps_t dt)
{
	struct nb_row r = {
		.c = { s, prev }, .job_id = b->job_id, .name = name, .buffer_id = nb_ids[tx][tc], .node_id = node,
		.tc = tc, .dt = dt,
	};

	ctl_rec_row(b->w.csv, &ctl_rec_nb_schema, &r, now);
}

/* The rows of host @p h: receive pools before transmit pools, each in class order; a class without a pool has no
 * row. @p prev: its NB_POOLS stats at the previous rows, now updated. Both NIC models' pools (uet-nic-records.md;
 * the RoCE NIC's buffers page, Records). */
static void nb_rows(struct ctl_netbuff *b, const struct port_nic *h, struct port_pool_stats *prev, emu_ps_t now,
		    emu_ps_t last)
{
	const char *name = h->ops->name(h->dev);
	uint32_t node = h->ops->fep_id(h->dev);

	for (int k = 0; k < NB_POOLS; k++) {
		bool tx = k >= PORT_TC_COUNT;
		uint32_t tc = (uint32_t)k % PORT_TC_COUNT;
		struct port_pool_stats s;

		h->ops->pool_stats(h->dev, tx, tc, &s);
		if (s.size == 0)
			continue;
		nb_row(b, name, node, tx, tc, &s, &prev[k], now, now - last);
		prev[k] = s;
	}
}

void ctl_netbuff_rows(struct ctl_netbuff *b, emu_ps_t now, emu_ps_t last)
{
	if (b == NULL)
		return;
	struct port_pool_stats (*prev)[NB_POOLS] = b->w.prev;

	for (uint32_t i = 0; i < b->w.n_hosts; i++) {
		if (!ctl_rec_nic_here(&b->w, i))
			continue;
		nb_rows(b, &b->w.hosts[i], prev[i], now, last);
		b->w.hosts[i].ops->pool_interval_reset(b->w.hosts[i].dev);
	}
}
