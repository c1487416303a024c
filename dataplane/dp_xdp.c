/* net_af_xdp ports with uetemu's XDP steering program (bpf/ebpf_xdp_steer.bpf.c).
 *
 * DPDK 22.11's net_af_xdp PMD takes a custom program through its xdp_prog= devarg: at RX queue setup it loads the
 * object with libbpf, attaches its first program to the interface (XDP_FLAGS_UPDATE_IF_NOEXIST, so it fails if the
 * interface already has an XDP program), creates the AF_XDP socket without libxdp's default program, and puts the
 * socket into the object's map "xsks_map" at the queue's index; it detaches the program when the port closes. The
 * PMD keeps the object to itself, so the other maps are reached here through the attached program's id
 * (ebpf_prog_maps()): the UET ports and the emulated hosts' addresses are written before the port starts. Until
 * then the program matches UDP 4793 and 4794, and no ARP or ICMP.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>

#include <rte_errno.h>

#include "dp.h"
#include "dp_pvt.h"

#ifdef DP_HAVE_LIBBPF
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "ebpf.h"

int dp_xdp_devargs(const char *devargs, const struct dp_port_opts *opts, char *out, size_t outlen, char *err,
		   size_t errlen)
{
	char path[PATH_MAX + 256];

	if (!dp_is_af_xdp(devargs)) {
		dp_err(err, errlen, "port \"%s\": XDP steering is for net_af_xdp devices only", devargs);
		return -EINVAL;
	}
	if (strstr(devargs, "xdp_prog=") != NULL) {
		dp_err(err, errlen, "port \"%s\": gives its own xdp_prog=, so uetemu's steering cannot be loaded (set "
		       "xdp_steering: false to use that program)", devargs);
		return -EINVAL;
	}
	if (opts->xdp_obj != NULL)
		snprintf(path, sizeof(path), "%s", opts->xdp_obj);
	else if (ebpf_obj_find(EBPF_STEER_OBJ, path, sizeof(path)) != 0) {
		dp_err(err, errlen, "port \"%s\": XDP steering: %s", devargs, path);
		return -ENOENT;
	}
	if (access(path, R_OK) != 0) {
		dp_err(err, errlen, "port \"%s\": XDP steering object %s: %s", devargs, path, strerror(errno));
		return -ENOENT;
	}
	if (snprintf(out, outlen, "%s,xdp_prog=%s", devargs, path) >= (int)outlen) {
		dp_err(err, errlen, "port \"%s\": devargs with xdp_prog=%s too long", devargs, path);
		return -E2BIG;
	}
	return 0;
}

int dp_xdp_steer(struct dp_port *p, int ifindex, const struct dp_port_opts *opts, const char *devargs, char *err,
		 size_t errlen)
{
	static const char *const names[] = { EBPF_STEER_CFG_MAP, EBPF_STEER_HOSTS_MAP, EBPF_STEER_STATS_MAP };
	struct ebpf_steer_cfg cfg = { .uet_port = opts->uet_udp_port, .cm_port = opts->cm_udp_port, .ready = 1 };
	char why[256];
	__u32 id = 0, key = 0;
	__u8 one = 1;
	int fds[3], rc;

	rc = bpf_xdp_query_id(ifindex, 0, &id);
	if (rc != 0 || id == 0) {
		dp_err(err, errlen, "port \"%s\": no XDP program on interface %d after setup (%s)", devargs, ifindex,
		       rc ? strerror(-rc) : "none attached");
		return rc ? rc : -ENOENT;
	}
	rc = ebpf_prog_maps(id, EBPF_STEER_PROG, names, fds, 3, why, sizeof(why));
	if (rc != 0) {
		dp_err(err, errlen, "port \"%s\": XDP steering: %s (a device the EAL probed from --vdev keeps the program "
		       "its devargs gave: leave it out of --vdev)", devargs, why);
		return rc;
	}
	for (unsigned i = 0; i < opts->n_ip && rc == 0; i++) {
		__u32 ip = htonl(opts->ip[i]);
		if (bpf_map_update_elem(fds[1], &ip, &one, BPF_ANY) != 0)
			rc = -errno;
	}
	if (rc == 0 && bpf_map_update_elem(fds[0], &key, &cfg, BPF_ANY) != 0)
		rc = -errno;
	close(fds[0]);
	close(fds[1]);
	if (rc != 0) {
		close(fds[2]);
		dp_err(err, errlen, "port \"%s\": filling the XDP steering maps: %s", devargs, strerror(-rc));
		return rc;
	}
	p->xdp_stats_fd = fds[2];
	return 0;
}

void dp_xdp_release(struct dp_port *p)
{
	if (p->xdp_stats_fd >= 0)
		close(p->xdp_stats_fd);
	p->xdp_stats_fd = -1;
}

int dp_port_xdp_stats(const struct dp_ctx *dp, int port, struct dp_xdp_stats *out)
{
	const struct dp_port *p = &dp->port[port];
	uint64_t sum[EBPF_STEER_N] = { 0 };
	int ncpu = libbpf_num_possible_cpus();

	memset(out, 0, sizeof(*out));
	if (p->xdp_stats_fd < 0 || ncpu <= 0)
		return -ENOENT;
	uint64_t v[ncpu];
	for (__u32 k = 0; k < EBPF_STEER_N; k++) {
		if (bpf_map_lookup_elem(p->xdp_stats_fd, &k, v) != 0)
			return -errno;
		for (int c = 0; c < ncpu; c++)
			sum[k] += v[c];
	}
	*out = (struct dp_xdp_stats){ .uet = sum[EBPF_STEER_UET], .cm = sum[EBPF_STEER_CM],
		.proto253 = sum[EBPF_STEER_PROTO253], .arp = sum[EBPF_STEER_ARP], .icmp = sum[EBPF_STEER_ICMP],
		.pfc = sum[EBPF_STEER_PFC], .pass = sum[EBPF_STEER_PASS], .nosock = sum[EBPF_STEER_NOSOCK] };
	return 0;
}

#else /* no libbpf: no steering */

int dp_xdp_devargs(const char *devargs, const struct dp_port_opts *opts, char *out, size_t outlen, char *err,
		   size_t errlen)
{
	(void)opts;
	(void)out;
	(void)outlen;
	dp_err(err, errlen, "port \"%s\": XDP steering needs libbpf, which this build of uetemu lacks", devargs);
	return -ENOTSUP;
}

int dp_xdp_steer(struct dp_port *p, int ifindex, const struct dp_port_opts *opts, const char *devargs, char *err,
		 size_t errlen)
{
	(void)p;
	(void)ifindex;
	(void)opts;
	dp_err(err, errlen, "port \"%s\": XDP steering needs libbpf", devargs);
	return -ENOTSUP;
}

void dp_xdp_release(struct dp_port *p)
{
	p->xdp_stats_fd = -1;
}

int dp_port_xdp_stats(const struct dp_ctx *dp, int port, struct dp_xdp_stats *out)
{
	(void)dp;
	(void)port;
	memset(out, 0, sizeof(*out));
	return -ENOENT;
}
#endif
