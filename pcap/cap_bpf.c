/*
 * BPF capture filters, compiled once by libpcap for Ethernet frames and run on each encoded frame with libpcap's
 * interpreter: the program tcpdump would run for the same expression. The only file that includes libpcap.
 */
#include "cap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <pcap/pcap.h>

struct cap_bpf {
	struct bpf_program prog;
};

int cap_bpf_compile(const char *expr, struct cap_bpf **out, char *err, size_t errlen)
{
	pcap_t *p = pcap_open_dead(DLT_EN10MB, (int)CAP_SNAPLEN_MAX);
	struct cap_bpf *f = calloc(1, sizeof(*f));
	int rc = 0;

	*out = NULL;
	if (p == NULL || f == NULL) {
		snprintf(err, errlen, "out of memory compiling a capture filter");
		rc = -ENOMEM;
	} else if (pcap_compile(p, &f->prog, expr, 1, PCAP_NETMASK_UNKNOWN) != 0) {
		snprintf(err, errlen, "%s", pcap_geterr(p));
		rc = -EINVAL;
	}
	if (p != NULL)
		pcap_close(p);
	if (rc < 0) {
		free(f);
		return rc;
	}
	*out = f;
	return 0;
}

bool cap_bpf_match(const struct cap_bpf *f, const uint8_t *frame, uint32_t caplen, uint32_t len)
{
	struct pcap_pkthdr h = { .caplen = caplen, .len = len };

	return pcap_offline_filter(&f->prog, &h, frame) != 0;
}

void cap_bpf_free(struct cap_bpf *f)
{
	if (f == NULL)
		return;
	pcap_freecode(&f->prog);
	free(f);
}
