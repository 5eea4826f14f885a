#!/usr/bin/env python3
"""v810asm.py's encodings against halfwords worked out by hand from the V810 manual's formats,
its label resolution and its errors. Run by ctest: python3 v810asm_test.py."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import v810asm  # noqa: E402

BASE = 0x07000000


def assemble(body, size=64):
    return v810asm.assemble(f".image {BASE:#x}, {size}\n{body}\n")


def halfwords(image, count):
    return [int.from_bytes(image[2 * i:2 * i + 2], "little") for i in range(count)]


class Encodings(unittest.TestCase):
    # Each: source line, halfwords. Fields: opcode bits 15-10, reg2 bits 9-5, reg1/imm5 4-0.
    CASES = [
        ("mov r1, r2", [0x0041]),            # I:   000000 00010 00001
        ("xor r16, r20", [0x3A90]),          # I:   001110 10100 10000
        ("cmp r0, r18", [0x0E40]),           # I:   000011 10010 00000
        ("jmp [lp]", [0x181F]),              # I:   000110 00000 11111
        ("add -1, r17", [0x463F]),           # II:  010001 10001 11111 (imm5 -1)
        ("mov 8, r17", [0x4228]),            # II:  010000 10001 01000
        ("shr 31, r20", [0x569F]),           # II:  010101 10100 11111 (unsigned)
        ("halt", [0x6800]),                  # II:  011010, no operands
        ("nop", [0x9A00]),                   # III: 100 1101 000000000
        ("movhi 0xEDB8, r0, r22", [0xBEC0, 0xEDB8]),  # V: 101111 10110 00000 ; imm16
        ("movea -2048, r13, r13", [0xA1AD, 0xF800]),  # V: 101000 01101 01101 ; signed
        ("ori 0x8320, r22, r22", [0xB2D6, 0x8320]),   # V: 101100 10110 10110 ; unsigned
        ("ld.w 8[r10], r11", [0xCD6A, 0x0008]),       # VI: 110011 01011 01010 ; disp16
        ("ld.b -4[r12], r14", [0xC1CC, 0xFFFC]),      # VI: 110000 01110 01100 ; disp -4
        ("st.b r11, 0x28[r12]", [0xD16C, 0x0028]),    # VI: 110100 01011 01100
        ("st.h r11, 4[r13]", [0xD56D, 0x0004]),       # VI: 110101 01011 01101
        ("st.w r0, [r10]", [0xDC0A, 0x0000]),         # VI: 110111 00000 01010, no disp
    ]

    def test_each_instruction_encodes_to_the_manuals_halfwords(self):
        for line, expected in self.CASES:
            with self.subTest(line=line):
                self.assertEqual(halfwords(assemble(line), len(expected)), expected)

    def test_branches_count_from_their_own_address(self):
        # III: 100 cond(4) disp9. br back to itself (disp 0), be forward 6, bne back 4.
        image = assemble("top: br top\nbe fwd\nbne top\nnop\nfwd: nop")
        self.assertEqual(halfwords(image, 3), [0x8A00, 0x8406, 0x95FC])

    def test_jumps_take_26_bit_displacements(self):
        # IV: opcode(6) disp(high 10) ; disp(low 16). jal forward 0x100, jr back 4.
        image = assemble("jal there\nback: jr back\n.org 0x07000100\nthere: jr back", size=0x200)
        self.assertEqual(halfwords(image, 4), [0xAC00, 0x0100, 0xA800, 0x0000])
        self.assertEqual(halfwords(image[0x100:], 2), [0xABFF, 0xFF04])

    def test_hi_and_lo_rebuild_an_address_through_movea(self):
        for value in (0x0005F800, 0x05000010, 0x07000000, 0x0700FFFF):
            hi, lo = v810asm.hi(value), v810asm.lo(value)
            signed_lo = lo - 0x10000 if lo & 0x8000 else lo
            self.assertEqual(((hi << 16) + signed_lo) & 0xFFFFFFFF, value)

    def test_data_and_org_place_bytes(self):
        image = assemble('.byte 1, -1\n.half 0x1234\n.word 0xA1B2C3D4\n.ascii "FL", 4\n'
                         ".equ X, 'F'\n.org 0x07000020\n.byte X + 1")
        self.assertEqual(image[:12], bytes([1, 0xFF, 0x34, 0x12, 0xD4, 0xC3, 0xB2, 0xA1]) +
                         b"FL  ")
        self.assertEqual(image[0x20], ord("G"))
        self.assertEqual(len(image), 64)

    def test_labels_comments_and_tabs_share_a_line(self):
        image = assemble('here:\tbr\there ; a comment\n\t.ascii\t"a;b" ; after the text')
        self.assertEqual(halfwords(image, 1), [0x8A00])
        self.assertEqual(image[2:5], b"a;b")


class Errors(unittest.TestCase):
    def assert_error(self, body, words):
        with self.assertRaises(v810asm.AsmError) as caught:
            assemble(body)
        self.assertIn(words, str(caught.exception))

    def test_each_mistake_is_named_with_its_line(self):
        self.assert_error("nop\nfoo r1, r2", "line 3: unknown mnemonic 'foo'")
        self.assert_error("add 16, r1", "does not fit in 5 bits")
        self.assert_error("shr -1, r1", "does not fit in 5 bits")
        self.assert_error("movea 0x12345, r0, r1", "does not fit in 16 bits")
        self.assert_error("br far\n.org 0x07000200\nfar: nop", "branch 512 does not fit")
        self.assert_error("br missing", "unknown symbol 'missing'")
        self.assert_error("andi r1, r2, r3", "unknown symbol 'r1'")
        self.assert_error("movea 1, r0, r32", "'r32' is not a register")
        self.assert_error(".byte 0x100", ".byte 256 does not fit in 8 bits")
        self.assert_error(".byte -129", ".byte -129 does not fit in 8 bits")
        self.assert_error(".half 0x10000", ".half 65536 does not fit in 16 bits")
        self.assert_error("x: nop\nx: nop", "label 'x' defined twice")
        self.assert_error(".org 0x07000040\nnop", "past the image's 64")


class TestRom(unittest.TestCase):
    def test_the_rom_ends_with_its_header_and_reset_code(self):
        source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "framelock_test.s")
        with open(source, encoding="utf-8") as f:
            image = v810asm.assemble(f.read())
        self.assertEqual(len(image), 4096)
        self.assertEqual(image[0xDE0:0xDF4], b"FRAMELOCK TEST      ")
        self.assertEqual(image[0xDF9:0xE00], b"FLFLTV\x01")
        # movhi 0x0700, r0, r1 ; movea 0, r1, r1 ; jmp [r1]
        self.assertEqual(halfwords(image[0xFF0:], 5), [0xBC20, 0x0700, 0xA021, 0x0000, 0x1801])


if __name__ == "__main__":
    unittest.main()
