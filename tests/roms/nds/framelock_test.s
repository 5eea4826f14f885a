@ framelock test ROM for the Nintendo DS (desmume): the cartridge header and the ARM9 program,
@ ARM assembly for arm-none-eabi-as (ARMv5TE). Like the other test ROMs: every frame, at the
@ start of vertical blank, it reads the twelve keys, stores the raw bits, folds them into a
@ running CRC-32, counts the frame and shows the three on the top screen, so a one-frame tap
@ changes RAM on its frame and the checksum differs from then on. The contract block and the
@ key bits are in ../README.md. The ten keys of KEYINPUT are read here; X and Y only reach
@ the ARM7, whose program (arm7.s) copies them to main RAM.
@
@ The header (the file's first 0x200 bytes) is written here, its addresses and sizes from
@ nds.ld. The 156 bytes where a commercial cartridge carries the boot logo stay zero (the
@ logo is Nintendo's data): a console's BIOS would refuse the cartridge, desmume's own boot
@ code (used without BIOS and firmware files) starts it. The two CRC-16 fields, of the logo
@ area and of the header, are computed by assemble.cmake and passed to the linker as
@ LOGO_CRC and HEADER_CRC. The program runs without interrupts and waits for vertical blank
@ by reading VCOUNT; the screen is the main engine in its VRAM display mode (bank A: a
@ 256x192 bitmap of 15-bit colours).

        .syntax unified
        .cpu    arm946e-s
        .arm

        .equ    IO,             0x04000000
        .equ    DISPCNT,        0x000           @ offsets from IO
        .equ    VCOUNT,         0x006
        .equ    KEYINPUT,       0x130           @ bits 0-9, 0 = held
        .equ    IME,            0x208
        .equ    VRAMCNT_A,      0x240
        .equ    POWCNT1,        0x304
        .equ    LCDC_A,         0x06800000      @ bank A mapped for the CPU: the bitmap shown
        .equ    LINE,           512             @ bytes a screen line
        .equ    VBLANK_LINE,    192             @ VCOUNT of the first line of vertical blank
        .equ    BAND_LINES,     80              @ the lines behind the digits, coloured

@ The contract block (README.md), pinned at 0x02000010 by nds.ld.
        .equ    KEYS,           0               @ the keys, 1 = held, little-endian: A B Select
                                                @ Start Right Left Up Down (byte 0), R L X Y
                                                @ (byte 1, bits 0-3)
        .equ    SIG,            5               @ 'F' 'L' 1
        .equ    CRC,            8               @ CRC-32 of every key byte read, little-endian
        .equ    FRAME,          12              @ frames processed, little-endian

        .section .block, "aw", %nobits
block:  .space  16

@ --- The cartridge header ------------------------------------------------------------------
        .section .header, "a"
        .ascii  "FRAMELOCK"                     @ 0x000: title, zero-padded to 12 bytes
        .space  3
        .word   0                               @ 0x00C: game code: none (homebrew)
        .hword  0                               @ 0x010: maker code: none
        .byte   0                               @ 0x012: unit code: the DS
        .byte   0                               @ 0x013: encryption seed select
        .byte   0                               @ 0x014: device capacity: 128 KiB
        .space  7                               @ 0x015: reserved
        .byte   0                               @ 0x01C: reserved
        .byte   0                               @ 0x01D: region: normal
        .byte   0                               @ 0x01E: ROM version
        .byte   0                               @ 0x01F: autostart flags
        .word   arm9_rom_offset                 @ 0x020: the ARM9 program: file offset,
        .word   start9                          @        entry, RAM address, size
        .word   arm9_ram_address
        .word   arm9_size
        .word   arm7_rom_offset                 @ 0x030: the ARM7 program, the same four
        .word   start7
        .word   arm7_ram_address
        .word   arm7_size
        .space  0x20                            @ 0x040: file name and allocation tables,
                                                @        overlays: none
        .word   0, 0                            @ 0x060: card bus settings: left to the boot code
        .word   0                               @ 0x068: icon and title: none
        .hword  0, 0                            @ 0x06C: secure area checksum, delay: no
                                                @        secure area
        .word   0, 0                            @ 0x070: auto-load hooks: none
        .space  8                               @ 0x078: secure area disable
        .word   rom_used_size                   @ 0x080: bytes used
        .word   0x4000                          @ 0x084: header size (the header region)
        .space  0x38                            @ 0x088: reserved
        .space  156                             @ 0x0C0: the boot logo's place, left zero
        .hword  LOGO_CRC                        @ 0x15C: CRC-16 of 0x0C0-0x15B
        .hword  HEADER_CRC                      @ 0x15E: CRC-16 of 0x000-0x15D
                                                @ (nds.ld pads the header to 0x200 bytes)

@ --- Start-up -----------------------------------------------------------------------------
        .section .arm9, "ax"
        .global start9
start9:
        mov     r0, #IO
        mov     r1, #0
        str     r1, [r0, #IME]                  @ no interrupts
        ldr     sp, =0x02003F00                 @ the stack below the program
        ldr     r1, =0x8003                     @ LCDs on, engine A on, on the top screen
        add     r2, r0, #POWCNT1
        strh    r1, [r2]
        mov     r1, #0x80                       @ bank A on, mapped for the CPU (LCDC)
        add     r2, r0, #VRAMCNT_A
        strb    r1, [r2]
        mov     r1, #0x00020000                 @ display mode 2: bank A's bitmap
        str     r1, [r0, #DISPCNT]

        @ The block to zero (the counters start from known bytes), then the signature.
        ldr     r4, =block
        mov     r1, #0
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

        @ The whole bitmap black.
        ldr     r0, =LCDC_A
        add     r1, r0, #LINE * 192
        mov     r2, #0
        mov     r3, #0
        mov     r5, #0
        mov     r6, #0
1:      stmia   r0!, {r2, r3, r5, r6}
        cmp     r0, r1
        blo     1b
        bl      draw

        @ The first vertical blank passes unread: desmume's first call runs from power-on
        @ through it, and without this the ROM would fold that call's keys in during the
        @ call that writes the block's signature, where a test comparing the block before
        @ and after the call cannot count them. From here on each call reads the keys once.
        mov     r0, #IO
        bl      wait_vblank

@ --- Once a frame, at the start of vertical blank (VCOUNT 192) -----------------------------
frame:
        mov     r0, #IO
        bl      wait_vblank
        add     r1, r0, #KEYINPUT               @ (ldrh takes offsets up to 255)
        ldrh    r1, [r1]
        ldr     r2, =0x3FF
        bic     r5, r2, r1                      @ the ten keys, 1 = held
        ldr     r1, =xy_keys                    @ X, Y from the ARM7, 1 = held
        ldrh    r1, [r1]
        and     r1, r1, #3
        orr     r5, r5, r1, lsl #10
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

@ wait_vblank: returns at the start of the next vertical blank (VCOUNT reaching 192), r0 = IO.
@ Uses r1.
wait_vblank:
1:      ldrh    r1, [r0, #VCOUNT]
        cmp     r1, #VBLANK_LINE
        bhs     1b
2:      ldrh    r1, [r0, #VCOUNT]
        cmp     r1, #VBLANK_LINE
        blo     2b
        bx      lr

        .include "arm_crc_fold.inc"

@ draw: the keys, the checksum and the frame counter in hex, digits 16x16 pixels (the 8x8
@ glyphs doubled) at lines 16, 36 and 56; the band of lines 0-79 behind them a dark colour
@ picked from the checksum (black while it is 0), the digits white. Uses r0-r3, r12.
draw:
        push    {r4-r11, lr}
        ldr     r4, =block
        ldr     r0, [r4, #CRC]
        ldr     r1, =0x3DEF                     @ 5 bits of each of red, green, blue: the top one off
        and     r0, r0, r1
        orr     r8, r0, r0, lsl #16             @ two backdrop pixels
        ldr     r9, =0x7FFF7FFF                 @ two white pixels

        ldr     r0, =LCDC_A
        add     r1, r0, #LINE * BAND_LINES
        mov     r2, r8
        mov     r3, r8
        mov     r5, r8
        mov     r6, r8
1:      stmia   r0!, {r2, r3, r5, r6}
        cmp     r0, r1
        blo     1b

        ldrh    r0, [r4, #KEYS]
        ldr     r1, =LCDC_A + LINE * 16 + 2 * 16
        mov     r2, #4
        bl      put_hex
        ldr     r0, [r4, #CRC]
        ldr     r1, =LCDC_A + LINE * 36 + 2 * 16
        mov     r2, #8
        bl      put_hex
        ldr     r0, [r4, #FRAME]
        ldr     r1, =LCDC_A + LINE * 56 + 2 * 16
        mov     r2, #8
        bl      put_hex
        pop     {r4-r11, lr}
        bx      lr

@ put_hex: the low r2 digits of r0, most significant first, at bitmap address r1 (the top
@ left pixel), each glyph pixel two by two screen pixels: r9's where the glyph is lit, r8's
@ elsewhere. Uses r1-r3, r5-r7, r10-r12.
put_hex:
        mov     r3, r2, lsl #2                  @ the shift of the next digit, plus 4
1:      sub     r3, r3, #4
        mov     r12, r0, lsr r3
        and     r12, r12, #0x0F
        ldr     r5, =font
        add     r5, r5, r12, lsl #3             @ the glyph: 8 bytes
        mov     r6, #8                          @ rows left
        mov     r10, r1                         @ the row's first screen line
2:      ldrb    r7, [r5], #1                    @ bit 7 the leftmost pixel
        mov     r11, #0                         @ 4 * the pixel's column
3:      tst     r7, #0x80
        moveq   r12, r8
        movne   r12, r9
        str     r12, [r10, r11]
        add     r2, r10, #LINE
        str     r12, [r2, r11]
        mov     r7, r7, lsl #1
        add     r11, r11, #4
        cmp     r11, #32
        blo     3b
        add     r10, r10, #LINE * 2
        subs    r6, r6, #1
        bne     2b
        add     r1, r1, #2 * 16                 @ the next digit, 16 pixels on
        cmp     r3, #0
        bne     1b
        bx      lr

        .ltorg

        .include "arm_digits.inc"
