/* XDP steering for a net_af_xdp port: the frames uetemu's emulated hosts need go to the AF_XDP socket of the RX
 * queue they arrived on; every other frame goes to the kernel (XDP_PASS), so a machine keeps its own traffic (ssh,
 * a ping to its address, ARP for it) on the same NIC. Redirected: IPv4 UDP to the UET port and to the connection
 * setup port, IPv4 protocol 253, MAC control frames (PFC), and ARP and ICMP whose target or destination IPv4
 * address is an emulated host's (map steer_hosts). One 802.1Q tag is looked through.
 * DPDK 22.11's net_af_xdp PMD loads this object itself (devarg xdp_prog=) and puts its socket into xsks_map;
 * dataplane/dp_xdp.c then fills steer_cfg and steer_hosts through the attached program's map ids.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/udp.h>

#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "ebpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, EBPF_STEER_QUEUES_MAX);
	__type(key, __u32);
	__type(value, __u32);
} xsks_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ebpf_steer_cfg);
} steer_cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, EBPF_STEER_HOSTS_MAX);
	__type(key, __u32);
	__type(value, __u8);
} steer_hosts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, EBPF_STEER_N);
	__type(key, __u32);
	__type(value, __u64);
} steer_stats SEC(".maps");

/* ARP for IPv4 over Ethernet: the fixed header, then sender MAC and IPv4, target MAC and IPv4. */
struct arp_eth_ipv4 {
	struct {
		__be16 ar_hrd, ar_pro;
		__u8 ar_hln, ar_pln;
		__be16 ar_op;
	} h; /* linux/if_arp.h's struct arphdr, whose header pulls libc in */
	__u8 sha[ETH_ALEN];
	__u8 spa[4];
	__u8 tha[ETH_ALEN];
	__u8 tpa[4];
} __attribute__((packed));

struct vlan_hdr {
	__be16 tci;
	__be16 proto;
};

static __always_inline void count(__u32 idx)
{
	__u64 *c = bpf_map_lookup_elem(&steer_stats, &idx);

	if (c != NULL)
		*c += 1;
}

static __always_inline int is_host(const void *addr)
{
	__u32 ip;

	__builtin_memcpy(&ip, addr, sizeof(ip));
	return bpf_map_lookup_elem(&steer_hosts, &ip) != NULL;
}

/* The class of the frame (enum ebpf_steer_stat), EBPF_STEER_PASS for the kernel's. */
static __always_inline __u32 classify(void *data, void *data_end)
{
	struct ethhdr *eth = data;
	__u16 uet_port = EBPF_UET_PORT_DEFAULT, cm_port = EBPF_CM_PORT_DEFAULT;
	struct ebpf_steer_cfg *cfg;
	void *l3 = eth + 1;
	__u32 key = 0;
	__be16 proto;

	if (l3 > data_end)
		return EBPF_STEER_PASS;
	proto = eth->h_proto;
	if (proto == bpf_htons(ETH_P_8021Q)) {
		struct vlan_hdr *vh = l3;

		if ((void *)(vh + 1) > data_end)
			return EBPF_STEER_PASS;
		proto = vh->proto;
		l3 = vh + 1;
	}
	if (proto == bpf_htons(ETH_P_PAUSE))
		return EBPF_STEER_PFC;
	if (proto == bpf_htons(ETH_P_ARP)) {
		struct arp_eth_ipv4 *arp = l3;

		if ((void *)(arp + 1) > data_end || arp->h.ar_pro != bpf_htons(ETH_P_IP) || arp->h.ar_hln != ETH_ALEN ||
		    arp->h.ar_pln != 4)
			return EBPF_STEER_PASS;
		return is_host(arp->tpa) ? EBPF_STEER_ARP : EBPF_STEER_PASS;
	}
	if (proto != bpf_htons(ETH_P_IP))
		return EBPF_STEER_PASS;
	struct iphdr *ip = l3;

	if ((void *)(ip + 1) > data_end || ip->version != 4 || ip->ihl < 5)
		return EBPF_STEER_PASS;
	if (ip->protocol == EBPF_IPPROTO_UET)
		return EBPF_STEER_PROTO253;
	if (ip->protocol == IPPROTO_ICMP)
		return is_host(&ip->daddr) ? EBPF_STEER_ICMP : EBPF_STEER_PASS;
	if (ip->protocol != IPPROTO_UDP || (ip->frag_off & bpf_htons(0x1fff)) != 0)
		return EBPF_STEER_PASS; /* a later fragment has no UDP header */
	struct udphdr *udp = (void *)ip + ip->ihl * 4;

	if ((void *)(udp + 1) > data_end)
		return EBPF_STEER_PASS;
	cfg = bpf_map_lookup_elem(&steer_cfg, &key);
	if (cfg != NULL && cfg->ready) {
		uet_port = cfg->uet_port;
		cm_port = cfg->cm_port;
	}
	if (udp->dest == bpf_htons(uet_port))
		return EBPF_STEER_UET;
	if (udp->dest == bpf_htons(cm_port))
		return EBPF_STEER_CM;
	return EBPF_STEER_PASS;
}

SEC("xdp")
int uetemu_steer(struct xdp_md *ctx)
{
	__u32 cls = classify((void *)(long)ctx->data, (void *)(long)ctx->data_end);
	long verdict;

	if (cls == EBPF_STEER_PASS) {
		count(EBPF_STEER_PASS);
		return XDP_PASS;
	}
	/* To the socket bound to this RX queue; with none there, XDP_PASS (the flags argument is the fallback). */
	verdict = bpf_redirect_map(&xsks_map, ctx->rx_queue_index, XDP_PASS);
	count(verdict == XDP_REDIRECT ? cls : EBPF_STEER_NOSOCK);
	return (int)verdict;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
