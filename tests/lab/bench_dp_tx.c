/* Benchmark of the dataplane's TX copy path: 4198 B frames staged and sent on a net_null port for about 2 s. */
/*
 * 4198 B is a UET data frame with a 4096 B MSS, without FCS. net_null frees what it is given, so this measures
 * dp_tx (mbuf alloc + copy + stage) and dp_flush (tx_burst), not a wire. Prints figures only, no assertions.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "dp.h"

#define FRAME_LEN 4198
#define RUN_SECONDS 2

int main(void)
{
	char *eal[] = { "--no-huge", "--no-pci", "-m", "256", "--no-shconf", "--log-level=lib.*:warning" };
	static uint8_t frame[FRAME_LEN];
	struct dp_port_stats st;
	struct dp_ctx *dp;
	uint64_t t0, t1, hz, dropped;
	char err[256];
	double s;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (geteuid() != 0) {
		printf("SKIP: bench_dp_tx needs root\n");
		return 77;
	}
	for (size_t i = 0; i < sizeof(frame); i++)
		frame[i] = (uint8_t)i;
	dp = dp_create((int)(sizeof(eal) / sizeof(eal[0])), eal, err, sizeof(err));
	if (dp == NULL || dp_port_add(dp, "net_null0", 0, err, sizeof(err)) != 0) {
		printf("bench_dp_tx: %s\n", err);
		dp_destroy(dp);
		return 1;
	}
	hz = dp_tsc_hz();
	t0 = dp_tsc();
	do {
		/* One poll pass: a burst staged, then flushed, as the real-time loop does. */
		for (int i = 0; i < DP_BURST; i++)
			dp_tx(dp, 0, frame, sizeof(frame));
		dp_flush(dp);
		t1 = dp_tsc();
	} while (t1 - t0 < RUN_SECONDS * hz);
	dp_port_stats(dp, 0, &st);
	dp_destroy(dp);

	s = (double)(t1 - t0) / (double)hz;
	dropped = st.tx_drop_full + st.tx_drop_nombuf + st.tx_drop_toobig;
	printf("dp-tx: %d B frames on net_null, copy path, %.2f s\n", FRAME_LEN, s);
	printf("  %" PRIu64 " frames sent, %" PRIu64 " dropped\n", st.tx_frames, dropped);
	printf("  %.3f Mpps, %.2f Gb/s of frame bytes (%.1f ns/frame)\n", (double)st.tx_frames / s / 1e6,
	       (double)st.tx_bytes * 8 / s / 1e9, s * 1e9 / (double)(st.tx_frames ? st.tx_frames : 1));
	return 0;
}
