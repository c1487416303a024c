/* The far side of the forwarding benchmark (tests/bench/bench_fwd.sh): a feeder and a sink on net_memif ports. */
/*
 * Usage: bench_fwd_peer SECONDS WARMUP FEED_DEV SINK_DEV [-- EAL args]
 *        bench_fwd_peer --pcap FILE N
 *
 * The second form writes N of the switch case's frames (below) to the pcap file FILE, for a net_pcap port that
 * replays them forever (infinite_rx=1): a feeder inside the device under test's own lcore.
 *
 * Sends 4,198 B UET data frames (4,096 B MSS, RUD_CC_REQ with a write's standard SES header, PSN and buffer
 * offset counting up) from host2 (10.0.0.3, 02:00:00:00:00:03) to host3 (10.0.0.4, 02:00:00:00:00:04) on FEED_DEV
 * as fast as the port takes them (a frame its ring refuses goes again, with the same PSN), and counts every frame
 * that comes back on SINK_DEV (and on FEED_DEV, where a device under test answers: PFC pauses from a switch, ACKs
 * from a NIC). SINK_DEV may be "-": then the frames are to an emulated NIC at host3's address, on one PDC that SYN
 * opens, one write message of 1 GiB after another, each frame asking for its ACK (AR), and what comes back on
 * FEED_DEV is the ACKs. Until the device answers with an IPv4 frame (the first frame forwarded, or the first ACK;
 * not the ARP announcements a NIC's port sends as it starts), one frame a millisecond (PSN 0 to a NIC, so the PDC
 * starts with it); then, after WARMUP seconds, it measures for SECONDS and prints one line of key=value figures
 * per second of wall time:
 *   offered (frames the feed port took), fed_full (frames its ring refused), sink (frames on SINK_DEV),
 *   back (frames on FEED_DEV),
 * and a last line "total" over the whole window. The feeder's frames are zero-copy (headers in an mbuf, the
 * payload from the pattern), so its own lcore spends on each frame what net_memif's copy into its ring costs.
 * With BENCH_FWD_DUT_PID naming a file that holds the device under test's process id, the total line also gives
 * dut_cpu_s: the CPU time (utime + stime) its busiest thread, the forwarding lcore, took in the window.
 * Figures only; exits 0, or 1 when a port cannot be made, 77 when not root.
 */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dp.h"
#include "wire.h"

#define MSS 4096
#define MSG_BYTES (1ull << 30) /* one write message: 262,144 frames */
#define SYN_FRAMES 64

/* A data packet from host2 to host3 through tor0, as an emulated NIC would send it. */
static void data_pkt(struct wire_pkt *p)
{
	static const uint8_t a[6] = { 2, 0, 0, 0, 0, 3 }, b[6] = { 2, 0, 0, 0, 0, 4 };

	memset(p, 0, sizeof(*p));
	p->kind = WIRE_KIND_DATA;
	memcpy(p->src_mac, a, 6);
	memcpy(p->dst_mac, b, 6);
	p->src_ip = 0x0a000003;
	p->dst_ip = 0x0a000004;
	p->dscp = 0;
	p->ecn = WIRE_ECN_ECT0;
	p->ttl = WIRE_TTL;
	p->sport = 0xc000;
	p->dport = WIRE_UDP_PORT_UET;
	p->pds.type = WIRE_PDS_RUD_CC_REQ;
	p->ses.opcode = WIRE_SES_OP_WRITE;
	p->ses.request_length = (uint32_t)MSG_BYTES;
	p->payload_len = MSS;
}

/* The busiest thread of process @p pid: its id into *@p tid, its CPU seconds (or those of thread *@p tid when it is
 * already set); -1 when it cannot be read. */
static double thread_cpu(long pid, long *tid)
{
	const long want = *tid;
	char path[64];
	double best = -1;
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%ld/task", pid);
	if ((d = opendir(path)) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		char buf[1024], *q;
		unsigned long ut, st;
		long t = atol(de->d_name);
		FILE *f;

		if (t <= 0 || (want > 0 && t != want))
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/task/%ld/stat", pid, t);
		if ((f = fopen(path, "r")) == NULL)
			continue;
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = 0;
		if ((q = strrchr(buf, ')')) == NULL ||
		    sscanf(q + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
			continue;
		double c = (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
		if (c > best) {
			best = c;
			*tid = t;
		}
	}
	closedir(d);
	return best;
}

/* The device under test's process id, from the file BENCH_FWD_DUT_PID names; 0 when there is none. */
static long dut_pid(void)
{
	const char *fn = getenv("BENCH_FWD_DUT_PID");
	long pid = 0;
	FILE *f;

	if (fn == NULL || (f = fopen(fn, "r")) == NULL)
		return 0;
	if (fscanf(f, "%ld", &pid) != 1)
		pid = 0;
	fclose(f);
	return pid;
}

/*
 * Frame @p k of a PDC to an emulated NIC (no sink port): a write of MSG_BYTES per message, one after another on
 * PDC 1; the first SYN_FRAMES frames carry SYN (psn_offset in the DPDCID slot: the PDC starts at PSN 0), as a UET
 * initiator's do until its first ACK.
 */
static void nic_pkt(struct wire_pkt *p, uint64_t k)
{
	uint64_t in_msg = k % (MSG_BYTES / MSS);

	p->pds.spdcid = 1;
	p->pds.flags = WIRE_REQ_F_AR | (k < SYN_FRAMES ? WIRE_REQ_F_SYN : 0); /* an ACK for every frame */
	p->pds.dpdcid = k < SYN_FRAMES ? (uint16_t)k : 0;
	p->ses.message_id = (uint16_t)(k / (MSG_BYTES / MSS));
	p->ses.flags = (uint8_t)((in_msg == 0 ? WIRE_SES_F_SOM : 0) |
				 (in_msg == MSG_BYTES / MSS - 1 ? WIRE_SES_F_EOM : 0));
	p->ses.message_offset = (uint32_t)(in_msg * MSS);
	p->ses.request_length = (uint32_t)MSG_BYTES;
}

struct counts {
	uint64_t sink, back, sink_bytes;
	uint64_t back_ip; /* of back: IPv4 frames (an ACK), not the ARP announcements a NIC's port sends at its start */
};

static void on_sink(void *arg, int port, const uint8_t *frame, size_t len)
{
	struct counts *c = arg;

	(void)port;
	(void)frame;
	c->sink++;
	c->sink_bytes += len;
}

static void on_back(void *arg, int port, const uint8_t *frame, size_t len)
{
	struct counts *c = arg;

	(void)port;
	c->back++;
	c->back_ip += len >= 14 && frame[12] == 0x08 && frame[13] == 0x00;
}

/* Write @p n switch-case frames to the pcap file @p fn. 0 or 1. */
static int write_pcap(const char *fn, long n)
{
	const uint32_t gh[6] = { 0xa1b2c3d4, 0x00040002, 0, 0, WIRE_MAX_FRAME, 1 }; /* LINKTYPE_ETHERNET */
	uint8_t *frame = malloc(WIRE_MAX_FRAME);
	struct wire_pkt pkt;
	FILE *f = fopen(fn, "wb");
	int rc = 0;

	if (f == NULL || frame == NULL || fwrite(gh, sizeof(gh), 1, f) != 1)
		rc = 1;
	data_pkt(&pkt);
	for (long k = 0; rc == 0 && k < n; k++) {
		pkt.pds.psn = (uint32_t)k;
		pkt.ses.buffer_offset = (uint64_t)k * MSS;
		int len = wire_encode(&pkt, frame, WIRE_MAX_FRAME);
		const uint32_t rh[4] = { (uint32_t)(k / 1000000), (uint32_t)(k % 1000000), (uint32_t)len, (uint32_t)len };

		if (len <= 0 || fwrite(rh, sizeof(rh), 1, f) != 1 || fwrite(frame, (size_t)len, 1, f) != 1)
			rc = 1;
	}
	if (f != NULL && fclose(f) != 0)
		rc = 1;
	free(frame);
	if (rc != 0)
		fprintf(stderr, "bench_fwd_peer: cannot write %s\n", fn);
	return rc;
}

int main(int argc, char **argv)
{
	char *defaults[] = { "--no-huge", "--no-pci", "-m", "256", "--log-level=lib.*:warning" };
	char **eal = defaults;
	int n_eal = (int)(sizeof(defaults) / sizeof(defaults[0]));
	uint8_t hdr[WIRE_HDRS_MAX], *pat;
	struct dp_port_stats st0, st, sp = { 0 }, sa, sb;
	struct counts c = { 0 }, c0, cp = { 0 };
	struct wire_pkt pkt;
	struct dp_ctx *dp;
	char err[256];
	int feed, sink = -1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && strcmp(argv[1], "--pcap") == 0)
		return write_pcap(argv[2], atol(argv[3]));
	if (argc < 5) {
		fprintf(stderr, "usage: bench_fwd_peer SECONDS WARMUP FEED_DEV SINK_DEV|- [-- EAL args]\n");
		return 2;
	}
	if (geteuid() != 0) {
		printf("SKIP: bench_fwd_peer needs root\n");
		return 77;
	}
	if (argc > 6 && strcmp(argv[5], "--") == 0) {
		eal = argv + 6;
		n_eal = argc - 6;
	}
	const double secs = atof(argv[1]), warm = atof(argv[2]);
	pat = malloc(WIRE_MAX_FRAME);
	if (pat == NULL)
		return 1;
	wire_payload_fill(pat, WIRE_MAX_FRAME);
	dp = dp_create(n_eal, eal, err, sizeof(err));
	if (dp == NULL || dp_tx_pattern_set(dp, pat, WIRE_MAX_FRAME, err, sizeof(err)) != 0 ||
	    (feed = dp_port_add(dp, argv[3], 0, err, sizeof(err))) < 0 ||
	    (strcmp(argv[4], "-") != 0 && (sink = dp_port_add(dp, argv[4], 0, err, sizeof(err))) < 0)) {
		printf("bench_fwd_peer: %s\n", err);
		dp_destroy(dp);
		free(pat);
		return 1;
	}
	free(pat);
	data_pkt(&pkt);

	const uint64_t hz = dp_tsc_hz();
	uint64_t psn = 0, next, t0 = 0, tick = 0, end = 0;
	bool measuring = false;
	long pid = 0, tid = 0;
	double cpu0 = -1, cpu1 = -1;

	/* Until the device under test answers: its first frame every millisecond (PSN 0 to a NIC: the SYN that opens
	 * the PDC), for 20 s at most; then the warm-up, then the window. */
	next = dp_tsc() + 20 * hz;
	while (c.sink + c.back_ip == 0) {
		if (sink < 0)
			nic_pkt(&pkt, 0);
		int h = wire_encode_hdrs(&pkt, hdr, sizeof(hdr));
		dp_tx_hdr(dp, feed, hdr, (size_t)h, MSS);
		dp_flush_port(dp, feed);
		usleep(1000);
		if (sink >= 0)
			dp_rx_drain(dp, sink, on_sink, &c);
		dp_rx_drain(dp, feed, on_back, &c);
		if (dp_tsc() > next) {
			printf("bench_fwd_peer: nothing came back in 20 s\n");
			dp_destroy(dp);
			return 1;
		}
	}
	psn = 1;
	next = dp_tsc() + (uint64_t)(warm * (double)hz);
	dp_port_stats(dp, feed, &st0);
	c0 = c;
	for (;;) {
		const uint64_t base = psn;

		dp_port_stats(dp, feed, &sb);
		for (int i = 0; i < DP_BURST; i++) {
			if (sink < 0)
				nic_pkt(&pkt, psn);
			pkt.pds.psn = (uint32_t)psn;
			pkt.ses.buffer_offset = (psn++ * MSS) & (MSG_BYTES - 1);
			int h = wire_encode_hdrs(&pkt, hdr, sizeof(hdr));
			dp_tx_hdr(dp, feed, hdr, (size_t)h, MSS);
		}
		dp_flush_port(dp, feed);
		/* the ring took the burst's first frames only: the PSNs of the others go again (no gap in a PDC) */
		dp_port_stats(dp, feed, &sa);
		psn = base + (sa.tx_frames - sb.tx_frames);
		if (sink >= 0)
			dp_rx_drain(dp, sink, on_sink, &c);
		dp_rx_drain(dp, feed, on_back, &c);

		uint64_t now = dp_tsc();

		if (now < next)
			continue;
		dp_port_stats(dp, feed, &st);
		if (!measuring) { /* the warm-up is over: the window starts */
			measuring = true;
			t0 = tick = now;
			end = now + (uint64_t)(secs * (double)hz);
			st0 = sp = st;
			c0 = cp = c;
			if ((pid = dut_pid()) > 0)
				cpu0 = thread_cpu(pid, &tid);
			next = now + hz;
			continue;
		}
		double dt = (double)(now - tick) / (double)hz;
		printf("bench_fwd_peer: second offered=%.0f fed_full=%.0f sink=%.0f back=%.0f (per s)\n",
		       (double)(st.tx_frames - sp.tx_frames) / dt, (double)(st.tx_drop_full - sp.tx_drop_full) / dt,
		       (double)(c.sink - cp.sink) / dt, (double)(c.back - cp.back) / dt);
		sp = st;
		cp = c;
		tick = now;
		next = now + hz;
		if (now >= end) {
			if (cpu0 >= 0)
				cpu1 = thread_cpu(pid, &tid);
			break;
		}
	}
	double w = (double)(tick - t0) / (double)hz;

	printf("bench_fwd_peer: total seconds=%.3f offered=%" PRIu64 " fed_full=%" PRIu64 " sink=%" PRIu64
	       " back=%" PRIu64 " sink_bytes=%" PRIu64 " offered_mpps=%.3f sink_mpps=%.3f sink_gbps=%.2f dut_cpu_s=%.3f\n",
	       w, st.tx_frames - st0.tx_frames, st.tx_drop_full - st0.tx_drop_full, c.sink - c0.sink, c.back - c0.back,
	       c.sink_bytes - c0.sink_bytes, (double)(st.tx_frames - st0.tx_frames) / w / 1e6,
	       (double)(c.sink - c0.sink) / w / 1e6, (double)(c.sink_bytes - c0.sink_bytes) * 8 / w / 1e9,
	       cpu1 >= 0 && cpu0 >= 0 ? cpu1 - cpu0 : -1.0);
	printf("bench_fwd_peer: feed port over the run: tx %" PRIu64 ", full %" PRIu64 ", nombuf %" PRIu64 ", toobig %"
	       PRIu64 ", rx %" PRIu64 "; last PSN %" PRIu64 "\n", st.tx_frames, st.tx_drop_full, st.tx_drop_nombuf,
	       st.tx_drop_toobig, st.rx_frames, psn);
	dp_destroy(dp);
	return 0;
}
