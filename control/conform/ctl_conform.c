/* uetemu conform: the frame-level test client. One DPDK port, the DUT's address resolved by ARP (or given), and for
 * each case of the table (ctl_conform_cases.c) its frames sent with the project's encoder, the DUT's answers
 * decoded with its decoder and checked; a pcapng per case with both directions, and conform.json. */
#include "ctl_conform_pvt.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cap.h"
#include "ctl_run.h"
#include "dp.h"

#define CF_WAIT_MS_DEFAULT 200u
#define CF_SETTLE_MS 5u     /* after the answers a step wants have come: a little longer, to see any extra */
#define CF_ARP_TRIES 5
#define CF_ARP_WAIT_MS 300u

/* ---- what a case calls ---- */

int cf_fail(struct cf *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->reason, sizeof(c->reason), fmt, ap);
	va_end(ap);
	return -1;
}

static const char *pds_name(uint8_t t)
{
	static const char *const n[] = { "?", "TSS", "RUD_REQ", "ROD_REQ", "RUDI_REQ", "RUDI_RESP", "UUD_REQ", "ACK",
					 "ACK_CC", "ACK_CCX", "NACK", "CP", "NACK_CCX", "RUD_CC_REQ", "ROD_CC_REQ" };
	return t < sizeof(n) / sizeof(n[0]) ? n[t] : "?";
}

const char *cf_desc(const struct wire_pkt *p, char *buf, size_t len)
{
	uint8_t t = p->pds.type;

	if (t == WIRE_PDS_NACK || t == WIRE_PDS_NACK_CCX)
		snprintf(buf, len, "%s code 0x%02x NACK_PSN %u payload %u flags 0x%02x", pds_name(t), p->pds.nack_code,
			 p->pds.psn, p->pds.payload, p->pds.flags);
	else if (t == WIRE_PDS_ACK || t == WIRE_PDS_ACK_CC || t == WIRE_PDS_ACK_CCX)
		snprintf(buf, len, "%s CACK_PSN %u flags 0x%02x SACK base +%d bitmap 0x%llx next_hdr %u", pds_name(t),
			 p->pds.psn, p->pds.flags, p->pds.sack_psn_off, (unsigned long long)p->ack.sack_bitmap,
			 p->pds.next_hdr);
	else
		snprintf(buf, len, "%s psn %u flags 0x%02x next_hdr %u", pds_name(t), p->pds.psn, p->pds.flags,
			 p->pds.next_hdr);
	return buf;
}

static void base_pkt(const struct cf *c, struct wire_pkt *p)
{
	memset(p, 0, sizeof(*p));
	p->kind = WIRE_KIND_UET;
	p->encap = c->encap;
	memcpy(p->dst_mac, c->dut_mac, 6);
	memcpy(p->src_mac, c->mac, 6);
	p->src_ip = c->ip;
	p->dst_ip = c->dut_ip;
	p->ttl = WIRE_TTL;
	p->dscp = 8; /* UET 1.0's TRIMMABLE codepoint (spec 1.5) */
	p->ecn = WIRE_ECN_ECT0;
	p->sport = c->sport;
	p->dport = WIRE_UDP_PORT_UET;
}

void cf_req(const struct cf *c, struct wire_pkt *p, uint8_t type, uint8_t flags, uint32_t idx, uint16_t dpdcid)
{
	base_pkt(c, p);
	p->pds.type = type;
	p->pds.next_hdr = WIRE_NH_REQ_STD;
	p->pds.flags = flags;
	p->pds.psn = c->start_psn + idx;
	p->pds.spdcid = c->spdcid;
	/* with SYN the DPDCID slot is pdc_info (0) and psn_offset, PSN - Start_PSN (spec 1.3) */
	p->pds.dpdcid = flags & WIRE_REQ_F_SYN ? (uint16_t)(idx & 0x0fffu) : dpdcid;
	p->ses.opcode = WIRE_SES_OP_WRITE;
	p->ses.flags = (uint8_t)((idx == 0 ? WIRE_SES_F_SOM : 0) | (idx == CF_MSG_PKTS - 1 ? WIRE_SES_F_EOM : 0));
	p->ses.message_id = (uint16_t)(c->spdcid ^ 0x5a5a);
	p->ses.job_id = 1;
	p->ses.request_length = CF_MSG_PKTS * CF_PAYLOAD;
	p->ses.message_offset = idx * CF_PAYLOAD;
	p->ses.buffer_offset = (uint64_t)idx * CF_PAYLOAD;
	p->payload_len = CF_PAYLOAD;
}

void cf_cp(const struct cf *c, struct wire_pkt *p, uint8_t ctl, uint32_t idx, uint16_t dpdcid)
{
	base_pkt(c, p);
	p->dscp = 46; /* CONTROL */
	p->pds.type = WIRE_PDS_CP;
	p->pds.next_hdr = ctl;
	p->pds.flags = WIRE_CP_F_AR;
	p->pds.psn = c->start_psn + idx;
	p->pds.spdcid = c->spdcid;
	p->pds.dpdcid = dpdcid;
}

static emu_ps_t cf_now(const struct cf *c)
{
	return (emu_ps_t)((unsigned __int128)(dp_tsc() - c->tsc0) * EMU_PS_PER_S / c->hz);
}

int cf_send_raw(struct cf *c, const uint8_t *frame, size_t len)
{
	if (c->cap != NULL) {
		emu_ps_t t = cf_now(c);
		cap_frame(c->cap, frame, len, t, t, CAP_DIR_OUT, NULL);
	}
	if (dp_tx(c->dp, c->port, frame, len) != DP_TX_OK)
		return cf_fail(c, "the port did not take a frame of %zu bytes", len);
	dp_flush_port(c->dp, c->port);
	c->sent++;
	return 0;
}

int cf_send(struct cf *c, const struct wire_pkt *p)
{
	uint8_t buf[WIRE_MAX_FRAME];
	int n = wire_encode(p, buf, sizeof(buf));

	if (n < 0)
		return cf_fail(c, "the encoder refused a %s (%d): a bug of the suite", pds_name(p->pds.type), n);
	return cf_send_raw(c, buf, (size_t)n);
}

/* An ARP request for the DUT's address, or the reply to one for ours. */
static void arp_send(struct cf *c, uint16_t op, const uint8_t tha[6], uint32_t tpa)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	struct wire_arp a;
	uint8_t buf[WIRE_ETH_MIN_FRAME];

	memset(&a, 0, sizeof(a));
	memcpy(a.eth_dst, op == WIRE_ARP_REQUEST ? bcast : tha, 6);
	memcpy(a.eth_src, c->mac, 6);
	a.op = op;
	memcpy(a.sha, c->mac, 6);
	a.spa = c->ip;
	if (op == WIRE_ARP_REPLY)
		memcpy(a.tha, tha, 6);
	a.tpa = tpa;
	int n = wire_arp_encode(&a, buf, sizeof(buf));
	if (n > 0)
		(void)cf_send_raw(c, buf, (size_t)n);
}

/* Every frame in: to the case's capture; ARP for our address answered, the DUT's reply learnt; UET frames from the
 * DUT to us kept as the step's answers. */
static void on_rx(void *arg, int port, const uint8_t *frame, size_t len)
{
	struct cf *c = arg;
	struct wire_arp a;
	struct wire_pkt p;

	(void)port;
	if (c->cap != NULL) {
		emu_ps_t t = cf_now(c);
		cap_frame(c->cap, frame, len, t, t, CAP_DIR_IN, NULL);
	}
	if (wire_arp_decode(frame, len, &a) == WIRE_R_OK) {
		if (a.op == WIRE_ARP_REQUEST && a.tpa == c->ip)
			arp_send(c, WIRE_ARP_REPLY, a.sha, a.spa);
		else if (a.op == WIRE_ARP_REPLY && a.spa == c->dut_ip && !c->dut_mac_known) {
			memcpy(c->dut_mac, a.sha, 6);
			c->dut_mac_known = true;
		}
		return;
	}
	if (wire_decode_cfg(frame, len, &c->rx, &p) != WIRE_R_OK || p.src_ip != c->dut_ip || p.dst_ip != c->ip ||
	    p.kind == WIRE_KIND_PFC || p.kind == WIRE_KIND_CM || p.kind == WIRE_KIND_ROCE)
		return;
	c->rcvd++;
	if (c->n_ans < CF_ANS_MAX)
		c->ans[c->n_ans] = p;
	c->n_ans++;
}

unsigned cf_collect(struct cf *c, unsigned want)
{
	uint64_t t0 = dp_tsc(), settle = c->hz / 1000u * CF_SETTLE_MS, done_at = 0;

	c->n_ans = 0;
	for (;;) {
		uint64_t now = dp_tsc();

		dp_rx_drain(c->dp, c->port, on_rx, c);
		if (want > 0 && c->n_ans >= want && done_at == 0)
			done_at = now;
		if (done_at != 0 && now - done_at >= settle)
			break;
		if (now - t0 >= c->wait_tsc || (c->quit != NULL && *c->quit))
			break;
	}
	if (c->n_ans > CF_ANS_MAX)
		c->n_ans = CF_ANS_MAX;
	return c->n_ans;
}

/* ---- options ---- */

static int parse_ip(const char *s, uint32_t *out)
{
	struct in_addr a;

	if (s == NULL || inet_pton(AF_INET, s, &a) != 1)
		return -1;
	*out = ntohl(a.s_addr);
	return 0;
}

static int parse_mac(const char *s, uint8_t mac[6])
{
	unsigned v[6];
	char tail;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &tail) != 6)
		return -1;
	for (int i = 0; i < 6; i++) {
		if (v[i] > 0xff)
			return -1;
		mac[i] = (uint8_t)v[i];
	}
	return 0;
}

/* Is case @p name in the comma list @p list (NULL: every case)? */
static bool in_list(const char *list, const char *name)
{
	size_t n = strlen(name);

	if (list == NULL)
		return true;
	for (const char *s = list; *s != '\0';) {
		size_t k = strcspn(s, ",");
		if (k == n && strncmp(s, name, n) == 0)
			return true;
		s += k + (s[k] == ',');
	}
	return false;
}

void ctl_conform_list(FILE *f)
{
	for (unsigned i = 0; i < cf_n_cases; i++)
		fprintf(f, "  %-22s %s\n", cf_cases[i].name, cf_cases[i].expects);
}

static int mkdirs(const char *path)
{
	char b[4096];
	size_t n = strlen(path);

	if (n == 0 || n >= sizeof(b))
		return -ENAMETOOLONG;
	memcpy(b, path, n + 1);
	for (size_t i = 1; i <= n; i++)
		if (b[i] == '/' || b[i] == '\0') {
			char ch = b[i];
			b[i] = '\0';
			if (mkdir(b, 0777) < 0 && errno != EEXIST)
				return -errno;
			b[i] = ch;
		}
	return 0;
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s != '\0'; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", (unsigned)(unsigned char)*s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static int resolve_dut(struct cf *c)
{
	for (int i = 0; i < CF_ARP_TRIES && !c->dut_mac_known; i++) {
		uint64_t t0 = dp_tsc();
		static const uint8_t zero[6];

		arp_send(c, WIRE_ARP_REQUEST, zero, c->dut_ip);
		while (!c->dut_mac_known && dp_tsc() - t0 < c->hz / 1000u * CF_ARP_WAIT_MS &&
		       !(c->quit != NULL && *c->quit))
			dp_rx_drain(c->dp, c->port, on_rx, c);
	}
	return c->dut_mac_known ? 0 : -1;
}

/* One case: its capture opened, its body run, its verdict. */
static int run_case(struct cf *c, const struct cf_case *k, const char *dir, const char *dev, int64_t epoch_ns,
		    unsigned idx, uint32_t psn_base, uint16_t pdc_base)
{
	char base[4096], err[256];
	struct cap_cfg cc = { .base = base, .format = CAP_FORMAT_PCAPNG, .epoch_ns = epoch_ns, .if_name = dev,
			      .if_desc = "uetemu conform: frames sent to and received from the device under test",
			      .out_dir = -1 };

	snprintf(base, sizeof(base), "%s/%s", dir, k->name);
	c->cap = cap_open(&cc, err, sizeof(err));
	if (c->cap == NULL)
		fprintf(stderr, "uetemu: conform: %s (the case runs without its capture)\n", err);
	c->spdcid = (uint16_t)(pdc_base + idx);
	c->start_psn = psn_base + idx * 0x10000u;
	c->sport = (uint16_t)(0xc000u + idx);
	c->sent = c->rcvd = 0;
	c->reason[0] = '\0';
	int rc = k->fn(c);
	if (rc == 0)
		snprintf(c->reason, sizeof(c->reason), "as UET 1.0 expects");
	/* late answers of the case belong to its capture; they never count for the next one */
	dp_rx_drain(c->dp, c->port, on_rx, c);
	if (c->cap != NULL && cap_close(c->cap, NULL, err, sizeof(err)) < 0)
		fprintf(stderr, "uetemu: conform: %s\n", err);
	c->cap = NULL;
	return rc;
}

int ctl_conform(const struct ctl_conform_opts *o)
{
	struct cf c;
	char err[512];
	unsigned long wait_ms = CF_WAIT_MS_DEFAULT;
	const char *dir = o->out_dir != NULL ? o->out_dir : "out";

	memset(&c, 0, sizeof(c));
	c.quit = o->quit;
	if (o->dev == NULL || o->dut_ip == NULL || o->ip == NULL) {
		fprintf(stderr, "uetemu: conform needs --dev, --dut-ip and --ip\nTry 'uetemu conform --help'.\n");
		return 2;
	}
	if (parse_ip(o->dut_ip, &c.dut_ip) < 0 || parse_ip(o->ip, &c.ip) < 0) {
		fprintf(stderr, "uetemu: conform: --dut-ip and --ip take an IPv4 address, A.B.C.D\n");
		return 2;
	}
	if (o->dut_mac != NULL) {
		if (parse_mac(o->dut_mac, c.dut_mac) < 0) {
			fprintf(stderr, "uetemu: conform: --dut-mac '%s': expected XX:XX:XX:XX:XX:XX\n", o->dut_mac);
			return 2;
		}
		c.dut_mac_known = true;
	}
	if (o->mac != NULL && parse_mac(o->mac, c.mac) < 0) {
		fprintf(stderr, "uetemu: conform: --mac '%s': expected XX:XX:XX:XX:XX:XX\n", o->mac);
		return 2;
	}
	if (o->encap != NULL && strcmp(o->encap, "udp") != 0 && strcmp(o->encap, "native") != 0) {
		fprintf(stderr, "uetemu: conform: --encap '%s': expected udp or native\n", o->encap);
		return 2;
	}
	c.encap = o->encap != NULL && strcmp(o->encap, "native") == 0 ? WIRE_ENCAP_NATIVE : 0;
	if (o->wait_ms != NULL) {
		char *end;
		wait_ms = strtoul(o->wait_ms, &end, 10);
		if (*o->wait_ms < '0' || *o->wait_ms > '9' || *end != '\0' || wait_ms < 1 || wait_ms > 10000) {
			fprintf(stderr, "uetemu: conform: --wait '%s': expected milliseconds, 1 to 10000\n", o->wait_ms);
			return 2;
		}
	}
	if (o->cases != NULL)
		for (const char *s = o->cases; *s != '\0';) {
			size_t k = strcspn(s, ",");
			bool found = false;
			for (unsigned i = 0; i < cf_n_cases; i++)
				found |= strlen(cf_cases[i].name) == k && strncmp(s, cf_cases[i].name, k) == 0;
			if (!found) {
				fprintf(stderr, "uetemu: conform: --cases: no case '%.*s'; the cases are:\n", (int)k, s);
				ctl_conform_list(stderr);
				return 2;
			}
			s += k + (s[k] == ',');
		}
	int rc = mkdirs(dir);
	if (rc < 0) {
		fprintf(stderr, "uetemu: conform: %s: %s\n", dir, strerror(-rc));
		return 1;
	}
	/* what `run` checks before the EAL: the plain reason, not DPDK's ("probe failed: Bad address") */
	char where[CTL_DEV_MAX + 32];
	snprintf(where, sizeof(where), "conform: --dev \"%s\"", o->dev);
	err[0] = '\0';
	if (ctl_run_preflight_prefix(o->eal_argc, o->eal_argv, err, sizeof(err)) < 0 ||
	    ctl_run_preflight_dev(where, o->dev, err, sizeof(err)) < 0) {
		fprintf(stderr, "uetemu: %s\n", err);
		return 1;
	}
	c.rx.uet_port = WIRE_UDP_PORT_UET;
	c.rx.udp_csum = WIRE_CSUM_OFFLOAD;
	c.dp = dp_create(o->eal_argc, o->eal_argv, err, sizeof(err));
	if (c.dp == NULL) {
		fprintf(stderr, "uetemu: conform: %s\n", err);
		return 1;
	}
	c.port = dp_port_add(c.dp, o->dev, DP_PORT_TX_COPY, err, sizeof(err));
	if (c.port < 0) {
		fprintf(stderr, "uetemu: conform: %s: %s\n", o->dev, err);
		dp_destroy(c.dp);
		return 1;
	}
	if (o->mac == NULL)
		dp_port_mac(c.dp, c.port, c.mac);
	c.hz = dp_tsc_hz();
	c.tsc0 = dp_tsc();
	c.wait_tsc = c.hz / 1000u * wait_ms;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	int64_t epoch_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	if (resolve_dut(&c) < 0) {
		fprintf(stderr, "uetemu: conform: %s did not answer ARP on %s (give --dut-mac if it does not)\n",
			o->dut_ip, o->dev);
		dp_destroy(c.dp);
		return 1;
	}
	/* a PSN range and PDC ids of this run's own, so a DUT that remembers closed PDCs takes each case as new */
	uint32_t psn_base = (uint32_t)(ts.tv_nsec & 0x7fff) << 16;
	uint16_t pdc_base = (uint16_t)(0x100u + ((unsigned)ts.tv_sec % 0x100u) * 0x40u);
	char path[4096];
	snprintf(path, sizeof(path), "%s/conform.json", dir);
	FILE *f = fopen(path, "w");
	if (f == NULL) {
		fprintf(stderr, "uetemu: conform: %s: %s\n", path, strerror(errno));
		dp_destroy(c.dp);
		return 1;
	}
	fprintf(f, "{\n  \"dut_ip\": ");
	json_str(f, o->dut_ip);
	fprintf(f, ",\n  \"dut_mac\": \"%02x:%02x:%02x:%02x:%02x:%02x\",\n  \"ip\": ", c.dut_mac[0], c.dut_mac[1],
		c.dut_mac[2], c.dut_mac[3], c.dut_mac[4], c.dut_mac[5]);
	json_str(f, o->ip);
	fprintf(f, ",\n  \"encap\": \"%s\",\n  \"wait_ms\": %lu,\n  \"cases\": [", c.encap ? "native" : "udp", wait_ms);
	unsigned passed = 0, failed = 0, n = 0;
	for (unsigned i = 0; i < cf_n_cases && !(c.quit != NULL && *c.quit); i++) {
		const struct cf_case *k = &cf_cases[i];
		if (!in_list(o->cases, k->name))
			continue;
		int r = run_case(&c, k, dir, o->dev, epoch_ns, i, psn_base, pdc_base);
		r == 0 ? passed++ : failed++;
		printf("%-4s %-22s %s\n", r == 0 ? "pass" : "FAIL", k->name, c.reason);
		fflush(stdout);
		fprintf(f, "%s\n    {\"case\": \"%s\", \"verdict\": \"%s\", \"reason\": ", n++ ? "," : "", k->name,
			r == 0 ? "pass" : "fail");
		json_str(f, c.reason);
		fprintf(f, ", \"section\": ");
		json_str(f, k->section);
		fprintf(f, ", \"frames_sent\": %u, \"frames_received\": %u, \"pcapng\": \"%s.pcapng\"}", c.sent, c.rcvd,
			k->name);
	}
	bool stopped = c.quit != NULL && *c.quit;
	fprintf(f, "\n  ],\n  \"passed\": %u,\n  \"failed\": %u,\n  \"stopped\": %s\n}\n", passed, failed,
		stopped ? "true" : "false");
	bool werr = ferror(f) != 0;
	if (fclose(f) != 0 || werr)
		fprintf(stderr, "uetemu: conform: %s: could not be written\n", path);
	printf("conform: %u passed, %u failed%s (%s)\n", passed, failed, stopped ? ", stopped by a signal" : "", path);
	dp_destroy(c.dp);
	return failed == 0 && !stopped && !werr ? 0 : 1;
}
