/*
 * Criterion tests for pcap/: the pcap and pcapng writers (headers, blocks, stamps, comments, directions, ISB), snap
 * length, limits and rotation, the BPF wrapper, the bounded reader on good files of both formats and byte orders
 * and on a corpus of bad ones (clear errors or counted skips), and pcap-info's counts.
 */
#include "cap.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "net.h"

#define EPOCH CAP_EPOCH_2026_NS

/* ---- helpers ---- */

/* A fresh directory for one test's files (Criterion runs each test in its own process). */
static const char *tmpdir(void)
{
	static char dir[64];

	snprintf(dir, sizeof(dir), "/tmp/uetemu-cap-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	return dir;
}

static struct wire_pkt mk(uint8_t kind, uint32_t psn)
{
	static const uint8_t a[6] = { 2, 0, 0, 0, 0, 1 }, b[6] = { 2, 0, 0, 0, 0, 2 };
	struct wire_pkt p;

	memset(&p, 0, sizeof(p));
	p.kind = kind;
	memcpy(p.src_mac, a, 6);
	memcpy(p.dst_mac, b, 6);
	p.src_ip = 0x0a000001;
	p.dst_ip = 0x0a000002;
	p.ecn = WIRE_ECN_ECT1;
	p.ttl = WIRE_TTL;
	p.sport = 256;
	p.dport = WIRE_UDP_PORT_UET;
	p.pds.psn = psn;
	p.pds.spdcid = 7;
	p.pds.type = kind == WIRE_KIND_ACK ? WIRE_PDS_ACK_CC : kind == WIRE_KIND_NACK ? WIRE_PDS_NACK
		   : kind == WIRE_KIND_CP ? WIRE_PDS_CP : WIRE_PDS_RUD_CC_REQ;
	return p;
}

/* Data packet @p psn of a message (id 5, 3 packets of 1000 B from PSN 10) from 10.0.0.1's PDC 7. */
static struct wire_pkt mk_data(uint32_t psn)
{
	struct wire_pkt p = mk(WIRE_KIND_DATA, psn);

	p.dscp = 8;
	p.pds.next_hdr = WIRE_NH_REQ_STD;
	p.ses.opcode = WIRE_SES_OP_SEND;
	p.ses.message_id = 5;
	p.ses.flags = (psn == 10 ? WIRE_SES_F_SOM : 0) | (psn == 12 ? WIRE_SES_F_EOM : 0);
	p.ses.request_length = 3000;
	p.ses.message_offset = (psn - 10) * 1000;
	p.payload_len = 1000;
	return p;
}

/* The receiver's ACK to PDC 7 with CACK_PSN @p cack. */
static struct wire_pkt mk_ack(uint32_t cack)
{
	struct wire_pkt p = mk(WIRE_KIND_ACK, cack);

	p.src_ip = 0x0a000002;
	p.dst_ip = 0x0a000001;
	p.pds.spdcid = 9;
	p.pds.dpdcid = 7;
	return p;
}

static struct cap_cfg base_cfg(const char *base, uint8_t format)
{
	return (struct cap_cfg){ .base = base, .format = format, .epoch_ns = EPOCH, .if_name = "l0",
				 .if_desc = "test link", .if_speed = 400000000000ULL, .out_dir = -1 };
}

static struct cap *open_ok(const struct cap_cfg *cfg)
{
	char err[256] = "";
	struct cap *c = cap_open(cfg, err, sizeof(err));

	cr_assert_not_null(c, "cap_open: %s", err);
	return c;
}

static void close_ok(struct cap *c, struct cap_stats *st)
{
	char err[256] = "";

	cr_assert_eq(cap_close(c, st, err, sizeof(err)), 0, "cap_close: %s", err);
}

/* Every frame of @p path into @p recs (copies of the first 160 bytes), at most @p max; the count. */
struct rec_copy {
	struct cap_rec r;
	uint8_t data[160];
};

static int read_all(const char *path, struct rec_copy *recs, int max, struct cap_read_info *info)
{
	struct cap_reader *rd;
	struct cap_rec rec;
	char err[256] = "";
	int n = 0, rc;

	cr_assert_eq(cap_read_open(path, &rd, err, sizeof(err)), 0, "%s: %s", path, err);
	while ((rc = cap_read_next(rd, &rec, err, sizeof(err))) == 1) {
		cr_assert_lt(n, max);
		recs[n].r = rec;
		memcpy(recs[n].data, rec.data, rec.caplen < 160 ? rec.caplen : 160);
		n++;
	}
	cr_assert_eq(rc, 0, "%s: %s", path, err);
	if (info != NULL) {
		*info = *cap_read_info(rd);
		info->ifaces = NULL;
	}
	cap_read_close(rd);
	return n;
}

static void write_file(const char *path, const void *b, size_t n)
{
	FILE *f = fopen(path, "wb");

	cr_assert_not_null(f);
	cr_assert_eq(fwrite(b, 1, n, f), n);
	fclose(f);
}

static long file_size(const char *path)
{
	struct stat st;

	cr_assert_eq(stat(path, &st), 0, "%s", path);
	return (long)st.st_size;
}

/* Hand-made pcapng blocks in either byte order, for the reader's corpus. */
struct blob {
	uint8_t b[4096];
	size_t n;
	bool be;
};

static void b32(struct blob *x, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		x->b[x->n + (size_t)i] = (uint8_t)(x->be ? v >> (24 - 8 * i) : v >> (8 * i));
	x->n += 4;
}

static void b16(struct blob *x, uint16_t v)
{
	x->b[x->n++] = (uint8_t)(x->be ? v >> 8 : v);
	x->b[x->n++] = (uint8_t)(x->be ? v : v >> 8);
}

static void bbytes(struct blob *x, const void *p, size_t n)
{
	memcpy(x->b + x->n, p, n);
	x->n += n;
	while (x->n % 4)
		x->b[x->n++] = 0;
}

/* Append a block of @p type around the body @p body (@p len bytes, a multiple of 4). */
static void block(struct blob *x, uint32_t type, const struct blob *body)
{
	b32(x, type);
	b32(x, (uint32_t)body->n + 12);
	memcpy(x->b + x->n, body->b, body->n);
	x->n += body->n;
	b32(x, (uint32_t)body->n + 12);
}

static void shb(struct blob *x)
{
	struct blob s = { .be = x->be };

	b32(&s, 0x1a2b3c4d);
	b16(&s, 1);
	b16(&s, 0);
	b32(&s, 0xffffffff);
	b32(&s, 0xffffffff);
	block(x, 0x0a0d0d0a, &s);
}

static void idb(struct blob *x, const char *name)
{
	struct blob s = { .be = x->be };

	b16(&s, 1);
	b16(&s, 0);
	b32(&s, 0);
	b16(&s, 2);
	b16(&s, (uint16_t)strlen(name));
	bbytes(&s, name, strlen(name));
	b32(&s, 0);
	block(x, 1, &s);
}

/* An EPB on interface @p ifc with @p caplen bytes of @p frame out of @p len, stamped @p ts (microseconds). */
static void epb(struct blob *x, uint32_t ifc, const uint8_t *frame, uint32_t caplen, uint32_t len, uint64_t ts)
{
	struct blob s = { .be = x->be };

	b32(&s, ifc);
	b32(&s, (uint32_t)(ts >> 32));
	b32(&s, (uint32_t)ts);
	b32(&s, caplen);
	b32(&s, len);
	bbytes(&s, frame, caplen);
	block(x, 6, &s);
}

/* A frame wire_encode() makes of @p p, in @p buf; its length. */
static uint32_t enc(const struct wire_pkt *p, uint8_t *buf)
{
	int n = wire_encode(p, buf, WIRE_MAX_FRAME);

	cr_assert_gt(n, 0);
	return (uint32_t)n;
}

/* ---- writers ---- */

Test(cap_pcapng, writes_shb_idb_epb_isb_read_back_with_names_stamps_directions_comments)
{
	char base[128], path[160];
	struct cap_cfg cfg;
	struct cap_stats st;
	struct rec_copy recs[8];
	struct cap_read_info info;
	struct wire_pkt d = mk_data(10), ce = mk_data(11), tr = mk(WIRE_KIND_TRIMMED, 12);

	snprintf(base, sizeof(base), "%s/ng", tmpdir());
	cfg = base_cfg(base, CAP_FORMAT_PCAPNG);
	cfg.out_dir = 0; /* a device port at the link's a end: direction 0 leaves it */
	ce.ecn = WIRE_ECN_CE;
	tr.pds.next_hdr = WIRE_NH_REQ_STD;
	struct cap *c = open_ok(&cfg);

	cap_tap(c, 0, &d, 85845);
	cap_tap(c, 1, &ce, 100000);
	cap_tap(c, 0, &tr, 200000);
	cap_drop_tap(c, 0, &d, 300000, NET_C_LINK_DOWN_DROP);
	close_ok(c, &st);
	cr_assert_eq(st.seen, 4);
	cr_assert_eq(st.written, 4);
	cr_assert_eq(st.lost_noted, 1);
	cap_file_path(base, CAP_FORMAT_PCAPNG, 0, path, sizeof(path));
	cr_assert_eq(file_size(path) % 4, 0);
	cr_assert_eq(file_size(path), (long)st.bytes);
	cr_assert_eq(read_all(path, recs, 8, &info), 4);
	cr_assert_eq(info.format, CAP_FORMAT_PCAPNG);
	cr_assert_eq(info.blocks, 1 + 1 + 4 + 1, "SHB, IDB, 4 EPBs, ISB: %llu", (unsigned long long)info.blocks);
	cr_assert_eq(info.skips[CAP_SKIP_UNKNOWN_BLOCK], 0);
	cr_assert_eq(recs[0].r.ts_ns, EPOCH + 85, "whole ns, truncated");
	cr_assert_eq(recs[0].r.dir, CAP_DIR_OUT);
	cr_assert_eq(recs[1].r.dir, CAP_DIR_IN);
	cr_assert_str_empty(recs[0].r.comment);
	cr_assert(strstr(recs[1].r.comment, "ECN CE") != NULL, "%s", recs[1].r.comment);
	cr_assert(strstr(recs[2].r.comment, "trimmed") != NULL, "%s", recs[2].r.comment);
	cr_assert_str_eq(recs[3].r.comment, "dropped here (link_down_drop)");
	cr_assert_eq(recs[0].r.len, wire_frame_len(&d));
	uint8_t want[WIRE_MAX_FRAME];

	enc(&d, want);
	cr_assert_eq(memcmp(recs[0].data, want, 160), 0, "the frame as wire_encode() makes it");
}

Test(cap_pcapng, interface_name_speed_and_real_time_emulated_time_comment)
{
	char base[128], path[160];
	struct cap_cfg cfg;
	struct rec_copy recs[2];
	struct cap_reader *rd;
	struct cap_rec rec;
	char err[128];
	struct wire_pkt d = mk_data(10);

	snprintf(base, sizeof(base), "%s/rt", tmpdir());
	cfg = base_cfg(base, CAP_FORMAT_PCAPNG);
	cfg.note_emu = true;
	cfg.scale = 10; /* TimeScale 10: a wall ns per 0.1 emulated ns */
	cfg.epoch_ns = 1000;
	struct cap *c = open_ok(&cfg);

	cap_set_epoch(c, 5000);
	cap_frame(c, (const uint8_t *)"\x02\0\0\0\0\x01\x02\0\0\0\0\x02\x08\x00", 14, 7000, 123456789, CAP_DIR_IN,
		  "refused");
	cap_tap(c, 0, &d, 1000);
	close_ok(c, NULL);
	cap_file_path(base, CAP_FORMAT_PCAPNG, 0, path, sizeof(path));
	cr_assert_eq(read_all(path, recs, 2, NULL), 2);
	cr_assert_eq(recs[0].r.ts_ns, 5000 + 70, "epoch + at x scale");
	cr_assert_str_eq(recs[0].r.comment, "refused; emulated time 0.000123456789 s");
	cr_assert_str_eq(recs[1].r.comment, "emulated time 0.000000001000 s");
	cr_assert_eq(cap_read_open(path, &rd, err, sizeof(err)), 0);
	cr_assert_eq(cap_read_next(rd, &rec, err, sizeof(err)), 1);
	cr_assert_str_eq(cap_read_info(rd)->ifaces[0].name, "l0");
	cr_assert_eq(cap_read_info(rd)->ifaces[0].speed_bps, 400000000000ULL);
	cr_assert_eq(cap_read_info(rd)->ifaces[0].snaplen, CAP_SNAPLEN_MAX);
	cap_read_close(rd);
}

Test(cap_pcap, nanosecond_pcap_from_the_records_epoch_byte_for_byte)
{
	char base[128], path[160];
	struct wire_pkt d = mk_data(10);
	uint8_t want[WIRE_MAX_FRAME], got[24 + 16 + WIRE_MAX_FRAME];
	uint32_t n = enc(&d, want);

	snprintf(base, sizeof(base), "%s/p", tmpdir());
	struct cap_cfg cfg = base_cfg(base, CAP_FORMAT_PCAP);
	struct cap *c = open_ok(&cfg);

	cap_tap(c, 0, &d, 85845);
	close_ok(c, NULL);
	cap_file_path(base, CAP_FORMAT_PCAP, 0, path, sizeof(path));
	cr_assert_eq(file_size(path), 24 + 16 + (long)n);
	FILE *f = fopen(path, "rb");

	cr_assert_eq(fread(got, 1, sizeof(got), f), 24 + 16 + n);
	fclose(f);
	static const uint8_t head[24] = { 0x4d, 0x3c, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					  0xff, 0xff, 0, 0, 1, 0, 0, 0 };
	cr_assert_eq(memcmp(got, head, 24), 0, "magic a1b23c4d, 2.4, snaplen 65535, Ethernet");
	uint32_t sec = (uint32_t)got[24] | (uint32_t)got[25] << 8 | (uint32_t)got[26] << 16 | (uint32_t)got[27] << 24;

	cr_assert_eq(sec, 1767225600u, "2026-01-01T00:00:00Z");
	cr_assert_eq(got[28], 85, "85.845 ns keeps 85 ns");
	cr_assert_eq(memcmp(got + 40, want, n), 0);
}

Test(cap_pcap, a_pcap_capture_ignores_frames_the_link_lost)
{
	char base[128];
	struct cap_stats st;
	struct wire_pkt d = mk_data(10);

	snprintf(base, sizeof(base), "%s/p", tmpdir());
	struct cap_cfg cfg = base_cfg(base, CAP_FORMAT_PCAP);
	struct cap *c = open_ok(&cfg);

	cap_drop_tap(c, 0, &d, 0, NET_C_IMPAIR_DROP);
	close_ok(c, &st);
	cr_assert_eq(st.seen, 0);
	cr_assert_eq(st.written, 0);
}

Test(cap_writer, snaplen_cuts_frames_and_keeps_their_length)
{
	char base[128], path[160];
	struct cap_stats st;
	struct rec_copy recs[2];
	struct wire_pkt d = mk_data(10), a = mk_ack(10);

	snprintf(base, sizeof(base), "%s/s", tmpdir());
	struct cap_cfg cfg = base_cfg(base, CAP_FORMAT_PCAPNG);

	cfg.snaplen = 64;
	struct cap *c = open_ok(&cfg);

	cap_tap(c, 0, &d, 0);
	cap_tap(c, 1, &a, 0);
	close_ok(c, &st);
	cr_assert_eq(st.snapped, 2);
	cap_file_path(base, CAP_FORMAT_PCAPNG, 0, path, sizeof(path));
	cr_assert_eq(read_all(path, recs, 2, NULL), 2);
	cr_assert_eq(recs[0].r.caplen, 64);
	cr_assert_eq(recs[0].r.len, 1102);
	cr_assert_eq(recs[1].r.caplen, 64);
	cr_assert_eq(recs[1].r.len, 74);
}

Test(cap_writer, filter_keeps_what_libpcap_selects)
{
	char base[128], path[160];
	struct cap_stats st;
	struct rec_copy recs[4];
	struct wire_pkt ect = mk_data(10), ce = mk_data(11), ack = mk_ack(11);

	ce.ecn = WIRE_ECN_CE;
	ack.ecn = WIRE_ECN_CE;
	ack.dport = 4000; /* CE but not to the UET port */
	snprintf(base, sizeof(base), "%s/f", tmpdir());
	struct cap_cfg cfg = base_cfg(base, CAP_FORMAT_PCAP);

	cfg.filter = "udp dst port 4793 and ip[1] & 3 == 3";
	struct cap *c = open_ok(&cfg);

	cap_tap(c, 0, &ect, 0);
	cap_tap(c, 0, &ce, 1000);
	cap_tap(c, 1, &ack, 2000);
	close_ok(c, &st);
	cr_assert_eq(st.seen, 3);
	cr_assert_eq(st.filtered_out, 2);
	cr_assert_eq(st.written, 1);
	cap_file_path(base, CAP_FORMAT_PCAP, 0, path, sizeof(path));
	cr_assert_eq(read_all(path, recs, 4, NULL), 1);
	cr_assert_eq(recs[0].r.ts_ns, EPOCH + 1);
}

Test(cap_writer, a_bad_filter_is_refused_with_libpcaps_message)
{
	char base[128], path[160], err[256] = "";

	snprintf(base, sizeof(base), "%s/b", tmpdir());
	struct cap_cfg cfg = base_cfg(base, CAP_FORMAT_PCAP);

	cfg.filter = "udp dst port banana";
	cr_assert_null(cap_open(&cfg, err, sizeof(err)));
	cr_assert_eq(errno, EINVAL);
	cr_assert_neq(err[0], '\0');
	cap_file_path(base, CAP_FORMAT_PCAP, 0, path, sizeof(path));
	cr_assert_neq(access(path, F_OK), 0, "no file for a capture that did not open");
}

Test(cap_writer, frame_limit_without_rotation_cuts_and_counts)
{
	char base[128], path[160];
	struct cap_stats st;
	struct wire_pkt d = mk_data(10);

	snprintf(base, sizeof(base), "%s/l", tmpdir());
	struct cap_cfg cfg = base_cfg(base, CAP_FORMAT_PCAP);

	cfg.max_frames = 3;
	struct cap *c = open_ok(&cfg);

	for (int i = 0; i < 5; i++)
		cap_tap(c, 0, &d, (emu_ps_t)i * 1000);
	close_ok(c, &st);
	cr_assert_eq(st.written, 3);
	cr_assert_eq(st.cut, 2);
	cr_assert_eq(st.n_files, 1);
	cap_file_path(base, CAP_FORMAT_PCAP, 0, path, sizeof(path));
	struct rec_copy recs[8];

	cr_assert_eq(read_all(path, recs, 8, NULL), 3);
}

Test(cap_writer, rotation_is_a_ring_of_files_oldest_reported)
{
	char base[128], path[160];
	struct cap_stats st;
	struct rec_copy recs[4];
	struct wire_pkt d = mk_data(10);

	snprintf(base, sizeof(base), "%s/r", tmpdir());
	struct cap_cfg cfg = base_cfg(base, CAP_FORMAT_PCAPNG);

	cfg.max_frames = 2;
	cfg.rotate = 3;
	struct cap *c = open_ok(&cfg);

	for (int i = 1; i <= 9; i++) /* frame i at i ns: files 0 (1,2), 1 (3,4), 2 (5,6), 0 (7,8), 1 (9) */
		cap_tap(c, 0, &d, (emu_ps_t)i * 1000);
	close_ok(c, &st);
	cr_assert_eq(st.files_opened, 5);
	cr_assert_eq(st.n_files, 3);
	cr_assert_eq(st.oldest, 2);
	cr_assert_eq(st.written, 9);
	cr_assert_eq(st.cut, 0);
	static const int first[3] = { 7, 9, 5 }, count[3] = { 2, 1, 2 };

	for (uint32_t k = 0; k < 3; k++) {
		cap_file_path(base, CAP_FORMAT_PCAPNG, k, path, sizeof(path));
		cr_assert_eq(read_all(path, recs, 4, NULL), count[k], "%s", path);
		cr_assert_eq(recs[0].r.ts_ns, EPOCH + first[k], "%s", path);
	}
}

Test(cap_writer, byte_limit_holds_whole_records_and_a_file_takes_at_least_one)
{
	char base[128], path[160];
	struct cap_stats st;
	struct rec_copy recs[4];
	struct wire_pkt tr = mk(WIRE_KIND_TRIMMED, 1), d = mk_data(10);

	tr.pds.next_hdr = WIRE_NH_REQ_STD;
	snprintf(base, sizeof(base), "%s/b", tmpdir());
	struct cap_cfg cfg = base_cfg(base, CAP_FORMAT_PCAP);

	cfg.max_bytes = 24 + 2 * (16 + 58);
	cfg.rotate = 2;
	struct cap *c = open_ok(&cfg);

	cap_tap(c, 0, &tr, 0);
	cap_tap(c, 0, &tr, 1000);
	cap_tap(c, 0, &d, 2000); /* larger than a file may be: alone in its file */
	close_ok(c, &st);
	cap_file_path(base, CAP_FORMAT_PCAP, 0, path, sizeof(path));
	cr_assert_eq(file_size(path), (long)cfg.max_bytes);
	cr_assert_eq(read_all(path, recs, 4, NULL), 2);
	cap_file_path(base, CAP_FORMAT_PCAP, 1, path, sizeof(path));
	cr_assert_eq(read_all(path, recs, 4, NULL), 1);
	cr_assert_eq(st.written, 3);
}

Test(cap_writer, open_fails_with_the_files_error)
{
	char err[256] = "";
	struct cap_cfg cfg = base_cfg("/nonexistent-dir/x", CAP_FORMAT_PCAP);

	cr_assert_null(cap_open(&cfg, err, sizeof(err)));
	cr_assert_eq(errno, ENOENT);
	cr_assert_str_eq(err, "/nonexistent-dir/x.pcap: No such file or directory");
}

/* ---- BPF ---- */

Test(cap_bpf, compiles_matches_and_refuses)
{
	struct cap_bpf *f;
	char err[256] = "";
	uint8_t ce[WIRE_MAX_FRAME], ect[WIRE_MAX_FRAME];
	struct wire_pkt a = mk_data(10), b = mk_data(10);

	a.ecn = WIRE_ECN_CE;
	uint32_t na = enc(&a, ce), nb = enc(&b, ect);

	cr_assert_eq(cap_bpf_compile("udp dst port 4793 and ip[1] & 3 == 3", &f, err, sizeof(err)), 0, "%s", err);
	cr_assert(cap_bpf_match(f, ce, na, na));
	cr_assert_not(cap_bpf_match(f, ect, nb, nb));
	cr_assert_not(cap_bpf_match(f, ce, 20, na), "a filter reading past the captured bytes rejects");
	cap_bpf_free(f);
	cap_bpf_free(NULL);
	cr_assert_eq(cap_bpf_compile("ip[1] & & 3", &f, err, sizeof(err)), -EINVAL);
	cr_assert_null(f);
	cr_assert(strstr(err, "syntax error") != NULL, "%s", err);
}

/* ---- reader: good files ---- */

Test(cap_read, pcap_big_endian_microseconds)
{
	char path[128];
	struct blob x = { .be = true };
	uint8_t frame[WIRE_MAX_FRAME];
	struct wire_pkt d = mk_data(10);
	uint32_t n = enc(&d, frame);
	struct rec_copy recs[2];
	struct cap_read_info info;

	b32(&x, 0xa1b2c3d4);
	b16(&x, 2);
	b16(&x, 4);
	b32(&x, 0);
	b32(&x, 0);
	b32(&x, 65535);
	b32(&x, 1);
	b32(&x, 1767225600);
	b32(&x, 5); /* 5 us */
	b32(&x, 200);
	b32(&x, n);
	memcpy(x.b + x.n, frame, 200);
	x.n += 200;
	snprintf(path, sizeof(path), "%s/be.pcap", tmpdir());
	write_file(path, x.b, x.n);
	cr_assert_eq(read_all(path, recs, 2, &info), 1);
	cr_assert(info.big_endian);
	cr_assert_not(info.nanosecond);
	cr_assert_eq(recs[0].r.ts_ns, EPOCH + 5000);
	cr_assert_eq(recs[0].r.caplen, 200);
	cr_assert_eq(recs[0].r.len, n);
	cr_assert_eq(memcmp(recs[0].data, frame, 160), 0);
}

Test(cap_read, pcapng_big_endian_with_unknown_blocks_counted_and_a_simple_packet_block)
{
	char path[128];
	struct blob x = { .be = true }, odd = { .be = true }, spb = { .be = true };
	uint8_t frame[WIRE_MAX_FRAME];
	struct wire_pkt a = mk_ack(3);
	uint32_t n = enc(&a, frame);
	struct rec_copy recs[4];
	struct cap_read_info info;

	shb(&x);
	idb(&x, "leaf0:5");
	epb(&x, 0, frame, n, n, 1767225600000001ULL); /* microseconds: the default if_tsresol */
	b32(&odd, 0xdeadbeef);
	block(&x, 0x00001234, &odd); /* unknown type */
	block(&x, 0x00000005, &odd); /* ISB: known, ignored */
	b32(&spb, n);
	bbytes(&spb, frame, n);
	block(&x, 3, &spb);
	snprintf(path, sizeof(path), "%s/be.pcapng", tmpdir());
	write_file(path, x.b, x.n);
	cr_assert_eq(read_all(path, recs, 4, &info), 2);
	cr_assert(info.big_endian);
	cr_assert_eq(info.skips[CAP_SKIP_UNKNOWN_BLOCK], 1);
	cr_assert_eq(recs[0].r.ts_ns, EPOCH + 1000);
	cr_assert_eq(recs[1].r.caplen, n, "an SPB's frame");
	cr_assert_eq(memcmp(recs[1].data, frame, n), 0);
}

/* ---- reader: the bad-capture corpus ---- */

/* Open @p b as a file: expect -EINVAL from open or from reading, with @p words in the message. */
static void expect_error(const char *name, const void *b, size_t n, const char *words)
{
	char path[128], err[256] = "";
	struct cap_reader *rd = NULL;
	struct cap_rec rec;
	int rc;

	snprintf(path, sizeof(path), "%s/%s", tmpdir(), name);
	write_file(path, b, n);
	rc = cap_read_open(path, &rd, err, sizeof(err));
	while (rc == 0 && (rc = cap_read_next(rd, &rec, err, sizeof(err))) == 1)
		rc = 0;
	cap_read_close(rd);
	cr_assert_eq(rc, -EINVAL, "%s: rc %d", name, rc);
	cr_assert(strstr(err, words) != NULL, "%s: '%s' lacks '%s'", name, err, words);
}

Test(cap_read_bad, wrong_magic_empty_and_short_headers_are_clear_errors)
{
	expect_error("text", "root:x:0:0:root:/root:/bin/bash\n", 32, "not a pcap or pcapng file");
	expect_error("empty", "", 0, "not a pcap or pcapng file (0 bytes");
	expect_error("short-pcap", "\xd4\xc3\xb2\xa1\x02\x00", 6, "truncated");
	expect_error("short-ng", "\x0a\x0d\x0d\x0a\x1c\x00\x00\x00\x4d\x3c\x2b\x1a", 12, "truncated");
	expect_error("bad-bom", "\x0a\x0d\x0d\x0a\x1c\x00\x00\x00\x11\x22\x33\x44\x01\x00\x00\x00\xff\xff\xff\xff"
				"\xff\xff\xff\xff\x1c\x00\x00\x00", 28, "byte-order magic");
	expect_error("version-2", "\x0a\x0d\x0d\x0a\x1c\x00\x00\x00\x4d\x3c\x2b\x1a\x02\x00\x00\x00\xff\xff\xff\xff"
				  "\xff\xff\xff\xff\x1c\x00\x00\x00", 28, "version 2.0");
}

Test(cap_read_bad, a_huge_caplen_is_refused_not_allocated)
{
	struct blob x = { 0 };

	b32(&x, 0xa1b23c4d);
	b16(&x, 2);
	b16(&x, 4);
	b32(&x, 0);
	b32(&x, 0);
	b32(&x, 65535);
	b32(&x, 1);
	b32(&x, 0);
	b32(&x, 0);
	b32(&x, 0xfffffff0u);
	b32(&x, 0xfffffff0u);
	expect_error("huge.pcap", x.b, x.n, "captured length 4294967280 is over 262144");
}

Test(cap_read_bad, pcapng_block_lengths_that_are_none_are_clear_errors)
{
	struct blob x = { 0 }, y = { 0 }, z = { 0 };

	shb(&x);
	memcpy(y.b, x.b, x.n);
	y.n = x.n;
	memcpy(z.b, x.b, x.n);
	z.n = x.n;
	b32(&x, 6);
	b32(&x, 13); /* not a multiple of 4 */
	b32(&x, 0);
	expect_error("len13.pcapng", x.b, x.n, "length 13 is not a block length");
	b32(&y, 6);
	b32(&y, 0x40000000); /* 1 GiB */
	b32(&y, 0);
	expect_error("len1g.pcapng", y.b, y.n, "is not a block length");
	b32(&z, 0x1234);
	b32(&z, 16);
	b32(&z, 0);
	b32(&z, 20); /* trailing length disagrees */
	expect_error("trailing.pcapng", z.b, z.n, "trailing length 20 differs");
}

Test(cap_read_bad, truncated_files_count_their_cut_tail)
{
	char base[128], path[160];
	struct wire_pkt d = mk_data(10);
	struct rec_copy recs[4];
	struct cap_read_info info;

	for (uint8_t fmt = CAP_FORMAT_PCAP; fmt <= CAP_FORMAT_PCAPNG; fmt++) {
		snprintf(base, sizeof(base), "%s/t", tmpdir());
		struct cap_cfg cfg = base_cfg(base, fmt);
		struct cap *c = open_ok(&cfg);

		cap_tap(c, 0, &d, 0);
		cap_tap(c, 0, &d, 1000);
		close_ok(c, NULL);
		cap_file_path(base, fmt, 0, path, sizeof(path));
		/* pcap: cut inside the second record; pcapng: inside the ISB after it; then before it either way */
		cr_assert_eq(truncate(path, file_size(path) - 10), 0);
		cr_assert_eq(read_all(path, recs, 4, &info), fmt == CAP_FORMAT_PCAP ? 1 : 2, "%s", path);
		cr_assert_eq(info.skips[CAP_SKIP_TRUNCATED], 1);
		cr_assert_eq(truncate(path, file_size(path) - 500), 0);
		cr_assert_eq(read_all(path, recs, 4, &info), 1, "%s", path);
		cr_assert_eq(info.skips[CAP_SKIP_TRUNCATED], 1);
	}
}

Test(cap_read_bad, packet_blocks_that_lie_are_skipped_and_counted)
{
	char path[128];
	struct blob x = { 0 }, e = { 0 };
	uint8_t frame[WIRE_MAX_FRAME];
	struct wire_pkt a = mk_ack(3);
	uint32_t n = enc(&a, frame);
	struct rec_copy recs[4];
	struct cap_read_info info;

	shb(&x);
	epb(&x, 0, frame, n, n, 0); /* before any IDB */
	idb(&x, "l0");
	epb(&x, 5, frame, n, n, 0); /* interface 5 was never described */
	b32(&e, 0);
	b32(&e, 0);
	b32(&e, 0);
	b32(&e, 500); /* caplen past the block */
	b32(&e, 500);
	bbytes(&e, frame, n);
	block(&x, 6, &e);
	e.n = 0;
	b32(&e, 0);
	b32(&e, 0);
	b32(&e, 0);
	b32(&e, n);
	b32(&e, n);
	bbytes(&e, frame, n);
	b16(&e, 1);
	b16(&e, 200); /* a comment option running past the block */
	b32(&e, 0);
	block(&x, 6, &e);
	snprintf(path, sizeof(path), "%s/lie.pcapng", tmpdir());
	write_file(path, x.b, x.n);
	cr_assert_eq(read_all(path, recs, 4, &info), 1, "only the frame with a bad option is read");
	cr_assert_eq(info.skips[CAP_SKIP_NO_INTERFACE], 2);
	cr_assert_eq(info.skips[CAP_SKIP_BAD_CAPLEN], 1);
	cr_assert_eq(info.skips[CAP_SKIP_BAD_OPTION], 1);
	cr_assert_str_empty(recs[0].r.comment);
}

/* ---- pcap-info ---- */

/* A capture of one 3-packet message, its ACKs (one late), a trim NACK, a probe, a PFC pause, a bad frame. */
static void write_scenario(const char *base, uint8_t fmt, uint32_t snaplen)
{
	struct cap_cfg cfg = base_cfg(base, fmt);
	struct wire_pkt nack = mk(WIRE_KIND_NACK, 11), probe = mk(WIRE_KIND_CP, 13), pfc = mk(WIRE_KIND_PFC, 0);
	struct wire_pkt retx = mk_data(11), ce = mk_data(12);

	cfg.snaplen = snaplen;
	nack.src_ip = 0x0a000002;
	nack.dst_ip = 0x0a000001;
	nack.pds.dpdcid = 7;
	nack.pds.nack_code = WIRE_NACK_TRIMMED;
	probe.pds.next_hdr = WIRE_CTL_PROBE;
	pfc.pfc_enable = 1;
	pfc.pfc_quanta[0] = 100;
	retx.pds.flags = WIRE_REQ_F_RETX;
	ce.ecn = WIRE_ECN_CE;
	struct cap *c = open_ok(&cfg);
	struct wire_pkt d10 = mk_data(10), d11 = mk_data(11), a10 = mk_ack(10), a12 = mk_ack(12);

	cap_tap(c, 0, &d10, 1000000);  /* SOM at 1 us */
	cap_tap(c, 0, &d11, 2000000);
	cap_tap(c, 0, &ce, 3000000);   /* EOM, ECN CE */
	cap_tap(c, 1, &a10, 4000000);
	cap_tap(c, 1, &nack, 5000000);
	cap_tap(c, 0, &retx, 6000000);
	cap_tap(c, 0, &probe, 6500000);
	cap_tap(c, 1, &pfc, 6600000);
	cap_tap(c, 1, &a12, 9000000);  /* covers the EOM: done 8 us after the SOM */
	cap_frame(c, (const uint8_t *)"\x02\0\0\0\0\x01\x02\0\0\0\0\x02\x86\xdd\x60\0", 16, 9500000, 9500000,
		  CAP_DIR_NONE, NULL); /* IPv6: not UET */
	close_ok(c, NULL);
}

Test(cap_info, counts_types_ecn_errors_and_pdc_completion)
{
	char base[128], path[160], err[256] = "";
	struct cap_info ci;

	snprintf(base, sizeof(base), "%s/i", tmpdir());
	write_scenario(base, CAP_FORMAT_PCAPNG, 0);
	cap_file_path(base, CAP_FORMAT_PCAPNG, 0, path, sizeof(path));
	cr_assert_eq(cap_info_read(path, WIRE_UDP_PORT_UET, &ci, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(ci.frames, 10);
	cr_assert_eq(ci.data, 4);
	cr_assert_eq(ci.retx, 1);
	cr_assert_eq(ci.acks, 2);
	cr_assert_eq(ci.nacks, 1);
	cr_assert_eq(ci.nack_codes[WIRE_NACK_TRIMMED], 1);
	cr_assert_eq(ci.probes, 1);
	cr_assert_eq(ci.pfc, 1);
	cr_assert_eq(ci.pfc_pauses, 1);
	cr_assert_eq(ci.ecn[WIRE_ECN_CE], 1);
	cr_assert_eq(ci.ecn[WIRE_ECN_ECT1], 7);
	cr_assert_eq(ci.decode_errors[WIRE_R_NOT_IPV4], 1);
	cr_assert_eq(ci.first_ns, EPOCH + 1000);
	cr_assert_eq(ci.last_ns, EPOCH + 9500);
	cr_assert_eq(ci.n_pdcs, 1);
	const struct cap_info_pdc *p = &ci.pdcs[0];

	cr_assert_eq(p->src, 0x0a000001);
	cr_assert_eq(p->pdc, 7);
	cr_assert_eq(p->messages, 1);
	cr_assert_eq(p->completed, 1);
	cr_assert_eq(p->bytes, 3000);
	cr_assert_eq(p->fct_ns[0], 8000, "SOM at 1 us, the ACK covering the EOM at 9 us");
	cr_assert_eq(p->nacks, 1);
	cap_info_free(&ci);
}

Test(cap_info, snap_cut_frames_decode_from_their_headers_or_are_counted)
{
	char base[128], path[160], err[256] = "";
	struct cap_info ci;

	snprintf(base, sizeof(base), "%s/h", tmpdir());
	write_scenario(base, CAP_FORMAT_PCAP, 102); /* data headers whole, payload cut */
	cap_file_path(base, CAP_FORMAT_PCAP, 0, path, sizeof(path));
	cr_assert_eq(cap_info_read(path, WIRE_UDP_PORT_UET, &ci, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(ci.cut, 4, "the four data frames");
	cr_assert_eq(ci.data, 4);
	cr_assert_eq(ci.pdcs[0].completed, 1);
	cap_info_free(&ci);
	snprintf(base, sizeof(base), "%s/h2", tmpdir());
	write_scenario(base, CAP_FORMAT_PCAPNG, 50); /* inside every UET header */
	cap_file_path(base, CAP_FORMAT_PCAPNG, 0, path, sizeof(path));
	cr_assert_eq(cap_info_read(path, WIRE_UDP_PORT_UET, &ci, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(ci.cut_in_headers, 9);
	cr_assert_eq(ci.data, 0);
	cap_info_free(&ci);
}

Test(cap_info, percentiles_are_nearest_rank)
{
	static const int64_t v[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };

	cr_assert_eq(cap_info_pct(v, 10, 50), 5);
	cr_assert_eq(cap_info_pct(v, 10, 99), 10);
	cr_assert_eq(cap_info_pct(v, 10, 0), 1);
	cr_assert_eq(cap_info_pct(v, 0, 50), 0);
}
