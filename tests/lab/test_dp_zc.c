/* Lab test of zero-copy TX on each software PMD this machine has: what each one sends is read back and compared. */
/*
 * Frames made by dp_tx_hdr() (headers, then a slice of the payload pattern) go out on zero-copy ports and, for
 * net_ring, net_pcap and net_null, on copy ports too; each PMD's output is read back where it can be and compared
 * byte for byte with the headers followed by the pattern:
 *   net_ring        a loopback: the port's own RX
 *   net_memif       server to client in this process (bsize=9216)
 *   net_af_packet   on one end of a veth pair, read by a second net_af_packet port on the other end
 *   net_tap         read by a net_af_packet port on the tap's kernel interface (frames up to 1,514 B: its MTU)
 *   net_pcap        its TX capture file
 *   net_null        counters only
 * Headers longer than one header mbuf (DP_HDR_ROOM) take the copy path on a zero-copy port. Not a Criterion test:
 * the EAL starts once per process and does not survive Criterion's forks.
 * Exit 0 all passed, 1 some failed, 77 skipped (not root).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dp.h"

#define ETHERTYPE_TEST 0x88b5 /* IEEE 802 local experimental */
#define SEQ_OFF 14            /* 4 B sequence number after the Ethernet header */
#define MAX_FRAMES 16

/* The frames of one case: header and payload lengths. */
static const struct { size_t hdr, pl; } shapes[] = {
	{ 18, 0 }, { 60, 0 }, { 102, 1 }, { 102, 300 }, { 74, 0 }, { 102, 1024 }, { 128, 1386 }, { 150, 1000 },
	{ 102, 4096 }, { 102, 8192 }, { 102, DP_FRAME_MAX - 102 },
};
#define N_SHAPES (sizeof(shapes) / sizeof(shapes[0]))

struct zc_test {
	unsigned passed, failed;
	uint8_t pat[DP_FRAME_MAX];
	uint8_t want[DP_FRAME_MAX];
	uint32_t base;          /* sequence number of the case's first frame */
	unsigned n;             /* frames in the case */
	unsigned got, bad, dup;
	unsigned committed;     /* frames sent through dp_tx_hdr_reserve() and dp_tx_hdr_commit() */
	bool seen[MAX_FRAMES];
};

static void check(struct zc_test *t, bool ok, const char *what)
{
	printf("%s: %s\n", ok ? "PASS" : "FAIL", what);
	if (ok)
		t->passed++;
	else
		t->failed++;
}

/* Header of frame @p seq, @p len bytes: Ethernet with the test ethertype, the sequence number, filler. */
static void hdr_fill(uint8_t *h, uint32_t seq, size_t len)
{
	static const uint8_t dst[6] = { 0x02, 0, 0, 0, 0, 0x02 }, src[6] = { 0x02, 0, 0, 0, 0, 0x01 };

	memcpy(h, dst, 6);
	memcpy(h + 6, src, 6);
	h[12] = ETHERTYPE_TEST >> 8;
	h[13] = ETHERTYPE_TEST & 0xff;
	for (int b = 0; b < 4; b++)
		h[SEQ_OFF + b] = (uint8_t)(seq >> (24 - 8 * b));
	for (size_t k = SEQ_OFF + 4; k < len; k++)
		h[k] = (uint8_t)(k * 13 + seq);
}

/* The whole frame @p seq of shape @p s into t->want; returns its length. */
static size_t frame_want(struct zc_test *t, uint32_t seq, unsigned s)
{
	hdr_fill(t->want, seq, shapes[s].hdr);
	memcpy(t->want + shapes[s].hdr, t->pat, shapes[s].pl);
	return shapes[s].hdr + shapes[s].pl;
}

/* The sequence number of a test frame, or -1 for anything else (the kernel's own frames on a veth or tap). */
static long frame_seq(const uint8_t *f, size_t len)
{
	if (len < SEQ_OFF + 4 || f[12] != (ETHERTYPE_TEST >> 8) || f[13] != (ETHERTYPE_TEST & 0xff))
		return -1;
	return (long)((uint32_t)f[14] << 24 | (uint32_t)f[15] << 16 | (uint32_t)f[16] << 8 | f[17]);
}

/* One received (or captured) frame: it must be one of the case's, byte for byte, and new. */
static void take(struct zc_test *t, const uint8_t *f, size_t len)
{
	long seq = frame_seq(f, len);

	if (seq < (long)t->base || seq >= (long)(t->base + t->n))
		return; /* a stray, or a probe */
	unsigned i = (unsigned)(seq - t->base);
	size_t want = frame_want(t, (uint32_t)seq, i);

	if (len < want || memcmp(f, t->want, want) != 0 || (len > want && len != 60)) {
		if (t->bad < 3)
			printf("  frame %ld: %zu B received, %zu B sent, or bytes differ\n", seq, len, want);
		t->bad++;
	} else if (t->seen[i]) {
		t->dup++;
	} else {
		t->seen[i] = true;
		t->got++;
	}
}

static void on_rx(void *arg, int port, const uint8_t *frame, size_t len)
{
	(void)port;
	take(arg, frame, len);
}

/* Read back net_pcap's TX capture @p path (nanosecond pcap, as DPDK 22.11 writes it). */
static void read_capture(struct zc_test *t, const char *path)
{
	static uint8_t buf[65536];
	uint32_t rec[4];
	FILE *f = fopen(path, "rb");

	if (f == NULL || fread(buf, 1, 24, f) != 24) {
		printf("  %s: cannot read\n", path);
		if (f != NULL)
			fclose(f);
		return;
	}
	while (fread(rec, sizeof(rec), 1, f) == 1 && rec[2] <= sizeof(buf) && fread(buf, 1, rec[2], f) == rec[2])
		take(t, buf, rec[2]);
	fclose(f);
}

/* One PMD case: the port that sends, where its frames are read back, the longest frame it can carry. */
struct zc_case {
	const char *name;
	int tx;             /* port index */
	int rx;             /* port index that reads them back; -1: none (net_null), -2: the capture file */
	const char *capture;
	size_t max_len;
	enum dp_tx_mode mode;
};

/* Send the case's frames in bursts, draining the read-back port after each; then wait up to 2 s for the rest. */
static void send_case(struct dp_ctx *dp, struct zc_test *t, const struct zc_case *c, uint64_t *bytes)
{
	uint8_t hdr[256];
	unsigned sent = 0;

	for (unsigned s = 0; s < N_SHAPES; s++) {
		if (shapes[s].hdr + shapes[s].pl > c->max_len)
			continue;
		/* every other frame that fits one header mbuf is encoded straight into it (reserve, commit) on a
		 * zero-copy port: read back the same as one dp_tx_hdr() copies */
		uint8_t *room = s % 2 && shapes[s].hdr <= DP_TX_HDR_ROOM ? dp_tx_hdr_reserve(dp, c->tx) : NULL;
		int rc;

		hdr_fill(room != NULL ? room : hdr, t->base + s, shapes[s].hdr);
		rc = room != NULL ? dp_tx_hdr_commit(dp, c->tx, shapes[s].hdr, shapes[s].pl) :
				    dp_tx_hdr(dp, c->tx, hdr, shapes[s].hdr, shapes[s].pl);
		t->committed += room != NULL && rc == DP_TX_OK;
		if (rc != DP_TX_OK)
			printf("  frame %u of %zu + %zu B: dp_tx_hdr%s gave %d\n", s, shapes[s].hdr, shapes[s].pl,
			       room != NULL ? "_commit" : "", rc);
		*bytes += shapes[s].hdr + shapes[s].pl;
		sent++;
	}
	dp_flush(dp);
	for (uint64_t end = dp_tsc() + 2 * dp_tsc_hz(); c->rx >= 0 && t->got + t->bad < sent && dp_tsc() < end;)
		dp_rx_drain(dp, c->rx, on_rx, t);
	if (c->rx == -2)
		read_capture(t, c->capture);
}

/* Run one case: the port's mode, its counters, and (where they can be read back) every frame byte for byte. */
static void run_case(struct dp_ctx *dp, struct zc_test *t, const struct zc_case *c)
{
	struct dp_port_stats s0, s1;
	unsigned want = 0;
	uint64_t bytes = 0;
	char what[200];
	const char *why;

	for (unsigned s = 0; s < N_SHAPES; s++)
		want += shapes[s].hdr + shapes[s].pl <= c->max_len;
	t->n = N_SHAPES;
	t->got = t->bad = t->dup = 0;
	memset(t->seen, 0, sizeof(t->seen));
	enum dp_tx_mode mode = dp_port_tx_mode(dp, c->tx, &why);
	snprintf(what, sizeof(what), "%s: %s TX (%s)", c->name, mode == DP_TXM_ZEROCOPY ? "zero-copy" : "copy", why);
	check(t, mode == c->mode, what);
	dp_port_stats(dp, c->tx, &s0);
	send_case(dp, t, c, &bytes);
	dp_port_stats(dp, c->tx, &s1);
	snprintf(what, sizeof(what), "%s: %u frames, %llu B counted sent, no drop", c->name, want,
		 (unsigned long long)bytes);
	check(t, s1.tx_frames - s0.tx_frames == want && s1.tx_bytes - s0.tx_bytes == bytes &&
			 s1.tx_drop_full + s1.tx_drop_nombuf + s1.tx_drop_toobig ==
				 s0.tx_drop_full + s0.tx_drop_nombuf + s0.tx_drop_toobig,
	      what);
	if (c->rx != -1) {
		snprintf(what, sizeof(what), "%s: %u of %u frames read back byte for byte (%u bad, %u duplicated)",
			 c->name, t->got, want, t->bad, t->dup);
		check(t, t->got == want && t->bad == 0 && t->dup == 0, what);
	}
	t->base += MAX_FRAMES;
}

/* memif connects in the background: send probes on port @p tx until one arrives on port @p rx (or 5 s pass). */
static bool wait_memif(struct dp_ctx *dp, struct zc_test *t, int tx, int rx)
{
	uint8_t probe[60];
	struct dp_port_stats st;

	hdr_fill(probe, UINT32_MAX, sizeof(probe));
	for (uint64_t end = dp_tsc() + 5 * dp_tsc_hz(); dp_tsc() < end;) {
		dp_tx(dp, tx, probe, sizeof(probe));
		dp_flush(dp);
		usleep(10000);
		dp_rx_drain(dp, rx, on_rx, t);
		dp_port_stats(dp, rx, &st);
		if (st.rx_frames > 0)
			return true;
	}
	return false;
}

/* Run the shell command made of @p fmt and @p arg (interface setup); false if it failed. */
static bool sh(const char *fmt, const char *arg)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), fmt, arg);
	return system(cmd) == 0;
}

enum { P_RING, P_RING_CP, P_NULL, P_NULL_CP, P_PCAP, P_PCAP_CP, P_MEMIF, P_MEMIF_RX, P_AFP, P_AFP_RX, P_TAP,
       P_TAP_RX, N_PORTS };

/* Add every port; the tap's kernel interface is brought up before a net_af_packet port is bound to it. */
static bool add_ports(struct dp_ctx *dp, struct zc_test *t, char dev[N_PORTS][200], const char *tap)
{
	char err[256], what[600];

	for (int i = 0; i < N_PORTS; i++) {
		unsigned flags = i == P_RING_CP || i == P_NULL_CP || i == P_PCAP_CP ? DP_PORT_TX_COPY : 0;

		if (i == P_TAP_RX && !sh("ip link set dev %s up", tap))
			printf("  cannot bring %s up\n", tap);
		int rc = dp_port_add(dp, dev[i], flags, err, sizeof(err));
		snprintf(what, sizeof(what), "port %d added: %.200s%s%.250s", i, dev[i], rc == i ? "" : ": ",
			 rc == i ? "" : err);
		check(t, rc == i, what);
		if (rc != i)
			return false;
	}
	return true;
}

/* The cases, in port order: each zero-copy port, and the copy ports of the PMDs whose output is comparable. */
static void run_cases(struct dp_ctx *dp, struct zc_test *t, const char *cap_zc, const char *cap_cp)
{
	const struct zc_case cases[] = {
		{ "net_ring", P_RING, P_RING, NULL, DP_FRAME_MAX, DP_TXM_ZEROCOPY },
		{ "net_ring, copy", P_RING_CP, P_RING_CP, NULL, DP_FRAME_MAX, DP_TXM_COPY },
		{ "net_null", P_NULL, -1, NULL, DP_FRAME_MAX, DP_TXM_ZEROCOPY },
		{ "net_null, copy", P_NULL_CP, -1, NULL, DP_FRAME_MAX, DP_TXM_COPY },
		{ "net_pcap", P_PCAP, -2, cap_zc, DP_FRAME_MAX, DP_TXM_ZEROCOPY },
		{ "net_pcap, copy", P_PCAP_CP, -2, cap_cp, DP_FRAME_MAX, DP_TXM_COPY },
		{ "net_memif", P_MEMIF, P_MEMIF_RX, NULL, DP_FRAME_MAX, DP_TXM_ZEROCOPY },
		/* framesz 4352 on both ends: the receiving net_af_packet copies a frame into one mbuf */
		{ "net_af_packet (veth)", P_AFP, P_AFP_RX, NULL, 4198, DP_TXM_ZEROCOPY },
		/* net_tap's MTU in DPDK 22.11 is 1,504 at most: 1,514 B frames and below */
		{ "net_tap", P_TAP, P_TAP_RX, NULL, 1514, DP_TXM_ZEROCOPY },
	};

	struct dp_port_stats s0, s1;
	uint8_t hdr[102];

	check(t, wait_memif(dp, t, P_MEMIF, P_MEMIF_RX), "net_memif link up (a probe crossed)");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(dp, t, &cases[i]);
	/* A frame above net_tap's MTU is refused before the PMD sees it (the port's MTU rule, dp_over_mtu()):
	 * nothing is chained or referenced, it is counted tx_drop_mtu, and the frames around it still go out. */
	hdr_fill(hdr, UINT32_MAX - 1, sizeof(hdr));
	dp_port_stats(dp, P_TAP, &s0);
	dp_tx_hdr(dp, P_TAP, hdr, sizeof(hdr), 100);
	dp_tx_hdr(dp, P_TAP, hdr, sizeof(hdr), 4096);
	dp_tx_hdr(dp, P_TAP, hdr, sizeof(hdr), 100);
	dp_flush(dp);
	dp_port_stats(dp, P_TAP, &s1);
	check(t, s1.tx_drop_mtu - s0.tx_drop_mtu == 1 && s1.tx_drop_toobig == s0.tx_drop_toobig &&
			 s1.tx_frames - s0.tx_frames == 2,
	      "net_tap: a zero-copy frame above its MTU is a counted tx_drop_mtu drop, the others go out");
}

/* Names of this run: the veth ends, the tap, the capture files; the devargs of every port. */
struct zc_names {
	char va[16], vb[16], tap[16], empty[64], cap_zc[64], cap_cp[64];
	char dev[N_PORTS][200];
};

static void make_names(struct zc_names *n, long pid)
{
	const char *afp = "blocksz=69632,framesz=4352,framecnt=512";

	snprintf(n->va, sizeof(n->va), "uzca%ld", pid % 100000);
	snprintf(n->vb, sizeof(n->vb), "uzcb%ld", pid % 100000);
	snprintf(n->tap, sizeof(n->tap), "uzct%ld", pid % 100000);
	snprintf(n->empty, sizeof(n->empty), "/tmp/uetemu-dp-zc-%ld-empty.pcap", pid);
	snprintf(n->cap_zc, sizeof(n->cap_zc), "/tmp/uetemu-dp-zc-%ld-zc.pcap", pid);
	snprintf(n->cap_cp, sizeof(n->cap_cp), "/tmp/uetemu-dp-zc-%ld-cp.pcap", pid);
	snprintf(n->dev[P_RING], 200, "net_ring0");
	snprintf(n->dev[P_RING_CP], 200, "net_ring1");
	snprintf(n->dev[P_NULL], 200, "net_null0,no-rx=1");
	snprintf(n->dev[P_NULL_CP], 200, "net_null1,no-rx=1");
	snprintf(n->dev[P_PCAP], 200, "net_pcap0,rx_pcap=%s,tx_pcap=%s", n->empty, n->cap_zc);
	snprintf(n->dev[P_PCAP_CP], 200, "net_pcap1,rx_pcap=%s,tx_pcap=%s", n->empty, n->cap_cp);
	snprintf(n->dev[P_MEMIF], 200, "net_memif0,role=server,id=0,bsize=9216,socket=/uetemu-dp-zc-%ld", pid);
	snprintf(n->dev[P_MEMIF_RX], 200, "net_memif1,role=client,id=0,bsize=9216,socket=/uetemu-dp-zc-%ld", pid);
	snprintf(n->dev[P_AFP], 200, "net_af_packet0,iface=%s,%s", n->va, afp);
	snprintf(n->dev[P_AFP_RX], 200, "net_af_packet1,iface=%s,%s", n->vb, afp);
	snprintf(n->dev[P_TAP], 200, "net_tap0,iface=%s", n->tap);
	snprintf(n->dev[P_TAP_RX], 200, "net_af_packet2,iface=%s,%s", n->tap, afp);
}

/* The empty pcap net_pcap's RX side replays (nanosecond, no record), and the veth pair. False if either fails. */
static bool make_links(const struct zc_names *n)
{
	static const uint32_t pcap_hdr[6] = { 0xa1b23c4d, 0x00040002, 0, 0, 65535, 1 };
	FILE *f = fopen(n->empty, "wb");
	char link[64];

	if (f == NULL || fwrite(pcap_hdr, sizeof(pcap_hdr), 1, f) != 1) {
		if (f != NULL)
			fclose(f);
		return false;
	}
	fclose(f);
	snprintf(link, sizeof(link), "%s type veth peer name %s", n->va, n->vb);
	return sh("ip link add %s", link) && sh("ip link set dev %s mtu 9000 up", n->va) &&
	       sh("ip link set dev %s mtu 9000 up", n->vb);
}

int main(void)
{
	static struct zc_test t;   /* 18 KB of buffers: off the stack */
	static struct zc_names n;
	char *eal[] = { "--no-huge", "--no-pci", "-m", "256", "--no-shconf", "--log-level=lib.*:error" };
	char err[256];
	struct dp_ctx *dp;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (geteuid() != 0) {
		printf("SKIP: test_dp_zc needs root\n");
		return 77;
	}
	make_names(&n, (long)getpid());
	bool links = make_links(&n);
	check(&t, links, "empty pcap and veth pair made");
	for (size_t i = 0; i < sizeof(t.pat); i++)
		t.pat[i] = (uint8_t)(i * 7 + 3);
	dp = dp_create((int)(sizeof(eal) / sizeof(eal[0])), eal, err, sizeof(err));
	check(&t, dp != NULL && dp_tx_pattern_set(dp, t.pat, sizeof(t.pat), err, sizeof(err)) == 0,
	      "dp_create, dp_tx_pattern_set");
	if (dp != NULL && links && add_ports(dp, &t, n.dev, n.tap)) {
		check(&t, dp_tx_pattern_set(dp, t.pat, sizeof(t.pat), err, sizeof(err)) == -EBUSY,
		      "a second pattern, or one after the ports, is -EBUSY");
		run_cases(dp, &t, n.cap_zc, n.cap_cp);
	}
	dp_destroy(dp);
	sh("ip link del %s 2>/dev/null", n.va);
	unlink(n.empty);
	unlink(n.cap_zc);
	unlink(n.cap_cp);
	check(&t, t.committed > 0, "frames encoded straight into their header mbufs (dp_tx_hdr_reserve/commit) went out");
	printf("%u passed, %u failed\n", t.passed, t.failed);
	return t.failed == 0 ? 0 : 1;
}
