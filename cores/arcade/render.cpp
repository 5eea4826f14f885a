#include "render.h"

#include <algorithm>

#include "fixed_math.h"
#include "font.h"

namespace framelock::cores::arcade {
namespace {

constexpr uint32_t kPlayerColors[kMaxPlayers] = {0x3C9CFF, 0xFF4848, 0x48F060, 0xFFE040,
                                                 0xF060F0, 0x40F0F0, 0xFF9830, 0xB090FF};
constexpr uint32_t kEnemyColors[] = {0xD03878, 0x70C040, 0xC86428};
constexpr uint32_t kSparkColor = 0xFFFFA0;
constexpr uint32_t kWhite = 0xFFFFFF;
constexpr uint32_t kHudBackground = 0x101018;
constexpr uint32_t kIndicatorOff = 0x383838;

constexpr uint32_t scale(uint32_t c, uint32_t num, uint32_t den) {
    const uint32_t r = ((c >> 16) & 0xFF) * num / den;
    const uint32_t g = ((c >> 8) & 0xFF) * num / den;
    const uint32_t b = (c & 0xFF) * num / den;
    return r << 16 | g << 8 | b;
}
// Halfway to white.
constexpr uint32_t lighten(uint32_t c) {
    return ((c >> 1) & 0x7F7F7F) + 0x808080;
}

uint32_t explosion_color(uint8_t index) {
    if (index < kMaxPlayers) return kPlayerColors[index];
    if (index < kColorSpark) return kEnemyColors[index - kColorEnemyBase];
    return kSparkColor;
}

// '.' transparent, '#' body, '+' highlight, '*' accent. (ax, ay) is the pixel placed on the
// object's position; a mirrored sprite flips around it.
struct Sprite {
    int width, height;
    int ax, ay;
    const char* const* rows;
};

constexpr const char* kShipRows[] = {
    ".....#.....", ".....#.....", "....#+#....", "....#+#....", "...##+##...",
    "#..#####..#", "#.#######.#", "###########", "##.#####.##", "#...*.*...#",
};
// Banking left: the far (right) wing foreshortened. Mirrored for banking right.
constexpr const char* kShipBankRows[] = {
    ".....#....", ".....#....", "....#+#...", "....#+#...", "...##+##..",
    "#..######.", "#.#######.", "##########", "##.######.", "#...*.*...",
};
constexpr const char* kDartRows[] = {
    "#.......#", "##.....##", ".##***##.", "..#####..", "..#+#+#..", "...###...", "....#....",
};
constexpr const char* kSwoopRows[] = {
    "...#######...", ".###*****###.", "####+###+####",
    "#.#########.#", "#..#.....#..#", "...#.....#...",
};
constexpr const char* kBruteRows[] = {
    "....###########....", "..###*********###..", ".##*************##.", "###++###***###++###",
    "###################", "##.##*#######*##.##", "#..##*#.....#*##..#", "#...####...####...#",
    "....#..#...#..#....", ".......#...#.......",
};
constexpr Sprite kShipSprite{11, 10, 5, 4, kShipRows};
constexpr Sprite kShipBankSprite{10, 10, 5, 4, kShipBankRows};
constexpr Sprite kEnemySprites[] = {
    {9, 7, 4, 3, kDartRows}, {13, 6, 6, 3, kSwoopRows}, {19, 10, 9, 5, kBruteRows}};

class Canvas {
  public:
    explicit Canvas(uint32_t* pixels) : m_pixels(pixels) {}

    // Rows outside [top, bottom) are left alone, so the play field cannot draw over the HUD.
    void clip_rows(int top, int bottom) {
        m_top = top;
        m_bottom = bottom;
    }

    void put(int x, int y, uint32_t color) {
        if (x >= 0 && x < kScreenWidth && y >= m_top && y < m_bottom) {
            m_pixels[y * kScreenWidth + x] = color;
        }
    }

    void rect(int x, int y, int w, int h, uint32_t color) {
        const int x0 = std::max(x, 0);
        const int x1 = std::min(x + w, kScreenWidth);
        const int y0 = std::max(y, m_top);
        const int y1 = std::min(y + h, m_bottom);
        if (x0 >= x1) return;
        for (int row = y0; row < y1; ++row) {
            std::fill(m_pixels + row * kScreenWidth + x0, m_pixels + row * kScreenWidth + x1,
                      color);
        }
    }

    void sprite(const Sprite& s, int x, int y, uint32_t body, uint32_t highlight, uint32_t accent,
                bool mirror) {
        for (int row = 0; row < s.height; ++row) {
            const char* line = s.rows[row];
            for (int col = 0; col < s.width; ++col) {
                const char c = line[col];
                if (c == '.') continue;
                const uint32_t color = c == '#' ? body : c == '+' ? highlight : accent;
                put(mirror ? x + s.ax - col : x + col - s.ax, y + row - s.ay, color);
            }
        }
    }

    // A dotted circle: 64 points, the resolution of the sine table.
    void ring(int cx, int cy, int radius, uint32_t color) {
        for (int k = 0; k < 64; ++k) {
            const auto phase = static_cast<uint8_t>(k * 4);
            put(cx + ((radius * cos_q8(phase)) >> 8), cy + ((radius * sin_q8(phase)) >> 8), color);
        }
    }

    void text(int x, int y, const char* s, uint32_t color) {
        for (; *s != '\0'; ++s, x += kGlyphAdvance) {
            const uint16_t bits = glyph_bits(*s);
            for (int row = 0; row < kGlyphHeight; ++row) {
                for (int col = 0; col < kGlyphWidth; ++col) {
                    const int bit =
                        (kGlyphHeight - 1 - row) * kGlyphWidth + (kGlyphWidth - 1 - col);
                    if ((bits >> bit) & 1) put(x + col, y + row, color);
                }
            }
        }
    }

    // Zero-padded to `digits` when `pad`, otherwise as short as the value allows.
    void number(int x, int y, uint32_t value, int digits, uint32_t color, bool pad = true) {
        char buf[11];
        int n = 0;
        do {
            buf[n++] = static_cast<char>('0' + value % 10);
            value /= 10;
        } while ((value != 0 || (pad && n < digits)) && n < 10);
        char out[11];
        for (int i = 0; i < n; ++i) out[i] = buf[n - 1 - i];
        out[n] = '\0';
        text(x, y, out, color);
    }

  private:
    uint32_t* m_pixels;
    int m_top = 0;
    int m_bottom = kScreenHeight;
};

// Star positions come from a hash of their index and the seed, and move with the frame count,
// so the starfield needs no state of its own.
void draw_background(Canvas& canvas, const Ram& ram, uint32_t* pixels) {
    for (int y = kFieldTop; y < kFieldBottom; ++y) {
        const uint32_t blue = 0x12 + static_cast<uint32_t>(y - kFieldTop) / 8;  // deepens
        std::fill_n(pixels + y * kScreenWidth, kScreenWidth, 0x020400u + blue);
    }
    constexpr uint32_t kStarColors[3] = {0x404870, 0x8890B8, 0xF0F0FF};
    const uint32_t frame = ram.sys.frame;
    for (int layer = 0; layer < 3; ++layer) {
        const uint32_t travel = layer == 0 ? frame / 2 : frame * static_cast<uint32_t>(layer);
        for (uint32_t i = 0; i < 24; ++i) {
            uint32_t h = (i + 1) * 0x9E3779B1u ^ (static_cast<uint32_t>(layer) << 24) ^
                         ram.sys.seed * 0x85EBCA6Bu;
            h ^= h >> 15;
            h *= 0x2C1B3C6Du;
            h ^= h >> 12;
            const int x = static_cast<int>(h % kScreenWidth);
            const int y = kFieldTop + static_cast<int>(((h >> 9) + travel) % kFieldHeight);
            canvas.put(x, y, kStarColors[layer]);
            if (layer == 2) canvas.put(x, y - 1, kStarColors[1]);
        }
    }
}

void draw_enemies(Canvas& canvas, const Ram& ram) {
    for (const Enemy& e : ram.objects.enemies) {
        if (!e.active) continue;
        const uint32_t body = e.flash > 0 ? kWhite : kEnemyColors[e.kind];
        const uint32_t accent = (ram.sys.frame & 8) ? lighten(kEnemyColors[e.kind]) : 0xFFD040;
        canvas.sprite(kEnemySprites[e.kind], e.x >> 8, e.y >> 8, body, kWhite, accent, false);
    }
}

void draw_projectiles(Canvas& canvas, const Ram& ram) {
    for (const Bullet& b : ram.objects.bullets) {
        if (!b.active) continue;
        const int x = b.x >> 8;
        const int y = b.y >> 8;
        const uint32_t color = (b.age & 4) ? 0xFFE060 : 0xFF3030;
        canvas.rect(x - 1, y, 3, 1, color);
        canvas.rect(x, y - 1, 1, 3, color);
    }
    for (const Shot& s : ram.objects.shots) {
        if (!s.active) continue;
        const int x = s.x >> 8;
        const int y = s.y >> 8;
        const uint32_t color = lighten(kPlayerColors[s.owner]);
        switch (s.kind) {
            case kShotTwin:
                canvas.rect(x, y - 2, 1, 4, color);
                break;
            case kShotSpread:
                canvas.rect(x - 1, y - 1, 2, 2, kPlayerColors[s.owner]);
                canvas.put(x, y - 1, kWhite);
                break;
            case kShotMissile:
                canvas.rect(x - 1, y - 2, 3, 5, kPlayerColors[s.owner]);
                canvas.rect(x, y - 3, 1, 1, kWhite);
                canvas.rect(x, y + 3, 1, 1 + (ram.sys.frame & 1), 0xFFA020);
                break;
            default:
                canvas.rect(x - 1, y - 1, 2, 2, color);
                break;
        }
    }
}

void draw_ship(Canvas& canvas, const Ram& ram, int player) {
    const Ship& ship = ram.ships[player];
    const int x = ship.x >> 8;
    const int y = ship.y >> 8;
    const uint32_t color = kPlayerColors[player];
    const uint16_t pad = ship.pad;
    const uint32_t frame = ram.sys.frame;

    if (pad & kPadL3) {  // guide line straight up the lane
        for (int gy = y - 10; gy >= kFieldTop; gy -= 4) canvas.put(x, gy, scale(color, 2, 3));
    }
    if (pad & kPadStart) {  // beacon: a ring pulsing out and the port number above the ship
        canvas.ring(x, y, 6 + ship.start_held % 30, lighten(color));
        canvas.number(x - 1, y - 16, static_cast<uint32_t>(player + 1), 1, kWhite);
    }
    if (pad & kPadR) {  // boost exhaust
        const int len = 4 + static_cast<int>(frame % 4);
        canvas.rect(x - 2, y + 6, 1, len, 0xFF8020);
        canvas.rect(x + 2, y + 6, 1, len, 0xFF8020);
    }

    const bool blink = ship.timer > 0 && (frame & 4);
    if (!blink) {
        const bool horn = (pad & kPadR3) != 0;
        const uint32_t body = horn ? kWhite : color;
        const uint32_t highlight = horn ? color : kWhite;
        const uint32_t engine = (frame & 2) ? 0xFFC040 : 0xFF6020;
        const bool left = (pad & kPadLeft) && !(pad & kPadRight);
        const bool right = (pad & kPadRight) && !(pad & kPadLeft);
        if (left || right) {
            canvas.sprite(kShipBankSprite, x, y, body, highlight, engine, right);
        } else {
            canvas.sprite(kShipSprite, x, y, body, highlight, engine, false);
        }
    }
    canvas.number(x - 1, y + 7, static_cast<uint32_t>(player + 1), 1, scale(color, 3, 4));

    if (pad & kPadL) {  // focus: show the real hitbox and side guides
        canvas.rect(x - 1, y - 1, 2, 2, kWhite);
        canvas.rect(x - 9, y - 3, 1, 6, scale(color, 1, 2));
        canvas.rect(x + 9, y - 3, 1, 6, scale(color, 1, 2));
    }
    if (pad & kPadX) {
        if (ship.shield > 0) {
            const uint32_t shade =
                ship.shield > kShieldMax / 4 ? lighten(color) : scale(color, 1, 2);
            canvas.ring(x, y, 10, shade);
            canvas.ring(x, y, 11, (frame & 2) ? shade : color);
        } else if (frame & 4) {  // drained: a faint flicker, so X still shows on the ship
            canvas.ring(x, y, 10, scale(color, 1, 3));
        }
    }
}

void draw_effects(Canvas& canvas, const Ram& ram) {
    for (int i = 0; i < kMaxPlayers; ++i) {
        const Ship& ship = ram.ships[i];
        if (ship.bomb_age == 0) continue;
        const int r = ship.bomb_age * kBombGrowth;
        canvas.ring(ship.bomb_x, ship.bomb_y, r, lighten(kPlayerColors[i]));
        if (r > 6) canvas.ring(ship.bomb_x, ship.bomb_y, r - 5, kPlayerColors[i]);
    }
    for (const Explosion& e : ram.objects.explosions) {
        if (!e.active) continue;
        const uint32_t color = e.age < 3 ? kWhite : explosion_color(e.color);
        const int r = 1 + e.age * (e.size + 1) / 2;
        if (e.age < 4 && e.size > 0)
            canvas.rect(e.x - 2 - e.size, e.y - 2 - e.size, 5 + 2 * e.size, 5 + 2 * e.size, kWhite);
        for (int k = 0; k < 12; ++k) {
            const auto phase = static_cast<uint8_t>(k * 21 + e.age * 2);
            const int px = e.x + ((r * cos_q8(phase)) >> 8);
            const int py = e.y + ((r * sin_q8(phase)) >> 8);
            canvas.rect(px, py, 2, 2, (k & 1) ? color : scale(color, 2, 3));
        }
    }
}

void draw_panel(Canvas& canvas, const Ram& ram, int player) {
    const Ship& ship = ram.ships[player];
    const int x0 = (player % 4) * 80;
    const int y0 = (player / 4) * 12;
    const uint32_t color = kPlayerColors[player];
    const bool active = ship.state != kShipInactive;

    canvas.rect(x0, y0, 80, 11, active ? scale(color, 1, 5) : scale(color, 1, 10));
    canvas.rect(x0, y0, 1, 11, color);
    canvas.number(x0 + 3, y0 + 1, static_cast<uint32_t>(player + 1), 1,
                  active ? color : scale(color, 1, 2));

    if (!active) {
        canvas.text(x0 + 10, y0 + 1, "--", 0x707070);
    } else {
        if (ship.state == kShipOut) {
            canvas.text(x0 + 10, y0 + 1, "START", (ram.sys.frame & 16) ? kWhite : color);
        } else {
            for (int k = 0; k < std::min<int>(ship.lives, 5); ++k) {
                canvas.rect(x0 + 10 + k * 4, y0 + 2, 3, 3, color);
            }
            for (int k = 0; k < std::min<int>(ship.bombs, 6); ++k) {
                canvas.rect(x0 + 31 + k * 3, y0 + 3, 2, 2, 0xC0C0C0);
            }
        }
        canvas.number(x0 + 51, y0 + 1, ship.score, 7, ship.state == kShipAlive ? kWhite : 0x909090);
        // Shot pattern that A fires: two bars (twin) or a fan (spread).
        if (ship.shot_mode == 0) {
            canvas.rect(x0 + 3, y0 + 7, 1, 3, kWhite);
            canvas.rect(x0 + 5, y0 + 7, 1, 3, kWhite);
        } else {
            canvas.put(x0 + 2, y0 + 7, kWhite);
            canvas.put(x0 + 4, y0 + 7, kWhite);
            canvas.put(x0 + 6, y0 + 7, kWhite);
            canvas.rect(x0 + 3, y0 + 8, 3, 1, kWhite);
            canvas.put(x0 + 4, y0 + 9, kWhite);
        }
        canvas.rect(x0 + 10, y0 + 10, ship.shield * 66 / kShieldMax, 1, scale(color, 2, 3));
    }
    // One block per pad bit, in RETRO_DEVICE_ID_JOYPAD order, grouped by four: every input
    // bit of every port is visible, whether or not the port drives a ship.
    for (int bit = 0; bit < 16; ++bit) {
        const bool on = (ship.pad >> bit) & 1;
        canvas.rect(x0 + 10 + bit * 4 + bit / 4, y0 + 7, 3, 3, on ? lighten(color) : kIndicatorOff);
    }
}

void draw_status(Canvas& canvas, const Ram& ram) {
    canvas.rect(0, kFieldBottom, kScreenWidth, kScreenHeight - kFieldBottom, kHudBackground);
    canvas.rect(0, kFieldBottom, kScreenWidth, 1, 0x303048);
    const int y = kFieldBottom + 2;
    canvas.text(2, y, "HI", 0xFFE040);
    canvas.number(14, y, ram.sys.hi_score, 7, kWhite);
    canvas.text(50, y, "LV", 0x909090);
    canvas.number(60, y, ram.sys.level, 1, kWhite);
    canvas.text(72, y, "SEED", 0x909090);
    canvas.number(92, y, ram.sys.seed, 1, kWhite, false);
    static constexpr const char* kDifficultyNames[] = {"EASY", "NORMAL", "HARD"};
    canvas.text(120, y, kDifficultyNames[std::min<int>(ram.sys.difficulty, 2)], 0xA0A0A0);
    canvas.text(150, y, "P", 0x909090);
    canvas.number(154, y, ram.sys.players, 1, kWhite);
    canvas.text(172, y, "STAR LANES", 0x6080FF);
    canvas.text(278, y, "F", 0x909090);
    canvas.number(286, y, ram.sys.frame, 8, kWhite);
}

}  // namespace

void render(const Ram& ram, uint32_t* pixels) {
    Canvas canvas(pixels);
    std::fill_n(pixels, kScreenWidth * kFieldTop, kHudBackground);
    canvas.clip_rows(kFieldTop, kFieldBottom);
    draw_background(canvas, ram, pixels);
    draw_effects(canvas, ram);
    draw_enemies(canvas, ram);
    for (int i = 0; i < kMaxPlayers; ++i) {
        if (ram.ships[i].state == kShipAlive) draw_ship(canvas, ram, i);
    }
    draw_projectiles(canvas, ram);
    canvas.clip_rows(0, kScreenHeight);
    for (int i = 0; i < kMaxPlayers; ++i) draw_panel(canvas, ram, i);
    draw_status(canvas, ram);
}

}  // namespace framelock::cores::arcade
