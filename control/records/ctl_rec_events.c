/* uet-events: the UET NIC's record of its PDCs and work requests, one row per event (nic.EnableEventLogging). */
#include "ctl_records.h"

#include "ctl_rec_pvt.h"

/* One row: the event and its host's name. */
struct ev_row {
	const struct nic_event *ev;
	const char *name;
};

/* local_PDC_ID (@p arg 0), remote_PDC_ID (1): ip:id. */
static void ev_pdc(const void *row, uint32_t arg, struct ctl_rec_val *v)
{
	const struct nic_event *ev = ((const struct ev_row *)row)->ev;

	v->u = arg ? ev->remote_ip : ev->local_ip;
	v->id = arg ? ev->remote_pdc : ev->local_pdc;
}

/* FEP_ID (@p arg 0); wqe_ID (1) and wqe_size_bytes (2), empty on an event of no work request. */
static void ev_u64(const void *row, uint32_t arg, struct ctl_rec_val *v)
{
	const struct nic_event *ev = ((const struct ev_row *)row)->ev;

	if (arg > 0 && !ev->has_wqe)
		v->fmt = CTL_REC_F_EMPTY;
	else
		v->u = arg == 0 ? ev->fep_id : arg == 1 ? ev->wqe_id : ev->wqe_size;
}

static void ev_type(const void *row, uint32_t arg, struct ctl_rec_val *v)
{
	(void)arg;
	v->s = nic_ev_name(((const struct ev_row *)row)->ev->type);
}

/* The columns of uet-nic-records.md, uet-events, in its order. */
static const struct ctl_rec_col ev_cols[] = {
	CTL_REC_COL_TIME_UTC,
	CTL_REC_COL_SIM_NS,
	CTL_REC_COL_STR("component_name", struct ev_row, name),
	CTL_REC_COL("FEP_ID", U64, 0, ev_u64, 0),
	CTL_REC_COL("local_PDC_ID", PDC, 0, ev_pdc, 0),
	CTL_REC_COL("remote_PDC_ID", PDC, 0, ev_pdc, 1),
	CTL_REC_COL("wqe_ID", U64, 0, ev_u64, 1),
	CTL_REC_COL("wqe_size_bytes", U64, 0, ev_u64, 2),
	CTL_REC_COL("ev_type", STR, 0, ev_type, 0),
};
const struct ctl_rec_schema ctl_rec_ev_schema = CTL_REC_SCHEMA("uet-events", ev_cols);

struct rec_csv *ctl_records_events_open(const struct ctl_config *cfg, const char *dir, int64_t epoch_s, char *err,
					size_t errlen)
{
	return ctl_rec_schema_open(cfg, dir, &ctl_rec_ev_schema, epoch_s, err, errlen);
}

void ctl_records_event(struct rec_csv *csv, const struct ctl_config *cfg, const struct nic_event *ev)
{
	if (csv == NULL)
		return;
	struct ev_row r = { .ev = ev, .name = cfg->hosts[ev->fep_id].name };

	ctl_rec_row(csv, &ctl_rec_ev_schema, &r, ev->now);
}
