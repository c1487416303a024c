/* Benchmark of the dataplane's TX paths: 4,198 B UET data frames (4,096 B MSS) sent on net_null by one lcore. */
/*
 * Three ways, ROUNDS rounds of RUN_SECONDS each (argv[1] overrides the seconds), interleaved so a busy machine
 * slows them alike; each way's median and best round are printed, per second of wall time and per second of the
 * thread's CPU time (what an lcore with a core to itself would do: on a shared machine the wall-time figure also
 * counts the time other processes had the core). One poll pass = DP_BURST frames staged, then flushed:
 *   zero-copy  wire_encode_hdrs() straight into the header mbuf (dp_tx_hdr_reserve(), dp_tx_hdr_commit()) on a
 *              zero-copy port: no byte copied, the payload attached
 *   copy       the same on a port set to copy (DP_PORT_TX_COPY): headers and the 4,096 B payload copied
 *   dp_tx      dp_tx() of one prebuilt frame: the copy alone, what this benchmark measured before zero-copy
 * net_null frees what it is given, so this measures the frame's way into mbufs and tx_burst, not a wire. 400 Gb/s
 * of 4,202 B frames on the wire (FCS included) is 11.9 Mpps. Then, when the EAL has a second lcore, the zero-copy
 * way on two lcores at once, each sending on a net_null port of its own as the real-time loop's lcores do (each
 * polls its own ports): their frames per second added up. Prints figures only, no assertions. A second argument
 * "zero-copy" runs that way alone (a profile of it).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dp.h"
#include "wire.h"

#define MSS 4096
#define RUN_SECONDS 1.0
#define ROUNDS 3
#define LINE_RATE_MPPS 11.9 /* 400e9 / ((MSS + WIRE_DATA_OVERHEAD) * 8) */

enum bench_way { WAY_ZEROCOPY, WAY_COPY, WAY_DP_TX, WAYS };

/* A data packet as a NIC sends it, for the headers the real-time loop encodes per frame. */
static void data_pkt(struct wire_pkt *p)
{
	static const uint8_t a[6] = { 2, 0, 0, 0, 0, 1 }, b[6] = { 2, 0, 0, 0, 0, 2 };

	memset(p, 0, sizeof(*p));
	p->kind = WIRE_KIND_DATA;
	memcpy(p->src_mac, a, 6);
	memcpy(p->dst_mac, b, 6);
	p->src_ip = 0x0a000001;
	p->dst_ip = 0x0a000002;
	p->dscp = 8;
	p->ttl = WIRE_TTL;
	p->sport = 0xc000;
	p->dport = WIRE_UDP_PORT_UET;
	p->pds.type = WIRE_PDS_RUD_CC_REQ;
	p->ses.opcode = WIRE_SES_OP_WRITE;
	p->ses.request_length = 1u << 20;
	p->payload_len = MSS;
}

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Send on @p port the @p way for @p secs seconds; returns frames per second of wall time, and in *@p cpu_pps per
 * second of this thread's CPU time; adds drops to *@p drops.
 */
static double run(struct dp_ctx *dp, int port, enum bench_way way, double secs, double *cpu_pps, uint64_t *drops)
{
	uint8_t hdr[WIRE_HDRS_MAX], *frame = malloc(WIRE_MAX_FRAME);
	uint64_t hz = dp_tsc_hz(), t0 = dp_tsc(), t1, psn = 0;
	struct dp_port_stats st0, st;
	struct wire_pkt pkt;
	int h, len;

	data_pkt(&pkt);
	len = wire_encode(&pkt, frame, WIRE_MAX_FRAME);
	h = wire_encode_hdrs(&pkt, hdr, sizeof(hdr));
	dp_port_stats(dp, port, &st0);
	double c0 = cpu_s();
	do {
		for (int i = 0; i < DP_BURST; i++) {
			if (way == WAY_DP_TX) {
				dp_tx(dp, port, frame, (size_t)len);
				continue;
			}
			pkt.pds.psn = (uint32_t)psn++;
			pkt.ses.buffer_offset = psn * MSS;
			uint8_t *room = way == WAY_ZEROCOPY ? dp_tx_hdr_reserve(dp, port) : NULL;

			if (room != NULL) {
				h = wire_encode_hdrs(&pkt, room, DP_TX_HDR_ROOM);
				dp_tx_hdr_commit(dp, port, (size_t)h, (size_t)(len - h));
				continue;
			}
			h = wire_encode_hdrs(&pkt, hdr, sizeof(hdr));
			dp_tx_hdr(dp, port, hdr, (size_t)h, (size_t)(len - h));
		}
		dp_flush_port(dp, port); /* only its own port: another lcore may be sending on another */
		t1 = dp_tsc();
	} while (t1 - t0 < (uint64_t)(secs * (double)hz));
	double c1 = cpu_s();
	dp_port_stats(dp, port, &st);
	free(frame);
	*cpu_pps = (double)(st.tx_frames - st0.tx_frames) / (c1 > c0 ? c1 - c0 : 1e-9);
	*drops += st.tx_drop_full + st.tx_drop_nombuf + st.tx_drop_toobig -
		  (st0.tx_drop_full + st0.tx_drop_nombuf + st0.tx_drop_toobig);
	return (double)(st.tx_frames - st0.tx_frames) / ((double)(t1 - t0) / (double)hz);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Print one way's rounds: median and best Mpps per wall second and per CPU second, ns per frame at the median. */
static void report(enum bench_way way, double *pps, double *cpu, uint64_t drops)
{
	static const char *const names[] = { "zero-copy (dp_tx_hdr_reserve/commit)", "copy (dp_tx_hdr)", "copy (dp_tx, prebuilt)" };
	double frame_bits = (MSS + WIRE_DATA_OVERHEAD - WIRE_FCS_LEN) * 8.0;

	qsort(pps, ROUNDS, sizeof(*pps), cmp_double);
	qsort(cpu, ROUNDS, sizeof(*cpu), cmp_double);
	double med = pps[ROUNDS / 2], cmed = cpu[ROUNDS / 2];

	printf("  %-23s wall: median %6.3f Mpps (%5.1f ns/frame, %5.1f Gb/s, %3.0f %% of the goal), best %6.3f\n"
	       "  %-23s CPU:  median %6.3f Mpps (%5.1f ns/frame, %5.1f Gb/s, %3.0f %% of the goal), best %6.3f; "
	       "%" PRIu64 " dropped\n", names[way], med / 1e6, 1e9 / (med > 0 ? med : 1), med * frame_bits / 1e9,
	       100.0 * med / 1e6 / LINE_RATE_MPPS, pps[ROUNDS - 1] / 1e6, "", cmed / 1e6, 1e9 / (cmed > 0 ? cmed : 1),
	       cmed * frame_bits / 1e9, 100.0 * cmed / 1e6 / LINE_RATE_MPPS, cpu[ROUNDS - 1] / 1e6, drops);
}

/* One lcore's share of the two-lcore round: its port, how long, what it measured. */
struct lcore_run {
	struct dp_ctx *dp;
	int port;
	double secs, pps, cpu_pps;
	uint64_t drops;
};

static int lcore_run(void *arg)
{
	struct lcore_run *l = arg;

	l->pps = run(l->dp, l->port, WAY_ZEROCOPY, l->secs, &l->cpu_pps, &l->drops);
	return 0;
}

/*
 * Zero-copy on two lcores at once, ROUNDS rounds: the main lcore on @p zc, worker lcore @p worker on @p zc2.
 * Prints the two lcores' Mpps added up (median and best round), per wall second and per CPU second.
 */
static void two_lcores(struct dp_ctx *dp, unsigned worker, int zc, int zc2, double secs)
{
	double pps[ROUNDS], cpu[ROUNDS];
	uint64_t drops = 0;

	for (int r = 0; r < ROUNDS; r++) {
		struct lcore_run w = { .dp = dp, .port = zc2, .secs = secs };
		struct lcore_run m = { .dp = dp, .port = zc, .secs = secs };

		if (dp_launch(dp, worker, lcore_run, &w) != 0) {
			printf("  two lcores: lcore %u would not start\n", worker);
			return;
		}
		lcore_run(&m);
		dp_wait(dp, worker);
		pps[r] = m.pps + w.pps;
		cpu[r] = m.cpu_pps + w.cpu_pps;
		drops += m.drops + w.drops;
		printf("  two lcores, round %d: main %.3f Mpps, lcore %u %.3f Mpps (wall)\n", r, m.pps / 1e6, worker,
		       w.pps / 1e6);
	}
	qsort(pps, ROUNDS, sizeof(*pps), cmp_double);
	qsort(cpu, ROUNDS, sizeof(*cpu), cmp_double);
	printf("  %-23s wall: median %6.3f Mpps (%3.0f %% of the goal), best %6.3f; CPU: median %6.3f Mpps, best "
	       "%6.3f; %" PRIu64 " dropped\n", "zero-copy, two lcores", pps[ROUNDS / 2] / 1e6,
	       100.0 * pps[ROUNDS / 2] / 1e6 / LINE_RATE_MPPS, pps[ROUNDS - 1] / 1e6, cpu[ROUNDS / 2] / 1e6,
	       cpu[ROUNDS - 1] / 1e6, drops);
}

int main(int argc, char **argv)
{
	char *eal[] = { "--no-huge", "--no-pci", "-m", "256", "--no-shconf", "--log-level=lib.*:warning" };
	uint8_t *pat = malloc(WIRE_MAX_FRAME);
	double secs = argc > 1 ? atof(argv[1]) : RUN_SECONDS, pps[WAYS][ROUNDS], cpu[WAYS][ROUNDS];
	uint64_t drops[WAYS] = { 0 };
	struct dp_ctx *dp;
	char err[256];
	int zc, cp, zc2;
	unsigned lcores[2];

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (geteuid() != 0) {
		printf("SKIP: bench_dp_tx needs root\n");
		free(pat);
		return 77;
	}
	wire_payload_fill(pat, WIRE_MAX_FRAME);
	dp = dp_create((int)(sizeof(eal) / sizeof(eal[0])), eal, err, sizeof(err));
	if (dp == NULL || dp_tx_pattern_set(dp, pat, WIRE_MAX_FRAME, err, sizeof(err)) != 0 ||
	    (zc = dp_port_add(dp, "net_null0", 0, err, sizeof(err))) < 0 ||
	    (cp = dp_port_add(dp, "net_null1", DP_PORT_TX_COPY, err, sizeof(err))) < 0 ||
	    (zc2 = dp_port_add(dp, "net_null2", 0, err, sizeof(err))) < 0) {
		printf("bench_dp_tx: %s\n", err);
		dp_destroy(dp);
		free(pat);
		return 1;
	}
	free(pat);
	printf("dp-tx: %d B data frames (%d B MSS) on net_null, one lcore, %d rounds of %.1f s; goal %.1f Mpps\n",
	       MSS + WIRE_DATA_OVERHEAD - WIRE_FCS_LEN, MSS, ROUNDS, secs, LINE_RATE_MPPS);
	if (dp_port_tx_mode(dp, zc, NULL) != DP_TXM_ZEROCOPY)
		printf("  (net_null0 fell back to copying)\n");
	/* argv[2] "zero-copy": that way alone, on one lcore (for a profile of it: perf record) */
	const int ways = argc > 2 && strcmp(argv[2], "zero-copy") == 0 ? 1 : WAYS;

	for (int r = 0; r < ROUNDS; r++)
		for (int w = 0; w < ways; w++)
			pps[w][r] = run(dp, w == WAY_ZEROCOPY ? zc : cp, (enum bench_way)w, secs, &cpu[w][r], &drops[w]);
	for (int w = 0; w < ways; w++)
		report((enum bench_way)w, pps[w], cpu[w], drops[w]);
	if (ways == 1)
		;
	else if (dp_lcores(dp, lcores, 2) >= 2)
		two_lcores(dp, lcores[1], zc, zc2, secs);
	else
		printf("  two lcores: the EAL has one lcore (give it two, e.g. -l 0-1)\n");
	dp_destroy(dp);
	return 0;
}
