/* The nic and switch sections: the Scala UET NIC's and the Scala Switch's typedParameters, walked against their
 * attribute tables (nic_params.c, sw_params.c) by ctl_walk_params(). */
#include "ctl_yaml_pvt.h"
#include "nic_params.h"
#include "sw_params.h"

static const char *const *nic_path(unsigned r)
{
	return nic_param_table[r].path;
}

static const char *nic_def(unsigned r)
{
	return nic_param_table[r].def;
}

static bool nic_ro(unsigned r)
{
	return nic_param_table[r].readonly;
}

static bool nic_list(unsigned r)
{
	return port_param_is_list(&nic_param_table[r]);
}

static int nic_set(void *p, unsigned r, const char *text, char *err, size_t len)
{
	return port_param_set(p, &nic_param_table[r], text, err, len);
}

static int nic_set_list(void *p, unsigned r, const char *const *items, int n, int *bad, char *err, size_t len)
{
	return port_param_set_list(p, &nic_param_table[r], items, n, bad, err, len);
}

static int nic_check(const void *p, int *why, char *err, size_t len)
{
	const struct port_param_def *w[PORT_CHECK_WHY_MAX] = { 0 };
	int rc = nic_params_check(p, w, err, len);

	for (int i = 0; i < PORT_CHECK_WHY_MAX && i < CTL_PTABLE_WHY_MAX; i++)
		why[i] = w[i] != NULL ? (int)(w[i] - nic_param_table) : -1;
	return rc;
}

int ctl_sec_nic(struct ctl_ctx *c, const struct ctl_ynode *v, struct ctl_config *cfg)
{
	static const struct ctl_ptable t = {
		.root = "nic", .depth = PORT_PARAM_DEPTH, .path = nic_path, .def = nic_def, .readonly = nic_ro,
		.is_list = nic_list, .set = nic_set, .set_list = nic_set_list, .check = nic_check,
	};
	struct ctl_ptable tt = t;

	tt.count = nic_param_count;
	return ctl_walk_params(c, v, &tt, &cfg->nic);
}

static const char *const *sw_path(unsigned r)
{
	return sw_param_table[r].path;
}

static const char *sw_def(unsigned r)
{
	return sw_param_table[r].def;
}

static bool sw_list(unsigned r)
{
	return sw_param_is_list(&sw_param_table[r]);
}

static int sw_set(void *p, unsigned r, const char *text, char *err, size_t len)
{
	return sw_param_set(p, &sw_param_table[r], text, err, len);
}

static int sw_set_list(void *p, unsigned r, const char *const *items, int n, int *bad, char *err, size_t len)
{
	return sw_param_set_list(p, &sw_param_table[r], items, n, bad, err, len);
}

static int sw_check(const void *p, int *why, char *err, size_t len)
{
	const struct sw_param_def *w[SW_CHECK_WHY_MAX] = { 0 };
	int rc = sw_params_check(p, w, err, len);

	for (int i = 0; i < SW_CHECK_WHY_MAX && i < CTL_PTABLE_WHY_MAX; i++)
		why[i] = w[i] != NULL ? (int)(w[i] - sw_param_table) : -1;
	return rc;
}

int ctl_sec_switch(struct ctl_ctx *c, const struct ctl_ynode *v, struct ctl_config *cfg)
{
	static const struct ctl_ptable t = {
		.root = "switch", .depth = SW_PARAM_DEPTH, .path = sw_path, .def = sw_def, .readonly = NULL,
		.is_list = sw_list, .set = sw_set, .set_list = sw_set_list, .check = sw_check,
	};
	struct ctl_ptable tt = t;

	tt.count = sw_param_count;
	return ctl_walk_params(c, v, &tt, &cfg->sw);
}
