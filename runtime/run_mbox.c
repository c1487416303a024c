/* The mailbox (run_mbox.h): an SPSC ring whose producer side is shared under a mutex. */
#include "run_mbox.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "run_spsc.h"

struct run_mbox {
	struct run_spsc *ring;
	uint32_t rec_len;
	pthread_mutex_t mu; /* the producers' turn */
};

struct run_mbox *run_mbox_create(uint32_t rec_len, uint32_t bytes)
{
	struct run_mbox *m;

	if (rec_len == 0 || rec_len > 1024 || RUN_SPSC_REC(rec_len) > bytes / 4) {
		errno = EINVAL;
		return NULL;
	}
	if ((m = calloc(1, sizeof(*m))) == NULL)
		return NULL;
	if ((m->ring = run_spsc_create(bytes)) == NULL) {
		free(m);
		return NULL;
	}
	m->rec_len = rec_len;
	pthread_mutex_init(&m->mu, NULL);
	return m;
}

void run_mbox_destroy(struct run_mbox *m)
{
	if (m == NULL)
		return;
	run_spsc_destroy(m->ring);
	pthread_mutex_destroy(&m->mu);
	free(m);
}

void run_mbox_lock(struct run_mbox *m)
{
	pthread_mutex_lock(&m->mu);
}

void run_mbox_unlock(struct run_mbox *m)
{
	pthread_mutex_unlock(&m->mu);
}

int run_mbox_post(struct run_mbox *m, const void *rec)
{
	void *slot = run_spsc_reserve(m->ring, m->rec_len);

	if (slot == NULL)
		return -ENOSPC;
	memcpy(slot, rec, m->rec_len);
	run_spsc_commit(m->ring);
	return 0;
}

bool run_mbox_take(struct run_mbox *m, void *rec)
{
	uint32_t len;
	const void *p = run_spsc_peek(m->ring, &len);

	if (p == NULL)
		return false;
	memcpy(rec, p, m->rec_len);
	run_spsc_release(m->ring);
	return true;
}
