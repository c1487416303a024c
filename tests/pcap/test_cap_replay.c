/*
 * Criterion tests for pcap/cap_replay.c and pcap/cap_session.c: replay deadlines (speed, frame rate, bit rate, loops,
 * start) computed from the first frame without drift, the filter, snap-cut and unordered frames counted, the
 * rewrite maps with checksums still right; the session log written and read back, and truncated at every byte
 * or corrupted: a clear error, never a crash.
 */
#include "cap.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[64];

static void mkdir_tmp(void)
{
	snprintf(dir, sizeof(dir), "/tmp/uetemu-rp-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

/* A UDP/IPv4 frame from 10.0.0.1 to 10.0.0.2 carrying @p i, with a right IPv4 checksum and UDP checksum @p ucs. */
static size_t udp_frame(uint8_t *f, uint32_t i, uint16_t ucs)
{
	static const uint8_t eth[14] = { 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 8, 0 };
	uint32_t s = 0;

	memset(f, 0, 60);
	memcpy(f, eth, 14);
	f[14] = 0x45;
	f[16] = 0;
	f[17] = 46;
	f[22] = 64;
	f[23] = 17;
	f[26] = 10, f[27] = 0, f[28] = 0, f[29] = 1;
	f[30] = 10, f[31] = 0, f[32] = 0, f[33] = 2;
	for (int k = 14; k < 34; k += 2)
		s += (uint32_t)(f[k] << 8 | f[k + 1]);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	f[24] = (uint8_t)(~s >> 8);
	f[25] = (uint8_t)~s;
	f[34] = 0x13, f[35] = 0x88, f[36] = 0x13, f[37] = 0x89, f[39] = 26;
	f[40] = (uint8_t)(ucs >> 8), f[41] = (uint8_t)ucs;
	memcpy(f + 42, &i, 4);
	return 60;
}

/* A nanosecond pcap at DIR/NAME of @p n frames stamped @p ts[i] ns; frame @p cut (if < n) is snap-cut. */
static const char *write_pcap(const char *name, const int64_t *ts, uint32_t n, uint32_t cut)
{
	static char path[128];
	uint32_t hdr[6] = { 0xa1b23c4d, 0x00040002, 0, 0, 65535, 1 };
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	cr_assert_not_null(f);
	fwrite(hdr, 4, 6, f);
	for (uint32_t i = 0; i < n; i++) {
		uint8_t fr[60];
		size_t len = udp_frame(fr, i, 0);
		uint32_t rec[4] = { (uint32_t)(ts[i] / 1000000000), (uint32_t)(ts[i] % 1000000000),
				    i == cut ? 30 : (uint32_t)len, (uint32_t)len };
		fwrite(rec, 4, 4, f);
		fwrite(fr, 1, rec[2], f);
	}
	fclose(f);
	return path;
}

Test(cap_replay, speed_deadlines_are_absolute_from_the_first_frame_across_loops, .init = mkdir_tmp)
{
	int64_t ts[5] = { 1000000000007, 1000000000010, 1000000000011, 1000000000030, 1000000000031 };
	struct cap_replay_cfg c = { .path = write_pcap("a.pcap", ts, 5, 99), .pace = CAP_PACE_TIMING,
				    .speed_ppm = 3000000, .loop = 2, .start = 500 };
	char err[256];
	struct cap_replay *rp = cap_replay_load(&c, err, sizeof(err));

	cr_assert_not_null(rp, "%s", err);
	const struct cap_replay_info *in = cap_replay_info(rp);
	cr_expect_eq(in->total, 10);
	/* (ts - ts0) ns x 1000 / 3 ps, truncated: 0, 1000, 1333, 7666, 8000; period 8000 + 8000 / 4 */
	emu_ps_t want[5] = { 0, 1000, 1333, 7666, 8000 };
	for (uint32_t k = 0; k < 10; k++)
		cr_expect_eq(cap_replay_deadline(rp, k), 500 + (k / 5) * 10000 + want[k % 5], "frame %u", k);
	cr_expect_eq(in->span, 18000);
	uint32_t len;
	const uint8_t *f = cap_replay_frame(rp, 7, &len);
	uint32_t idx;
	memcpy(&idx, f + 42, 4);
	cr_expect(len == 60 && idx == 2);
	cap_replay_free(rp);
}

/* The emulated time range (2^63 ps): a frame stamped past it after the first is counted, not played, and cannot
 * wrap into an early deadline; a loop count or a speed that takes the last deadline past it is refused, naming it;
 * the last deadline that still fits is kept. */
Test(cap_replay, stamps_loops_and_speeds_past_the_time_range, .init = mkdir_tmp)
{
	int64_t ts[4] = { 1000000000, 1000000000 + 18446745000000000LL, 1000000001, 4294967295LL * 1000000000 };
	struct cap_replay_cfg c = { .path = write_pcap("far.pcap", ts, 4, 99), .pace = CAP_PACE_TIMING,
				    .speed_ppm = 1000000, .loop = 1 };
	char err[320];
	struct cap_replay *rp = cap_replay_load(&c, err, sizeof(err));

	cr_assert_not_null(rp, "%s", err);
	cr_expect_eq(cap_replay_info(rp)->read, 4);
	cr_expect_eq(cap_replay_info(rp)->time_range, 2, "18,446,745 s and 2^32 - 2 s after the first");
	cr_expect_eq(cap_replay_info(rp)->total, 2);
	cr_expect_eq(cap_replay_info(rp)->span, 1000, "1 ns, not the 0.93 s a wrapped sum gave");
	cap_replay_free(rp);

	int64_t one[2] = { 1000000000, 2000000000 }; /* 1 s apart: period 2 s */
	c = (struct cap_replay_cfg){ .path = write_pcap("one.pcap", one, 2, 99), .pace = CAP_PACE_TIMING,
				     .speed_ppm = 1000000, .loop = 4611686 }; /* 4,611,686 x 2 s - 1 s fits 2^63 ps */
	rp = cap_replay_load(&c, err, sizeof(err));
	cr_assert_not_null(rp, "%s", err);
	cr_expect_eq(cap_replay_deadline(rp, 2 * 4611686ULL - 1), (4611686ULL - 1) * 2 * EMU_PS_PER_S + EMU_PS_PER_S);
	cap_replay_free(rp);
	c.loop = 4611687;
	cr_expect_null(cap_replay_load(&c, err, sizeof(err)));
	cr_expect_eq(errno, ERANGE);
	cr_expect(strstr(err, "loop 4611687 x 2000000000000 ps") && strstr(err, "past the emulated time range"), "%s",
		  err);
	c.loop = 1, c.start = EMU_PS_MAX - EMU_PS_PER_S;
	cr_expect_null(cap_replay_load(&c, err, sizeof(err)), "start + the span passes the range");
	c.start = 0, c.speed_ppm = 1;
	c.loop = 5000;
	cr_expect_null(cap_replay_load(&c, err, sizeof(err)));
	cr_expect(strstr(err, "speed 0.000001") != NULL, "%s", err);
}

Test(cap_replay, a_million_frames_at_a_rate_do_not_drift, .init = mkdir_tmp)
{
	int64_t ts[3] = { 0, 1, 2 };
	struct cap_replay_cfg c = { .path = write_pcap("r.pcap", ts, 3, 99), .pace = CAP_PACE_FPS, .rate = 3,
				    .loop = 400000 };
	char err[256];
	struct cap_replay *rp = cap_replay_load(&c, err, sizeof(err));

	cr_assert_not_null(rp, "%s", err);
	/* 1/3 s is not a whole number of ps: summed gaps would drift by 1,199,999 ps after 1,200,000 frames */
	cr_expect_eq(cap_replay_deadline(rp, 1199999), (emu_ps_t)((unsigned __int128)1199999 * 1000000000000ull / 3));
	for (uint64_t k = 1; k < 1200000; k++)
		if (cap_replay_deadline(rp, k) < cap_replay_deadline(rp, k - 1))
			cr_assert_fail("deadline %llu goes back", (unsigned long long)k);
	cap_replay_free(rp);
}

Test(cap_replay, bit_rate_spaces_frames_by_their_wire_time, .init = mkdir_tmp)
{
	int64_t ts[3] = { 0, 0, 0 };
	struct cap_replay_cfg c = { .path = write_pcap("b.pcap", ts, 3, 99), .pace = CAP_PACE_BPS,
				    .rate = 1000000000, .loop = 2 };
	char err[256];
	struct cap_replay *rp = cap_replay_load(&c, err, sizeof(err));

	cr_assert_not_null(rp, "%s", err);
	/* 60 B + 24 B on the wire = 672 bits = 672 ns at 1 Gb/s */
	for (uint32_t k = 0; k < 6; k++)
		cr_expect_eq(cap_replay_deadline(rp, k), (emu_ps_t)k * 672000, "frame %u", k);
	cap_replay_free(rp);
}

Test(cap_replay, filter_snap_cut_and_unordered_frames_are_counted, .init = mkdir_tmp)
{
	int64_t ts[4] = { 100, 300, 200, 400 };
	struct cap_replay_cfg c = { .path = write_pcap("f.pcap", ts, 4, 3), .filter = "udp" };
	char err[256];
	struct cap_replay *rp;

	rp = cap_replay_load(&c, err, sizeof(err));
	cr_assert_not_null(rp, "%s", err);
	const struct cap_replay_info *in = cap_replay_info(rp);
	cr_expect(in->read == 4 && in->frames == 3 && in->snap_cut == 1 && in->out_of_order == 1);
	cr_expect_eq(cap_replay_deadline(rp, 1), 200000);
	cr_expect_eq(cap_replay_deadline(rp, 2), 200000); /* stamped 200 after 300: played at 300 */
	cap_replay_free(rp);
	c.filter = "tcp";
	cr_expect_null(cap_replay_load(&c, err, sizeof(err)));
	cr_expect(errno == EINVAL && strstr(err, "no frame to replay (4 read: 3 filtered out, 1 cut") != NULL, "%s",
		  err);
	c.filter = "udp port banana";
	cr_expect_null(cap_replay_load(&c, err, sizeof(err)));
	c.filter = NULL;
	c.path = "/nonexistent/x.pcap";
	cr_expect_null(cap_replay_load(&c, err, sizeof(err)));
	cr_expect(strstr(err, "No such file") != NULL, "%s", err);
}

static bool csum_ok(const uint8_t *ip)
{
	uint32_t s = 0;

	for (int k = 0; k < 20; k += 2)
		s += (uint32_t)(ip[k] << 8 | ip[k + 1]);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s == 0xffff;
}

Test(cap_replay, rewrite_maps_keep_checksums_right, .init = mkdir_tmp)
{
	int64_t ts[1] = { 0 };
	static const uint8_t mf[1][6] = { { 2, 0, 0, 0, 0, 2 } }, mt[1][6] = { { 0xa, 0, 0, 0, 0, 2 } };
	static const uint32_t ipf[2] = { 0x0a000001, 0x0a000002 }, ipt[2] = { 0xc0a80101, 0x0a000063 };
	struct cap_replay_cfg c = { .path = write_pcap("w.pcap", ts, 1, 99), .mac_from = mf, .mac_to = mt, .n_mac = 1,
				    .ip_from = ipf, .ip_to = ipt, .n_ip = 2 };
	char err[256];
	uint8_t orig[60];
	struct cap_replay *rp = cap_replay_load(&c, err, sizeof(err));
	uint32_t len;

	cr_assert_not_null(rp, "%s", err);
	const uint8_t *f = cap_replay_frame(rp, 0, &len);
	udp_frame(orig, 0, 0);
	cr_expect(f[0] == 0xa && memcmp(f + 6, orig + 6, 6) == 0, "destination MAC mapped, source kept");
	cr_expect(f[26] == 192 && f[29] == 1 && f[33] == 0x63 && csum_ok(f + 14), "addresses and IPv4 checksum");
	cr_expect(f[40] == 0 && f[41] == 0, "a zero UDP checksum stays zero");
	cr_expect(memcmp(f + 34, orig + 34, 6) == 0 && memcmp(f + 42, orig + 42, 18) == 0);
	cr_expect_eq(cap_replay_info(rp)->rewritten, 1);
	cap_replay_free(rp);
}

Test(cap_replay, rewrite_updates_a_udp_checksum_as_a_full_recompute_would)
{
	/* RFC 1624 against a recomputation: UDP checksum over the pseudo-header and the datagram */
	uint8_t f[60];
	static const uint32_t ipf[1] = { 0x0a000001 }, ipt[1] = { 0xac10fe07 };
	uint32_t s;

	mkdir_tmp();
	udp_frame(f, 7, 0);
	s = 0x0a00 + 0x0001 + 0x0a00 + 0x0002 + 17 + 26; /* pseudo-header */
	for (int k = 34; k < 60; k += 2)
		s += (uint32_t)(f[k] << 8 | f[k + 1]);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	uint16_t ucs = (uint16_t)~s;
	char path[128];
	snprintf(path, sizeof(path), "%s/u.pcap", dir);
	FILE *o = fopen(path, "wb");
	uint32_t hdr[6] = { 0xa1b23c4d, 0x00040002, 0, 0, 65535, 1 }, rec[4] = { 0, 0, 60, 60 };
	udp_frame(f, 7, ucs);
	fwrite(hdr, 4, 6, o);
	fwrite(rec, 4, 4, o);
	fwrite(f, 1, 60, o);
	fclose(o);
	struct cap_replay_cfg c = { .path = path, .ip_from = ipf, .ip_to = ipt, .n_ip = 1 };
	char err[256];
	struct cap_replay *rp = cap_replay_load(&c, err, sizeof(err));
	uint32_t len;
	cr_assert_not_null(rp, "%s", err);
	const uint8_t *g = cap_replay_frame(rp, 0, &len);
	s = 0xac10 + 0xfe07 + 0x0a00 + 0x0002 + 17 + 26;
	for (int k = 34; k < 60; k += 2)
		s += k == 40 ? 0 : (uint32_t)(g[k] << 8 | g[k + 1]);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	cr_expect_eq((uint16_t)(g[40] << 8 | g[41]), (uint16_t)~s);
	cap_replay_free(rp);
}

/* ---- the session log ---- */

static const char *write_log(const char *name, uint32_t *size)
{
	static char path[128];
	struct cap_session_hdr h = { .n_ports = 2, .epoch_ns = 1796000000123456789, .records_epoch_s = 1796000000,
				     .seed = 18760, .time_scale = 10, .config_hash = 0x1234 };
	uint8_t fr[60];
	char err[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	struct cap_session_w *w = cap_session_create(path, &h, err, sizeof(err));
	cr_assert_not_null(w, "%s", err);
	cap_session_put(w, &(struct cap_session_rec){ .type = CAP_SES_PASS, .t = 1000, .x = 10000 });
	udp_frame(fr, 1, 0);
	cap_session_put(w, &(struct cap_session_rec){ .type = CAP_SES_RX, .port = 1, .len = 60, .t = 1000, .data = fr });
	cap_session_put(w, &(struct cap_session_rec){ .type = CAP_SES_TX, .port = 0, .len = 60, .t = 1500, .x = 0,
						      .data = fr });
	cap_session_put(w, &(struct cap_session_rec){ .type = CAP_SES_END, .port = 1, .t = 2000, .x = 20000 });
	cr_assert_eq(cap_session_close(w, err, sizeof(err)), 0, "%s", err);
	*size = 56 + 4 * 24 + 120;
	return path;
}

/* The log write_log() writes at DIR/NAME, read whole into a buffer of *@p size bytes (the caller frees it). */
static uint8_t *log_bytes(const char *name, uint32_t *size)
{
	const char *path = write_log(name, size);
	uint8_t *all = malloc(*size);
	FILE *f = fopen(path, "rb");

	cr_assert(all != NULL && f != NULL && fread(all, 1, *size, f) == *size);
	fclose(f);
	return all;
}

/* @p n bytes of @p b as the file @p path. */
static void put_file(const char *path, const uint8_t *b, uint32_t n)
{
	FILE *f = fopen(path, "wb");

	cr_assert_not_null(f);
	cr_assert_eq(fwrite(b, 1, n, f), n);
	fclose(f);
}

Test(cap_session, written_and_read_back, .init = mkdir_tmp)
{
	uint32_t size;
	const char *path = write_log("s.bin", &size);
	struct cap_session_r *r;
	struct cap_session_hdr h;
	struct cap_session_rec rec;
	char err[256];

	cr_assert_eq(cap_session_open(path, &r, &h, err, sizeof(err)), 0, "%s", err);
	cr_expect(h.n_ports == 2 && h.epoch_ns == 1796000000123456789 && h.records_epoch_s == 1796000000 &&
		  h.seed == 18760 && h.time_scale == 10 && h.config_hash == 0x1234);
	uint8_t fr[60];

	udp_frame(fr, 1, 0);
	cr_assert_eq(cap_session_next(r, &rec, err, sizeof(err)), 1);
	cr_expect(rec.type == CAP_SES_PASS && rec.t == 1000 && rec.x == 10000);
	cr_assert_eq(cap_session_next(r, &rec, err, sizeof(err)), 1);
	cr_expect(rec.type == CAP_SES_RX && rec.port == 1 && rec.len == 60 && rec.t == 1000);
	cr_expect(memcmp(rec.data, fr, 60) == 0, "the RX frame's bytes");
	cr_assert_eq(cap_session_next(r, &rec, err, sizeof(err)), 1);
	cr_expect(rec.type == CAP_SES_TX && rec.port == 0 && rec.len == 60 && rec.t == 1500 && rec.x == 0);
	cr_expect(memcmp(rec.data, fr, 60) == 0, "the TX frame's bytes");
	cr_assert_eq(cap_session_next(r, &rec, err, sizeof(err)), 1);
	cr_expect(rec.type == CAP_SES_END && rec.port == 1 && rec.t == 2000 && rec.x == 20000);
	cr_expect_eq(cap_session_next(r, &rec, err, sizeof(err)), 0);
	cap_session_close_r(r);
}

Test(cap_session, truncated_at_every_byte_or_corrupted_is_a_clear_error, .init = mkdir_tmp)
{
	uint32_t size;
	uint8_t *all = log_bytes("t.bin", &size);
	char cut[160], err[256];

	snprintf(cut, sizeof(cut), "%s/cut.bin", dir);
	for (uint32_t n = 0; n < size; n++) {
		struct cap_session_r *r;
		struct cap_session_hdr h;
		struct cap_session_rec rec;
		int rc, records = 0;

		put_file(cut, all, n);
		rc = cap_session_open(cut, &r, &h, err, sizeof(err));
		if (n < 56) {
			cr_expect(rc == -EINVAL && strstr(err, "not a uetemu session log") != NULL, "%u: %s", n, err);
			continue;
		}
		cr_assert_eq(rc, 0);
		while ((rc = cap_session_next(r, &rec, err, sizeof(err))) == 1)
			records++;
		/* the log ends with its last whole record; a cut inside one is reported at that record's offset */
		static const uint32_t starts[] = { 56, 80, 164, 248, 272 };
		uint32_t whole = 0;
		while (whole + 1 < 5 && starts[whole + 1] <= n)
			whole++;
		cr_expect(rc == 0 && records == (int)whole, "%u: %d, %d records", n, rc, records);
		cr_expect_eq(cap_session_cut(r), n == starts[whole] ? UINT64_MAX : starts[whole], "%u", n);
		cap_session_close_r(r);
	}
	all[56 + 24] = 9; /* the RX record's type */
	put_file(cut, all, size);
	struct cap_session_r *r;
	struct cap_session_hdr h;
	struct cap_session_rec rec;
	cr_assert_eq(cap_session_open(cut, &r, &h, err, sizeof(err)), 0);
	cr_expect_eq(cap_session_next(r, &rec, err, sizeof(err)), 1);
	cr_expect_eq(cap_session_next(r, &rec, err, sizeof(err)), -EINVAL);
	cr_expect(strstr(err, "offset 80: type 9 with 60 bytes is not one") != NULL, "%s", err);
	cap_session_close_r(r);
	free(all);
}

/* Read @p b (@p n bytes) with the session's checks (2 ports, TimeScale 10, nothing past 1 ms): the status of the
 * first record that is not 1, its message in @p err. */
static int read_checked(const char *path, const uint8_t *b, uint32_t n, char *err, size_t errlen)
{
	struct cap_session_r *r;
	struct cap_session_hdr h;
	struct cap_session_rec rec;
	int rc;

	put_file(path, b, n);
	cr_assert_eq(cap_session_open(path, &r, &h, err, errlen), 0, "%s", err);
	cap_session_check(r, 2, 10, 1000000000);
	while ((rc = cap_session_next(r, &rec, err, errlen)) == 1)
		;
	cap_session_close_r(r);
	return rc;
}

static void put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

Test(cap_session, checked_records_refuse_what_a_session_cannot_hold, .init = mkdir_tmp)
{
	uint32_t size;
	uint8_t *all = log_bytes("c.bin", &size), *b = malloc(size);
	char path[160], err[512];
	/* records at 56 (PASS t 1000, x 10000), 80 (RX port 1), 164 (TX port 0, t 1500), 248 (END t 2000, x 20000) */
	static const struct { uint32_t off; unsigned width; uint64_t v; const char *says; } bad[] = {
		{ 56 + 8, 8, UINT64_MAX, "past the emulated range" },
		{ 56 + 8, 8, 2000000, "ahead of the pass's wall-clock time" }, /* 2 us x 10 > 10 ns, past the slack */
		{ 56 + 2, 1, 1, "reserved bytes" },
		{ 80 + 8, 8, 999, "an arrival outside its pass" },
		{ 80 + 16, 8, 5, "an arrival out of sequence" },
		{ 164 + 1, 1, 2, "a port the session does not have" },
		{ 164 + 4, 1, 13, "shorter than its Ethernet header" },
		{ 164 + 16, 8, 1, "a frame sent out of sequence" },
		{ 248 + 8, 8, 1400, "a pass before a frame sent ahead of it" },
		{ 248 + 16, 8, 9999, "time going backwards" },
	};

	snprintf(path, sizeof(path), "%s/chk.bin", dir);
	cr_expect_eq(read_checked(path, all, size, err, sizeof(err)), 0, "the log as written: %s", err);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memcpy(b, all, size);
		if (bad[i].width == 8)
			put_le64(b + bad[i].off, bad[i].v);
		else
			b[bad[i].off] = (uint8_t)bad[i].v;
		if (bad[i].off == 164 + 4) /* a 13-byte frame: the record and the file shrink with it */
			memmove(b + 164 + 24 + 13, b + 164 + 24 + 60, size - (164 + 24 + 60));
		int rc = read_checked(path, b, bad[i].off == 164 + 4 ? size - 47 : size, err, sizeof(err));

		cr_expect(rc == -EINVAL && strstr(err, bad[i].says) != NULL && strstr(err, "a corrupt log") != NULL,
			  "%zu: %d, %s", i, rc, err);
	}
	/* a record after the end */
	memcpy(b, all, size);
	uint8_t *more = malloc(size + 24);

	memcpy(more, all, size);
	memcpy(more + size, all + 56, 24);
	cr_expect_eq(read_checked(path, more, size + 24, err, sizeof(err)), -EINVAL);
	cr_expect(strstr(err, "a record after the end record") != NULL, "%s", err);
	free(more);
	free(b);
	free(all);
}

Test(cap_session, three_hundred_mutants_read_without_a_crash, .init = mkdir_tmp)
{
	uint32_t size;
	uint8_t *all = log_bytes("m.bin", &size);
	char mut[160], err[256];
	uint64_t seed = 14;

	snprintf(mut, sizeof(mut), "%s/mut.bin", dir);
	for (int m = 0; m < 300; m++) {
		uint8_t *b = malloc(size);
		struct cap_session_r *r;
		struct cap_session_hdr h;
		struct cap_session_rec rec;
		int rc, n = 0;

		memcpy(b, all, size);
		for (int k = 0; k < 1 + m % 4; k++) { /* a few bytes past the header set to random values */
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			b[56 + (seed >> 33) % (size - 56)] = (uint8_t)(seed >> 24);
		}
		put_file(mut, b, size);
		cr_assert_eq(cap_session_open(mut, &r, &h, err, sizeof(err)), 0);
		while ((rc = cap_session_next(r, &rec, err, sizeof(err))) == 1 && n < 1000)
			n++;
		cr_expect(rc == 0 || rc == -EINVAL, "mutant %d: %d", m, rc);
		cap_session_close_r(r);
		free(b);
	}
	free(all);
}
