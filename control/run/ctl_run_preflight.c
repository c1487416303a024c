/* Real time: what a run would trip on before any of it starts (docs/realtime.md, Preflight checks). `uetemu
 * validate --mode realtime` and `uetemu run --mode realtime` share these checks and their messages: a port's PMD
 * exists in this DPDK build, the interface it attaches to exists, the process may open it, the EAL file prefix is
 * free; and a devarg a common PMD does not take is warned about. At run time the same text replaces what DPDK
 * said when the EAL or a port would not start (ctl_run_preflight_explain()). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctl_run.h"
#include "dp.h"

/* Linux capabilities (linux/capability.h), the bits of /proc/self/status CapEff. */
#define PF_CAP_NET_ADMIN 12
#define PF_CAP_NET_RAW 13
#define PF_CAP_SYS_ADMIN 21
#define PF_CAP_BPF 39

/* How a PMD finds the interface it works on. */
enum pf_iface {
	PF_IFACE_NONE = 0, /* none (net_null, net_ring, net_memif) */
	PF_IFACE_EXISTS,   /* iface= names an interface that must exist (net_af_packet, net_af_xdp) */
	PF_IFACE_CREATE,   /* iface= names the interface the PMD creates, or a tap of its own (net_tap, net_tun) */
	PF_IFACE_PCAP,     /* net_pcap: iface=, rx_iface=, rx_iface_in=, tx_iface= must exist; rx_pcap= must be read */
};

/*
 * The common PMDs: the devargs each takes in DPDK 22.11 (its guide, doc.dpdk.org/guides-22.11/nics/<pmd>.html,
 * and the PMD's RTE_PMD_REGISTER_PARAM_STRING), the alias the EAL also accepts, its library, what it attaches
 * to, and the capabilities it needs when the process is not root.
 */
static const struct pf_pmd {
	const char *name, *alias, *lib;
	const char *keys[12];
	enum pf_iface iface;
	const char *needs;     /* "root or ..." as said in the message; NULL: nothing */
	unsigned caps[3];      /* CapEff bits that must all be held (0 ends the list) */
	bool caps_bpf;         /* also CAP_BPF or CAP_SYS_ADMIN (an XDP program is loaded) */
} pf_pmds[] = {
	{ "net_tap", "eth_tap", "librte_net_tap.so", { "iface", "mac", "remote", "persist" }, PF_IFACE_CREATE,
	  "CAP_NET_ADMIN", { PF_CAP_NET_ADMIN }, false },
	{ "net_tun", NULL, "librte_net_tap.so", { "iface", "persist" }, PF_IFACE_CREATE, "CAP_NET_ADMIN",
	  { PF_CAP_NET_ADMIN }, false },
	{ "net_af_packet", "eth_af_packet", "librte_net_af_packet.so",
	  { "iface", "qpairs", "blocksz", "framesz", "framecnt", "qdisc_bypass" }, PF_IFACE_EXISTS, "CAP_NET_RAW",
	  { PF_CAP_NET_RAW }, false },
	{ "net_af_xdp", NULL, "librte_net_af_xdp.so",
	  { "iface", "start_queue", "queue_count", "shared_umem", "xdp_prog", "busy_budget", "force_copy" },
	  PF_IFACE_EXISTS, "CAP_NET_RAW, CAP_NET_ADMIN and CAP_BPF", { PF_CAP_NET_RAW, PF_CAP_NET_ADMIN }, true },
	{ "net_pcap", "eth_pcap", "librte_net_pcap.so",
	  { "rx_pcap", "tx_pcap", "rx_iface", "rx_iface_in", "tx_iface", "iface", "phy_mac", "infinite_rx" },
	  PF_IFACE_PCAP, "CAP_NET_RAW", { PF_CAP_NET_RAW }, false },
	{ "net_memif", NULL, "librte_net_memif.so",
	  { "id", "role", "bsize", "rsize", "socket", "socket-abstract", "mac", "zero-copy", "secret" }, PF_IFACE_NONE,
	  NULL, { 0 }, false },
	{ "net_null", "eth_null", "librte_net_null.so", { "size", "copy", "no-rx" }, PF_IFACE_NONE, NULL, { 0 }, false },
	{ "net_ring", "eth_ring", "librte_net_ring.so", { "nodeaction", "internal" }, PF_IFACE_NONE, NULL, { 0 },
	  false },
};

#define PF_N_PMDS (sizeof(pf_pmds) / sizeof(pf_pmds[0]))

/* Append one line to @p err (lines separated by '\n'). */
static void pf_line(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void pf_line(char *err, size_t errlen, const char *fmt, ...)
{
	size_t used = strnlen(err, errlen);
	va_list ap;

	if (errlen == 0 || used + 1 >= errlen)
		return;
	if (used > 0) {
		err[used++] = '\n';
		err[used] = '\0';
	}
	va_start(ap, fmt);
	vsnprintf(err + used, errlen - used, fmt, ap);
	va_end(ap);
}

/* The device name of @p dev (up to the first comma) into @p name; false when it is empty or too long. */
static bool pf_devname(const char *dev, char *name, size_t n)
{
	size_t len = strcspn(dev, ",");

	if (len == 0 || len >= n)
		return false;
	memcpy(name, dev, len);
	name[len] = '\0';
	return true;
}

/* Whether @p name is a PCI address, "DDDD:BB:DD.F" or "BB:DD.F" (the EAL's PCI bus takes both). */
static bool pf_is_pci(const char *name)
{
	unsigned d, b, s, f;
	char tail;

	return sscanf(name, "%4x:%2x:%2x.%1x%c", &d, &b, &s, &f, &tail) == 4 ||
	       sscanf(name, "%2x:%2x.%1x%c", &b, &s, &f, &tail) == 3;
}

/* The table's PMD a device named @p name belongs to: the vdev bus matches a driver whose name (or alias) the
 * device name starts with ("net_tap0" is net_tap's); the longest such name wins. NULL for none. */
static const struct pf_pmd *pf_pmd_of(const char *name)
{
	const struct pf_pmd *best = NULL;
	size_t best_len = 0;

	for (size_t i = 0; i < PF_N_PMDS; i++) {
		const char *cand[2] = { pf_pmds[i].name, pf_pmds[i].alias };

		for (int k = 0; k < 2; k++) {
			size_t len = cand[k] != NULL ? strlen(cand[k]) : 0;

			if (len > best_len && strncmp(name, cand[k], len) == 0) {
				best = &pf_pmds[i];
				best_len = len;
			}
		}
	}
	return best;
}

/*
 * Whether the library image @p m (@p size bytes) registers a PMD whose name @p name starts with: each PMD library
 * holds a "PMD_INFO_STRING= {"name": "net_xxx", ..." line (what dpdk-pmdinfo.py reads). An "eth_" device name also
 * matches the "net_" driver of the same name, and any alias string of the library
 * (RTE_PMD_REGISTER_ALIAS(net_bonding, eth_bond) leaves "eth_bond" in it).
 */
static bool pf_lib_registers(const char *m, size_t size, const char *name)
{
	static const char tag[] = "PMD_INFO_STRING= {\"name\": \"";
	const char *end = m + size, *p = m;
	bool eth = strncmp(name, "eth_", 4) == 0;

	while ((p = memmem(p, (size_t)(end - p), tag, sizeof(tag) - 1)) != NULL) {
		const char *drv = p + sizeof(tag) - 1;
		size_t len = 0;

		while (drv + len < end && drv[len] != '"')
			len++;
		if (len > 4 && (strncmp(name, drv, len) == 0 || (eth && strncmp(name + 4, drv + 4, len - 4) == 0)))
			return true;
		p = drv;
	}
	for (p = m; eth && (p = memmem(p, (size_t)(end - p), "\0eth_", 5)) != NULL; p += 5) {
		size_t len = strnlen(p + 1, (size_t)(end - p - 1));

		if (len > 4 && strncmp(name, p + 1, len) == 0)
			return true;
	}
	return false;
}

/* Whether a library of @p dir (librte_*.so) registers a PMD for the device name @p name (pf_lib_registers()).
 * 1 found, 0 not, -errno when the directory cannot be read. */
static int pf_pmd_in_dir(const char *dir, const char *name)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int found = 0;

	if (d == NULL)
		return -errno;
	while (!found && (e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name);
		char path[PATH_MAX];
		struct stat st;
		int fd;

		if (n < 3 || strcmp(e->d_name + n - 3, ".so") != 0 || strncmp(e->d_name, "librte_", 7) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		if (fstat(fd, &st) == 0 && st.st_size > 0) {
			void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);

			if (map != MAP_FAILED) {
				found = pf_lib_registers(map, (size_t)st.st_size, name);
				munmap(map, (size_t)st.st_size);
			}
		}
		close(fd);
	}
	closedir(d);
	return found;
}

/* The capabilities in effect (CapEff of /proc/self/status); all of them for root when it cannot be read. */
static uint64_t pf_caps(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	uint64_t caps = geteuid() == 0 ? ~0ull : 0;

	if (f == NULL)
		return caps;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "CapEff:", 7) == 0)
			caps = strtoull(line + 7, NULL, 16);
	fclose(f);
	return caps;
}

/* The value of devarg @p key of @p dev into @p val (@p n bytes); false when @p dev does not give it. */
static bool pf_devarg(const char *dev, const char *key, char *val, size_t n)
{
	size_t klen = strlen(key);

	for (const char *s = strchr(dev, ','); s != NULL; s = strchr(s + 1, ',')) {
		if (strncmp(s + 1, key, klen) != 0 || s[1 + klen] != '=')
			continue;
		const char *v = s + 2 + klen;
		size_t len = strcspn(v, ",");

		if (len >= n)
			len = n - 1;
		memcpy(val, v, len);
		val[len] = '\0';
		return true;
	}
	return false;
}

/* Whether @p name is an interface name Linux takes (dev_valid_name()): 1 to 15 characters, not "." or "..", no
 * '/', ':' or white space. */
static bool pf_ifname_valid(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n >= IFNAMSIZ || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (name[i] == '/' || name[i] == ':' || isspace((unsigned char)name[i]))
			return false;
	return true;
}

/* The kernel driver of interface @p name ("tun" for a tap or tun device, "veth", ...) into @p drv, read with
 * ETHTOOL_GDRVINFO in this network namespace (no privilege needed); "" when it does not say. */
static void pf_if_driver(const char *name, char *drv, size_t n)
{
	struct ethtool_drvinfo info = { .cmd = ETHTOOL_GDRVINFO };
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	drv[0] = '\0';
	if (fd < 0)
		return;
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, name, strnlen(name, IFNAMSIZ - 1)); /* a valid name: under IFNAMSIZ */
	ifr.ifr_data = (void *)&info;
	if (ioctl(fd, SIOCETHTOOL, &ifr) == 0)
		snprintf(drv, n, "%.*s", (int)sizeof(info.driver), info.driver);
	close(fd);
}

/* Whether interface @p name is up with its carrier on: for a tap, a process has it open (tun turns the carrier on
 * when a queue is attached); a tap that is down does not say. */
static bool pf_if_running(const char *name)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	bool up = false;

	if (fd < 0)
		return false;
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, name, strnlen(name, IFNAMSIZ - 1));
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) == 0)
		up = (ifr.ifr_flags & IFF_UP) && (ifr.ifr_flags & IFF_RUNNING);
	close(fd);
	return up;
}

/* The interfaces port @p dev of PMD @p pmd attaches to: each must exist (or, for a PMD that creates its own,
 * be a valid name that is free or a tap no process holds). 0, or -errno with a line in @p err. */
static int pf_check_ifaces(const char *where, const char *dev, const struct pf_pmd *pmd, char *err, size_t errlen)
{
	static const char *const pcap_keys[] = { "iface", "rx_iface", "rx_iface_in", "tx_iface" };
	char name[256], drv[40];
	int rc = 0;

	if (pmd->iface == PF_IFACE_CREATE) {
		if (!pf_devarg(dev, "iface", name, sizeof(name)))
			return 0; /* the PMD names it dtapN */
		if (!pf_ifname_valid(name)) {
			pf_line(err, errlen, "%s: %s iface=\"%s\" is not an interface name Linux takes (1 to 15 "
				"characters, no '/', ':' or space)", where, pmd->name, name);
			return -EINVAL;
		}
		if (if_nametoindex(name) == 0)
			return 0; /* free: the PMD creates it */
		pf_if_driver(name, drv, sizeof(drv));
		if (strcmp(drv, "tun") != 0) {
			pf_line(err, errlen, "%s: interface %s exists and is not a tap%s%s%s: %s creates its own "
				"interface; give iface= a name no interface has", where, name, drv[0] ? " (its driver: " : "",
				drv, drv[0] ? ")" : "", pmd->name);
			return -EEXIST;
		}
		if (pf_if_running(name)) {
			pf_line(err, errlen, "%s: tap %s is held by another process (it is up with its carrier on): %s "
				"cannot attach to it; stop that process, or give iface= another name", where, name,
				pmd->name);
			return -EBUSY;
		}
		return 0; /* a tap nobody holds (a persistent one): the PMD attaches to it */
	}
	for (size_t k = 0; k < (pmd->iface == PF_IFACE_PCAP ? 4 : 1); k++) {
		const char *key = pmd->iface == PF_IFACE_PCAP ? pcap_keys[k] : "iface";

		if (!pf_devarg(dev, key, name, sizeof(name)))
			continue;
		if (pf_ifname_valid(name) && if_nametoindex(name) != 0)
			continue;
		pf_line(err, errlen, "%s: interface %s does not exist (%s=%s: %s attaches to an existing interface; "
			"'ip link' lists them, in this network namespace)", where, name, key, name, pmd->name);
		rc = -ENODEV;
	}
	if (pmd->iface == PF_IFACE_EXISTS && rc == 0 && !pf_devarg(dev, "iface", name, sizeof(name))) {
		pf_line(err, errlen, "%s: %s needs iface=, the interface it attaches to (e.g. %s0,iface=eth1)", where,
			pmd->name, pmd->name);
		rc = -EINVAL;
	}
	if (pmd->iface == PF_IFACE_PCAP && pf_devarg(dev, "rx_pcap", name, sizeof(name)) &&
	    access(name, R_OK) != 0) {
		pf_line(err, errlen, "%s: rx_pcap=%s: %s (net_pcap replays that capture)", where, name, strerror(errno));
		rc = -ENOENT;
	}
	return rc;
}

/* Whether the process holds what @p pmd needs to open port @p dev (root, or its capabilities). */
static int pf_check_privs(const char *where, const char *dev, const struct pf_pmd *pmd, char *err, size_t errlen)
{
	uint64_t caps = pf_caps();
	char v[8];
	bool ok = true;

	if (pmd->needs == NULL)
		return 0;
	/* net_pcap opens a live interface only with one of its iface keys; capture files need nothing */
	if (pmd->iface == PF_IFACE_PCAP && !pf_devarg(dev, "iface", v, sizeof(v)) &&
	    !pf_devarg(dev, "rx_iface", v, sizeof(v)) && !pf_devarg(dev, "rx_iface_in", v, sizeof(v)) &&
	    !pf_devarg(dev, "tx_iface", v, sizeof(v)))
		return 0;
	for (int k = 0; k < 3 && pmd->caps[k] != 0; k++)
		ok = ok && (caps >> pmd->caps[k] & 1);
	if (pmd->caps_bpf)
		ok = ok && ((caps >> PF_CAP_BPF & 1) || (caps >> PF_CAP_SYS_ADMIN & 1));
	if (ok)
		return 0;
	pf_line(err, errlen, "%s: %s needs root or %s (uetemu runs as uid %u without it): run it with sudo, or give "
		"the binary the capabilities (setcap %s+ep uetemu)", where, pmd->name, pmd->needs, (unsigned)geteuid(),
		pmd->caps_bpf ? "cap_net_raw,cap_net_admin,cap_bpf"
		: pmd->caps[0] == PF_CAP_NET_RAW ? "cap_net_raw" : "cap_net_admin");
	return -EPERM;
}

/* The PMD of port @p dev exists in this build: the table's library is in the PMD directory, or some library
 * there registers a driver the device name starts with. 0, or -ENODEV with a line in @p err. */
static int pf_check_driver(const char *where, const char *name, const struct pf_pmd *pmd, char *err,
			   size_t errlen)
{
	const char *dir = dp_pmd_dir();
	char path[PATH_MAX];

	if (dir[0] == '\0')
		return 0; /* drivers linked in, or no DPDK: nothing here says which exist */
	if (pmd != NULL) {
		snprintf(path, sizeof(path), "%s/%s", dir, pmd->lib);
		if (access(path, R_OK) == 0)
			return 0;
	} else if (pf_pmd_in_dir(dir, name) != 0) {
		return 0; /* found, or the directory cannot be read: then the EAL says */
	}
	pf_line(err, errlen, "%s: no PMD driver for \"%s\" in this DPDK build (its drivers are in %s); the common ones: "
		"net_af_packet, net_af_xdp, net_tap, net_pcap, net_memif, net_null, net_ring, or a PCI address", where,
		pmd != NULL ? pmd->name : name, dir);
	return -ENODEV;
}

int ctl_run_preflight_port(const struct ctl_config *cfg, uint32_t i, char *err, size_t errlen)
{
	char where[PATH_MAX + CTL_DEV_MAX + 32];

	snprintf(where, sizeof(where), "%s: ports.%u (dev \"%s\")", cfg->path, i, cfg->ports[i].dev);
	return ctl_run_preflight_dev(where, cfg->ports[i].dev, err, errlen);
}

int ctl_run_preflight_dev(const char *where, const char *dev, char *err, size_t errlen)
{
	char name[64], path[96];
	const struct pf_pmd *pmd;
	int rc;

	if (!pf_devname(dev, name, sizeof(name))) {
		pf_line(err, errlen, "%s: no device name (1 to 63 characters) before the first ',' (e.g. "
			"net_tap0,iface=uet0)", where);
		return -EINVAL;
	}
	if (pf_is_pci(name)) {
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s%s", strlen(name) < 10 ? "0000:" : "", name);
		if (access(path, F_OK) == 0)
			return 0;
		pf_line(err, errlen, "%s: no PCI device %s on this machine (lspci -D lists them)", where, name);
		return -ENODEV;
	}
	pmd = pf_pmd_of(name);
	if ((rc = pf_check_driver(where, name, pmd, err, errlen)) < 0 || pmd == NULL)
		return rc;
	if ((rc = pf_check_ifaces(where, dev, pmd, err, errlen)) < 0)
		return rc;
	return pf_check_privs(where, dev, pmd, err, errlen);
}

void ctl_run_preflight_warn(const struct ctl_config *cfg, uint32_t i, const char *prefix)
{
	const char *dev = cfg->ports[i].dev;
	char name[64];
	const struct pf_pmd *pmd = pf_devname(dev, name, sizeof(name)) ? pf_pmd_of(name) : NULL;

	if (pmd == NULL)
		return;
	for (const char *s = strchr(dev, ','); s != NULL; s = strchr(s + 1, ',')) {
		size_t len = strcspn(s + 1, ",=");
		bool known = false;

		for (int k = 0; k < 12 && pmd->keys[k] != NULL && !known; k++)
			known = strlen(pmd->keys[k]) == len && strncmp(pmd->keys[k], s + 1, len) == 0;
		if (known || len == 0)
			continue;
		fprintf(stderr, "%swarning: %s: ports.%u (dev \"%s\"): %s takes no devarg \"%.*s\" (DPDK 22.11's %s "
			"takes:", prefix, cfg->path, i, dev, pmd->name, (int)len, s + 1, pmd->name);
		for (int k = 0; k < 12 && pmd->keys[k] != NULL; k++)
			fprintf(stderr, "%s %s", k ? "," : "", pmd->keys[k]);
		fprintf(stderr, "); %s\n", pmd->iface == PF_IFACE_CREATE
			? "net_tap then ignores every devarg and creates a dtapN interface of its own"
			: "check its spelling: the PMD refuses or ignores it");
	}
}

/*
 * The EAL's runtime directory for @p prefix, as rte_eal_init() makes it (eal_create_runtime_dir()): under
 * /var/run for root, else $XDG_RUNTIME_DIR, else /tmp; then dpdk/PREFIX.
 */
static void pf_runtime_dir(const char *prefix, char *dir, size_t n)
{
	const char *base = "/var/run", *xdg = getenv("XDG_RUNTIME_DIR");

	if (getuid() != 0)
		base = xdg != NULL ? xdg : "/tmp";
	snprintf(dir, n, "%s/dpdk/%s", base, prefix);
}

int ctl_run_preflight_prefix(int eal_argc, char **eal_argv, char *err, size_t errlen)
{
	char dir[PATH_MAX - 16], path[PATH_MAX], me[32];
	const char *prefix = NULL;
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int fd;

	for (int k = 0; k < eal_argc; k++) {
		const char *a = eal_argv[k];

		if (strcmp(a, "--in-memory") == 0 || strcmp(a, "--no-shconf") == 0)
			return 0; /* no shared config, no lock: prefixes do not collide */
		if (strcmp(a, "--file-prefix") == 0 && k + 1 < eal_argc)
			prefix = eal_argv[++k];
		else if (strncmp(a, "--file-prefix=", 14) == 0)
			prefix = a + 14;
	}
	if (prefix == NULL)
		return 0; /* the default, uetemu-<pid>, is this process's own */
	pf_runtime_dir(prefix, dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/config", dir);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0; /* no EAL has started with it (or it left nothing): free */
	int got = fcntl(fd, F_GETLK, &fl);

	close(fd);
	if (got < 0 || fl.l_type == F_UNLCK)
		return 0;
	snprintf(me, sizeof(me), "%ld", (long)fl.l_pid);
	pf_line(err, errlen, "EAL file prefix \"%s\" is in use by process %s (%s is locked by it): another uetemu or "
		"DPDK program runs with --file-prefix %s; stop it, or give this run another --file-prefix", prefix,
		fl.l_pid > 0 ? me : "unknown", path, prefix);
	return -EBUSY;
}

int ctl_run_preflight(const struct ctl_config *cfg, int eal_argc, char **eal_argv, const char *prefix, char *err,
		      size_t errlen)
{
	int rc = ctl_run_preflight_prefix(eal_argc, eal_argv, err, errlen);

	for (uint32_t i = 0; i < cfg->n_ports; i++) {
		int e = ctl_run_preflight_port(cfg, i, err, errlen);

		ctl_run_preflight_warn(cfg, i, prefix);
		rc = rc < 0 ? rc : e;
	}
	return rc;
}

int ctl_run_preflight_explain(const struct ctl_config *cfg, int port, int eal_argc, char **eal_argv, char *err,
			      size_t errlen)
{
	char why[2048] = "";
	int rc = port < 0 ? ctl_run_preflight_prefix(eal_argc, eal_argv, why, sizeof(why))
			  : ctl_run_preflight_port(cfg, (uint32_t)port, why, sizeof(why));

	if (rc < 0) /* the plain reason replaces DPDK's ("probe failed: Bad address") */
		snprintf(err, errlen, "%s", why);
	return rc;
}
