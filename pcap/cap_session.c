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

struct cap_session_w {
	FILE *f;
	char *buf;
	char path[CAP_SESSION_PATH_MAX];
	int err;                 /* the first write error (errno), or 0 */
};

struct cap_session_r {
	FILE *f;
	char path[CAP_SESSION_PATH_MAX];
	uint8_t frame[CAP_READ_CAPLEN_MAX];
	uint64_t off;            /* offset of the next record */
	uint64_t cut;            /* offset of a record the file ends inside, or UINT64_MAX */
	uint32_t version;        /* the log's format version */
};

static void put_le(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

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
	put_le(b + 8, SES_VERSION, 4);
	put_le(b + 12, h->n_ports, 4);
	put_le(b + 16, (uint64_t)h->epoch_ns, 8);
	put_le(b + 24, (uint64_t)h->records_epoch_s, 8);
	put_le(b + 32, h->seed, 8);
	put_le(b + 40, h->time_scale, 8);
	put_le(b + 48, h->config_hash, 8);
	if (fwrite(b, 1, sizeof(b), w->f) != sizeof(b))
		w->err = errno ? errno : EIO;
	return w;
}

void cap_session_put(struct cap_session_w *w, const struct cap_session_rec *rec)
{
	uint8_t b[SES_REC_LEN] = { 0 };

	b[0] = rec->type;
	b[1] = rec->port;
	put_le(b + 4, rec->len, 4);
	put_le(b + 8, rec->t, 8);
	put_le(b + 16, rec->x, 8);
	if (w->err == 0 && (fwrite(b, 1, sizeof(b), w->f) != sizeof(b) ||
			    (rec->len > 0 && fwrite(rec->data, 1, rec->len, w->f) != rec->len)))
		w->err = errno ? errno : EIO;
}

int cap_session_close(struct cap_session_w *w, char *err, size_t errlen)
{
	int e;

	if (w == NULL)
		return 0;
	e = w->err;
	if (fflush(w->f) != 0 && e == 0)
		e = errno ? errno : EIO;
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
	r->version = (uint32_t)get_le(b + 8, 4);
	if (r->version < SES_VERSION_MIN || r->version > SES_VERSION) {
		snprintf(err, errlen, "%s: a session log of format version %u; this uetemu reads versions %u to %u: "
			 "re-run it with the uetemu that recorded it", path, r->version, SES_VERSION_MIN, SES_VERSION);
		cap_session_close_r(r);
		return -EINVAL;
	}
	h->n_ports = (uint32_t)get_le(b + 12, 4);
	h->epoch_ns = (int64_t)get_le(b + 16, 8);
	h->records_epoch_s = (int64_t)get_le(b + 24, 8);
	h->seed = get_le(b + 32, 8);
	h->time_scale = get_le(b + 40, 8);
	h->config_hash = get_le(b + 48, 8);
	r->off = sizeof(b);
	r->cut = UINT64_MAX;
	*out = r;
	return 0;
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
	rec->len = (uint32_t)get_le(b + 4, 4);
	rec->t = get_le(b + 8, 8);
	rec->x = get_le(b + 16, 8);
	const uint8_t last = r->version >= 2 ? CAP_SES_CTL : CAP_SES_END;

	if (rec->type < CAP_SES_PASS || rec->type > last || rec->len > sizeof(r->frame) ||
	    (rec->len > 0 && rec->type != CAP_SES_RX && rec->type != CAP_SES_TX && rec->type != CAP_SES_CTL)) {
		snprintf(err, errlen, "%s: record at offset %llu: type %u with %u bytes is not one (a corrupt log)",
			 r->path, (unsigned long long)r->off, rec->type, rec->len);
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
