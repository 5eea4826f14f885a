#include "game.h"

#include <algorithm>
#include <cstring>

#include "fixed_math.h"
#include "sound.h"

namespace framelock::cores::arcade {
namespace {

constexpr int32_t px(int32_t pixels) {
    return pixels * 256;
}
constexpr int32_t whole(int32_t q8) {
    return q8 >> 8;
}

constexpr int32_t kShipSpeed = 384;  // 1.5 px/frame
constexpr int32_t kShipSlow = 176;   // L: focus
constexpr int32_t kShipFast = 768;   // R: boost
constexpr int kShipCore = 2;         // bullet hitbox half-size; L shows it as a dot
constexpr int kShipBody = 4;         // contact box half-size against enemies
constexpr int kShieldReach = 10;     // a raised shield stops bullets this far out
constexpr int kShipMinX = 8;
constexpr int kShipMaxX = kScreenWidth - 8;
constexpr int kShipMinY = kFieldTop + 10;
constexpr int kShipMaxY = kFieldBottom - 8;
constexpr int kShipStartY = kFieldBottom - 20;
constexpr uint16_t kRespawnFrames = 90;
constexpr uint16_t kInvulnerableFrames = 120;
constexpr uint16_t kBombFrames = 40;
constexpr uint32_t kBombEvery = 10000;
constexpr uint32_t kScoreCap = 9999999;  // seven HUD digits
constexpr uint8_t kMaxStock = 9;
constexpr uint16_t kBruteStay = 600;
constexpr uint32_t kFramesPerLevel = 1800;

struct EnemySpec {
    uint8_t half_w, half_h;
    uint8_t hp;
    uint16_t points;
};
constexpr EnemySpec kEnemySpecs[] = {{5, 4, 1, 100}, {6, 4, 2, 150}, {9, 6, 8, 500}};

struct ShotBox {
    uint8_t half_w, half_h;
};
constexpr ShotBox kShotBoxes[] = {{1, 3}, {1, 2}, {2, 4}, {1, 1}};

constexpr uint8_t kExplosionLife[] = {10, 20, 36};

// Indexed by Difficulty.
constexpr uint16_t kWaveInterval[] = {150, 110, 80};
constexpr int32_t kBulletSpeed[] = {384, 512, 640};
constexpr uint16_t kBruteFireEvery[] = {90, 70, 50};
constexpr uint8_t kStartLives[] = {5, 3, 3};

uint64_t splitmix64(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

uint32_t next_random(Ram& ram) {
    uint64_t x = ram.sys.rng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    ram.sys.rng = x;
    return static_cast<uint32_t>((x * 0x2545F4914F6CDD1Dull) >> 32);
}

// Uniform in [0, n) without a division.
uint32_t random_below(Ram& ram, uint32_t n) {
    return static_cast<uint32_t>((uint64_t{next_random(ram)} * n) >> 32);
}

int32_t start_x(int index, int players) {
    return (index + 1) * kScreenWidth / (players + 1);
}

bool held(const Ship& ship, uint16_t bit) {
    return (ship.pad & bit) != 0;
}
bool pressed(const Ship& ship, uint16_t bit) {
    return (ship.pad & bit) != 0 && (ship.prev_pad & bit) == 0;
}
bool shielded(const Ship& ship) {
    return ship.state == kShipAlive && held(ship, kPadX) && ship.shield > 0;
}

uint16_t saturating_sub(uint16_t a, uint16_t b) {
    return a > b ? a - b : 0;
}

int64_t distance_sq(int32_t ax, int32_t ay, int32_t bx, int32_t by) {
    const int64_t dx = whole(ax) - whole(bx);
    const int64_t dy = whole(ay) - whole(by);
    return dx * dx + dy * dy;
}

bool boxes_touch(int32_t ax, int32_t ay, int ahw, int ahh, int32_t bx, int32_t by, int bhw,
                 int bhh) {
    const int32_t dx = whole(ax) - whole(bx);
    const int32_t dy = whole(ay) - whole(by);
    return dx <= ahw + bhw && -dx <= ahw + bhw && dy <= ahh + bhh && -dy <= ahh + bhh;
}

// First free slot, or null when the pool is full (the new object is simply dropped).
template <class T, size_t N>
T* allocate(T (&pool)[N]) {
    for (T& item : pool) {
        if (!item.active) return &item;
    }
    return nullptr;
}

void add_explosion(Ram& ram, int32_t x, int32_t y, uint8_t color, uint8_t size) {
    Explosion* e = allocate(ram.objects.explosions);
    if (e == nullptr) return;
    *e = Explosion{};
    e->active = 1;
    e->x = static_cast<int16_t>(whole(x));
    e->y = static_cast<int16_t>(whole(y));
    e->color = color;
    e->size = size;
}

void fire_shot(Ram& ram, int owner, ShotKind kind, int32_t x, int32_t y, int16_t vx, int16_t vy,
               uint8_t damage) {
    Shot* s = allocate(ram.objects.shots);
    if (s == nullptr) return;
    *s = Shot{};
    s->active = 1;
    s->owner = static_cast<uint8_t>(owner);
    s->kind = kind;
    s->x = x;
    s->y = y;
    s->vx = vx;
    s->vy = vy;
    s->damage = damage;
}

void add_score(Ram& ram, int player, uint32_t points) {
    Ship& ship = ram.ships[player];
    ship.score = std::min(ship.score + points, kScoreCap);
    if (ship.score >= ship.next_bomb_at) {
        ship.next_bomb_at += kBombEvery;
        if (ship.bombs < kMaxStock) ++ship.bombs;
        play_sfx(ram, Sfx::kExtraBomb, player);
    }
}

// `player` < 0: nobody gets the points (the enemy rammed a ship).
void damage_enemy(Ram& ram, Enemy& enemy, uint8_t damage, int player) {
    if (enemy.hp > damage) {
        enemy.hp -= damage;
        enemy.flash = 4;
        play_sfx(ram, Sfx::kHit, player);
        return;
    }
    enemy.hp = 0;
    enemy.active = 0;
    const bool big = enemy.kind == kEnemyBrute;
    add_explosion(ram, enemy.x, enemy.y, static_cast<uint8_t>(kColorEnemyBase + enemy.kind),
                  big ? 2 : 1);
    play_sfx(ram, big ? Sfx::kBoom : Sfx::kPop, player);
    if (player >= 0) add_score(ram, player, kEnemySpecs[enemy.kind].points);
}

void lose_ship(Ram& ram, int player) {
    Ship& ship = ram.ships[player];
    add_explosion(ram, ship.x, ship.y, static_cast<uint8_t>(player), 2);
    play_sfx(ram, Sfx::kShipLost, player);
    if (ship.lives > 0) --ship.lives;
    ship.state = kShipDown;
    ship.timer = kRespawnFrames;
}

void place_ship(Ram& ram, int player) {
    Ship& ship = ram.ships[player];
    ship.x = px(start_x(player, ram.sys.players));
    ship.y = px(kShipStartY);
    ship.state = kShipAlive;
    ship.timer = kInvulnerableFrames;
    ship.shield = kShieldMax;
    ship.cool_a = ship.cool_b = ship.cool_side = 0;
}

// A fresh run on this port: power-on, or START after the last life.
void start_run(Ram& ram, int player) {
    Ship& ship = ram.ships[player];
    place_ship(ram, player);
    ship.score = 0;
    ship.next_bomb_at = kBombEvery;
    ship.lives = kStartLives[ram.sys.difficulty];
    ship.bombs = 3;
    ship.shot_mode = 0;
}

void launch_bomb(Ram& ram, int player) {
    Ship& ship = ram.ships[player];
    --ship.bombs;
    ship.bomb_age = 1;
    ship.bomb_x = static_cast<int16_t>(whole(ship.x));
    ship.bomb_y = static_cast<int16_t>(whole(ship.y));
    ship.timer = std::max<uint16_t>(ship.timer, 30);  // a bomb buys a moment of safety
    const uint8_t bit = static_cast<uint8_t>(1u << player);
    for (Enemy& e : ram.objects.enemies) e.bomb_hits &= static_cast<uint8_t>(~bit);
    play_sfx(ram, Sfx::kBomb, player);
}

void fire_weapons(Ram& ram, int player) {
    Ship& ship = ram.ships[player];
    if (ship.cool_a > 0) --ship.cool_a;
    if (ship.cool_b > 0) --ship.cool_b;
    if (ship.cool_side > 0) --ship.cool_side;

    if (held(ship, kPadA) && ship.cool_a == 0) {
        if (ship.shot_mode == 0) {
            fire_shot(ram, player, kShotTwin, ship.x - px(3), ship.y - px(6), 0, -1536, 1);
            fire_shot(ram, player, kShotTwin, ship.x + px(3), ship.y - px(6), 0, -1536, 1);
            ship.cool_a = 6;
            play_sfx(ram, Sfx::kTwin, player);
        } else {
            for (int16_t vx : {int16_t{-384}, int16_t{0}, int16_t{384}}) {
                fire_shot(ram, player, kShotSpread, ship.x, ship.y - px(6), vx, -1408, 1);
            }
            ship.cool_a = 9;
            play_sfx(ram, Sfx::kSpread, player);
        }
    }
    if (held(ship, kPadB) && ship.cool_b == 0) {
        fire_shot(ram, player, kShotMissile, ship.x, ship.y - px(6), 0, -256, 4);
        ship.cool_b = 20;
        play_sfx(ram, Sfx::kMissile, player);
    }
    if ((held(ship, kPadL2) || held(ship, kPadR2)) && ship.cool_side == 0) {
        if (held(ship, kPadL2)) {
            fire_shot(ram, player, kShotSide, ship.x - px(5), ship.y, -768, -768, 1);
        }
        if (held(ship, kPadR2)) {
            fire_shot(ram, player, kShotSide, ship.x + px(5), ship.y, 768, -768, 1);
        }
        ship.cool_side = 10;
        play_sfx(ram, Sfx::kSide, player);
    }
}

void update_ship(Ram& ram, int player) {
    Ship& ship = ram.ships[player];
    switch (ship.state) {
        case kShipDown:
            if (ship.timer > 0) --ship.timer;
            if (ship.timer == 0) {
                if (ship.lives > 0) {
                    place_ship(ram, player);
                    ship.bombs = std::max<uint8_t>(ship.bombs, 2);
                } else {
                    ship.state = kShipOut;
                }
            }
            return;
        case kShipOut:
            if (pressed(ship, kPadStart)) {
                if (ship.continues < 255) ++ship.continues;
                start_run(ram, player);
                play_sfx(ram, Sfx::kContinue, player);
            }
            return;
        case kShipAlive:
            break;
        default:
            return;
    }

    if (ship.timer > 0) --ship.timer;
    const int32_t speed = held(ship, kPadL)   ? kShipSlow
                          : held(ship, kPadR) ? kShipFast
                                              : kShipSpeed;
    if (held(ship, kPadLeft)) ship.x -= speed;
    if (held(ship, kPadRight)) ship.x += speed;
    if (held(ship, kPadUp)) ship.y -= speed;
    if (held(ship, kPadDown)) ship.y += speed;
    ship.x = std::clamp(ship.x, px(kShipMinX), px(kShipMaxX));
    ship.y = std::clamp(ship.y, px(kShipMinY), px(kShipMaxY));

    fire_weapons(ram, player);

    if (held(ship, kPadX) && ship.shield > 0) {
        if (pressed(ship, kPadX)) play_sfx(ram, Sfx::kShield, player);
        ship.shield = saturating_sub(ship.shield, 2);
    } else if (!held(ship, kPadX) && ship.shield < kShieldMax && (ram.sys.frame & 3) == 0) {
        ++ship.shield;
    }
    if (pressed(ship, kPadY)) {
        if (ship.bombs > 0 && ship.bomb_age == 0) {
            launch_bomb(ram, player);
        } else {
            play_sfx(ram, Sfx::kDud, player);
        }
    }
    if (pressed(ship, kPadSelect)) {
        ship.shot_mode ^= 1;
        play_sfx(ram, Sfx::kSelect, player);
    }
    if (held(ship, kPadStart)) {
        if (ship.start_held < UINT16_MAX) ++ship.start_held;
        if (ship.start_held % 30 == 1) play_sfx(ram, Sfx::kBeacon, player);
    } else {
        ship.start_held = 0;
    }
    if (pressed(ship, kPadR3) || (held(ship, kPadR3) && ram.sys.frame % 16 == 0)) {
        play_sfx(ram, Sfx::kHorn, player);
    }
}

// Aims at the nearest live ship (lowest port wins ties); straight down when there is none.
void fire_bullet(Ram& ram, int32_t x, int32_t y, int16_t skew) {
    const int32_t speed = kBulletSpeed[ram.sys.difficulty];
    int64_t best = INT64_MAX;
    int32_t dx = 0;
    int32_t dy = 1;
    for (const Ship& ship : ram.ships) {
        if (ship.state != kShipAlive) continue;
        const int64_t d = distance_sq(ship.x, ship.y, x, y);
        if (d < best) {
            best = d;
            dx = whole(ship.x) - whole(x);
            dy = whole(ship.y) - whole(y);
        }
    }
    const int32_t len = std::max<int32_t>(
        1, static_cast<int32_t>(isqrt(static_cast<uint64_t>(int64_t{dx} * dx + int64_t{dy} * dy))));
    Bullet* b = allocate(ram.objects.bullets);
    if (b == nullptr) return;
    *b = Bullet{};
    b->active = 1;
    b->x = x;
    b->y = y;
    b->vx = static_cast<int16_t>(dx * speed / len + skew);
    b->vy = static_cast<int16_t>(dy * speed / len);
}

void update_enemy(Ram& ram, Enemy& e) {
    if (e.timer < UINT16_MAX) ++e.timer;
    if (e.flash > 0) --e.flash;
    const uint8_t difficulty = ram.sys.difficulty;
    switch (e.kind) {
        case kEnemyDart:
            e.y += e.vy;
            e.phase = static_cast<uint8_t>(e.phase + 3);
            e.x = e.base_x + sin_q8(e.phase) * e.amp;
            if (difficulty == kDifficultyHard && e.timer % 90 == 45 && random_below(ram, 3) == 0) {
                fire_bullet(ram, e.x, e.y, 0);
            }
            break;
        case kEnemySwoop:
            e.x += e.vx;
            e.y += e.vy;
            if (e.x < px(8) || e.x > px(kScreenWidth - 8)) {
                e.vx = static_cast<int16_t>(-e.vx);
                e.x = std::clamp(e.x, px(8), px(kScreenWidth - 8));
            }
            if (difficulty != kDifficultyEasy && e.timer % 120 == 60) fire_bullet(ram, e.x, e.y, 0);
            break;
        default:  // kEnemyBrute: descend, patrol, shoot, leave
            if (e.y < px(kFieldTop + e.hover) || e.timer > kBruteStay) {
                e.y += e.vy;
            } else {
                e.x += e.vx;
                if (e.x < px(20) || e.x > px(kScreenWidth - 20)) {
                    e.vx = static_cast<int16_t>(-e.vx);
                    e.x = std::clamp(e.x, px(20), px(kScreenWidth - 20));
                }
            }
            if (e.timer % kBruteFireEvery[difficulty] == 0 && e.y > px(kFieldTop)) {
                fire_bullet(ram, e.x, e.y + px(6), 0);
                if (difficulty == kDifficultyHard) {
                    fire_bullet(ram, e.x, e.y + px(6), -160);
                    fire_bullet(ram, e.x, e.y + px(6), 160);
                }
            }
            break;
    }
    if (e.y > px(kFieldBottom + 16) || e.y < px(-64)) e.active = 0;
}

Enemy* spawn_enemy(Ram& ram, EnemyKind kind, int32_t x, int32_t y) {
    Enemy* e = allocate(ram.objects.enemies);
    if (e == nullptr) return nullptr;
    *e = Enemy{};
    e->active = 1;
    e->kind = kind;
    e->hp = kEnemySpecs[kind].hp;
    e->x = e->base_x = px(x);
    e->y = px(y);
    return e;
}

void spawn_wave(Ram& ram) {
    const int players = ram.sys.players;
    const int level = ram.sys.level;
    const uint32_t roll = random_below(ram, 100);
    if (roll < 40) {  // a rain of wobbling darts
        const int count = 3 + players / 2 + level / 3;
        for (int k = 0; k < count; ++k) {
            const int32_t x = 16 + static_cast<int32_t>(random_below(ram, kScreenWidth - 32));
            Enemy* e = spawn_enemy(ram, kEnemyDart, x, kFieldTop - 8 - k * 12);
            if (e == nullptr) break;
            e->vy = static_cast<int16_t>(192 + random_below(ram, 96) + level * 8);
            e->amp = static_cast<uint8_t>(6 + random_below(ram, 18));
            e->phase = static_cast<uint8_t>(random_below(ram, 256));
        }
    } else if (roll < 65) {  // a V of five darts swaying together
        const int32_t cx = 60 + static_cast<int32_t>(random_below(ram, kScreenWidth - 120));
        for (int k = -2; k <= 2; ++k) {
            Enemy* e = spawn_enemy(ram, kEnemyDart, cx + k * 18, kFieldTop - 8 - std::abs(k) * 14);
            if (e == nullptr) break;
            e->vy = static_cast<int16_t>(224 + level * 8);
            e->amp = 20;
        }
    } else if (roll < 85) {  // swoopers bouncing off the walls
        const int count = 2 + players / 3;
        for (int k = 0; k < count; ++k) {
            const int32_t x = 20 + static_cast<int32_t>(random_below(ram, kScreenWidth - 40));
            Enemy* e = spawn_enemy(ram, kEnemySwoop, x, kFieldTop - 8 - k * 16);
            if (e == nullptr) break;
            const int16_t speed = static_cast<int16_t>(256 + random_below(ram, 256));
            e->vx = random_below(ram, 2) != 0 ? speed : static_cast<int16_t>(-speed);
            e->vy = static_cast<int16_t>(160 + random_below(ram, 96) + level * 6);
        }
    } else {  // brutes that park and shoot
        const int count = players >= 5 ? 2 : 1;
        for (int k = 0; k < count; ++k) {
            const int32_t x = 40 + static_cast<int32_t>(random_below(ram, kScreenWidth - 80));
            Enemy* e = spawn_enemy(ram, kEnemyBrute, x, kFieldTop - 12 - k * 20);
            if (e == nullptr) break;
            e->vy = 192;
            e->vx = random_below(ram, 2) != 0 ? 128 : -128;
            e->hover = static_cast<uint8_t>(20 + random_below(ram, 60));
        }
    }
    ++ram.sys.waves;
}

void move_projectiles(Ram& ram) {
    for (Shot& s : ram.objects.shots) {
        if (!s.active) continue;
        if (s.kind == kShotMissile) s.vy = static_cast<int16_t>(std::max(s.vy - 24, -2048));
        s.x += s.vx;
        s.y += s.vy;
        if (s.y < px(kFieldTop - 8) || s.y > px(kFieldBottom + 8) || s.x < px(-8) ||
            s.x > px(kScreenWidth + 8)) {
            s.active = 0;
        }
    }
    for (Bullet& b : ram.objects.bullets) {
        if (!b.active) continue;
        b.x += b.vx;
        b.y += b.vy;
        if (b.age < UINT8_MAX) ++b.age;
        if (b.y < px(kFieldTop - 8) || b.y > px(kFieldBottom + 8) || b.x < px(-8) ||
            b.x > px(kScreenWidth + 8)) {
            b.active = 0;
        }
    }
}

void collide_shots(Ram& ram) {
    for (Shot& s : ram.objects.shots) {
        if (!s.active) continue;
        const ShotBox box = kShotBoxes[s.kind];
        for (Enemy& e : ram.objects.enemies) {
            if (!e.active) continue;
            const EnemySpec& spec = kEnemySpecs[e.kind];
            if (boxes_touch(s.x, s.y, box.half_w, box.half_h, e.x, e.y, spec.half_w, spec.half_h)) {
                s.active = 0;
                damage_enemy(ram, e, s.damage, s.owner);
                break;
            }
        }
    }
}

void collide_bombs(Ram& ram) {
    for (int i = 0; i < kMaxPlayers; ++i) {
        Ship& ship = ram.ships[i];
        if (ship.bomb_age == 0) continue;
        if (++ship.bomb_age > kBombFrames) {
            ship.bomb_age = 0;
            continue;
        }
        const int64_t r = int64_t{ship.bomb_age} * kBombGrowth;
        const int32_t cx = px(ship.bomb_x);
        const int32_t cy = px(ship.bomb_y);
        const uint8_t bit = static_cast<uint8_t>(1u << i);
        for (Enemy& e : ram.objects.enemies) {
            if (!e.active || (e.bomb_hits & bit) != 0) continue;
            if (distance_sq(e.x, e.y, cx, cy) <= r * r) {
                e.bomb_hits |= bit;
                damage_enemy(ram, e, 3, i);
            }
        }
        for (Bullet& b : ram.objects.bullets) {
            if (b.active && distance_sq(b.x, b.y, cx, cy) <= r * r) b.active = 0;
        }
    }
}

void collide_ships(Ram& ram) {
    for (int i = 0; i < kMaxPlayers; ++i) {
        Ship& ship = ram.ships[i];
        if (ship.state != kShipAlive || ship.timer > 0) continue;
        const int reach = shielded(ship) ? kShieldReach : kShipCore;
        for (Bullet& b : ram.objects.bullets) {
            if (!b.active || !boxes_touch(b.x, b.y, 1, 1, ship.x, ship.y, reach, reach)) continue;
            b.active = 0;
            if (shielded(ship)) {
                ship.shield = saturating_sub(ship.shield, 30);
                add_explosion(ram, b.x, b.y, kColorSpark, 0);
                play_sfx(ram, Sfx::kBlock, i);
            } else {
                lose_ship(ram, i);
                break;
            }
        }
        if (ship.state != kShipAlive) continue;
        for (Enemy& e : ram.objects.enemies) {
            if (!e.active) continue;
            const EnemySpec& spec = kEnemySpecs[e.kind];
            if (!boxes_touch(e.x, e.y, spec.half_w, spec.half_h, ship.x, ship.y, kShipBody,
                             kShipBody)) {
                continue;
            }
            if (shielded(ship)) {
                ship.shield = saturating_sub(ship.shield, 60);
                play_sfx(ram, Sfx::kBlock, i);
                damage_enemy(ram, e, 4, i);
            } else {
                damage_enemy(ram, e, 4, -1);
                lose_ship(ram, i);
                break;
            }
        }
    }
}

void age_explosions(Ram& ram) {
    for (Explosion& e : ram.objects.explosions) {
        if (!e.active) continue;
        if (++e.age >= kExplosionLife[e.size]) e.active = 0;
    }
}

void run_spawner(Ram& ram) {
    if (ram.sys.spawn_timer > 0) {
        --ram.sys.spawn_timer;
        return;
    }
    spawn_wave(ram);
    const int interval = kWaveInterval[ram.sys.difficulty] - ram.sys.level * 6 -
                         ram.sys.players * 4 + static_cast<int>(random_below(ram, 40));
    ram.sys.spawn_timer = static_cast<uint16_t>(std::max(interval, 30));
}

bool position_ok(int32_t x, int32_t y) {
    constexpr int32_t kLimit = px(1024);
    return x > -kLimit && x < kLimit && y > -kLimit && y < kLimit;
}

}  // namespace

uint64_t fnv1a64(const uint8_t* data, size_t size) {
    uint64_t h = 0xCBF29CE484222325ull;
    for (size_t i = 0; i < size; ++i) {
        h ^= data[i];
        h *= 0x100000001B3ull;
    }
    return h;
}

void power_on(Ram& ram, const Config& config) {
    std::memset(&ram, 0, sizeof(ram));
    ram.sys.seed = config.seed;
    ram.sys.content_hash = config.content_hash;
    ram.sys.players = static_cast<uint8_t>(std::clamp<int>(config.players, 2, kMaxPlayers));
    ram.sys.difficulty = std::min<uint8_t>(config.difficulty, kDifficultyHard);
    ram.sys.level = 1;
    ram.sys.spawn_timer = 90;
    // xorshift must not start at zero; splitmix spreads small seeds over all 64 bits.
    ram.sys.rng = splitmix64(config.seed ^ (config.content_hash * 0x9E3779B97F4A7C15ull));
    if (ram.sys.rng == 0) ram.sys.rng = 1;
    for (int i = 0; i < ram.sys.players; ++i) start_run(ram, i);
}

void latch_high_score(Ram& ram, uint32_t best, uint16_t session) {
    ram.sys.hi_score = std::max(ram.sys.hi_score, std::min(best, kScoreCap));
    ram.sys.hs_session = session;
    ram.sys.hs_latched = 1;
}

void set_difficulty(Ram& ram, uint8_t difficulty) {
    ram.sys.difficulty = std::min<uint8_t>(difficulty, kDifficultyHard);
}

void step(Ram& ram, const uint16_t pads[kMaxPlayers]) {
    for (int i = 0; i < kMaxPlayers; ++i) {
        ram.ships[i].prev_pad = ram.ships[i].pad;
        ram.ships[i].pad = pads[i];
        ram.sys.input_digest =
            (ram.sys.input_digest ^ (pads[i] + (static_cast<uint32_t>(i) << 16))) * 16777619u;
    }
    for (int i = 0; i < ram.sys.players; ++i) update_ship(ram, i);
    move_projectiles(ram);
    for (Enemy& e : ram.objects.enemies) {
        if (e.active) update_enemy(ram, e);
    }
    collide_shots(ram);
    collide_bombs(ram);
    collide_ships(ram);
    age_explosions(ram);
    run_spawner(ram);

    ++ram.sys.frame;
    ram.sys.level =
        static_cast<uint8_t>(std::min<uint32_t>(9, 1 + ram.sys.frame / kFramesPerLevel));
    for (const Ship& ship : ram.ships) ram.sys.hi_score = std::max(ram.sys.hi_score, ship.score);
}

bool is_consistent(const Ram& ram) {
    const System& sys = ram.sys;
    if (sys.players < 2 || sys.players > kMaxPlayers || sys.difficulty > kDifficultyHard ||
        sys.hs_latched > 1 || sys.level < 1 || sys.level > 9 || sys.rng == 0) {
        return false;
    }
    for (int i = 0; i < kMaxPlayers; ++i) {
        const Ship& s = ram.ships[i];
        const bool should_play = i < sys.players;
        if (should_play != (s.state != kShipInactive) || s.state > kShipOut) return false;
        if (s.shot_mode > 1 || s.lives > kMaxStock || s.bombs > kMaxStock ||
            s.shield > kShieldMax || s.bomb_age > kBombFrames || s.score > kScoreCap ||
            !position_ok(s.x, s.y)) {
            return false;
        }
    }
    for (const Shot& s : ram.objects.shots) {
        if (s.active > 1) return false;
        if (s.active && (s.owner >= kMaxPlayers || s.kind > kShotSide || !position_ok(s.x, s.y))) {
            return false;
        }
    }
    for (const Enemy& e : ram.objects.enemies) {
        if (e.active > 1) return false;
        if (e.active && (e.kind > kEnemyBrute || !position_ok(e.x, e.y) ||
                         !position_ok(e.base_x, 0) || e.amp > 64)) {
            return false;
        }
    }
    for (const Bullet& b : ram.objects.bullets) {
        if (b.active > 1 || (b.active && !position_ok(b.x, b.y))) return false;
    }
    for (const Explosion& e : ram.objects.explosions) {
        if (e.active > 1) return false;
        if (e.active && (e.color >= kColorCount || e.size > 2)) return false;
    }
    for (const Voice& v : ram.audio.voices) {
        if (v.kind > kVoiceNoise || v.remaining > v.length) return false;
    }
    return true;
}

}  // namespace framelock::cores::arcade
