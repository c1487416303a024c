/* The switches' port records: nd-stats rows of every switch port (into the NICs' file) and trimming-stats. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_rec_pvt.h"

/* A trimming-stats row: the port's stats now and at the previous rows, and the columns counted here. */
struct trim_row {
	struct ctl_rec_cur c;         /* struct sw_port_stats */
	const char *name, *uldl;
	uint64_t node_id, tier, ifid;
	uint64_t eg, ivl_eg;          /* packets admitted to the port's egress queues */
	uint64_t td, ivl_td;          /* trimmed drops of the port */
};

/*
 * trimming-stats: the switch pages name TrimmingStatsEnabled ("packet trimming statistics reporting",
 * switch-configuration.md, Packet trimmer) but no record or columns, so uetemu chose these (docs/records.md).
 */
static const struct ctl_rec_col trim_cols[] = {
	CTL_REC_COLS_SW_PORT(struct trim_row),
	CTL_REC_COL_STR("uldl", struct trim_row, uldl),
	CTL_REC_COL_PAIR(trims, struct sw_port_stats, trims),
	CTL_REC_COL_PAIR(trimmed_bytes, struct sw_port_stats, trimmed_bytes),
	CTL_REC_COL_U64("egress_packets", struct trim_row, eg),
	CTL_REC_COL_U64("ivl_egress_packets", struct trim_row, ivl_eg),
	CTL_REC_COL_PAIR(tx_drops, struct sw_port_stats, tx_drops),
	CTL_REC_COL_U64("trimmed_drops", struct trim_row, td),
	CTL_REC_COL_U64("ivl_trimmed_drops", struct trim_row, ivl_td),
};
const struct ctl_rec_schema ctl_rec_trim_schema = CTL_REC_SCHEMA("trimming-stats", trim_cols);

uint8_t ctl_swrec_tier(const struct net_topo *t, uint32_t dev)
{
	uint8_t tier = t->devs[dev].tier;

	if (tier == 0)
		return CTL_REC_TIER_NIC;
	if (tier == 1)
		return 2;                             /* tor, leaf: rack switch */
	return tier + 1u == t->size.n_tiers ? 0 : 1;  /* the top tier (spine, core) is the spine; agg a fabric */
}

/* The link rate of port @p port of device @p dev. */
static uint64_t port_bps(const struct net_topo *t, uint32_t dev, uint32_t port)
{
	return t->links[t->ports[t->devs[dev].port0 + port].link].bps;
}

static int ports_init(struct ctl_swrec *sr)
{
	const struct net_topo *t = sr->topo;
	uint32_t n = 0;

	for (uint32_t s = 0; s < sr->n_sws; s++)
		n += sw_n_ports(sr->sws[s]);
	sr->ports = calloc(n ? n : 1, sizeof(*sr->ports));
	sr->eg_pkts = calloc(n ? n : 1, sizeof(*sr->eg_pkts));
	sr->prev = calloc(n ? n : 1, sizeof(*sr->prev));
	sr->port0 = calloc(sr->n_sws, sizeof(*sr->port0));
	if (sr->ports == NULL || sr->eg_pkts == NULL || sr->prev == NULL || sr->port0 == NULL)
		return -ENOMEM;
	sr->n_ports = n;
	n = 0;
	for (uint32_t s = 0; s < sr->n_sws; s++) {
		uint32_t dev = t->size.hosts + s;   /* the switches follow the hosts (ctl_run_fabric.c) */
		const struct net_topo_dev *d = &t->devs[dev];

		sr->port0[s] = n;
		for (uint32_t p = 0; p < sw_n_ports(sr->sws[s]); p++, n++)
			sr->ports[n] = (struct ctl_swport){ .sw = sr->sws[s], .sw_idx = s, .port = p, .tier = ctl_swrec_tier(t, dev),
							    .ul = p >= d->n_down, .bps = port_bps(t, dev, p),
							    .prev = &sr->prev[n] };
	}
	return 0;
}

struct ctl_swrec *ctl_swrec_open(const struct ctl_config *cfg, struct sw *const *sws, uint32_t n_sws,
				 const struct net_topo *topo, const char *dir, int64_t epoch_s, char *err,
				 size_t errlen)
{
	struct ctl_swrec *sr;

	if (n_sws == 0 || topo == NULL) {
		errno = 0;
		return NULL;
	}
	sr = calloc(1, sizeof(*sr));
	if (sr == NULL)
		goto nomem;
	sr->sws = sws;
	sr->n_sws = n_sws;
	sr->topo = topo;
	if (ports_init(sr) < 0)
		goto nomem;
	/* TrimmingStatsEnabled "requires TrimmingEnabled": without it there is nothing to count, and no file */
	if (cfg->sw.trimming_stats_enabled && cfg->sw.trimming_enabled) {
		sr->trim = ctl_rec_schema_open(cfg, dir, &ctl_rec_trim_schema, epoch_s, err, errlen);
		if (sr->trim == NULL) {
			int e = errno;
			ctl_swrec_close(sr, err, errlen);
			errno = e;
			return NULL;
		}
	}
	return sr;
nomem:
	ctl_swrec_close(sr, err, errlen);
	snprintf(err, errlen, "out of memory opening the records");
	errno = ENOMEM;
	return NULL;
}

void ctl_swrec_each_port(const struct ctl_swrec *sr, emu_ps_t now, ctl_swport_rows_fn fn, void *ctx)
{
	for (uint32_t i = 0; i < sr->n_ports; i++) {
		const struct ctl_swport *sp = &sr->ports[i];
		struct sw_port_stats s;

		if (!ctl_swrec_here(sr, sp->sw_idx))
			continue;
		sw_port_stats(sp->sw, sp->port, &s, now);
		fn(ctx, sp, i, &s, now);
	}
}

/* nd-stats rows go to @p csv, over the interval since @p last. */
struct nd_ctx {
	struct rec_csv *csv;
	emu_ps_t last;
};

static void nd_port_row(void *ctx, const struct ctl_swport *sp, uint32_t i, const struct sw_port_stats *s,
			emu_ps_t now)
{
	const struct nd_ctx *c = ctx;
	/* bytes from the Ethernet header on, no FCS, as the NICs' rows */
	struct ctl_rec_nd_row r = {
		.name = sw_name(sp->sw), .nd_name = CTL_REC_SW_ND_NAME, .type = CTL_REC_SW_COMPONENT_TYPE,
		.uldl = sp->ul ? "ul" : "dl", .ifid = sp->port, .node_id = sw_node_id(sp->sw), .tier = sp->tier,
		.subtier = CTL_REC_SUBTIER_NONE, .tx_frames = s->tx_frames, .rx_frames = s->rx_frames,
		.tx_bytes = s->tx_frame_bytes, .rx_bytes = s->rx_frame_bytes,
		.dtx = s->tx_frame_bytes - sp->prev->tx_frame_bytes, .drx = s->rx_frame_bytes - sp->prev->rx_frame_bytes,
		.tx_drops = s->tx_drops, .rx_drops = s->rx_drops, .dt = now - c->last, .bps = sp->bps, .exact = true,
	};

	(void)i;
	ctl_rec_row(c->csv, &ctl_rec_nd_schema, &r, now);
}

void ctl_swrec_nd_rows(struct ctl_swrec *sr, struct rec_csv *nd, emu_ps_t now, emu_ps_t last)
{
	struct nd_ctx c = { nd, last };

	if (sr != NULL && nd != NULL)
		ctl_swrec_each_port(sr, now, nd_port_row, &c);
}

/* Packets admitted to each port's egress queues: every admitted packet is committed to a member of its set. */
static void egress_packets(struct ctl_swrec *sr)
{
	memset(sr->eg_pkts, 0, sizeof(*sr->eg_pkts) * sr->n_ports);
	for (uint32_t s = 0; s < sr->n_sws; s++) {
		const struct sw *sw = sr->sws[s];

		for (uint32_t k = 0; k < sw_ecmp_set_count(sw); k++) {
			struct sw_ecmp_set_info si;
			struct sw_ecmp_member_stats ms;
			if (sw_ecmp_set_info(sw, k, &si) < 0)
				continue;
			for (uint32_t m = 0; m < si.n; m++)
				if (sw_ecmp_member_stats(sw, k, m, &ms) == 0)
					sr->eg_pkts[sr->port0[s] + si.ports[m]] += ms.packets;
		}
	}
}

static void trim_port_row(void *ctx, const struct ctl_swport *sp, uint32_t i, const struct sw_port_stats *s,
			  emu_ps_t now)
{
	struct ctl_swrec *sr = ctx;
	/* trimmed drops of the port: headed out of it, or refused where they arrived on it */
	uint64_t td = s->trimmed_tx_drops + s->trimmed_rx_drops;
	uint64_t prev_td = sp->prev->trimmed_tx_drops + sp->prev->trimmed_rx_drops;
	struct trim_row r = {
		.c = { s, sp->prev }, .name = sw_name(sp->sw), .uldl = sp->ul ? "ul" : "dl",
		.node_id = sw_node_id(sp->sw), .tier = sp->tier, .ifid = sp->port, .eg = sr->eg_pkts[i],
		.ivl_eg = sr->eg_pkts[i] - sp->prev_eg_pkts, .td = td, .ivl_td = td - prev_td,
	};

	ctl_rec_row(sr->trim, &ctl_rec_trim_schema, &r, now);
}

void ctl_swrec_trim_rows(struct ctl_swrec *sr, emu_ps_t now)
{
	if (sr == NULL || sr->trim == NULL)
		return;
	egress_packets(sr);
	ctl_swrec_each_port(sr, now, trim_port_row, sr);
}

void ctl_swrec_rows_done(struct ctl_swrec *sr, emu_ps_t now)
{
	if (sr == NULL)
		return;
	if (sr->trim != NULL)
		egress_packets(sr);
	for (uint32_t i = 0; i < sr->n_ports; i++) {
		struct ctl_swport *sp = &sr->ports[i];

		sw_port_stats(sp->sw, sp->port, sp->prev, now);
		sp->prev_eg_pkts = sr->eg_pkts[i];
		/* the ecn-pfc-stats rows of now are written: the longest pause of the next interval starts afresh */
		sw_port_pfc_interval_reset(sr->sws[sp->sw_idx], sp->port, now);
	}
}

int ctl_swrec_close(struct ctl_swrec *sr, char *err, size_t errlen)
{
	if (sr == NULL)
		return 0;
	int rc = rec_csv_close(sr->trim, err, errlen);

	free(sr->ports);
	free(sr->eg_pkts);
	free(sr->prev);
	free(sr->port0);
	free(sr);
	return rc;
}

void *ctl_rec_sws_new(size_t size, const size_t *mem, const struct ctl_config *cfg, const struct ctl_swrec *sr,
		      const char *dir, const struct ctl_rec_schema *s, int64_t epoch_s, char *err, size_t errlen)
{
	struct ctl_rec_sws *w = calloc(1, size);
	bool ok = w != NULL;

	for (int i = 0; ok && i < CTL_REC_SWS_MEM; i++)
		ok = mem[i] == 0 || (w->mem[i] = calloc(1, mem[i])) != NULL;
	if (!ok) {
		ctl_rec_sws_free(w, NULL, 0);
		snprintf(err, errlen, "out of memory opening the records");
		errno = ENOMEM;
		return NULL;
	}
	w->sr = sr;
	w->csv = ctl_rec_schema_open(cfg, dir, s, epoch_s, err, errlen);
	if (w->csv == NULL) {
		int e = errno;
		ctl_rec_sws_free(w, NULL, 0);
		errno = e;
		return NULL;
	}
	return w;
}

struct rec_csv *ctl_rec_sws_csv(const void *writer)
{
	return writer != NULL ? ((const struct ctl_rec_sws *)writer)->csv : NULL;
}

int ctl_rec_sws_free(void *writer, char *err, size_t errlen)
{
	struct ctl_rec_sws *w = writer;

	if (w == NULL)
		return 0;
	int rc = rec_csv_close(w->csv, err, errlen);

	for (int i = 0; i < CTL_REC_SWS_MEM; i++)
		free(w->mem[i]);
	free(w);
	return rc;
}
