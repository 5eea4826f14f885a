; framelock SNES input test ROM (LoROM, 32 KiB, two standard pads), 65816 assembly for ca65.
;
; Once per frame, at scanline READ_LINE (a V-count IRQ), the ROM reads both pads, stores the
; raw 16-bit words, folds their four bytes into a CRC-32 and counts the frame; the next vblank
; (the NMI) shows all of it on screen. Any button ever pressed changes RAM on the frame it is
; read and keeps the checksum different from then on. The RAM layout below is a contract with
; the integration tests (see tests/roms/README.md); change both together.
;
; The internal header's checksum is not written here: lorom.cfg leaves FL_CHECKSUM to the
; linker, and checksum.cmake links twice to give it the sum of the ROM's bytes.

.p816
.smart  -               ; register sizes are declared by hand after every rep/sep
.a8
.i8

; ---------------------------------------------------------------------------
; Fixed RAM layout. Bank $00 addresses $0000-$1FFF are WRAM $7E:0000-$1FFF, so these are
; also offsets into the 128 KiB work RAM.
fl_pads      = $0010    ; 4 bytes: pad 1, pad 2 as 16-bit words (LE), as the automatic read
                        ; would leave them in $4218/$421A:
                        ; bit 15..4 = B Y Select Start Up Down Left Right A X L R, 1 = held;
                        ; bit 3..0 = the pad's id, 0 for a standard pad
fl_signature = $0015    ; 3 bytes: 'F' 'L' layout-version, written once at reset
fl_crc       = $0018    ; 4 bytes LE: CRC-32 over the 4 bytes of fl_pads, in memory order,
                        ; of every frame read so far
fl_frame     = $001C    ; 4 bytes LE: frames processed (one increment per IRQ)

LAYOUT_VERSION = 1

; Scratch and display state (not part of the contract)
bits_tmp     = $0020    ; 2 bytes: shift register for the button letters
run_left     = $0022    ; tiles left in the current upload run
bg_colour    = $0024    ; 2 bytes: backdrop colour (BGR555) uploaded by the next NMI
text_buf     = $0200    ; tiles uploaded by the next NMI, see update_runs

; ---------------------------------------------------------------------------
; Hardware registers
INIDISP   = $2100       ; bit 7 forced blank, bits 3-0 brightness
OBSEL     = $2101
OAMADDL   = $2102       ; sprite table address
OAMADDH   = $2103
OAMDATA   = $2104
BGMODE    = $2105
MOSAIC    = $2106
BG1SC     = $2107       ; BG1 tile map address (1 KiB-word steps) and size
BG2SC     = $2108
BG3SC     = $2109
BG4SC     = $210A
BG12NBA   = $210B       ; BG1/BG2 tile data address (4 KiB-word steps)
BG34NBA   = $210C
BG1HOFS   = $210D       ; scroll registers $210D-$2114, each written twice
VMAIN     = $2115       ; VRAM address increment mode
VMADDL    = $2116       ; VRAM word address
VMADDH    = $2117
VMDATAL   = $2118
VMDATAH   = $2119
M7SEL     = $211A
CGADD     = $2121       ; palette address
CGDATA    = $2122       ; palette data, low byte then high byte
W12SEL    = $2123       ; window registers $2123-$212B
TM        = $212C       ; main screen layers
TS        = $212D
TMW       = $212E
TSW       = $212F
CGWSEL    = $2130
CGADSUB   = $2131
COLDATA   = $2132
SETINI    = $2133
WMDATA    = $2180       ; work RAM port
WMADDL    = $2181       ; work RAM port address (17 bits)
WMADDM    = $2182
WMADDH    = $2183
NMITIMEN  = $4200       ; bit 7 NMI at vblank, bit 5 IRQ at line VTIME, bit 0 automatic pad read
VTIMEL    = $4209       ; scanline of the V-count IRQ
VTIMEH    = $420A
WRIO      = $4201
MDMAEN    = $420B       ; start DMA channels
HDMAEN    = $420C
MEMSEL    = $420D
RDNMI     = $4210       ; reading acknowledges the NMI
TIMEUP    = $4211       ; reading acknowledges the IRQ
JOYSER0   = $4016       ; write: bit 0 latches both pads; read: bit 0 is pad 1's next button
JOYSER1   = $4017       ; read: bit 0 is pad 2's next button
DMAP0     = $4300       ; DMA channel 0: mode, B-bus register, A-bus address, size
BBAD0     = $4301
A1T0L     = $4302
A1B0      = $4304
DAS0L     = $4305

NMITIMEN_ON = $A0       ; NMI and V-count IRQ, no automatic read
READ_LINE   = 112       ; scanline at which the pads are read: mid-picture, far from the
                        ; frame's edges (README.md, "Timing")
DMAP_FIXED  = $08       ; read the same source byte every time
DMAP_2REG   = $01       ; write register, register + 1 in turn (VMDATAL/VMDATAH)
INIDISP_ON  = $0F       ; display on, full brightness
INIDISP_OFF = $80       ; forced blank
BG1_MAP     = $0800     ; VRAM word address of BG1's 32x32 tile map; tiles at word 0
COLOUR_WHITE = $7FFF

; VRAM word address of tile column x, row y of BG1's map.
.define TM_AT(cx, cy) (BG1_MAP + ((cy) * 32) + (cx))

; ---------------------------------------------------------------------------
.segment "HEADER"       ; $00:FFC0, file offset $7FC0
        .byte   "FRAMELOCK SNES TEST  " ; title, 21 bytes
        .assert * = $FFD5, error, "the title must be 21 bytes"
        .byte   $20             ; map mode: LoROM, 2.68 MHz ROM
        .byte   $00             ; cartridge: ROM only
        .byte   $05             ; ROM size: 2^5 KiB = 32 KiB
        .byte   $00             ; no cartridge RAM
        .byte   $01             ; destination: North America (NTSC, 60 Hz)
        .byte   $00             ; developer
        .byte   $00             ; version
.import FL_CHECKSUM             ; lorom.cfg, set by checksum.cmake
        .word   FL_CHECKSUM ^ $FFFF     ; complement
        .word   FL_CHECKSUM             ; 16-bit sum of every byte of the ROM

.segment "VECTORS"      ; $00:FFE0
        ; native mode, the one the ROM runs in
        .word   0, 0
        .addr   ignore          ; COP
        .addr   ignore          ; BRK
        .addr   ignore          ; ABORT
        .addr   nmi             ; NMI
        .word   0
        .addr   irq             ; IRQ
        ; emulation mode, only until the first instructions of reset
        .word   0, 0
        .addr   ignore          ; COP
        .word   0
        .addr   ignore          ; ABORT
        .addr   ignore          ; NMI (not enabled yet)
        .addr   reset           ; RESET
        .addr   ignore          ; IRQ, BRK

; ---------------------------------------------------------------------------
.segment "RODATA"

zero_byte:
        .byte   0               ; source of the DMA fills

; ---------------------------------------------------------------------------
.segment "CODE"

.include "../common/crc32.inc"
.include "display.inc"

; The CPU starts in 6502 emulation mode with interrupts off.
.proc reset
        sei
        clc
        xce                     ; native 65816 mode
        rep     #$38            ; 16-bit A and index, binary arithmetic
.a16
.i16
        ldx     #$1FFF
        txs
        lda     #$0000
        tcd                     ; direct page at $0000
        sep     #$30
.a8
.i8
        pha
        plb                     ; data bank $00: WRAM mirror, registers and this ROM

        lda     #INIDISP_OFF
        sta     INIDISP
        stz     NMITIMEN
        stz     HDMAEN
        stz     MEMSEL          ; 2.68 MHz ROM access, as the header says
        lda     #$FF
        sta     WRIO

        ; Work RAM, video RAM, palette and sprite table to zero: power-on memory depends on
        ; the emulator (bsnes fills some of it at random), and the run must depend on the
        ; inputs only. Inline: the stack lives in the work RAM being cleared. Each 64 KiB
        ; bank from its own address: bsnes-mercury's port address did not carry into bank
        ; $7F after the first 64 KiB (its upper half kept power-on bytes, measured).
        stz     WMADDH          ; bank $7E first
        lda     #DMAP_FIXED
        sta     DMAP0
        lda     #<WMDATA
        sta     BBAD0
        ldx     #2              ; 2 x 64 KiB
wram_half:
        stz     WMADDL
        stz     WMADDM
        rep     #$20
.a16
        lda     #zero_byte
        sta     A1T0L
        stz     DAS0L           ; 0 = 65536 bytes
        sep     #$20
.a8
        stz     A1B0
        lda     #$01
        sta     MDMAEN
        sta     WMADDH          ; then bank $7F (A = 1)
        dex
        bne     wram_half

        lda     #$80            ; VRAM address steps after the high byte
        sta     VMAIN
        stz     VMADDL
        stz     VMADDH
        lda     #DMAP_FIXED | DMAP_2REG
        sta     DMAP0
        lda     #<VMDATAL
        sta     BBAD0
        rep     #$20
.a16
        lda     #zero_byte
        sta     A1T0L
        stz     DAS0L           ; 65536 bytes: all 32 K words
        sep     #$20
.a8
        lda     #$01
        sta     MDMAEN

        stz     CGADD
        lda     #DMAP_FIXED
        sta     DMAP0
        lda     #<CGDATA
        sta     BBAD0
        rep     #$20
.a16
        lda     #zero_byte
        sta     A1T0L
        lda     #512            ; 256 colours
        sta     DAS0L
        sep     #$20
.a8
        lda     #$01
        sta     MDMAEN

        stz     OAMADDL
        stz     OAMADDH
        lda     #<OAMDATA       ; DMAP0 still DMAP_FIXED
        sta     BBAD0
        rep     #$20
.a16
        lda     #zero_byte
        sta     A1T0L
        lda     #544            ; 128 sprites x 4 bytes + 32 bytes of size bits
        sta     DAS0L
        sep     #$20
.a8
        lda     #$01
        sta     MDMAEN

        jsr     init_ppu
        jsr     upload_font
        lda     #3              ; text colour: palette 0, colour 3
        sta     CGADD
        lda     #<COLOUR_WHITE
        sta     CGDATA
        lda     #>COLOUR_WHITE
        sta     CGDATA
        jsr     draw_static_text

        lda     #'F'
        sta     fl_signature+0
        lda     #'L'
        sta     fl_signature+1
        lda     #LAYOUT_VERSION
        sta     fl_signature+2

        jsr     build_text      ; the first NMI uploads a valid buffer
        lda     #INIDISP_ON
        sta     INIDISP
        lda     #READ_LINE
        sta     VTIMEL
        stz     VTIMEH
        lda     RDNMI           ; drop a vblank and an IRQ flag raised during the set-up
        lda     TIMEUP
        lda     #NMITIMEN_ON
        sta     NMITIMEN
        cli
forever:
        wai                     ; all per-frame work happens in nmi and irq
        bra     forever
.endproc

.proc ignore
        rti
.endproc

; Vblank: upload what the IRQ prepared.
.proc nmi
        rep     #$30
.a16
.i16
        pha
        phx
        phy
        sep     #$30
.a8
.i8
        lda     RDNMI
        jsr     upload_text
        stz     CGADD           ; backdrop: colour 0
        lda     bg_colour+0
        sta     CGDATA
        lda     bg_colour+1
        sta     CGDATA
        rep     #$30
.a16
.i16
        ply
        plx
        pla
        rti                     ; restores the register sizes too
.endproc
.a8
.i8

; Scanline READ_LINE: sample the pads, update the contract variables and prepare the display.
.proc irq
        rep     #$30
.a16
.i16
        pha
        phx
        phy
        sep     #$30
.a8
.i8
        lda     TIMEUP
        jsr     read_pads
        ldy     #0
fold:
        lda     fl_pads, y
        jsr     crc32_fold      ; keeps Y
        iny
        cpy     #4
        bne     fold
        rep     #$20
.a16
        inc     fl_frame+0
        bne     counted
        inc     fl_frame+2
counted:
        sep     #$20
.a8
        jsr     build_text
        rep     #$30
.a16
.i16
        ply
        plx
        pla
        rti
.endproc
.a8
.i8

; Latch both pads, then shift in 16 bits from each, B first, so that B ends in bit 15 and the
; pad's 4-bit id (0 for a standard pad) in bits 3..0: the word the automatic read gives.
.proc read_pads
        lda     #1
        sta     JOYSER0
        stz     JOYSER0
        ldx     #16
next_bit:
        lda     JOYSER0
        lsr                     ; carry = held
        rol     fl_pads+0
        rol     fl_pads+1
        lda     JOYSER1
        lsr
        rol     fl_pads+2
        rol     fl_pads+3
        dex
        bne     next_bit
        rts
.endproc

; Mode 0 with BG1 alone on the main screen, its map at BG1_MAP and its tiles at word 0; no
; scrolling, windows or colour maths. Forced blank.
.proc init_ppu
        stz     OBSEL
        stz     BGMODE
        stz     MOSAIC
        lda     #(BG1_MAP >> 10) << 2   ; word address bits 15-10 in bits 7-2; 32x32 tiles
        sta     BG1SC
        stz     BG2SC
        stz     BG3SC
        stz     BG4SC
        stz     BG12NBA
        stz     BG34NBA
        ldx     #0
scroll:
        stz     BG1HOFS, x      ; every scroll register, twice
        stz     BG1HOFS, x
        inx
        cpx     #8
        bne     scroll
        stz     M7SEL
        ldx     #0
window:
        stz     W12SEL, x
        inx
        cpx     #TM - W12SEL
        bne     window
        lda     #$01            ; BG1
        sta     TM
        stz     TS
        stz     TMW
        stz     TSW
        lda     #$30            ; no colour maths anywhere
        sta     CGWSEL
        stz     CGADSUB
        lda     #$E0            ; fixed colour black
        sta     COLDATA
        stz     SETINI
        rts
.endproc
