/*
 * The replay sources of a run (docs/replay.md): a capture's frames entering a device port or a host's NIC at exact
 * emulated times through the scheduler (both modes), or sent on a DPDK port at TSC deadlines (real time), with
 * the timing error of each send measured.
 */
#include "ctl_run_pvt.h"
#include "ctl_run_ext_pvt.h"
#include "ctl_run_replay_pvt.h"
#include "ctl_run_ctl_pvt.h"
#include "ctl_run_rt_pvt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dp.h"

/* A replay of the run (replay[i]): its frames, where they go, what became of them. */
struct ctl_replay_src {
	struct ctl_run_state *run;
	const struct ctl_replay *cfg;
	struct cap_replay *rp;
	const struct cap_replay_info *info;
	uint64_t next;                 /* the next frame to play, 0 .. info->total */
	struct net_dir *dir;           /* port, host: the link direction into the device */
	emu_timer_t timer;             /* port, host: the pending event of the next frame */
	int dp_port;                   /* dev, real time: the DPDK port, once open; else -1 */
	bool timed;                    /* real time: each frame's timing error is measured */
	bool off;                      /* --partition: its device runs in another process, which plays it */
	uint64_t tsc_per_ps_num;       /* real time: TSC ticks per 10^12 ps (hz x TimeScale) */
	uint64_t sent;                 /* frames handed to the device, or staged on the DPDK port */
	uint64_t refused[WIRE_R_COUNT]; /* port, host: frames the decoder refused, by reason */
	uint64_t no_pkt;               /* port, host: frames lost to an empty descriptor pool */
	uint64_t sched_full;           /* port, host: frames not played, the scheduler being full */
	uint64_t tx_drops;             /* dev: frames the DPDK port did not take */
	struct emu_hist err_ns;        /* real time: send (dev) or injection time minus deadline, TSC in ns */
};

/* The replays of a run: one per replay[] entry. */
struct ctl_run_replays {
	struct ctl_replay_src *s;
	uint32_t n;
};

/* The replays opened so far. */
static uint32_t n_of(const struct ctl_run_state *r)
{
	return r->replays != NULL ? r->replays->n : 0;
}

/* Frames a DPDK-port replay sends in one poll pass at most, so a late loop catches up without starving the rest. */
#define REPLAY_PASS_MAX 256

/* Real time: the TSC of frame @p k of replay @p s: the run's time 0 plus its deadline x TimeScale. */
static uint64_t deadline_tsc(const struct ctl_replay_src *s, uint64_t k)
{
	return s->run->rt->t0 + (uint64_t)((unsigned __int128)cap_replay_deadline(s->rp, k) * s->tsc_per_ps_num /
					  EMU_PS_PER_S);
}

/* Real time: how far TSC @p now is past a frame's deadline TSC @p due, in ns, into the source's timing error. */
static void timing(struct ctl_replay_src *s, uint64_t due, uint64_t now)
{
	emu_hist_add(&s->err_ns, now > due ? (uint64_t)((unsigned __int128)(now - due) * 1000000000u / s->run->rt->hz) : 0);
}

/* Frames from replay source @p s whose deadline is @p now, each decoded into a descriptor and handed to the device
 * across the source's link direction; then the next deadline is scheduled. One pending event per source. In real
 * time the frame enters the model at its emulated deadline all the same; its timing error is how late in wall-clock
 * time the loop ran the event. */
static void inject(void *a, void *b, emu_ps_t now)
{
	struct ctl_replay_src *s = a;
	struct ctl_run_state *r = s->run;
	const struct wire_rx_cfg rx = { .uet_port = r->cfg->nic.udp_port, .crc = r->cfg->nic.crc_trailer };

	(void)b;
	s->timer = 0;
	while (s->next < s->info->total && cap_replay_deadline(s->rp, s->next) <= now) {
		uint32_t len;

		if (s->timed)
			timing(s, deadline_tsc(s, s->next), dp_tsc());
		const uint8_t *f = cap_replay_frame(s->rp, s->next++, &len);
		struct wire_pkt *pkt = net_pkt_alloc(&r->np);
		int rc;

		if (pkt == NULL) {
			s->no_pkt++;
			continue;
		}
		if ((rc = wire_decode_cfg(f, len, &rx, pkt)) != WIRE_R_OK) {
			s->refused[rc > 0 && rc < WIRE_R_COUNT ? rc : 0]++;
			net_pkt_free(&r->np, pkt);
			continue;
		}
		s->sent++;
		net_dir_inject(s->dir, pkt, now);
	}
	if (s->next < s->info->total &&
	    emu_sched_at(r->np.sched, cap_replay_deadline(s->rp, s->next), inject, s, NULL, &s->timer) < 0) {
		s->sched_full = s->info->total - s->next; /* the rest cannot be scheduled: counted, not played */
		s->next = s->info->total;
	}
}

/* Whether replay @p cr's device (the port's, or the far end of its link) runs in another process (--partition). */
static bool replay_remote(const struct ctl_run_state *r, const struct ctl_replay *cr)
{
	const struct ctl_config *cfg = r->cfg;
	uint32_t d;

	if (r->part < 0 || r->dev_lc == NULL)
		return false;
	if (cr->point == CTL_REPLAY_DEV)
		d = ctl_run_port_dev(&cfg->ports[cr->dev]);
	else if (r->topo != NULL)
		d = cr->end == 0 ? r->topo->links[cr->link].a.dev : r->topo->links[cr->link].b.dev;
	else
		d = cr->end == 0 ? cfg->links[cr->link].a : cfg->links[cr->link].b;
	return r->dev_lc[d] == CTL_LC_REMOTE;
}

/* Load replay @p i's capture; a port or host replay schedules its first frame. 0 or -errno with @p err. */
static int open_one(struct ctl_run_state *r, uint32_t i, char *err, size_t errlen)
{
	const struct ctl_replay *cr = &r->cfg->replays[i];
	struct ctl_replay_src *s = &r->replays->s[i];
	char why[320];
	struct cap_replay_cfg c = { .path = cr->file, .filter = cr->filter, .pace = cr->pace,
				    .speed_ppm = cr->speed_ppm, .rate = cr->rate, .loop = cr->loop,
				    .start = cr->start, .max_len = WIRE_MAX_FRAME, .mac_from = cr->mac_from,
				    .mac_to = cr->mac_to, .n_mac = cr->n_mac, .ip_from = cr->ip_from,
				    .ip_to = cr->ip_to, .n_ip = cr->n_ip, .halt = r->opts->quit };

	*s = (struct ctl_replay_src){ .run = r, .cfg = cr, .dp_port = -1 };
	if (cr->point == CTL_REPLAY_DEV && r->opts->mode != CTL_MODE_REALTIME && !r->rerun) {
		snprintf(err, errlen, "%s: replay.%u: dev '%s' is a DPDK port, which only a real-time run has (--mode "
			 "realtime)", r->cfg->path, i, cr->to);
		return -EINVAL;
	}
	s->rp = cap_replay_load(&c, why, sizeof(why));
	if (s->rp == NULL) {
		int e = errno;
		size_t n = strlen(cr->file);
		bool named = strncmp(why, cr->file, n) == 0;
		char rel[CTL_PATH_LEN + 64] = "";

		/* the path opened, then (for a file: of the config) what the config said and where it is taken from */
		if (cr->file_dir > 0)
			snprintf(rel, sizeof(rel), " (file: %s, relative to the config file's folder)",
				 cr->file + cr->file_dir);
		/* the reader's messages name the offset; cap_replay_load()'s own name the file already */
		snprintf(err, errlen, "%s: replay.%u (%s): %s%s%s%s", r->cfg->path, i, cr->name, cr->file, rel,
			 named ? "" : ": ", named ? why + n : why);
		return -e;
	}
	s->info = cap_replay_info(s->rp);
	s->off = replay_remote(r, cr); /* loaded all the same: a bad capture is an error in both processes */
	if (cr->point == CTL_REPLAY_DEV || s->off)
		return 0;
	s->dir = &r->links[cr->link].dir[1 - cr->end]; /* the direction whose far end is the device */
	if (emu_sched_at(r->np.sched, cap_replay_deadline(s->rp, 0), inject, s, NULL, &s->timer) < 0) {
		snprintf(err, errlen, "%s: replay.%u: the event scheduler is full", r->cfg->path, i);
		return -ENOSPC;
	}
	return 0;
}

int ctl_run_replays_open(struct ctl_run_state *r, char *err, size_t errlen)
{
	const struct ctl_config *cfg = r->cfg;

	if (cfg->n_replays == 0)
		return 0;
	if ((r->replays = calloc(1, sizeof(*r->replays))) == NULL ||
	    (r->replays->s = calloc(cfg->n_replays, sizeof(*r->replays->s))) == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < cfg->n_replays; i++) {
		char why[2048];
		int rc = open_one(r, i, why, sizeof(why));

		r->replays->n++;
		if (rc < 0) {
			rec_note_err(err, errlen, "%s", why); /* after the errors of the models, if any */
			return rc;
		}
	}
	return 0;
}

bool ctl_run_replays_work_done(const struct ctl_run_state *r)
{
	bool models = false;

	for (uint32_t i = 0; i < n_of(r); i++)
		models |= r->replays->s[i].cfg->point != CTL_REPLAY_DEV && !r->replays->s[i].off;
	if (r->n_msgs == ctl_run_ctl_msgs(r) && n_of(r) == 0) /* control's posts alone do not end a run */
		return false; /* nothing to wait for: the run lasts until its stop time or a signal, as before */
	return r->n_completed == r->n_msgs && ctl_run_replays_done(r) &&
	       (!models || emu_sched_next(r->np.sched) == EMU_PS_NEVER);
}

void ctl_run_replays_rt_start(struct ctl_run_state *r)
{
	uint64_t scale = r->cfg->sim.time_scale ? r->cfg->sim.time_scale : 1;

	for (uint32_t i = 0; i < n_of(r); i++) {
		struct ctl_replay_src *s = &r->replays->s[i];

		if (r->rerun || s->off)
			continue;
		s->timed = true;
		s->tsc_per_ps_num = r->rt->hz * scale; /* TSC ticks = ps x hz x TimeScale / 10^12 */
		if (s->cfg->point == CTL_REPLAY_DEV)
			s->dp_port = r->exts[s->cfg->dev].dp_port;
	}
}

void ctl_run_replays_rt_poll(struct ctl_run_state *r)
{
	for (uint32_t i = 0; i < n_of(r); i++) {
		struct ctl_replay_src *s = &r->replays->s[i];

		for (unsigned n = 0; s->dp_port >= 0 && s->next < s->info->total && n < REPLAY_PASS_MAX; n++) {
			uint64_t due = deadline_tsc(s, s->next), now = dp_tsc();
			uint32_t len;
			const uint8_t *f;

			if (now < due)
				break;
			timing(s, due, now); /* the TSC and deadline the send was decided on */
			f = cap_replay_frame(s->rp, s->next++, &len);
			if (dp_tx(r->rt->dp, s->dp_port, f, len) != DP_TX_OK)
				s->tx_drops++;
			else
				s->sent++;
		}
	}
}

bool ctl_run_replays_done(const struct ctl_run_state *r)
{
	for (uint32_t i = 0; i < n_of(r); i++) {
		const struct ctl_replay_src *s = &r->replays->s[i];

		if (s->next < s->info->total && !s->off && !(r->rerun && s->cfg->point == CTL_REPLAY_DEV))
			return false;
	}
	return true;
}

uint64_t ctl_run_replays_sent(const struct ctl_run_state *r)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < n_of(r); i++)
		n += r->replays->s[i].sent;
	return n;
}

static const char *point_name(uint8_t p)
{
	return p == CTL_REPLAY_PORT ? "port" : p == CTL_REPLAY_HOST ? "host" : "dev";
}

/* The frames of @p s the decoder refused, all reasons. */
static uint64_t refused(const struct ctl_replay_src *s)
{
	uint64_t n = 0;

	for (int k = 0; k < WIRE_R_COUNT; k++)
		n += s->refused[k];
	return n;
}

void ctl_run_replays_json(FILE *f, const struct ctl_run_state *r)
{
	if (n_of(r) == 0)
		return;
	fprintf(f, "  \"replays\": [");
	for (uint32_t i = 0; i < n_of(r); i++) {
		const struct ctl_replay_src *s = &r->replays->s[i];
		const struct cap_replay_info *in = s->info;
		uint64_t skipped = 0;

		for (int k = 1; k < CAP_SKIP_COUNT; k++)
			skipped += in->skips[k];
		fprintf(f, "%s\n    {\"name\": \"%s\", \"file\": \"%s\", \"%s\": \"%s\", \"read\": %llu, "
			   "\"frames\": %llu, \"loop\": %llu, \"total\": %llu, \"played\": %llu, \"span_ps\": %llu, "
			   "\"filtered_out\": %llu, \"snap_cut\": %llu, \"bad_len\": %llu, \"out_of_order\": %llu, "
			   "\"rewritten\": %llu, \"file_skipped\": %llu, \"refused\": %llu, \"no_descriptor\": %llu, "
			   "\"scheduler_full\": %llu, \"tx_drops\": %llu",
			i ? "," : "", s->cfg->name, s->cfg->file, point_name(s->cfg->point), s->cfg->to,
			(unsigned long long)in->read, (unsigned long long)in->frames, (unsigned long long)s->cfg->loop,
			(unsigned long long)in->total, (unsigned long long)s->sent, (unsigned long long)in->span,
			(unsigned long long)in->filtered_out, (unsigned long long)in->snap_cut,
			(unsigned long long)in->bad_len, (unsigned long long)in->out_of_order,
			(unsigned long long)in->rewritten, (unsigned long long)skipped, (unsigned long long)refused(s),
			(unsigned long long)s->no_pkt, (unsigned long long)s->sched_full, (unsigned long long)s->tx_drops);
		if (in->time_range) /* present only when some were: the frames past the emulated time range */
			fprintf(f, ", \"time_range\": %llu", (unsigned long long)in->time_range);
		if (s->off)
			fputs(", \"other_process\": true", f);
		if (s->timed)
			fprintf(f, ", \"timing_error_ns\": {\"count\": %llu, \"p50\": %llu, \"p99\": %llu, \"max\": %llu}",
				(unsigned long long)s->err_ns.count, (unsigned long long)emu_hist_pct(&s->err_ns, 50),
				(unsigned long long)emu_hist_pct(&s->err_ns, 99), (unsigned long long)s->err_ns.max);
		fputc('}', f);
	}
	fprintf(f, "\n  ],\n");
}

void ctl_run_replays_print(const struct ctl_run_state *r)
{
	for (uint32_t i = 0; i < n_of(r); i++) {
		const struct ctl_replay_src *s = &r->replays->s[i];

		printf("replay %s -> %s %s: %llu of %llu frames played (%llu refused by the decoder, %llu filtered out, "
		       "%llu snap-cut)", s->cfg->name, point_name(s->cfg->point), s->cfg->to, (unsigned long long)s->sent,
		       (unsigned long long)s->info->total, (unsigned long long)refused(s),
		       (unsigned long long)s->info->filtered_out, (unsigned long long)s->info->snap_cut);
		if (s->info->time_range)
			printf("; %llu stamped past the emulated time range (2^63 ps after the first frame), not played",
			       (unsigned long long)s->info->time_range);
		if (s->off)
			fputs("; its device runs in another process (--partition), which plays it", stdout);
		if (s->timed)
			printf("; timing error p50 %.3f us, p99 %.3f us, max %.3f us",
			       (double)emu_hist_pct(&s->err_ns, 50) / 1e3, (double)emu_hist_pct(&s->err_ns, 99) / 1e3,
			       (double)s->err_ns.max / 1e3);
		putchar('\n');
	}
}

void ctl_run_replays_free(struct ctl_run_state *r)
{
	for (uint32_t i = 0; i < n_of(r); i++)
		cap_replay_free(r->replays->s[i].rp);
	if (r->replays != NULL)
		free(r->replays->s);
	free(r->replays);
	r->replays = NULL;
}
