// Safe text (safe_text.h): a strict UTF-8 decoder, the table of unsafe characters, and one
// walk over a text's pieces that escapes, cuts, or both.
#include "netplay/base/safe_text.h"

#include <cstdint>
#include <cstdio>

namespace framelock {
namespace {

// The unsafe code points, and what each is, for the message to the person who typed one.
struct UnsafeRange {
    char32_t first;
    char32_t last;
    const char* what;
};

constexpr const char* kControl = "a control character";
constexpr const char* kBidi = "a bidi control: it reorders the text after it";
constexpr const char* kInvisible = "an invisible format character";

constexpr UnsafeRange kUnsafe[] = {
    {0x0000, 0x001f, kControl},
    {0x007f, 0x009f, kControl},    // DEL and C1
    {0x00ad, 0x00ad, kInvisible},  // soft hyphen
    {0x061c, 0x061c, kBidi},       // Arabic letter mark
    {0x115f, 0x1160, kInvisible},  // Hangul fillers
    {0x17b4, 0x17b5, kInvisible},  // Khmer inherent vowels
    {0x180e, 0x180e, kInvisible},  // Mongolian vowel separator
    {0x200b, 0x200b, kInvisible},  // zero-width space
    {0x200e, 0x200f, kBidi},       // left-to-right and right-to-left marks
    {0x2028, 0x2029, "a line or paragraph separator"},
    {0x202a, 0x202e, kBidi},         // embeddings, pop, overrides
    {0x2060, 0x2064, kInvisible},    // word joiner, invisible operators
    {0x2066, 0x2069, kBidi},         // isolates
    {0x206a, 0x206f, kInvisible},    // deprecated format characters
    {0x3164, 0x3164, kInvisible},    // Hangul filler
    {0xfeff, 0xfeff, kInvisible},    // zero-width no-break space
    {0xffa0, 0xffa0, kInvisible},    // halfwidth Hangul filler
    {0xfff9, 0xfffb, kInvisible},    // interlinear annotations
    {0x1bca0, 0x1bca3, kInvisible},  // shorthand format controls
    {0x1d173, 0x1d17a, kInvisible},  // musical format characters
    {0xe0000, 0xe007f, kInvisible},  // tags
};

const UnsafeRange* unsafe(char32_t c) {
    for (const UnsafeRange& range : kUnsafe) {
        if (c >= range.first && c <= range.last) return &range;
    }
    return nullptr;
}

// A character that belongs to the one before it on screen: a cut goes before the pair.
bool extends(char32_t c) {
    return (c >= 0x0300 && c <= 0x036f) ||    // combining diacritical marks
           (c >= 0x0483 && c <= 0x0489) ||    // Cyrillic combining marks
           (c >= 0x0591 && c <= 0x05bd) ||    // Hebrew points
           (c >= 0x0610 && c <= 0x061a) ||    // Arabic marks
           (c >= 0x064b && c <= 0x065f) ||    // Arabic vowel marks
           (c >= 0x1ab0 && c <= 0x1aff) ||    // combining diacritical marks extended
           (c >= 0x1dc0 && c <= 0x1dff) ||    // ... supplement
           c == 0x200d ||                     // zero-width joiner
           (c >= 0x20d0 && c <= 0x20ff) ||    // combining marks for symbols (keycaps)
           (c >= 0x3099 && c <= 0x309a) ||    // kana voicing marks
           (c >= 0xfe00 && c <= 0xfe0f) ||    // variation selectors
           (c >= 0xfe20 && c <= 0xfe2f) ||    // combining half marks
           (c >= 0x1f3fb && c <= 0x1f3ff) ||  // emoji skin tones
           (c >= 0xe0100 && c <= 0xe01ef);    // variation selectors supplement
}

bool regional_indicator(char32_t c) {
    return c >= 0x1f1e6 && c <= 0x1f1ff;
}

bool is_hex(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// One piece of a text: a well-formed code point, a byte that is not UTF-8, or an escape
// this module writes (\xNN, \uNNNN, \UNNNNNNNN), which a cut must keep whole.
struct Piece {
    std::size_t size = 1;
    char32_t code = 0;
    bool valid = false;   // well-formed (an escape: its backslash, a safe character)
    bool escape = false;  // an escape as written out here
};

// The strict decoder (RFC 3629): no overlong forms, no surrogates, nothing past U+10FFFF.
Piece decode(std::string_view text, std::size_t at) {
    const auto byte = [&](std::size_t i) {
        return at + i < text.size() ? static_cast<std::uint8_t>(text[at + i]) : 0;
    };
    const std::uint8_t b0 = byte(0);
    Piece piece;
    if (b0 < 0x80) {
        piece.code = b0;
        piece.valid = true;
        return piece;
    }
    int size = 0;
    std::uint8_t low = 0x80, high = 0xbf;  // the second byte's range
    if (b0 >= 0xc2 && b0 <= 0xdf) {
        size = 2;
    } else if (b0 >= 0xe0 && b0 <= 0xef) {
        size = 3;
        if (b0 == 0xe0) low = 0xa0;   // overlong
        if (b0 == 0xed) high = 0x9f;  // surrogates
    } else if (b0 >= 0xf0 && b0 <= 0xf4) {
        size = 4;
        if (b0 == 0xf0) low = 0x90;   // overlong
        if (b0 == 0xf4) high = 0x8f;  // past U+10FFFF
    } else {
        return piece;  // a continuation byte, 0xc0, 0xc1 or 0xf5 and up
    }
    char32_t code = b0 & (0x7f >> size);
    for (int i = 1; i < size; ++i) {
        const std::uint8_t b = byte(static_cast<std::size_t>(i));
        if (i == 1 ? (b < low || b > high) : (b < 0x80 || b > 0xbf)) return piece;
        code = (code << 6) | (b & 0x3f);
    }
    piece.size = static_cast<std::size_t>(size);
    piece.code = code;
    piece.valid = true;
    return piece;
}

Piece next_piece(std::string_view text, std::size_t at) {
    if (text[at] == '\\' && at + 1 < text.size()) {
        const char kind = text[at + 1];
        const std::size_t digits = kind == 'x' ? 2 : kind == 'u' ? 4 : kind == 'U' ? 8 : 0;
        bool escape = digits > 0 && at + 2 + digits <= text.size();
        for (std::size_t i = 0; escape && i < digits; ++i) escape = is_hex(text[at + 2 + i]);
        if (escape) {
            Piece piece;
            piece.size = 2 + digits;
            piece.code = '\\';
            piece.valid = true;
            piece.escape = true;
            return piece;
        }
    }
    return decode(text, at);
}

std::string escape_of(const Piece& piece, std::uint8_t first_byte) {
    char out[16];
    if (!piece.valid || piece.code < 0x80)
        std::snprintf(out, sizeof out, "\\x%02x",
                      static_cast<unsigned>(piece.valid ? piece.code : first_byte));
    else if (piece.code <= 0xffff)
        std::snprintf(out, sizeof out, "\\u%04x", static_cast<unsigned>(piece.code));
    else
        std::snprintf(out, sizeof out, "\\U%08x", static_cast<unsigned>(piece.code));
    return out;
}

// The walk: each piece escaped (when `escape` and unsafe) or kept, up to `max_bytes`; a piece
// that does not fit ends the text, and so does the cluster it would have extended.
std::string walk(std::string_view text, std::size_t max_bytes, bool escape) {
    std::string out;
    out.reserve(text.size() < max_bytes ? text.size() : max_bytes);
    std::size_t cluster = 0;  // where the character being written began in `out`
    bool after_joiner = false, open_flag = false;
    for (std::size_t at = 0; at < text.size();) {
        const Piece piece = next_piece(text, at);
        const bool bad = !piece.valid || (!piece.escape && unsafe(piece.code));
        const bool joins =
            !bad && !piece.escape &&
            (extends(piece.code) || after_joiner || (open_flag && regional_indicator(piece.code)));
        if (!joins) cluster = out.size();
        const std::string escaped =
            escape && bad ? escape_of(piece, static_cast<std::uint8_t>(text[at])) : std::string();
        const std::size_t size = escaped.empty() ? piece.size : escaped.size();
        if (size > max_bytes - out.size()) {
            if (joins && cluster > 0) out.resize(cluster);
            break;
        }
        if (escaped.empty())
            out.append(text.substr(at, piece.size));
        else
            out += escaped;
        after_joiner = !bad && piece.code == 0x200d;
        open_flag = !bad && regional_indicator(piece.code) && !(joins && open_flag);
        at += piece.size;
    }
    return out;
}

}  // namespace

std::optional<UnsafeChar> find_unsafe(std::string_view text) {
    for (std::size_t at = 0; at < text.size();) {
        const Piece piece = decode(text, at);
        char code[16];
        if (!piece.valid) {
            std::snprintf(code, sizeof code, "0x%02x",
                          static_cast<unsigned>(static_cast<std::uint8_t>(text[at])));
            return UnsafeChar{at, std::string("the byte ") + code + " (not well-formed UTF-8)"};
        }
        if (const UnsafeRange* range = unsafe(piece.code)) {
            std::snprintf(code, sizeof code, "U+%04X", static_cast<unsigned>(piece.code));
            return UnsafeChar{at, std::string(code) + " (" + range->what + ")"};
        }
        at += piece.size;
    }
    return std::nullopt;
}

std::string safe_text(std::string_view text, std::size_t max_bytes) {
    return walk(text, max_bytes, true);
}

std::string cut_text(std::string_view text, std::size_t max_bytes) {
    if (text.size() <= max_bytes) return std::string(text);
    return walk(text, max_bytes, false);
}

}  // namespace framelock
