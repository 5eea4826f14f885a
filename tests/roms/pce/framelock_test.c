/* framelock PC Engine input test ROM (HuCard, five pads through the multitap).
 *
 * Once per frame, right after the vertical blank, fl_update() (multitap.s)
 * reads all five pads, stores the raw bytes, folds them into a CRC-32 and
 * counts the frame; this file then shows those values with cc65's conio.
 * The screen therefore always matches the contract block in RAM.
 */
#include <conio.h>
#include <pce.h>

/* Contract block at $2200, defined in multitap.s. Multi-byte values are
 * little-endian; they are read byte by byte here to show them in hex. */
extern unsigned char fl_pads[5];
extern unsigned char fl_crc[4];
extern unsigned char fl_frame[4];
void fl_init(void);
void fl_update(void);

enum { kPadCount = 5, kLeft = 2, kValueColumn = 9, kFirstPadRow = 4 };

static const char kHex[] = "0123456789ABCDEF";
/* Shown for each held button, bit 0 first: I II Select Run Up Right Down Left. */
static const char kButtonLetters[] = "12SR^>v<";
/* Background while the checksum is non-zero, picked by its low bits; all
 * dark enough for the white text to stay readable. */
static const unsigned char kBackgrounds[4] = {COLOR_BLUE, COLOR_RED, COLOR_GREEN, COLOR_VIOLET};

static void put_hex8(unsigned char value) {
    cputc(kHex[value >> 4]);
    cputc(kHex[value & 0x0F]);
}

/* Most significant byte first, as a number reads. */
static void put_hex32(const unsigned char* le_bytes) {
    put_hex8(le_bytes[3]);
    put_hex8(le_bytes[2]);
    put_hex8(le_bytes[1]);
    put_hex8(le_bytes[0]);
}

static void put_buttons(unsigned char pad) {
    unsigned char i;
    for (i = 0; i < 8; ++i) {
        cputc((pad & 1) ? kButtonLetters[i] : '-');
        pad >>= 1;
    }
}

static void draw_labels(void) {
    unsigned char i;
    cputsxy(kLeft, 1, "FRAMELOCK PCE MULTITAP INPUT TEST");
    for (i = 0; i < kPadCount; ++i) {
        cputsxy(kLeft, kFirstPadRow + i, "PAD");
        cputc('1' + i);
    }
    cputsxy(kLeft, kFirstPadRow + kPadCount + 1, "SUM");
    cputsxy(kLeft, kFirstPadRow + kPadCount + 2, "FRAME");
    cputsxy(kLeft, kFirstPadRow + kPadCount + 4, "BUTTONS 12SR^>v<");
    cputsxy(kLeft, kFirstPadRow + kPadCount + 5, "= I II SELECT RUN UP RIGHT DOWN LEFT");
}

static void draw_values(void) {
    unsigned char i;
    for (i = 0; i < kPadCount; ++i) {
        gotoxy(kValueColumn, kFirstPadRow + i);
        put_hex8(fl_pads[i]);
        cputc(' ');
        put_buttons(fl_pads[i]);
    }
    gotoxy(kValueColumn, kFirstPadRow + kPadCount + 1);
    put_hex32(fl_crc);
    gotoxy(kValueColumn, kFirstPadRow + kPadCount + 2);
    put_hex32(fl_frame);
}

/* Black until the first input; called early in the frame so the colour does
 * not change in the middle of the picture. */
static void set_background(void) {
    if ((fl_crc[0] | fl_crc[1] | fl_crc[2] | fl_crc[3]) == 0) {
        bgcolor(COLOR_BLACK);
    } else {
        bgcolor(kBackgrounds[fl_crc[0] & 3]);
    }
}

int main(void) {
    fl_init();
    textcolor(COLOR_WHITE);
    bgcolor(COLOR_BLACK);
    clrscr();
    draw_labels();
    for (;;) {
        waitvsync();
        fl_update();
        set_background();
        draw_values();
    }
    return 0;
}
