/*
 * A run's lcores (docs/realtime.md, Lcores and partitions): which partitions each runs (the config's), the engine
 * that runs them (runtime/run.h: its lcores, rings and loops), the links split between two, the message close as a
 * cross-partition event, and what goes to the writer on the main lcore (capture frames, record rows).
 */
#include "ctl_run_pvt.h"
#include "ctl_run_cap_pvt.h"
#include "ctl_run_vt_pvt.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(CTL_PARTS_MAX <= RUN_LCORES_MAX, "every partition may have an lcore of its own");

/* A record for the writer (real time: through an lcore's ring; virtual time: in a thread's log). */
enum ctl_wkind { CTL_W_CAP_LINK = 1, CTL_W_CAP_DROP, CTL_W_CAP_PORT, CTL_W_EVENT, CTL_W_TRACE };

struct ctl_whdr {
	uint32_t kind;          /* enum ctl_wkind */
	uint32_t idx;           /* capture index (link), port index (port) */
	uint32_t dir;           /* link direction; port: 1 received, 0 sent */
	int32_t reason;         /* CAP_DROP: the net_counter it was lost under */
	emu_ps_t now, at;       /* the emulated time; CAP_PORT: the wall clock as emulated time */
	uint32_t len;           /* bytes after the header */
	uint32_t pad;
};

/* A link capture's taps in real time: the capture, and the lcore that sends on each direction. */
struct ctl_captap {
	struct ctl_run_state *run;
	uint32_t cap;
	struct run_lcore *lc[2];
};

static bool is_switch(const struct ctl_run_state *r, uint32_t dev)
{
	return dev >= r->cfg->n_hosts;
}

struct net_part *ctl_run_dev_np(const struct ctl_run_state *r, uint32_t dev)
{
	return ctl_run_dev_lc(r, dev)->rl->np;
}

struct run_lcore *ctl_run_dev_rl(const struct ctl_run_state *r, uint32_t dev)
{
	return ctl_run_dev_lc(r, dev)->rl;
}

struct ctl_lcore *ctl_run_dev_lc(const struct ctl_run_state *r, uint32_t dev)
{
	uint32_t lc = r->dev_lc != NULL && dev < r->cfg->n_devs ? r->dev_lc[dev] : 0;

	return &r->lcs[lc == CTL_LC_REMOTE ? 0 : lc];
}

bool ctl_run_dev_shell(const struct ctl_run_state *r, uint32_t dev)
{
	/* MPI: lcore i is rank i (ctl_run_vt.c); --partition builds every device (the real time binds them) */
	return r->opts->ranks > 1 && r->dev_lc != NULL && dev < r->cfg->n_devs && r->dev_lc[dev] != r->opts->rank;
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
	bool vt = r->opts->mode == CTL_MODE_VIRTUAL && !r->rerun;

	if (rc < 0)
		return rc;
	struct run_params p = {
		.clock = r->rerun ? RUN_RERUN : vt ? RUN_VIRTUAL : RUN_REALTIME,
		.sync = r->opts->ranks > 1 ? RUN_SYNC_MPI : r->n_lcs > 1 ? RUN_SYNC_THREADS : RUN_SYNC_NONE,
		.n_lcores = r->n_lcs, .rank = r->opts->ranks > 1 ? r->opts->rank : 0, .lcore_ids = lcore_ids,
		.main_np = &r->np, .max_events = max_events, .max_pkts = max_pkts,
		.quit = r->opts->quit, .write = ctl_run_lcore_write, .write_ctx = r,
	};

	if ((rc = run_create(&r->eng, &p, err, errlen)) < 0)
		return rc;
	r->lcs = aligned_alloc(64, sizeof(*r->lcs) * r->n_lcs);
	if (r->lcs == NULL)
		return -ENOMEM;
	memset(r->lcs, 0, sizeof(*r->lcs) * r->n_lcs);
	for (uint32_t i = 0; i < r->n_lcs; i++) {
		r->lcs[i].run = r;
		r->lcs[i].rl = run_lcore(r->eng, i);
		r->lcs[i].rl->user = &r->lcs[i];
	}
	ctl_run_lcore_events(r);
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

		if (r->n_lcs > 1) {
			char name[96];

			snprintf(name, sizeof(name), "link %s-%s", ctl_run_dev_name(r, a), ctl_run_dev_name(r, b));
			run_split_link(r->eng, &r->links[i], la, lb, name);
		}
	}
	return rc;
}

int ctl_run_lcore_rings(struct ctl_run_state *r)
{
	return run_rings(r->eng);
}

void ctl_run_lcore_fini(struct ctl_run_state *r)
{
	run_destroy(r->eng);
	r->eng = NULL;
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

/*
 * The receive side of a message closes on its receiver (lcore @p lc): the event's argument is the message's index
 * and its sender's PDC (the receiver's rank knows the message, not the PDC its sender opened).
 */
static void ev_close(void *ctx, struct run_lcore *lc, uint64_t arg, emu_ps_t now)
{
	struct ctl_run_state *r = ctx;
	uint32_t i = (uint32_t)arg;

	if (i >= r->n_msgs)
		return;
	struct ctl_msg *m = &r->msgs[i];
	const struct port_nic *h = &r->hosts[m->m->dst];

	if (h->ops->close_rcv == NULL)
		return;
	m->pdc = (uint16_t)(arg >> 32);
	if (run_clock(r->eng) == RUN_VIRTUAL)
		emu_sched_set_ent(lc->np->sched, m->m->dst + 1);
	h->ops->close_rcv(h->dev, r->cfg->hosts[m->m->src].ip, m->pdc, now);
}

void ctl_run_lcore_events(struct ctl_run_state *r)
{
	r->xev_close = run_xev_kind(r->eng, ev_close, r);
}

void ctl_run_lcore_close_rcv(struct ctl_lcore *lc, struct ctl_msg *msg, emu_ps_t now)
{
	struct ctl_run_state *r = lc->run;
	uint32_t to = r->dev_lc != NULL ? r->dev_lc[msg->m->dst] : 0;
	uint64_t arg = (uint64_t)(msg - r->msgs) | (uint64_t)msg->pdc << 32;

	/* virtual time: a close delay later, the same however the fabric is cut (another process's host, in real
	 * time: its receive PDC is reclaimed when idle) */
	run_xev_post(lc->rl, to, r->xev_close, arg, now + ctl_run_vt_close_delay(r));
}

/*
 * Hand record @p h (its body @p body, h->len bytes after it) to the writer on the main lcore: in virtual time the
 * thread's log (written sorted by the events' order), in real time @p lc's ring (a full ring counted), in a
 * re-run at once (run_out()).
 */
static void to_writer(struct run_lcore *lc, const struct ctl_whdr *h, const void *body)
{
	run_out(lc, h, (uint32_t)sizeof(*h), body, h->len);
}

void ctl_run_lcore_event(struct ctl_lcore *lc, const struct nic_event *ev)
{
	if (lc->run->events == NULL)
		return;
	if (run_lcore_is_writer(lc->rl)) { /* real time's main lcore writes */
		ctl_records_event(lc->run->events, lc->run->cfg, ev);
		return;
	}
	to_writer(lc->rl, &(struct ctl_whdr){ .kind = CTL_W_EVENT, .len = sizeof(*ev) }, ev);
}

void ctl_run_lcore_trace(struct ctl_lcore *lc, const struct nic_trace *tr)
{
	if (run_lcore_is_writer(lc->rl)) {
		ctl_records_trace(lc->run->records, tr);
		return;
	}
	to_writer(lc->rl, &(struct ctl_whdr){ .kind = CTL_W_TRACE, .len = sizeof(*tr) }, tr);
}

void ctl_run_lcore_cap_port(struct run_lcore *lc, uint32_t port, const uint8_t *frame, size_t len, bool rx,
			    emu_ps_t emu, emu_ps_t at)
{
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
static struct run_lcore *sender_lc(struct ctl_run_state *r, uint32_t i, uint32_t dir)
{
	uint32_t a, b;

	ctl_run_link_ends(r, i, &a, &b);
	uint32_t from = dir == 0 ? a : b, to = dir == 0 ? b : a;
	bool emulated = r->dev_lc[from] != CTL_LC_REMOTE && (is_switch(r, from) || !r->cfg->hosts[from].external);

	return ctl_run_dev_rl(r, emulated ? from : to);
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
void ctl_run_lcore_write(void *run, const void *rec, uint32_t len)
{
	struct ctl_run_state *r = run;
	const struct ctl_whdr *h = rec;

	(void)len; /* h->len says it */
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
		ctl_run_cap_link_write(r, h->idx, h->dir, &u.pkt, h->now);
		break;
	case CTL_W_CAP_DROP:
		ctl_run_cap_drop_write(r, h->idx, h->dir, &u.pkt, h->now, h->reason);
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
