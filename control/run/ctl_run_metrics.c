/*
 * The live metrics endpoint (--metrics ADDR:PORT, docs/metrics.md): GET /metrics answers the run so far in the
 * Prometheus text format 0.0.4, or in OpenMetrics 1.0 (ending "# EOF") when the request's Accept header asks for
 * application/openmetrics-text. libmicrohttpd serves it on a thread of its own; the answer only reads the run, as
 * the DPDK telemetry handlers do (ctl_run_tel.c, whose views it takes): each counter with one aligned 64-bit load,
 * no lock, so each number is exact but numbers may be a few increments apart. In virtual time over several
 * threads the threads may be in different windows: a scrape is approximate there (each counter is one the run
 * had, not all at one emulated instant).
 */
#include "ctl_run_mon_pvt.h"
#include "ctl_run_ext_pvt.h"
#include "ctl_run_rt_pvt.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#ifdef UETEMU_METRICS
#include <microhttpd.h>
#endif

/* Split "ADDR:PORT" and resolve ADDR (IPv4): 0, or -EINVAL with @p err. */
static int parse_addr(const char *s, struct sockaddr_in *out, char *err, size_t errlen)
{
#ifdef UETEMU_METRICS
	const char *colon = strrchr(s, ':');
	char host[256], *end;
	unsigned long port;
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *ai = NULL;

	if (colon == NULL || colon == s || (size_t)(colon - s) >= sizeof(host) || colon[1] < '0' || colon[1] > '9' ||
	    (port = strtoul(colon + 1, &end, 10)) > 65535 || *end != '\0') {
		snprintf(err, errlen, "--metrics '%s': expected ADDR:PORT, e.g. 127.0.0.1:9464 (PORT 0: any free port)",
			 s);
		return -EINVAL;
	}
	memcpy(host, s, (size_t)(colon - s));
	host[colon - s] = '\0';
	if (getaddrinfo(host, NULL, &hints, &ai) != 0 || ai == NULL) {
		snprintf(err, errlen, "--metrics '%s': '%s' is no IPv4 address or host name this machine resolves", s,
			 host);
		return -EINVAL;
	}
	*out = *(const struct sockaddr_in *)ai->ai_addr;
	out->sin_port = htons((uint16_t)port);
	freeaddrinfo(ai);
	return 0;
#else
	(void)s, (void)out;
	snprintf(err, errlen, "--metrics: this uetemu was built without libmicrohttpd (install libmicrohttpd-dev, "
		 "then meson setup --reconfigure -Dmetrics=enabled)");
	return -ENOTSUP;
#endif
}

int ctl_run_metrics_check(const char *addr, char *err, size_t errlen)
{
	struct sockaddr_in sa;

	return parse_addr(addr, &sa, err, errlen);
}

#ifndef UETEMU_METRICS

int ctl_run_metrics_start(struct ctl_run_state *r, char *err, size_t errlen)
{
	struct sockaddr_in sa;

	return r->opts->metrics_addr == NULL ? 0 : parse_addr(r->opts->metrics_addr, &sa, err, errlen);
}

void ctl_run_metrics_stop(struct ctl_run_state *r)
{
	(void)r;
}

#else

struct ctl_metrics {
	struct MHD_Daemon *d;
	const struct ctl_run_state *r;
	uint64_t t0_ns;    /* the monotonic clock when it started: the run's wall time */
	uint64_t scrapes;  /* answers given (read by the answer itself, uetemu_scrapes_total) */
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- the answer's text ---- */

struct mtext {
	char *p;
	size_t n, cap;
	bool oom;
	bool om;           /* OpenMetrics: a counter's family is named without _total */
	const char *name;  /* the family being written */
	bool counter;
};

static void put(struct mtext *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct mtext *t, const char *fmt, ...)
{
	va_list ap;

	for (int pass = 0; pass < 2 && !t->oom; pass++) {
		va_start(ap, fmt);
		int k = vsnprintf(t->p + t->n, t->cap - t->n, fmt, ap);
		va_end(ap);
		if (k < 0) {
			t->oom = true;
			return;
		}
		if ((size_t)k < t->cap - t->n) {
			t->n += (size_t)k;
			return;
		}
		size_t cap = (t->cap + (size_t)k) * 2;
		char *q = realloc(t->p, cap);

		if (q == NULL) {
			t->oom = true;
			return;
		}
		t->p = q, t->cap = cap;
	}
}

/* A family's HELP and TYPE lines; its samples follow (sample()). */
static void family(struct mtext *t, const char *name, const char *type, const char *help)
{
	t->name = name;
	t->counter = strcmp(type, "counter") == 0;
	const char *sfx = t->counter && !t->om ? "_total" : "";

	put(t, "# HELP %s%s %s\n# TYPE %s%s %s\n", name, sfx, help, name, sfx, type);
}

/* One sample of the current family: @p labels ("" or 'host="h0",port="1"'), an integer value. */
static void sample(struct mtext *t, const char *labels, uint64_t v)
{
	put(t, "%s%s%s%s%s %llu\n", t->name, t->counter ? "_total" : "", labels[0] ? "{" : "", labels,
	    labels[0] ? "}" : "", (unsigned long long)v);
}

/* A counter's sample is named NAME_total, whatever its value's type (OpenMetrics requires it) */
static void sample_f(struct mtext *t, const char *labels, double v)
{
	put(t, "%s%s%s%s%s %.9g\n", t->name, t->counter ? "_total" : "", labels[0] ? "{" : "", labels,
	    labels[0] ? "}" : "", v);
}

/* @p v as a label value (backslash, double quote and newline escaped) into @p out of @p n bytes. */
static const char *label_value(const char *v, char *out, size_t n)
{
	size_t k = 0;

	for (; *v != '\0' && k + 3 < n; v++) {
		if (*v == '\\' || *v == '"' || *v == '\n')
			out[k++] = '\\';
		out[k++] = *v == '\n' ? 'n' : *v;
	}
	out[k] = '\0';
	return out;
}

/* ---- what the run has done so far ---- */

static emu_ps_t emu_now(const struct ctl_run_state *r, uint64_t *events)
{
	*events = 0;
	for (uint32_t i = 0; i < r->n_lcs; i++)
		*events += emu_sched_events_run(ctl_run_lc(r, i)->np->sched);
	if (r->rt != NULL)
		return DP_LOAD(ctl_run_lc(r, 0)->rt_now);
	uint64_t ev;

	return run_last_event(r->eng, &ev);
}

static void progress(struct mtext *t, const struct ctl_metrics *m)
{
	const struct ctl_run_state *r = m->r;
	uint64_t events, posted = 0, done = 0;
	emu_ps_t now = emu_now(r, &events);
	char l[160];

	for (uint32_t i = 0; i < r->n_lcs; i++) {
		posted += DP_LOAD(r->lcs[i].posted);
		done += DP_LOAD(r->lcs[i].completed);
	}
	family(t, "uetemu_run_info", "gauge", "The run: its simulation name and mode (value 1).");
	snprintf(l, sizeof(l), "simulation=\"%s\",mode=\"%s\"", r->cfg->sim.simulation_name,
		 r->opts->mode == CTL_MODE_REALTIME ? "realtime" : "virtual");
	sample(t, l, 1);
	family(t, "uetemu_emulated_time_seconds", "gauge", "Emulated time reached (the latest lcore's).");
	sample_f(t, "", (double)now / 1e12);
	family(t, "uetemu_wall_time_seconds", "gauge", "Wall time since the run started.");
	sample_f(t, "", (double)(mono_ns() - m->t0_ns) / 1e9);
	family(t, "uetemu_events", "counter", "Events the schedulers ran.");
	sample(t, "", events);
	family(t, "uetemu_messages", "gauge", "Messages the messages applications post in all.");
	sample(t, "", r->n_msgs);
	family(t, "uetemu_messages_posted", "counter", "Messages posted so far.");
	sample(t, "", posted);
	family(t, "uetemu_messages_completed", "counter", "Messages completed so far (their last byte acknowledged).");
	sample(t, "", done);
	if (r->rdma != NULL) {
		family(t, "uetemu_rdma_wqes_completed", "counter", "ScalaRdma WQEs completed so far.");
		sample(t, "", ctl_rdma_wqes_done(r->rdma));
	}
}

/* The fabric's counters, summed as summary.json's "counters" (the report's own sums). */
static void fabric(struct mtext *t, const struct ctl_run_state *r)
{
	struct ctl_report_counters c;

	ctl_run_tel_fabric(r, &c);
	const uint64_t v[] = { c.drops, c.trims, c.nacks, c.retransmits, c.timeouts, c.ecn_marks, c.pfc_pauses };
	static const char *const n[] = { "drops", "trims", "nacks", "retransmits", "timeouts", "ecn_marks",
					 "pfc_pauses" };
	static const char *const h[] = { "Packets dropped anywhere in the fabric (NICs, switches, links).",
					 "Packets trimmed by the switches.", "NACKs the NICs sent.",
					 "Packets the NICs retransmitted.", "Retransmission timer expiries.",
					 "Packets marked CE by the switches.", "PFC pause frames sent." };
	char name[64];

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		snprintf(name, sizeof(name), "uetemu_fabric_%s", n[i]);
		family(t, name, "counter", h[i]);
		sample(t, "", v[i]);
	}
}

/* Per host: the figures every NIC model has, its messages, and every counter of its model by name. */
static void hosts(struct mtext *t, const struct ctl_run_state *r)
{
	uint32_t n = r->cfg->n_hosts;
	struct port_nic_stats *st = calloc(n ? n : 1, sizeof(*st));
	uint64_t *mp = calloc(2 * (size_t)(n ? n : 1), sizeof(*mp));
	char l[160];

	if (st == NULL || mp == NULL) {
		free(st), free(mp);
		t->oom = true;
		return;
	}
	for (uint32_t h = 0; h < n; h++)
		r->hosts[h].ops->stats(r->hosts[h].dev, &st[h], 0);
	for (uint32_t i = 0; i < r->n_msgs; i++) {
		uint32_t s = r->msgs[i].m->src;

		mp[2 * s] += __atomic_load_n(&r->msgs[i].posted, __ATOMIC_RELAXED);
		mp[2 * s + 1] += __atomic_load_n(&r->msgs[i].completed, __ATOMIC_RELAXED);
	}
	static const struct {
		const char *name, *help;
		size_t off;
	} f[] = {
		{ "uetemu_host_tx_bytes", "Bytes the host's NIC sent on the wire, FCS included.",
		  offsetof(struct port_nic_stats, tx_bytes) },
		{ "uetemu_host_rx_bytes", "Bytes the host's NIC received from the wire, FCS included.",
		  offsetof(struct port_nic_stats, rx_bytes) },
		{ "uetemu_host_rx_payload_bytes", "New payload bytes the NIC delivered to its host.",
		  offsetof(struct port_nic_stats, rx_payload_bytes) },
		{ "uetemu_host_drops", "Packets the NIC dropped, every reason.", offsetof(struct port_nic_stats, drops) },
		{ "uetemu_host_trims", "Trimmed packets the NIC received.", offsetof(struct port_nic_stats, trims) },
		{ "uetemu_host_nacks", "NACKs the NIC sent.", offsetof(struct port_nic_stats, nacks) },
		{ "uetemu_host_retransmits", "Packets the NIC retransmitted (its model's count).",
		  offsetof(struct port_nic_stats, retransmits) },
		{ "uetemu_host_timeouts", "Retransmission timer expiries.", offsetof(struct port_nic_stats, timeouts) },
		{ "uetemu_host_pfc_pauses", "PFC pause frames the NIC sent.", offsetof(struct port_nic_stats, pfc_pauses) },
	};
	for (size_t k = 0; k < sizeof(f) / sizeof(f[0]); k++) {
		family(t, f[k].name, "counter", f[k].help);
		for (uint32_t h = 0; h < n; h++) {
			snprintf(l, sizeof(l), "host=\"%s\"", r->cfg->hosts[h].name);
			sample(t, l, *(const uint64_t *)((const char *)&st[h] + f[k].off));
		}
	}
	family(t, "uetemu_host_messages_posted", "counter", "Messages the host posted.");
	for (uint32_t h = 0; h < n; h++) {
		snprintf(l, sizeof(l), "host=\"%s\"", r->cfg->hosts[h].name);
		sample(t, l, mp[2 * h]);
	}
	family(t, "uetemu_host_messages_completed", "counter", "Messages the host posted that completed.");
	for (uint32_t h = 0; h < n; h++) {
		snprintf(l, sizeof(l), "host=\"%s\"", r->cfg->hosts[h].name);
		sample(t, l, mp[2 * h + 1]);
	}
	/* every counter of the hosts' NIC model (uetemu keys, summary.json's hosts), by its name */
	family(t, "uetemu_nic_counter", "counter", "Every counter of the host's NIC model, by its summary.json name.");
	for (uint32_t h = 0; h < n; h++) {
		const struct port_nic *nic = &r->hosts[h];
		const uint64_t *c = nic->ops->counters(nic->dev);

		for (uint32_t i = 1; i < nic->ops->n_counters; i++) {
			snprintf(l, sizeof(l), "host=\"%s\",counter=\"%s\"", r->cfg->hosts[h].name,
				 nic->ops->counter_name((int)i));
			sample(t, l, DP_LOAD(c[i]));
		}
	}
	free(st);
	free(mp);
}

/* Per switch port: bytes out, drops, ECN marks, trims, PFC frames. */
static void switches(struct mtext *t, const struct ctl_run_state *r, emu_ps_t now)
{
	uint32_t total = 0;
	char l[160];

	for (uint32_t s = 0; s < r->n_sws; s++)
		total += sw_n_ports(r->sws[s]);
	if (total == 0)
		return;
	struct sw_port_stats *st = calloc(total, sizeof(*st));

	if (st == NULL) {
		t->oom = true;
		return;
	}
	for (uint32_t s = 0, k = 0; s < r->n_sws; s++)
		for (uint32_t p = 0; p < sw_n_ports(r->sws[s]); p++)
			sw_port_stats(r->sws[s], p, &st[k++], now);
	static const char *const names[] = { "uetemu_switch_port_tx_bytes", "uetemu_switch_port_tx_frames",
					     "uetemu_switch_port_rx_bytes", "uetemu_switch_port_tx_drops",
					     "uetemu_switch_port_rx_drops", "uetemu_switch_port_trims",
					     "uetemu_switch_port_ecn_marks", "uetemu_switch_port_pfc_xoff_sent",
					     "uetemu_switch_port_pfc_xoff_received" };
	static const char *const help[] = { "Bytes the switch port sent.", "Frames the switch port sent.",
					    "Bytes the switch port received.",
					    "Egress admission drops at the port (and no-link drops).",
					    "Ingress admission drops of frames received on the port.",
					    "Packets trimmed at this egress port.",
					    "Packets marked CE at transmission, every class.",
					    "PFC XOFF frames sent to the peer, every class.",
					    "PFC XOFF requests received from the peer, every class." };
	for (size_t f = 0; f < sizeof(names) / sizeof(names[0]); f++) {
		family(t, names[f], "counter", help[f]);
		for (uint32_t s = 0, k = 0; s < r->n_sws; s++)
			for (uint32_t p = 0; p < sw_n_ports(r->sws[s]); p++, k++) {
				const struct sw_port_stats *x = &st[k];
				uint64_t ecn = 0, xoff = 0, xoff_rx = 0;

				for (int c = 0; c < SW_TC_COUNT; c++)
					ecn += x->ecn_marked[c], xoff += x->xoff_tx[c], xoff_rx += x->xoff_rx[c];
				const uint64_t v[] = { x->tx_bytes, x->tx_frames, x->rx_bytes, x->tx_drops, x->rx_drops,
						       x->trims, ecn, xoff, xoff_rx };
				snprintf(l, sizeof(l), "switch=\"%s\",port=\"%u\"", sw_name(r->sws[s]), p);
				sample(t, l, v[f]);
			}
	}
	free(st);
}

/* Per link direction, as summary.json's "links" (the report's ctl_report_link()). */
static void links(struct mtext *t, const struct ctl_run_state *r, emu_ps_t now)
{
	struct ctl_report_in in = ctl_run_tel_view(r);
	struct ctl_report_dir *d = calloc(2 * (size_t)(r->n_links ? r->n_links : 1), sizeof(*d));
	const char **nm = calloc(3 * (size_t)(r->n_links ? r->n_links : 1), sizeof(*nm));
	char l[256];

	if (d == NULL || nm == NULL) {
		free(d), free(nm);
		t->oom = true;
		return;
	}
	for (uint32_t i = 0; i < r->n_links; i++)
		nm[3 * i] = ctl_report_link(&in, i, now, &nm[3 * i + 1], &nm[3 * i + 2], &d[2 * i]);
	static const char *const names[] = { "uetemu_link_bytes", "uetemu_link_frames", "uetemu_link_drops",
					     "uetemu_link_trims", "uetemu_link_ecn_marks", "uetemu_link_pauses" };
	static const char *const help[] = { "Bytes on the wire in the direction, FCS included.",
					    "Frames in the direction.", "Packets dropped in the direction.",
					    "Packets trimmed in the direction.", "Packets marked CE in the direction.",
					    "PFC pauses in the direction." };
	for (size_t f = 0; f < sizeof(names) / sizeof(names[0]); f++) {
		family(t, names[f], "counter", help[f]);
		for (uint32_t i = 0; i < r->n_links; i++)
			for (uint32_t e = 0; e < 2; e++) {
				const struct ctl_report_dir *x = &d[2 * i + e];
				const uint64_t v[] = { x->bytes, x->frames, x->drops, x->trims, x->ecn_marks, x->pauses };

				snprintf(l, sizeof(l), "link=\"%s\",from=\"%s\",to=\"%s\"", nm[3 * i],
					 nm[3 * i + 1 + e], nm[3 * i + 2 - e]);
				sample(t, l, v[f]);
			}
	}
	free(d);
	free(nm);
}

/* Real time: each DPDK port's frames and bytes, and its drops by reason. */
static void ports(struct mtext *t, const struct ctl_run_state *r)
{
	if (r->rt == NULL || r->rt->dp == NULL || r->n_exts == 0)
		return;
	uint32_t n = DP_LOAD(r->n_exts);
	struct dp_port_stats *st = calloc(n, sizeof(*st));
	char l[600], dev[260];

	if (st == NULL) {
		t->oom = true;
		return;
	}
	for (uint32_t i = 0; i < n; i++)
		if (!r->exts[i].off)
			dp_port_stats(r->rt->dp, r->exts[i].dp_port, &st[i]);
	static const char *const names[] = { "uetemu_port_rx_frames", "uetemu_port_rx_bytes", "uetemu_port_tx_frames",
					     "uetemu_port_tx_bytes" };
	static const char *const help[] = { "Frames the DPDK port received.", "Bytes the DPDK port received.",
					    "Frames the DPDK port sent.", "Bytes the DPDK port sent." };
	for (size_t f = 0; f < 4; f++) {
		family(t, names[f], "counter", help[f]);
		for (uint32_t i = 0; i < n; i++) {
			const uint64_t v[] = { st[i].rx_frames, st[i].rx_bytes, st[i].tx_frames, st[i].tx_bytes };

			if (r->exts[i].off)
				continue;
			snprintf(l, sizeof(l), "port=\"%u\",dev=\"%s\"", i, label_value(r->cfg->ports[i].dev, dev, sizeof(dev)));
			sample(t, l, v[f]);
		}
	}
	family(t, "uetemu_port_drops", "counter", "Frames the DPDK port dropped, by direction and reason.");
	for (uint32_t i = 0; i < n; i++) {
		const struct ctl_ext *x = &r->exts[i];
		static const uint64_t none[NET_PORT_RX_COUNT];
		const uint64_t *bad = x->stack != NULL ? net_port_rx_refused(x->stack) : x->sw_rx_refused;
		const uint64_t *drop = x->stack != NULL ? net_port_rx_drops(x->stack) : none;
		uint64_t refused = 0, not_taken = 0;

		if (x->off)
			continue;
		for (int k = 0; k < WIRE_R_COUNT; k++)
			refused += DP_LOAD(bad[k]);
		for (int k = 1; k < NET_PORT_RX_COUNT; k++)
			not_taken += DP_LOAD(drop[k]);
		const uint64_t v[] = { st[i].tx_drop_full, st[i].tx_drop_nombuf, st[i].tx_drop_toobig, st[i].tx_drop_mtu,
				       st[i].rx_drop_toobig, refused, not_taken };
		static const char *const why[] = { "tx\",reason=\"full", "tx\",reason=\"nombuf", "tx\",reason=\"toobig",
						   "tx\",reason=\"mtu", "rx\",reason=\"toobig", "rx\",reason=\"refused",
						   "rx\",reason=\"not_taken" };
		for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
			snprintf(l, sizeof(l), "port=\"%u\",dev=\"%s\",dir=\"%s\"", i,
				 label_value(r->cfg->ports[i].dev, dev, sizeof(dev)), why[k]);
			sample(t, l, v[k]);
		}
	}
	free(st);
}

/* Per lcore (thread): events; real time: passes and their lateness so far. */
static void lcores(struct mtext *t, const struct ctl_run_state *r)
{
	char l[64];
	bool rt = r->rt != NULL;

	family(t, "uetemu_lcore_events", "counter", "Events the lcore's (thread's) scheduler ran.");
	for (uint32_t i = 0; i < r->n_lcs; i++) {
		snprintf(l, sizeof(l), "lcore=\"%u\"", i);
		sample(t, l, emu_sched_events_run(ctl_run_lc(r, i)->np->sched));
	}
	/* each lcore's own time: with --threads, how far apart a scrape's counters may be */
	family(t, "uetemu_lcore_emulated_time_seconds", "gauge",
	       "Emulated time the lcore (thread) has reached: its last event, or its current pass in real time.");
	for (uint32_t i = 0; i < r->n_lcs; i++) {
		const struct run_lcore *lc = ctl_run_lc(r, i);

		snprintf(l, sizeof(l), "lcore=\"%u\"", i);
		sample_f(t, l, (double)(rt ? DP_LOAD(lc->rt_now) : emu_sched_now(lc->np->sched)) / 1e12);
	}
	if (!rt)
		return;
	family(t, "uetemu_lcore_info", "gauge", "The EAL lcore each lcore index runs on (value 1).");
	for (uint32_t i = 0; i < r->n_lcs; i++) {
		snprintf(l, sizeof(l), "lcore=\"%u\",eal_lcore=\"%u\"", i, ctl_run_lc(r, i)->lcore_id);
		sample(t, l, 1);
	}
	static const char *const names[] = { "uetemu_lcore_passes", "uetemu_lcore_lateness_p50_seconds",
					     "uetemu_lcore_lateness_p99_seconds", "uetemu_lcore_lateness_max_seconds" };
	static const char *const help[] = { "Poll passes of the real-time loop.",
					    "Median lateness of the passes that had an event due, so far.",
					    "99th percentile of that lateness, so far.", "The largest lateness so far." };
	for (int f = 0; f < 4; f++) {
		family(t, names[f], f == 0 ? "counter" : "gauge", help[f]);
		for (uint32_t i = 0; i < r->n_lcs; i++) {
			const struct run_lcore *lc = ctl_run_lc(r, i);

			snprintf(l, sizeof(l), "lcore=\"%u\"", i);
			if (f == 0)
				sample(t, l, DP_LOAD(lc->rt.polls));
			else
				sample_f(t, l, f == 3 ? (double)DP_LOAD(lc->rt.late_max) / 1e12
						      : (double)emu_hist_pct(&lc->rt.late_ns, f == 1 ? 50 : 99) / 1e9);
		}
	}
}

/* Real time: the stalls so far (docs/realtime.md, Stalls): the run's, each counted once, and each lcore's gaps. */
static void stalls(struct mtext *t, const struct ctl_run_state *r)
{
	struct run_rt_stats st = { 0 };
	uint64_t after = 0;
	char l[32];

	if (r->rt == NULL)
		return;
	run_stalls(r->eng, &st);
	for (uint32_t i = 0; i < r->n_lcs; i++)
		after += DP_LOAD(ctl_run_lc(r, i)->rt.timeouts_after_stall);
	family(t, "uetemu_stalls", "counter", "Stalls: gaps between two passes of an lcore over the stall threshold.");
	sample(t, "", st.stalls);
	family(t, "uetemu_stalls_charged", "counter",
	       "Stalls the clock jumped over (past --stall-budget, or --stall-threshold off).");
	sample(t, "", st.stalls_charged);
	family(t, "uetemu_stalls_idle", "counter", "Stalls in which no event fell due: jumped over at no cost.");
	sample(t, "", st.stalls_idle);
	family(t, "uetemu_stall_seconds", "counter", "Wall time of the stalls past the threshold.");
	sample_f(t, "", (double)st.stall_ns / 1e9);
	family(t, "uetemu_stall_held_seconds", "counter", "Wall time the emulated clock was held back for stalls.");
	sample_f(t, "", (double)st.stall_held_ns / 1e9);
	family(t, "uetemu_timeouts_after_stall", "counter", "Late timers run within one RTO after a charged stall.");
	sample(t, "", after);
	family(t, "uetemu_lcore_stalls", "counter", "The stalls the lcore saw (a stall of the process: every lcore's).");
	for (uint32_t i = 0; i < r->n_lcs; i++) {
		snprintf(l, sizeof(l), "lcore=\"%u\"", i);
		sample(t, l, DP_LOAD(ctl_run_lc(r, i)->rt.stalls));
	}
}

/* The whole answer. */
static void render(struct mtext *t, struct ctl_metrics *m)
{
	const struct ctl_run_state *r = m->r;
	uint64_t ev;
	emu_ps_t now = emu_now(r, &ev);

	progress(t, m);
	fabric(t, r);
	hosts(t, r);
	ports(t, r);
	switches(t, r, now);
	links(t, r, now);
	lcores(t, r);
	stalls(t, r);
	family(t, "uetemu_scrapes", "counter", "Answers this endpoint has given, this one included.");
	sample(t, "", __atomic_add_fetch(&m->scrapes, 1, __ATOMIC_RELAXED));
	if (t->om)
		put(t, "# EOF\n");
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			      const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
	struct ctl_metrics *m = cls;
	struct MHD_Response *resp;
	enum MHD_Result rc;
	const char *accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
	struct mtext t = { .om = accept != NULL && strstr(accept, "application/openmetrics-text") != NULL,
			   .cap = 64 * 1024 };
	unsigned status = MHD_HTTP_OK;

	(void)version, (void)upload, (void)upload_size, (void)con_cls;
	if ((t.p = malloc(t.cap)) == NULL)
		return MHD_NO;
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
		status = MHD_HTTP_METHOD_NOT_ALLOWED;
		put(&t, "uetemu: only GET /metrics\n");
	} else if (strcmp(url, "/metrics") != 0) {
		status = MHD_HTTP_NOT_FOUND;
		t.om = false;
		put(&t, "uetemu: the metrics are at /metrics\n");
	} else {
		render(&t, m);
	}
	if (t.oom) {
		free(t.p);
		return MHD_NO;
	}
	resp = MHD_create_response_from_buffer(t.n, t.p, MHD_RESPMEM_MUST_FREE);
	if (resp == NULL) {
		free(t.p);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
				status != MHD_HTTP_OK ? "text/plain; charset=utf-8"
				: t.om ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
				       : "text/plain; version=0.0.4; charset=utf-8");
	rc = MHD_queue_response(c, status, resp);
	MHD_destroy_response(resp);
	return rc;
}

int ctl_run_metrics_start(struct ctl_run_state *r, char *err, size_t errlen)
{
	struct sockaddr_in sa;
	struct ctl_metrics *m;
	int rc;

	if (r->opts->metrics_addr == NULL || r->opts->rank != 0) /* MPI: rank 0 serves (its own devices) */
		return 0;
	if ((rc = parse_addr(r->opts->metrics_addr, &sa, err, errlen)) < 0)
		return rc;
	if ((m = calloc(1, sizeof(*m))) == NULL)
		return -ENOMEM;
	m->r = r;
	m->t0_ns = mono_ns();
	errno = 0;
	m->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, ntohs(sa.sin_port), NULL, NULL, answer, m,
				MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa, MHD_OPTION_CONNECTION_TIMEOUT, 10u,
				MHD_OPTION_CONNECTION_LIMIT, 16u, MHD_OPTION_END);
	if (m->d == NULL) {
		int e = errno ? errno : EADDRNOTAVAIL;

		snprintf(err, errlen, "--metrics %s: cannot listen there: %s", r->opts->metrics_addr,
			 errno ? strerror(e) : "the HTTP server did not start (address in use, or not this machine's)");
		free(m);
		return -e;
	}
	r->metrics = m;
	const union MHD_DaemonInfo *di = MHD_get_daemon_info(m->d, MHD_DAEMON_INFO_BIND_PORT);
	char ip[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &sa.sin_addr, ip, sizeof(ip));
	if (r->opts->progress)
		fprintf(stderr, "[uetemu] metrics: http://%s:%u/metrics\n", ip,
			di != NULL ? (unsigned)di->port : (unsigned)ntohs(sa.sin_port));
	return 0;
}

void ctl_run_metrics_stop(struct ctl_run_state *r)
{
	if (r->metrics == NULL)
		return;
	MHD_stop_daemon(r->metrics->d);
	free(r->metrics);
	r->metrics = NULL;
}

#endif /* UETEMU_METRICS */
