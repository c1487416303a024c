/* Zero-copy forwarding's books (net_link.c, net_pkt_raw_keep()): every port buffer a RAW descriptor holds goes back
 * to its port exactly once, sent on, freed with its descriptor, or released at the run's end. */
#include <criterion/criterion.h>
#include <string.h>

#include "net.h"

#define FAKE_BUFS (NET_REFS_MAX + 8)

/* A port whose received buffers are its own array: counts what was kept, sent and freed, and refuses a keep of
 * frames whose held index is odd when told to. */
struct fake_port {
	uint8_t buf[FAKE_BUFS][128];
	int state[FAKE_BUFS]; /* 0 the port's, 1 kept, 2 sent, 3 freed: a second give-back fails the test */
	unsigned kept, sent, freed;
	bool refuse_odd;
};

static void *fake_keep(void *port, const struct net_rx_frame *f, uint8_t **bytes)
{
	struct fake_port *p = port;

	if (p->refuse_odd && (f->held & 1))
		return NULL;
	cr_assert_eq(p->state[f->held], 0);
	p->state[f->held] = 1;
	p->kept++;
	*bytes = p->buf[f->held];
	return &p->state[f->held];
}

static unsigned fake_tx_buf(void *port, void *buf, uint32_t len)
{
	struct fake_port *p = port;
	int *st = buf;

	(void)len;
	cr_assert_eq(*st, 1, "sent once, while kept");
	*st = 2;
	p->sent++;
	return 1;
}

static void fake_free(void *port, void *buf)
{
	struct fake_port *p = port;
	int *st = buf;

	cr_assert_eq(*st, 1, "freed once, while kept (state %d)", *st);
	*st = 3;
	p->freed++;
}

static const struct net_bind_ops fake_ops = { .keep = fake_keep, .tx_buf = fake_tx_buf, .buf_free = fake_free };
static const struct net_bind_ops other_ops = { .keep = fake_keep, .tx_buf = fake_tx_buf, .buf_free = fake_free };

/* A 60 B IPv4 UDP frame to 10.0.0.4 in port buffer @p i, as a received frame. */
static struct net_rx_frame frame(struct fake_port *p, uint32_t i)
{
	uint8_t *b = p->buf[i], *ip = b + WIRE_ETH_LEN;

	memset(b, 0, 128);
	b[12] = 0x08;
	ip[0] = 0x45;
	ip[3] = 46; /* total length: 60 - 14 */
	ip[8] = 64;
	ip[9] = WIRE_IPPROTO_UDP;
	ip[12] = 10, ip[15] = 2, ip[16] = 10, ip[19] = 4;
	uint16_t c = wire_csum(ip, WIRE_IPV4_LEN);

	ip[10] = (uint8_t)(c >> 8), ip[11] = (uint8_t)c;
	ip[20] = 0x30, ip[21] = 0x39, ip[22] = 0x10, ip[23] = 0xe1, ip[25] = 26;
	return (struct net_rx_frame){ .data = b, .len = 60, .held = i };
}

static struct net_part np;
static struct fake_port port;
static struct net_bind bind = { .ops = &fake_ops, .port = &port };

static void setup(void)
{
	memset(&port, 0, sizeof(port));
	cr_assert_eq(net_part_init(&np, 64, 4096), 0);
}

static void teardown(void)
{
	net_part_fini(&np);
}

static struct wire_pkt *take(uint32_t i)
{
	struct net_rx_frame f = frame(&port, i);
	int why;
	struct wire_pkt *p = net_pkt_raw_keep(&np, &bind, &f, WIRE_UDP_PORT_UET, &why);

	cr_assert_not_null(p, "reason %d", why);
	cr_assert_eq(p->kind, WIRE_KIND_RAW);
	cr_assert_eq(p->dst_ip, 0x0a000004);
	return p;
}

TestSuite(net_link, .init = setup, .fini = teardown);

Test(net_link, kept_buffer_freed_once_with_its_dropped_descriptor)
{
	struct wire_pkt *p = take(0);

	cr_assert_eq(p->raw.buf, port.buf[0], "the descriptor's bytes are the port's buffer, not a copy");
	cr_assert_not_null(p->raw.buf_ref);
	cr_assert_eq(net_part_refs_out(&np), 1);
	net_pkt_free(&np, p);
	cr_assert_eq(port.freed, 1);
	cr_assert_eq(net_part_refs_out(&np), 0);
	cr_assert_eq(np.refs->kept, 1);
	cr_assert_eq(np.refs->freed, 1);
	cr_assert_eq(emu_pool_in_use(np.pkts), 0);
}

Test(net_link, sent_buffer_not_freed_again_with_its_descriptor)
{
	struct wire_pkt *p = take(0);

	cr_assert_null(net_pkt_ref_take(&np, p, &other_ops), "a port of other ops cannot send it: copied");
	void *ref = net_pkt_ref_take(&np, p, &fake_ops);

	cr_assert_not_null(ref);
	cr_assert_eq(fake_tx_buf(&port, ref, 60), 1);
	net_pkt_free(&np, p); /* the sink frees the descriptor after the port sent its buffer */
	cr_assert_eq(port.sent, 1);
	cr_assert_eq(port.freed, 0);
	cr_assert_eq(np.refs->sent, 1);
	cr_assert_eq(net_part_refs_out(&np), 0);
}

Test(net_link, run_end_releases_what_the_fabric_holds_and_later_frees_do_nothing)
{
	struct wire_pkt *p[4];

	for (uint32_t i = 0; i < 4; i++)
		p[i] = take(i);
	net_pkt_free(&np, p[0]);
	net_part_refs_release(&np);
	cr_assert_eq(port.freed, 4, "one with its drop, three at the end");
	cr_assert_eq(np.refs->released, 3);
	cr_assert_eq(net_part_refs_out(&np), 0);
	for (uint32_t i = 1; i < 4; i++) /* a queue emptied after the end: the buffers are not given back twice */
		net_pkt_free(&np, p[i]);
	cr_assert_eq(port.freed, 4);
	cr_assert_eq(port.kept, port.sent + port.freed, "every kept buffer went back once");
}

Test(net_link, full_table_or_refused_keep_copies_the_frame)
{
	struct wire_pkt *p[FAKE_BUFS];

	port.refuse_odd = true;
	p[1] = take(1);
	cr_assert_null(p[1]->raw.buf_ref, "refused: copied into the raw pool");
	cr_assert_neq(p[1]->raw.buf, port.buf[1]);
	net_pkt_free(&np, p[1]);
	port.refuse_odd = false;
	for (uint32_t i = 0; i < FAKE_BUFS; i++)
		p[i] = take(i);
	cr_assert_eq(net_part_refs_out(&np), NET_REFS_MAX);
	for (uint32_t i = NET_REFS_MAX; i < FAKE_BUFS; i++)
		cr_assert_null(p[i]->raw.buf_ref, "past the table's %u slots a frame is copied", NET_REFS_MAX);
	struct wire_pkt *c = net_pkt_raw_copy(&np, p[0], p[0]->raw.buf); /* crossing to another lcore: a copy */

	cr_assert_null(c->raw.buf_ref);
	net_pkt_free(&np, c);
	for (uint32_t i = 0; i < FAKE_BUFS; i++)
		net_pkt_free(&np, p[i]);
	cr_assert_eq(port.freed, NET_REFS_MAX);
	cr_assert_eq(port.kept, NET_REFS_MAX);
	cr_assert_eq(net_part_refs_out(&np), 0);
	cr_assert_eq(emu_pool_in_use(np.raw), 0);
}
