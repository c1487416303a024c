/*
 * The capture points of a run (docs/capture.md): opened from the config's captures, fed by link taps (link, port)
 * and by the real-time ports (dev), closed with their statistics for the summary. In real time the ports' frames
 * and the links' frames go through each lcore's ring to the writer on the main lcore (ctl_run_lcore.c), a full
 * ring counted; virtual time writes them as the taps see them.
 */
#include "ctl_run_pvt.h"
#include "ctl_run_cap_pvt.h"
#include "ctl_run_ext_pvt.h"
#include "ctl_run_rt_pvt.h"
#include "ctl_run_vt_pvt.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The captures of a run. */
struct ctl_run_caps {
	struct cap **c;              /* one per captures[] entry (NULL once closed) */
	struct cap **port;           /* real time, a re-run: the capture of each ports[] entry, or NULL */
	bool pdump;                  /* real time: the rte_pdump server runs (hugepages) */
	int64_t epoch_ns;            /* the wall clock at the run's time 0 (real time; a re-run: its session's) */
};

/* Name of link @p i of the run: explicit, or the generated topology's. */
static const char *link_name(const struct ctl_run_state *r, uint32_t i)
{
	return r->topo != NULL ? r->topo->links[i].name : r->cfg->links[i].name;
}

/* What the pcapng interface of capture @p cc is called and how fast it is. */
static void describe(const struct ctl_run_state *r, const struct ctl_capture *cc, struct cap_cfg *cfg, char *name,
		     size_t len, char *desc, size_t dlen)
{
	switch (cc->point) {
	case CTL_CAP_PORT:
		snprintf(name, len, "%s", cc->port);
		snprintf(desc, dlen, "uetemu device port %s (link %s): what it sends (outbound) and receives (inbound)",
			 cc->port, link_name(r, cc->link));
		break;
	case CTL_CAP_DEV:
		snprintf(name, len, "%.*s", (int)strcspn(r->cfg->ports[cc->dev].dev, ","), r->cfg->ports[cc->dev].dev);
		{
			const struct ctl_port *cp = &r->cfg->ports[cc->dev];
			const char *peer = cp->sw ? r->topo->devs[cp->sw_peer].name : r->cfg->hosts[cp->hosts[0]].name;

			snprintf(desc, dlen, "uetemu DPDK port %s (%s %s%s): frames sent (outbound) and received (inbound)",
				 cp->dev, cp->sw ? "switch port facing" : "host", peer,
				 !cp->sw && cp->n_hosts > 1 ? " and others" : "");
		}
		break;
	default:
		snprintf(name, len, "%s", link_name(r, cc->link));
		snprintf(desc, dlen, "uetemu link %s: both directions, stamped as a frame's first bit enters it",
			 link_name(r, cc->link));
		break;
	}
	cfg->if_speed = cc->point == CTL_CAP_DEV ? ctl_config_host_bps(r->cfg) : r->links[cc->link].bps;
	cfg->out_dir = cc->point == CTL_CAP_PORT ? cc->end : -1;
}

/* The writer's settings for capture @p cc; @p base, @p name and @p desc hold its strings. */
static struct cap_cfg cap_cfg_of(const struct ctl_run_state *r, const struct ctl_capture *cc, char *base,
				 char *name, char *desc, size_t nlen, size_t dlen)
{
	bool rt = r->opts->mode == CTL_MODE_REALTIME || r->rerun; /* a re-run stamps as its real-time session did */
	struct cap_cfg cfg = {
		.base = base, .format = cc->format, .snaplen = cc->snaplen, .max_frames = cc->max_frames,
		.max_bytes = cc->max_bytes, .rotate = cc->rotate, .filter = cc->filter, .if_name = name,
		.if_desc = desc,
		/* real time without an epoch: the wall clock, set when the run's time 0 is (ctl_run_caps_rt_start) */
		.epoch_ns = cc->has_epoch ? cc->epoch_ns : rt ? 0 : CAP_EPOCH_2026_NS,
		.scale = rt && !cc->has_epoch ? r->cfg->sim.time_scale : 1,
		.note_emu = rt && !cc->has_epoch,
		.budget = r->cfg->sim.budget,
	};

	if (r->opts->ranks > 1) /* an MPI rank's shard: the frames its devices send */
		snprintf(base, PATH_MAX, "%s/%s-%u", r->opts->out_dir, cc->name, r->opts->rank);
	else
		snprintf(base, PATH_MAX, "%s/%s", r->opts->out_dir, cc->name);
	describe(r, cc, &cfg, name, nlen, desc, dlen);
	return cfg;
}

/* Put capture @p i where it sees its frames: the taps of its link, or its DPDK port (ctl_run_caps_check() passed). */
static int attach(struct ctl_run_state *r, uint32_t i)
{
	const struct ctl_capture *cc = &r->cfg->captures[i];
	struct net_link *l = &r->links[cc->link];

	if (cc->point == CTL_CAP_DEV) {
		r->caps->port[cc->dev] = r->caps->c[i];
		return 0;
	}
	/* through the lcores' rings to the writer (ctl_run_lcore.c), or the threads' logs (ctl_run_vt.c) */
	if (r->opts->mode == CTL_MODE_REALTIME || ctl_run_vt_on(r))
		return ctl_run_lcore_cap_link(r, i, l);
	struct cap *c = r->caps->c[i];

	if (net_link_add_tap(l, cap_tap, c) < 0 || net_link_add_drop_tap(l, cap_drop_tap, c) < 0)
		return -ENOSPC;
	return 0;
}

/* Append "PATH: captures.I: <fmt>" as a line of @p err (after the errors already there, while it fits). -EINVAL. */
__attribute__((format(printf, 5, 6))) static int cap_err(const struct ctl_run_state *r, uint32_t i, char *err,
							  size_t errlen, const char *fmt, ...)
{
	size_t used = strnlen(err, errlen);
	va_list ap;
	int n;

	if (used + 2 >= errlen)
		return -EINVAL;
	n = snprintf(err + used, errlen - used, "%s%s: captures.%u: ", used ? "\n" : "", r->cfg->path, i);
	if (n > 0 && (size_t)n < errlen - used) {
		va_start(ap, fmt);
		vsnprintf(err + used + n, errlen - used - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

int ctl_run_caps_check(const struct ctl_run_state *r, char *err, size_t errlen)
{
	const struct ctl_config *cfg = r->cfg;
	int rc = 0;

	for (uint32_t i = 0; i < cfg->n_captures; i++) {
		const struct ctl_capture *cc = &cfg->captures[i];
		uint32_t same = 0;

		if (cc->point == CTL_CAP_DEV && r->opts->mode != CTL_MODE_REALTIME && !r->rerun)
			rc = cap_err(r, i, err, errlen, "dev '%s' is a DPDK port, which only a real-time run has (--mode "
				     "realtime)", cfg->ports[cc->dev].dev);
		for (uint32_t k = 0; cc->point != CTL_CAP_DEV && k < i; k++)
			same += cfg->captures[k].point != CTL_CAP_DEV && cfg->captures[k].link == cc->link;
		if (same == NET_LINK_MAX_TAPS)
			rc = cap_err(r, i, err, errlen, "link %s has %d captures already, the most a link takes",
				     link_name(r, cc->link), NET_LINK_MAX_TAPS);
	}
	return rc;
}

int ctl_run_caps_open(struct ctl_run_state *r, char *err, size_t errlen)
{
	const struct ctl_config *cfg = r->cfg;
	char base[PATH_MAX], name[CTL_DEV_MAX], desc[CTL_DEV_MAX + 256];

	if ((r->caps = calloc(1, sizeof(*r->caps))) == NULL)
		return -ENOMEM;
	r->caps->c = calloc(cfg->n_captures ? cfg->n_captures : 1, sizeof(*r->caps->c));
	r->cap_stats = calloc(cfg->n_captures ? cfg->n_captures : 1, sizeof(*r->cap_stats));
	r->caps->port = calloc(cfg->n_ports ? cfg->n_ports : 1, sizeof(*r->caps->port));
	if (r->caps->c == NULL || r->cap_stats == NULL || r->caps->port == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < cfg->n_captures; i++) {
		const struct ctl_capture *k = &cfg->captures[i];
		const struct ctl_port *cp = k->point == CTL_CAP_DEV ? &cfg->ports[k->dev] : NULL;

		/* --partition: a port another process binds is captured there (summary.json: no files here) */
		if (cp != NULL && r->dev_lc[ctl_run_port_dev(cp)] == CTL_LC_REMOTE)
			continue;
		struct cap_cfg cc = cap_cfg_of(r, k, base, name, desc, sizeof(name), sizeof(desc));

		r->caps->c[i] = cap_open(&cc, err, errlen);
		if (r->caps->c[i] == NULL)
			return -errno;
		if (attach(r, i) < 0) {
			snprintf(err, errlen, "%s: captures.%u: no tap left on its link", cfg->path, i);
			return -ENOSPC;
		}
	}
	return 0;
}

void ctl_run_caps_epoch(struct ctl_run_state *r, int64_t epoch_ns)
{
	if (r->caps == NULL)
		return;
	r->caps->epoch_ns = epoch_ns;
	for (uint32_t i = 0; i < r->cfg->n_captures; i++)
		if (r->caps->c[i] != NULL && !r->cfg->captures[i].has_epoch)
			cap_set_epoch(r->caps->c[i], epoch_ns);
}

void ctl_run_caps_rt_start(struct ctl_run_state *r)
{
	struct timespec ts;
	char err[256];

	clock_gettime(CLOCK_REALTIME, &ts);
	ctl_run_caps_epoch(r, (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec);
	int rc = dp_pdump_start(r->rt->dp, err, sizeof(err));

	r->caps->pdump = rc > 0;
	if (rc < 0)
		fprintf(stderr, "[uetemu] %s\n", err);
}

void ctl_run_caps_rt_stop(struct ctl_run_state *r)
{
	if (r->caps->pdump)
		dp_pdump_stop(r->rt->dp);
	r->caps->pdump = false;
}

void ctl_run_cap_port(struct ctl_ext *x, const uint8_t *frame, size_t len, bool rx, emu_ps_t emu)
{
	struct ctl_run_state *r = x->run;

	if (r->caps->port[x - r->exts] == NULL)
		return;
	uint64_t scale = r->cfg->sim.time_scale ? r->cfg->sim.time_scale : 1;
	/* the wall clock now, as the emulated time it stands for (the capture multiplies by TimeScale again); a
	 * re-run has no wall clock: its emulated time */
	emu_ps_t at = r->rerun ? emu :
		(emu_ps_t)((unsigned __int128)(dp_tsc() - r->rt->t0) * EMU_PS_PER_S / r->rt->hz / scale);

	ctl_run_lcore_cap_port(x->lc, (uint32_t)(x - r->exts), frame, len, rx, emu, at);
}

void ctl_run_cap_port_write(struct ctl_run_state *r, uint32_t port, const uint8_t *frame, size_t len, bool rx,
			    emu_ps_t emu, emu_ps_t at)
{
	struct cap *c = r->caps->port[port];
	char note[96];
	const char *why = NULL;

	if (c == NULL)
		return;
	if (rx && cap_notes(c)) {
		struct wire_pkt pkt;
		int rc = wire_decode(frame, len, r->cfg->nic.udp_port, &pkt);

		if (rc != WIRE_R_OK) {
			snprintf(note, sizeof(note), "refused by uetemu's decoder: %s (%s)", wire_reason_str(rc),
				 wire_reason_key(rc));
			why = note;
		}
	}
	cap_frame(c, frame, len, at, emu, rx ? CAP_DIR_IN : CAP_DIR_OUT, why);
}

int ctl_run_caps_close(struct ctl_run_state *r, char *err, size_t errlen)
{
	char e1[PATH_MAX + 64];
	int rc = 0;

	for (uint32_t i = 0; r->caps != NULL && i < r->cfg->n_captures; i++) {
		int e = cap_close(r->caps->c[i], &r->cap_stats[i], e1, sizeof(e1));

		r->caps->c[i] = NULL;
		if (e < 0)
			rec_note_err(err, errlen, "%s", e1);
		rc = rc < 0 ? rc : e;
	}
	return rc;
}

void ctl_run_caps_free(struct ctl_run_state *r)
{
	for (uint32_t i = 0; r->caps != NULL && r->caps->c != NULL && i < r->cfg->n_captures; i++)
		cap_close(r->caps->c[i], NULL, NULL, 0);
	if (r->caps != NULL) {
		free(r->caps->c);
		free(r->caps->port);
	}
	free(r->caps);
	free(r->cap_stats);
	r->caps = NULL;
	r->cap_stats = NULL;
}

int64_t ctl_run_caps_epoch_ns(const struct ctl_run_state *r)
{
	return r->caps != NULL ? r->caps->epoch_ns : 0;
}

bool ctl_run_cap_port_on(const struct ctl_run_state *r, uint32_t port)
{
	return r->caps != NULL && r->caps->port != NULL && r->caps->port[port] != NULL;
}

void ctl_run_cap_link_write(struct ctl_run_state *r, uint32_t cap, uint32_t dir, const struct wire_pkt *pkt,
			    emu_ps_t now)
{
	if (r->caps->c[cap] != NULL)
		cap_tap(r->caps->c[cap], dir, pkt, now);
}

void ctl_run_cap_drop_write(struct ctl_run_state *r, uint32_t cap, uint32_t dir, const struct wire_pkt *pkt,
			    emu_ps_t now, int reason)
{
	if (r->caps->c[cap] != NULL)
		cap_drop_tap(r->caps->c[cap], dir, pkt, now, reason);
}
