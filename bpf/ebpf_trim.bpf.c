/* The trimmer: a tc program for clsact egress, the CE marker's sibling (a trimming switch, UET 1.0 spec 1.6). Every
 * packet goes through a virtual queue drained at the configured rate (ebpf_trim_step() in ebpf.h); a UET data
 * packet (IPv4 UDP to the UET port, or IPv4 protocol 253) with the trimmable DSCP that would take the queue above
 * the threshold is cut to MIN_TRIM_SIZE: its IPv4 header, the UDP header (or the 4-byte entropy header) and the
 * first 16 bytes of UET, the largest PDS request header. The IPv4 total length and header checksum are rewritten,
 * the DSCP set to DSCP_TRIMMED (ECN and TTL carried through), the UDP length rewritten and its checksum set to 0
 * ("not computed"). Every other packet passes unchanged; none is dropped or delayed.
 * Built with clang -target bpf by meson (bpf/meson.build); loaded by uetemu-trim (uetemu_trim.c).
 */
#include <stddef.h>

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/pkt_cls.h>
#include <linux/udp.h>

#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "ebpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ebpf_trim_cfg);
} trim_cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ebpf_trim_state);
} trim_state SEC(".maps");

/* The first four bytes of the IPv4 header (version/IHL, DS field, total length), as they sit in the packet. */
union ip_w0 {
	__u32 w;
	__u8 b[4];
};

SEC("tc")
int uetemu_trim(struct __sk_buff *skb)
{
	const __u32 ip_off = sizeof(struct ethhdr);
	struct ebpf_trim_state *st;
	struct ebpf_trim_cfg *cfg;
	struct iphdr ip;
	union ip_w0 w0, w1;
	__u32 key = 0, l4 = 0, trim_len = 0, ip_len = 0, len = skb->len;
	__u16 dport = 0;
	int trim;
	__u64 now;

	cfg = bpf_map_lookup_elem(&trim_cfg, &key);
	st = bpf_map_lookup_elem(&trim_state, &key);
	if (cfg == NULL || st == NULL || cfg->rate_bps == 0)
		return TC_ACT_OK;
	if (skb->protocol == bpf_htons(ETH_P_IP) && bpf_skb_load_bytes(skb, ip_off, &ip, sizeof(ip)) == 0 &&
	    ip.version == 4 && ip.ihl == 5 && (ip.frag_off & bpf_htons(0x3fff)) == 0) {
		if (ip.protocol == IPPROTO_UDP &&
		    bpf_skb_load_bytes(skb, ip_off + sizeof(ip) + offsetof(struct udphdr, dest), &dport, 2) == 0 &&
		    dport == bpf_htons(cfg->uet_port))
			l4 = sizeof(struct udphdr);
		else if (ip.protocol == EBPF_IPPROTO_UET)
			l4 = 4; /* the entropy header */
		ip_len = sizeof(ip) + l4 + EBPF_TRIM_UET_BYTES;
		if (l4 > 0 && (ip.tos >> 2) == cfg->dscp_trimmable && bpf_ntohs(ip.tot_len) > ip_len &&
		    skb->gso_size == 0)
			trim_len = ip_off + ip_len;
	}
	now = bpf_ktime_get_ns();
	bpf_spin_lock(&st->lock);
	if (l4 > 0)
		st->uet++;
	trim = ebpf_trim_step(cfg, st, now, len, trim_len);
	if (trim)
		st->trimmed_bytes += len - trim_len;
	bpf_spin_unlock(&st->lock);
	if (!trim)
		return TC_ACT_OK;
	if (bpf_skb_change_tail(skb, trim_len, 0) != 0 || bpf_skb_load_bytes(skb, ip_off, &w0, sizeof(w0)) != 0) {
		bpf_spin_lock(&st->lock);
		st->trimmed--;
		st->trimmed_bytes -= len - trim_len;
		st->trim_failed++;
		bpf_spin_unlock(&st->lock);
		return TC_ACT_OK;
	}
	w1 = w0;
	w1.b[1] = (__u8)((cfg->dscp_trimmed << 2) | (w0.b[1] & 3)); /* DSCP_TRIMMED, the ECN field as it was */
	w1.b[2] = (__u8)(ip_len >> 8);
	w1.b[3] = (__u8)ip_len;
	bpf_l3_csum_replace(skb, ip_off + offsetof(struct iphdr, check), w0.w, w1.w, sizeof(w1.w));
	bpf_skb_store_bytes(skb, ip_off, &w1, sizeof(w1), 0);
	if (l4 == sizeof(struct udphdr)) { /* UDP length, checksum 0 */
		__u16 ul[2] = { bpf_htons((__u16)(sizeof(struct udphdr) + EBPF_TRIM_UET_BYTES)), 0 };
		bpf_skb_store_bytes(skb, ip_off + sizeof(ip) + offsetof(struct udphdr, len), ul, sizeof(ul), 0);
	}
	return TC_ACT_OK;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
