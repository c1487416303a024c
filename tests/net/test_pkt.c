/* Tests of the packet pool's descriptors (net.h): a kind's allocation zeroes what the kind reads, a copy carries it,
 * and the pool hands out descriptors one cache line aligned at its 256 B stride. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "net.h"

static const uint8_t kinds[] = { WIRE_KIND_DATA, WIRE_KIND_ACK, WIRE_KIND_NACK, WIRE_KIND_CP, WIRE_KIND_TRIMMED,
				 WIRE_KIND_PFC, WIRE_KIND_CM, WIRE_KIND_UET, WIRE_KIND_ROCE, WIRE_KIND_RAW };

/* A descriptor of the pool of @p np, every byte 0xff, given back: the next allocation reuses it (LIFO). */
static void dirty_one(struct net_part *np)
{
	struct wire_pkt *p = net_pkt_alloc(np);

	cr_assert_not_null(p);
	memset(p, 0xff, sizeof(*p));
	p->kind = WIRE_KIND_NONE; /* not RAW: nothing to give back to the raw pool */
	net_pkt_free(np, p);
}

static bool zero_upto(const struct wire_pkt *p, size_t len)
{
	const uint8_t *b = (const uint8_t *)p;

	for (size_t i = 0; i < len; i++)
		if (b[i] != 0 && i != offsetof(struct wire_pkt, kind))
			return false;
	return true;
}

Test(net_pkt, alloc_kind_zeroes_what_the_kind_reads)
{
	struct net_part np;

	cr_assert_eq(net_part_init(&np, 64, 64), 0);
	for (size_t i = 0; i < sizeof(kinds); i++) {
		dirty_one(&np);
		struct wire_pkt *p = net_pkt_alloc_kind(&np, kinds[i]);

		cr_assert_not_null(p);
		cr_assert_eq(p->kind, kinds[i]);
		cr_assert(zero_upto(p, wire_pkt_len(kinds[i])), "kind %u: a byte it reads left dirty", kinds[i]);
		net_pkt_free(&np, p);
	}
	net_part_fini(&np);
}

Test(net_pkt, kind_len_covers_its_header)
{
	/* the common part and the PDS header for every kind; then each kind's own member of the union */
	for (size_t i = 0; i < sizeof(kinds); i++)
		cr_assert_geq(wire_pkt_len(kinds[i]), offsetof(struct wire_pkt, ses));
	cr_assert_eq(wire_pkt_len(WIRE_KIND_DATA), sizeof(struct wire_pkt));
	cr_assert_eq(wire_pkt_len(WIRE_KIND_TRIMMED), sizeof(struct wire_pkt)); /* the cut SES header is kept */
	cr_assert_eq(wire_pkt_len(WIRE_KIND_UET), sizeof(struct wire_pkt));
	cr_assert_geq(wire_pkt_len(WIRE_KIND_ACK), offsetof(struct wire_pkt, rsp) + sizeof(struct wire_rsp));
	cr_assert_geq(wire_pkt_len(WIRE_KIND_PFC), offsetof(struct wire_pkt, pfc_quanta) + 16);
	cr_assert_geq(wire_pkt_len(WIRE_KIND_CM), offsetof(struct wire_pkt, cm) + sizeof(struct wire_cm));
	cr_assert_geq(wire_pkt_len(WIRE_KIND_ROCE), offsetof(struct wire_pkt, roce) + sizeof(struct wire_roce));
	cr_assert_geq(wire_pkt_len(WIRE_KIND_RAW), offsetof(struct wire_pkt, raw.trimmed) + 1);
	cr_assert_leq(wire_pkt_len(WIRE_KIND_ACK), 192, "an ACK reads three cache lines");
}

Test(net_pkt, copy_carries_what_the_kind_reads)
{
	struct net_part np;
	struct wire_pkt src;

	cr_assert_eq(net_part_init(&np, 64, 64), 0);
	for (size_t i = 0; i < sizeof(kinds); i++) {
		if (kinds[i] == WIRE_KIND_RAW)
			continue; /* a RAW copy takes a buffer of its own: net_pkt_raw_copy() */
		memset(&src, 0x5a, sizeof(src));
		src.kind = kinds[i];
		dirty_one(&np);
		struct wire_pkt *p = net_pkt_copy(&np, &src);

		cr_assert_not_null(p);
		cr_assert_eq(memcmp(p, &src, wire_pkt_len(kinds[i])), 0, "kind %u", kinds[i]);
		p->kind = WIRE_KIND_NONE;
		net_pkt_free(&np, p);
	}
	net_part_fini(&np);
}

Test(net_pkt, pool_stride_aligns_descriptors_to_the_line)
{
	struct net_part np;
	struct wire_pkt *p[8];

	cr_assert_eq(net_part_init(&np, 64, 64), 0);
	for (int i = 0; i < 8; i++) {
		p[i] = net_pkt_alloc(&np);
		cr_assert_not_null(p[i]);
		cr_assert_eq((uintptr_t)p[i] % 64, 0, "descriptor %d at %p", i, (void *)p[i]);
	}
	for (int i = 0; i < 8; i++)
		net_pkt_free(&np, p[i]);
	net_part_fini(&np);
}
