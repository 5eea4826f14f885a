; framelock test ROM for the Game Boy (gambatte; mgba in GB mode), SM83 assembly for
; sdasgb (sdcc). Like the NES and PC Engine ROMs: every frame it reads the pad, stores the
; raw byte, folds it into a running CRC-32, counts the frame and shows all three on screen,
; so a one-frame tap changes RAM on its frame and the checksum differs from then on.
;
; makebin -Z writes the cartridge header (0x0104-0x014F: logo, title, checksums); this file
; gives the entry point at 0x0100 and the program from 0x0150. ROM only, 32 KiB, no MBC.
; The contract block and the pad bits are in ../README.md.

        .area   ROM (ABS)

P1      = 0xFF00        ; joypad: bits 5/4 select buttons/d-pad (0 = selected), bits 3-0 read (0 = held)
LCDC    = 0xFF40
SCY     = 0xFF42
SCX     = 0xFF43
LY      = 0xFF44
BGP     = 0xFF47
IE      = 0xFFFF

WRAM    = 0xC000
TILES   = 0x8000        ; tile 0 blank, tiles 1-16 the hex digits 0-F
MAP     = 0x9800        ; background map, 32 tiles a row

; The contract block (README.md), in work RAM: RETRO_MEMORY_SYSTEM_RAM offset 0x10.
BLOCK   = 0xC010
PAD     = BLOCK + 0     ; the pad byte, 1 = held
SIG     = BLOCK + 5     ; 'F' 'L' 1
CRC     = BLOCK + 8     ; CRC-32 of every pad byte read, little-endian
FRAME   = BLOCK + 12    ; frames processed, little-endian

        .org    0x0100
        nop
        jp      start

        .org    0x0150
start:
        di
        ld      sp, #0xE000

        ; Work RAM to zero (the block and the counters start from known bytes), inline: the
        ; stack lives at its top.
        ld      hl, #WRAM
        ld      bc, #0x2000
0$:     xor     a
        ld      (hl+), a
        dec     bc
        ld      a, b
        or      c
        jr      nz, 0$

        ; The LCD may be switched off only during vertical blank.
1$:     ld      a, (LY)
        cp      #144
        jr      c, 1$
        xor     a
        ld      (LCDC), a

        ; Video RAM to zero (tile 0 and the map blank), then the digits as tiles 1-16: each
        ; font row in both bit planes, so lit pixels take colour 3.
        ld      hl, #TILES
        ld      bc, #0x2000
        call    zero
        ld      de, #font
        ld      hl, #TILES + 16
        ld      c, #16 * 8
2$:     ld      a, (de)
        inc     de
        ld      (hl+), a
        ld      (hl+), a
        dec     c
        jr      nz, 2$

        ld      hl, #SIG
        ld      a, #0x46        ; 'F'
        ld      (hl+), a
        ld      a, #0x4C        ; 'L'
        ld      (hl+), a
        ld      a, #1
        ld      (hl), a

        xor     a
        ld      (SCX), a
        ld      (SCY), a
        ld      (IE), a
        call    draw
        ld      a, #0x91        ; LCD on, tiles at 0x8000, map at 0x9800, background on
        ld      (LCDC), a

frame:
        ; Once a frame, at the start of vertical blank (LY 144).
3$:     ld      a, (LY)
        cp      #144
        jr      nc, 3$
4$:     ld      a, (LY)
        cp      #144
        jr      c, 4$

        call    read_pad
        ld      (PAD), a
        ld      b, a
        call    crc_fold

        ld      hl, #FRAME
        inc     (hl)
        jr      nz, 5$
        inc     hl
        inc     (hl)
        jr      nz, 5$
        inc     hl
        inc     (hl)
        jr      nz, 5$
        inc     hl
        inc     (hl)
5$:
        call    draw
        jr      frame

; zero: bc bytes from hl on to 0.
zero:
        xor     a
        ld      (hl+), a
        dec     bc
        ld      a, b
        or      c
        jr      nz, zero
        ret

; read_pad: a = the pad, 1 = held: Start, Select, B, A, Down, Up, Left, Right (bit 7 to 0).
read_pad:
        ld      a, #0x20        ; the d-pad
        ld      (P1), a
        ld      a, (P1)         ; a few reads: the lines settle
        ld      a, (P1)
        and     #0x0F
        swap    a
        ld      b, a
        ld      a, #0x10        ; the buttons
        ld      (P1), a
        ld      a, (P1)
        ld      a, (P1)
        ld      a, (P1)
        ld      a, (P1)
        and     #0x0F
        or      b               ; d-pad high, buttons low, 0 = held
        cpl
        swap    a               ; buttons high, d-pad low, 1 = held
        ld      b, a
        ld      a, #0x30        ; neither
        ld      (P1), a
        ld      a, b
        ret

; crc_fold: CRC ^= b, then eight reflected steps with 0xEDB88320 (no final XOR).
crc_fold:
        ld      hl, #CRC
        ld      a, (hl)
        xor     b
        ld      (hl), a
        ld      c, #8
1$:     ld      hl, #CRC + 3    ; CRC >>= 1, the bit shifted out in carry
        srl     (hl)
        dec     hl
        rr      (hl)
        dec     hl
        rr      (hl)
        dec     hl
        rr      (hl)
        jr      nc, 2$
        ld      a, (hl)         ; hl = CRC: ^= 0xEDB88320, little-endian
        xor     #0x20
        ld      (hl+), a
        ld      a, (hl)
        xor     #0x83
        ld      (hl+), a
        ld      a, (hl)
        xor     #0xB8
        ld      (hl+), a
        ld      a, (hl)
        xor     #0xED
        ld      (hl), a
2$:     dec     c
        jr      nz, 1$
        ret

; draw: pad, checksum and frame counter in hex on rows 1, 3 and 5; the background shade
; from the checksum (black while it is 0, the text always the opposite shade). Runs in
; vertical blank (or with the LCD off).
draw:
        ld      hl, #MAP + 32 * 1 + 1
        ld      a, (PAD)
        call    put_hex
        ld      hl, #MAP + 32 * 3 + 1
        ld      de, #CRC + 3
        call    put_word
        ld      hl, #MAP + 32 * 5 + 1
        ld      de, #FRAME + 3
        call    put_word

        ld      hl, #CRC
        ld      a, (hl+)
        or      (hl)
        inc     hl
        or      (hl)
        inc     hl
        or      (hl)
        ld      a, #0x03        ; colour 0 black, colour 3 white
        jr      z, 1$
        ld      a, (CRC)
        and     #0x03
        ld      b, a
        xor     #0x03
        rrca
        rrca
        or      b
1$:     ld      (BGP), a
        ret

; put_word: the 4 bytes from de down (most significant first) as 8 digits at hl on.
put_word:
        ld      b, #4
1$:     ld      a, (de)
        dec     de
        call    put_hex
        dec     b
        jr      nz, 1$
        ret

; put_hex: a as two digit tiles at hl, hl += 2.
put_hex:
        ld      c, a
        swap    a
        and     #0x0F
        inc     a
        ld      (hl+), a
        ld      a, c
        and     #0x0F
        inc     a
        ld      (hl+), a
        ret

; The digits 0-F: the glyphs of ../nes/font.inc (5x7 in pixel columns 1-5), a byte a row.
font:
        .db     0x38, 0x44, 0x4C, 0x54, 0x64, 0x44, 0x38, 0x00   ; 0
        .db     0x10, 0x30, 0x10, 0x10, 0x10, 0x10, 0x38, 0x00   ; 1
        .db     0x38, 0x44, 0x04, 0x08, 0x10, 0x20, 0x7C, 0x00   ; 2
        .db     0x7C, 0x08, 0x10, 0x08, 0x04, 0x44, 0x38, 0x00   ; 3
        .db     0x08, 0x18, 0x28, 0x48, 0x7C, 0x08, 0x08, 0x00   ; 4
        .db     0x7C, 0x40, 0x78, 0x04, 0x04, 0x44, 0x38, 0x00   ; 5
        .db     0x18, 0x20, 0x40, 0x78, 0x44, 0x44, 0x38, 0x00   ; 6
        .db     0x7C, 0x04, 0x08, 0x10, 0x20, 0x20, 0x20, 0x00   ; 7
        .db     0x38, 0x44, 0x44, 0x38, 0x44, 0x44, 0x38, 0x00   ; 8
        .db     0x38, 0x44, 0x44, 0x3C, 0x04, 0x08, 0x30, 0x00   ; 9
        .db     0x38, 0x44, 0x44, 0x7C, 0x44, 0x44, 0x44, 0x00   ; A
        .db     0x78, 0x44, 0x44, 0x78, 0x44, 0x44, 0x78, 0x00   ; B
        .db     0x38, 0x44, 0x40, 0x40, 0x40, 0x44, 0x38, 0x00   ; C
        .db     0x70, 0x48, 0x44, 0x44, 0x44, 0x48, 0x70, 0x00   ; D
        .db     0x7C, 0x40, 0x40, 0x78, 0x40, 0x40, 0x7C, 0x00   ; E
        .db     0x7C, 0x40, 0x40, 0x78, 0x40, 0x40, 0x40, 0x00   ; F
