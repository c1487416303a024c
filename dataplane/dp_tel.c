/* Telemetry commands: registered with rte_telemetry here, answered by the caller's handlers (dp.h). */
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>

#include <rte_telemetry.h>

#include "dp.h"
#include "dp_pvt.h"

/* Cache-line alignment of struct dp_ctx leaves the low bits of its address free: they count running handlers. */
#define DP_TEL_REFS ((uintptr_t)RTE_CACHE_LINE_SIZE - 1)
#define DP_TEL_KEY_MAX 64 /* key length kept, terminator included (DPDK takes up to 127) */

/*
 * The context whose handlers answer, and how many handlers are running: dataplane/'s one file-static variable.
 * Why it must exist: DPDK 22.11's telemetry callback is (cmd, params, data), with no user argument, and a
 * registered command cannot be unregistered, so the callback can only find the run through something static.
 * It is one word, set by dp_tel_register() and cleared by dp_tel_unregister(): the dp_ctx pointer, plus in its
 * low bits the number of handlers between taking the pointer and returning, so that dp_tel_unregister() can wait
 * for them before the context (and whatever the handlers read) is freed. No lock: a compare-and-swap takes a
 * reference, a fetch-and-subtract drops it.
 */
static _Atomic uintptr_t dp_tel_live;

/* Take a reference on the live context, or NULL when none answers (or, absurdly, 63 handlers already run). */
static struct dp_ctx *dp_tel_get(void)
{
	uintptr_t v = atomic_load(&dp_tel_live);

	do {
		if ((v & ~DP_TEL_REFS) == 0 || (v & DP_TEL_REFS) == DP_TEL_REFS)
			return NULL;
	} while (!atomic_compare_exchange_weak(&dp_tel_live, &v, v + 1));
	return (struct dp_ctx *)(v & ~DP_TEL_REFS);
}

static void dp_tel_put(void)
{
	atomic_fetch_sub(&dp_tel_live, 1);
}

/* The one callback every command is registered with: find the command's handler and let it build the answer. */
static int dp_tel_cb(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct dp_ctx *dp = dp_tel_get();
	int rc = -ENODEV; /* no run answers: the client reads null */

	if (dp == NULL)
		return rc;
	for (unsigned i = 0; i < dp->n_tel; i++) {
		if (strcmp(dp->tel[i].name, cmd) != 0)
			continue;
		rc = rte_tel_data_start_dict(d);
		if (rc == 0)
			rc = dp->tel[i].fn(dp->tel_arg, params != NULL ? params : "", (struct dp_tel *)d);
		break;
	}
	dp_tel_put();
	return rc < 0 ? rc : 0;
}

int dp_tel_register(struct dp_ctx *dp, const struct dp_tel_cmd *cmds, unsigned n, void *arg, char *err,
		    size_t errlen)
{
	uintptr_t none = 0;

	if (((uintptr_t)dp & DP_TEL_REFS) != 0) { /* dp_create() allocates it cache-line aligned */
		dp_err(err, errlen, "telemetry: dataplane context not cache-line aligned");
		return -EINVAL;
	}
	if (n > DP_TEL_CMDS_MAX) {
		dp_err(err, errlen, "telemetry: %u commands, at most %d", n, DP_TEL_CMDS_MAX);
		return -E2BIG;
	}
	memcpy(dp->tel, cmds, n * sizeof(*cmds));
	dp->n_tel = n;
	dp->tel_arg = arg;
	if (!atomic_compare_exchange_strong(&dp_tel_live, &none, (uintptr_t)dp)) {
		dp->n_tel = 0;
		dp_err(err, errlen, "telemetry: another dataplane context answers already");
		return -EBUSY;
	}
	for (unsigned i = 0; i < n; i++) {
		int rc = rte_telemetry_register_cmd(cmds[i].name, dp_tel_cb, cmds[i].help);

		if (rc < 0) {
			dp_err(err, errlen, "telemetry: cannot register \"%s\": %s", cmds[i].name, strerror(-rc));
			return rc; /* those registered so far answer until dp_tel_unregister() */
		}
	}
	return 0;
}

void dp_tel_unregister(struct dp_ctx *dp)
{
	uintptr_t v;

	if (dp == NULL)
		return;
	v = atomic_load(&dp_tel_live);
	/* Clear the pointer if it is ours, keeping the count: from now on no handler can take a reference. */
	while ((v & ~DP_TEL_REFS) == (uintptr_t)dp) {
		if (atomic_compare_exchange_weak(&dp_tel_live, &v, v & DP_TEL_REFS)) {
			while ((atomic_load(&dp_tel_live) & DP_TEL_REFS) != 0)
				sched_yield(); /* a handler still reads the context; it returns within microseconds */
			break;
		}
	}
	dp->n_tel = 0;
}

/* A telemetry key: letters, digits, '_' and '/' only, anything else written as '_'. */
static void dp_tel_key(char key[DP_TEL_KEY_MAX], const char *s)
{
	size_t i = 0;

	for (; s[i] != '\0' && i < DP_TEL_KEY_MAX - 1; i++) {
		char c = s[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
			  c == '/';

		key[i] = ok ? c : '_';
	}
	key[i] = '\0';
}

int dp_tel_u64(struct dp_tel *out, const char *key, uint64_t v)
{
	char k[DP_TEL_KEY_MAX];

	dp_tel_key(k, key);
	return rte_tel_data_add_dict_u64((struct rte_tel_data *)out, k, v);
}

int dp_tel_str(struct dp_tel *out, const char *key, const char *v)
{
	char k[DP_TEL_KEY_MAX];

	dp_tel_key(k, key);
	return rte_tel_data_add_dict_string((struct rte_tel_data *)out, k, v);
}

struct dp_tel *dp_tel_obj(struct dp_tel *out, const char *key)
{
	struct rte_tel_data *c = rte_tel_data_alloc();
	char k[DP_TEL_KEY_MAX];

	if (c == NULL)
		return NULL;
	dp_tel_key(k, key);
	/* the parent owns it once added (keep = 0: freed with the answer), and may be filled after adding */
	if (rte_tel_data_start_dict(c) < 0 ||
	    rte_tel_data_add_dict_container((struct rte_tel_data *)out, k, c, 0) < 0) {
		rte_tel_data_free(c);
		return NULL;
	}
	return (struct dp_tel *)c;
}
