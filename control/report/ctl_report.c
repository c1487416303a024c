/* The end-of-run report: DIR/summary.json (a stable interface for scripts) and the table on stdout. */
#include "ctl_report_pvt.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctl_report_flows.h"
#include "rec.h"

/* summary.json's layout version: raised when a key is renamed or removed (docs/summary.md). */
#define CTL_SUMMARY_SCHEMA 1
#define CTL_REPORT_IOBUF (256u * 1024u) /* summary.json goes out in large writes */

struct host_sum {
	uint64_t rx_msg_bytes;
	emu_ps_t first_start, last_done;
	double goodput_gbps;
};

struct totals {
	struct ctl_report_counters c;
	double fct_min, fct_p50, fct_p99, fct_max; /* microseconds */
	uint32_t n_fct;                            /* messages completed: the figures' count */
};

static void sum_hosts(const struct ctl_report_in *r, struct host_sum *hs)
{
	for (uint32_t i = 0; i < r->n_msgs; i++) {
		const struct ctl_msg *m = &r->msgs[i];
		if (!m->completed)
			continue;
		struct host_sum *h = &hs[m->m->dst];
		if (h->rx_msg_bytes == 0 || m->m->start < h->first_start)
			h->first_start = m->m->start;
		if (m->done > h->last_done)
			h->last_done = m->done;
		h->rx_msg_bytes += m->m->bytes;
	}
	for (uint32_t i = 0; i < r->cfg->n_hosts; i++) {
		emu_ps_t span = hs[i].last_done - hs[i].first_start;
		/* payload bits / ps = Tb/s; x 1000 = Gb/s */
		hs[i].goodput_gbps = span ? (double)hs[i].rx_msg_bytes * 8.0 * 1000.0 / (double)span : 0.0;
		/* a Responder of the ScalaRdma application: its WQEs' bytes in the recording window over RunTime */
		hs[i].goodput_gbps += ctl_rdma_host_gbps(r->rdma, i);
	}
}

void ctl_report_counters(const struct ctl_report_in *r, struct ctl_report_counters *t)
{
	memset(t, 0, sizeof(*t));
	for (uint32_t i = 0; r->hosts != NULL && i < r->cfg->n_hosts; i++) {
		const struct port_nic *h = &r->hosts[i];
		struct port_nic_stats st;

		h->ops->stats(h->dev, &st, r->end);
		if (h->ops->drops != NULL)
			h->ops->drops(h->dev, t->nic_drops);
		t->drops += st.drops;
		t->trims += st.trims;
		t->nacks += st.nacks;
		t->retransmits += st.retransmits;
		t->timeouts += st.timeouts;
		t->pfc_pauses += st.pfc_pauses;
	}
	/* ECN marks are made by switches; PFC pauses counted where they are sent (NICs and switches); trims where
	 * they arrive (the NICs, above), so a trim is counted once */
	for (uint32_t s = 0; s < r->n_sws; s++) {
		const uint64_t *c = sw_counters(r->sws[s]);
		for (int k = SW_C_DROP_HEADROOM; k <= SW_C_DROP_BAD_PORT; k++) {
			uint64_t n = DP_LOAD(c[k]);
			t->drops += n;
			t->sw_drops[k] += n;
		}
		t->ecn_marks += DP_LOAD(c[SW_C_ECN_MARKS]);
		t->pfc_pauses += DP_LOAD(c[SW_C_PFC_PAUSES_SENT]);
	}
	for (int k = 1; k < NET_C_COUNT; k++)
		t->drops += DP_LOAD(r->part_counters[k]);
}

static void sum_totals(const struct ctl_report_in *r, struct totals *t)
{
	uint64_t *fct = calloc(r->n_msgs ? r->n_msgs : 1, sizeof(*fct));
	uint32_t n = 0;

	ctl_report_counters(r, &t->c);
	for (uint32_t i = 0; fct != NULL && i < r->n_msgs; i++)
		if (r->msgs[i].completed)
			fct[n++] = r->msgs[i].done - r->msgs[i].m->start;
	if (fct != NULL) {
		rec_sort_u64(fct, n);
		t->fct_p50 = (double)rec_pct(fct, n, 50) / 1e6;
		t->fct_p99 = (double)rec_pct(fct, n, 99) / 1e6;
		t->fct_max = n ? (double)fct[n - 1] / 1e6 : 0.0;
		t->fct_min = n ? (double)fct[0] / 1e6 : 0.0;
		t->n_fct = n;
	}
	free(fct);
}

/* A JSON string: quotes, backslashes and control characters escaped (a filter or a devargs may hold them). */
void ctl_report_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s != '\0'; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

/* @p before (a key and its punctuation) then the number @p v: summary.json without printf. */
static void json_u64(FILE *f, const char *before, uint64_t v)
{
	rec_put_str(f, before);
	rec_put_u64(f, v);
}

static void json_ip(FILE *f, uint32_t ip)
{
	rec_put_ch(f, '"');
	rec_fmt_ip(f, ip);
	rec_put_ch(f, '"');
}

/* {"key": n, ...} of the @p n counts @p v that are not 0, keyed by @p key(i). */
static void json_nonzero(FILE *f, const char *name, const uint64_t *v, int n, const char *(*key)(int))
{
	int first = 1;

	fprintf(f, "\"%s\": {", name);
	for (int i = 0; i < n; i++) {
		if (v[i] == 0)
			continue;
		fprintf(f, "%s\"%s\": %llu", first ? "" : ", ", key(i), (unsigned long long)v[i]);
		first = 0;
	}
	fputc('}', f);
}

/* A host's UET frames received by class (nic_uet_rx()): every one by PDS and SES class, and the valid ones its
 * model does not act on; classes with no frame are left out. */
static void json_uet_rx(FILE *f, const struct nic_uet_rx *u)
{
	fprintf(f, ", \"uet_rx\": {");
	json_nonzero(f, "pds", u->pds, WIRE_PC_COUNT, wire_pds_class_key);
	fprintf(f, ", ");
	json_nonzero(f, "ses", u->ses, WIRE_SC_COUNT, wire_ses_class_key);
	fprintf(f, ", ");
	json_nonzero(f, "not_used", u->not_used, WIRE_PC_COUNT, wire_pds_class_key);
	for (int e = 1; e < NIC_UE_COUNT; e++)
		if (u->ev[e] != 0) { /* what the NIC did with the other UET forms: only when it met one */
			fprintf(f, ", ");
			json_nonzero(f, "pds_events", u->ev, NIC_UE_COUNT, nic_uet_event_name);
			break;
		}
	fputc('}', f);
}

/* The frames host @p h's NIC received with ECN CE (its model's counter: UET ecn_ce_rcvd, RoCE ce_rcvd). */
static uint64_t host_ce(const struct port_nic *h)
{
	const uint64_t *c = h->ops->counters(h->dev);

	for (uint32_t k = 1; k < h->ops->n_counters; k++) {
		const char *n = h->ops->counter_name((int)k);

		if (strcmp(n, "ecn_ce_rcvd") == 0 || strcmp(n, "ce_rcvd") == 0)
			return DP_LOAD(c[k]);
	}
	return 0;
}

/* Payload host @p st delivered, per second of the run's emulated time (Gb/s): hosts[].rx_goodput_gbps. */
static double rx_gbps(const struct ctl_report_in *r, const struct port_nic_stats *st)
{
	return r->end ? (double)st->rx_payload_bytes * 8.0 * 1000.0 / (double)r->end : 0.0;
}

static void json_hosts(FILE *f, const struct ctl_report_in *r, const struct host_sum *hs)
{
	fprintf(f, "  \"hosts\": [\n");
	for (uint32_t i = 0; r->hosts != NULL && i < r->cfg->n_hosts; i++) {
		const struct port_nic *h = &r->hosts[i];
		const uint64_t *c = h->ops->counters(h->dev);
		struct port_nic_stats st;

		h->ops->stats(h->dev, &st, r->end);
		rec_put_str(f, "    {\"name\": \"");
		rec_put_str(f, r->cfg->hosts[i].name);
		if (h->ops->json_nic != NULL) {
			rec_put_str(f, "\", \"nic\": \"");
			rec_put_str(f, h->ops->json_nic);
		}
		rec_put_str(f, "\", \"ip\": ");
		json_ip(f, r->cfg->hosts[i].ip);
		json_u64(f, ", \"tx_bytes\": ", st.tx_bytes);
		json_u64(f, ", \"rx_bytes\": ", st.rx_bytes);
		json_u64(f, ", \"rx_payload_bytes\": ", st.rx_payload_bytes);
		fprintf(f, ", \"goodput_gbps\": %.3f, \"rx_goodput_gbps\": %.3f, \"ce_rcvd\": %llu", hs[i].goodput_gbps,
			rx_gbps(r, &st), (unsigned long long)host_ce(h));
		rec_put_str(f, ", \"counters\": {");
		for (uint32_t k = 1; k < h->ops->n_counters; k++) {
			rec_put_str(f, k > 1 ? ", \"" : "\"");
			rec_put_str(f, h->ops->counter_name((int)k));
			json_u64(f, "\": ", c[k]);
		}
		rec_put_ch(f, '}');
		if (h->ops->uet_rx != NULL)
			json_uet_rx(f, h->ops->uet_rx(h->dev));
		rec_put_str(f, i + 1 < r->cfg->n_hosts ? "},\n" : "}\n");
	}
	fprintf(f, "  ],\n");
}

/*
 * One direction of link @p i, sent by its end @p e: what crossed it (net_dir), plus, when a switch sends it, the
 * drops, trims, trimmed packets' drops and ECN marks of that switch port's egress.
 */
static void link_dir(const struct ctl_report_in *r, uint32_t i, int e, emu_ps_t now, struct ctl_report_dir *out)
{
	const struct net_dir *d = &r->links[i].dir[e];

	*out = (struct ctl_report_dir){ .bytes = DP_LOAD(d->bytes), .frames = DP_LOAD(d->frames),
					.drops = DP_LOAD(d->drops), .trims = DP_LOAD(d->trims),
					.pauses = DP_LOAD(d->pauses) };
	if (r->topo == NULL)
		return;
	const struct net_topo_end *end = e == 0 ? &r->topo->links[i].a : &r->topo->links[i].b;
	if (r->topo->devs[end->dev].kind != NET_TOPO_SWITCH)
		return;
	struct sw_port_stats ps;
	sw_port_stats(r->sws[end->dev - r->topo->size.hosts], end->port, &ps, now);
	out->drops += ps.tx_drops;
	out->trims += ps.trims;
	out->trimmed_drops = ps.trimmed_tx_drops;
	for (int c = 0; c < SW_TC_COUNT; c++)
		out->ecn_marks += ps.ecn_marked[c];
}

static void json_dir(FILE *f, const char *key, const struct ctl_report_dir *d)
{
	rec_put_ch(f, '"');
	rec_put_str(f, key);
	json_u64(f, "\": {\"bytes\": ", d->bytes);
	json_u64(f, ", \"frames\": ", d->frames);
	json_u64(f, ", \"drops\": ", d->drops);
	json_u64(f, ", \"trims\": ", d->trims);
	json_u64(f, ", \"ecn_marks\": ", d->ecn_marks);
	json_u64(f, ", \"pauses\": ", d->pauses);
	json_u64(f, ", \"trimmed_drops\": ", d->trimmed_drops);
	rec_put_ch(f, '}');
}

#define CTL_PEER_C_KEY(n, k, s) k,
static const char *const peer_keys[] = { CTL_PEER_COUNTERS(CTL_PEER_C_KEY) };
#undef CTL_PEER_C_KEY
_Static_assert(sizeof(peer_keys) / sizeof(peer_keys[0]) == CTL_PEER_C_COUNT, "a name for every peer counter");

const char *ctl_peer_counter_name(int c)
{
	return c >= 0 && c < CTL_PEER_C_COUNT ? peer_keys[c] : "unknown";
}

const char *ctl_stop_name(enum ctl_stop s)
{
	static const char *const names[] = { "completed", "duration", "signal", "stalled", "lag", "incomplete",
						       "output_error", "peer_lost", "ctl" };

	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "unknown";
}

const char *ctl_report_link(const struct ctl_report_in *r, uint32_t i, emu_ps_t now, const char **a, const char **b,
			    struct ctl_report_dir dir[2])
{
	link_dir(r, i, 0, now, &dir[0]);
	link_dir(r, i, 1, now, &dir[1]);
	if (r->topo != NULL) {
		const struct net_topo_link *tl = &r->topo->links[i];
		*a = r->topo->devs[tl->a.dev].name;
		*b = r->topo->devs[tl->b.dev].name;
		return tl->name;
	}
	const struct ctl_link *cl = &r->cfg->links[i];
	*a = r->cfg->hosts[cl->a].name;
	*b = r->cfg->hosts[cl->b].name;
	return cl->name;
}

/* One entry per link: both directions, "ab" from a to b (bytes on the wire, FCS included). */
static void json_links(FILE *f, const struct ctl_report_in *r)
{
	fprintf(f, "  \"links\": [");
	for (uint32_t i = 0; i < r->n_links; i++) {
		struct ctl_report_dir dir[2];
		const char *a, *b, *name = ctl_report_link(r, i, r->end, &a, &b, dir);
		rec_put_str(f, i ? ",\n    {\"name\": \"" : "\n    {\"name\": \"");
		rec_put_str(f, name);
		rec_put_str(f, "\", \"a\": \"");
		rec_put_str(f, a);
		rec_put_str(f, "\", \"b\": \"");
		rec_put_str(f, b);
		rec_put_str(f, "\", ");
		json_dir(f, "ab", &dir[0]);
		rec_put_str(f, ", ");
		json_dir(f, "ba", &dir[1]);
		rec_put_ch(f, '}');
	}
	fprintf(f, "%s],\n", r->n_links ? "\n  " : "");
}

static void json_mac(FILE *f, const uint8_t *m)
{
	static const char hex[] = "0123456789abcdef";

	rec_put_ch(f, '"');
	for (int i = 0; i < 6; i++) {
		if (i > 0)
			rec_put_ch(f, ':');
		rec_put_ch(f, hex[m[i] >> 4]);
		rec_put_ch(f, hex[m[i] & 15]);
	}
	rec_put_ch(f, '"');
}

/* A generated fabric's devices: name, tier, address, and each port's MAC and link (the lab's wiring sheet). */
static void json_devices(FILE *f, const struct ctl_report_in *r)
{
	const struct net_topo *t = r->topo;

	if (t == NULL)
		return;
	fprintf(f, "  \"topology\": {\"type\": \"%s\", \"devices\": [", net_topo_type_name(t->spec.type));
	for (uint32_t d = 0; d < t->size.devices; d++) {
		const struct net_topo_dev *dv = &t->devs[d];
		rec_put_str(f, d ? ",\n    {\"name\": \"" : "\n    {\"name\": \"");
		rec_put_str(f, dv->name);
		json_u64(f, "\", \"tier\": ", dv->tier);
		rec_put_str(f, ", ");
		if (dv->kind == NET_TOPO_HOST) {
			rec_put_str(f, "\"ip\": ");
			json_ip(f, dv->ip);
			rec_put_str(f, ", ");
		}
		rec_put_str(f, "\"ports\": [");
		for (uint32_t p = 0; p < dv->n_ports; p++) {
			const struct net_topo_port *pt = &t->ports[dv->port0 + p];
			json_u64(f, p ? ", {\"port\": " : "{\"port\": ", p);
			rec_put_str(f, ", \"mac\": ");
			json_mac(f, pt->mac);
			rec_put_str(f, ", \"link\": \"");
			rec_put_str(f, t->links[pt->link].name);
			rec_put_str(f, "\"}");
		}
		rec_put_str(f, "]}");
	}
	fprintf(f, "\n  ]},\n");
}

/* summary.json "messages"."list": each message of a run with at most CTL_REPORT_MSG_LIST, and its FCT (or null). */
static void json_msg_list(FILE *f, const struct ctl_report_in *r)
{
	fputs(", \"list\": [", f);
	for (uint32_t i = 0; i < r->n_msgs; i++) {
		const struct ctl_msg *m = &r->msgs[i];

		fprintf(f, "%s\n    {\"src\": \"%s\", \"dst\": \"%s\", \"bytes\": %llu, \"start_us\": %.3f, "
			"\"fct_us\": ", i ? "," : "", r->cfg->hosts[m->m->src].name, r->cfg->hosts[m->m->dst].name,
			(unsigned long long)m->m->bytes, (double)m->m->start / 1e6);
		if (m->completed)
			fprintf(f, "%.3f}", (double)(m->done - m->m->start) / 1e6);
		else
			fputs("null}", f);
	}
	fputs("]", f);
}

static void json_totals(FILE *f, const struct ctl_report_in *r, const struct totals *t)
{
	fprintf(f, "  \"messages\": {\"posted\": %u, \"completed\": %u, \"post_failed\": %llu, "
		   "\"fct_us\": {\"min\": %.3f, \"p50\": %.3f, \"p99\": %.3f, \"max\": %.3f}",
		r->n_posted, r->n_completed, (unsigned long long)r->post_fail, t->fct_min, t->fct_p50, t->fct_p99,
		t->fct_max);
	if (r->n_msgs > 0 && r->n_msgs <= CTL_REPORT_MSG_LIST)
		json_msg_list(f, r);
	fputs("},\n", f);
	fprintf(f, "  \"counters\": {\"drops\": %llu, \"trims\": %llu, \"nacks\": %llu, \"retransmits\": %llu, "
		   "\"timeouts\": %llu, \"ecn_marks\": %llu, \"pfc_pauses\": %llu},\n",
		(unsigned long long)t->c.drops, (unsigned long long)t->c.trims, (unsigned long long)t->c.nacks,
		(unsigned long long)t->c.retransmits, (unsigned long long)t->c.timeouts,
		(unsigned long long)t->c.ecn_marks, (unsigned long long)t->c.pfc_pauses);
	fprintf(f, "  \"drop_reasons\": {");
	int first = 1;
	const struct port_nic_ops *ops = r->cfg->n_hosts > 0 ? r->hosts[0].ops : NULL; /* one model for every host */

	for (uint32_t k = 1; ops != NULL && k < ops->n_counters; k++)
		if (t->c.nic_drops[k]) {
			fprintf(f, "%s\"%s\": %llu", first ? "" : ", ", ops->counter_name((int)k),
				(unsigned long long)t->c.nic_drops[k]);
			first = 0;
		}
	for (int k = 1; k < SW_C_COUNT; k++)
		if (t->c.sw_drops[k]) {
			fprintf(f, "%s\"switch_%s\": %llu", first ? "" : ", ", sw_counter_name(k),
				(unsigned long long)t->c.sw_drops[k]);
			first = 0;
		}
	for (int k = 1; k < NET_C_COUNT; k++)
		if (r->part_counters[k]) {
			fprintf(f, "%s\"%s\": %llu", first ? "" : ", ", net_counter_name(k),
				(unsigned long long)r->part_counters[k]);
			first = 0;
		}
	fprintf(f, "}\n");
}

/* Path of the @p k-th file (oldest first) capture @p i left on disk. */
static void cap_file_path_of(const struct ctl_report_in *r, uint32_t i, uint32_t k, char *path, size_t len)
{
	const struct ctl_capture *cc = &r->cfg->captures[i];
	const struct cap_stats *st = &r->cap_stats[i];
	uint32_t ring = cc->rotate >= 2 ? cc->rotate : 1;
	char base[PATH_MAX];

	if (r->cap_shards > 1) { /* an MPI rank's shard each */
		snprintf(base, sizeof(base), "%s/%s-%u", r->out_dir, cc->name, k);
		cap_file_path(base, cc->format, 0, path, len);
		return;
	}
	snprintf(base, sizeof(base), "%s/%s", r->out_dir, cc->name);
	cap_file_path(base, cc->format, (st->oldest + k) % ring, path, len);
}

/* Where capture @p cc looks: its link's, device port's or DPDK port's name. */
static const char *cap_at(const struct ctl_report_in *r, const struct ctl_capture *cc)
{
	if (cc->point == CTL_CAP_PORT)
		return cc->port;
	if (cc->point == CTL_CAP_DEV)
		return r->cfg->ports[cc->dev].dev;
	return r->topo != NULL ? r->topo->links[cc->link].name : r->cfg->links[cc->link].name;
}

/* One entry per capture: its point, format, files (oldest first) and what it saw and wrote. */
static void json_captures(FILE *f, const struct ctl_report_in *r)
{
	static const char *const points[] = { "link", "port", "dev" };

	if (r->cfg->n_captures == 0)
		return;
	fprintf(f, "  \"captures\": [");
	for (uint32_t i = 0; i < r->cfg->n_captures; i++) {
		const struct ctl_capture *cc = &r->cfg->captures[i];
		const struct cap_stats *st = &r->cap_stats[i];
		char path[PATH_MAX];

		fprintf(f, "%s\n    {\"name\": \"%s\", \"point\": \"%s\", \"at\": ", i ? "," : "", cc->name,
			points[cc->point % 3]);
		ctl_report_json_str(f, cap_at(r, cc));
		fprintf(f, ", \"format\": \"%s\", \"filter\": ", cc->format == CAP_FORMAT_PCAPNG ? "pcapng" : "pcap");
		ctl_report_json_str(f, cc->filter);
		fputs(", \"files\": [", f);
		for (uint32_t k = 0; k < st->n_files; k++) {
			cap_file_path_of(r, i, k, path, sizeof(path));
			fputs(k ? ", " : "", f);
			ctl_report_json_str(f, path);
		}
		fprintf(f, "], \"files_opened\": %u, \"seen\": %llu, \"filtered_out\": %llu, \"written\": %llu, "
			   "\"cut\": %llu, \"snapped\": %llu, \"lost_noted\": %llu, \"bytes\": %llu}",
			st->files_opened, (unsigned long long)st->seen, (unsigned long long)st->filtered_out,
			(unsigned long long)st->written, (unsigned long long)st->cut, (unsigned long long)st->snapped,
			(unsigned long long)st->lost_noted, (unsigned long long)st->bytes);
	}
	fprintf(f, "\n  ],\n");
}

/* A percentile of @p n values in the table: "n/a" for none, else "%.3f us". */
static const char *pct_us(char *buf, size_t len, uint64_t n, double v)
{
	if (n == 0)
		return "n/a";
	snprintf(buf, len, "%.3f us", v);
	return buf;
}

static void print_table(const struct ctl_report_in *r, const struct host_sum *hs, const struct totals *t)
{
	bool starred = false;
	uint64_t ce = 0;
	char b50[32], b99[32], bmax[32];

	printf("uetemu %s run '%s': seed %llu, simulated %.3f us in %.3f s wall, %llu events\n",
	       r->realtime ? "real-time" : "virtual-time", r->cfg->sim.simulation_name,
	       (unsigned long long)r->cfg->sim.random_seed, (double)r->end / 1e6, r->wall_s,
	       (unsigned long long)r->events);
	printf("%-12s %-15s %14s %14s %13s %10s\n", "host", "ip", "tx_bytes", "rx_payload", "goodput_Gbps", "ce_rcvd");
	for (uint32_t i = 0; i < r->cfg->n_hosts; i++) {
		struct port_nic_stats st;
		char ip[16];
		uint32_t a = r->cfg->hosts[i].ip;
		uint64_t hce = host_ce(&r->hosts[i]);
		/* a receiver of traffic no message goodput covers (Chakra, replays, a real peer): its delivered rate */
		bool star;

		r->hosts[i].ops->stats(r->hosts[i].dev, &st, r->end);
		star = hs[i].goodput_gbps == 0.0 && st.rx_payload_bytes > 0;
		starred |= star;
		ce += hce;
		snprintf(ip, sizeof(ip), "%u.%u.%u.%u", a >> 24, (a >> 16) & 0xff, (a >> 8) & 0xff, a & 0xff);
		printf("%-12s %-15s %14llu %14llu %12.3f%c %10llu\n", r->cfg->hosts[i].name, ip,
		       (unsigned long long)st.tx_bytes, (unsigned long long)st.rx_payload_bytes,
		       star ? rx_gbps(r, &st) : hs[i].goodput_gbps, star ? '*' : ' ', (unsigned long long)hce);
	}
	if (starred)
		printf("* payload delivered over the run's %.3f us (hosts[].rx_goodput_gbps): no completed message "
		       "of a messages application to time it by\n", (double)r->end / 1e6);
	ctl_rdma_print(r->rdma, stdout);
	ctl_chakra_print(r->chakra, stdout);
	if (r->n_msgs > 0)
		printf("messages: %u posted, %u completed, %llu failed to post; FCT p50 %s, p99 %s, max %s\n",
		       r->n_posted, r->n_completed, (unsigned long long)r->post_fail,
		       pct_us(b50, sizeof(b50), t->n_fct, t->fct_p50), pct_us(b99, sizeof(b99), t->n_fct, t->fct_p99),
		       pct_us(bmax, sizeof(bmax), t->n_fct, t->fct_max));
	printf("drops %llu, trims %llu, nacks %llu, retransmits %llu, timeouts %llu, ecn_marks %llu, pfc_pauses %llu, "
	       "ce_rcvd %llu\n",
	       (unsigned long long)t->c.drops, (unsigned long long)t->c.trims, (unsigned long long)t->c.nacks,
	       (unsigned long long)t->c.retransmits, (unsigned long long)t->c.timeouts,
	       (unsigned long long)t->c.ecn_marks, (unsigned long long)t->c.pfc_pauses, (unsigned long long)ce);
	printf("outputs: %s/summary.json, records %s/%s-*-%s.csv", r->out_dir, r->out_dir,
	       r->cfg->sim.simulation_name, r->cap_shards > 1 ? "*" : "0"); /* MPI: a shard per rank */
	/* the capture files written, oldest first: a config without captures prints none */
	for (uint32_t i = 0; i < r->cfg->n_captures; i++) {
		const struct cap_stats *st = &r->cap_stats[i];
		char path[PATH_MAX];

		for (uint32_t k = 0; k < st->n_files; k++) {
			cap_file_path_of(r, i, k, path, sizeof(path));
			printf("%s%s", i == 0 && k == 0 ? ", captures " : " ", path);
		}
	}
	putchar('\n');
}

/* A reason table: "key": n for each non-zero count, after @p first ("" or ", " so far). */
static void json_reasons(FILE *f, const uint64_t *n, int count, const char *(*key)(int), bool *first)
{
	for (int k = 1; k < count; k++)
		if (n[k]) {
			fprintf(f, "%s\"%s\": %llu", *first ? "" : ", ", key(k), (unsigned long long)n[k]);
			*first = false;
		}
}

/* Port @p p's neighbour table as the run left it. */
static void json_neighbours(FILE *f, const struct ctl_report_in *r, const struct ctl_report_port *p)
{
	uint32_t n = net_port_neighbours(p->stack, r->wall_end, NULL, 0);
	struct net_neigh_info *e = calloc(n ? n : 1, sizeof(*e));

	fputs(", \"neighbours\": [", f);
	n = e != NULL ? net_port_neighbours(p->stack, r->wall_end, e, n) : 0;
	for (uint32_t i = 0; i < n; i++) {
		fprintf(f, "%s{\"ip\": ", i ? ", " : "");
		json_ip(f, e[i].ip);
		fputs(", \"mac\": ", f);
		json_mac(f, e[i].mac);
		fprintf(f, ", \"state\": \"%s\", \"learnt\": \"%s\", \"held\": %u}", net_neigh_state_name(e[i].state),
			net_neigh_learnt_name(e[i].learnt), e[i].held);
	}
	fputc(']', f);
	free(e);
}

/* One port: its hosts, the DPDK counters, frames not taken by reason, what its IPv4 side did, its neighbours. */
/* A port bound to a switch port: the device it faces (an external host, or another process's switch), what
 * crossed it, frames the decoder refused. */
static void json_switch_port(FILE *f, const struct ctl_report_in *r, const struct ctl_report_port *p)
{
	const struct dp_port_stats *st = p->stats;
	bool first = true;

	/* a switch port faces an external host, or a switch another process runs (a fabric split across them) */
	const char *host = p->n_hosts > 0 ? r->cfg->hosts[p->hosts[0]].name : NULL;

	fprintf(f, "\n    {\"dev\": \"%s\", \"switch_port\": \"%s\", \"faces\": \"%s\", ", p->dev, p->switch_port,
		p->faces);
	if (host != NULL)
		fprintf(f, "\"host\": \"%s\", \"hosts\": [\"%s\"], ", host, host);
	else
		fputs("\"host\": null, \"hosts\": [], ", f);
	fprintf(f, "\"rx_frames\": %llu, \"tx_frames\": %llu, \"tx_drop_full\": %llu, \"tx_drop_nombuf\": %llu, "
		   "\"tx_drop_toobig\": %llu, \"rx_drop_toobig\": %llu, \"tx_drop_mtu\": %llu, \"tx_mode\": \"%s\", "
		   "\"rx_drops\": {",
		(unsigned long long)st->rx_frames, (unsigned long long)st->tx_frames,
		(unsigned long long)st->tx_drop_full, (unsigned long long)st->tx_drop_nombuf,
		(unsigned long long)st->tx_drop_toobig, (unsigned long long)st->rx_drop_toobig,
		(unsigned long long)st->tx_drop_mtu, p->tx_mode);
	json_reasons(f, p->rx_refused, WIRE_R_COUNT, wire_reason_key, &first);
	fprintf(f, "}, \"rx_csum_partial\": %llu, \"rx_csum_unverified\": %llu",
		(unsigned long long)(p->rx_csum != NULL ? p->rx_csum[0] : 0),
		(unsigned long long)(p->rx_csum != NULL ? p->rx_csum[1] : 0));
	for (int d = 0; d < 2; d++) { /* what crossed the port, by class (docs/realtime.md, Real devices across) */
		const uint64_t *c = d == 0 ? p->rx_class : p->tx_class;

		fprintf(f, ", \"%s_class\": {", d == 0 ? "rx" : "tx");
		for (int k = 0; k < WIRE_FC_COUNT; k++)
			fprintf(f, "%s\"%s\": %llu", k ? ", " : "", wire_fabric_class_key(k),
				(unsigned long long)(c != NULL ? c[k] : 0));
		fputc('}', f);
	}
	if (p->peer != NULL) { /* a link to another process's switch: its hellos (docs/realtime.md, When a peer fails) */
		fputs(", \"peer\": {", f);
		for (int k = 1; k < CTL_PEER_C_COUNT; k++)
			fprintf(f, "\"%s\": %llu, ", ctl_peer_counter_name(k), (unsigned long long)p->peer->c[k]);
		fprintf(f, "\"last_hello_s\": %.3f, \"lost\": %s}", (double)p->peer->last_rx / 1e12,
			p->peer->lost ? "true" : "false");
	}
	fputc('}', f);
}

static void json_port(FILE *f, const struct ctl_report_in *r, const struct ctl_report_port *p)
{
	if (p->stack == NULL) {
		json_switch_port(f, r, p);
		return;
	}
	const struct dp_port_stats *st = p->stats;
	const uint64_t *c = net_port_counters(p->stack);
	bool first = true;

	const struct ctl_port *cp = p->cp != NULL ? p->cp : &r->cfg->ports[p - r->ports];

	fprintf(f, "\n    {\"dev\": \"%s\", \"vlan\": %u, \"neighbour_mode\": \"%s\", \"host\": \"%s\", \"hosts\": [",
		p->dev, (unsigned)cp->vlan, cp->neigh_static ? "static" : "arp", r->cfg->hosts[p->hosts[0]].name);
	for (uint32_t k = 0; k < p->n_hosts; k++)
		fprintf(f, "%s\"%s\"", k ? ", " : "", r->cfg->hosts[p->hosts[k]].name);
	fprintf(f, "], \"rx_frames\": %llu, \"tx_frames\": %llu, \"tx_drop_full\": %llu, \"tx_drop_nombuf\": %llu, "
		   "\"tx_drop_toobig\": %llu, \"rx_drop_toobig\": %llu, \"tx_drop_mtu\": %llu, \"tx_mode\": \"%s\", "
		   "\"rx_drops\": {",
		(unsigned long long)st->rx_frames, (unsigned long long)st->tx_frames,
		(unsigned long long)st->tx_drop_full, (unsigned long long)st->tx_drop_nombuf,
		(unsigned long long)st->tx_drop_toobig, (unsigned long long)st->rx_drop_toobig,
		(unsigned long long)st->tx_drop_mtu, p->tx_mode);
	json_reasons(f, net_port_rx_drops(p->stack), NET_PORT_RX_COUNT, net_port_rx_reason_name, &first);
	json_reasons(f, net_port_rx_refused(p->stack), WIRE_R_COUNT, wire_reason_key, &first);
	fputs("}, \"stack\": {", f);
	for (int k = 1; k < NET_PORT_C_COUNT; k++)
		fprintf(f, "%s\"%s\": %llu", k > 1 ? ", " : "", net_port_counter_name(k), (unsigned long long)c[k]);
	fputc('}', f);
	json_neighbours(f, r, p);
	fputc('}', f);
}

/* Frames from real ports that a decoder refused, by reason, summed over the ports; then each port. */
static void json_ext_rx(FILE *f, const struct ctl_report_in *r)
{
	bool first = true;

	fprintf(f, "  \"port_rx_refused\": {");
	for (int k = 1; k < WIRE_R_COUNT; k++) {
		uint64_t n = 0;
		for (uint32_t i = 0; i < r->n_ports; i++)
			n += r->ports[i].stack != NULL ? net_port_rx_refused(r->ports[i].stack)[k] :
							 r->ports[i].rx_refused[k];
		if (n) {
			fprintf(f, "%s\"%s\": %llu", first ? "" : ", ", wire_reason_key(k), (unsigned long long)n);
			first = false;
		}
	}
	fprintf(f, "},\n  \"ports\": [");
	for (uint32_t i = 0; i < r->n_ports; i++) {
		fputs(i ? "," : "", f);
		json_port(f, r, &r->ports[i]);
	}
	fprintf(f, "%s],\n", r->n_ports ? "\n  " : "");
}

static const char *lag_policy_name(uint8_t p)
{
	static const char *const names[] = { [EMU_LAG_BESTEFFORT] = "besteffort", [EMU_LAG_ABORT] = "abort",
					     [EMU_LAG_ELASTIC] = "elastic" };

	return p < sizeof(names) / sizeof(names[0]) ? names[p] : "unknown";
}

/* summary.json "realtime"."lcores": each lcore's partitions, lateness and frames crossing to the others. */
static void json_lcores(FILE *f, const struct ctl_report_in *r)
{
	fputs(",\n    \"lcores\": [", f);
	for (uint32_t i = 0; i < r->n_lcores; i++) {
		const struct ctl_report_lcore *l = &r->lcores[i];
		const struct run_rt_stats *rt = l->rt;

		fprintf(f, "%s\n      {\"lcore\": %u, \"partitions\": \"%s\", \"events\": %llu, \"polls\": %llu, "
			   "\"passes_due\": %llu, \"lateness_p50_ns\": %llu, \"lateness_p99_ns\": %llu, "
			   "\"lateness_max_ns\": %llu, ", i ? "," : "", l->lcore, l->partitions,
			(unsigned long long)l->events, (unsigned long long)rt->polls,
			(unsigned long long)rt->late_ns.count, (unsigned long long)emu_hist_pct(&rt->late_ns, 50),
			(unsigned long long)emu_hist_pct(&rt->late_ns, 99), (unsigned long long)rt->late_ns.max);
		fprintf(f, "\"passes_late_over_1us\": %llu, \"passes_late_over_10us\": %llu, "
			   "\"passes_late_over_100us\": %llu, \"held_ns\": %.3f, \"cross_sent\": %llu, "
			   "\"cross_received\": %llu, \"cross_late\": %llu, \"cross_late_max_ns\": %.3f, "
			   "\"cross_ring_full\": %llu, \"writer_ring_full\": %llu, \"stalls\": %llu, \"stall_ns\": %llu, "
			   "\"stall_max_ns\": %llu, \"stalls_charged\": %llu}",
			(unsigned long long)rt->late_over[0], (unsigned long long)rt->late_over[1],
			(unsigned long long)rt->late_over[2], (double)rt->held / 1e3, (unsigned long long)l->x_sent,
			(unsigned long long)l->x_recv, (unsigned long long)l->x_late, (double)l->x_late_max / 1e3,
			(unsigned long long)l->x_full, (unsigned long long)l->wr_full, (unsigned long long)rt->stalls,
			(unsigned long long)rt->stall_ns, (unsigned long long)rt->stall_max_ns,
			(unsigned long long)rt->stalls_charged);
	}
	fputs("]", f);
}

/* summary.json "realtime": how the loop kept up with the clock (docs/realtime.md, Lateness). */
static void json_realtime(FILE *f, const struct ctl_report_in *r)
{
	const struct run_rt_stats *rt = r->rt;
	const struct emu_sim_params *sim = &r->cfg->sim;

	fprintf(f, "  \"realtime\": {\"polls\": %llu, \"max_lateness_ns\": %.3f, \"passes_late_over_1us\": %llu, "
		   "\"passes_late_over_10us\": %llu, \"passes_late_over_100us\": %llu, \"passes_due\": %llu, "
		   "\"lateness_p50_ns\": %llu, \"lateness_p99_ns\": %llu, \"lateness_max_ns\": %llu,\n",
		(unsigned long long)rt->polls, (double)rt->late_max / 1e3, (unsigned long long)rt->late_over[0],
		(unsigned long long)rt->late_over[1], (unsigned long long)rt->late_over[2],
		(unsigned long long)rt->late_ns.count, (unsigned long long)emu_hist_pct(&rt->late_ns, 50),
		(unsigned long long)emu_hist_pct(&rt->late_ns, 99), (unsigned long long)rt->late_ns.max);
	fprintf(f, "    \"time_scale\": %llu, \"lag_policy\": \"%s\", \"lag_limit_ns\": %.3f, \"held_ns\": %.3f, "
		   "\"holds\": %llu, \"lag_stop_late_ns\": %.3f, \"lag_stop_at_ps\": %llu,\n    \"timers_fired\": %llu, "
		   "\"timers_fired_late\": %llu, \"timer_late_margin_ns\": %llu",
		(unsigned long long)sim->time_scale, lag_policy_name(sim->lag_policy), (double)sim->lag_limit / 1e3,
		(double)rt->held / 1e3, (unsigned long long)rt->holds, (double)rt->lag_late / 1e3,
		(unsigned long long)rt->lag_at, (unsigned long long)rt->timers, (unsigned long long)rt->timers_late,
		(unsigned long long)(RUN_TIMER_LATE_MARGIN / EMU_PS_PER_NS));
	fprintf(f, ",\n    \"stall_threshold_ns\": %llu, \"stall_hold\": %s, \"stall_budget_pct\": %u, \"stalls\": %llu, "
		   "\"stall_ns\": %llu, \"stall_max_ns\": %llu, \"stall_held_ns\": %llu, \"stalls_charged\": %llu, "
		   "\"stalls_idle\": %llu, \"timeouts_after_stall\": %llu",
		(unsigned long long)r->stall_threshold_ns, r->stall_hold ? "true" : "false", r->stall_budget_pct,
		(unsigned long long)rt->stalls, (unsigned long long)rt->stall_ns, (unsigned long long)rt->stall_max_ns,
		(unsigned long long)rt->stall_held_ns, (unsigned long long)rt->stalls_charged,
		(unsigned long long)rt->stalls_idle, (unsigned long long)rt->timeouts_after_stall);
	if (r->cpu_steal_ns >= 0)
		fprintf(f, ", \"cpu_steal_ns\": %lld", (long long)r->cpu_steal_ns);
	if (r->partition != NULL)
		fprintf(f, ", \"partition\": \"%s\"", r->partition);
	if (r->n_lcores > 0)
		json_lcores(f, r);
	fputs("},\n", f);
}

/* The summary table's real-time line: lateness percentiles, late passes, and what the LagPolicy did. */
static void print_realtime(const struct ctl_report_in *r)
{
	const struct run_rt_stats *rt = r->rt;
	const struct emu_sim_params *sim = &r->cfg->sim;

	char b50[32], b99[32], bmax[32];

	printf("real time: %llu poll passes, %llu with events due: lateness p50 %s, p99 %s, max %s; "
	       "late > 1/10/100 us: %llu/%llu/%llu passes; LagPolicy %s",
	       (unsigned long long)rt->polls, (unsigned long long)rt->late_ns.count,
	       pct_us(b50, sizeof(b50), rt->late_ns.count, (double)emu_hist_pct(&rt->late_ns, 50) / 1e3),
	       pct_us(b99, sizeof(b99), rt->late_ns.count, (double)emu_hist_pct(&rt->late_ns, 99) / 1e3),
	       pct_us(bmax, sizeof(bmax), rt->late_ns.count, (double)rt->late_max / 1e6),
	       (unsigned long long)rt->late_over[0], (unsigned long long)rt->late_over[1],
	       (unsigned long long)rt->late_over[2], lag_policy_name(sim->lag_policy));
	if (sim->lag_policy == EMU_LAG_ELASTIC)
		printf(", held %.3f us in %llu passes", (double)rt->held / 1e6, (unsigned long long)rt->holds);
	if (rt->lag_late > 0)
		printf(", stopped %.3f us late at %.3f us", (double)rt->lag_late / 1e6, (double)rt->lag_at / 1e6);
	printf("; timers late > %llu us: %llu of %llu", (unsigned long long)(RUN_TIMER_LATE_MARGIN / EMU_PS_PER_US),
	       (unsigned long long)rt->timers_late, (unsigned long long)rt->timers);
	if (rt->stalls > 0)
		printf("; stalls over %.3f us: %llu (max %.3f us), %.3f us held back, %llu charged, %llu idle, %llu late "
		       "timers after them", (double)r->stall_threshold_ns / 1e3, (unsigned long long)rt->stalls,
		       (double)rt->stall_max_ns / 1e3, (double)rt->stall_held_ns / 1e3,
		       (unsigned long long)rt->stalls_charged, (unsigned long long)rt->stalls_idle,
		       (unsigned long long)rt->timeouts_after_stall);
	putchar('\n');
	for (uint32_t i = 0; i < r->n_lcores; i++) {
		const struct ctl_report_lcore *l = &r->lcores[i];

		printf("  lcore %u (%s): %llu passes, lateness p50 %.3f us, p99 %.3f us, max %.3f us; "
		       "late > 1/10/100 us: %llu/%llu/%llu; frames to/from other lcores %llu/%llu, %llu late "
		       "(max %.3f us), %llu lost; stalls %llu (max %.3f us)\n",
		       l->lcore, l->partitions, (unsigned long long)l->rt->polls,
		       (double)emu_hist_pct(&l->rt->late_ns, 50) / 1e3, (double)emu_hist_pct(&l->rt->late_ns, 99) / 1e3,
		       (double)l->rt->late_max / 1e6, (unsigned long long)l->rt->late_over[0],
		       (unsigned long long)l->rt->late_over[1], (unsigned long long)l->rt->late_over[2],
		       (unsigned long long)l->x_sent, (unsigned long long)l->x_recv, (unsigned long long)l->x_late,
		       (double)l->x_late_max / 1e6, (unsigned long long)(l->x_full + l->wr_full),
		       (unsigned long long)l->rt->stalls, (double)l->rt->stall_max_ns / 1e3);
	}
}

/* The whole of summary.json into @p f (docs/summary.md). */
static void json_write(FILE *f, const struct ctl_report_in *r, const struct host_sum *hs, const struct totals *t,
		       const struct ctl_verdict *v, const struct ctl_report_flows *fl)
{
	fprintf(f, "{\n  \"schema\": %d,\n  \"stop\": \"%s\",\n", CTL_SUMMARY_SCHEMA, ctl_stop_name(r->stop));
	ctl_report_verdict_json(f, r, v);
	fprintf(f, "  \"mode\": \"%s\",\n  \"simulation\": \"%s\",\n"
		   "  \"seed\": %llu,\n  \"sim_time_ps\": %llu,\n"
		   "  \"wall_s\": %.6f,\n  \"events\": %llu,\n",
		r->realtime ? "realtime" : "virtual", r->cfg->sim.simulation_name,
		(unsigned long long)r->cfg->sim.random_seed, (unsigned long long)r->end, r->wall_s,
		(unsigned long long)r->events);
	if (r->records_cut_at != EMU_PS_NEVER)
		fprintf(f, "  \"records_cut_at_ps\": %llu,\n", (unsigned long long)r->records_cut_at);
	const struct rec_budget *b = r->cfg->sim.budget;

	if (b != NULL && b->cut) { /* simulation.OutputSizeLimit reached: every output stopped there */
		fputs("  \"output_cut\": {\"output\": ", f);
		ctl_report_json_str(f, b->cut_what);
		fprintf(f, ", \"at_ps\": %llu, \"bytes\": %llu, \"limit_bytes\": %llu},\n",
			(unsigned long long)b->cut_at, (unsigned long long)b->cut_bytes, (unsigned long long)b->limit);
	}
	if (r->realtime)
		json_ext_rx(f, r);
	if (r->realtime)
		json_realtime(f, r);
	json_hosts(f, r, hs);
	json_links(f, r);
	json_devices(f, r);
	json_captures(f, r);
	if (r->extra_json != NULL)
		r->extra_json(f, r->extra_arg);
	ctl_rdma_json(r->rdma, f);
	ctl_chakra_json(r->chakra, f);
	ctl_report_flows_json(f, fl);
	json_totals(f, r, t);
	fprintf(f, "}\n");
}

int ctl_report(const struct ctl_report_in *r, char *err, size_t errlen)
{
	struct host_sum *hs = calloc(r->cfg->n_hosts, sizeof(*hs));
	struct totals t = { 0 };
	struct ctl_verdict v;
	char path[PATH_MAX], tmp[PATH_MAX];
	struct ctl_report_flows *fl = NULL;

	if (hs == NULL || ctl_report_flows_new(r, &fl) < 0) {
		free(hs);
		return -ENOMEM;
	}
	sum_hosts(r, hs);
	sum_totals(r, &t);
	ctl_report_verdict(r, &t.c, &v);
	if (r->verdict != NULL)
		*r->verdict = v;
	/* written beside summary.json, then renamed over it: a reader never sees half a summary, and a full disk
	 * leaves no broken one */
	snprintf(path, sizeof(path), "%s/summary.json", r->out_dir);
	snprintf(tmp, sizeof(tmp), "%s/.summary.json.tmp", r->out_dir);
	FILE *f = fopen(tmp, "w");
	int e = f == NULL ? errno : 0;
	char *iobuf = f != NULL ? malloc(CTL_REPORT_IOBUF) : NULL;

	if (iobuf != NULL)
		setvbuf(f, iobuf, _IOFBF, CTL_REPORT_IOBUF);
	if (f != NULL) {
		json_write(f, r, hs, &t, &v, fl);
		e = fflush(f) != 0 ? errno : ferror(f) ? EIO : 0;
		if (fclose(f) != 0 && e == 0)
			e = errno;
		if (e == 0 && rename(tmp, path) != 0)
			e = errno;
		if (e != 0)
			unlink(tmp);
	}
	free(iobuf);
	print_table(r, hs, &t);
	ctl_report_flows_print(fl);
	if (r->realtime)
		print_realtime(r);
	if (r->extra_print != NULL)
		r->extra_print(r->extra_arg);
	ctl_report_verdict_print(r, &v);
	free(hs);
	if (e != 0) {
		ctl_report_flows_free(fl);
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	e = ctl_report_flows_csv(fl, err, errlen); /* the flow-fct record: every flow, with its ideal FCT */
	ctl_report_flows_free(fl);
	return e;
}

int ctl_report_unstarted(const struct ctl_config *cfg, const char *out_dir, enum ctl_stop stop, const char *why)
{
	char path[PATH_MAX], tmp[PATH_MAX];

	if (mkdir(out_dir, 0755) != 0 && errno != EEXIST)
		return -errno;
	snprintf(path, sizeof(path), "%s/summary.json", out_dir);
	snprintf(tmp, sizeof(tmp), "%s/.summary.json.tmp", out_dir);
	FILE *f = fopen(tmp, "w");

	if (f == NULL)
		return -errno;
	fprintf(f, "{\n  \"schema\": %d,\n  \"stop\": \"%s\",\n  \"started\": false,\n  \"simulation\": ",
		CTL_SUMMARY_SCHEMA, ctl_stop_name(stop));
	ctl_report_json_str(f, cfg->sim.simulation_name);
	fputs(",\n  \"sim_time_ps\": 0,\n  \"error\": ", f);
	ctl_report_json_str(f, why);
	fputs("\n}\n", f);
	int e = fflush(f) != 0 ? errno : ferror(f) ? EIO : 0;

	if (fclose(f) != 0 && e == 0)
		e = errno;
	if (e == 0 && rename(tmp, path) != 0)
		e = errno;
	if (e != 0)
		unlink(tmp);
	return -e;
}
