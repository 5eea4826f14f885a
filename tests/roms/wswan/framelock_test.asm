; framelock test ROM for the WonderSwan (mednafen_wswan), 80186 code for nasm (-f bin). Like
; the other test ROMs: every frame it reads the whole keypad, stores the raw key bytes, folds
; them into a running CRC-32, counts the frame and shows all three on screen, so a one-frame
; tap changes RAM on its frame and the checksum differs from then on.
;
; The image is 256 KiB (2 Mbit, header size code 0x01): 192 KiB of padding, then
; the last 64 KiB bank, which the CPU sees at segment 0xF000. The CPU starts at 0xFFFF:0000,
; the image's last 16 bytes: a far jump to `start` and the cartridge header. The header's
; checksum is ROM_CHECKSUM, which assemble.cmake measures on a first assembly and passes to
; the second. The contract block and the key bits are in ../README.md.

        cpu     186
        bits    16

%ifndef ROM_CHECKSUM
%define ROM_CHECKSUM 0          ; the first assembly: the sum does not count these two bytes
%endif

ROM_SIZE        equ 0x40000     ; 256 KiB: header ROM size 0x01 (2 Mbit)
BANK_SIZE       equ 0x10000

; I/O ports (byte wide).
DISP_CTRL       equ 0x00        ; bit 0: screen 1 on; bit 1: screen 2; bit 2: sprites
BACK_COLOR      equ 0x01        ; background shade (index into the shade pool)
LINE_CUR        equ 0x02        ; line being drawn: 0-143 visible, 144-158 vertical blank
MAP_BASE        equ 0x07        ; bits 0-2: screen 1 map at n * 0x800
SCR1_X          equ 0x10
SCR1_Y          equ 0x11
LCD_CTRL        equ 0x14        ; bit 0: LCD on
LCD_VTOTAL      equ 0x16        ; last line of a frame (158: 159 lines, 75.47 Hz)
LCD_SHADE       equ 0x1C        ; 0x1C-0x1F: the 8-entry shade pool, 4 bits each (0 white, 15 black)
SCR_PAL_0       equ 0x20        ; palette 0: colours 0/1 (0x20), colours 2/3 (0x21)
DISP_MODE       equ 0x60        ; bits 7-5: 0 = the mono mode (2 bits a pixel, 16 KiB RAM)
INT_ENABLE      equ 0xB2
KEYPAD          equ 0xB5        ; write bits 4-6 to select a row, read bits 0-3 (1 = held)
INT_ACK         equ 0xB6

KEY_ROW_Y       equ 0x10        ; Y1-Y4 in bits 0-3
KEY_ROW_X       equ 0x20        ; X1-X4 in bits 0-3
KEY_ROW_BUTTONS equ 0x40        ; Start, A, B in bits 1, 2, 3

; The frame starts here: after the lines 144 and 145 (the end of the previous retro_run)
; and early in the call that reads this frame's input (README.md, "Timing").
SYNC_LINE       equ 146

; Internal RAM (segment 0). The contract block (README.md): 16 bytes.
BLOCK           equ 0x0400      ; right after the interrupt vectors
KEYS            equ BLOCK + 0   ; 2 raw key bytes: Y4-Y1 X4-X1, then B A Start 0
SIG             equ BLOCK + 5   ; 'F' 'L' 1
CRC             equ BLOCK + 8   ; CRC-32 of every key byte read, little-endian
FRAME           equ BLOCK + 12  ; frames processed, little-endian
MAP             equ 0x0800      ; screen 1: 32 x 32 entries of 2 bytes (tile, palette 0)
STACK_TOP       equ 0x2000
TILES           equ 0x2000      ; 16 bytes a tile: tile 0 blank, tiles 1-16 the digits 0-F

        section padding start=0
        times   ROM_SIZE - BANK_SIZE db 0xFF

        section bank vstart=0 start=ROM_SIZE-BANK_SIZE
start:
        cli
        cld
        xor     ax, ax
        mov     ds, ax
        mov     es, ax
        mov     ss, ax
        mov     sp, STACK_TOP
        out     INT_ENABLE, al
        dec     al
        out     INT_ACK, al
        xor     al, al

        ; The picture off while it is set up, in the mono mode.
        out     DISP_CTRL, al
        out     DISP_MODE, al

        ; The first 16 KiB (the mono mode's RAM) to zero: the block, the map and tile 0.
        xor     di, di
        mov     cx, 0x4000 / 2
        rep     stosw

        ; The digits as tiles 1-16: each font row in both bit planes (colour 3).
        mov     si, font
        mov     di, TILES + 16
        mov     cx, 16 * 8
.font:  mov     al, [cs:si]
        inc     si
        stosb
        stosb
        loop    .font

        mov     word [SIG], 'FL'
        mov     byte [SIG + 2], 1

        ; Shade pool: entries 0-7 from white to black.
        mov     al, 0x20
        out     LCD_SHADE + 0, al
        mov     al, 0x64
        out     LCD_SHADE + 1, al
        mov     al, 0xB9
        out     LCD_SHADE + 2, al
        mov     al, 0xFD
        out     LCD_SHADE + 3, al

        xor     al, al
        out     SCR1_X, al
        out     SCR1_Y, al
        mov     al, MAP / 0x800
        out     MAP_BASE, al
        mov     al, 158
        out     LCD_VTOTAL, al
        mov     al, 1
        out     LCD_CTRL, al
        call    draw
        mov     al, 1           ; screen 1 only
        out     DISP_CTRL, al

frame:
        ; Once a frame, at line SYNC_LINE of vertical blank: first out of it, then into it.
.visible:
        in      al, LINE_CUR
        cmp     al, 144
        jae     .visible
.blank:
        in      al, LINE_CUR
        cmp     al, SYNC_LINE
        jb      .blank

        call    read_keys
        mov     al, [KEYS]
        call    crc_fold
        mov     al, [KEYS + 1]
        call    crc_fold
        add     word [FRAME], 1
        adc     word [FRAME + 2], 0
        call    draw
        jmp     frame

; read_keys: KEYS = Y4 Y3 Y2 Y1 X4 X3 X2 X1 (bit 7 to 0), KEYS + 1 = B A Start in bits 3-1.
read_keys:
        mov     al, KEY_ROW_Y
        call    key_row
        shl     al, 4
        mov     ah, al
        mov     al, KEY_ROW_X
        call    key_row
        or      al, ah
        mov     [KEYS], al
        mov     al, KEY_ROW_BUTTONS
        call    key_row
        mov     [KEYS + 1], al
        ret

; key_row: al = the row's four keys (bits 0-3, 1 = held) after selecting row al.
key_row:
        out     KEYPAD, al
        in      al, KEYPAD      ; a few reads: the lines settle
        in      al, KEYPAD
        in      al, KEYPAD
        and     al, 0x0F
        ret

; crc_fold: CRC ^= al, then eight reflected steps with 0xEDB88320 (no final XOR).
crc_fold:
        mov     dx, [CRC + 2]
        xor     [CRC], al
        mov     ax, [CRC]
        mov     cx, 8
.step:  shr     dx, 1
        rcr     ax, 1
        jnc     .next
        xor     ax, 0x8320
        xor     dx, 0xEDB8
.next:  loop    .step
        mov     [CRC], ax
        mov     [CRC + 2], dx
        ret

; draw: the key bytes, checksum and frame counter in hex on rows 1, 3 and 5; the shades from
; the checksum: black with white digits while it is 0, then a shade picked from it with the
; digits 4 entries of the pool away. Runs in vertical blank (or with the picture off).
draw:
        mov     di, MAP + 64 * 1 + 2
        mov     al, [KEYS]
        call    put_hex
        mov     al, [KEYS + 1]
        call    put_hex
        mov     di, MAP + 64 * 3 + 2
        mov     si, CRC + 3
        call    put_dword
        mov     di, MAP + 64 * 5 + 2
        mov     si, FRAME + 3
        call    put_dword

        mov     ax, 0x0007      ; digits white (entry 0) on black (entry 7)
        mov     dx, [CRC]
        or      dx, [CRC + 2]
        jz      .shades
        mov     al, [CRC]
        and     al, 7
        mov     ah, al
        xor     ah, 4
.shades:
        out     BACK_COLOR, al
        out     SCR_PAL_0, al   ; colour 0: the background
        mov     al, ah
        shl     al, 4
        out     SCR_PAL_0 + 1, al ; colour 3: the digits
        ret

; put_dword: the 4 bytes from si down (most significant first) as 8 digits at di on.
put_dword:
        mov     bx, 4
.byte:  mov     al, [si]
        dec     si
        call    put_hex
        dec     bx
        jnz     .byte
        ret

; put_hex: al as two digit tiles (palette 0) at di, di += 4.
put_hex:
        mov     dl, al
        shr     al, 4
        call    put_digit
        mov     al, dl
        and     al, 0x0F
put_digit:
        xor     ah, ah
        inc     ax              ; tile = digit + 1
        stosw
        ret

; The digits 0-F: the glyphs of ../nes/font.inc (5x7 in pixel columns 1-5), a byte a row.
font:
        db      0x38, 0x44, 0x4C, 0x54, 0x64, 0x44, 0x38, 0x00   ; 0
        db      0x10, 0x30, 0x10, 0x10, 0x10, 0x10, 0x38, 0x00   ; 1
        db      0x38, 0x44, 0x04, 0x08, 0x10, 0x20, 0x7C, 0x00   ; 2
        db      0x7C, 0x08, 0x10, 0x08, 0x04, 0x44, 0x38, 0x00   ; 3
        db      0x08, 0x18, 0x28, 0x48, 0x7C, 0x08, 0x08, 0x00   ; 4
        db      0x7C, 0x40, 0x78, 0x04, 0x04, 0x44, 0x38, 0x00   ; 5
        db      0x18, 0x20, 0x40, 0x78, 0x44, 0x44, 0x38, 0x00   ; 6
        db      0x7C, 0x04, 0x08, 0x10, 0x20, 0x20, 0x20, 0x00   ; 7
        db      0x38, 0x44, 0x44, 0x38, 0x44, 0x44, 0x38, 0x00   ; 8
        db      0x38, 0x44, 0x44, 0x3C, 0x04, 0x08, 0x30, 0x00   ; 9
        db      0x38, 0x44, 0x44, 0x7C, 0x44, 0x44, 0x44, 0x00   ; A
        db      0x78, 0x44, 0x44, 0x78, 0x44, 0x44, 0x78, 0x00   ; B
        db      0x38, 0x44, 0x40, 0x40, 0x40, 0x44, 0x38, 0x00   ; C
        db      0x70, 0x48, 0x44, 0x44, 0x44, 0x48, 0x70, 0x00   ; D
        db      0x7C, 0x40, 0x40, 0x78, 0x40, 0x40, 0x7C, 0x00   ; E
        db      0x7C, 0x40, 0x40, 0x78, 0x40, 0x40, 0x40, 0x00   ; F

; The last 16 bytes: the reset jump and the cartridge header.
        times   BANK_SIZE - 16 - ($ - $$) db 0xFF
        jmp     0xF000:start    ; 5 bytes: 0xEA, offset, segment
        db      0x00            ; maintenance: must be 0
        db      0x00            ; publisher: none
        db      0x00            ; colour: 0 = runs on the mono WonderSwan
        db      0x00            ; game id
        db      0x00            ; version
        db      0x01            ; ROM size: 2 Mbit (256 KiB)
        db      0x00            ; save: none
        db      0x04            ; flags: horizontal, 16-bit ROM bus, 1-cycle ROM access
        db      0x00            ; mapper: Bandai 2001, no clock
        dw      ROM_CHECKSUM    ; 16-bit sum of every byte before these two
