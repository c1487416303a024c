/* uet-monitor: the per-packet record, its filters, its triggers and their shared budget of connections. */
#include "ctl_rec_pvt.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emu_units.h"
#include "rec.h"

/* Sending PDC ids are 1..32767, receiving ones 32769..65535 (uet-nic-records.md, Identifying a PDC). */
#define MON_RCV_ID_MIN 32768u
#define MON_SET_MIN 256u  /* initial slots of the selected-connection set; doubles at half full */

/* Which of the optional columns a kind of row fills (the page's "Which columns each kind of row fills"). */
enum {
	MF_JOB = 1 << 0,
	MF_ENTROPY = 1 << 1,     /* the packet's entropy value */
	MF_ENTROPY_PDC = 1 << 2, /* entropy_value holds a PDC id: the local one on a row sent, the remote on one received */
	MF_RTT = 1 << 3,         /* when the ACK gave an RTT sample */
	MF_NACK = 1 << 4,
	MF_AR = 1 << 5,
	MF_ECN = 1 << 6,
	MF_M = 1 << 7,
	MF_SENDER = 1 << 8,      /* the two prefetch columns, bytes_fetched, bytes_in_flight, congestion_window */
	MF_PEN = 1 << 9,
	MF_PSN = 1 << 10,
	MF_ACK = 1 << 11,        /* CACK_PSN, SACK_base_PSN, ACK_bitmap_PSNs */
};

enum mon_pkt { MON_P_DATA = 0, MON_P_ACK, MON_P_CTRL, MON_P_NACK, MON_P_COUNT };

#define MF_ACK_SENT (MF_ENTROPY | MF_PEN | MF_M | MF_PSN | MF_ACK)
/* [packet type][0 sent, 1 received] */
static const uint16_t mon_fill[MON_P_COUNT][2] = {
	[MON_P_DATA] = { MF_JOB | MF_ENTROPY | MF_AR | MF_PSN | MF_SENDER, MF_ENTROPY | MF_AR | MF_ECN | MF_PSN },
	[MON_P_ACK] = { MF_ACK_SENT, MF_ACK_SENT | MF_ECN | MF_JOB | MF_SENDER | MF_RTT },
	[MON_P_CTRL] = { MF_PSN | MF_JOB | MF_SENDER | MF_ENTROPY_PDC, MF_PSN | MF_ECN | MF_ENTROPY_PDC },
	[MON_P_NACK] = { MF_NACK | MF_PSN | MF_M | MF_ENTROPY_PDC, MF_NACK | MF_PSN | MF_M | MF_ENTROPY_PDC },
};

static const char *const mon_pkt_names[MON_P_COUNT] = { "RUD_REQUEST", "ACK_CC", "CTRL", "NACK" };
static const char *const mon_dir_names[] = { [NIC_TR_TX] = "Tx", [NIC_TR_RETX] = "ReTx", [NIC_TR_RX] = "Rx" };
static const char *const mon_dscp_names[WIRE_ROLE_COUNT + 1] = {
	[WIRE_ROLE_NO_TRIM] = "NO_TRIM",
	[WIRE_ROLE_TRIMMABLE] = "TRIMMABLE",
	[WIRE_ROLE_TRIMMABLE_RTX] = "TRIMMABLE_RTX",
	[WIRE_ROLE_TRIMMED] = "TRIMMED",
	[WIRE_ROLE_TRIMMED_LASTHOP] = "TRIMMED_LAST_HOP",
	[WIRE_ROLE_CONTROL] = "CONTROL",
	[WIRE_ROLE_COUNT] = "UNRECOGNIZED",
};

/* The four filters; a filter that is "All" has its any_ flag set. */
struct mon_filters {
	bool any_fep, any_lip, any_rip, any_pdc;
	uint32_t fep, lip, rip, pdc_ip;
	uint16_t pdc_id;
};

struct ctl_monitor {
	struct rec_csv *csv;
	const struct ctl_config *cfg;
	bool enable;               /* EnableUETMonitor: the filters select */
	bool all;                  /* EnableUETMonitor with every filter All: every packet is logged */
	struct mon_filters flt;
	bool trig_rtt, trig_pen;
	emu_ps_t rtt_threshold;
	uint32_t pen_threshold;
	uint32_t budget;           /* connections the triggers may still select (TriggeredLoggingPDCLimit) */
	/* Selected connections, by their sending end (ip << 16 | id) + MON_KEY_LIVE; open addressing, 0 = empty. */
	uint64_t *set;
	uint32_t set_mask, set_n;
};

#define MON_KEY_LIVE (1ull << 48)

/* ---- the selected-connection set ---- */

static uint32_t key_hash(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return (uint32_t)k;
}

static bool set_has(const struct ctl_monitor *m, uint64_t key)
{
	for (uint32_t i = key_hash(key) & m->set_mask;; i = (i + 1) & m->set_mask) {
		if (m->set[i] == key)
			return true;
		if (m->set[i] == 0)
			return false;
	}
}

static void set_put(uint64_t *set, uint32_t mask, uint64_t key)
{
	uint32_t i = key_hash(key) & mask;

	while (set[i] != 0 && set[i] != key)
		i = (i + 1) & mask;
	set[i] = key;
}

/* Add @p key (not present). Grows at half full: a new connection is selected, never per row. */
static void set_add(struct ctl_monitor *m, uint64_t key)
{
	if (m->set_n + 1 > (m->set_mask + 1) / 2) {
		uint32_t n = (m->set_mask + 1) * 2;
		uint64_t *set = n ? calloc(n, sizeof(*set)) : NULL;
		if (set == NULL)
			return; /* out of memory: this packet is logged, the connection not remembered */
		for (uint32_t i = 0; i <= m->set_mask; i++)
			if (m->set[i] != 0)
				set_put(set, n - 1, m->set[i]);
		free(m->set);
		m->set = set;
		m->set_mask = n - 1;
	}
	set_put(m->set, m->set_mask, key);
	m->set_n++;
}

/*
 * A connection is named by its sending end, which both ends know from the first packet on: the sender's
 * remote_PDC_ID reads 0 until its first ACK, but its local id is the sending end, and the receiver's remote id is.
 */
static uint64_t conn_key(const struct nic_trace *tr)
{
	bool local_sends = tr->local_pdc != 0 && tr->local_pdc < MON_RCV_ID_MIN;
	uint32_t ip = local_sends ? tr->local_ip : tr->remote_ip;
	uint16_t id = local_sends ? tr->local_pdc : tr->remote_pdc;

	return ((uint64_t)ip << 16 | id) + MON_KEY_LIVE;
}

/* ---- selection ---- */

static bool filters_match(const struct mon_filters *fl, const struct nic_trace *tr)
{
	if (!fl->any_fep && tr->fep_id != fl->fep)
		return false;
	if (!fl->any_lip && tr->local_ip != fl->lip)
		return false;
	if (!fl->any_rip && tr->remote_ip != fl->rip)
		return false;
	if (!fl->any_pdc && !(tr->local_ip == fl->pdc_ip && tr->local_pdc == fl->pdc_id) &&
	    !(tr->remote_ip == fl->pdc_ip && tr->remote_pdc == fl->pdc_id))
		return false;
	return true;
}

/* RTT: a received ACK whose RTT sample is at or above the threshold. Penalty: a penalty the row carries (an ACK's,
 * or the latest the sender received, on a data packet it sends) at or above the threshold. */
static bool trigger_fires(const struct ctl_monitor *m, const struct nic_trace *tr)
{
	if (m->trig_rtt && tr->dir == NIC_TR_RX && tr->kind == WIRE_KIND_ACK && tr->has_rtt &&
	    tr->rtt >= m->rtt_threshold)
		return true;
	return m->trig_pen && tr->has_penalty && tr->penalty >= m->pen_threshold;
}

/* Whether @p tr is logged; a filter match or a trigger selects its connection for the rest of the run. */
static bool mon_selects(struct ctl_monitor *m, const struct nic_trace *tr)
{
	if (m->all)
		return true;
	uint64_t key = conn_key(tr);
	if (m->set_n != 0 && set_has(m, key))
		return true;
	if (m->enable && filters_match(&m->flt, tr)) {
		set_add(m, key);
		return true;
	}
	if (m->budget != 0 && trigger_fires(m, tr)) {
		m->budget--;
		set_add(m, key);
		return true;
	}
	return false;
}

static int mon_pkt_of(uint8_t kind)
{
	switch (kind) {
	case WIRE_KIND_DATA:
	case WIRE_KIND_TRIMMED:
		return MON_P_DATA;
	case WIRE_KIND_ACK:
		return MON_P_ACK;
	case WIRE_KIND_CP:
		return MON_P_CTRL;
	case WIRE_KIND_NACK:
		return MON_P_NACK;
	default:
		return -1;
	}
}

/* ---- the record ---- */

/* One row: a packet sent or received, and the columns its kind fills. */
struct mon_row {
	const struct nic_trace *tr;
	const char *name;             /* the host's */
	unsigned fill;                /* MF_ flags */
	bool rx;
	int pkt;                      /* enum mon_pkt */
};

/* The columns that a kind of row may leave empty, X(id, value of the trace tr): filled with the value when the
 * row's kind fills the column's MF_ flag. */
#define MON_FIELDS(X) \
	X(MV_AR, tr->ar != 0) \
	X(MV_ECN, tr->ecn_marked != 0) \
	X(MV_M, tr->m_flag != 0) \
	X(MV_NIC_PF, tr->nic_prefetched) \
	X(MV_PDC_PF, tr->pdc_prefetched) \
	X(MV_FETCHED, tr->bytes_fetched) \
	X(MV_IN_FLIGHT, tr->bytes_in_flight) \
	X(MV_CWND, tr->cwnd) \
	X(MV_PEN, tr->penalty) \
	X(MV_PSN, tr->psn) \
	X(MV_CACK, tr->cack_psn) \
	X(MV_SACK, tr->sack_base)

#define MON_FIELD_ENUM(id, value) id,
enum mon_field { MON_FIELDS(MON_FIELD_ENUM) };

/* @p arg: an MF_ flag << 8 | enum mon_field. Only the column's field is read (a row per packet). */
static void mon_opt(const void *row, uint32_t arg, struct ctl_rec_val *v)
{
	const struct mon_row *r = row;
	const struct nic_trace *tr = r->tr;

	v->fmt = CTL_REC_F_EMPTY;
	if (!(r->fill & (arg >> 8)))
		return;
	switch (arg & 0xff) {
#define MON_FIELD_CASE(id, value) \
	case id: \
		v->fmt = CTL_REC_F_U64; \
		v->u = (value); \
		break;
		MON_FIELDS(MON_FIELD_CASE)
#undef MON_FIELD_CASE
	}
}

#define MON_OPT(name, flag, field) CTL_REC_COL(name, U64, 0, mon_opt, (uint32_t)(flag) << 8 | (field))

/* The values every row has: @p arg 0 FEP_ID, 1 job_ID (0 where it does not apply), 2 packet_UID, 3 packet_size. */
static void mon_u64(const void *row, uint32_t arg, struct ctl_rec_val *v)
{
	const struct mon_row *r = row;
	const uint64_t f[] = { r->tr->fep_id, r->fill & MF_JOB ? r->tr->job_id : 0, r->tr->packet_uid,
			       r->tr->packet_size };

	v->u = f[arg];
}

/* local_PDC_ID (@p arg 0), remote_PDC_ID (1): ip:id. */
static void mon_pdc(const void *row, uint32_t arg, struct ctl_rec_val *v)
{
	const struct nic_trace *tr = ((const struct mon_row *)row)->tr;

	v->u = arg ? tr->remote_ip : tr->local_ip;
	v->id = arg ? tr->remote_pdc : tr->local_pdc;
}

/* entropy_value: the packet's, or a PDC id (the local one on a row sent, the remote on one received). */
static void mon_entropy(const void *row, uint32_t arg, struct ctl_rec_val *v)
{
	const struct mon_row *r = row;

	(void)arg;
	if (r->fill & MF_ENTROPY_PDC)
		v->u = r->rx ? r->tr->remote_pdc : r->tr->local_pdc;
	else if (r->fill & MF_ENTROPY)
		v->u = r->tr->entropy;
	else
		v->fmt = CTL_REC_F_EMPTY;
}

/* RTT_ns: when the ACK gave an RTT sample. */
static void mon_rtt(const void *row, uint32_t arg, struct ctl_rec_val *v)
{
	const struct mon_row *r = row;

	(void)arg;
	if ((r->fill & MF_RTT) && r->tr->has_rtt)
		v->u = r->tr->rtt;
	else
		v->fmt = CTL_REC_F_EMPTY;
}

/* The named columns: @p arg 0 direction, 1 packet_type, 2 DSCP_type. */
static void mon_name(const void *row, uint32_t arg, struct ctl_rec_val *v)
{
	const struct mon_row *r = row;
	const struct nic_trace *tr = r->tr;

	v->s = arg == 0   ? mon_dir_names[tr->dir <= NIC_TR_RX ? tr->dir : NIC_TR_RX]
	       : arg == 1 ? mon_pkt_names[r->pkt]
			  : mon_dscp_names[tr->dscp_role < WIRE_ROLE_COUNT ? tr->dscp_role : WIRE_ROLE_COUNT];
}

/* nack_code: named, or an unknown code shown as its number, not named. */
static void mon_nack(const void *row, uint32_t arg, struct ctl_rec_val *v)
{
	const struct mon_row *r = row;
	uint8_t code = r->tr->nack_code;

	(void)arg;
	if (!(r->fill & MF_NACK))
		v->fmt = CTL_REC_F_EMPTY;
	else if (code == WIRE_NACK_TRIMMED)
		v->s = "UET_TRIMMED";
	else if (code == WIRE_NACK_TRIMMED_LASTHOP)
		v->s = "UET_TRIMMED_LASTHOP";
	else { /* unknown codes are shown, not named */
		v->fmt = CTL_REC_F_U64;
		v->u = code;
	}
}

/* ACK_bitmap_PSNs: "[p1:p2:...]", bit N of the bitmap acknowledging PSN SACK_base_PSN + N; [] where none. */
static void mon_bitmap(const void *row, uint32_t arg, struct ctl_rec_val *v)
{
	const struct mon_row *r = row;

	(void)arg;
	v->u = r->fill & MF_ACK ? r->tr->sack_bitmap : 0;
	v->id = r->tr->sack_base;
}

/* The 27 columns, in the order of the Columns table of spec/scala/uet-nic-records.md (uet-monitor). */
static const struct ctl_rec_col mon_cols[] = {
	CTL_REC_COL_SIM_NS,
	CTL_REC_COL_STR("component_name", struct mon_row, name),
	CTL_REC_COL("FEP_ID", U64, 0, mon_u64, 0),
	CTL_REC_COL("job_ID", U64, 0, mon_u64, 1),
	CTL_REC_COL("packet_UID", U64, 0, mon_u64, 2),
	CTL_REC_COL("packet_size", U64, 0, mon_u64, 3),
	CTL_REC_COL("local_PDC_ID", PDC, 0, mon_pdc, 0),
	CTL_REC_COL("remote_PDC_ID", PDC, 0, mon_pdc, 1),
	CTL_REC_COL("entropy_value", U64, 0, mon_entropy, 0),
	CTL_REC_COL("RTT_ns", FIXED, 3, mon_rtt, 0),
	CTL_REC_COL("direction", STR, 0, mon_name, 0),
	CTL_REC_COL("packet_type", STR, 0, mon_name, 1),
	CTL_REC_COL("nack_code", STR, 0, mon_nack, 0),
	MON_OPT("AR_bit", MF_AR, MV_AR),
	MON_OPT("ECN_marked", MF_ECN, MV_ECN),
	MON_OPT("M_Flag", MF_M, MV_M),
	MON_OPT("NIC_prefetched_bytes", MF_SENDER, MV_NIC_PF),
	MON_OPT("PDC_prefetched_bytes", MF_SENDER, MV_PDC_PF),
	MON_OPT("bytes_fetched", MF_SENDER, MV_FETCHED),
	MON_OPT("bytes_in_flight", MF_SENDER, MV_IN_FLIGHT),
	MON_OPT("congestion_window", MF_SENDER, MV_CWND),
	MON_OPT("receiver_congestion_window_penalty", MF_PEN, MV_PEN),
	CTL_REC_COL("DSCP_type", STR, 0, mon_name, 2),
	MON_OPT("PSN", MF_PSN, MV_PSN),
	MON_OPT("CACK_PSN", MF_ACK, MV_CACK),
	MON_OPT("SACK_base_PSN", MF_ACK, MV_SACK),
	CTL_REC_COL("ACK_bitmap_PSNs", BITS, 0, mon_bitmap, 0),
};
const struct ctl_rec_schema ctl_rec_mon_schema = CTL_REC_SCHEMA("uet-monitor", mon_cols);

static void mon_row(struct ctl_monitor *m, const struct nic_trace *tr, int pkt)
{
	bool rx = tr->dir == NIC_TR_RX;
	struct mon_row r = {
		.tr = tr, .name = tr->fep_id < m->cfg->n_hosts ? m->cfg->hosts[tr->fep_id].name : "",
		.fill = mon_fill[pkt][rx], .rx = rx, .pkt = pkt,
	};

	ctl_rec_row(m->csv, &ctl_rec_mon_schema, &r, tr->now);
}

void ctl_monitor_trace(struct ctl_monitor *m, const struct nic_trace *tr)
{
	/* Nothing can select a packet any more: the common case with only a spent trigger on. */
	if (!m->enable && m->budget == 0 && m->set_n == 0)
		return;
	int pkt = mon_pkt_of(tr->kind);
	if (pkt < 0 || !mon_selects(m, tr))
		return;
	mon_row(m, tr, pkt);
}

/* ---- open / close ---- */

static int parse_filters(struct mon_filters *fl, const struct nic_params *p, char *err, size_t errlen)
{
	uint64_t v = 0;
	const char *colon = strchr(p->filter_pdc, ':');
	char ip[sizeof(p->filter_pdc)];

	fl->any_fep = strcmp(p->filter_fep_id, "All") == 0;
	fl->any_lip = strcmp(p->filter_local_ip, "All") == 0;
	fl->any_rip = strcmp(p->filter_remote_ip, "All") == 0;
	fl->any_pdc = strcmp(p->filter_pdc, "All") == 0;
	if (!fl->any_fep && (emu_parse_uint(p->filter_fep_id, &v, NULL, 0) != 0 || v > UINT32_MAX))
		goto bad;
	fl->fep = (uint32_t)v;
	if ((!fl->any_lip && emu_parse_ipv4(p->filter_local_ip, &fl->lip, NULL, 0) != 0) ||
	    (!fl->any_rip && emu_parse_ipv4(p->filter_remote_ip, &fl->rip, NULL, 0) != 0))
		goto bad;
	if (fl->any_pdc)
		return 0;
	if (colon == NULL)
		goto bad;
	snprintf(ip, sizeof(ip), "%.*s", (int)(colon - p->filter_pdc), p->filter_pdc);
	if (emu_parse_ipv4(ip, &fl->pdc_ip, NULL, 0) != 0 || emu_parse_uint(colon + 1, &v, NULL, 0) != 0 ||
	    v > UINT16_MAX)
		goto bad;
	fl->pdc_id = (uint16_t)v;
	return 0;
bad:
	snprintf(err, errlen, "uet-monitor: a filter does not parse (FilterOnFepId '%s', FilterOnLocalIp '%s', "
			      "FilterOnRemoteIp '%s', FilterOnPdc '%s'); each is All or one value",
		 p->filter_fep_id, p->filter_local_ip, p->filter_remote_ip, p->filter_pdc);
	return -EINVAL;
}

struct ctl_monitor *ctl_monitor_open(const struct ctl_config *cfg, const char *dir, char *err, size_t errlen)
{
	const struct nic_params *p = &cfg->nic;
	struct ctl_monitor *m = calloc(1, sizeof(*m));
	int e;

	if (m == NULL || (m->set = calloc(MON_SET_MIN, sizeof(*m->set))) == NULL) {
		snprintf(err, errlen, "out of memory opening the uet-monitor record");
		e = ENOMEM;
		goto fail;
	}
	m->set_mask = MON_SET_MIN - 1;
	m->cfg = cfg;
	m->enable = p->monitor_enable;
	m->trig_rtt = p->trigger_rtt_enable;
	m->trig_pen = p->trigger_cwnd_pen;
	m->rtt_threshold = p->trigger_rtt_threshold;
	m->pen_threshold = p->trigger_cwnd_pen_threshold;
	m->budget = m->trig_rtt || m->trig_pen ? p->triggered_pdc_limit : 0;
	if (parse_filters(&m->flt, p, err, errlen) < 0) {
		e = EINVAL;
		goto fail;
	}
	m->all = m->enable && m->flt.any_fep && m->flt.any_lip && m->flt.any_rip && m->flt.any_pdc;
	/* The record has sim_time_ns and no time_utc column: the epoch is not used. */
	m->csv = ctl_rec_schema_open(cfg, dir, &ctl_rec_mon_schema, 0, err, errlen);
	if (m->csv == NULL) {
		e = errno;
		goto fail;
	}
	return m;
fail:
	ctl_monitor_close(m, err, errlen);
	errno = e;
	return NULL;
}

int ctl_monitor_close(struct ctl_monitor *m, char *err, size_t errlen)
{
	if (m == NULL)
		return 0;
	int rc = rec_csv_close(m->csv, err, errlen);
	free(m->set);
	free(m);
	return rc;
}

struct rec_csv *ctl_monitor_csv(const struct ctl_monitor *m)
{
	return m != NULL ? m->csv : NULL;
}
