/* Internals of uetemu conform: the driver's state, what a case may call, and the case table. */
#ifndef CTL_CONFORM_PVT_H
#define CTL_CONFORM_PVT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctl_conform.h"
#include "wire.h"

#define CF_ANS_MAX 16      /* answers kept per step; more are counted */
#define CF_REASON_MAX 320
#define CF_PAYLOAD 256     /* payload bytes of every request the suite sends */
#define CF_MSG_PKTS 8      /* the requests of a case are packets of one WRITE of this many packets */

struct cap;
struct dp_ctx;

/** The driver: the port, both ends' addresses, the case under way and the answers of its current step. */
struct cf {
	struct dp_ctx *dp;
	int port;
	uint8_t mac[6], dut_mac[6];
	uint32_t ip, dut_ip;   /* host byte order */
	uint8_t encap;         /* WIRE_ENCAP_NATIVE or 0 */
	uint64_t hz, tsc0, wait_tsc;
	volatile sig_atomic_t *quit;
	struct wire_rx_cfg rx;
	struct cap *cap;       /* the capture of the case under way, or NULL */
	/* the case under way */
	uint16_t spdcid;       /* the driver's PDC id for it (a new one per case) */
	uint32_t start_psn;    /* its Start_PSN (a new range per case) */
	uint16_t sport;        /* its entropy */
	unsigned sent, rcvd;   /* frames sent and UET frames received from the DUT */
	char reason[CF_REASON_MAX];
	/* the answers of the current step: UET frames from the DUT to the driver */
	struct wire_pkt ans[CF_ANS_MAX];
	unsigned n_ans;
	bool dut_mac_known;
};

/** A case: its name, what it sends, what UET 1.0 expects, the spec section, and its body (0 pass, -1 fail). */
struct cf_case {
	const char *name;
	const char *sends;
	const char *expects;
	const char *section;
	int (*fn)(struct cf *c);
};

extern const struct cf_case cf_cases[];
extern const unsigned cf_n_cases;

/* What a case body calls (ctl_conform.c). */

/** A request of the case's PDC: @p type (RUD_REQ, ROD_REQ, RUDI_REQ), PDS @p flags, PSN Start_PSN + @p idx, a
 *  standard SES WRITE header (packet @p idx of a CF_MSG_PKTS-packet message) and CF_PAYLOAD bytes. With SYN the
 *  DPDCID slot carries psn_offset @p idx; else @p dpdcid. */
void cf_req(const struct cf *c, struct wire_pkt *p, uint8_t type, uint8_t flags, uint32_t idx, uint16_t dpdcid);

/** A control packet of the case's PDC: @p ctl, AR, PSN Start_PSN + @p idx, DPDCID @p dpdcid. */
void cf_cp(const struct cf *c, struct wire_pkt *p, uint8_t ctl, uint32_t idx, uint16_t dpdcid);

/** Encode and send @p p (written to the case's capture). 0, or -1 with the reason set. */
int cf_send(struct cf *c, const struct wire_pkt *p);

/** Send the @p len bytes at @p frame as they are. 0, or -1 with the reason set. */
int cf_send_raw(struct cf *c, const uint8_t *frame, size_t len);

/** Collect the DUT's answers into c->ans until @p want have come and a short settle after, or the step's wait
 *  is over (the whole wait when @p want is 0). Returns c->n_ans. */
unsigned cf_collect(struct cf *c, unsigned want);

/** Set the case's reason (printf format); returns -1. */
int cf_fail(struct cf *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** @p p in words ("ACK_CC CACK_PSN 100 ..."), into @p buf. */
const char *cf_desc(const struct wire_pkt *p, char *buf, size_t len);

#endif /* CTL_CONFORM_PVT_H */
