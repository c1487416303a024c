/*
 * The pcap writer behind capture points: a buffered nanosecond pcap, one encode buffer per capture whose data
 * payload pattern is written once, at open (wire_prefill_payload()), so each frame costs only its headers; a data
 * frame laid out otherwise (native encapsulation, CRC trailer) is encoded whole into a second buffer.
 */
#include "cap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define CAP_MAGIC_NS 0xa1b23c4du
#define CAP_LINKTYPE_ETHERNET 1u
#define CAP_SNAPLEN 65535u
#define CAP_IOBUF (1u << 20)

struct cap_pcap {
	FILE *f;
	int err;
	char *iobuf;
	uint8_t frame[WIRE_MAX_FRAME];
	uint8_t whole[WIRE_MAX_FRAME]; /* frames the prefilled buffer cannot take (wire_prefilled_fits()) */
};

static void put32(uint8_t *b, uint32_t v)
{
	/* pcap headers are in the writer's byte order; we always write little-endian, which readers detect */
	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
	b[2] = (uint8_t)(v >> 16);
	b[3] = (uint8_t)(v >> 24);
}

struct cap_pcap *cap_pcap_open(const char *path)
{
	struct cap_pcap *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	c->f = fopen(path, "wb");
	if (c->f == NULL) {
		int e = errno;
		free(c);
		errno = e;
		return NULL;
	}
	wire_prefill_payload(c->frame, sizeof(c->frame));
	c->iobuf = malloc(CAP_IOBUF);
	if (c->iobuf != NULL)
		setvbuf(c->f, c->iobuf, _IOFBF, CAP_IOBUF);
	uint8_t h[24] = { 0 };

	put32(h, CAP_MAGIC_NS);
	h[4] = 2; /* version 2.4 */
	h[6] = 4;
	put32(h + 16, CAP_SNAPLEN);
	put32(h + 20, CAP_LINKTYPE_ETHERNET);
	if (fwrite(h, sizeof(h), 1, c->f) != 1)
		c->err = EIO;
	return c;
}

/* Append one frame of @p len bytes (no FCS) stamped @p ts (truncated to the nanosecond); 0 or -EIO. */
static int cap_pcap_write(struct cap_pcap *c, emu_ps_t ts, const uint8_t *frame, size_t len)
{
	uint8_t h[16];
	uint64_t ns = ts / EMU_PS_PER_NS;
	uint32_t caplen = len > CAP_SNAPLEN ? CAP_SNAPLEN : (uint32_t)len;

	put32(h, (uint32_t)(ns / 1000000000u));
	put32(h + 4, (uint32_t)(ns % 1000000000u));
	put32(h + 8, caplen);
	put32(h + 12, (uint32_t)len);
	if (fwrite(h, sizeof(h), 1, c->f) != 1 || fwrite(frame, caplen, 1, c->f) != 1) {
		if (c->err == 0)
			c->err = errno ? errno : EIO;
		return -c->err;
	}
	return 0;
}

/* Cut the capture in @p fd after its last whole record, so a write that failed half-way leaves a readable file. */
static void cut_whole(int fd)
{
	off_t end = lseek(fd, 0, SEEK_END), at = 24, next;
	uint8_t h[16];

	while (at + 16 <= end && pread(fd, h, sizeof(h), at) == (ssize_t)sizeof(h)) {
		uint32_t caplen = (uint32_t)h[8] | (uint32_t)h[9] << 8 | (uint32_t)h[10] << 16 | (uint32_t)h[11] << 24;

		next = at + 16 + (off_t)caplen;
		if (next > end)
			break;
		at = next;
	}
	if (at > end)
		at = end < 24 ? 0 : 24;
	if (ftruncate(fd, at) != 0)
		return; /* the file stays as it is: the close reports the first error anyway */
}

int cap_pcap_close(struct cap_pcap *c)
{
	if (c == NULL)
		return 0;
	int e = c->err;

	if (fflush(c->f) != 0 && e == 0)
		e = errno;
	if (e == 0 && ferror(c->f))
		e = EIO;
	if (e != 0)
		cut_whole(fileno(c->f));
	if (fclose(c->f) != 0 && e == 0)
		e = errno;
	free(c->iobuf);
	free(c);
	return -e;
}

void cap_tap(void *arg, uint32_t dir, const struct wire_pkt *pkt, emu_ps_t now)
{
	struct cap_pcap *c = arg;
	bool pre = wire_prefilled_fits(pkt);
	uint8_t *buf = pre ? c->frame : c->whole;
	int n = pre ? wire_encode_prefilled(pkt, buf, sizeof(c->frame)) : wire_encode(pkt, buf, sizeof(c->whole));

	(void)dir;
	if (n > 0)
		cap_pcap_write(c, now, buf, (size_t)n);
}
