/*
 * libFuzzer target for the NIC's receive path behind the decoder (docs/security.md), not only the decoder: the
 * input is a list of frames, each a 2-byte big-endian length and that many bytes (at most FUZZ_FRAMES of them).
 * Each frame's IPv4 and UDP lengths and IPv4 checksum are made to fit it, so the fuzzer gets past the header
 * checks; it is decoded as a bound port decodes (wire_decode_cfg, UDP 4793) and handed to host 1's NIC, or host
 * 0's when its length is odd, while host 0 sends host 1 a 64 KiB message on a 2 us link. Both then run for 2 ms of
 * emulated time and are torn down. Nothing may crash, trip a sanitizer or hang.
 *
 * Built with -DNIC_FUZZ_REPLAY it is a driver for every compiler instead: it replays the files and directories
 * named on its command line, or else FUZZ_REPLAY_INPUTS inputs made with a fixed seed from the frames of a real
 * transfer (encoded by wire_encode), with bytes of their headers mutated. `--write-corpus DIR` writes those
 * frames, one input each, as a seed corpus for libFuzzer (scripts/fuzz).
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "emu_rng.h"
#include "net.h"
#include "nic.h"
#include "nic_pair.h"

#define US EMU_PS_PER_US
#define FUZZ_FRAMES 64
#define OFF_IP 14
#define OFF_UDP 34

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint16_t csum16(const uint8_t *b, size_t n)
{
	uint32_t s = 0;

	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(b[i] << 8 | b[i + 1]);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* An IPv4 frame's lengths and header checksum made to fit its @p n bytes (a UDP checksum set to 0: not computed). */
static void fix_up(uint8_t *f, size_t n)
{
	if (n < OFF_UDP + 8 || f[12] != 0x08 || f[13] != 0x00 || (f[OFF_IP] & 0x0f) != 5 || n - OFF_IP > 0xffff)
		return;
	size_t dgram = n - OFF_IP;

	f[OFF_IP + 2] = (uint8_t)(dgram >> 8);
	f[OFF_IP + 3] = (uint8_t)dgram;
	f[OFF_IP + 10] = f[OFF_IP + 11] = 0;
	uint16_t c = csum16(f + OFF_IP, 20);
	f[OFF_IP + 10] = (uint8_t)(c >> 8);
	f[OFF_IP + 11] = (uint8_t)c;
	if (f[OFF_IP + 9] == 17) {
		f[OFF_UDP + 4] = (uint8_t)((dgram - 20) >> 8);
		f[OFF_UDP + 5] = (uint8_t)(dgram - 20);
		f[OFF_UDP + 6] = f[OFF_UDP + 7] = 0;
	}
}

/* Decode frame @p f of @p n bytes as a port would and hand it to NIC @p to of @p b at @p now; refused ones end here. */
static void deliver(struct tfx_pair *b, int to, uint8_t *f, size_t n, emu_ps_t now)
{
	const struct wire_rx_cfg cfg = { .uet_port = WIRE_UDP_PORT_UET };
	struct wire_pkt q;

	fix_up(f, n);
	int r = wire_decode_cfg(f, n, &cfg, &q);
	if (r < 0 || r >= WIRE_R_COUNT)
		abort();
	if (r != WIRE_R_OK)
		return;
	struct wire_pkt *p = net_pkt_alloc(&b->np);
	if (p == NULL)
		return;
	*p = q;
	nic_dev_ops.receive(b->nic[to], 0, p, now);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tfx_opts o = { .delay = 2 * US, .max_pkts = 1u << 12 };
	struct tfx_pair *b = tfx_pair_new(&o);
	uint8_t frame[WIRE_MAX_FRAME];
	size_t at = 0;
	emu_ps_t now = 1 * US;

	if (nic_post(b->nic[0], b->neigh[1].ip, 64 * 1024, 1, 0) != 0)
		abort();
	emu_sched_run_until(b->np.sched, now);
	for (int i = 0; i < FUZZ_FRAMES && at + 2 <= size; i++) {
		size_t n = (size_t)data[at] << 8 | data[at + 1];
		at += 2;
		if (n > size - at)
			n = size - at;
		if (n > sizeof(frame))
			n = sizeof(frame);
		memcpy(frame, data + at, n);
		at += n;
		deliver(b, (n & 1) ? 0 : 1, frame, n, now);
		now += 100 * EMU_PS_PER_NS;
		emu_sched_run_until(b->np.sched, now);
	}
	emu_sched_run_until(b->np.sched, now + 2000 * US);
	tfx_pair_free(b);
	return 0;
}

#ifdef NIC_FUZZ_REPLAY
#define FUZZ_REPLAY_INPUTS 1500
#define FUZZ_MAX_INPUT (FUZZ_FRAMES * (2 + WIRE_MAX_FRAME))

/* The frames of a real 64 KiB transfer, both ways, encoded; *@p n of them. */
static uint8_t **real_frames(size_t **lens, int *n)
{
	struct tfx_opts o = { .delay = 2 * US };
	struct tfx_pair *b = tfx_pair_new(&o);

	tfx_pair_run(b, 64 * 1024);
	uint8_t **f = calloc((size_t)b->n_seen, sizeof(*f));
	*lens = calloc((size_t)b->n_seen, sizeof(**lens));
	if (f == NULL || *lens == NULL)
		abort();
	*n = 0;
	for (int i = 0; i < b->n_seen; i++) {
		size_t len = wire_frame_len(&b->seen[i].p);
		uint8_t *buf = malloc(len);
		if (buf == NULL || wire_encode(&b->seen[i].p, buf, len) != (int)len)
			abort();
		f[*n] = buf;
		(*lens)[(*n)++] = len;
	}
	tfx_pair_free(b);
	return f;
}

/* Append frame @p f of @p len bytes to input @p in at *@p at, with its length ahead of it (odd: to host 0). */
static void put_frame(uint8_t *in, size_t *at, const uint8_t *f, size_t len)
{
	in[(*at)++] = (uint8_t)(len >> 8);
	in[(*at)++] = (uint8_t)len;
	memcpy(in + *at, f, len);
	*at += len;
}

/* One input: 1 to 8 of the real frames, each with 0 to 4 of its first 80 bytes past Ethernet mutated. */
static size_t make_input(struct emu_rng *r, uint8_t **frames, const size_t *lens, int n, uint8_t *in)
{
	static const uint8_t edges[] = { 0x00, 0x01, 0x7f, 0x80, 0xfe, 0xff };
	uint8_t f[WIRE_MAX_FRAME];
	size_t at = 0;
	int k = 1 + (int)(emu_rng_next(r) % 8);

	for (int i = 0; i < k; i++) {
		int j = (int)(emu_rng_next(r) % (uint64_t)n);
		size_t len = lens[j];
		memcpy(f, frames[j], len);
		for (int m = (int)(emu_rng_next(r) % 5); m > 0; m--) {
			uint64_t v = emu_rng_next(r);
			size_t pos = OFF_IP + (size_t)(v % 80);
			if (pos < len)
				f[pos] = (v >> 8) & 1 ? edges[(v >> 16) % sizeof(edges)] : (uint8_t)(v >> 24);
		}
		if (emu_rng_next(r) % 16 == 0)
			len = OFF_IP + (size_t)(emu_rng_next(r) % (len - OFF_IP)); /* cut short */
		put_frame(in, &at, f, len);
	}
	return at;
}

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = malloc(FUZZ_MAX_INPUT);
	size_t n;

	if (f == NULL || buf == NULL) {
		fprintf(stderr, "fuzz_nic_rx: %s: cannot read\n", path);
		return 1;
	}
	n = fread(buf, 1, FUZZ_MAX_INPUT, f);
	fclose(f);
	LLVMFuzzerTestOneInput(buf, n);
	free(buf);
	return 0;
}

static int replay_path(const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0) {
		fprintf(stderr, "fuzz_nic_rx: %s: no such file\n", path);
		return 1;
	}
	if (!S_ISDIR(st.st_mode))
		return replay_file(path);
	DIR *d = opendir(path);
	struct dirent *e;
	char p[4096];
	int bad = 0;

	if (d == NULL)
		return 1;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", path, e->d_name);
		bad |= replay_file(p);
	}
	closedir(d);
	return bad;
}

static int write_corpus(const char *dir, uint8_t **frames, const size_t *lens, int n)
{
	uint8_t in[2 + WIRE_MAX_FRAME];
	char p[4096];

	mkdir(dir, 0755);
	for (int i = 0; i < n; i++) {
		size_t at = 0;
		put_frame(in, &at, frames[i], lens[i]);
		snprintf(p, sizeof(p), "%s/frame-%04d", dir, i);
		FILE *f = fopen(p, "wb");
		if (f == NULL || fwrite(in, 1, at, f) != at) {
			fprintf(stderr, "fuzz_nic_rx: %s: cannot write\n", p);
			return 1;
		}
		fclose(f);
	}
	printf("fuzz_nic_rx: %d frames written to %s\n", n, dir);
	return 0;
}

int main(int argc, char **argv)
{
	size_t *lens;
	int n, rc = 0;

	if (argc > 1 && strcmp(argv[1], "--write-corpus") != 0) {
		for (int i = 1; i < argc; i++)
			rc |= replay_path(argv[i]);
		return rc;
	}
	uint8_t **frames = real_frames(&lens, &n);
	if (argc > 2) {
		rc = write_corpus(argv[2], frames, lens, n);
	} else {
		struct emu_rng r;
		uint8_t *in = malloc(8 * (2 + WIRE_MAX_FRAME));

		if (in == NULL)
			abort();
		emu_rng_init(&r, 18760, 0);
		for (int i = 0; i < FUZZ_REPLAY_INPUTS; i++) {
			size_t len = make_input(&r, frames, lens, n, in);
			LLVMFuzzerTestOneInput(in, len);
		}
		printf("fuzz_nic_rx: %d inputs of mutated frames from a real transfer (%d frames) through the decoder "
		       "and both NICs' receive path\n", FUZZ_REPLAY_INPUTS, n);
		free(in);
	}
	for (int i = 0; i < n; i++)
		free(frames[i]);
	free(frames);
	free(lens);
	return rc;
}
#endif
