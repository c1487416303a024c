/* Lab test of the dataplane on a real PMD pair: two net_memif ports (server and client) in this one process. */
/*
 * Not a Criterion test: the EAL starts once per process and does not survive Criterion's forks. Sends 1000
 * distinct frames of 60 B to DP_FRAME_MAX on port 0, receives them on port 1 and checks every byte and counter.
 * Frames above one mbuf go out as chains and come back as chains, so both copy paths are covered. Then the same
 * through the ports' binding to the models (dp_port_bind()): tx_burst, rx_burst, flush.
 * Exit 0 all passed, 1 some failed, 77 skipped (not root).
 */
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>

#include "dp.h"

#define N_FRAMES 1000
#define ETHERTYPE_TEST 0x88b5 /* IEEE 802 local experimental */
#define HDR_LEN 18             /* 14 B Ethernet + 4 B sequence number */

struct loop {
	unsigned passed, failed;
	unsigned got, bad, dup, stray;
	uint64_t got_bytes;
	bool seen[N_FRAMES];
	uint8_t buf[DP_FRAME_MAX];
};

static void check(struct loop *t, bool ok, const char *what)
{
	printf("%s: %s\n", ok ? "PASS" : "FAIL", what);
	if (ok)
		t->passed++;
	else
		t->failed++;
}

/* Frame @p i of @p len bytes: Ethernet header, sequence number, then a pattern that depends on both. */
static void frame_fill(uint8_t *f, uint32_t i, size_t len)
{
	static const uint8_t dst[6] = { 0x02, 0, 0, 0, 0, 0x02 }, src[6] = { 0x02, 0, 0, 0, 0, 0x01 };

	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	f[12] = ETHERTYPE_TEST >> 8;
	f[13] = ETHERTYPE_TEST & 0xff;
	f[14] = (uint8_t)(i >> 24);
	f[15] = (uint8_t)(i >> 16);
	f[16] = (uint8_t)(i >> 8);
	f[17] = (uint8_t)i;
	for (size_t k = HDR_LEN; k < len; k++)
		f[k] = (uint8_t)(k * 31 + i * 7);
}

/* Frame @p i is 60..DP_FRAME_MAX bytes: the stride 997 is coprime to the range, so the lengths spread over it. */
static size_t frame_make(uint8_t *f, uint32_t i)
{
	size_t len = 60 + (size_t)i * 997 % (DP_FRAME_MAX - 60 + 1);

	frame_fill(f, i, len);
	return len;
}

static void on_rx(void *arg, int port, const uint8_t *frame, size_t len)
{
	struct loop *t = arg;
	uint32_t i;

	(void)port;
	if (len < HDR_LEN || frame[12] != (ETHERTYPE_TEST >> 8) || frame[13] != (ETHERTYPE_TEST & 0xff)) {
		t->stray++;
		return;
	}
	i = (uint32_t)frame[14] << 24 | (uint32_t)frame[15] << 16 | (uint32_t)frame[16] << 8 | frame[17];
	if (i == UINT32_MAX) /* the link-up probe */
		return;
	if (i >= N_FRAMES || frame_make(t->buf, i) != len || memcmp(t->buf, frame, len) != 0) {
		if (t->bad < 5)
			printf("  bad frame: seq %u, %zu B\n", i, len);
		t->bad++;
		return;
	}
	if (t->seen[i])
		t->dup++;
	t->seen[i] = true;
	t->got++;
	t->got_bytes += len;
}

/* memif connects in the background: send a probe on port 0 until one arrives on port 1 (or 5 s pass). */
static bool wait_link(struct dp_ctx *dp, struct loop *t)
{
	uint64_t end = dp_tsc() + 5 * dp_tsc_hz();
	uint8_t probe[60] = { 0 };
	unsigned before = t->stray;

	frame_fill(probe, UINT32_MAX, sizeof(probe));
	while (dp_tsc() < end) {
		struct dp_port_stats st;

		dp_tx(dp, 0, probe, sizeof(probe));
		dp_flush(dp);
		usleep(10000);
		dp_rx(dp, 1, on_rx, t);
		dp_port_stats(dp, 1, &st);
		if (st.rx_frames > 0)
			return t->stray == before;
	}
	return false;
}

/* Send all frames, one burst at a time, and drain port 1 after each so no ring can overflow. */
static void send_all(struct dp_ctx *dp, struct loop *t, uint8_t *f, uint64_t *sent_bytes, unsigned *tx_rc)
{
	for (uint32_t i = 0; i < N_FRAMES; i++) {
		size_t len = frame_make(f, i);

		*tx_rc |= (unsigned)dp_tx(dp, 0, f, len);
		*sent_bytes += len;
		if ((i + 1) % DP_BURST == 0 || i + 1 == N_FRAMES) {
			uint64_t end = dp_tsc() + 2 * dp_tsc_hz();

			dp_flush(dp);
			while (t->got + t->bad + t->dup < i + 1 && dp_tsc() < end)
				dp_rx(dp, 1, on_rx, t);
		}
	}
}

/*
 * The same frames through the ports' binding to the models (dp_port_bind(), net_bind.h): tx_burst of whole frames
 * (no payload from the pattern), flush, then rx_burst, every frame of a burst checked only once the whole burst is
 * in, so each must still be valid then, a chained one too (each has a buffer of its own). Returns the most frames
 * longer than one mbuf (4,352 B, so chained) that one burst held.
 */
static unsigned send_all_bound(struct dp_ctx *dp, struct loop *t, uint8_t *f, unsigned *staged, unsigned *stamped)
{
	struct net_bind tx, rx;
	struct net_rx_frame fr[NET_BIND_BURST];
	unsigned most_chained = 0;

	dp_port_bind(dp, 0, &tx);
	dp_port_bind(dp, 1, &rx);
	for (uint32_t i = 0; i < N_FRAMES; i++) {
		const struct net_tx_frame one = { .hdr = f, .len = (uint32_t)frame_make(f, i), .payload = 0 };

		*staged += tx.ops->tx_burst(tx.port, &one, 1);
		if ((i + 1) % DP_BURST != 0 && i + 1 != N_FRAMES)
			continue;
		uint64_t end = dp_tsc() + 2 * dp_tsc_hz();

		tx.ops->flush(tx.port);
		while (t->got + t->bad + t->dup < i + 1 && dp_tsc() < end) {
			unsigned n = rx.ops->rx_burst(rx.port, fr, NET_BIND_BURST, 7), chained = 0;

			for (unsigned k = 0; k < n; k++) {
				chained += fr[k].len > 4352;
				*stamped += fr[k].t == 7;
				on_rx(t, 1, fr[k].data, fr[k].len);
			}
			most_chained = chained > most_chained ? chained : most_chained;
		}
		rx.ops->flush(rx.port);
	}
	return most_chained;
}

/* A frame not looked at (the full-ring case's, drained). */
static void rx_ignore(void *arg, int port, const uint8_t *frame, size_t len)
{
	(void)arg;
	(void)port;
	(void)frame;
	(void)len;
}

static void run_bound(struct dp_ctx *dp, struct loop *t, uint8_t *f)
{
	unsigned staged = 0, stamped = 0, chained;

	t->got = t->bad = t->dup = 0;
	t->got_bytes = 0;
	memset(t->seen, 0, sizeof(t->seen));
	chained = send_all_bound(dp, t, f, &staged, &stamped);
	check(t, staged == N_FRAMES, "the binding's tx_burst staged every frame");
	check(t, t->got == N_FRAMES && t->bad == 0 && t->dup == 0 && stamped == N_FRAMES,
	      "through the binding: 1000 distinct frames received, byte for byte, each checked after its whole burst, "
	      "stamped with the time rx_burst was given");
	printf("  got %u, bad %u, dup %u; at most %u chained frames in one burst\n", t->got, t->bad, t->dup, chained);
	check(t, chained >= 2, "a burst held two or more chained frames at once");
}

static void run(struct dp_ctx *dp, struct loop *t, const char *srv, const char *cli)
{
	char err[256];
	uint8_t mac[6] = { 0 }, zero[6] = { 0 }, *f = malloc(DP_FRAME_MAX + 1);
	struct dp_port_stats s0, s1, p0, p1;
	uint64_t sent_bytes = 0;
	unsigned tx_rc = 0;
	int rc;

	check(t, f != NULL, "frame buffer");
	if (f == NULL)
		return;
	check(t, dp_port_add(dp, srv, 0, err, sizeof(err)) == 0, "port 0 (memif server) added");
	rc = dp_port_add(dp, cli, 0, err, sizeof(err));
	check(t, rc == 1, "port 1 (memif client) added");
	if (rc != 1) {
		printf("  %s\n", err);
		free(f);
		return;
	}
	dp_port_mac(dp, 0, mac);
	check(t, memcmp(mac, zero, 6) != 0, "port 0 has a MAC");
	check(t, dp_port_add(dp, cli, 0, err, sizeof(err)) == -EEXIST, "adding a port twice is -EEXIST");
	rc = dp_port_add(dp, "net_nosuchpmd0", 0, err, sizeof(err));
	check(t, rc < 0 && err[0] != '\0', "an unknown device is a negative errno with a message");
	check(t, wait_link(dp, t), "memif link up (probe frame crossed)");

	dp_port_stats(dp, 0, &p0);
	dp_port_stats(dp, 1, &p1);
	send_all(dp, t, f, &sent_bytes, &tx_rc);
	dp_port_stats(dp, 0, &s0);
	dp_port_stats(dp, 1, &s1);
	check(t, tx_rc == DP_TX_OK, "every dp_tx staged its frame");
	check(t, t->got == N_FRAMES && t->bad == 0 && t->dup == 0, "1000 distinct frames received, byte for byte");
	printf("  got %u, bad %u, dup %u, stray %u\n", t->got, t->bad, t->dup, t->stray);
	check(t, t->got_bytes == sent_bytes, "received bytes == sent bytes");
	check(t, s0.tx_frames - p0.tx_frames == N_FRAMES && s0.tx_bytes - p0.tx_bytes == sent_bytes,
	      "port 0 tx counters");
	check(t, s1.rx_frames - p1.rx_frames == N_FRAMES + t->stray && s1.rx_bytes - p1.rx_bytes >= sent_bytes,
	      "port 1 rx counters");
	check(t, s0.tx_drop_full - p0.tx_drop_full + s0.tx_drop_nombuf - p0.tx_drop_nombuf + s0.tx_drop_toobig -
			 p0.tx_drop_toobig + s1.rx_drop_toobig - p1.rx_drop_toobig == 0,
	      "no drops");

	run_bound(dp, t, f);

	rc = dp_tx(dp, 0, f, DP_FRAME_MAX + 1);
	dp_port_stats(dp, 0, &s0);
	check(t, rc == DP_TX_TOOBIG && s0.tx_drop_toobig == 1, "a frame over DP_FRAME_MAX is a counted toobig drop");

	/* A full ring drops as full, not as too big: net_memif reports an MTU of 1,500 yet carries 9,216 B frames, and
	 * its 4 KiB frames were once dropped one by one as too big when the ring was full, the rest sent after them. */
	dp_port_stats(dp, 0, &p0);
	for (int i = 0; i < 4 * N_FRAMES; i++) /* 4,000 frames, port 1 not read: more than its ring holds */
		(void)dp_tx(dp, 0, f, 4198);
	dp_flush(dp);
	dp_port_stats(dp, 0, &s0);
	printf("  ring full: %" PRIu64 " sent, %" PRIu64 " full, %" PRIu64 " too big\n", s0.tx_frames - p0.tx_frames,
	       s0.tx_drop_full - p0.tx_drop_full, s0.tx_drop_toobig - p0.tx_drop_toobig);
	check(t, s0.tx_drop_full > p0.tx_drop_full && s0.tx_drop_toobig == p0.tx_drop_toobig &&
		 s0.tx_frames - p0.tx_frames + s0.tx_drop_full - p0.tx_drop_full == 4 * N_FRAMES,
	      "4,198 B frames on a full memif ring: counted as full, none as too big");
	while (dp_rx(dp, 1, rx_ignore, NULL) > 0)
		;
	free(f);
}

int main(void)
{
	static struct loop t; /* 9 KB buffer: keep it off the stack */
	char srv[160], cli[160], err[256];
	char *eal[] = { "--no-huge", "--no-pci", "-m", "256", "--no-shconf", "--log-level=lib.*:warning" };
	struct dp_ctx *dp;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (geteuid() != 0) {
		printf("SKIP: test_dp_loop needs root\n");
		return 77;
	}
	/*
	 * An abstract socket named per pid: nothing on disk, no clash with a parallel run. bsize=9216 gives each frame
	 * one memif buffer: DPDK 22.11's memif garbles frames that span buffers (seen here with the default 2048).
	 */
	snprintf(srv, sizeof(srv), "net_memif0,role=server,id=0,bsize=9216,socket=/uetemu-dp-loop-%ld", (long)getpid());
	snprintf(cli, sizeof(cli), "net_memif1,role=client,id=0,bsize=9216,socket=/uetemu-dp-loop-%ld", (long)getpid());
	dp = dp_create((int)(sizeof(eal) / sizeof(eal[0])), eal, err, sizeof(err));
	check(&t, dp != NULL, "dp_create");
	if (dp == NULL)
		printf("  %s\n", err);
	else
		run(dp, &t, srv, cli);
	dp_destroy(dp);
	printf("%u passed, %u failed\n", t.passed, t.failed);
	return t.failed == 0 ? 0 : 1;
}
