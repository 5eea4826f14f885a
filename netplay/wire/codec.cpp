#include "netplay/wire/codec.h"

#include <cstdint>
#include <optional>
#include <utility>

namespace framelock::netplay {

namespace {

// One player's words as (word, length 1..255) runs.
std::vector<std::pair<InputWord, std::uint8_t>> runs_of(const std::vector<InputWord>& words) {
    std::vector<std::pair<InputWord, std::uint8_t>> runs;
    for (InputWord word : words) {
        if (!runs.empty() && runs.back().first == word && runs.back().second < 255) {
            ++runs.back().second;
        } else {
            runs.push_back({word, 1});
        }
    }
    return runs;
}

}  // namespace

// Reads `runs` (word, length) pairs, or while `runs` is unset until they add up to `count`
// words; they must add up to exactly `count`.
bool read_runs_up_to(WireReader& r, std::optional<std::size_t> runs, std::size_t count,
                     std::vector<InputWord>& out) {
    out.clear();
    for (std::size_t i = 0; (runs ? i < *runs : out.size() < count) && !r.failed(); ++i) {
        const InputWord word = r.u16();
        const std::size_t length = r.u8();
        if (length == 0 || out.size() + length > count) return false;
        out.insert(out.end(), length, word);
    }
    return !r.failed() && out.size() == count;
}

// The runs of a count of words the reader knows already, without a run count: they end where
// they add up to it (the messages' coding; a replay's is write_runs).
void write_known_runs(WireWriter& w, const std::vector<InputWord>& words) {
    for (const auto& [word, length] : runs_of(words)) {
        w.u16(word);
        w.u8(length);
    }
}

// Run-length coding of one player's words: run count, then (word, length 1..255) pairs.
void write_runs(WireWriter& w, const std::vector<InputWord>& words) {
    const auto runs = runs_of(words);
    w.u8(static_cast<std::uint8_t>(runs.size()));
    for (const auto& [word, length] : runs) {
        w.u16(word);
        w.u8(length);
    }
}

// Reads runs that must add up to exactly `count` words.
bool read_runs(WireReader& r, std::size_t count, std::vector<InputWord>& out) {
    const std::size_t runs = r.u8();
    return read_runs_up_to(r, runs, count, out);
}

}  // namespace framelock::netplay
