/* The run timeline of the Scala RDMA application (spec seeds/003, Run timeline and Start types): when the
 * Responders start, the client start window, the recording window, the stop time, and when each connection starts.
 *
 * Times are integer picoseconds (emu_ps_t) from the start of the run. All functions are pure; the uniform start
 * type draws from the struct emu_rng the caller passes in.
 */
#ifndef APP_TIMELINE_H
#define APP_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emu_rng.h"
#include "emu_time.h"

/** The six global simulation parameters (SimulationParameters), converted from seconds to picoseconds. */
struct app_timeline_params {
	emu_ps_t start_time;            /* StartTime, default 0.001 s */
	emu_ps_t client_start_offset;   /* ClientStartOffset, default 0.001 s */
	emu_ps_t client_start_interval; /* ClientStartInterval, default 0.001 s */
	emu_ps_t warm_up;               /* WarmUp, default 0.002 s */
	emu_ps_t run_time;              /* RunTime, default 0.5 s */
	emu_ps_t cool_down;             /* CoolDown, default 0.001 s */
};

/** The instants of a run, all derived from struct app_timeline_params. */
struct app_timeline {
	emu_ps_t responders_start; /* StartTime: Responders listen */
	emu_ps_t client_start;     /* start of the client start window: StartTime + ClientStartOffset */
	emu_ps_t client_end;       /* its end, + ClientStartInterval: no WQE is posted before it */
	emu_ps_t record_start;     /* recording window: client_end + WarmUp ... */
	emu_ps_t record_end;       /* ... lasting RunTime */
	emu_ps_t stop;             /* record_end + CoolDown: the simulation ends, outstanding WQEs unrecorded */
};

/** StartType of the Initiator: when each connection sends its connection request. */
enum app_start {
	APP_START_SIMULTANEOUS = 0, /* default: all at the start of the client start window */
	APP_START_UNIFORM,          /* each at its own uniformly random time in the window */
	APP_START_SEQUENTIAL,       /* evenly spaced across the window, the first at its start */
	APP_START_COUNT
};

/** Fill @p p with the page's defaults (0.001, 0.001, 0.001, 0.002, 0.5, 0.001 s). */
void app_timeline_defaults(struct app_timeline_params *p);

/**
 * Derive the run's instants from @p p into @p t.
 * @return 0; -EOVERFLOW with a message in @p err (size @p errlen, may be NULL) when the stop time passes the emulated
 * time range (EMU_PS_MAX, 2^63 ps).
 */
int app_timeline_compute(const struct app_timeline_params *p, struct app_timeline *t, char *err, size_t errlen);

/**
 * StartType value @p s ("simultaneous", "uniform", "sequential", exact case) into @p out.
 * @return 0; -EINVAL with a message listing the allowed values in @p err (size @p errlen, may be NULL).
 */
int app_start_parse(const char *s, enum app_start *out, char *err, size_t errlen);

/** The attribute value of @p type, or "unknown". */
const char *app_start_name(int type);

/**
 * Time connection @p idx of @p count sends its connection request under StartType @p type.
 *   simultaneous: client_start.
 *   uniform:      client_start + a draw from [0, ClientStartInterval) of @p rng (one draw per call; 0 when the
 *                 interval is 0). Call once per connection.
 *   sequential:   client_start + floor(idx x ClientStartInterval / count): count slots of equal length, one
 *                 connection at the start of each, so the first is at the window's start and the last one slot
 *                 before its end. idx and count are the connection's position among, and the number of, the
 *                 connections of its own partition (simulator process), which spaces them on its own.
 * @p rng is used only by uniform (may be NULL otherwise). @p idx must be below @p count (asserted).
 */
emu_ps_t app_conn_start(const struct app_timeline *t, enum app_start type, uint32_t idx, uint32_t count,
			struct emu_rng *rng);

/** When a connection whose setup completed at @p setup_done posts its first MaxPendingWQEs WQEs: the end of the
 * client start window, or @p setup_done if that is later. */
emu_ps_t app_wqe_start(const struct app_timeline *t, emu_ps_t setup_done);

/** Whether @p when lies in the recording window, [record_start, record_end] (both ends in, as the page's
 * "0.005 s to 0.505 s"). */
bool app_in_record_window(const struct app_timeline *t, emu_ps_t when);

#endif /* APP_TIMELINE_H */
