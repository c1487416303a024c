/* The scheduler between egress classes, shared by the two NIC models (port_sched.h). */
#include "port_sched.h"

#include "port_params.h"

static int strict(uint32_t n, uint32_t ready)
{
	for (int tc = (int)n - 1; tc >= 0; tc--)
		if (ready & (1u << tc))
			return tc;
	return -1;
}

static int round_robin(struct port_sched *s, uint32_t n, uint32_t ready)
{
	uint32_t cur = s->next % n;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t tc = (cur + i) % n;

		if (ready & (1u << tc)) {
			s->next = tc + 1;
			return (int)tc;
		}
	}
	return -1;
}

static int weighted(struct port_sched *s, const uint32_t *w, uint32_t n, uint32_t ready)
{
	uint32_t cur = s->next % n;

	if ((ready & (1u << cur)) && s->sent < w[cur]) {
		s->sent++;
		return (int)cur;
	}
	for (uint32_t i = 1; i <= n; i++) {
		uint32_t tc = (cur + i) % n;

		if (ready & (1u << tc)) {
			s->next = tc;
			s->sent = 1;
			return (int)tc;
		}
	}
	return -1;
}

int port_sched_pick(struct port_sched *s, uint8_t type, const uint32_t *wrr_weights, uint32_t n, uint32_t ready)
{
	if (type == PORT_QSCHED_STRICT)
		return strict(n, ready);
	if (type == PORT_QSCHED_RR)
		return round_robin(s, n, ready);
	return weighted(s, wrr_weights, n, ready);
}
