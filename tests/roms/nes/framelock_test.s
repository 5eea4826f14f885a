; framelock NES input test ROM (iNES mapper 0, NROM-128, two standard pads).
;
; Once per frame, inside the vblank NMI, the ROM reads both pads, stores the raw
; bytes, folds them into a CRC-32 and counts the frame, then shows all of it on
; screen. Any button ever pressed changes RAM on the frame it is read and keeps
; the checksum different from then on. The RAM layout below is a contract with
; the integration tests (see tests/roms/README.md); change both together.

; ---------------------------------------------------------------------------
; Fixed RAM layout (CPU addresses = offsets into the 2 KiB system RAM)
fl_pads      = $0010    ; 2 bytes: pad 1, pad 2; bit 7..0 = A B Select Start Up Down Left Right, 1 = held
fl_signature = $0015    ; 3 bytes: 'F' 'L' layout-version, written once at reset
fl_crc       = $0018    ; 4 bytes LE: CRC-32 over pad 1, pad 2 of every frame read so far
fl_frame     = $001C    ; 4 bytes LE: frames processed (one increment per NMI)

LAYOUT_VERSION = 1

; Scratch and display state (not part of the contract)
bits_tmp     = $0020    ; shift register for put_pad
saved_y      = $0021    ; put_hex keeps Y here
run_left     = $0022    ; tiles left in the current upload run
bg_colour    = $0023    ; palette value uploaded to $3F00 by the next NMI
text_ptr     = $0024    ; 2 bytes: walks static_text
text_buf     = $0200    ; tiles uploaded by the next NMI, see update_runs

; ---------------------------------------------------------------------------
; Hardware registers
PPUCTRL   = $2000
PPUMASK   = $2001
PPUSTATUS = $2002
PPUSCROLL = $2005
PPUADDR   = $2006
PPUDATA   = $2007
DMC_FREQ  = $4010
JOY1      = $4016
JOY2      = $4017       ; read: pad 2
APU_FRAME = $4017       ; write: APU frame counter

PPUCTRL_NMI   = $80
PPUMASK_BG    = $0A     ; background on, including the leftmost 8 pixels
COLOUR_BLACK  = $0F
COLOUR_WHITE  = $30

; Nametable address of tile column x, row y.
; (ca65 misparses "(cy) * 32" inside .define, hence the extra parentheses.)
.define NT(cx, cy) ($2000 + ((cy) * 32) + (cx))

; ---------------------------------------------------------------------------
.segment "INES"
        .byte   "NES", $1A
        .byte   1               ; 16 KiB PRG
        .byte   1               ; 8 KiB CHR
        .byte   $01             ; mapper 0, vertical mirroring, no battery
        .byte   $00             ; mapper 0
        .res    8, 0

.segment "CHR"
.include "font.inc"

.segment "VECTORS"
        .addr   nmi, reset, irq

; ---------------------------------------------------------------------------
.segment "RODATA"

hex_chars:
        .byte   "0123456789ABCDEF"

; Letter shown for each held button, bit 7 first; '-' when released.
button_letters:
        .byte   "ABSTUDLR"

; Static text drawn once at reset: nametable address, then a 0-terminated string.
static_text:
        .addr   NT(4, 4)
        .byte   "FRAMELOCK NES INPUT TEST", 0
        .addr   NT(4, 7)
        .byte   "PAD1", 0
        .addr   NT(4, 8)
        .byte   "PAD2", 0
        .addr   NT(4, 10)
        .byte   "SUM", 0
        .addr   NT(4, 11)
        .byte   "FRAME", 0
        .addr   NT(4, 14)
        .byte   "BUTTONS ABSTUDLR", 0
        .addr   0

; Runs of text_buf copied to the nametable by every NMI: address, length.
; Their total is the size of text_buf; build_text fills it in the same order.
PAD_RUN_LEN  = 11       ; "XX" hex, a space, 8 button letters
WORD_RUN_LEN = 8        ; 32-bit value in hex, most significant byte first
update_runs:
        .addr   NT(10, 7)
        .byte   PAD_RUN_LEN
        .addr   NT(10, 8)
        .byte   PAD_RUN_LEN
        .addr   NT(10, 10)
        .byte   WORD_RUN_LEN
        .addr   NT(10, 11)
        .byte   WORD_RUN_LEN
        .addr   0

; ---------------------------------------------------------------------------
.segment "CODE"

.include "../common/crc32.inc"

.proc reset
        sei
        cld
        ldx     #$40
        stx     APU_FRAME       ; no APU frame IRQ
        ldx     #$FF
        txs
        inx
        stx     PPUCTRL         ; no NMI yet
        stx     PPUMASK         ; rendering off
        stx     DMC_FREQ        ; no DMC IRQ
        bit     PPUSTATUS
wait_vblank1:
        bit     PPUSTATUS
        bpl     wait_vblank1

        ; Power-on RAM content depends on the emulator's settings; clear it so
        ; the run depends on the inputs only.
        txa
clear_ram:
        sta     $0000, x
        sta     $0100, x
        sta     $0200, x
        sta     $0300, x
        sta     $0400, x
        sta     $0500, x
        sta     $0600, x
        sta     $0700, x
        inx
        bne     clear_ram

wait_vblank2:                   ; the PPU accepts writes after its second vblank
        bit     PPUSTATUS
        bpl     wait_vblank2

        lda     #'F'
        sta     fl_signature+0
        lda     #'L'
        sta     fl_signature+1
        lda     #LAYOUT_VERSION
        sta     fl_signature+2

        jsr     init_palette
        jsr     clear_nametable
        jsr     draw_static_text
        jsr     build_text      ; the first NMI uploads a valid buffer

        lda     #PPUCTRL_NMI
        sta     PPUCTRL
forever:
        jmp     forever         ; all per-frame work happens in nmi
.endproc

.proc irq
        rti
.endproc

; Per frame: upload what the previous frame prepared (vblank-only work first),
; then sample the pads, update the contract variables and prepare the display.
.proc nmi
        pha
        txa
        pha
        tya
        pha

        jsr     upload_text
        bit     PPUSTATUS
        lda     #$3F
        sta     PPUADDR
        lda     #$00
        sta     PPUADDR
        lda     bg_colour
        sta     PPUDATA
        lda     #$00            ; leave the palette address before rendering
        sta     PPUADDR
        sta     PPUADDR
        sta     PPUSCROLL
        sta     PPUSCROLL
        lda     #PPUCTRL_NMI
        sta     PPUCTRL
        lda     #PPUMASK_BG
        sta     PPUMASK

        jsr     read_pads
        lda     fl_pads+0
        jsr     crc32_fold
        lda     fl_pads+1
        jsr     crc32_fold
        inc     fl_frame+0
        bne     counted
        inc     fl_frame+1
        bne     counted
        inc     fl_frame+2
        bne     counted
        inc     fl_frame+3
counted:
        jsr     build_text

        pla
        tay
        pla
        tax
        pla
        rti
.endproc

; Strobe both pads, then shift in 8 buttons from each (A first, so A ends in
; bit 7). Bits 0 and 1 both count, which also accepts Famicom expansion pads.
.proc read_pads
        lda     #1
        sta     JOY1
        lda     #0
        sta     JOY1
        ldx     #8
next_button:
        lda     JOY1
        and     #$03
        cmp     #$01            ; carry = held
        rol     fl_pads+0
        lda     JOY2
        and     #$03
        cmp     #$01
        rol     fl_pads+1
        dex
        bne     next_button
        rts
.endproc

; Fill text_buf from the contract variables, in update_runs order, and pick
; the background colour: black while the checksum is 0, else a hue from it.
.proc build_text
        ldx     #0
        lda     fl_pads+0
        jsr     put_pad
        lda     fl_pads+1
        jsr     put_pad
        ldy     #3
crc_byte:
        lda     fl_crc, y
        jsr     put_hex
        dey
        bpl     crc_byte
        ldy     #3
frame_byte:
        lda     fl_frame, y
        jsr     put_hex
        dey
        bpl     frame_byte

        lda     fl_crc+0
        ora     fl_crc+1
        ora     fl_crc+2
        ora     fl_crc+3
        bne     coloured
        lda     #COLOUR_BLACK
        sta     bg_colour
        rts
coloured:
        lda     fl_crc+0
        and     #$0F
        cmp     #$0D            ; hues $D..$F are black/grey: fold onto $9..$B
        bcc     hue_ok
        sbc     #4
hue_ok:
        sta     bg_colour
        lda     fl_crc+1
        and     #$10            ; dark or medium brightness; white text stays readable
        ora     bg_colour
        sta     bg_colour
        rts
.endproc

; A = pad byte; appends "XX LLLLLLLL" at text_buf+X. Preserves Y.
.proc put_pad
        pha
        jsr     put_hex
        lda     #' '
        sta     text_buf, x
        inx
        pla
        sta     bits_tmp
        tya
        pha
        ldy     #0
next_bit:
        asl     bits_tmp
        lda     #'-'
        bcc     store
        lda     button_letters, y
store:
        sta     text_buf, x
        inx
        iny
        cpy     #8
        bne     next_bit
        pla
        tay
        rts
.endproc

; A = byte; appends its two hex digits at text_buf+X. Preserves Y.
.proc put_hex
        pha
        lsr
        lsr
        lsr
        lsr
        jsr     put_nibble
        pla
        and     #$0F
put_nibble:
        sty     saved_y
        tay
        lda     hex_chars, y
        sta     text_buf, x
        inx
        ldy     saved_y
        rts
.endproc

; Copy text_buf to the nametable as described by update_runs. Vblank only.
.proc upload_text
        ldx     #0              ; offset in text_buf
        ldy     #0              ; offset in update_runs
next_run:
        lda     update_runs+1, y
        beq     done
        bit     PPUSTATUS
        sta     PPUADDR
        lda     update_runs+0, y
        sta     PPUADDR
        lda     update_runs+2, y
        sta     run_left
copy:
        lda     text_buf, x
        sta     PPUDATA
        inx
        dec     run_left
        bne     copy
        iny
        iny
        iny
        bne     next_run
done:
        rts
.endproc

; Background palette 0: colour 3 is the text colour; the rest stay black.
.proc init_palette
        bit     PPUSTATUS
        lda     #$3F
        sta     PPUADDR
        lda     #$00
        sta     PPUADDR
        ldx     #32
fill:
        lda     #COLOUR_BLACK
        sta     PPUDATA
        dex
        bne     fill
        lda     #$3F
        sta     PPUADDR
        lda     #$03
        sta     PPUADDR
        lda     #COLOUR_WHITE
        sta     PPUDATA
        lda     #COLOUR_BLACK
        sta     bg_colour
        rts
.endproc

; Tiles and attributes of nametable 0 to 0 (blank tile, palette 0).
.proc clear_nametable
        bit     PPUSTATUS
        lda     #$20
        sta     PPUADDR
        lda     #$00
        sta     PPUADDR
        ldy     #4              ; 4 x 256 bytes
        tax
fill:
        sta     PPUDATA
        inx
        bne     fill
        dey
        bne     fill
        rts
.endproc

; Rendering must be off.
.proc draw_static_text
        ptr = text_ptr
        lda     #<static_text
        sta     ptr
        lda     #>static_text
        sta     ptr+1
next_string:
        ldy     #1
        lda     (ptr), y        ; address high byte; 0 ends the table
        beq     done
        bit     PPUSTATUS
        sta     PPUADDR
        dey
        lda     (ptr), y
        sta     PPUADDR
        ldy     #2
next_char:
        lda     (ptr), y
        beq     end_of_string
        sta     PPUDATA
        iny
        bne     next_char
end_of_string:
        iny                     ; step past the terminator
        tya
        clc
        adc     ptr
        sta     ptr
        bcc     next_string
        inc     ptr+1
        bne     next_string
done:
        rts
.endproc
