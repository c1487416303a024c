/*
 * Path spread of the fat-tree permutations under the switches' ECMP (docs/performance.md, FCT against htsim).
 *
 *   bench_ecmp_spread [K [PAIRS]]   (no K: 8 12 16 20 24 32; meson test -C build --benchmark --suite bench
 *                                    ecmp-spread)
 *
 * For the k-ary fat tree and a permutation (PAIRS: "src dst" lines, e.g. the bench's gen_fat_tree.py derangement;
 * without it, host i to host i + k^2/4 + 1), each inter-pod flow's
 * 128 entropy values of Default Packet Spraying (UDP source ports 256..383) are hashed as the switches hash them
 * (crc32WithSalt, each switch's salt from its node id, member = hash mod set size): the tor picks an agg, the agg a
 * core. Printed per k: the distinct (agg, core) paths a flow reaches (mean, worst, of (k/2)^2), and the busiest
 * tor-to-agg and agg-to-core link's share against the mean (every entropy value carrying the same bytes). Figures
 * only; the switch code is the run's (sw_flow_hash(), sw_ecmp_salt()).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sw.h"
#include "wire.h"

#define ENT_FIRST 256
#define ENT_N 128

static void spread(int k, const int *dst_of)
{
	int h = k / 2, hosts = k * k * k / 4, ntor = k * k / 2, nagg = k * k / 2;
	double *up1 = calloc((size_t)(ntor * h), sizeof(double)), *up2 = calloc((size_t)(nagg * h), sizeof(double));
	uint32_t *salt = calloc((size_t)(ntor + nagg), sizeof(uint32_t));
	char *seen = calloc((size_t)(h * h), 1);
	int flows = 0, worst = h * h;
	double sum = 0, mx1 = 0, mx2 = 0, s1 = 0, s2 = 0;

	if (up1 == NULL || up2 == NULL || salt == NULL || seen == NULL) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	for (int i = 0; i < ntor + nagg; i++) /* tors, then aggs: node ids follow the hosts (ctl_run_fabric.c) */
		salt[i] = sw_ecmp_salt((uint32_t)(hosts + i));
	for (int src = 0; src < hosts; src++) {
		int dst = dst_of[src], tor = src / h, pod = src / (h * h), paths = 0;

		if (pod == dst / (h * h))
			continue; /* within a pod the agg has one way down: no second choice */
		memset(seen, 0, (size_t)(h * h));
		for (int e = ENT_FIRST; e < ENT_FIRST + ENT_N; e++) {
			struct wire_pkt p;

			memset(&p, 0, sizeof(p));
			p.kind = WIRE_KIND_DATA;
			p.sport = (uint16_t)e;
			p.dport = WIRE_UDP_PORT_UET;
			p.src_ip = 0x0a000000u + (uint32_t)src + 1;
			p.dst_ip = 0x0a000000u + (uint32_t)dst + 1;
			int m1 = sw_flow_hash(SW_HASH_CRC32_SALT, salt[tor], &p, (uint32_t)h) % h, agg = pod * h + m1;
			int m2 = sw_flow_hash(SW_HASH_CRC32_SALT, salt[ntor + agg], &p, (uint32_t)h) % h;

			up1[tor * h + m1] += 1.0 / ENT_N;
			up2[agg * h + m2] += 1.0 / ENT_N;
			paths += !seen[m1 * h + m2];
			seen[m1 * h + m2] = 1;
		}
		flows++;
		sum += paths;
		worst = paths < worst ? paths : worst;
	}
	for (int i = 0; i < ntor * h; i++) {
		s1 += up1[i];
		mx1 = up1[i] > mx1 ? up1[i] : mx1;
	}
	for (int i = 0; i < nagg * h; i++) {
		s2 += up2[i];
		mx2 = up2[i] > mx2 ? up2[i] : mx2;
	}
	printf("k = %2d: %5d inter-pod flows, paths per flow mean %5.1f worst %3d of %3d; busiest link / mean: "
	       "tor-agg %.2f, agg-core %.2f\n", k, flows, flows ? sum / flows : 0, worst, h * h,
	       s1 > 0 ? mx1 / (s1 / (ntor * h)) : 0, s2 > 0 ? mx2 / (s2 / (nagg * h)) : 0);
	free(up1);
	free(up2);
	free(salt);
	free(seen);
}

/* Without a pairs file: host i sends to host i + k^2/4 + 1 (another pod, another tor), a derangement that loads
 * every tor and agg alike. */
static void fixed_perm(int k, int *dst_of)
{
	int hosts = k * k * k / 4;

	for (int i = 0; i < hosts; i++)
		dst_of[i] = (i + k * k / 4 + 1) % hosts;
}

int main(int argc, char **argv)
{
	static const int def[] = { 8, 12, 16, 20, 24, 32 };
	int n = argc > 1 ? 1 : (int)(sizeof(def) / sizeof(def[0]));

	for (int a = 0; a < n; a++) {
		int k = argc > 1 ? atoi(argv[1]) : def[a], hosts, src, dst;
		int *dst_of;

		if (k < 4 || k > 62 || k % 2) {
			fprintf(stderr, "usage: bench_ecmp_spread [K [PAIRS]]: K even, 4 to 62; PAIRS \"src dst\" lines\n");
			return 1;
		}
		hosts = k * k * k / 4;
		dst_of = malloc((size_t)hosts * sizeof(*dst_of));
		if (dst_of == NULL)
			return 1;
		fixed_perm(k, dst_of);
		if (argc > 2) {
			FILE *f = fopen(argv[2], "r");

			if (f == NULL) {
				perror(argv[2]);
				return 1;
			}
			while (fscanf(f, "%d %d", &src, &dst) == 2)
				if (src >= 0 && src < hosts && dst >= 0 && dst < hosts)
					dst_of[src] = dst;
			fclose(f);
		}
		spread(k, dst_of);
		free(dst_of);
	}
	return 0;
}
