; Input side of the framelock PC Engine test ROM: reads five pads through the
; multitap, keeps the contract block (raw pads, CRC-32, frame counter) and
; hands it to the C display code. The block's addresses are a contract with
; the integration tests (see tests/roms/README.md); change both together.

        .export _fl_init, _fl_update
        .export _fl_pads, _fl_crc, _fl_frame

PAD_COUNT      = 5
LAYOUT_VERSION = 1

JOYPORT = $1000         ; I/O page mapped at $0000 by the start-up code
JOY_SEL = $01           ; write bit 0: which nibble the selected pad returns
JOY_CLR = $02           ; write bit 1: high while SEL is high resets the multitap

; ---------------------------------------------------------------------------
; Contract block, placed at $2200 by hucard.cfg.
.segment "CONTRACT"
_fl_pads:       .res PAD_COUNT  ; $2200: pads 1..5; bit 0..7 = I II Select Run Up Right Down Left, 1 = held
fl_signature:   .res 3          ; $2205: 'F' 'L' layout-version
fl_crc:                         ; (the name crc32.inc works on)
_fl_crc:        .res 4          ; $2208: CRC-32 (LE) over pads 1..5 of every frame read so far
_fl_frame:      .res 4          ; $220C: frames processed (LE), one per _fl_update call
fl_block_end:

        .assert _fl_pads = $2200, lderror, "contract block must start at $2200"
        .assert _fl_frame = $220C, lderror, "contract block layout changed"

.segment "BSS"
directions:     .res 1          ; direction nibble of the pad being read
                .res 1          ; see the assertions below

; cc65's pce start-up code copies DATA and clears BSS with HuC6280 block
; transfers of DATA size and BSS size - 1 bytes, and a block transfer of 0
; bytes moves 64 KiB, wiping RAM and I/O. Hence at least 1 byte of DATA (the
; conio library has some) and 2 bytes of BSS.
        .import __DATA_SIZE__, __BSS_SIZE__
        .assert __DATA_SIZE__ >= 1, lderror, "pce start-up code needs a non-empty DATA segment"
        .assert __BSS_SIZE__ >= 2, lderror, "pce start-up code needs at least 2 bytes of BSS"

; ---------------------------------------------------------------------------
.segment "CODE"

.include "../common/crc32.inc"

; The pad needs a few cycles after a write before its outputs are valid.
.macro settle
        pha
        pla
        nop
        nop
.endmacro

; void fl_init(void): clear the contract block and write its signature.
.proc _fl_init
        ldx     #fl_block_end - _fl_pads - 1
        lda     #0
clear:
        sta     _fl_pads, x
        dex
        bpl     clear
        lda     #'F'
        sta     fl_signature+0
        lda     #'L'
        sta     fl_signature+1
        lda     #LAYOUT_VERSION
        sta     fl_signature+2
        rts
.endproc

; void fl_update(void): call once per frame. Reads pads 1..5, folds them into
; the CRC in that order, then counts the frame.
.proc _fl_update
        ; SEL high, then CLR high: the multitap goes back to port 1.
        lda     #JOY_SEL
        sta     JOYPORT
        lda     #JOY_SEL | JOY_CLR
        sta     JOYPORT
        lda     #JOY_SEL
        sta     JOYPORT
        settle
        ldy     #0
next_pad:
        lda     JOYPORT         ; SEL high: Up Right Down Left in bits 0..3, 0 = held
        asl
        asl
        asl
        asl
        sta     directions
        stz     JOYPORT         ; SEL low: I II Select Run in bits 0..3
        settle
        lda     JOYPORT
        and     #$0F
        ora     directions
        eor     #$FF            ; 1 = held
        sta     _fl_pads, y
        lda     #JOY_SEL        ; SEL rising edge: the multitap moves to the next port
        sta     JOYPORT
        settle
        iny
        cpy     #PAD_COUNT
        bne     next_pad

        ldy     #0
fold:
        lda     _fl_pads, y
        jsr     crc32_fold      ; keeps Y
        iny
        cpy     #PAD_COUNT
        bne     fold

        inc     _fl_frame+0
        bne     counted
        inc     _fl_frame+1
        bne     counted
        inc     _fl_frame+2
        bne     counted
        inc     _fl_frame+3
counted:
        rts
.endproc
