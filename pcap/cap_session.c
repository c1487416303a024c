/*
 * The session log of a recorded real-time run (docs/replay.md, Session record): a header, then passes of the
 * poll loop, the frames that arrived from outside and the frames sent, in the order they happened. Little-endian,
 * written through a 1 MiB stdio buffer; read back with a bounded cursor.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cap.h"

#define SES_MAGIC "UETSES01"
#define SES_HDR_LEN 56u  /* magic 8, version 4, ports 4, epoch 8, records' epoch 8, seed 8, time scale 8,
                            config hash 8 */
#define SES_REC_LEN 24u  /* type 1, port 1, reserved 2, length 4, time 8, value 8 */
#define SES_VERSION 2u     /* 2: control records (CAP_SES_CTL); a version 1 log has none and is read alike */
#define SES_VERSION_MIN 1u
#define SES_BUF (1u << 20)

#define SES_ETH_MIN 14u  /* a frame holds an Ethernet header at least */
/* A pass's emulated time is its wall-clock time over TimeScale, or less (LagPolicy elastic holds it back); the
 * two are worked out from one TSC read with different roundings: this much slack, in emulated ps. */
#define SES_WALL_SLACK_PS 1000000u

struct cap_session_w {
	FILE *f;
	char *buf;
	char path[CAP_SESSION_PATH_MAX];
	int err;                 /* the first write error (errno), or 0 */
	struct rec_budget *b;    /* the run's output budget, or NULL */
	bool cut;                /* past the budget: nothing more is written */
};

/* What the records read so far allow of the next one (cap_session_check()). */
struct ses_check {
	bool on;
	uint32_t n_ports;
	uint64_t scale;
	emu_ps_t t_max;
	bool pass, ended;        /* a pass seen; the END seen */
	emu_ps_t pass_t, pass_x; /* the last pass's emulated and wall-clock times */
	emu_ps_t tx_t;           /* the latest frame sent */
	uint64_t rx, tx, ctl;    /* arrivals, frames sent and control commands so far: each record's number */
};

struct cap_session_r {
	FILE *f;
	char path[CAP_SESSION_PATH_MAX];
	uint8_t frame[CAP_READ_CAPLEN_MAX];
	uint64_t off;            /* offset of the next record */
	uint64_t cut;            /* offset of a record the file ends inside, or UINT64_MAX */
	uint32_t version;        /* the log's format version */
	struct ses_check ck;
};

struct cap_session_w *cap_session_create(const char *path, const struct cap_session_hdr *h, char *err,
					 size_t errlen)
{
	struct cap_session_w *w = calloc(1, sizeof(*w));
	uint8_t b[SES_HDR_LEN];

	if (w == NULL || (w->buf = malloc(SES_BUF)) == NULL) {
		free(w);
		snprintf(err, errlen, "%s: out of memory", path);
		errno = ENOMEM;
		return NULL;
	}
	snprintf(w->path, sizeof(w->path), "%s", path);
	w->f = fopen(path, "wb");
	if (w->f == NULL) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		free(w->buf);
		free(w);
		errno = e;
		return NULL;
	}
	setvbuf(w->f, w->buf, _IOFBF, SES_BUF);
	memcpy(b, SES_MAGIC, 8);
	cap_put_le(b + 8, SES_VERSION, 4);
	cap_put_le(b + 12, h->n_ports, 4);
	cap_put_le(b + 16, (uint64_t)h->epoch_ns, 8);
	cap_put_le(b + 24, (uint64_t)h->records_epoch_s, 8);
	cap_put_le(b + 32, h->seed, 8);
	cap_put_le(b + 40, h->time_scale, 8);
	cap_put_le(b + 48, h->config_hash, 8);
	if (fwrite(b, 1, sizeof(b), w->f) != sizeof(b))
		w->err = errno ? errno : EIO;
	return w;
}

void cap_session_budget(struct cap_session_w *w, struct rec_budget *b)
{
	w->b = b;
	rec_budget_count(b, SES_HDR_LEN);
}

void cap_session_put(struct cap_session_w *w, const struct cap_session_rec *rec)
{
	uint8_t b[SES_REC_LEN] = { 0 };

	if (w->err != 0 || w->cut)
		return;
	if (w->b != NULL && !rec_budget_take(w->b, SES_REC_LEN + (uint64_t)rec->len, w->path, rec->t)) {
		w->cut = true; /* a whole record cut: the log ends with the last one that fitted */
		return;
	}
	b[0] = rec->type;
	b[1] = rec->port;
	cap_put_le(b + 4, rec->len, 4);
	cap_put_le(b + 8, rec->t, 8);
	cap_put_le(b + 16, rec->x, 8);
	if (fwrite(b, 1, sizeof(b), w->f) != sizeof(b) ||
	    (rec->len > 0 && fwrite(rec->data, 1, rec->len, w->f) != rec->len)) {
		w->err = errno ? errno : EIO;
		rec_budget_fail(w->b, w->err, w->path);
	}
}

bool cap_session_was_cut(const struct cap_session_w *w)
{
	return w != NULL && w->cut;
}

int cap_session_close(struct cap_session_w *w, char *err, size_t errlen)
{
	int e;

	if (w == NULL)
		return 0;
	e = w->err;
	if (fflush(w->f) != 0 && e == 0) {
		e = errno ? errno : EIO;
		rec_budget_fail(w->b, e, w->path);
	}
	if (fclose(w->f) != 0 && e == 0)
		e = errno ? errno : EIO;
	if (e != 0 && err != NULL)
		snprintf(err, errlen, "%s: %s", w->path, strerror(e));
	free(w->buf);
	free(w);
	return -e;
}

int cap_session_open(const char *path, struct cap_session_r **out, struct cap_session_hdr *h, char *err,
		     size_t errlen)
{
	struct cap_session_r *r = calloc(1, sizeof(*r));
	uint8_t b[SES_HDR_LEN];
	size_t n;

	*out = NULL;
	if (r == NULL)
		return -ENOMEM;
	snprintf(r->path, sizeof(r->path), "%s", path);
	r->f = fopen(path, "rb");
	if (r->f == NULL) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		free(r);
		return -e;
	}
	n = fread(b, 1, sizeof(b), r->f);
	if (n < sizeof(b) || memcmp(b, SES_MAGIC, 8) != 0) {
		snprintf(err, errlen, "%s: not a uetemu session log (version %u)%s", path, SES_VERSION,
			 n < sizeof(b) ? ": shorter than its header" : "");
		cap_session_close_r(r);
		return -EINVAL;
	}
	r->version = (uint32_t)cap_get_le(b + 8, 4);
	if (r->version < SES_VERSION_MIN || r->version > SES_VERSION) {
		snprintf(err, errlen, "%s: a session log of format version %u; this uetemu reads versions %u to %u: "
			 "re-run it with the uetemu that recorded it", path, r->version, SES_VERSION_MIN, SES_VERSION);
		cap_session_close_r(r);
		return -EINVAL;
	}
	h->n_ports = (uint32_t)cap_get_le(b + 12, 4);
	h->epoch_ns = (int64_t)cap_get_le(b + 16, 8);
	h->records_epoch_s = (int64_t)cap_get_le(b + 24, 8);
	h->seed = cap_get_le(b + 32, 8);
	h->time_scale = cap_get_le(b + 40, 8);
	h->config_hash = cap_get_le(b + 48, 8);
	r->off = sizeof(b);
	r->cut = UINT64_MAX;
	*out = r;
	return 0;
}

void cap_session_check(struct cap_session_r *r, uint32_t n_ports, uint64_t time_scale, emu_ps_t t_max)
{
	r->ck.on = true;
	r->ck.n_ports = n_ports;
	r->ck.scale = time_scale ? time_scale : 1;
	r->ck.t_max = t_max;
}

/* Whether emulated time @p t can go with wall-clock time @p x: t <= x / TimeScale, within the slack. */
static bool behind_wall(const struct ses_check *c, emu_ps_t t, emu_ps_t x)
{
	return t <= SES_WALL_SLACK_PS || (unsigned __int128)(t - SES_WALL_SLACK_PS) * c->scale <= x;
}

/* What is wrong with @p rec after the records before it (NULL: nothing), for cap_session_next()'s message. */
static const char *check_rec(struct ses_check *c, const struct cap_session_rec *rec, unsigned rsv)
{
	bool frame = rec->type == CAP_SES_RX || rec->type == CAP_SES_TX;

	if (c->ended)
		return "a record after the end record";
	if (rsv != 0)
		return "reserved bytes not zero";
	if (frame && (rec->port >= c->n_ports || rec->len < SES_ETH_MIN))
		return rec->port >= c->n_ports ? "a port the session does not have" : "a frame shorter than its Ethernet header";
	if (rec->t > c->t_max)
		return "a time past the emulated range (the stop time, or the end record's)";
	switch (rec->type) {
	case CAP_SES_PASS:
	case CAP_SES_END:
		if (c->pass && (rec->t < c->pass_t || rec->x < c->pass_x))
			return "time going backwards (a pass before the one it follows)";
		if (rec->t < c->tx_t)
			return "time going backwards (a pass before a frame sent ahead of it)";
		if (!behind_wall(c, rec->t, rec->x))
			return "an emulated time ahead of the pass's wall-clock time over TimeScale";
		c->pass = true;
		c->pass_t = rec->t;
		c->pass_x = rec->x;
		c->ended = rec->type == CAP_SES_END;
		return NULL;
	case CAP_SES_RX:
		if (!c->pass || rec->t != c->pass_t)
			return "an arrival outside its pass (its time is not the pass's)";
		if (rec->x != c->rx++)
			return "an arrival out of sequence (its number)";
		return NULL;
	case CAP_SES_CTL:
		if (!c->pass || rec->t != c->pass_t)
			return "a control command outside its pass (its time is not the pass's)";
		if (rec->x != c->ctl++)
			return "a control command out of sequence (its number)";
		return NULL;
	default:
		if (rec->t < c->tx_t)
			return "time going backwards (a frame sent before the one ahead of it)";
		if (rec->x != c->tx++)
			return "a frame sent out of sequence (its number)";
		c->tx_t = rec->t;
		return NULL;
	}
}

int cap_session_next(struct cap_session_r *r, struct cap_session_rec *rec, char *err, size_t errlen)
{
	uint8_t b[SES_REC_LEN];
	size_t n = fread(b, 1, sizeof(b), r->f);

	if (n == 0 && feof(r->f))
		return 0;
	if (n < sizeof(b)) { /* a run killed while writing: the log ends with its last whole record */
		r->cut = r->off;
		return 0;
	}
	rec->type = b[0];
	rec->port = b[1];
	rec->len = (uint32_t)cap_get_le(b + 4, 4);
	rec->t = cap_get_le(b + 8, 8);
	rec->x = cap_get_le(b + 16, 8);
	const uint8_t last = r->version >= 2 ? CAP_SES_CTL : CAP_SES_END;

	if (rec->type < CAP_SES_PASS || rec->type > last || rec->len > sizeof(r->frame) ||
	    (rec->len > 0 && rec->type != CAP_SES_RX && rec->type != CAP_SES_TX && rec->type != CAP_SES_CTL)) {
		snprintf(err, errlen, "%s: record at offset %llu: type %u with %u bytes is not one (a corrupt log)",
			 r->path, (unsigned long long)r->off, rec->type, rec->len);
		return -EINVAL;
	}
	const char *bad = r->ck.on ? check_rec(&r->ck, rec, (unsigned)cap_get_le(b + 2, 2)) : NULL;

	if (bad != NULL) {
		snprintf(err, errlen, "%s: record at offset %llu (type %u, port %u, %u bytes, t %llu ps): %s: a corrupt "
			 "log", r->path, (unsigned long long)r->off, rec->type, rec->port, rec->len,
			 (unsigned long long)rec->t, bad);
		return -EINVAL;
	}
	if (rec->len > 0 && fread(r->frame, 1, rec->len, r->f) != rec->len) {
		r->cut = r->off;
		return 0;
	}
	rec->data = r->frame;
	r->off += SES_REC_LEN + rec->len;
	return 1;
}

uint64_t cap_session_cut(const struct cap_session_r *r)
{
	return r->cut;
}

void cap_session_close_r(struct cap_session_r *r)
{
	if (r == NULL)
		return;
	fclose(r->f);
	free(r);
}
