/*
 * A run's lcores (docs/realtime.md, Lcores and partitions): which partitions each runs, the rings between them
 * (frames crossing partitions, stamped with their arrival time) and from each to the writer on the main lcore
 * (capture frames, record rows), and the pause in which the main lcore samples the periodic records. The poll
 * loop itself is ctl_run_rt.c's, run by every lcore.
 */
#include "ctl_run_pvt.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_spsc.h"

/* Between two lcores: 4 MiB, about 14,000 frames (a 296 B record each), 1.7 ms of 4 KiB frames at 400 Gb/s. */
#define CTL_XRING_BYTES (1u << 22)
/* To the writer: 8 MiB, about 900 full-size frames of a port capture or 24,000 of a link capture. */
#define CTL_WRING_BYTES (1u << 23)

/* What crosses between two lcores. */
enum ctl_xkind { CTL_X_FRAME = 1, CTL_X_CLOSE };

struct ctl_xmsg {
	uint32_t kind;          /* enum ctl_xkind */
	uint32_t host;          /* CLOSE: the receiver whose PDC closes */
	emu_ps_t at;            /* FRAME: arrival time; CLOSE: the time of the completion */
	struct net_dir *dir;    /* FRAME: the direction it crossed */
	uint32_t src_ip;        /* CLOSE: the sender's address */
	uint16_t pdc;           /* CLOSE: the sender's PDC */
	struct wire_pkt pkt;    /* FRAME only (a CLOSE record stops before it) */
};

/* A link capture's taps in real time: the capture, and the lcore that sends on each direction. */
struct ctl_captap {
	struct ctl_run_state *run;
	uint32_t cap;
	struct ctl_lcore *lc[2];
};

static bool is_switch(const struct ctl_run_state *r, uint32_t dev)
{
	return dev >= r->cfg->n_hosts;
}

struct net_part *ctl_run_dev_np(const struct ctl_run_state *r, uint32_t dev)
{
	return ctl_run_dev_lc(r, dev)->np;
}

struct ctl_lcore *ctl_run_dev_lc(const struct ctl_run_state *r, uint32_t dev)
{
	uint32_t lc = r->dev_lc != NULL && dev < r->cfg->n_devs ? r->dev_lc[dev] : 0;

	return &r->lcs[lc == CTL_LC_REMOTE ? 0 : lc];
}

/* Which partitions run here and on which lcore: in turn over the lcores, or only --partition's. */
static int plan_parts(struct ctl_run_state *r, uint32_t n_lcores, char *err, size_t errlen)
{
	const struct ctl_config *cfg = r->cfg;
	uint32_t local = cfg->n_parts;

	r->part = -1;
	if (r->opts->partition != NULL) {
		r->part = ctl_config_part_find(cfg, r->opts->partition);
		if (r->part < 0) {
			size_t n = (size_t)snprintf(err, errlen, "--partition %s: no such partition; %s has",
						    r->opts->partition, cfg->path);
			for (uint32_t p = 0; p < cfg->n_parts && n < errlen; p++)
				n += (size_t)snprintf(err + n, errlen - n, " %s", cfg->parts[p].name);
			return -EINVAL;
		}
		if (r->opts->mode != CTL_MODE_REALTIME) {
			snprintf(err, errlen, "--partition is for real time (--mode realtime): the other partitions "
				 "run in other processes, joined by ports");
			return -EINVAL;
		}
		local = 1;
	}
	/* as many lcores (real time) or threads (virtual time) as there are partitions to run, up to those given */
	r->n_lcs = local < n_lcores ? local : n_lcores;
	r->part_lc = malloc(sizeof(*r->part_lc) * cfg->n_parts);
	r->dev_lc = malloc(sizeof(*r->dev_lc) * (cfg->n_devs ? cfg->n_devs : 1));
	if (r->part_lc == NULL || r->dev_lc == NULL)
		return -ENOMEM;
	for (uint32_t p = 0, k = 0; p < cfg->n_parts; p++)
		r->part_lc[p] = r->part >= 0 && (int)p != r->part ? CTL_LC_REMOTE : k++ % r->n_lcs;
	for (uint32_t d = 0; d < cfg->n_devs; d++)
		r->dev_lc[d] = r->part_lc[cfg->dev_part[d]];
	return 0;
}

int ctl_run_lcore_plan(struct ctl_run_state *r, const unsigned *lcore_ids, uint32_t n_lcores, uint32_t max_events,
		       uint32_t max_pkts, char *err, size_t errlen)
{
	int rc = plan_parts(r, n_lcores ? n_lcores : 1, err, errlen);

	if (rc < 0)
		return rc;
	r->lcs = aligned_alloc(64, sizeof(*r->lcs) * r->n_lcs);
	if (r->lcs == NULL)
		return -ENOMEM;
	memset(r->lcs, 0, sizeof(*r->lcs) * r->n_lcs);
	for (uint32_t i = 0; i < r->n_lcs; i++) {
		struct ctl_lcore *lc = &r->lcs[i];

		lc->run = r;
		lc->idx = i;
		lc->lcore_id = lcore_ids != NULL ? lcore_ids[i] : 0;
		lc->np = i == 0 ? &r->np : &lc->own_np;
		if ((lc->out = calloc(r->n_lcs, sizeof(*lc->out))) == NULL)
			return -ENOMEM;
		if (i > 0 && net_part_init(&lc->own_np, max_events, max_pkts) < 0) {
			snprintf(err, errlen, "out of memory for lcore %u's event scheduler and packet pool", i);
			return -ENOMEM;
		}
	}
	return 0;
}

void ctl_run_link_ends(const struct ctl_run_state *r, uint32_t i, uint32_t *a, uint32_t *b)
{
	if (r->topo != NULL) {
		*a = r->topo->links[i].a.dev;
		*b = r->topo->links[i].b.dev;
	} else {
		*a = r->cfg->links[i].a;
		*b = r->cfg->links[i].b;
	}
}

const char *ctl_run_dev_name(const struct ctl_run_state *r, uint32_t d)
{
	return r->topo != NULL ? r->topo->devs[d].name : r->cfg->hosts[d].name;
}

/* Link @p i's end on device @p dev is bound to a port (a switch port of a fabric split across processes). */
static bool end_bound(const struct ctl_run_state *r, uint32_t i, uint32_t dev)
{
	for (uint32_t p = 0; p < r->cfg->n_ports; p++)
		if (r->cfg->ports[p].sw && r->cfg->ports[p].sw_link == i && r->cfg->ports[p].sw_dev == dev)
			return true;
	return false;
}

/* Add the line "PATH: <fmt>" to @p err. -EINVAL. */
__attribute__((format(printf, 4, 5))) static int lc_err(const struct ctl_run_state *r, char *err, size_t errlen,
							 const char *fmt, ...)
{
	size_t used = strnlen(err, errlen);
	va_list ap;

	if (used + 2 >= errlen)
		return -EINVAL;
	int n = snprintf(err + used, errlen - used, "%s%s: ", used ? "\n" : "", r->cfg->path);

	if (n > 0 && (size_t)n < errlen - used) {
		va_start(ap, fmt);
		vsnprintf(err + used + n, errlen - used - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* A link with one end here and one in another process: it must be bound on this side. */
static int check_remote_link(const struct ctl_run_state *r, uint32_t i, uint32_t a, uint32_t b, char *err,
			     size_t errlen)
{
	uint32_t here = r->dev_lc[a] == CTL_LC_REMOTE ? b : a, there = here == a ? b : a;

	if (r->dev_lc[here] == CTL_LC_REMOTE || r->dev_lc[there] != CTL_LC_REMOTE)
		return 0;
	if (is_switch(r, here) && end_bound(r, i, here))
		return 0;
	if (!is_switch(r, there) && r->cfg->hosts[there].external)
		return 0; /* a device behind the switch port: checked with the ports */
	if (!is_switch(r, here) || !is_switch(r, there))
		return lc_err(r, err, errlen, "partition %s: link %s-%s goes to %s, which partition %s runs in "
			      "another process; a host's link is not split across processes: put the host in its "
			      "switch's partition", r->cfg->parts[r->part].name, ctl_run_dev_name(r, a), ctl_run_dev_name(r, b),
			      ctl_run_dev_name(r, there), r->cfg->parts[r->cfg->dev_part[there]].name);
	return lc_err(r, err, errlen, "partition %s: link %s-%s goes to %s, which partition %s runs in another "
		      "process; bind %s's end in ports (attach: \"%s:N\"), and %s's in the other process",
		      r->cfg->parts[r->part].name, ctl_run_dev_name(r, a), ctl_run_dev_name(r, b), ctl_run_dev_name(r, there),
		      r->cfg->parts[r->cfg->dev_part[there]].name, ctl_run_dev_name(r, here), ctl_run_dev_name(r, here),
		      ctl_run_dev_name(r, there));
}

static void ev_xcross(void *arg, struct net_dir *d, const struct wire_pkt *pkt, emu_ps_t at,
		      const struct emu_sched_key *k);

/* Split link @p l across lcores @p la and @p lb: each direction crosses through its ring. */
static void split_link(struct ctl_run_state *r, struct net_link *l, uint32_t la, uint32_t lb)
{
	net_cross_fn fn = r->opts->mode == CTL_MODE_REALTIME ? ev_xcross : ctl_run_vt_cross;

	net_link_parts(l, r->lcs[la].np, r->lcs[lb].np);
	if (la == lb)
		return;
	r->lcs[la].out[lb] = (struct ctl_xroute){ .from = &r->lcs[la], .to = lb };
	r->lcs[lb].out[la] = (struct ctl_xroute){ .from = &r->lcs[lb], .to = la };
	l->dir[0].cross = fn;
	l->dir[0].cross_arg = &r->lcs[la].out[lb];
	l->dir[1].cross = fn;
	l->dir[1].cross_arg = &r->lcs[lb].out[la];
}

/* What a run split over lcores cannot do, each reported. */
static int check_split(const struct ctl_run_state *r, char *err, size_t errlen)
{
	const struct ctl_config *cfg = r->cfg;
	int rc = 0;

	if (r->n_lcs > 1 && r->chakra != NULL)
		rc = lc_err(r, err, errlen, "the Chakra workload runs on one lcore: give -l with one lcore, or one "
			    "partition");
	if (r->n_lcs > 1 && cfg->n_hosts > 0 && r->hosts[0].ops->single_lcore)
		rc = lc_err(r, err, errlen, "the %s runs on one lcore: give -l with one lcore, or one partition",
			    r->hosts[0].ops->label);
	if (r->n_lcs > 1 && r->rdma != NULL)
		rc = lc_err(r, err, errlen, "the ScalaRdma application runs on one lcore: give -l with one lcore, or "
			    "one partition");
	if (r->n_lcs > 1 && cfg->n_replays > 0)
		rc = lc_err(r, err, errlen, "replays run on one lcore (the frames enter the models on its scheduler, "
			    "a DPDK port's are sent by its loop): give -l with one lcore, or one partition");
	for (uint32_t p = 0; p < cfg->n_ports; p++) {
		const uint32_t *h = cfg->ports[p].hosts;

		for (uint32_t k = 1; k < cfg->ports[p].n_hosts; k++)
			if (r->dev_lc[h[k]] != r->dev_lc[h[0]])
				rc = lc_err(r, err, errlen, "ports.%u: hosts %s and %s share the port but are in "
					    "partitions on different lcores (or processes); put them in one", p,
					    cfg->hosts[h[0]].name, cfg->hosts[h[k]].name);
	}
	return rc;
}

int ctl_run_lcore_links(struct ctl_run_state *r, char *err, size_t errlen)
{
	int rc = check_split(r, err, errlen);

	for (uint32_t i = 0; i < r->n_links; i++) {
		uint32_t a, b;

		ctl_run_link_ends(r, i, &a, &b);
		if (r->part >= 0 && check_remote_link(r, i, a, b, err, errlen) < 0)
			rc = -EINVAL;
		uint32_t la = r->dev_lc[a] == CTL_LC_REMOTE ? 0 : r->dev_lc[a];
		uint32_t lb = r->dev_lc[b] == CTL_LC_REMOTE ? 0 : r->dev_lc[b];

		if (r->n_lcs > 1)
			split_link(r, &r->links[i], la, lb);
	}
	return rc;
}

int ctl_run_lcore_rings(struct ctl_run_state *r)
{
	for (uint32_t i = 0; i < r->n_lcs; i++) {
		struct ctl_lcore *lc = &r->lcs[i];

		lc->in = calloc(r->n_lcs, sizeof(*lc->in));
		lc->wr = emu_spsc_create(CTL_WRING_BYTES);
		if (lc->in == NULL || lc->wr == NULL)
			return -ENOMEM;
	}
	for (uint32_t i = 0; i < r->n_lcs; i++)
		for (uint32_t k = 0; k < r->n_lcs; k++)
			if (k != i && (r->lcs[k].in[i] = emu_spsc_create(CTL_XRING_BYTES)) == NULL)
				return -ENOMEM;
	for (uint32_t i = 0; i < r->n_lcs; i++)
		for (uint32_t k = 0; k < r->n_lcs; k++)
			r->lcs[i].out[k] = (struct ctl_xroute){ .from = &r->lcs[i], .to = k,
								.ring = k != i ? r->lcs[k].in[i] : NULL };
	return 0;
}

void ctl_run_lcore_fini(struct ctl_run_state *r)
{
	for (uint32_t i = 0; r->lcs != NULL && i < r->n_lcs; i++) {
		struct ctl_lcore *lc = &r->lcs[i];

		for (uint32_t k = 0; lc->in != NULL && k < r->n_lcs; k++)
			emu_spsc_destroy(lc->in[k]);
		free(lc->in);
		free(lc->out);
		emu_spsc_destroy(lc->wr);
		if (i > 0)
			net_part_fini(&lc->own_np);
	}
	free(r->lcs);
	free(r->part_lc);
	free(r->dev_lc);
	free(r->cap_taps);
	r->lcs = NULL;
	r->part_lc = NULL;
	r->dev_lc = NULL;
	r->cap_taps = NULL;
	r->n_lcs = 0;
}

/* A frame leaves its lcore on direction @p d: a copy into the ring, its arrival time with it. */
static void ev_xcross(void *arg, struct net_dir *d, const struct wire_pkt *pkt, emu_ps_t at,
		      const struct emu_sched_key *k)
{
	struct ctl_xroute *x = arg;

	(void)k; /* real time: frames arrive when they are taken, in the order they come */
	uint32_t raw = pkt->kind == WIRE_KIND_RAW ? pkt->payload_len : 0; /* a real device's bytes follow (take_one) */
	struct ctl_xmsg *m = emu_spsc_reserve(x->ring, (uint32_t)sizeof(*m) + raw);

	if (m == NULL) {
		x->from->x_full++;
		return;
	}
	m->kind = CTL_X_FRAME;
	m->at = at;
	m->dir = d;
	m->pkt = *pkt;
	if (raw != 0)
		memcpy(m + 1, pkt->raw.buf, raw);
	emu_spsc_commit(x->ring);
	x->from->x_sent++;
}

void ctl_run_lcore_close_rcv(struct ctl_lcore *lc, struct ctl_msg *msg, emu_ps_t now)
{
	struct ctl_run_state *r = lc->run;
	uint32_t dst = msg->m->dst, src_ip = r->cfg->hosts[msg->m->src].ip, to = r->dev_lc != NULL ? r->dev_lc[dst] : 0;
	uint16_t pdc = msg->pdc;

	if (ctl_run_vt_on(r)) { /* virtual time: a close delay later, through the threads' boxes (ctl_run_vt.c) */
		ctl_run_vt_close(lc, msg, now);
		return;
	}
	if (to == lc->idx) {
		r->hosts[dst].ops->close_rcv(r->hosts[dst].dev, src_ip, pdc, now);
		return;
	}
	if (to == CTL_LC_REMOTE) /* another process's host: its receive PDC is reclaimed when idle */
		return;
	struct ctl_xmsg *m = emu_spsc_reserve(lc->out[to].ring, offsetof(struct ctl_xmsg, pkt));

	if (m == NULL) {
		lc->x_full++;
		return;
	}
	*m = (struct ctl_xmsg){ .kind = CTL_X_CLOSE, .host = dst, .at = now, .src_ip = src_ip, .pdc = pdc };
	emu_spsc_commit(lc->out[to].ring);
}

/* One record from another lcore: a frame to deliver (late if its time has passed), or a PDC to close. */
static void take_one(struct ctl_lcore *lc, const struct ctl_xmsg *m, emu_ps_t now)
{
	struct ctl_run_state *r = lc->run;

	if (m->kind == CTL_X_CLOSE) {
		r->hosts[m->host].ops->close_rcv(r->hosts[m->host].dev, m->src_ip, m->pdc, now > m->at ? now : m->at);
		return;
	}
	struct wire_pkt *p = m->pkt.kind == WIRE_KIND_RAW ? net_pkt_raw_copy(lc->np, &m->pkt, (const uint8_t *)(m + 1)) :
						       net_pkt_alloc(lc->np);

	lc->x_recv++;
	if (p == NULL)
		return;
	if (m->pkt.kind != WIRE_KIND_RAW)
		*p = m->pkt;
	if (m->at < now) {
		lc->x_late++;
		lc->x_late_max = now - m->at > lc->x_late_max ? now - m->at : lc->x_late_max;
	}
	net_dir_arrive(m->dir, p, m->at);
}

void ctl_run_lcore_take(struct ctl_lcore *lc, emu_ps_t now)
{
	for (uint32_t k = 0; k < lc->run->n_lcs; k++) {
		struct emu_spsc *in = lc->in[k];
		const struct ctl_xmsg *m;
		uint32_t len;

		if (in == NULL)
			continue;
		while ((m = emu_spsc_peek(in, &len)) != NULL) {
			take_one(lc, m, now);
			emu_spsc_release(in);
		}
	}
}

/*
 * Hand record @p h (its body @p body, h->len bytes after it) to the writer on the main lcore: in virtual time the
 * thread's log (written sorted by the events' order), in real time @p lc's ring (a full ring counted).
 */
static void to_writer(struct ctl_lcore *lc, const struct ctl_whdr *h, const void *body)
{
	struct ctl_whdr *w;

	if (lc->vlog != NULL) {
		ctl_run_vt_log(lc, h, body);
		return;
	}
	if ((w = emu_spsc_reserve(lc->wr, (uint32_t)sizeof(*w) + h->len)) == NULL) {
		lc->wr_full++;
		return;
	}
	*w = *h;
	memcpy(w + 1, body, h->len);
	emu_spsc_commit(lc->wr);
}

void ctl_run_lcore_event(struct ctl_lcore *lc, const struct nic_event *ev)
{
	if (lc->run->events == NULL)
		return;
	if (lc->idx == 0 && lc->vlog == NULL) { /* real time's main lcore writes */
		ctl_records_event(lc->run->events, lc->run->cfg, ev);
		return;
	}
	to_writer(lc, &(struct ctl_whdr){ .kind = CTL_W_EVENT, .len = sizeof(*ev) }, ev);
}

void ctl_run_lcore_trace(struct ctl_lcore *lc, const struct nic_trace *tr)
{
	if (lc->idx == 0 && lc->vlog == NULL) {
		ctl_records_trace(lc->run->records, tr);
		return;
	}
	to_writer(lc, &(struct ctl_whdr){ .kind = CTL_W_TRACE, .len = sizeof(*tr) }, tr);
}

void ctl_run_lcore_cap_port(struct ctl_lcore *lc, uint32_t port, const uint8_t *frame, size_t len, bool rx,
			    emu_ps_t emu, emu_ps_t at)
{
	if (lc->wr == NULL) { /* virtual time (the re-run of a session) has no rings: written at once */
		ctl_run_cap_port_write(lc->run, port, frame, len, rx, emu, at);
		return;
	}
	to_writer(lc, &(struct ctl_whdr){ .kind = CTL_W_CAP_PORT, .idx = port, .dir = rx, .now = emu, .at = at,
					  .len = (uint32_t)len }, frame);
}

/* A link capture's tap: the frame, by value, to the writer. */
static void tap_link(void *arg, uint32_t dir, const struct wire_pkt *pkt, emu_ps_t now)
{
	struct ctl_captap *t = arg;

	to_writer(t->lc[dir], &(struct ctl_whdr){ .kind = CTL_W_CAP_LINK, .idx = t->cap, .dir = dir, .now = now,
						  .len = sizeof(*pkt) }, pkt);
}

static void tap_drop(void *arg, uint32_t dir, const struct wire_pkt *pkt, emu_ps_t now, int reason)
{
	struct ctl_captap *t = arg;

	to_writer(t->lc[dir], &(struct ctl_whdr){ .kind = CTL_W_CAP_DROP, .idx = t->cap, .dir = dir, .reason = reason,
						  .now = now, .len = sizeof(*pkt) }, pkt);
}

/* The lcore that sends on direction @p dir of link @p i (a frame from a port: the lcore that polls it). */
static struct ctl_lcore *sender_lc(struct ctl_run_state *r, uint32_t i, uint32_t dir)
{
	uint32_t a, b;

	ctl_run_link_ends(r, i, &a, &b);
	uint32_t from = dir == 0 ? a : b, to = dir == 0 ? b : a;
	bool emulated = r->dev_lc[from] != CTL_LC_REMOTE && (is_switch(r, from) || !r->cfg->hosts[from].external);

	return ctl_run_dev_lc(r, emulated ? from : to);
}

int ctl_run_lcore_cap_link(struct ctl_run_state *r, uint32_t cap, struct net_link *l)
{
	uint32_t i = (uint32_t)(l - r->links);

	if (r->cap_taps == NULL && (r->cap_taps = calloc(r->cfg->n_captures, sizeof(*r->cap_taps))) == NULL)
		return -ENOMEM;
	struct ctl_captap *t = &r->cap_taps[cap];

	*t = (struct ctl_captap){ .run = r, .cap = cap, .lc = { sender_lc(r, i, 0), sender_lc(r, i, 1) } };
	if (net_link_add_tap(l, tap_link, t) < 0 || net_link_add_drop_tap(l, tap_drop, t) < 0)
		return -ENOSPC;
	return 0;
}

/* The body is copied out: the ring's bytes are only 8-aligned. */
void ctl_run_lcore_write(struct ctl_run_state *r, const struct ctl_whdr *h)
{
	union {
		struct wire_pkt pkt;
		struct nic_event ev;
		struct nic_trace tr;
	} u;

	if (h->kind == CTL_W_CAP_PORT) {
		ctl_run_cap_port_write(r, h->idx, (const uint8_t *)(h + 1), h->len, h->dir != 0, h->now, h->at);
		return;
	}
	if (h->len > sizeof(u))
		return;
	memcpy(&u, h + 1, h->len);
	switch (h->kind) {
	case CTL_W_CAP_LINK:
		if (r->caps[h->idx] != NULL)
			cap_tap(r->caps[h->idx], h->dir, &u.pkt, h->now);
		break;
	case CTL_W_CAP_DROP:
		if (r->caps[h->idx] != NULL)
			cap_drop_tap(r->caps[h->idx], h->dir, &u.pkt, h->now, h->reason);
		break;
	case CTL_W_EVENT:
		ctl_records_event(r->events, r->cfg, &u.ev);
		break;
	case CTL_W_TRACE:
		ctl_records_trace(r->records, &u.tr);
		break;
	default:
		break;
	}
}

void ctl_run_lcore_drain_writer(struct ctl_run_state *r)
{
	for (uint32_t i = 0; i < r->n_lcs; i++) {
		struct emu_spsc *wr = r->lcs[i].wr;
		const struct ctl_whdr *h;
		uint32_t len;

		while (wr != NULL && (h = emu_spsc_peek(wr, &len)) != NULL) {
			ctl_run_lcore_write(r, h);
			emu_spsc_release(wr);
		}
	}
}

void ctl_run_lcore_sum(struct ctl_run_state *r)
{
	uint64_t done = 0, posted = 0, fail = 0;

	for (uint32_t i = 0; i < r->n_lcs; i++) {
		done += __atomic_load_n(&r->lcs[i].completed, __ATOMIC_RELAXED);
		posted += __atomic_load_n(&r->lcs[i].posted, __ATOMIC_RELAXED);
		fail += __atomic_load_n(&r->lcs[i].post_fail, __ATOMIC_RELAXED);
	}
	r->n_completed = (uint32_t)done;
	r->n_posted = (uint32_t)posted;
	r->post_fail = fail;
}

void ctl_run_lcore_merge_rt(const struct ctl_run_state *r, struct ctl_rt_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (uint32_t i = 0; i < r->n_lcs; i++) {
		const struct ctl_rt_stats *s = &r->lcs[i].rt;

		out->polls += s->polls;
		emu_hist_merge(&out->late_ns, &s->late_ns);
		out->late_max = s->late_max > out->late_max ? s->late_max : out->late_max;
		for (int k = 0; k < 3; k++)
			out->late_over[k] += s->late_over[k];
		out->held = s->held > out->held ? s->held : out->held;
		out->holds += s->holds;
		if (s->lag_late > out->lag_late) {
			out->lag_late = s->lag_late;
			out->lag_at = s->lag_at;
		}
	}
}

/* True once every other lcore has stopped at the top of its pass for pause @p k, or has ended. */
static bool all_paused(struct ctl_run_state *r, uint64_t k)
{
	for (uint32_t i = 1; i < r->n_lcs; i++)
		if (__atomic_load_n(&r->lcs[i].samples_ack, __ATOMIC_ACQUIRE) != k &&
		    !__atomic_load_n(&r->lcs[i].exited, __ATOMIC_ACQUIRE))
			return false;
	return true;
}

/*
 * The main lcore never waits for the others: when rows fall due it asks for a pause and goes on with its pass; at
 * a later pass, once every other lcore stands at the top of its pass (or has ended), it samples and lets them go.
 * So a worker that lost the CPU holds up only the others' pause, not the main lcore's passes.
 */
void ctl_run_lcore_records(struct ctl_run_state *r, emu_ps_t now)
{
	if (r->n_lcs == 1) {
		ctl_records_advance(r->records, now);
		return;
	}
	uint64_t k = r->samples_req; /* written by this lcore only */

	if (k == r->samples_go) { /* no pause asked for */
		if (ctl_records_due(r->records) <= now)
			__atomic_store_n(&r->samples_req, k + 1, __ATOMIC_RELEASE);
		return;
	}
	if (!all_paused(r, k))
		return;
	ctl_records_advance(r->records, now);
	__atomic_store_n(&r->samples_go, k, __ATOMIC_RELEASE);
}

void ctl_run_lcore_sample_wait(struct ctl_lcore *lc)
{
	struct ctl_run_state *r = lc->run;
	uint64_t k = __atomic_load_n(&r->samples_req, __ATOMIC_ACQUIRE);

	if (k == lc->samples_ack)
		return;
	__atomic_store_n(&lc->samples_ack, k, __ATOMIC_RELEASE);
	while (__atomic_load_n(&r->samples_go, __ATOMIC_ACQUIRE) != k && !*r->opts->quit &&
	       !__atomic_load_n(&r->lc_stop, __ATOMIC_ACQUIRE))
		;
}

/* The number of lcores an EAL list names ("0", "0-3", "0,2", "1@0,(2-3)@1"...): exact for numbers and ranges,
 * a lower bound (one per item) for the forms with groups; >= 1. */
static unsigned list_lcores(const char *s)
{
	unsigned n = 0;

	while (*s != '\0') {
		size_t len = strcspn(s, ",");
		char *end;
		unsigned long a = strtoul(s, &end, 10), b = a;

		if (end != s && *end == '-')
			b = strtoul(end + 1, &end, 10);
		n += end == s + len && b >= a && b - a < 1024 ? (unsigned)(b - a + 1) : 1;
		s += len + (s[len] == ',');
	}
	return n > 0 ? n : 1;
}

unsigned ctl_run_eal_lcores(const struct ctl_run_opts *o, const char **which)
{
	for (int i = 0; i < o->eal_argc; i++) {
		const char *a = o->eal_argv[i], *v = i + 1 < o->eal_argc ? o->eal_argv[i + 1] : "";

		*which = a;
		if (strncmp(a, "-l", 2) == 0)
			return list_lcores(a[2] ? a + 2 : v);
		if (strncmp(a, "--lcores", 8) == 0)
			return list_lcores(a[8] == '=' ? a + 9 : v);
		if (strncmp(a, "-c", 2) == 0)
			return (unsigned)__builtin_popcountll(strtoull(a[2] ? a + 2 : v, NULL, 16));
	}
	return 0;
}
