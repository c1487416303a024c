/* The Scala RDMA application (emul/app/app_rdma.c) on libemul alone: two hosts on one link with real NICs, no
 * config. Its connection setup over real ConnectRequest / ConnectReply / ReadyToUse frames, and the lone WQE's time
 * to the picosecond, as tests/scenario/test_rdma.py computes them from the model's parameters (docs/rdma-app.md);
 * the beacon's rows; the same setup over RoCE NICs; forged setup messages. */
#include <criterion/criterion.h>
#include <string.h>

#include "app_rdma.h"
#include "app_rig.h"
#include "app_wqe.h"

#define US EMU_PS_PER_US
#define MAX_ROWS 64

struct rdma_fx {
	struct app_rig g;
	struct app_rdma *rd;
	uint64_t n_wqe;
	emu_ps_t lat[MAX_ROWS], doorbell[MAX_ROWS];
	uint32_t n_beacon;
	emu_ps_t beacon_at[MAX_ROWS], beacon_since[MAX_ROWS];
	uint64_t beacon_tx[MAX_ROWS], beacon_rx[MAX_ROWS];
};

static void h_done(void *ctx, uint64_t cookie, emu_ps_t now)
{
	app_rdma_done(((struct rdma_fx *)ctx)->rd, cookie, now);
}

static void h_cm(void *ctx, uint32_t host, uint32_t src_ip, const struct wire_cm *cm, emu_ps_t now)
{
	app_rdma_cm(((struct rdma_fx *)ctx)->rd, host, src_ip, cm, now);
}

static void on_wqe(void *ctx, const struct app_rdma_wqe *w, emu_ps_t now)
{
	struct rdma_fx *f = ctx;

	cr_assert_eq(w->done, f->n_wqe + 1, "WQEs complete in posting order");
	cr_assert_geq(w->sent, w->done);
	if (f->n_wqe < MAX_ROWS) {
		f->lat[f->n_wqe] = now - w->doorbell;
		f->doorbell[f->n_wqe] = w->doorbell;
	}
	f->n_wqe++;
}

static void on_beacon(void *ctx, emu_ps_t since, uint64_t tx, uint64_t rx, emu_ps_t now)
{
	struct rdma_fx *f = ctx;

	cr_assert_lt(f->n_beacon, MAX_ROWS);
	f->beacon_at[f->n_beacon] = now, f->beacon_since[f->n_beacon] = since;
	f->beacon_tx[f->n_beacon] = tx, f->beacon_rx[f->n_beacon++] = rx;
}

/* configs/rdma-rack.yaml's timeline (StartTime, ClientStartOffset, ClientStartInterval 10us; WarmUp 20us, RunTime
 * 200us, CoolDown 10us: the client start window is 20..30 us, the stop 260 us), BeaconReportInterval 20us, the
 * application alone (0.5 / 0.5) on the rig's two hosts: one pair. */
static void fx_init(struct rdma_fx *f, bool roce, uint32_t max_pending)
{
	char err[256] = "";

	memset(f, 0, sizeof(*f));
	app_rig_init(&f->g, roce, &(struct app_rig_hooks){ .done = h_done, .cm = h_cm, .ctx = f });
	struct app_rdma_params p = {
		.n_hosts = 2, .host_ip = f->g.ip, .pr_initiator = APP_RATIO_ALONE, .pr_responder = APP_RATIO_ALONE,
		.num_connections = 1, .max_pending = max_pending, .start_type = APP_START_SIMULTANEOUS,
		.timeline = { .start_time = 10 * US, .client_start_offset = 10 * US, .client_start_interval = 10 * US,
			      .warm_up = 20 * US, .run_time = 200 * US, .cool_down = 10 * US },
		.beacon_interval = 20 * US, .random_seed = 18760,
	};
	struct app_rdma_cb cb = { .wqe_done = on_wqe, .beacon = on_beacon, .ctx = f };

	f->rd = app_rdma_create(&p, err, sizeof(err));
	cr_assert_not_null(f->rd, "%s", err);
	cr_assert_eq(app_rdma_place(f->rd)->n_pairs, 1);
	cr_assert_eq(app_rdma_timeline(f->rd)->stop, 260 * US);
	cr_assert_eq(app_rdma_start(f->rd, f->g.hosts, &f->g.np, &cb, err, sizeof(err)), 0, "%s", err);
}

static void fx_fini(struct rdma_fx *f)
{
	app_rdma_destroy(f->rd);
	app_rig_fini(&f->g);
}

#define PCIE_BPS (16ull * 31520000000ull) /* the NIC's PCIe link: LaneCount 16 x LaneBps 31.52 Gb/s */
#define WIRE_BPS 400000000000ull          /* DataRate */
#define DELAY_PS 100000ull                /* TransmissionMedium Delay */

/*
 * perf_metric_usec of one 250,000 B WQE alone on one idle link, in ps (test_rdma.py's lone_wqe_ps() with one link):
 * the transmit process starts 15 ns after the doorbell, issues a 64 B read request (+34 B TLP overhead) and the first
 * 4,096 B come back as 8 completions of 512 B (+34 B each); then 61 frames of 4,202 B with the base-RTT probe (62 B)
 * between them, the 144 B last packet (250 B); each packet ACKed after its PCIe service at the receiver (4,184 B
 * and 232 B datagrams), the last ACK (78 B) right behind the 61st's, crossing the link back.
 */
static emu_ps_t lone_wqe_ps(void)
{
	emu_ps_t first = 15000 + emu_ser_ps(64 + 34, PCIE_BPS) + emu_ser_ps(4096 + 8 * 34, PCIE_BPS);
	emu_ps_t left61 = first + 60 * emu_ser_ps(4202, WIRE_BPS) + emu_ser_ps(62, WIRE_BPS);
	emu_ps_t arrive61 = left61 + emu_ser_ps(4202, WIRE_BPS) + DELAY_PS;
	emu_ps_t arrive62 = arrive61 + emu_ser_ps(250, WIRE_BPS);
	emu_ps_t ack61 = arrive61 + emu_ser_ps(4096 + 88, PCIE_BPS);
	emu_ps_t a = arrive62 + emu_ser_ps(144 + 88, PCIE_BPS), b = ack61 + emu_ser_ps(78, WIRE_BPS);

	return (a > b ? a : b) + emu_ser_ps(78, WIRE_BPS) + DELAY_PS;
}

/* The request leaves at the client start window's start (20 us); request and reply each cross the link in 66 B
 * (1.32 ns) + 100 ns, and the Responder answers at once. */
#define SETUP_PS (20 * US + 2 * (1320 + DELAY_PS))

Test(app_rdma, uet_setup_reaches_ready_to_use_and_a_lone_wqe_takes_its_computed_time)
{
	struct rdma_fx f;
	struct app_rdma_pair_stats st;
	uint32_t up, est;

	fx_init(&f, false, 1);
	app_rig_run(&f.g, EMU_PS_NEVER - 1);
	app_rdma_setup_counts(f.rd, &up, &est);
	cr_assert_eq(up, 1);
	cr_assert_eq(est, 1, "the Responder has the ReadyToUse");
	app_rdma_pair_stats(f.rd, 0, &st);
	cr_assert_eq(st.setup_first, SETUP_PS, "set up at %llu ps", (unsigned long long)st.setup_first);
	cr_assert_eq(st.setup_last, SETUP_PS);
	cr_assert_eq(app_rdma_counter(f.rd, APP_RDMA_C_REQUESTS), 1);
	cr_assert_eq(app_rdma_counter(f.rd, APP_RDMA_C_REPLIES), 1);
	cr_assert_eq(app_rdma_counter(f.rd, APP_RDMA_C_READY_TO_USE), 1);
	cr_assert_eq(app_rdma_counter(f.rd, APP_RDMA_C_RETRIES) + app_rdma_counter(f.rd, APP_RDMA_C_INVALID) +
		     app_rdma_counter(f.rd, APP_RDMA_C_POST_FAILED) + app_rdma_counter(f.rd, APP_RDMA_C_SEND_FAILED), 0);
	cr_assert_gt(f.n_wqe, 10);
	cr_assert_eq(f.doorbell[0], 30 * US, "the first WQE at the client start window's end");
	for (uint64_t i = 0; i < f.n_wqe && i < MAX_ROWS; i++) {
		cr_assert_eq(f.lat[i], lone_wqe_ps(), "WQE %llu: %llu ps, computed %llu", (unsigned long long)i,
			     (unsigned long long)f.lat[i], (unsigned long long)lone_wqe_ps());
		if (i > 0)
			cr_assert_eq(f.doorbell[i], f.doorbell[i - 1] + f.lat[i - 1], "closed loop: the next at the completion");
	}
	cr_assert_eq(app_rdma_wqes_done(f.rd), f.n_wqe);
	cr_assert_eq(st.completed, f.n_wqe);
	app_rdma_finish(f.rd);
	uint64_t n;

	cr_assert_eq(app_rdma_latency(f.rd, 50, &n), lone_wqe_ps());
	cr_assert_eq(app_rdma_latency(f.rd, 100, NULL), lone_wqe_ps());
	cr_assert_eq(n * APP_WQE_BYTES, st.window_bytes, "the recording window's WQEs");
	fx_fini(&f);
}

/* Seed 003, Beacon: a row every BeaconReportInterval (20 us) up to the stop (13 rows), each over 20 us; rx_client the
 * WQEs completed by then, tx_client ahead of it by the MaxPendingWQEs outstanding once the loop runs. */
Test(app_rdma, beacon_every_interval_to_the_stop)
{
	struct rdma_fx f;

	fx_init(&f, false, 10);
	app_rig_run(&f.g, EMU_PS_NEVER - 1);
	cr_assert_eq(f.n_beacon, 13);
	for (uint32_t i = 0; i < f.n_beacon; i++) {
		cr_assert_eq(f.beacon_at[i], (i + 1) * 20 * US);
		cr_assert_eq(f.beacon_since[i], 20 * US);
		cr_assert_eq(f.beacon_tx[i], f.beacon_at[i] < 30 * US ? 0 : f.beacon_rx[i] + 10, "row %u", i);
	}
	cr_assert_eq(f.beacon_rx[12], f.n_wqe);
	fx_fini(&f);
}

/* The same setup over Scala RoCE NICs: the Initiator's end is a queue pair; its WQEs complete. */
Test(app_rdma, roce_setup_reaches_ready_to_use_and_wqes_complete)
{
	struct rdma_fx f;
	struct app_rdma_pair_stats st;
	uint32_t up, est;

	fx_init(&f, true, 2);
	app_rig_run(&f.g, EMU_PS_NEVER - 1);
	app_rdma_setup_counts(f.rd, &up, &est);
	cr_assert_eq(up, 1);
	cr_assert_eq(est, 1);
	app_rdma_pair_stats(f.rd, 0, &st);
	cr_assert_gt(st.setup_first, 20 * US);
	cr_assert_lt(st.setup_first, 30 * US);
	cr_assert_gt(f.n_wqe, 10);
	cr_assert_eq(f.doorbell[0], 30 * US);
	cr_assert_eq(f.doorbell[1], 30 * US, "MaxPendingWQEs 2: both at once");
	cr_assert_eq(app_rdma_counter(f.rd, APP_RDMA_C_INVALID) + app_rdma_counter(f.rd, APP_RDMA_C_POST_FAILED), 0);
	fx_fini(&f);
}

/* Setup messages that match no outstanding exchange are counted and change nothing (docs/security.md): a
 * ReadyToUse or a reply before any request, ids of no connection, the wrong side, a stranger's address; a flood of
 * requests draws one reply (the forged reply goes to the Initiator, which never asked: nothing is set up). */
Test(app_rdma, forged_setup_messages_are_counted_and_change_nothing)
{
	struct rdma_fx f;
	uint32_t up, est;

	fx_init(&f, false, 1);
	const struct app_pair *p = &app_rdma_place(f.rd)->pairs[0];
	uint32_t ini = p->initiator, resp = p->responder;
	struct wire_cm rtu = { .type = WIRE_CM_RTU, .local_id = 1, .remote_id = 0x80000001u };
	struct wire_cm rep = { .type = WIRE_CM_REP, .local_id = 0x80000001u, .remote_id = 1 };
	struct wire_cm req = { .type = WIRE_CM_REQ, .local_id = 1 };
	struct wire_cm bad = { .type = WIRE_CM_REQ, .local_id = 7 };

	app_rdma_cm(f.rd, resp, f.g.ip[ini], &rtu, 15 * US);  /* no reply went out */
	app_rdma_cm(f.rd, ini, f.g.ip[resp], &rep, 15 * US);  /* no request went out */
	app_rdma_cm(f.rd, resp, f.g.ip[ini], &bad, 15 * US);  /* no connection 7 */
	app_rdma_cm(f.rd, ini, f.g.ip[resp], &req, 15 * US);  /* a request to the Initiator */
	app_rdma_cm(f.rd, resp, 0x0b000001, &req, 15 * US);   /* from no host of the pair */
	app_rdma_cm(NULL, resp, f.g.ip[ini], &req, 15 * US);  /* no application: nothing */
	cr_assert_eq(app_rdma_counter(f.rd, APP_RDMA_C_INVALID), 5);
	app_rdma_setup_counts(f.rd, &up, &est);
	cr_assert_eq(up + est, 0);
	cr_assert_eq(app_rdma_counter(f.rd, APP_RDMA_C_REPLIES), 0);
	app_rdma_cm(f.rd, resp, f.g.ip[ini], &req, 5 * US);   /* a well-formed request before StartTime */
	cr_assert_eq(app_rdma_counter(f.rd, APP_RDMA_C_NOT_LISTENING), 1);
	for (int i = 0; i < 10; i++)                          /* a flood of copies in one instant: one reply */
		app_rdma_cm(f.rd, resp, f.g.ip[ini], &req, 15 * US);
	cr_assert_eq(app_rdma_counter(f.rd, APP_RDMA_C_REPLIES), 1);
	cr_assert_eq(app_rdma_counter(f.rd, APP_RDMA_C_INVALID), 5 + 9);
	/* The real setup still completes: its first request (20 us) comes within half a retry timeout of the flood's
	 * reply and draws none; the retry 100 us later does. */
	app_rig_run(&f.g, EMU_PS_NEVER - 1);
	app_rdma_setup_counts(f.rd, &up, &est);
	cr_assert_eq(up, 1);
	cr_assert_eq(est, 1);
	struct app_rdma_pair_stats st;

	app_rdma_pair_stats(f.rd, 0, &st);
	cr_assert_eq(st.setup_first, SETUP_PS + 100 * US);
	cr_assert_eq(app_rdma_counter(f.rd, APP_RDMA_C_RETRIES), 1);
	fx_fini(&f);
}
