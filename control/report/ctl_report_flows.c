/* The flows and stream applications' figures (docs/summary.md, flows; docs/records.md, flow-fct): each flow's ideal
 * FCT on the empty fabric and its slowdown, the flow-fct record with every flow, summary.json's "flows" member with
 * the offered load and the slowdown percentiles by size bucket, and the table's lines. */
#include "ctl_report_pvt.h"
#include "ctl_report_flows.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "app_flows.h"
#include "ctl_rec.h"
#include "port_pcie.h"
#include "rec.h"

typedef unsigned __int128 u128;

#define FL_HOPS_MAX 16
/* The Scala UET NIC's frames (docs/wire.md): a data packet's headers and FCS, its IP datagram less the payload, an
 * ACK, a base-RTT probe; the transmit process starts 15 ns after the doorbell (seed 000, Transmit). */
#define FL_DATA_OVERHEAD 106
#define FL_DATAGRAM_OVERHEAD 88
#define FL_ACK_FRAME 78
#define FL_PROBE_FRAME 62
#define FL_TX_START_PS 15000

/* The size buckets of the slowdown percentiles (decimal units, as the CDFs are written). */
static const struct {
	const char *name;
	uint64_t lo, hi; /* [lo, hi) bytes */
} buckets[] = {
	{ "<10KB", 0, 10000 },
	{ "10KB-100KB", 10000, 100000 },
	{ "100KB-1MB", 100000, 1000000 },
	{ "1MB-10MB", 1000000, 10000000 },
	{ ">=10MB", 10000000, UINT64_MAX },
};
#define FL_BUCKETS (sizeof(buckets) / sizeof(buckets[0]))

struct hop {
	uint64_t bps;
	emu_ps_t delay;
};

struct fl_msg {
	int32_t app;          /* the flows or stream application, -1 another */
	emu_ps_t ideal;       /* 0: unknown (no path, another NIC model) */
	uint64_t slowdown;    /* fct / ideal in parts per million, completed flows with an ideal */
};

struct ctl_report_flows {
	const struct ctl_report_in *r;
	struct fl_msg *m;     /* [r->n_msgs] */
	uint32_t n;           /* messages of flows and stream applications */
};

/* Serialization of @p bytes at @p bps, rounded up to a whole ps (as the links do). */
static emu_ps_t ser(uint64_t bytes, uint64_t bps)
{
	return (emu_ps_t)(((u128)bytes * 8 * EMU_PS_PER_S + bps - 1) / bps);
}

/* The links from host @p s to host @p d of @p r's fabric into @p h, sender first: their count, 0 when none is known. */
static uint32_t path(const struct ctl_report_in *r, uint32_t s, uint32_t d, struct hop *h)
{
	const struct net_topo *t = r->topo;
	uint32_t n = 0, dev = s;

	if (t == NULL) { /* explicit: the one link joining them */
		for (uint32_t i = 0; i < r->cfg->n_links && i < r->n_links; i++) {
			const struct ctl_link *l = &r->cfg->links[i];

			if ((l->a == s && l->b == d) || (l->a == d && l->b == s)) {
				h[0] = (struct hop){ r->links[i].bps, r->links[i].delay };
				return 1;
			}
		}
		return 0;
	}
	struct hop down[FL_HOPS_MAX];
	uint32_t nd = 0;

	/* up by the first up port until a device has d below it (every equal-cost path has the same tiers) */
	while (!(t->devs[dev].kind != NET_TOPO_HOST && d >= t->devs[dev].host_lo &&
		 d < t->devs[dev].host_lo + t->devs[dev].n_below)) {
		const struct net_topo_dev *v = &t->devs[dev];

		if (v->n_up == 0 || n == FL_HOPS_MAX / 2)
			return 0;
		const struct net_topo_port *p = &t->ports[v->port0 + v->n_down];
		const struct net_topo_link *l = &t->links[p->link];

		h[n++] = (struct hop){ l->bps, l->delay };
		dev = p->end == 0 ? l->b.dev : l->a.dev;
	}
	/* down toward d */
	while (dev != d) {
		const struct net_topo_dev *v = &t->devs[dev];

		if (v->n_down == 0 || v->below_per_down == 0 || nd == FL_HOPS_MAX / 2)
			return 0;
		const struct net_topo_port *p = &t->ports[v->port0 + (d - v->host_lo) / v->below_per_down];
		const struct net_topo_link *l = &t->links[p->link];

		down[nd++] = (struct hop){ l->bps, l->delay };
		dev = p->end == 0 ? l->b.dev : l->a.dev;
	}
	for (uint32_t i = 0; i < nd; i++)
		h[n++] = down[i];
	return n;
}

/* A packet's time at a stage, and its index: ordered by time, then index. */
struct pt {
	emu_ps_t t;
	uint64_t i;
};

static int by_time(const void *a, const void *b)
{
	const struct pt *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* Frames of sizes @p len (by packet index) entering link @p h at the times in @p p (in that order): each leaves when
 * it has crossed (store and forward: serialization then delay); a link between two switches is one of several equal
 * ones the packets are sprayed over, so no packet waits for another there (@p serial false). */
static void cross(struct pt *p, uint64_t n, const struct hop *h, const uint32_t *len, bool serial)
{
	emu_ps_t free_at = 0;

	for (uint64_t k = 0; k < n; k++) {
		emu_ps_t t = serial && free_at > p[k].t ? free_at : p[k].t;

		free_at = t + ser(len[p[k].i], h->bps);
		p[k].t = free_at + h->delay;
	}
}

/*
 * The FCT of a message of @p bytes alone on the empty path @p h (@p nh links): from the doorbell to the last ACK's
 * arrival, packet by packet. The transmit process starts 15 ns after the doorbell; each packet's payload is fetched
 * over the host-to-NIC PCIe direction (a 64 B read request, then the payload in transfers of 512 B + 34 B), in turn;
 * a packet leaves when fetched and the link is free, and is stored and forwarded at every switch (serialization at
 * each link's rate, then its delay): in turn on the first and the last link, without waiting on the links between
 * switches, over which the packets are sprayed (so a short last packet may overtake a full one). The message's one
 * base-RTT probe leaves when the first ACK is back. The receiver writes each packet's datagram to the host over the
 * NIC-to-host direction, in arrival order, and ACKs it then; the ACKs go back over the same links the same way; the
 * message completes with the last ACK's arrival. 0 when out of memory.
 */
static emu_ps_t ideal_fct(const struct ctl_config *cfg, const struct hop *h, uint32_t nh, uint64_t bytes)
{
	uint64_t mss = cfg->nic.rdma_data_mss;
	uint64_t h2n = cfg->nic.pcie_host.lane_bps * cfg->nic.pcie_host.lane_count;
	uint64_t n2h = cfg->nic.pcie_nic.lane_bps * cfg->nic.pcie_nic.lane_count;
	uint64_t n = bytes ? (bytes + mss - 1) / mss : 1;
	struct pt *p = malloc(n * sizeof(*p));
	uint32_t *len = malloc((n + 1) * sizeof(*len)), *ack_len = malloc((n + 1) * sizeof(*ack_len));
	emu_ps_t first_ack = EMU_PS_NEVER, done = 0;

	if (p == NULL || len == NULL || ack_len == NULL) {
		free(p), free(len), free(ack_len);
		return 0;
	}
	for (uint64_t i = 0; i < n; i++) {
		len[i] = (uint32_t)((i + 1 < n ? mss : bytes - (n - 1) * mss) + FL_DATA_OVERHEAD);
		ack_len[i] = FL_ACK_FRAME;
	}
	/* twice: the second time with the probe, once the first ACK's time is known */
	for (int pass = 0; pass < 2; pass++) {
		emu_ps_t fetch = FL_TX_START_PS + ser(PORT_PCIE_READ_REQ + PORT_PCIE_OVERHEAD, h2n), free0 = 0, rx = 0;
		bool probe = pass == 0;

		/* the sender's link, in turn (the probe ahead of the first packet that finds the link free after it) */
		for (uint64_t i = 0; i < n; i++) {
			fetch += ser(port_pcie_bytes(len[i] - FL_DATA_OVERHEAD), h2n);
			emu_ps_t t = fetch > free0 ? fetch : free0;

			if (!probe && first_ack <= t) {
				free0 = (first_ack > free0 ? first_ack : free0) + ser(FL_PROBE_FRAME, h[0].bps);
				t = fetch > free0 ? fetch : free0;
				probe = true;
			}
			free0 = t + ser(len[i], h[0].bps);
			p[i] = (struct pt){ free0 + h[0].delay, i };
		}
		for (uint32_t k = 1; k < nh; k++) { /* between switches sprayed, the last link in arrival order */
			if (k + 1 == nh)
				qsort(p, n, sizeof(*p), by_time);
			cross(p, n, &h[k], len, k + 1 == nh);
		}
		for (uint64_t k = 0; k < n; k++) { /* the receiver's PCIe writes, in arrival order: each ACK then */
			rx = (p[k].t > rx ? p[k].t : rx) + ser(len[p[k].i] - FL_DATA_OVERHEAD + FL_DATAGRAM_OVERHEAD, n2h);
			p[k].t = rx;
		}
		for (uint32_t k = nh; k-- > 0;) {
			if (k == 0 && nh > 1)
				qsort(p, n, sizeof(*p), by_time);
			cross(p, n, &h[k], ack_len, k + 1 == nh || k == 0);
		}
		first_ack = done = p[0].t;
		for (uint64_t k = 0; k < n; k++) {
			first_ack = p[k].t < first_ack ? p[k].t : first_ack;
			done = p[k].t > done ? p[k].t : done;
		}
	}
	free(p), free(len), free(ack_len);
	return done;
}

/* The application message @p m belongs to, or -1. */
static int32_t app_of(const struct ctl_config *cfg, const struct ctl_message *m)
{
	for (uint32_t a = 0; a < cfg->n_apps; a++) {
		const struct ctl_app *app = &cfg->apps[a];

		if (app->n_list > 0 && m >= app->list && m < app->list + app->n_list)
			return (app->type == CTL_APP_FLOWS || app->type == CTL_APP_STREAM) ? (int32_t)a : -1;
	}
	return -1;
}

int ctl_report_flows_new(const struct ctl_report_in *r, struct ctl_report_flows **out)
{
	struct ctl_report_flows *fl;
	bool any = false;

	*out = NULL;
	for (uint32_t a = 0; a < r->cfg->n_apps; a++)
		any |= r->cfg->apps[a].type == CTL_APP_FLOWS || r->cfg->apps[a].type == CTL_APP_STREAM;
	if (!any)
		return 0;
	if ((fl = calloc(1, sizeof(*fl))) == NULL || (fl->m = calloc(r->n_msgs ? r->n_msgs : 1, sizeof(*fl->m))) == NULL) {
		free(fl);
		return -ENOMEM;
	}
	fl->r = r;
	/* the ideal is the Scala UET NIC's; its path is the same for every message between two hosts */
	bool uet = r->cfg->nic_model == CTL_NIC_UET;
	struct hop h[FL_HOPS_MAX];

	for (uint32_t i = 0; i < r->n_msgs; i++) {
		const struct ctl_msg *m = &r->msgs[i];
		struct fl_msg *f = &fl->m[i];
		uint32_t nh;

		f->app = app_of(r->cfg, m->m);
		if (f->app < 0)
			continue;
		fl->n++;
		if (uet && (nh = path(r, m->m->src, m->m->dst, h)) > 0)
			f->ideal = ideal_fct(r->cfg, h, nh, m->m->bytes);
		if (m->completed && f->ideal > 0)
			f->slowdown = (uint64_t)(((u128)(m->done - m->m->start) * 1000000 + f->ideal / 2) / f->ideal);
	}
	*out = fl;
	return 0;
}

void ctl_report_flows_free(struct ctl_report_flows *fl)
{
	if (fl != NULL)
		free(fl->m);
	free(fl);
}

emu_ps_t ctl_report_flows_ideal(const struct ctl_report_flows *fl, uint32_t i)
{
	return fl != NULL && i < fl->r->n_msgs ? fl->m[i].ideal : 0;
}

/* p50 and p99 of the slowdowns of application @p a's completed flows in [lo, hi): their count. */
static uint32_t bucket_pct(const struct ctl_report_flows *fl, int32_t a, uint64_t lo, uint64_t hi, uint64_t *v,
			   uint64_t *p50, uint64_t *p99, uint32_t *flows)
{
	uint32_t n = 0;

	*flows = 0;
	for (uint32_t i = 0; i < fl->r->n_msgs; i++) {
		const struct ctl_msg *m = &fl->r->msgs[i];

		if (fl->m[i].app != a || m->m->bytes < lo || m->m->bytes >= hi)
			continue;
		(*flows)++;
		if (fl->m[i].slowdown > 0)
			v[n++] = fl->m[i].slowdown;
	}
	rec_sort_u64(v, n);
	*p50 = rec_pct(v, n, 50);
	*p99 = rec_pct(v, n, 99);
	return n;
}

static void json_ppm(FILE *f, const char *key, uint64_t ppm)
{
	fprintf(f, "\"%s\": %llu.%06llu", key, (unsigned long long)(ppm / 1000000), (unsigned long long)(ppm % 1000000));
}

/* A stream's messages: posted and completed bytes. */
static void app_bytes(const struct ctl_report_flows *fl, int32_t a, uint64_t *flows, uint64_t *done, uint64_t *bytes,
		      uint64_t *done_bytes, uint64_t *rtx)
{
	*flows = *done = *bytes = *done_bytes = *rtx = 0;
	for (uint32_t i = 0; i < fl->r->n_msgs; i++) {
		const struct ctl_msg *m = &fl->r->msgs[i];

		if (fl->m[i].app != a)
			continue;
		(*flows)++;
		*bytes += m->m->bytes;
		*rtx += m->rtx;
		if (m->completed) {
			(*done)++;
			*done_bytes += m->m->bytes;
		}
	}
}

/* A stream's own keys, and the entry's closing brace. */
static void json_stream(FILE *f, const struct ctl_config *cfg, const struct ctl_flows *g, uint64_t done_bytes)
{
	emu_ps_t w = g->window_ps ? g->window_ps : 1;

	fprintf(f, "\"src\": \"%s\", \"dst\": \"%s\", \"size\": %llu, \"offered_bps\": %llu, \"completed_bps\": %llu}",
		cfg->hosts[g->src].name, cfg->hosts[g->dst].name, (unsigned long long)g->size,
		(unsigned long long)(((u128)g->bytes * 8 * EMU_PS_PER_S + w / 2) / w),
		(unsigned long long)(((u128)done_bytes * 8 * EMU_PS_PER_S + w / 2) / w));
}

/* {"measured": n, "p50": x, "p99": y} without its braces; nulls when none is measured. */
static void json_pcts(FILE *f, uint32_t n, uint64_t p50, uint64_t p99)
{
	fprintf(f, "\"measured\": %u, ", n);
	if (n == 0) {
		fputs("\"p50\": null, \"p99\": null", f);
		return;
	}
	json_ppm(f, "p50", p50);
	fputs(", ", f);
	json_ppm(f, "p99", p99);
}

/* A flows application's own keys, its slowdown by bucket, and the entry's closing brace. */
static void json_flows(FILE *f, const struct ctl_report_flows *fl, int32_t a, const struct ctl_flows *g, uint64_t *v)
{
	uint64_t p50, p99;
	uint32_t flows, n;

	fprintf(f, "\"pattern\": \"%s\", \"cdf\": ", app_flows_pattern_name(g->pattern));
	ctl_report_json_str(f, g->cdf);
	fprintf(f, ", \"link_bps\": %llu, ", (unsigned long long)g->host_bps);
	json_ppm(f, "load", g->load_ppm);
	fputs(", ", f);
	json_ppm(f, "offered_load", g->offered_ppm);
	fputs(", \"slowdown\": [", f);
	for (size_t b = 0; b < FL_BUCKETS; b++) {
		n = bucket_pct(fl, a, buckets[b].lo, buckets[b].hi, v, &p50, &p99, &flows);
		fprintf(f, "%s\n      {\"bucket\": \"%s\", \"min_bytes\": %llu, ", b ? "," : "", buckets[b].name,
			(unsigned long long)buckets[b].lo);
		if (buckets[b].hi == UINT64_MAX)
			fputs("\"max_bytes\": null, ", f);
		else
			fprintf(f, "\"max_bytes\": %llu, ", (unsigned long long)buckets[b].hi - 1);
		fprintf(f, "\"flows\": %u, ", flows);
		json_pcts(f, n, p50, p99);
		fputc('}', f);
	}
	n = bucket_pct(fl, a, 0, UINT64_MAX, v, &p50, &p99, &flows);
	fputs("],\n     \"slowdown_all\": {", f);
	json_pcts(f, n, p50, p99);
	fputs("}}", f);
}

void ctl_report_flows_json(FILE *f, const struct ctl_report_flows *fl)
{
	const struct ctl_config *cfg;
	uint64_t *v;
	bool first = true;

	if (fl == NULL || (v = malloc((fl->r->n_msgs ? fl->r->n_msgs : 1) * sizeof(*v))) == NULL)
		return;
	cfg = fl->r->cfg;
	fputs("  \"flows\": [", f);
	for (uint32_t a = 0; a < cfg->n_apps; a++) {
		const struct ctl_app *app = &cfg->apps[a];
		const struct ctl_flows *g = app->flows;
		uint64_t flows, done, bytes, done_bytes, rtx;

		if (app->type != CTL_APP_FLOWS && app->type != CTL_APP_STREAM)
			continue;
		app_bytes(fl, (int32_t)a, &flows, &done, &bytes, &done_bytes, &rtx);
		fprintf(f, "%s\n    {\"application\": %u, \"type\": \"%s\", ", first ? "" : ",", a,
			app->type == CTL_APP_FLOWS ? "flows" : "stream");
		first = false;
		fprintf(f, "\"flows\": %llu, \"completed\": %llu, \"bytes\": %llu, \"retransmissions\": %llu, "
			"\"generated_flows\": %u, \"generated_bytes\": %llu, \"senders\": %u, \"window_us\": %.6f, ",
			(unsigned long long)flows, (unsigned long long)done, (unsigned long long)bytes,
			(unsigned long long)rtx, app->n_list, (unsigned long long)g->bytes, g->n_senders,
			(double)g->window_ps / 1e6);
		if (app->type == CTL_APP_STREAM)
			json_stream(f, cfg, g, done_bytes);
		else
			json_flows(f, fl, (int32_t)a, g, v);
	}
	fputs("\n  ],\n", f);
	free(v);
}

void ctl_report_flows_print(const struct ctl_report_flows *fl)
{
	const struct ctl_config *cfg;
	uint64_t *v;

	if (fl == NULL || (v = malloc((fl->r->n_msgs ? fl->r->n_msgs : 1) * sizeof(*v))) == NULL)
		return;
	cfg = fl->r->cfg;
	for (uint32_t a = 0; a < cfg->n_apps; a++) {
		const struct ctl_app *app = &cfg->apps[a];
		const struct ctl_flows *g = app->flows;
		uint64_t flows, done, bytes, done_bytes, rtx;

		if (app->type != CTL_APP_FLOWS && app->type != CTL_APP_STREAM)
			continue;
		app_bytes(fl, (int32_t)a, &flows, &done, &bytes, &done_bytes, &rtx);
		if (app->type == CTL_APP_STREAM) {
			emu_ps_t w = g->window_ps ? g->window_ps : 1;

			printf("stream %u %s->%s: %llu messages of %llu B, %llu completed; offered %.6f Gb/s, completed "
			       "%.6f Gb/s over %.3f us\n", a, cfg->hosts[g->src].name, cfg->hosts[g->dst].name,
			       (unsigned long long)flows, (unsigned long long)g->size, (unsigned long long)done,
			       (double)g->bytes * 8e3 / (double)w, (double)done_bytes * 8e3 / (double)w,
			       (double)w / 1e6);
			continue;
		}
		printf("flows %u (%s, %s): %llu flows from %u senders, %llu completed; load %.2f %%, offered %.3f %% "
		       "of %.0f Gb/s links; slowdown p50/p99:", a, app_flows_pattern_name(g->pattern), g->cdf,
		       (unsigned long long)flows, g->n_senders, (unsigned long long)done, (double)g->load_ppm / 1e4,
		       (double)g->offered_ppm / 1e4, (double)g->host_bps / 1e9);
		bool any = false;

		for (size_t b = 0; b < FL_BUCKETS; b++) {
			uint64_t p50, p99;
			uint32_t bflows, n = bucket_pct(fl, (int32_t)a, buckets[b].lo, buckets[b].hi, v, &p50, &p99, &bflows);

			if (n > 0)
				printf(" %s %.2f/%.2f", buckets[b].name, (double)p50 / 1e6, (double)p99 / 1e6);
			any |= n > 0;
		}
		printf("%s\n", any ? "" : cfg->nic_model != CTL_NIC_UET ? " none (the ideal FCT is the Scala UET NIC's)" :
		       " none (no flow completed)");
	}
	free(v);
}

/* flow-fct: one row per flow of the flows and stream applications (docs/records.md, flow-fct). */
struct fct_row {
	uint64_t flow, app, size, start, fct, ideal, slowdown, rtx;
	const char *src, *dst;
	bool done, has_ideal, has_rtx;
};

static void get_opt(const void *row, uint32_t arg, struct ctl_rec_val *v)
{
	const struct fct_row *r = row;
	bool has = arg == 0 ? r->done : arg == 1 ? r->has_ideal : arg == 2 ? r->done && r->has_ideal : r->has_rtx;

	if (!has) {
		v->fmt = CTL_REC_F_EMPTY;
		return;
	}
	v->u = arg == 0 ? r->fct : arg == 1 ? r->ideal : arg == 2 ? r->slowdown : r->rtx;
}

static const struct ctl_rec_col fct_cols[] = {
	CTL_REC_COL_U64("flow", struct fct_row, flow),
	CTL_REC_COL_U64("application", struct fct_row, app),
	CTL_REC_COL_STR("src", struct fct_row, src),
	CTL_REC_COL_STR("dst", struct fct_row, dst),
	CTL_REC_COL_U64("size_bytes", struct fct_row, size),
	CTL_REC_COL_FIXED("start_us", 6, struct fct_row, start),
	CTL_REC_COL("fct_us", FIXED, 6, get_opt, 0),
	CTL_REC_COL("ideal_fct_us", FIXED, 6, get_opt, 1),
	CTL_REC_COL("slowdown", FIXED, 6, get_opt, 2),
	CTL_REC_COL("retransmissions", U64, 0, get_opt, 3),
};

const struct ctl_rec_schema ctl_rec_flow_fct_schema = CTL_REC_SCHEMA("flow-fct", fct_cols);

int ctl_report_flows_csv(const struct ctl_report_flows *fl, char *err, size_t errlen)
{
	const struct ctl_report_in *r;
	struct rec_csv *csv;

	if (fl == NULL)
		return 0;
	r = fl->r;
	if ((csv = ctl_rec_schema_open(r->cfg, r->out_dir, &ctl_rec_flow_fct_schema, 0, err, errlen)) == NULL)
		return -errno;
	for (uint32_t i = 0, k = 0; i < r->n_msgs; i++) {
		const struct ctl_msg *m = &r->msgs[i];
		const struct fl_msg *f = &fl->m[i];

		if (f->app < 0)
			continue;
		struct fct_row row = {
			.flow = k++, .app = (uint64_t)f->app, .size = m->m->bytes, .start = m->m->start,
			.fct = m->done - m->m->start, .ideal = f->ideal, .slowdown = f->slowdown, .rtx = m->rtx,
			.src = r->cfg->hosts[m->m->src].name, .dst = r->cfg->hosts[m->m->dst].name,
			.done = m->completed, .has_ideal = f->ideal > 0, .has_rtx = m->has_rtx,
		};
		ctl_rec_row(csv, &ctl_rec_flow_fct_schema, &row, 0);
	}
	return rec_csv_close(csv, err, errlen);
}
