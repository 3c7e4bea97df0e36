#!/usr/bin/env python3
"""abi32.py IN OUT: a copy of perf.data IN whose samples say their user
registers are a 32-bit process's (PERF_SAMPLE_REGS_ABI_32), for
tests/perf2spaa-dwarf.bats."""
import struct,sys
d=bytearray(open(sys.argv[1],'rb').read())
ao,asz,do,dsz=struct.unpack_from('<QQQQ',d,24)
st=struct.unpack_from('<Q',d,ao+24)[0]
p=do
while p<do+dsz:
    t,misc,s=struct.unpack_from('<IHH',d,p)
    if t==9:
        q=p+8
        for bit in (1<<16,1,2,4,8,64,512,128,256):
            if st&bit: q+=8
        if st&32: q+=8+8*struct.unpack_from('<Q',d,q)[0]
        struct.pack_into('<Q',d,q,1)
    p+=s
open(sys.argv[2],'wb').write(d)
