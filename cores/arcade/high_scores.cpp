#include "high_scores.h"

#include <cstring>
#include <utility>

namespace framelock::cores::arcade {
namespace {

constexpr uint8_t kHighScoresMagic[4] = {'F', 'L', 'H', 'S'};
constexpr uint8_t kVersion = 1;
constexpr size_t kEntriesOffset = 8;
constexpr size_t kEntryBytes = 8;
constexpr size_t kChecksumOffset = 60;
static_assert(kEntriesOffset + kHighScoreEntries * kEntryBytes + 4 == kChecksumOffset);

uint32_t read_u32(const uint8_t* p) {
    return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}
uint16_t read_u16(const uint8_t* p) {
    return static_cast<uint16_t>(p[0] | p[1] << 8);
}
void write_u32(uint8_t* p, uint32_t v) {
    for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
void write_u16(uint8_t* p, uint16_t v) {
    p[0] = static_cast<uint8_t>(v);
    p[1] = static_cast<uint8_t>(v >> 8);
}

uint32_t checksum(const uint8_t* bytes) {
    uint32_t h = 0x811C9DC5u;
    for (size_t i = 0; i < kChecksumOffset; ++i) {
        h ^= bytes[i];
        h *= 0x01000193u;
    }
    return h;
}

}  // namespace

bool decode_high_scores(const uint8_t* bytes, HighScores& out) {
    if (std::memcmp(bytes, kHighScoresMagic, sizeof(kHighScoresMagic)) != 0 ||
        bytes[4] != kVersion || bytes[5] != kHighScoreEntries ||
        read_u32(bytes + kChecksumOffset) != checksum(bytes)) {
        return false;
    }
    HighScores table;
    table.session = read_u16(bytes + 6);
    for (int i = 0; i < kHighScoreEntries; ++i) {
        const uint8_t* p = bytes + kEntriesOffset + i * kEntryBytes;
        HighScoreEntry& e = table.entries[i];
        e.score = read_u32(p);
        e.session = read_u16(p + 4);
        e.player = p[6];
        e.run = p[7];
        if (e.player > 8 || (i > 0 && e.score > table.entries[i - 1].score)) return false;
    }
    out = table;
    return true;
}

void encode_high_scores(const HighScores& table, uint8_t* bytes) {
    std::memset(bytes, 0, kHighScoreBytes);
    std::memcpy(bytes, kHighScoresMagic, sizeof(kHighScoresMagic));
    bytes[4] = kVersion;
    bytes[5] = kHighScoreEntries;
    write_u16(bytes + 6, table.session);
    for (int i = 0; i < kHighScoreEntries; ++i) {
        uint8_t* p = bytes + kEntriesOffset + i * kEntryBytes;
        const HighScoreEntry& e = table.entries[i];
        write_u32(p, e.score);
        write_u16(p + 4, e.session);
        p[6] = e.player;
        p[7] = e.run;
    }
    write_u32(bytes + kChecksumOffset, checksum(bytes));
}

bool submit_high_score(HighScores& table, uint32_t score, uint16_t session, uint8_t player,
                       uint8_t run) {
    if (score == 0) return false;
    int slot = kHighScoreEntries - 1;
    for (int i = 0; i < kHighScoreEntries; ++i) {
        const HighScoreEntry& e = table.entries[i];
        if (e.score != 0 && e.session == session && e.player == player && e.run == run) {
            slot = i;
            break;
        }
    }
    HighScoreEntry& entry = table.entries[slot];
    if (score <= entry.score) return false;
    entry = HighScoreEntry{score, session, player, run};
    for (int i = slot; i > 0 && table.entries[i].score > table.entries[i - 1].score; --i) {
        std::swap(table.entries[i], table.entries[i - 1]);
    }
    return true;
}

}  // namespace framelock::cores::arcade
