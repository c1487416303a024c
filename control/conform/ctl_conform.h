/* uetemu conform: drive a UET endpoint (the device under test) on a DPDK port through a table of cases derived from
 * UET 1.0, and report pass or fail per case with the frames as evidence (docs/conform.md). */
#ifndef CTL_CONFORM_H
#define CTL_CONFORM_H

#include <signal.h>
#include <stdio.h>

/** What `uetemu conform` was asked (the option texts, checked by ctl_conform()). */
struct ctl_conform_opts {
	const char *dev;       /* --dev DEVARGS: the DPDK device the DUT is reached on */
	const char *dut_ip;    /* --dut-ip A.B.C.D */
	const char *dut_mac;   /* --dut-mac XX:..: NULL resolves it by ARP */
	const char *ip;        /* --ip A.B.C.D: the driver's own address */
	const char *mac;       /* --mac XX:..: NULL uses the port's */
	const char *out_dir;   /* --out DIR */
	const char *cases;     /* --cases a,b,c: NULL runs every case */
	const char *encap;     /* --encap udp | native: NULL is udp */
	const char *wait_ms;   /* --wait MS: how long a step waits for answers (NULL: 200) */
	int eal_argc;          /* EAL arguments after "--" */
	char **eal_argv;
	volatile sig_atomic_t *quit;
};

/**
 * Run the suite as @p o says: writes DIR/<case>.pcapng per case and DIR/conform.json, prints one line per case.
 * Returns 0 when every case passed, 1 when one failed or the suite could not run (message on stderr), 2 for a bad
 * option value.
 */
int ctl_conform(const struct ctl_conform_opts *o);

/** Print the cases, one a line: name, then what it checks. */
void ctl_conform_list(FILE *f);

#endif /* CTL_CONFORM_H */
