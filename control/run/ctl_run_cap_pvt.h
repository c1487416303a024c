/* The captures of a run (ctl_run_cap.c): opened from the config, attached to links and ports, closed. */
#ifndef CTL_RUN_CAP_PVT_H
#define CTL_RUN_CAP_PVT_H

#include "ctl_run_pvt.h"

/* ctl_run_cap.c */
/** The captures' rules that need the mode and the links (a dev capture in real time only, at most 8 per link),
 *  each broken one a line of @p err. 0 or -EINVAL. */
int ctl_run_caps_check(const struct ctl_run_state *r, char *err, size_t errlen);
/** Open every capture of the config and attach it to its link or DPDK port. 0 or -errno with @p err. */
int ctl_run_caps_open(struct ctl_run_state *r, char *err, size_t errlen);
/** The wall-clock time, ns since 1970, that stamps emulated time 0 in the captures without an epoch of their own. */
void ctl_run_caps_epoch(struct ctl_run_state *r, int64_t epoch_ns);
/** Real time, once the ports are up: the wall-clock epoch of the captures, and the rte_pdump server. */
void ctl_run_caps_rt_start(struct ctl_run_state *r);
/** Real time, before the EAL goes: stop the rte_pdump server. */
void ctl_run_caps_rt_stop(struct ctl_run_state *r);
/** A frame crossing the DPDK port of @p x (@p rx: received), to the port's capture if it has one: through the
 *  ring of the lcore polling the port to the writer. */
void ctl_run_cap_port(struct ctl_ext *x, const uint8_t *frame, size_t len, bool rx, emu_ps_t emu);
/** The writer's side: write the frame to port @p port's capture, stamped @p at (wall clock as emulated time). */
void ctl_run_cap_port_write(struct ctl_run_state *r, uint32_t port, const uint8_t *frame, size_t len, bool rx,
			    emu_ps_t emu, emu_ps_t at);
/** Close every capture, keeping its statistics; the first failure named in @p err. 0 or -errno. */
int ctl_run_caps_close(struct ctl_run_state *r, char *err, size_t errlen);
/** The captures' wall-clock epoch (ns since 1970 at emulated time 0; 0 before ctl_run_caps_epoch()). */
int64_t ctl_run_caps_epoch_ns(const struct ctl_run_state *r);
/** Whether ports[] entry @p port has a capture (dev:). */
bool ctl_run_cap_port_on(const struct ctl_run_state *r, uint32_t port);
/** The writer's side of a link capture's taps: frame @p pkt on direction @p dir of capture @p cap, at @p now;
 *  lost there (a fault, a fixture) under @p reason. */
void ctl_run_cap_link_write(struct ctl_run_state *r, uint32_t cap, uint32_t dir, const struct wire_pkt *pkt,
			    emu_ps_t now);
void ctl_run_cap_drop_write(struct ctl_run_state *r, uint32_t cap, uint32_t dir, const struct wire_pkt *pkt,
			    emu_ps_t now, int reason);
/** Close whatever capture is still open (no statistics) and free the capture state. */
void ctl_run_caps_free(struct ctl_run_state *r);

#endif /* CTL_RUN_CAP_PVT_H */
