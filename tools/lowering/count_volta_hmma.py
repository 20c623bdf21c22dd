#!/usr/bin/env python3
"""Counts HMMA.884 instructions (opcode 0x236 in the low 12 bits of the first 64-bit word of a
Volta/Turing instruction) per kernel of a cubin, with each one's control word, so that the
number of chained m8n8k4 steps of an sm_70 kernel can be read without a disassembler."""
import struct, sys
def sections(path):
    d = open(path, 'rb').read()
    shoff, = struct.unpack_from('<Q', d, 0x28); shentsize, shnum, shstrndx = struct.unpack_from('<HHH', d, 0x3a)
    hdrs = [struct.unpack_from('<IIQQQQIIQQ', d, shoff + i * shentsize) for i in range(shnum)]
    strtab = hdrs[shstrndx]
    name = lambda off: d[strtab[4] + off: d.index(b'\0', strtab[4] + off)].decode()
    for h in hdrs:
        n = name(h[0])
        if n.startswith('.text.'): yield n[6:], d[h[4]:h[4] + h[5]]
for path in sys.argv[1:]:
    for fn, text in sections(path):
        ops = [struct.unpack_from('<QQ', text, i) for i in range(0, len(text), 16)]
        hm = [(lo, hi) for lo, hi in ops if lo & 0xfff == 0x236]
        print(path, fn, 'instructions', len(ops), 'HMMA.884', len(hm), 'control words', [hex(hi & 0xffffffff) for lo, hi in hm])
