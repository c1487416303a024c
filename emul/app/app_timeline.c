/* The run timeline: the windows from the six simulation parameters and each connection's start time. */
#include "app_timeline.h"

#include <assert.h>
#include <errno.h>
#include <string.h>

#include "emu_param.h"

static const char *const start_names[APP_START_COUNT + 1] = {
	[APP_START_SIMULTANEOUS] = "simultaneous",
	[APP_START_UNIFORM] = "uniform",
	[APP_START_SEQUENTIAL] = "sequential",
	[APP_START_COUNT] = NULL,
};

void app_timeline_defaults(struct app_timeline_params *p)
{
	p->start_time = EMU_PS_PER_MS;
	p->client_start_offset = EMU_PS_PER_MS;
	p->client_start_interval = EMU_PS_PER_MS;
	p->warm_up = 2 * EMU_PS_PER_MS;
	p->run_time = 500 * EMU_PS_PER_MS;
	p->cool_down = EMU_PS_PER_MS;
}

/* *acc += d; false when the sum passes the emulated time range (EMU_PS_MAX). */
static bool add_ps(emu_ps_t *acc, emu_ps_t d)
{
	return emu_ps_add_checked(*acc, d, acc) == 0;
}

int app_timeline_compute(const struct app_timeline_params *p, struct app_timeline *t, char *err, size_t errlen)
{
	emu_ps_t x = p->start_time;
	bool ok = true;

	t->responders_start = x;
	ok = ok && add_ps(&x, p->client_start_offset);
	t->client_start = x;
	ok = ok && add_ps(&x, p->client_start_interval);
	t->client_end = x;
	ok = ok && add_ps(&x, p->warm_up);
	t->record_start = x;
	ok = ok && add_ps(&x, p->run_time);
	t->record_end = x;
	ok = ok && add_ps(&x, p->cool_down);
	t->stop = x;
	if (!ok)
		return emu_param_fail(err, errlen, -EOVERFLOW,
				      "SimulationParameters: StartTime + ClientStartOffset + ClientStartInterval + "
				      "WarmUp + RunTime + CoolDown passes the emulated time range (2^63 ps, 106 days)");
	return 0;
}

int app_start_parse(const char *s, enum app_start *out, char *err, size_t errlen)
{
	char allowed[64];

	for (int i = 0; i < APP_START_COUNT; i++) {
		if (strcmp(s, start_names[i]) == 0) {
			*out = (enum app_start)i;
			return 0;
		}
	}
	emu_param_join(allowed, sizeof(allowed), start_names);
	return emu_param_fail(err, errlen, -EINVAL, "StartType: \"%s\" is not %s", s, allowed);
}

const char *app_start_name(int type)
{
	return type >= 0 && type < APP_START_COUNT ? start_names[type] : "unknown";
}

emu_ps_t app_conn_start(const struct app_timeline *t, enum app_start type, uint32_t idx, uint32_t count,
			struct emu_rng *rng)
{
	emu_ps_t win = t->client_end - t->client_start;

	assert(idx < count);
	assert(rng != NULL || type != APP_START_UNIFORM);
	switch (type) {
	case APP_START_UNIFORM:
		return t->client_start + emu_rng_below(rng, win);
	case APP_START_SEQUENTIAL:
		/* 128-bit product: idx x window can pass 2^64 (1,024 x 2^54 ps); the quotient is below win. */
		return t->client_start + (emu_ps_t)((unsigned __int128)idx * win / count);
	case APP_START_SIMULTANEOUS:
	case APP_START_COUNT:
	default:
		return t->client_start;
	}
}

emu_ps_t app_wqe_start(const struct app_timeline *t, emu_ps_t setup_done)
{
	return setup_done > t->client_end ? setup_done : t->client_end;
}

bool app_in_record_window(const struct app_timeline *t, emu_ps_t when)
{
	return when >= t->record_start && when <= t->record_end;
}
