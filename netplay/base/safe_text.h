// Safe text: the one description of text that may be shown as it is, for every place that
// shows text another party chose (a peer's name or Bye reason, a lobby's room, a core's region
// names) in a log, on a terminal, in the overlay, in JSON or on the web page.
//
// Safe text is well-formed UTF-8 without the characters that let text pose as something else:
//   - controls: C0 (U+0000-001F: new lines, the ESC of terminal escape sequences, the bell),
//     DEL and C1 (U+007F-009F), and the line and paragraph separators (U+2028, U+2029);
//   - bidi controls, which reorder the text after them: embeddings and overrides
//     (U+202A-202E), isolates (U+2066-2069) and the marks (U+200E, U+200F, U+061C);
//   - invisible format characters that hide or smuggle text: the soft hyphen, zero-width
//     space, word joiner and invisible operators (U+2060-2064), the deprecated format
//     characters (U+206A-206F), U+FEFF, the interlinear annotations (U+FFF9-FFFB), the tags
//     (U+E0000-E007F), the Hangul fillers (a "blank" name) and a few others (safe_text.cpp).
// Combining marks, the zero-width joiner and non-joiner and variation selectors stay: scripts
// and emoji need them.
//
// Text is made safe by writing each such character out as a visible escape, so that whoever
// reads a log sees what was tried: a C0 control or DEL as \xNN, any other such code point as
// \uNNNN (\UNNNNNNNN beyond U+FFFF), and each byte that is not part of well-formed UTF-8
// (overlong forms, surrogates, beyond U+10FFFF, a cut sequence) as \xNN of that byte (always
// 0x80 or more, so never confused with a control). A backslash stays as it is, so safe text
// made safe again is unchanged: the server cleans a name once when it receives it, the log and
// the overlay once more where they show it, and nothing is escaped twice.
//
// Lengths are cut to a byte limit on a character's boundary: never inside a code point or an
// escape, and before a combining mark, variation selector, emoji modifier, a character joined
// by U+200D or the second half of a flag, so that a cut never leaves half a character on
// screen (the common combining blocks, not the whole Unicode table; a single character longer
// than the limit is cut at a code point).
#pragma once

#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace framelock {

inline constexpr std::size_t kNoTextLimit = std::numeric_limits<std::size_t>::max();

// The first thing in a text that is not safe text: where it is and what it is, for a message
// to the person who typed it ("U+202E (a bidi control: it reorders the text after it)").
struct UnsafeChar {
    std::size_t offset = 0;  // bytes from the text's start
    std::string what;
};

// nullopt when `text` is safe text as it is.
std::optional<UnsafeChar> find_unsafe(std::string_view text);

// `text` made safe (every unsafe character or byte escaped), cut to at most `max_bytes`.
std::string safe_text(std::string_view text, std::size_t max_bytes = kNoTextLimit);

// `text` unchanged but cut to at most `max_bytes` on a boundary as above: for text whose
// bytes must go on as they are (a field on the wire).
std::string cut_text(std::string_view text, std::size_t max_bytes);

}  // namespace framelock
