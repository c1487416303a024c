"""CRC-32C (Castagnoli: reflected polynomial 0x82F63B78, initial value and final XOR all ones), computed here
independently of uetemu, for the tests that check or write a UET CRC trailer."""


def _table():
    t = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        t.append(c)
    return t


_TAB = _table()


def crc32c(data):
    """The CRC-32C of the bytes @p data."""
    c = 0xFFFFFFFF
    for b in data:
        c = _TAB[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


assert crc32c(b"123456789") == 0xE3069283  # the CRC-32C check value
