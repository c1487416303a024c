/*
 * Session record (uetemu run --record DIR, docs/replay.md): the resolved config, the seed, and a log of what a
 * real-time run took from outside and when: the poll passes that touched a port or a periodic record (emulated and
 * wall-clock time), every frame that arrived and every frame sent, in the order they happened. A re-run
 * (ctl_run_rerun.c) writes the same log with the same code, so the two compare record for record.
 */
#include "ctl_run_pvt.h"
#include "ctl_run_ext_pvt.h"
#include "ctl_run_rec_pvt.h"
#include "ctl_run_cap_pvt.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef UETEMU_VERSION
#define UETEMU_VERSION "unknown"
#endif

struct ctl_rec_session {
	struct cap_session_w *w;
	struct cap_session_hdr hdr;
	char dir[PATH_MAX];          /* where the log goes: the record's DIR, or a re-run's output directory */
	char path[PATH_MAX];         /* DIR/session.bin */
	emu_ps_t pass_now, pass_wall; /* the pass under way */
	bool logged;                 /* its PASS record is written */
	uint64_t passes, rx, tx;     /* records written, by type */
	bool rerun;                  /* a re-run's log (ctl_run_rerun.c compares it with the recorded one) */
	uint64_t tx_limit;           /* a re-run: the frames its session sent (past them it stops), or UINT64_MAX */
	bool cut;                    /* the output budget cut the log (known once it is closed) */
};

/* FNV-1a 64 of the file @p path, or 0 when it cannot be read. */
static uint64_t file_hash(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint64_t h = 0xcbf29ce484222325ull;
	int c;

	if (f == NULL)
		return 0;
	while ((c = getc(f)) != EOF)
		h = (h ^ (uint8_t)c) * 0x100000001b3ull;
	fclose(f);
	return h;
}

uint64_t ctl_run_rec_config_hash(const char *path)
{
	return file_hash(path);
}

/*
 * Copy the config file to DIR/config.yaml and the --set overrides to DIR/sets, one a line, then one more per replay:
 * its file as an absolute path, since a relative one is taken from the config's directory, which the copy is not.
 * 0 or -errno.
 */
static int save_config(const struct ctl_run_state *r, const char *dir, char *err, size_t errlen)
{
	char path[PATH_MAX + 16];
	FILE *in = fopen(r->cfg->path, "rb"), *out;
	int c, e = 0;

	snprintf(path, sizeof(path), "%s/config.yaml", dir);
	out = in != NULL ? fopen(path, "wb") : NULL;
	if (out == NULL) {
		e = errno;
		snprintf(err, errlen, "--record: %s: %s", in == NULL ? r->cfg->path : path, strerror(e));
		if (in != NULL)
			fclose(in);
		return -e;
	}
	while ((c = getc(in)) != EOF)
		putc(c, out);
	fclose(in);
	e = fclose(out) != 0 ? errno : 0;
	snprintf(path, sizeof(path), "%s/sets", dir);
	out = e == 0 ? fopen(path, "w") : NULL;
	for (int i = 0; out != NULL && i < r->opts->n_sets; i++)
		fprintf(out, "%s\n", r->opts->sets[i]);
	for (uint32_t i = 0; out != NULL && i < r->cfg->n_replays; i++) {
		char abs[PATH_MAX];

		fprintf(out, "replay.%u.file=%s\n", i,
			realpath(r->cfg->replays[i].file, abs) != NULL ? abs : r->cfg->replays[i].file);
	}
	if (out == NULL || fclose(out) != 0) {
		e = e ? e : errno;
		snprintf(err, errlen, "--record: %s: %s", path, strerror(e));
		return -e;
	}
	return 0;
}

int ctl_run_rec_prepare(struct ctl_run_state *r, char *err, size_t errlen)
{
	const char *dir = r->opts->record_dir, *which = "";
	unsigned lc = ctl_run_eal_lcores(r->opts, &which);
	int rc;

	if (r->opts->mode != CTL_MODE_REALTIME) {
		snprintf(err, errlen, "--record is for a real-time run (--mode realtime): a virtual-time run is "
			 "deterministic already, the same config and seed give the same outputs");
		return -EINVAL;
	}
	if (lc > 1) {
		snprintf(err, errlen, "--record: the EAL args give %u lcores (%s): a recorded session runs its models on "
			 "one lcore, whose order of events the log captures; the interleaving of several lcores is not "
			 "recorded and a re-run could not reproduce it. Give one lcore (-l 0) or leave -l out", lc, which);
		return -EINVAL;
	}
	if (r->opts->partition != NULL) {
		snprintf(err, errlen, "--record with --partition %s: a re-run plays the session in one process, which "
			 "would run the other partitions' devices itself instead of the frames their process sent; "
			 "record a run of the whole config", r->opts->partition);
		return -EINVAL;
	}
	if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
		snprintf(err, errlen, "--record: %s: cannot create: %s", dir, strerror(errno));
		return -errno;
	}
	if ((rc = save_config(r, dir, err, errlen)) < 0)
		return rc;
	r->rec = calloc(1, sizeof(*r->rec));
	if (r->rec == NULL)
		return -ENOMEM;
	snprintf(r->rec->dir, sizeof(r->rec->dir), "%s", dir);
	return 0;
}

int ctl_run_rec_create(struct ctl_run_state *r, const char *dir, const struct cap_session_hdr *h, bool rerun,
		       char *err, size_t errlen)
{
	struct ctl_rec_session *s = r->rec != NULL ? r->rec : calloc(1, sizeof(*s));

	if (s == NULL)
		return -ENOMEM;
	r->rec = s;
	s->hdr = *h;
	s->rerun = rerun;
	if (s->tx_limit == 0)
		s->tx_limit = UINT64_MAX;
	if (dir != s->dir)
		snprintf(s->dir, sizeof(s->dir), "%s", dir);
	snprintf(s->path, sizeof(s->path), "%s/session.bin", dir);
	s->w = cap_session_create(s->path, h, err, errlen);
	if (s->w != NULL)
		cap_session_budget(s->w, r->cfg->sim.budget);
	return s->w == NULL ? -errno : 0;
}

void ctl_run_rec_start(struct ctl_run_state *r)
{
	char err[PATH_MAX + 64];
	struct cap_session_hdr h = { .n_ports = r->n_exts, .epoch_ns = ctl_run_caps_epoch_ns(r), .records_epoch_s = r->epoch_s,
				     .seed = r->cfg->sim.random_seed, .time_scale = r->cfg->sim.time_scale,
				     .config_hash = file_hash(r->cfg->path) };

	if (r->rec == NULL)
		return;
	if (ctl_run_rec_create(r, r->rec->dir, &h, false, err, sizeof(err)) < 0) {
		fprintf(stderr, "[uetemu] --record: %s; the session is not recorded\n", err);
		free(r->rec);
		r->rec = NULL;
	}
}

/* Write the current pass's PASS record once. */
static void pass_log(struct ctl_rec_session *s)
{
	if (s->logged)
		return;
	s->logged = true;
	s->passes++;
	cap_session_put(s->w, &(struct cap_session_rec){ .type = CAP_SES_PASS, .t = s->pass_now, .x = s->pass_wall });
}

void ctl_run_rec_pass(struct ctl_run_state *r, emu_ps_t now)
{
	struct ctl_rec_session *s = r->rec;

	if (s == NULL || s->w == NULL)
		return;
	s->pass_now = now;
	s->pass_wall = ctl_run_lc(r, 0)->wall_now; /* a recorded run has one lcore */
	s->logged = false;
	/* the pass writes periodic rows (sampled at this pass's time), or a port's ARP timers fire */
	if (ctl_records_due(r->records) <= now)
		pass_log(s);
	for (uint32_t i = 0; !s->logged && i < r->n_exts; i++)
		if (r->exts[i].stack != NULL && net_port_next_due(r->exts[i].stack) <= s->pass_wall)
			pass_log(s);
}

bool ctl_run_rec_on(const struct ctl_run_state *r)
{
	return r->rec != NULL && r->rec->w != NULL;
}

void ctl_run_rec_touch(struct ctl_run_state *r)
{
	if (r->rec != NULL && r->rec->w != NULL)
		pass_log(r->rec);
}

void ctl_run_rec_frame(struct ctl_run_state *r, uint32_t port, const uint8_t *frame, size_t len, bool rx,
		       emu_ps_t t)
{
	struct ctl_rec_session *s = r->rec;

	if (s == NULL || s->w == NULL)
		return;
	if (rx)
		pass_log(s);
	cap_session_put(s->w, &(struct cap_session_rec){ .type = rx ? CAP_SES_RX : CAP_SES_TX, .port = (uint8_t)port,
							 .len = (uint32_t)len, .t = t, .x = rx ? s->rx : s->tx,
							 .data = frame });
	*(rx ? &s->rx : &s->tx) += 1;
	if (!rx && s->tx > s->tx_limit && *r->opts->quit == 0)
		*r->opts->quit = CTL_RUN_HALT_AHEAD;
}

bool ctl_run_rec_cut(const struct ctl_run_state *r)
{
	return r->rec != NULL && r->rec->cut;
}

void ctl_run_rec_tx_limit(struct ctl_run_state *r, uint64_t tx)
{
	if (r->rec != NULL)
		r->rec->tx_limit = tx;
}

int ctl_run_rec_finish(struct ctl_run_state *r, uint8_t stop, char *err, size_t errlen)
{
	struct ctl_rec_session *s = r->rec;

	if (s == NULL || s->w == NULL)
		return 0;
	cap_session_put(s->w, &(struct cap_session_rec){ .type = CAP_SES_END, .port = stop, .t = r->end,
							 .x = ctl_run_lc(r, 0)->wall_now });
	s->cut = cap_session_was_cut(s->w);
	int rc = cap_session_close(s->w, err, errlen);

	s->w = NULL;
	return rc;
}

void ctl_run_rec_json(FILE *f, const struct ctl_run_state *r)
{
	const struct ctl_rec_session *s = r->rec;

	if (s == NULL || s->rerun)
		return;
	fprintf(f, "  \"record\": {\"dir\": \"%s\", \"log\": \"%s\", \"passes\": %llu, \"rx_frames\": %llu, "
		   "\"tx_frames\": %llu, \"epoch_ns\": %lld, \"seed\": %llu, \"uetemu\": \"%s\"},\n",
		s->dir, s->path, (unsigned long long)s->passes, (unsigned long long)s->rx, (unsigned long long)s->tx,
		(long long)s->hdr.epoch_ns, (unsigned long long)s->hdr.seed, UETEMU_VERSION);
}

void ctl_run_rec_counts(const struct ctl_run_state *r, uint64_t *passes, uint64_t *rx, uint64_t *tx)
{
	*passes = r->rec ? r->rec->passes : 0;
	*rx = r->rec ? r->rec->rx : 0;
	*tx = r->rec ? r->rec->tx : 0;
}

void ctl_run_rec_free(struct ctl_run_state *r)
{
	if (r->rec == NULL)
		return;
	cap_session_close(r->rec->w, NULL, 0);
	free(r->rec);
	r->rec = NULL;
}
