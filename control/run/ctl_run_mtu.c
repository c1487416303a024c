/* Real time: the frames a port's hosts send must fit the MTU of the port's link (docs/realtime.md, Checksums and
 * MTU). validate and run refuse a config whose largest data frame is longer than a port's MTU, naming the key that
 * sets the payload; at run time a frame too long for the port is dropped and counted (tx_drop_mtu, dataplane/). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ctl_run_pvt.h"

/* Frames whose IP MTU a port's kernel interface gives, read at validate time: net_af_packet binds an interface
 * that exists and keeps its MTU. net_tap and net_af_xdp are left out: their PMD sets the MTU itself when the port
 * starts (net_tap creates its interface; net_af_xdp raises the MTU to what its UMEM chunks hold). */
static bool mtu_from_kernel(const char *dev)
{
	return strncmp(dev, "net_af_packet", 13) == 0;
}

/* The iface= devarg of @p dev into @p name (@p n bytes); false when there is none. */
static bool dev_iface(const char *dev, char *name, size_t n)
{
	const char *s = strstr(dev, ",iface=");
	size_t len;

	if (s == NULL)
		return false;
	s += 7;
	len = strcspn(s, ",");
	if (len == 0 || len >= n)
		return false;
	memcpy(name, s, len);
	name[len] = '\0';
	return strchr(name, '/') == NULL && strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

/* The MTU in /sys/class/net/@p iface/mtu, 0 when it cannot be read (no such interface here). */
static uint32_t sysfs_mtu(const char *iface)
{
	char path[128];
	unsigned v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/mtu", iface);
	if ((f = fopen(path, "r")) == NULL)
		return 0;
	if (fscanf(f, "%u", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

/* The MTU port @p cp is held to at validate time, where it comes from, and how to raise it; 0 when none is known. */
static uint32_t port_mtu(const struct ctl_port *cp, char *from, size_t n, char *fix, size_t fixn)
{
	char iface[32];
	uint32_t mtu;

	if (cp->mtu != 0) {
		snprintf(from, n, "the port's mtu: %u", cp->mtu);
		snprintf(fix, fixn, "raise the port's mtu: if its link carries more");
		return cp->mtu;
	}
	if (!mtu_from_kernel(cp->dev) || !dev_iface(cp->dev, iface, sizeof(iface)) || (mtu = sysfs_mtu(iface)) == 0)
		return 0;
	snprintf(from, n, "interface %s's MTU %u (/sys/class/net/%s/mtu)", iface, mtu, iface);
	snprintf(fix, fixn, "raise the interface's MTU (ip link set dev %s mtu 9000)", iface);
	return mtu;
}

int ctl_run_mtu_check(const struct ctl_run_state *r, char *err, size_t errlen)
{
	const struct ctl_config *cfg = r->cfg;
	const char *key;
	uint32_t mss, dgram = ctl_config_nic_model(cfg)->max_datagram(cfg, &key, &mss);
	int rc = 0;

	for (uint32_t i = 0; i < cfg->n_ports; i++) {
		const struct ctl_port *cp = &cfg->ports[i];
		char from[256], fix[128];
		uint32_t mtu = port_mtu(cp, from, sizeof(from), fix, sizeof(fix));

		if (mtu == 0 || dgram <= mtu)
			continue;
		uint32_t hdrs = dgram - mss;
		if (errlen > 0 && err[0] != '\0')
			strncat(err, "\n", errlen - strlen(err) - 1);
		size_t used = strlen(err);
		snprintf(err + used, errlen - used, "%s: ports.%u (dev \"%s\"): data frames of %u B carry %u B IP "
			 "datagrams (%s %u + %u B of headers), more than %s; set %s to at most %u, or %s",
			 cfg->path, i, cp->dev, dgram + WIRE_ETH_LEN, dgram, key, mss, hdrs, from, key,
			 mtu > hdrs ? mtu - hdrs : 0, fix);
		rc = -EINVAL;
	}
	return rc;
}

void ctl_run_mtu_warn(const struct ctl_run_state *r, uint32_t i, uint32_t mtu)
{
	const char *key;
	uint32_t mss, dgram = ctl_config_nic_model(r->cfg)->max_datagram(r->cfg, &key, &mss);

	if (mtu != 0 && dgram > mtu)
		fprintf(stderr, "[uetemu] warning: port %s: MTU %u: data frames of %u B do not fit and are dropped "
			"(tx_drop_mtu); set %s to at most %u\n", r->cfg->ports[i].dev, mtu, dgram + WIRE_ETH_LEN, key,
			mtu - (dgram - mss));
}

uint32_t ctl_run_mtu_frame(const struct ctl_config *cfg)
{
	const char *key;
	uint32_t mss;

	return ctl_config_nic_model(cfg)->max_datagram(cfg, &key, &mss) + WIRE_ETH_LEN + WIRE_FCS_LEN;
}
