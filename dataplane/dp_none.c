/*
 * The dataplane of a build without DPDK (meson setup -Ddpdk=disabled): virtual time only. dp_create() refuses
 * with a message naming the build option, so a real-time run (--mode realtime) stops before anything starts; no
 * dp_ctx exists, so the functions taking one are never reached and answer as for a context with no ports.
 * dp_eal_args() (dp_eal_args.c), dp_is_af_xdp() and the clock are the real ones: the clock reads CLOCK_MONOTONIC
 * in nanoseconds instead of the TSC. Every function of dp.h has its definition here
 * (tests/dataplane/test_dp_none.py checks it), so a build without DPDK links whatever control/ calls.
 */
#include "dp.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

struct dp_ctx *dp_create(int eal_argc, char **eal_argv, char *err, size_t errlen)
{
	(void)eal_argc, (void)eal_argv;
	snprintf(err, errlen, "this uetemu is built without DPDK (meson setup -Ddpdk=disabled): a real-time run needs "
		 "it; virtual time (--mode virtual, the default) works");
	return NULL;
}

const struct dp_eal_args *dp_eal(const struct dp_ctx *dp)
{
	(void)dp;
	return NULL;
}

void dp_destroy(struct dp_ctx *dp)
{
	(void)dp;
}

int dp_tx_pattern_set(struct dp_ctx *dp, const uint8_t *pattern, size_t len, char *err, size_t errlen)
{
	(void)dp, (void)pattern, (void)len;
	snprintf(err, errlen, "built without DPDK");
	return -ENOTSUP;
}

int dp_port_add(struct dp_ctx *dp, const char *devargs, unsigned flags, char *err, size_t errlen)
{
	(void)dp, (void)flags;
	snprintf(err, errlen, "port \"%s\": built without DPDK", devargs);
	return -ENOTSUP;
}

int dp_port_add_opts(struct dp_ctx *dp, const char *devargs, const struct dp_port_opts *opts, char *err,
		     size_t errlen)
{
	return dp_port_add(dp, devargs, opts->flags, err, errlen);
}

enum dp_tx_mode dp_port_tx_mode(const struct dp_ctx *dp, int port, const char **why)
{
	(void)dp, (void)port;
	if (why != NULL)
		*why = "built without DPDK";
	return DP_TXM_COPY;
}

uint32_t dp_port_tx_mtu(const struct dp_ctx *dp, int port)
{
	(void)dp, (void)port;
	return 0;
}

void dp_port_bind(struct dp_ctx *dp, int port, struct net_bind *out)
{
	(void)dp, (void)port;
	out->ops = NULL;
	out->port = NULL;
}

bool dp_is_af_xdp(const char *devargs)
{
	return strncmp(devargs, "net_af_xdp", 10) == 0;
}

const char *dp_pmd_dir(void)
{
	return "";
}

int dp_port_xdp_stats(const struct dp_ctx *dp, int port, struct dp_xdp_stats *out)
{
	(void)dp, (void)port;
	memset(out, 0, sizeof(*out));
	return -ENOENT;
}

void dp_port_mac(const struct dp_ctx *dp, int port, uint8_t mac[6])
{
	(void)dp, (void)port;
	memset(mac, 0, 6);
}

int dp_tx(struct dp_ctx *dp, int port, const uint8_t *frame, size_t len)
{
	(void)dp, (void)port, (void)frame, (void)len;
	return DP_TX_NOMBUF;
}

int dp_tx_hdr(struct dp_ctx *dp, int port, const uint8_t *hdr, size_t hdr_len, size_t payload_len)
{
	(void)dp, (void)port, (void)hdr, (void)hdr_len, (void)payload_len;
	return DP_TX_NOMBUF;
}

uint8_t *dp_tx_hdr_reserve(struct dp_ctx *dp, int port)
{
	(void)dp, (void)port;
	return NULL;
}

int dp_tx_hdr_commit(struct dp_ctx *dp, int port, size_t hdr_len, size_t payload_len)
{
	(void)dp, (void)port, (void)hdr_len, (void)payload_len;
	return DP_TX_NOMBUF;
}

void dp_flush(struct dp_ctx *dp)
{
	(void)dp;
}

void dp_flush_port(struct dp_ctx *dp, int port)
{
	(void)dp, (void)port;
}

int dp_tx_thread_start(struct dp_ctx *dp, const bool *ports, const cpu_set_t *cpus, char *err, size_t errlen)
{
	(void)dp, (void)ports, (void)cpus, (void)err, (void)errlen;
	return 0;
}

void dp_tx_thread_stop(struct dp_ctx *dp)
{
	(void)dp;
}

unsigned dp_lcores(const struct dp_ctx *dp, unsigned *ids, unsigned max)
{
	(void)dp;
	if (max > 0)
		ids[0] = 0;
	return 1;
}

int dp_launch(struct dp_ctx *dp, unsigned lcore, int (*fn)(void *), void *arg)
{
	(void)dp, (void)lcore, (void)fn, (void)arg;
	return -ENOTSUP;
}

int dp_wait(struct dp_ctx *dp, unsigned lcore)
{
	(void)dp, (void)lcore;
	return -ENOTSUP;
}

unsigned dp_rx(struct dp_ctx *dp, int port, dp_rx_fn fn, void *arg)
{
	(void)dp, (void)port, (void)fn, (void)arg;
	return 0;
}

unsigned dp_rx_drain(struct dp_ctx *dp, int port, dp_rx_fn fn, void *arg)
{
	(void)dp, (void)port, (void)fn, (void)arg;
	return 0;
}

void dp_port_stats(const struct dp_ctx *dp, int port, struct dp_port_stats *out)
{
	(void)dp, (void)port;
	memset(out, 0, sizeof(*out));
}

int dp_tel_register(struct dp_ctx *dp, const struct dp_tel_cmd *cmds, unsigned n, void *arg, char *err,
		    size_t errlen)
{
	(void)dp, (void)cmds, (void)n, (void)arg;
	snprintf(err, errlen, "built without DPDK: no telemetry");
	return -ENOTSUP;
}

void dp_tel_unregister(struct dp_ctx *dp)
{
	(void)dp;
}

int dp_tel_u64(struct dp_tel *out, const char *key, uint64_t v)
{
	(void)out, (void)key, (void)v;
	return -ENOTSUP;
}

int dp_tel_str(struct dp_tel *out, const char *key, const char *v)
{
	(void)out, (void)key, (void)v;
	return -ENOTSUP;
}

struct dp_tel *dp_tel_obj(struct dp_tel *out, const char *key)
{
	(void)out, (void)key;
	return NULL;
}

int dp_pdump_start(struct dp_ctx *dp, char *err, size_t errlen)
{
	(void)dp, (void)err, (void)errlen;
	return 0;
}

void dp_pdump_stop(struct dp_ctx *dp)
{
	(void)dp;
}

uint64_t dp_tsc(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t dp_tsc_hz(void)
{
	return 1000000000u;
}
