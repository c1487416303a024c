/* Tests of the real-time preflight checks (control/run/ctl_run_preflight.c) that need no root and no EAL: a PMD
 * this DPDK build lacks, interfaces, names Linux refuses, PCI addresses, the EAL prefix lock held by another process,
 * and run's explanation replacing DPDK's message. tests/lab/test_preflight.sh runs them end to end. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctl_config.h"
#include "ctl_run.h"
#include "dp.h"

#define CFG "tests/lab/preflight.yaml"

static char err[4096];

/* Port 0 of tests/lab/preflight.yaml set to @p dev: ctl_run_preflight_port()'s return, its message in err. */
static int port_check(const char *dev)
{
	struct ctl_config cfg;
	char set[256];
	const char *sets[1] = { set };
	int rc;

	snprintf(set, sizeof(set), "ports.0.dev=%s", dev);
	rc = ctl_config_load(&cfg, CFG, sets, 1, err, sizeof(err));
	cr_assert_eq(rc, 0, "load %s with %s: %s", CFG, set, err);
	err[0] = '\0';
	rc = ctl_run_preflight_port(&cfg, 0, err, sizeof(err));
	ctl_config_free(&cfg);
	return rc;
}

Test(ctl_run_preflight, bogus_pmd_refused)
{
	if (dp_pmd_dir()[0] == '\0')
		cr_skip_test("this build has no PMD directory (no DPDK, or a static one)");
	cr_assert_eq(port_check("net_bogus0,iface=x"), -ENODEV);
	cr_assert(strstr(err, "ports.0 (dev \"net_bogus0,iface=x\"): no PMD driver for \"net_bogus0\" in this DPDK "
			      "build") != NULL, "%s", err);
}

Test(ctl_run_preflight, common_pmds_without_interfaces_pass)
{
	cr_assert_eq(port_check("net_null0"), 0, "%s", err);
	cr_assert_eq(port_check("net_ring0"), 0, "%s", err);
	cr_assert_eq(port_check("net_pcap0,rx_pcap=/dev/null,tx_pcap=/dev/null"), 0, "%s", err);
}

Test(ctl_run_preflight, missing_interface_refused)
{
	cr_assert_eq(port_check("net_af_packet0,iface=pfnosuch0"), -ENODEV);
	cr_assert(strstr(err, "interface pfnosuch0 does not exist (iface=pfnosuch0: net_af_packet attaches") != NULL,
		  "%s", err);
	cr_assert_eq(port_check("net_pcap0,rx_iface=pfnosuch1"), -ENODEV);
	cr_assert(strstr(err, "interface pfnosuch1 does not exist (rx_iface=pfnosuch1") != NULL, "%s", err);
	cr_assert_eq(port_check("net_af_xdp0"), -EINVAL);
	cr_assert(strstr(err, "net_af_xdp needs iface=") != NULL, "%s", err);
	cr_assert_eq(port_check("net_pcap0,rx_pcap=/nonexistent/x.pcap"), -ENOENT);
	cr_assert(strstr(err, "rx_pcap=/nonexistent/x.pcap: No such file or directory") != NULL, "%s", err);
}

Test(ctl_run_preflight, tap_names_checked)
{
	cr_assert_eq(port_check("net_tap0,iface=a/b"), -EINVAL);
	cr_assert(strstr(err, "net_tap iface=\"a/b\" is not an interface name Linux takes") != NULL, "%s", err);
	cr_assert_eq(port_check("net_tap0,iface=0123456789abcdef"), -EINVAL, "16 characters: %s", err);
	cr_assert_eq(port_check("net_tap0,iface=lo"), -EEXIST);
	cr_assert(strstr(err, "interface lo exists and is not a tap") != NULL, "%s", err);
	if (geteuid() == 0) /* a free name passes (no capability is missing for root) */
		cr_assert_eq(port_check("net_tap0,iface=pffree0"), 0, "%s", err);
}

Test(ctl_run_preflight, pci_address_must_exist)
{
	cr_assert_eq(port_check("0000:fe:1f.7"), -ENODEV);
	cr_assert(strstr(err, "no PCI device 0000:fe:1f.7 on this machine") != NULL, "%s", err);
}

/* The runtime directory rte_eal_init() uses for @p prefix (as root /var/run, else $XDG_RUNTIME_DIR or /tmp). */
static void runtime_dir(const char *prefix, char *dir, size_t n)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");

	snprintf(dir, n, "%s/dpdk/%s", getuid() == 0 ? "/var/run" : xdg != NULL ? xdg : "/tmp", prefix);
}

Test(ctl_run_preflight, prefix_lock_of_another_process)
{
	char prefix[64], dir[PATH_MAX - 16], path[PATH_MAX], base[PATH_MAX];
	char *argv[] = { (char *)"--no-huge", (char *)"--file-prefix", prefix, (char *)"--in-memory" };
	int ready[2], done[2];

	snprintf(prefix, sizeof(prefix), "preflight-unit-%ld", (long)getpid());
	runtime_dir(prefix, dir, sizeof(dir));
	snprintf(base, sizeof(base), "%.*s", (int)(strrchr(dir, '/') - dir), dir);
	mkdir(base, 0700);
	cr_assert(mkdir(dir, 0700) == 0 || errno == EEXIST, "%s: %s", dir, strerror(errno));
	snprintf(path, sizeof(path), "%s/config", dir);
	err[0] = '\0';
	cr_assert_eq(ctl_run_preflight_prefix(3, argv, err, sizeof(err)), 0, "no config file yet: free (%s)", err);
	cr_assert_eq(ctl_run_preflight_prefix(0, NULL, err, sizeof(err)), 0, "the default prefix is ours");

	cr_assert(pipe(ready) == 0 && pipe(done) == 0);
	pid_t child = fork();
	cr_assert(child >= 0);
	if (child == 0) { /* the holder: the lock DPDK's primary takes (rte_eal_config_create()) */
		int fd = open(path, O_RDWR | O_CREAT, 0600);
		struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_len = 64 };
		char c = fd >= 0 && fcntl(fd, F_SETLK, &fl) == 0 ? 'y' : 'n';

		if (write(ready[1], &c, 1) != 1 || read(done[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	char c = 0;

	cr_assert_eq(read(ready[0], &c, 1), 1);
	cr_assert_eq(c, 'y', "the holder took the lock");
	err[0] = '\0';
	int busy = ctl_run_preflight_prefix(3, argv, err, sizeof(err));
	char want[PATH_MAX + 200];

	snprintf(want, sizeof(want), "EAL file prefix \"%s\" is in use by process %ld (%s is locked by it)", prefix,
		 (long)child, path);
	int in_memory = ctl_run_preflight_prefix(4, argv, err + strlen(err), sizeof(err) - strlen(err));

	/* run's explanation after the EAL would not start: the same message replaces DPDK's */
	char run_err[512] = "rte_eal_init: Operation already in progress (check the EAL args)";
	int explained = ctl_run_preflight_explain(NULL, -1, 3, argv, run_err, sizeof(run_err));

	cr_assert_eq(write(done[1], "x", 1), 1);
	waitpid(child, NULL, 0);
	int after = ctl_run_preflight_prefix(3, argv, err + strlen(err), sizeof(err) - strlen(err));

	unlink(path);
	rmdir(dir);
	cr_assert_eq(busy, -EBUSY, "%s", err);
	cr_assert(strstr(err, want) != NULL, "want '%s' in '%s'", want, err);
	cr_assert_eq(in_memory, 0, "--in-memory takes no lock");
	cr_assert_eq(explained, -EBUSY);
	cr_assert(strncmp(run_err, want, strlen(want)) == 0, "run says '%s'", run_err);
	cr_assert_eq(after, 0, "free once the holder ended: %s", err);
}
