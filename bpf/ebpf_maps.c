/* Reaching the maps of a program that is already loaded and attached (by id), with libbpf: how uetemu-ecn reads a
 * CE marker another invocation attached, and how the dataplane fills the steering maps of the program DPDK loaded. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "ebpf.h"

#define EBPF_PROG_MAPS_MAX 16

int ebpf_prog_maps(uint32_t prog_id, const char *prog_name, const char *const *names, int *fds, int n, char *err,
		   size_t errlen)
{
	struct bpf_prog_info pi;
	__u32 ids[EBPF_PROG_MAPS_MAX], len = sizeof(pi);
	int pfd, rc = 0;

	for (int i = 0; i < n; i++)
		fds[i] = -1;
	pfd = bpf_prog_get_fd_by_id(prog_id);
	if (pfd < 0) {
		rc = -errno;
		snprintf(err, errlen, "program id %u: %s", prog_id, strerror(errno));
		return rc == -ENOENT ? -ESRCH : rc;
	}
	memset(&pi, 0, sizeof(pi));
	pi.nr_map_ids = EBPF_PROG_MAPS_MAX;
	pi.map_ids = (__u64)(unsigned long)ids;
	if (bpf_obj_get_info_by_fd(pfd, &pi, &len) != 0) {
		rc = -errno;
		snprintf(err, errlen, "program id %u: info: %s", prog_id, strerror(errno));
		goto out;
	}
	if (strncmp(pi.name, prog_name, sizeof(pi.name) - 1) != 0) {
		snprintf(err, errlen, "program id %u is '%s', not uetemu's '%s'", prog_id, pi.name, prog_name);
		rc = -ENOENT;
		goto out;
	}
	for (__u32 m = 0; m < pi.nr_map_ids && m < EBPF_PROG_MAPS_MAX; m++) {
		struct bpf_map_info mi;
		__u32 mlen = sizeof(mi);
		int mfd = bpf_map_get_fd_by_id(ids[m]);

		if (mfd < 0)
			continue;
		memset(&mi, 0, sizeof(mi));
		if (bpf_obj_get_info_by_fd(mfd, &mi, &mlen) == 0) {
			for (int i = 0; i < n; i++) {
				if (fds[i] < 0 && strncmp(mi.name, names[i], sizeof(mi.name) - 1) == 0) {
					fds[i] = mfd;
					mfd = -1;
					break;
				}
			}
		}
		if (mfd >= 0)
			close(mfd);
	}
	for (int i = 0; i < n && rc == 0; i++) {
		if (fds[i] < 0) {
			snprintf(err, errlen, "program id %u has no map '%s'", prog_id, names[i]);
			rc = -ENOENT;
		}
	}
out:
	close(pfd);
	if (rc != 0) {
		for (int i = 0; i < n; i++) {
			if (fds[i] >= 0)
				close(fds[i]);
			fds[i] = -1;
		}
	}
	return rc;
}
