; framelock's Virtual Boy test ROM (NEC V810 code, assembled by v810asm.py; the contract is in
; ../README.md). Once a frame, when the VIP raises "game frame start", it reads the game pad
; through the serial interface, keeps its two bytes, folds them into a running CRC-32 and counts
; the frame: the 16-byte contract block at 0x05000010 in work RAM. Then it writes the three
; values in hex into a background map that one world shows on both displays.
;
; Registers, for the whole program:
;   r10 the contract block      r12 the hardware control registers   r13 the VIP's registers
;   r20 the CRC-32              r21 the frame counter                 r22 the CRC's polynomial
;   r14, r15 the pad's bytes    r9 background map 0                   r31 the return address
;   r11, r16-r19, r23-r27 scratch

        .image  0x07000000, 4096        ; 4 KiB of ROM; the core mirrors it up to 0x07FFFFFF

        .equ    BLOCK, 0x05000010       ; the contract block in work RAM (64 KiB at 0x05000000)
        .equ    HWCTRL, 0x02000000      ; hardware control registers
        .equ    SDLR, 0x10              ;   pad bits 7-0 after a read
        .equ    SDHR, 0x14              ;   pad bits 15-8
        .equ    SCR, 0x28               ;   serial control
        .equ    SCR_READ, 0x84          ;   start a hardware read (bit 2), pad interrupt off (bit 7)
        .equ    SCR_BUSY, 0x02          ;   a read is in progress
        .equ    VIP_REGS, 0x0005F800    ; the VIP's registers: INTPND at +0, INTCLR at +4
        .equ    INTPND, 0x0
        .equ    INTCLR, 0x4
        .equ    GAMESTART, 0x0008       ;   "game frame start": once a frame (FRMCYC is 0)
        .equ    DPCTRL, 0x22            ;   display control
        .equ    BRTA, 0x24              ;   brightness of shade 1; shade 2 is BRTB, shade 3
        .equ    BRTB, 0x26              ;   BRTA + BRTB + BRTC
        .equ    BRTC, 0x28
        .equ    FRMCYC, 0x2E            ;   frames a game frame lasts, less one
        .equ    XPCTRL, 0x42            ;   drawing control
        .equ    GPLT0, 0x60             ;   background palette 0
        .equ    BKCOL, 0x70             ;   the shade behind everything
        .equ    CHARS, 0x00006000       ; characters 0-511, 16 bytes each (8 rows of 8 2-bit pixels)
        .equ    BGMAP, 0x00020000       ; background map 0: 64 x 64 cells of 16 bits
        .equ    WORLD31, 0x0003DBE0     ; the VIP draws worlds 31 down to the first marked END
        .equ    WORLD30, 0x0003DBC0
        .equ    PAD_BUTTONS, 0xFC       ; bits 0 (low battery) and 1 (always 1) are no buttons

start:
        movhi   hi(BLOCK), r0, r10
        movea   lo(BLOCK), r10, r10
        movhi   hi(HWCTRL), r0, r12
        movhi   hi(VIP_REGS), r0, r13
        movea   lo(VIP_REGS), r13, r13
        movhi   0xEDB8, r0, r22         ; the reflected CRC-32 polynomial 0xEDB88320
        ori     0x8320, r22, r22
        mov     r0, r20                 ; CRC = 0
        mov     r0, r21                 ; frame counter = 0

        st.w    r0, 0[r10]              ; pad bytes and the byte before the signature
        st.w    r0, 8[r10]
        st.w    r0, 12[r10]
        movea   'F', r0, r11            ; the signature 'F' 'L' 1 at +5
        st.b    r11, 5[r10]
        movea   'L', r0, r11
        st.b    r11, 6[r10]
        mov     1, r11
        st.b    r11, 7[r10]

        jal     display_init

        movea   GAMESTART, r0, r11      ; forget a frame start raised before this point
        st.h    r11, INTCLR[r13]

frame:
        ld.h    INTPND[r13], r11        ; wait for the next game frame start
        andi    GAMESTART, r11, r11
        be      frame
        movea   GAMESTART, r0, r11
        st.h    r11, INTCLR[r13]

        movea   SCR_READ, r0, r11       ; read the pad: 16 bits, shifted in by the hardware
        st.b    r11, SCR[r12]
busy:
        ld.b    SCR[r12], r11
        andi    SCR_BUSY, r11, r11
        bne     busy
        ld.b    SDLR[r12], r14          ; ld.b sign-extends: keep the byte's own bits
        andi    PAD_BUTTONS, r14, r14
        ld.b    SDHR[r12], r15
        andi    0xFF, r15, r15
        st.b    r14, 0[r10]
        st.b    r15, 1[r10]

        mov     r14, r16                ; CRC over byte 0, then byte 1
        jal     crc_byte
        mov     r15, r16
        jal     crc_byte
        st.w    r20, 8[r10]
        add     1, r21
        st.w    r21, 12[r10]

        movea   64 * 1 * 2 + 4, r9, r18 ; row 1 from column 2: the pad bytes in RAM order
        mov     r14, r16
        shl     24, r16
        mov     2, r17
        jal     put_hex
        mov     r15, r16
        shl     24, r16
        mov     2, r17
        jal     put_hex
        movea   64 * 3 * 2 + 4, r9, r18 ; row 3: the checksum
        mov     r20, r16
        mov     8, r17
        jal     put_hex
        movea   64 * 5 * 2 + 4, r9, r18 ; row 5: the frame counter
        mov     r21, r16
        mov     8, r17
        jal     put_hex
        mov     r0, r11                 ; the background: black while the checksum is 0, then
        cmp     r0, r20                 ; shade 1 or 2 by its lowest bit (the digits are 3)
        be      background
        andi    1, r20, r11
        add     1, r11
background:
        st.h    r11, BKCOL[r13]
        br      frame

; put_hex: the top r17 hex digits of r16 as characters 1-16 (digit + 1) from the map cell at
; r18 on; r18 ends past them. Uses r19.
put_hex:
        mov     r16, r19
        shr     28, r19
        add     1, r19
        st.h    r19, 0[r18]
        add     2, r18
        shl     4, r16
        add     -1, r17
        bne     put_hex
        jmp     [lp]

; display_init: the digits as characters 1-16, an empty map, one world showing the map's top
; left 384 x 224 pixels on both displays, the shades, then drawing and the display on. Leaves
; r9 at the map. Uses r16-r19, r23-r27.
display_init:
        movhi   hi(BGMAP), r0, r9
        movhi   hi(CHARS), r0, r16      ; character 0 stays blank
        movea   lo(CHARS), r16, r16
        movea   16, r0, r17
        movhi   hi(BGMAP), r0, r18      ; the map's first 28 rows (224 pixels), cell 0
        movea   28 * 64 * 2, r0, r19
clear_char:
        st.w    r0, 0[r16]
        add     4, r16
        add     -4, r17
        bne     clear_char
clear_map:
        st.w    r0, 0[r18]
        add     4, r18
        add     -4, r19
        bne     clear_map

        movhi   hi(font), r0, r16       ; characters 1-16 from the font's 128 rows
        movea   lo(font), r16, r16
        movhi   hi(CHARS + 16), r0, r18
        movea   lo(CHARS + 16), r18, r18
        movea   128, r0, r17
glyph_row:
        ld.b    0[r16], r23             ; a font row: bit 7 is the leftmost pixel
        mov     r0, r24                 ; the character row: pixel x in bits 2x+1..2x
        mov     3, r25                  ; shade 3 in pixel 0's place
        movea   0x80, r0, r26           ; pixel 0's font bit
glyph_pixel:
        mov     r23, r27
        and     r26, r27
        be      glyph_next
        or      r25, r24
glyph_next:
        shl     2, r25
        shr     1, r26
        bne     glyph_pixel
        st.h    r24, 0[r18]
        add     1, r16
        add     2, r18
        add     -1, r17
        bne     glyph_row

        movhi   hi(WORLD31), r0, r16    ; world 31: a normal background world, map 0
        movea   lo(WORLD31), r16, r16
        movea   0xC000, r0, r11         ;   left and right displays on, one map segment
        st.h    r11, 0[r16]
        st.h    r0, 2[r16]              ;   GX, GP, GY: at the screen's top left
        st.h    r0, 4[r16]
        st.h    r0, 6[r16]
        st.h    r0, 8[r16]              ;   MX, MP, MY: from the map's top left
        st.h    r0, 10[r16]
        st.h    r0, 12[r16]
        movea   383, r0, r11            ;   384 x 224 pixels (each size less one)
        st.h    r11, 14[r16]
        movea   223, r0, r11
        st.h    r11, 16[r16]
        st.h    r0, 18[r16]
        st.h    r0, 20[r16]
        movhi   hi(WORLD30), r0, r16    ; world 30: END, the last drawn
        movea   lo(WORLD30), r16, r16
        movea   0x0040, r0, r11
        st.h    r11, 0[r16]

        movea   32, r0, r11             ; shades 1, 2, 3: 32, 64, 128 of 255
        st.h    r11, BRTA[r13]
        movea   64, r0, r11
        st.h    r11, BRTB[r13]
        movea   32, r0, r11
        st.h    r11, BRTC[r13]
        movea   0xE4, r0, r11           ; palette 0: colour n is shade n
        st.h    r11, GPLT0[r13]
        st.h    r0, BKCOL[r13]
        st.h    r0, FRMCYC[r13]         ; a game frame every display frame
        mov     2, r11                  ; XPEN: draw
        st.h    r11, XPCTRL[r13]
        movea   0x0302, r0, r11         ; SYNCE, RE, DISP: display on
        st.h    r11, DPCTRL[r13]
        jmp     [lp]

; crc_byte: folds the byte in r16 into the CRC in r20, bit 0 first; uses r17 and r18.
crc_byte:
        xor     r16, r20
        mov     8, r17
crc_bit:
        andi    1, r20, r18             ; the bit shifted out decides the XOR
        shr     1, r20
        cmp     r0, r18
        be      crc_next
        xor     r22, r20
crc_next:
        add     -1, r17
        bne     crc_bit
        jmp     [lp]

; The digits 0-F: the glyphs of ../nes/font.inc (5x7 in pixel columns 1-5), a byte a row.
font:
        .byte   0x38, 0x44, 0x4C, 0x54, 0x64, 0x44, 0x38, 0x00   ; 0
        .byte   0x10, 0x30, 0x10, 0x10, 0x10, 0x10, 0x38, 0x00   ; 1
        .byte   0x38, 0x44, 0x04, 0x08, 0x10, 0x20, 0x7C, 0x00   ; 2
        .byte   0x7C, 0x08, 0x10, 0x08, 0x04, 0x44, 0x38, 0x00   ; 3
        .byte   0x08, 0x18, 0x28, 0x48, 0x7C, 0x08, 0x08, 0x00   ; 4
        .byte   0x7C, 0x40, 0x78, 0x04, 0x04, 0x44, 0x38, 0x00   ; 5
        .byte   0x18, 0x20, 0x40, 0x78, 0x44, 0x44, 0x38, 0x00   ; 6
        .byte   0x7C, 0x04, 0x08, 0x10, 0x20, 0x20, 0x20, 0x00   ; 7
        .byte   0x38, 0x44, 0x44, 0x38, 0x44, 0x44, 0x38, 0x00   ; 8
        .byte   0x38, 0x44, 0x44, 0x3C, 0x04, 0x08, 0x30, 0x00   ; 9
        .byte   0x38, 0x44, 0x44, 0x7C, 0x44, 0x44, 0x44, 0x00   ; A
        .byte   0x78, 0x44, 0x44, 0x78, 0x44, 0x44, 0x78, 0x00   ; B
        .byte   0x38, 0x44, 0x40, 0x40, 0x40, 0x44, 0x38, 0x00   ; C
        .byte   0x70, 0x48, 0x44, 0x44, 0x44, 0x48, 0x70, 0x00   ; D
        .byte   0x7C, 0x40, 0x40, 0x78, 0x40, 0x40, 0x7C, 0x00   ; E
        .byte   0x7C, 0x40, 0x40, 0x78, 0x40, 0x40, 0x40, 0x00   ; F

; The cartridge header, 0x220 bytes before the end of the ROM (0xFFFFFDE0 in the CPU's view).
        .org    0x07000DE0
        .ascii  "FRAMELOCK TEST", 20    ; title, 20 bytes
        .byte   0, 0, 0, 0, 0           ; reserved
        .ascii  "FL"                    ; maker code
        .ascii  "FLTV"                  ; game code
        .byte   1                       ; version 1.0

; The interrupt and exception vectors (0xFFFFFE00-0xFFFFFFEF) stay zero: the CPU starts with
; interrupts masked (PSW.NP set) and the program enables none.

; The reset vector: the CPU starts at 0xFFFFFFF0, the last 16 bytes of the ROM.
        .org    0x07000FF0
        movhi   hi(start), r0, r1
        movea   lo(start), r1, r1
        jmp     [r1]
