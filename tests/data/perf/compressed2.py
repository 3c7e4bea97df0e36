#!/usr/bin/env python3
"""compressed2.py IN OUT: a perf.data (file or pipe mode) with its
PERF_RECORD_COMPRESSED records (81) written as newer perf writes them,
PERF_RECORD_COMPRESSED2 (83): header, u64 data_size, the data, padded to
8 bytes.  In file mode the data section grows, and the feature sections
after it move with it (their table's offsets too)."""
import struct
import sys


def convert(recs):
    out = bytearray()
    pos = 0
    while pos < len(recs):
        typ, misc, size = struct.unpack_from('<IHH', recs, pos)
        rec = recs[pos:pos + size]
        if typ == 81:
            data = rec[8:]
            total = (16 + len(data) + 7) & ~7
            out += struct.pack('<IHHQ', 83, misc, total, len(data)) + data
            out += bytes(total - 16 - len(data))
        else:
            out += rec
        pos += size
    return out


def main():
    b = open(sys.argv[1], 'rb').read()
    if struct.unpack_from('<Q', b, 8)[0] == 16:  # pipe mode
        out = b[:16] + convert(b[16:])
    else:
        dof, dsz = struct.unpack_from('<QQ', b, 40)
        data = convert(b[dof:dof + dsz])
        delta = len(data) - dsz
        feats = bytearray(b[dof + dsz:])
        bits = sum(bin(x).count('1') for x in b[72:104])
        for i in range(bits):
            off, size = struct.unpack_from('<QQ', feats, 16 * i)
            struct.pack_into('<QQ', feats, 16 * i, off + delta, size)
        head = bytearray(b[:dof])
        struct.pack_into('<Q', head, 48, len(data))
        out = head + data + feats
    open(sys.argv[2], 'wb').write(out)


main()
