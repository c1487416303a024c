/* The CE marker: a tc program for clsact egress. Every packet goes through a virtual queue drained at the
 * configured rate (ebpf_ecn_step() in ebpf.h); an IPv4 packet with ECT(0) or ECT(1) is set to CE with the Scala
 * Switch's RED band probability, its header checksum fixed incrementally. Not-ECT packets are never changed. The
 * program never drops or delays a packet: the queue is virtual, only the marks are real.
 * Built with clang -target bpf by meson (bpf/meson.build); loaded by uetemu-ecn (uetemu_ecn.c).
 */
#include <stddef.h>

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/pkt_cls.h>

#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "ebpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ebpf_ecn_cfg);
} ecn_cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ebpf_ecn_state);
} ecn_state SEC(".maps");

/* The first two bytes of the IPv4 header (version/IHL, then DS field), as they sit in the packet. */
union ip_w0 {
	__u16 w;
	__u8 b[2];
};

SEC("tc")
int uetemu_ecn(struct __sk_buff *skb)
{
	const __u32 ip_off = sizeof(struct ethhdr);
	struct ebpf_ecn_state *st;
	struct ebpf_ecn_cfg *cfg;
	union ip_w0 w0 = { 0 }, w1;
	int kind = EBPF_ECN_OTHER, mark;
	__u32 key = 0, rnd;
	__u64 now;

	cfg = bpf_map_lookup_elem(&ecn_cfg, &key);
	st = bpf_map_lookup_elem(&ecn_state, &key);
	if (cfg == NULL || st == NULL || cfg->rate_bps == 0)
		return TC_ACT_OK;
	if (skb->protocol == bpf_htons(ETH_P_IP) && bpf_skb_load_bytes(skb, ip_off, &w0, sizeof(w0)) == 0 &&
	    (w0.b[0] >> 4) == 4 && (w0.b[0] & 0xf) >= 5)
		kind = w0.b[1] & 3;
	/* No helper may run under the lock: read the clock and draw first. */
	now = bpf_ktime_get_ns();
	rnd = bpf_get_prandom_u32();
	bpf_spin_lock(&st->lock);
	mark = ebpf_ecn_step(cfg, st, now, skb->len, kind, rnd);
	bpf_spin_unlock(&st->lock);
	if (!mark)
		return TC_ACT_OK;
	w1 = w0;
	w1.b[1] |= 3; /* CE */
	/* RFC 1624 incremental update of the header checksum for the changed 16-bit word, then the byte itself. */
	bpf_l3_csum_replace(skb, ip_off + offsetof(struct iphdr, check), w0.w, w1.w, sizeof(w1.w));
	bpf_skb_store_bytes(skb, ip_off + 1, &w1.b[1], 1, 0);
	return TC_ACT_OK;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
