/* Inside the records room: the writers ctl_records.c schedules, one file per record (ctl_rec_<record>.c). */
#ifndef CTL_REC_PVT_H
#define CTL_REC_PVT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ctl_config.h"
#include "ctl_rec.h"
#include "net_topo.h"
#include "nic.h"
#include "port_nic.h"
#include "roce.h"
#include "rec.h"
#include "sw.h"

/* Columns the NIC's port rows share (nd-stats, ecn-pfc-stats: simulation-output-files.md). */
#define CTL_REC_COMPONENT_TYPE "ScalaUETNic"
#define CTL_REC_TIER_NIC 3
#define CTL_REC_SUBTIER_NONE 4294967295u
#define CTL_REC_SUBTIER_NONE_TEXT "4294967295"

/* Each record's columns (its writer's file): the records' listing (ctl_records_columns()) reads them too. */
extern const struct ctl_rec_schema ctl_rec_ts_schema, ctl_rec_rt_schema, ctl_rec_rate_schema, ctl_rec_ep_schema,
	ctl_rec_pcie_schema, ctl_rec_nb_schema, ctl_rec_mon_schema, ctl_rec_ev_schema, ctl_rec_trim_schema,
	ctl_rec_sb_schema, ctl_rec_pb_schema, ctl_rec_lb_schema;

struct ctl_transport;

/*
 * The per-NIC records: each writer starts with its struct ctl_rec_nics (ctl_rec.h), so ctl_rec_nics_csv() gives
 * its file and ctl_rec_nics_free() closes it. Each open takes @p hosts, every host's NIC through its model's ops
 * (port_nic.h), cfg->n_hosts of them, index = FEP id, which must outlive it.
 */

/** uet-transport-stats (ctl_rec_transport.c), every NDStatsReportInterval. Open returns NULL with errno set and a
 *  message in @p err. Rows: every UET NIC's row of time @p now (port_nic_uet()), then the NICs' sample intervals
 *  restart. NULL is accepted by rows. */
struct ctl_transport *ctl_transport_open(const struct ctl_config *cfg, const struct port_nic *hosts,
					 const char *dir, int64_t epoch_s, char *err, size_t errlen);
void ctl_transport_rows(struct ctl_transport *t, emu_ps_t now);

struct ctl_roce_rec;

/** The Scala RoCE NICs' own records (ctl_rec_roce.c): roce-transport-stats (EnableRoceTransportStats; the rows of
 *  the hosts port_nic_roce() gives a RoCE NIC) and roce-rate-events. Open returns NULL with errno and @p err;
 *  rows, rate and close accept NULL. */
struct ctl_roce_rec *ctl_roce_rec_open(const struct ctl_config *cfg, const struct port_nic *hosts,
				       const char *dir, int64_t epoch_s, char *err, size_t errlen);
void ctl_roce_rec_rows(struct ctl_roce_rec *t, emu_ps_t now);
void ctl_roce_rec_rate(struct ctl_roce_rec *t, uint32_t fep_id, uint32_t qpn, uint64_t bps, emu_ps_t now);
int ctl_roce_rec_close(struct ctl_roce_rec *t, char *err, size_t errlen);

struct ctl_ndstats;

/** nd-stats (ctl_rec_nd.c), every NDStatsReportInterval: the NICs' rows of time @p now over (last, now], either
 *  model. The switches' ports write into its file (ctl_rec_nics_csv()). NULL accepted by rows. */
struct ctl_ndstats *ctl_ndstats_open(const struct ctl_config *cfg, const struct port_nic *hosts, const char *dir,
				     int64_t epoch_s, char *err, size_t errlen);
void ctl_ndstats_rows(struct ctl_ndstats *n, emu_ps_t now, emu_ps_t last);

struct ctl_monitor;

/**
 * Open DIR/<SimulationName>-uet-monitor-0.csv with the filters, triggers and budget of cfg->nic's ScalaUETMonitor
 * section. Returns NULL with errno set (ENOMEM, a file error, EINVAL for a filter that does not parse) and a
 * message in @p err.
 */
struct ctl_monitor *ctl_monitor_open(const struct ctl_config *cfg, const char *dir, char *err, size_t errlen);

/** Write @p tr as a row if the filters or triggers select its connection (uet-nic-records.md, uet-monitor). */
void ctl_monitor_trace(struct ctl_monitor *m, const struct nic_trace *tr);

/** Flush, close and free. Accepts NULL. Returns 0 or -EIO. */
int ctl_monitor_close(struct ctl_monitor *m, char *err, size_t errlen);

/*
 * The three periodic records below (docs/records.md). Each open takes @p hosts (as above; pcie-stats writes the
 * UET NICs' rows only, port_nic_uet()) and returns the record or NULL with errno set (ENOMEM or a file error) and
 * a message in @p err. Each rows call writes the rows of time @p now, NICs in FEP id order; @p last is the time
 * of the record's previous rows (0 before the first), so an interval value covers (last, now].
 */
struct ctl_pfcstats;
struct ctl_swrec;

/** ecn-pfc-stats, every NDStatsReportInterval (ctl_rec_ecnpfc.c): the hosts' NICs' rows, then @p sr's switch
 *  ports' (@p sr may be NULL: no switch). */
struct ctl_pfcstats *ctl_pfcstats_open(const struct ctl_config *cfg, const struct port_nic *hosts,
				       const struct ctl_swrec *sr, const char *dir, int64_t epoch_s, char *err,
				       size_t errlen);
void ctl_pfcstats_rows(struct ctl_pfcstats *p, emu_ps_t now, emu_ps_t last);

struct ctl_pcie;

/** pcie-stats, every NDStatsReportInterval (ctl_pcie.c). */
struct ctl_pcie *ctl_pcie_open(const struct ctl_config *cfg, const struct port_nic *hosts, const char *dir,
			       int64_t epoch_s, char *err, size_t errlen);
void ctl_pcie_rows(struct ctl_pcie *p, emu_ps_t now, emu_ps_t last);

struct ctl_netbuff;

/** net-buff-stats, every NetworkBufferStatsReportingInterval (ctl_rec_netbuff.c): the hosts' NICs' pools; rows
 *  restart the pool intervals. */
struct ctl_netbuff *ctl_netbuff_open(const struct ctl_config *cfg, const struct port_nic *hosts, const char *dir,
				     int64_t epoch_s, char *err, size_t errlen);
void ctl_netbuff_rows(struct ctl_netbuff *b, emu_ps_t now, emu_ps_t last);

/*
 * The switches' records (docs/records.md, Switch records): their ports' nd-stats and ecn-pfc-stats rows, written
 * into the NICs' files after the NICs' rows of each time, and the switch-only records. Ports are numbered over the
 * run: the switches in device order, each switch's ports in port order.
 */
#define CTL_REC_SW_COMPONENT_TYPE "Switch"
/* The columns a switch port's records open with (trimming-stats, scala-switch-load-balancing-stats): as most
 * records, then component_type, node_id, tier, subtier and ifid, from the row struct @p type's fields. */
#define CTL_REC_COLS_SW_PORT(type) \
	CTL_REC_COLS_OPEN(type), CTL_REC_COL_CONST("component_type", CTL_REC_SW_COMPONENT_TYPE), \
	CTL_REC_COL_NODE_ID(type), CTL_REC_COL_U64("tier", type, tier), \
	CTL_REC_COL_CONST("subtier", CTL_REC_SUBTIER_NONE_TEXT), CTL_REC_COL_U64("ifid", type, ifid)
#define CTL_REC_SW_ND_NAME "scala_switch::ScalaSwitchEthNetDevice"

/* One switch port as the records name it. */
struct ctl_swport {
	const struct sw *sw;
	uint32_t sw_idx;              /* its index in the switches (ctl_swrec.sws), which may be changed */
	uint32_t port;                /* ifid */
	uint8_t tier;                 /* Scala tier (0 spine, 1 fabric, 2 rack: ctl_swrec_tier()) */
	bool ul;                      /* faces up (uldl "ul"); ports 0 .. n_down - 1 face down ("dl") */
	uint64_t bps;                 /* its link's rate */
	/* at the previous NDStatsReportInterval rows (zeros before the first): its entry of ctl_swrec.prev, an array
	 * apart whose pages an MPI rank touches only for its own switches' ports (the others' stay unmapped zeros) */
	struct sw_port_stats *prev;
	uint64_t prev_eg_pkts;        /* packets admitted to its egress queues, at the previous rows */
};

/* The switches of a run and the records written per switch port every NDStatsReportInterval. */
struct ctl_swrec {
	struct sw *const *sws;
	uint32_t n_sws;
	const struct net_topo *topo;
	struct ctl_swport *ports;     /* every switch's ports */
	struct sw_port_stats *prev;   /* [n_ports], each port's ctl_swport.prev */
	uint32_t n_ports;
	uint32_t *port0;              /* per switch: its first entry in ports */
	uint64_t *eg_pkts;            /* scratch: per port, packets admitted to its egress queues now */
	const uint8_t *local;         /* MPI: per switch, whether this rank runs it (rows for those only); NULL: all */
	struct rec_csv *trim;         /* trimming-stats, or NULL */
};

/** Whether @p sr writes switch @p s's rows: every switch's, or under MPI this rank's only. */
static inline bool ctl_swrec_here(const struct ctl_swrec *sr, uint32_t s)
{
	return sr->local == NULL || sr->local[s];
}

/**
 * The Scala tier of device @p dev of @p t (simulation-output-files.md, Network Tiers: 0 spine, 1 fabric, 2 rack,
 * 3 NIC): a host 3; a tor or leaf (uetemu tier 1) 2; the top switch tier of a leaf-spine or fat tree (spine,
 * core) 0; a fat tree's agg 1.
 */
uint8_t ctl_swrec_tier(const struct net_topo *t, uint32_t dev);

/**
 * Describe every port of the @p n_sws switches @p sws of @p topo (both must outlive it) and open trimming-stats
 * when cfg->sw turns it on. Returns NULL for no switch (@p n_sws 0 or @p topo NULL: *@p err untouched, errno 0),
 * or NULL with errno set (ENOMEM or a file error) and a message in @p err.
 */
struct ctl_swrec *ctl_swrec_open(const struct ctl_config *cfg, struct sw *const *sws, uint32_t n_sws,
				 const struct net_topo *topo, const char *dir, int64_t epoch_s, char *err,
				 size_t errlen);

/** A switch port's rows: port @p sp (sr->ports[@p i]), its stats @p s at @p now; @p ctx the caller's. */
typedef void (*ctl_swport_rows_fn)(void *ctx, const struct ctl_swport *sp, uint32_t i, const struct sw_port_stats *s,
				   emu_ps_t now);

/** Call @p fn for every port whose rows @p sr writes (ctl_swrec_here()), switches in device order, each switch's
 *  ports in order, with its stats at @p now. */
void ctl_swrec_each_port(const struct ctl_swrec *sr, emu_ps_t now, ctl_swport_rows_fn fn, void *ctx);

/** nd-stats rows of every switch port at @p now into @p nd (the NICs' file), over (last, now]. NULL accepted. */
void ctl_swrec_nd_rows(struct ctl_swrec *sr, struct rec_csv *nd, emu_ps_t now, emu_ps_t last);

/** trimming-stats rows at @p now, when open. NULL accepted. */
void ctl_swrec_trim_rows(struct ctl_swrec *sr, emu_ps_t now);

/** The NDStatsReportInterval rows of @p now are written: the ports' interval values restart. NULL accepted. */
void ctl_swrec_rows_done(struct ctl_swrec *sr, emu_ps_t now);

/** Close trimming-stats and free. NULL accepted. Returns 0 or -EIO. */
int ctl_swrec_close(struct ctl_swrec *sr, char *err, size_t errlen);

/*
 * What every switch-only record keeps (scala-switch-agg-buff-stats, scala-switch-buff-stats,
 * scala-switch-load-balancing-stats): the switches, its file and its arrays. A writer's struct has it as its FIRST
 * member; ctl_rec_sws_new() and ctl_rec_sws_free() make and free the whole writer.
 */
#define CTL_REC_SWS_MEM 3
struct ctl_rec_sws {
	const struct ctl_swrec *sr;
	struct rec_csv *csv;
	void *mem[CTL_REC_SWS_MEM];   /* the writer's arrays, zeroed */
};

/**
 * Allocate a zeroed writer of @p size bytes whose first member is a struct ctl_rec_sws, its arrays of @p mem
 * (CTL_REC_SWS_MEM sizes in bytes, 0 for none) and open its record of schema @p s for the switches @p sr. Returns
 * the writer, or NULL with errno set and a message in @p err (nothing left open or allocated).
 */
void *ctl_rec_sws_new(size_t size, const size_t *mem, const struct ctl_config *cfg, const struct ctl_swrec *sr,
		      const char *dir, const struct ctl_rec_schema *s, int64_t epoch_s, char *err, size_t errlen);

/** The file of @p writer (a switch-only writer), or NULL for NULL. */
struct rec_csv *ctl_rec_sws_csv(const void *writer);

/** Flush and close the file of @p writer and free its arrays and itself. Accepts NULL. 0 or -errno (in @p err). */
int ctl_rec_sws_free(void *writer, char *err, size_t errlen);

/* The occupancy samples of one buffer series since its last row (the switch buffer records). */
struct ctl_rec_occ {
	uint64_t count, min, max, sum;
};

/** Add the sample @p v (bytes) to @p a. */
static inline void ctl_rec_occ_add(struct ctl_rec_occ *a, uint64_t v)
{
	if (a->count == 0 || v < a->min)
		a->min = v;
	if (v > a->max)
		a->max = v;
	a->sum += v;
	a->count++;
}

/* A row of the switch buffer records (scala-switch-agg-buff-stats, scala-switch-buff-stats): one buffer's
 * occupancy samples since the last rows, against its limit. */
struct ctl_rec_buf_row {
	const struct ctl_rec_occ *a;
	const char *name, *buff_id, *uldl;
	uint64_t tier, node_id, ifid, pool, total, limit;
	bool clamp;                   /* the percentages stop at 100 (scala-switch-buff-stats) */
};

/* The columns both buffer records open with: CTL_REC_COLS_OPEN, tier, node_id, buff_id. */
#define CTL_REC_COLS_SW_BUF \
	CTL_REC_COLS_OPEN(struct ctl_rec_buf_row), CTL_REC_COL_U64("tier", struct ctl_rec_buf_row, tier), \
	CTL_REC_COL_NODE_ID(struct ctl_rec_buf_row), CTL_REC_COL_STR("buff_id", struct ctl_rec_buf_row, buff_id)

/** The six sample columns both buffer records end with (ctl_rec_swbuf.c). */
void ctl_rec_buf_stat(const void *row, uint32_t arg, struct ctl_rec_val *v);
#define CTL_REC_BUF_STAT_COLS \
	CTL_REC_COL("ivl_count", U64, 0, ctl_rec_buf_stat, 0), CTL_REC_COL("ivl_min_bytes", U64, 0, ctl_rec_buf_stat, 1), \
	CTL_REC_COL("ivl_max_bytes", U64, 0, ctl_rec_buf_stat, 2), \
	CTL_REC_COL("ivl_mean_bytes", QUOT, 3, ctl_rec_buf_stat, 3), \
	CTL_REC_COL("ivl_max_pct_util", QUOT, 9, ctl_rec_buf_stat, 4), \
	CTL_REC_COL("ivl_mean_pct_util", QUOT, 9, ctl_rec_buf_stat, 5)

struct ctl_swbuf;

/**
 * scala-switch-agg-buff-stats (ctl_swrec_buf.c): samples of every switch's occupancy every
 * BufferStatsReportInterval / 1000, rows every BufferStatsReportInterval. Open returns NULL with errno set and a
 * message in @p err. ctl_swbuf_sample() records the occupancy now; rows cover the samples since the last rows.
 */
struct ctl_swbuf *ctl_swbuf_open(const struct ctl_config *cfg, const struct ctl_swrec *sr, const char *dir,
				 int64_t epoch_s, char *err, size_t errlen);
void ctl_swbuf_sample(struct ctl_swbuf *b);
void ctl_swbuf_rows(struct ctl_swbuf *b, emu_ps_t now);

struct ctl_swportbuf;

/**
 * scala-switch-buff-stats (ctl_rec_swportbuf.c), with switch.ReportPerPortBufferStats: the occupancy of each switch
 * port's egress queue, ingress usage and headroom per pool, sampled with scala-switch-agg-buff-stats (every
 * BufferStatsReportInterval / 1000), rows every BufferStatsReportInterval. Open returns NULL with errno set and a
 * message in @p err. NULL is accepted by sample and rows.
 */
struct ctl_swportbuf *ctl_swportbuf_open(const struct ctl_config *cfg, const struct ctl_swrec *sr, const char *dir,
					 int64_t epoch_s, char *err, size_t errlen);
void ctl_swportbuf_sample(struct ctl_swportbuf *b);
void ctl_swportbuf_rows(struct ctl_swportbuf *b, emu_ps_t now);

struct ctl_swlb;

/** scala-switch-load-balancing-stats (ctl_swrec_lb.c), every LoadBalancingStatsReportInterval and at the end. */
struct ctl_swlb *ctl_swlb_open(const struct ctl_config *cfg, const struct ctl_swrec *sr, const char *dir,
			       int64_t epoch_s, char *err, size_t errlen);
void ctl_swlb_rows(struct ctl_swlb *l, emu_ps_t now);


/** The files of the writers whose files are private to them, for the records' size budget (NULL for NULL). */
struct rec_csv *ctl_monitor_csv(const struct ctl_monitor *m);

#endif /* CTL_REC_PVT_H */
