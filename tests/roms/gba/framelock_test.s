@ framelock test ROM for the Game Boy Advance (mgba), ARM assembly for arm-none-eabi-as.
@ Like the NES, PC Engine and Game Boy ROMs: every frame, at the start of vertical blank, it
@ reads the ten keys, stores the raw bits, folds them into a running CRC-32, counts the frame
@ and shows the three on screen, so a one-frame tap changes RAM on its frame and the checksum
@ differs from then on. The contract block and the key bits are in ../README.md.
@
@ The cartridge header (the first 0xC0 bytes) is written here. The 156 bytes where a
@ commercial cartridge carries the boot logo stay zero: a console's own BIOS would refuse the
@ cartridge, mgba's built-in BIOS (used without a BIOS file) starts it. The complement check
@ byte is computed by the assembler from the bytes it covers. Everything runs from ROM in ARM
@ state, without interrupts: the program waits for vertical blank by reading VCOUNT.

        .syntax unified
        .cpu    arm7tdmi
        .arm

        .equ    IO,             0x04000000
        .equ    DISPCNT,        0x000           @ offsets from IO
        .equ    VCOUNT,         0x006
        .equ    BG0CNT,         0x008
        .equ    KEYINPUT,       0x130           @ bits 0-9, 0 = held
        .equ    IME,            0x208
        .equ    PALETTE,        0x05000000      @ background palette: entry 0 is the backdrop
        .equ    VRAM,           0x06000000
        .equ    TILES,          VRAM            @ character block 0: tile 0 blank, 1-16 the digits 0-F
        .equ    MAP,            VRAM + 0xF800   @ screen block 31: 32 x 32 halfwords
        .equ    VBLANK_LINE,    160             @ VCOUNT of the first line of vertical blank

@ The contract block (README.md), pinned at 0x03000010 by gba.ld.
        .equ    KEYS,           0               @ the keys, 1 = held, little-endian: A B Select
                                                @ Start Right Left Up Down (byte 0), R L (byte 1)
        .equ    SIG,            5               @ 'F' 'L' 1
        .equ    CRC,            8               @ CRC-32 of every key byte read, little-endian
        .equ    FRAME,          12              @ frames processed, little-endian

        .section .block, "aw", %nobits
block:  .space  16

@ --- The cartridge header ------------------------------------------------------------------
        .section .header, "ax"
        .global _start
_start:
        b       start                           @ 0x00: the entry point, in ARM state
        .space  156                             @ 0x04-0x9F: the boot logo's place, left zero

        @ hbytes: bytes of the part of the header the complement check covers (0xA0-0xBC),
        @ summed as they are written.
        .set    hsum, 0
        .macro  hbytes values:vararg
        .irp    v, \values
        .byte   \v
        .set    hsum, hsum + (\v)
        .endr
        .endm

        hbytes  0x46, 0x52, 0x41, 0x4D, 0x45, 0x4C, 0x4F, 0x43, 0x4B, 0, 0, 0
                                                @ 0xA0: title "FRAMELOCK", zero-padded
        hbytes  0, 0, 0, 0                      @ 0xAC: game code: none (mgba's table of
                                                @ per-game settings matches no entry)
        hbytes  0, 0                            @ 0xB0: maker code: none
        hbytes  0x96                            @ 0xB2: fixed value
        hbytes  0                               @ 0xB3: main unit: the GBA
        hbytes  0                               @ 0xB4: device type
        hbytes  0, 0, 0, 0, 0, 0, 0             @ 0xB5-0xBB: reserved
        hbytes  0                               @ 0xBC: software version
        .byte   (-hsum - 0x19) & 0xFF           @ 0xBD: complement check
        .byte   0, 0                            @ 0xBE-0xBF: reserved
        .if     . - _start != 0xC0
        .error  "the cartridge header is 0xC0 bytes"
        .endif

@ --- Start-up -----------------------------------------------------------------------------
        .text
start:
        mov     r0, #IO
        mov     r1, #0x80
        strh    r1, [r0, #DISPCNT]              @ forced blank while video memory is written
        mov     r1, #0
        add     r2, r0, #IME
        strh    r1, [r2]                        @ no interrupts
        ldr     sp, =0x03008000 - 0x100         @ the stack at the top of IWRAM

        @ The block to zero (the counters start from known bytes), then the signature.
        ldr     r4, =block
        str     r1, [r4, #0]
        str     r1, [r4, #4]
        str     r1, [r4, #8]
        str     r1, [r4, #12]
        mov     r1, #0x46                       @ 'F'
        strb    r1, [r4, #SIG]
        mov     r1, #0x4C                       @ 'L'
        strb    r1, [r4, #SIG + 1]
        mov     r1, #1
        strb    r1, [r4, #SIG + 2]

        @ The background's 64 KiB of video RAM to zero: tile 0 and the map blank.
        ldr     r0, =VRAM
        add     r1, r0, #0x10000
        mov     r2, #0
        mov     r3, #0
        mov     r5, #0
        mov     r6, #0
1:      stmia   r0!, {r2, r3, r5, r6}
        cmp     r0, r1
        blo     1b

        @ The digits as tiles 1-16, 4 bits a pixel: each font row (bit 7 the leftmost pixel)
        @ becomes a word whose lowest 4 bits are the leftmost pixel, lit pixels colour 1.
        ldr     r0, =font
        ldr     r1, =TILES + 32
        mov     r2, #16 * 8                     @ rows left
        mov     r7, #1
2:      ldrb    r3, [r0], #1
        mov     r5, #0                          @ the row being built
        mov     r6, #0                          @ 4 * the pixel's column
3:      tst     r3, #0x80
        orrne   r5, r5, r7, lsl r6
        mov     r3, r3, lsl #1
        add     r6, r6, #4
        cmp     r6, #32
        blo     3b
        str     r5, [r1], #4                    @ video RAM takes no byte writes: whole words
        subs    r2, r2, #1
        bne     2b

        mov     r0, #IO
        ldr     r1, =(31 << 8)                  @ BG0: tiles at block 0, map at block 31, 4 bits a pixel
        strh    r1, [r0, #BG0CNT]
        bl      draw
        mov     r0, #IO
        mov     r1, #0x100                      @ mode 0, BG0 on, forced blank off
        strh    r1, [r0, #DISPCNT]

@ --- Once a frame, at the start of vertical blank (VCOUNT 160) -----------------------------
frame:
        mov     r0, #IO
1:      ldrh    r1, [r0, #VCOUNT]
        cmp     r1, #VBLANK_LINE
        bhs     1b
2:      ldrh    r1, [r0, #VCOUNT]
        cmp     r1, #VBLANK_LINE
        blo     2b

        add     r1, r0, #KEYINPUT               @ (ldrh takes offsets up to 255)
        ldrh    r1, [r1]
        ldr     r2, =0x3FF
        bic     r5, r2, r1                      @ the ten keys, 1 = held
        ldr     r4, =block
        strh    r5, [r4, #KEYS]

        ldr     r0, [r4, #CRC]
        and     r1, r5, #0xFF                   @ byte 0, then byte 1
        bl      crc_fold
        mov     r1, r5, lsr #8
        bl      crc_fold
        str     r0, [r4, #CRC]

        ldr     r0, [r4, #FRAME]
        add     r0, r0, #1
        str     r0, [r4, #FRAME]

        bl      draw
        b       frame

        .include "arm_crc_fold.inc"

@ draw: the keys, the checksum and the frame counter in hex on rows 1, 3 and 5; the backdrop a
@ dark colour picked from the checksum (black while it is 0), the digits white. Runs in
@ vertical blank (or during forced blank). Uses r0-r3, r12.
draw:
        push    {r4, lr}
        ldr     r4, =block
        ldrh    r0, [r4, #KEYS]
        ldr     r1, =MAP + (32 * 1 + 1) * 2
        mov     r2, #4
        bl      put_hex
        ldr     r0, [r4, #CRC]
        ldr     r1, =MAP + (32 * 3 + 1) * 2
        mov     r2, #8
        bl      put_hex
        ldr     r0, [r4, #FRAME]
        ldr     r1, =MAP + (32 * 5 + 1) * 2
        mov     r2, #8
        bl      put_hex

        ldr     r0, [r4, #CRC]
        ldr     r1, =0x3DEF                     @ 5 bits of each of red, green, blue: the top one off
        and     r0, r0, r1
        ldr     r1, =0x7FFF
        ldr     r2, =PALETTE
        strh    r0, [r2, #0]                    @ entry 0: the backdrop
        strh    r1, [r2, #2]                    @ entry 1: the digits
        pop     {r4, lr}
        bx      lr

@ put_hex: the low r2 digits of r0, most significant first, as digit tiles at map address r1.
@ Uses r3, r12.
put_hex:
        mov     r3, r2, lsl #2
1:      sub     r3, r3, #4
        mov     r12, r0, lsr r3
        and     r12, r12, #0x0F
        add     r12, r12, #1
        strh    r12, [r1], #2
        cmp     r3, #0
        bne     1b
        bx      lr

        .ltorg

        .section .rodata
        .include "arm_digits.inc"
