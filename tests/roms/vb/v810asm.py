#!/usr/bin/env python3
"""A small two-pass assembler for the NEC V810 (the Virtual Boy's CPU), enough for the test ROM.

Debian ships no V810 assembler, so the build runs this one:

    python3 v810asm.py SOURCE.s -o IMAGE.vb

The encodings follow the V810 architecture manual's instruction formats. Every instruction is
one or two 16-bit halfwords stored little-endian; the first holds the 6-bit opcode in bits 15-10:

    I    opcode | reg2 | reg1                    16 bits   mov r1, r2      jmp [r31]
    II   opcode | reg2 | imm5                    16 bits   add -1, r2      shr 1, r2
    III  1 0 0 | cond (4) | disp9                16 bits   bne label       (disp from the branch)
    IV   opcode | disp26 (high 10) ; disp (low 16)         jr label        jal label
    V    opcode | reg2 | reg1 ; imm16                      movea imm, r1, r2
    VI   opcode | reg2 | reg1 ; disp16                     ld.w 4[r1], r2  st.w r2, 4[r1]

Source syntax: one statement a line, `;` starts a comment, `name:` defines a label, registers are
r0-r31 (lp is r31). Operands are ordered as the manual writes them: source first, destination
last. Expressions are integers, 'c' characters, labels and `.equ` names with + - * << >> & | ~
and parentheses, plus hi(x) and lo(x), the halves for `movhi hi(x), r0, rN` then
`movea lo(x), rN, rN` (hi rounds so that movea's sign-extended lo adds up to x).

Directives:
    .image BASE, SIZE   the image's first address and its size in bytes (once, first)
    .org ADDR           continue at ADDR (forward only; the gap is filled with zeros)
    .equ NAME, EXPR     a constant
    .byte/.half/.word   little-endian data, comma-separated
    .ascii "TEXT"       the text's bytes; .ascii "TEXT", N pads it with spaces to N bytes
"""

import argparse
import ast
import re
import sys

REGISTERS = {f"r{n}": n for n in range(32)}
REGISTERS["lp"] = 31

# mnemonic: (format, opcode). Format II's signed and unsigned immediates are told apart below.
FORMAT_I = {"mov": 0x00, "add": 0x01, "sub": 0x02, "cmp": 0x03, "shl": 0x04, "shr": 0x05,
            "sar": 0x07, "mul": 0x08, "div": 0x09, "mulu": 0x0A, "divu": 0x0B, "or": 0x0C,
            "and": 0x0D, "xor": 0x0E, "not": 0x0F}
FORMAT_II = {"mov": (0x10, True), "add": (0x11, True), "cmp": (0x13, True),
             "shl": (0x14, False), "shr": (0x15, False), "sar": (0x17, False)}
FORMAT_V = {"movea": (0x28, True), "addi": (0x29, True), "ori": (0x2C, False),
            "andi": (0x2D, False), "xori": (0x2E, False), "movhi": (0x2F, False)}
LOADS = {"ld.b": 0x30, "ld.h": 0x31, "ld.w": 0x33, "in.b": 0x38, "in.h": 0x39, "in.w": 0x3B}
STORES = {"st.b": 0x34, "st.h": 0x35, "st.w": 0x37, "out.b": 0x3C, "out.h": 0x3D,
          "out.w": 0x3F}
JUMPS = {"jr": 0x2A, "jal": 0x2B}
NO_OPERANDS = {"halt": 0x1A << 10, "reti": 0x19 << 10, "nop": 0x9A00}
BRANCHES = {"bv": 0, "bc": 1, "bl": 1, "bz": 2, "be": 2, "bnh": 3, "bn": 4, "br": 5,
            "blt": 6, "ble": 7, "bnv": 8, "bnc": 9, "bnl": 9, "bnz": 10, "bne": 10,
            "bh": 11, "bp": 12, "bge": 14, "bgt": 15}
JMP = 0x06


class AsmError(Exception):
    pass


def hi(value):
    return ((value + 0x8000) >> 16) & 0xFFFF


def lo(value):
    return value & 0xFFFF


def evaluate(text, symbols):
    """The value of an expression; AsmError names an unknown symbol."""
    def walk(node):
        if isinstance(node, ast.Expression):
            return walk(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) == 1:
            return ord(node.value)
        if isinstance(node, ast.Name):
            if node.id not in symbols:
                raise AsmError(f"unknown symbol '{node.id}'")
            return symbols[node.id]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.Invert)):
            value = walk(node.operand)
            return -value if isinstance(node.op, ast.USub) else ~value
        if isinstance(node, ast.BinOp):
            ops = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
                   ast.Mult: lambda a, b: a * b, ast.LShift: lambda a, b: a << b,
                   ast.RShift: lambda a, b: a >> b, ast.BitAnd: lambda a, b: a & b,
                   ast.BitOr: lambda a, b: a | b}
            if type(node.op) in ops:
                return ops[type(node.op)](walk(node.left), walk(node.right))
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in ("hi", "lo") and len(node.args) == 1):
            return (hi if node.func.id == "hi" else lo)(walk(node.args[0]))
        raise AsmError(f"cannot evaluate '{text}'")
    try:
        return walk(ast.parse(text.strip(), mode="eval"))
    except SyntaxError:
        raise AsmError(f"bad expression '{text}'") from None


def register(text):
    name = text.strip().lower()
    if name not in REGISTERS:
        raise AsmError(f"'{text.strip()}' is not a register")
    return REGISTERS[name]


def memory(text, symbols):
    """disp[reg] -> (disp, reg)."""
    match = re.fullmatch(r"(.*)\[\s*(\w+)\s*\]", text.strip())
    if not match:
        raise AsmError(f"'{text.strip()}' is not disp[reg]")
    disp = evaluate(match.group(1), symbols) if match.group(1).strip() else 0
    return disp, register(match.group(2))


def checked(value, bits, signed, what):
    low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    if not low <= value <= high:
        raise AsmError(f"{what} {value} does not fit in {bits} bits")
    return value & ((1 << bits) - 1)


def split_operands(text):
    """Commas outside quotes and brackets separate operands."""
    operands, depth, quoted, current = [], 0, False, ""
    for char in text:
        if char == '"':
            quoted = not quoted
        elif not quoted and char in "[(":
            depth += 1
        elif not quoted and char in "])":
            depth -= 1
        if char == "," and depth == 0 and not quoted:
            operands.append(current.strip())
            current = ""
        else:
            current += char
    if current.strip():
        operands.append(current.strip())
    return operands


def instruction_size(mnemonic):
    if mnemonic in FORMAT_V or mnemonic in LOADS or mnemonic in STORES or mnemonic in JUMPS:
        return 4
    if (mnemonic in FORMAT_I or mnemonic in FORMAT_II or mnemonic in BRANCHES
            or mnemonic in NO_OPERANDS or mnemonic == "jmp"):
        return 2
    raise AsmError(f"unknown mnemonic '{mnemonic}'")


def halfwords(*values):
    return b"".join(value.to_bytes(2, "little") for value in values)


def encode(mnemonic, operands, address, symbols):
    """The bytes of one instruction at `address`."""
    def expect(count):
        if len(operands) != count:
            raise AsmError(f"{mnemonic} takes {count} operand(s), got {len(operands)}")

    if mnemonic in NO_OPERANDS:
        expect(0)
        return halfwords(NO_OPERANDS[mnemonic])
    if mnemonic == "jmp":
        expect(1)
        return halfwords(JMP << 10 | register(operands[0].strip("[] ")))
    if mnemonic in BRANCHES:
        expect(1)
        disp = evaluate(operands[0], symbols) - address
        if disp & 1:
            raise AsmError("branch to an odd address")
        return halfwords(0x8000 | BRANCHES[mnemonic] << 9 | checked(disp, 9, True, "branch"))
    if mnemonic in JUMPS:
        expect(1)
        disp = checked(evaluate(operands[0], symbols) - address, 26, True, "jump")
        return halfwords(JUMPS[mnemonic] << 10 | disp >> 16, disp & 0xFFFF)
    if mnemonic in FORMAT_V:
        expect(3)
        opcode, signed = FORMAT_V[mnemonic]
        imm = evaluate(operands[0], symbols)
        if signed and 0x8000 <= imm <= 0xFFFF:  # lo() halves are written as 16-bit patterns
            imm -= 0x10000
        imm = checked(imm, 16, signed, mnemonic + " immediate")
        return halfwords(opcode << 10 | register(operands[2]) << 5 | register(operands[1]), imm)
    if mnemonic in LOADS or mnemonic in STORES:
        expect(2)
        if mnemonic in LOADS:
            (disp, reg1), reg2 = memory(operands[0], symbols), register(operands[1])
        else:
            reg2, (disp, reg1) = register(operands[0]), memory(operands[1], symbols)
        opcode = LOADS.get(mnemonic, STORES.get(mnemonic))
        return halfwords(opcode << 10 | reg2 << 5 | reg1,
                         checked(disp, 16, True, "displacement"))
    expect(2)
    reg2 = register(operands[1])
    if operands[0].strip().lower() in REGISTERS:
        if mnemonic not in FORMAT_I:
            raise AsmError(f"{mnemonic} takes an immediate, not a register")
        return halfwords(FORMAT_I[mnemonic] << 10 | reg2 << 5 | register(operands[0]))
    if mnemonic not in FORMAT_II:
        raise AsmError(f"{mnemonic} takes two registers")
    opcode, signed = FORMAT_II[mnemonic]
    imm = checked(evaluate(operands[0], symbols), 5, signed, mnemonic + " immediate")
    return halfwords(opcode << 10 | reg2 << 5 | imm)


def parse(source):
    """(line number, label or None, mnemonic or directive or None, operands) per line."""
    statements = []
    for number, line in enumerate(source.splitlines(), 1):
        line = re.sub(r';(?=(?:[^"]*"[^"]*")*[^"]*$).*', "", line).strip()
        label = None
        match = re.match(r"([A-Za-z_]\w*):\s*(.*)", line)
        if match:
            label, line = match.group(1), match.group(2)
        word, rest = (line.split(None, 1) + ["", ""])[:2]
        statements.append((number, label, word.lower() or None, split_operands(rest)))
    return statements


def data_bytes(directive, operands, symbols, final):
    """The bytes of a data directive; before the final pass, values may be unknown (0)."""
    if directive == ".ascii":
        text = ast.literal_eval(operands[0])
        width = evaluate(operands[1], symbols) if len(operands) > 1 else len(text)
        if len(text) > width:
            raise AsmError(f"'{text}' is longer than {width} bytes")
        return text.ljust(width).encode("ascii")
    size = {".byte": 1, ".half": 2, ".word": 4}[directive]
    out = b""
    bits = 8 * size
    for operand in operands:
        value = evaluate(operand, symbols) if final else 0
        # Signed or unsigned: -1 and 0xFF are both a byte, 0x100 and -129 are not.
        if not -(1 << (bits - 1)) <= value <= (1 << bits) - 1:
            raise AsmError(f"{directive} {value} does not fit in {bits} bits")
        out += (value & ((1 << bits) - 1)).to_bytes(size, "little")
    return out


def assemble(source):
    """The image's bytes: pass 1 places every label, pass 2 encodes."""
    statements = parse(source)
    symbols, base, size = {}, None, None

    def run(final):
        nonlocal base, size
        image, address = bytearray(), None
        for number, label, word, operands in statements:
            try:
                if label is not None:
                    if address is None:
                        raise AsmError("label before .image")
                    if not final and label in symbols:
                        raise AsmError(f"label '{label}' defined twice")
                    symbols[label] = address
                if word is None:
                    continue
                if word == ".image":
                    base, size = (evaluate(op, symbols) for op in operands)
                    address = base
                    continue
                if word == ".equ":
                    symbols[operands[0]] = evaluate(operands[1], symbols)
                    continue
                if address is None:
                    raise AsmError(".image must come first")
                if word == ".org":
                    target = evaluate(operands[0], symbols)
                    if target < address:
                        raise AsmError(f".org {target:#x} is behind {address:#x}")
                    image += bytes(target - address)
                    address = target
                    continue
                if word in (".byte", ".half", ".word", ".ascii"):
                    chunk = data_bytes(word, operands, symbols, final)
                elif final:
                    chunk = encode(word, operands, address, symbols)
                else:
                    chunk = bytes(instruction_size(word))
                image += chunk
                address += len(chunk)
            except AsmError as error:
                raise AsmError(f"line {number}: {error}") from None
        return image

    run(final=False)
    image = run(final=True)
    if size is None:
        raise AsmError("no .image")
    if len(image) > size:
        raise AsmError(f"the program ends at {len(image)} bytes, past the image's {size}")
    return bytes(image + bytes(size - len(image)))


def main():
    parser = argparse.ArgumentParser(description="Assemble NEC V810 source into a ROM image.")
    parser.add_argument("source")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    with open(args.source, encoding="utf-8") as f:
        source = f.read()
    try:
        image = assemble(source)
    except AsmError as error:
        sys.exit(f"{args.source}: {error}")
    with open(args.output, "wb") as f:
        f.write(image)


if __name__ == "__main__":
    main()
