/* net-buff-stats: each receive and transmit pool of each NIC, every NetworkBufferStatsReportingInterval. */
#include <errno.h>
#include <stdlib.h>

#include "ctl_rec_pvt.h"

/* The 21 columns uet-nic-records.md lists (net-buff-stats), in its order. */
#define NB_HEADER \
	"job_id,time_utc,sim_time_sec,component_name,node_id,buffer_id,tc,occupancy_B,max_occupancy_B," \
	"buffer_max_size_B,num_enq,num_deq,interval_num_enq,interval_num_deq,interval_enq_B,interval_deq_B," \
	"interval_max_occupancy_B,enq_Gbps,deq_Gbps,overflow,percent_occupancy"

/* Pools of one NIC: receive pools of classes 0..7, then transmit pools of classes 0..7. */
#define NB_POOLS (2 * PORT_TC_COUNT)

struct ctl_netbuff {
	struct ctl_rec_nics w;        /* first: the NICs, the file, prev (the same array as the typed prev) */
	const char *job_id;              /* the simulation name */
	struct port_pool_stats (*prev)[NB_POOLS]; /* per NIC and pool: its stats at the previous rows */
	struct roce *const *roces;       /* Scala RoCE NICs instead, or NULL */
	uint32_t n_roces;
	struct port_pool_stats (*rprev)[NB_POOLS];
};

int ctl_netbuff_set_roce(struct ctl_netbuff *b, struct roce *const *roces, uint32_t n_roces)
{
	if (b == NULL)
		return 0;
	b->rprev = calloc(n_roces ? n_roces : 1, sizeof(*b->rprev));
	if (b->rprev == NULL)
		return -ENOMEM;
	b->roces = roces;
	b->n_roces = n_roces;
	return 0;
}

struct ctl_netbuff *ctl_netbuff_open(const struct ctl_config *cfg, struct nic *const *nics, const char *dir,
				     int64_t epoch_s, char *err, size_t errlen)
{
	struct ctl_netbuff *b = ctl_rec_nics_new(sizeof(*b), sizeof(*b->prev), cfg, nics, dir,
						 "net-buff-stats", NB_HEADER, epoch_s, err, errlen);

	if (b == NULL)
		return NULL;
	b->prev = b->w.prev;
	b->job_id = cfg->sim.simulation_name;
	return b;
}

/* One row: the receive (@p tx false) or transmit pool of class @p tc, over the @p dt ps since the last rows. */
static void nb_row(struct ctl_netbuff *b, const char *name, uint32_t node, bool tx, uint32_t tc,
		   const struct port_pool_stats *s, const struct port_pool_stats *prev, emu_ps_t now, emu_ps_t dt)
{
	FILE *f = rec_csv_file(b->w.csv);
	uint64_t denq = s->enq_bytes - prev->enq_bytes, ddeq = s->deq_bytes - prev->deq_bytes;

	rec_put_str(f, b->job_id);
	rec_put_ch(f, ',');
	ctl_rec_row_head(b->w.csv, now);
	rec_put_ch(f, ',');
	rec_put_str(f, name);
	rec_put_cu64(f, node);
	rec_put_str(f, tx ? ",TX_TC" : ",RX_TC");
	rec_put_u64(f, tc);
	rec_put_str(f, "_BUFFER");
	rec_put_cu64(f, tc);
	rec_put_cu64(f, s->occupancy);
	rec_put_cu64(f, s->max_occupancy);
	rec_put_cu64(f, s->size);
	rec_put_cu64(f, s->num_enq);
	rec_put_cu64(f, s->num_deq);
	rec_put_cu64(f, s->num_enq - prev->num_enq);
	rec_put_cu64(f, s->num_deq - prev->num_deq);
	rec_put_cu64(f, denq);
	rec_put_cu64(f, ddeq);
	rec_put_cu64(f, s->ivl_max_occupancy);
	rec_put_ch(f, ',');
	ctl_rec_put_quot(f, denq, 8000, dt, 6); /* B x 8 / (dt ps x 1e-12) / 1e9 */
	rec_put_ch(f, ',');
	ctl_rec_put_quot(f, ddeq, 8000, dt, 6);
	rec_put_cu64(f, s->overflow);
	rec_put_ch(f, ',');
	ctl_rec_put_quot(f, s->occupancy, 100, s->size, 6);
	rec_put_ch(f, '\n');
}

/* The RoCE NICs' pools, in the same order: a row for each class with a pool (buffers page, Records). */
static void roce_rows(struct ctl_netbuff *b, emu_ps_t now, emu_ps_t last)
{
	for (uint32_t i = 0; i < b->n_roces; i++) {
		struct roce *r = b->roces[i];

		for (int k = 0; k < NB_POOLS; k++) {
			bool tx = k >= PORT_TC_COUNT;
			uint32_t tc = (uint32_t)k % PORT_TC_COUNT;
			struct port_pool_stats s;

			roce_pool_stats(r, tx, tc, &s);
			if (s.size == 0)
				continue;
			nb_row(b, roce_name(r), roce_fep_id(r), tx, tc, &s, &b->rprev[i][k], now, now - last);
			b->rprev[i][k] = s;
		}
		roce_pool_interval_reset(r);
	}
}

void ctl_netbuff_rows(struct ctl_netbuff *b, emu_ps_t now, emu_ps_t last)
{
	if (b == NULL)
		return;
	roce_rows(b, now, last);
	for (uint32_t i = 0; i < b->w.n_nics; i++) {
		if (!ctl_rec_nic_here(&b->w, i))
			continue;
		struct nic *nic = b->w.nics[i];

		/* receive pools before transmit pools, each in class order; a class without a pool has no row */
		for (int k = 0; k < NB_POOLS; k++) {
			bool tx = k >= PORT_TC_COUNT;
			uint32_t tc = (uint32_t)k % PORT_TC_COUNT;
			struct port_pool_stats s;

			nic_pool_stats(nic, tx, tc, &s);
			if (s.size == 0)
				continue;
			nb_row(b, nic_name(nic), nic_fep_id(nic), tx, tc, &s, &b->prev[i][k], now, now - last);
			b->prev[i][k] = s;
		}
		nic_pool_interval_reset(nic);
	}
}

int ctl_netbuff_close(struct ctl_netbuff *b, char *err, size_t errlen)
{
	if (b != NULL)
		free(b->rprev);
	return ctl_rec_nics_free(b != NULL ? &b->w : NULL, err, errlen);
}
