"""Minimal reader of the nanosecond pcaps uetemu writes, and a decoder of the UET fields the tests check."""
import struct

PS_PER_NS = 1000
# Virtual-time captures are stamped from the records' epoch, 2026-01-01T00:00:00Z (docs/capture.md, Timestamps).
EPOCH_NS = 1767225600 * 1_000_000_000


def read_pcap(path, epoch_ns=EPOCH_NS):
    """Yield (ts_ns, frame bytes) for each record, ts_ns counted from @epoch_ns: emulated time by default."""
    with open(path, 'rb') as f:
        hdr = f.read(24)
        magic, = struct.unpack('<I', hdr[:4])
        assert magic == 0xa1b23c4d, 'not a nanosecond little-endian pcap: %x' % magic
        while True:
            rh = f.read(16)
            if len(rh) < 16:
                return
            sec, nsec, caplen, _ = struct.unpack('<IIII', rh)
            yield sec * 1_000_000_000 + nsec - epoch_ns, f.read(caplen)


def ipv4_csum_ok(ip):
    s = 0
    for i in range(0, 20, 2):
        s += (ip[i] << 8) | ip[i + 1]
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s == 0xffff


def decode(frame):
    """Return a dict with the fields the scenario tests use."""
    d = {'len': len(frame), 'ethertype': struct.unpack('>H', frame[12:14])[0], 'dst_mac': frame[0:6],
         'src_mac': frame[6:12]}
    if d['ethertype'] == 0x8808:
        d['kind'] = 'pfc'
        d['opcode'], d['enable'] = struct.unpack('>HH', frame[14:18])
        d['quanta'] = list(struct.unpack('>8H', frame[18:34]))
        return d
    ip = frame[14:34]
    d['dscp'] = ip[1] >> 2
    d['ecn'] = ip[1] & 3
    d['ttl'] = ip[8]
    d['ip_len'] = struct.unpack('>H', ip[2:4])[0]
    d['csum_ok'] = ipv4_csum_ok(ip)
    d['src'] = ip[12:16]
    d['dst'] = ip[16:20]
    udp = frame[34:42]
    d['sport'], d['dport'], _, d['udp_csum'] = struct.unpack('>HHHH', udp)
    if d['dport'] == 4794:  # uetemu's RDMA connection setup (docs/wire.md)
        d['kind'] = 'cm'
        (d['cm_type'], d['cm_version'], d['cm_conn'], d['cm_local'], d['cm_remote'],
         d['cm_qpn']) = struct.unpack('>BBHIII', frame[42:58])
        return d
    pds = frame[42:]
    pro = struct.unpack('>H', pds[:2])[0]
    d['type'], d['next_hdr'], d['flags'] = pro >> 11, (pro >> 7) & 0xf, pro & 0x7f
    if d['type'] in (13, 14):
        d['kind'] = 'data' if d['ip_len'] > 44 else 'trimmed'
        d['psn'], d['spdcid'], d['dpdcid'] = struct.unpack('>IHH', pds[4:12])
        if d['kind'] == 'data':
            ses = pds[16:60]
            d['som'] = bool(ses[1] & 1)
            d['eom'] = bool(ses[1] & 2)
            d['msg_id'] = struct.unpack('>H', ses[2:4])[0]
            d['payload'] = len(frame) - 102
    elif d['type'] == 8:
        d['kind'] = 'ack'
        d['cack'], d['spdcid'], d['dpdcid'] = struct.unpack('>IHH', pds[4:12])
        d['sack_off'] = struct.unpack('>h', pds[14:16])[0]
        d['sack'] = struct.unpack('>Q', pds[16:24])[0]
        d['probe'] = bool(d['flags'] & 0x08)
    elif d['type'] == 10:
        d['kind'] = 'nack'
    elif d['type'] == 11:
        d['kind'] = 'cp'
    else:
        d['kind'] = 'unknown'
    return d
