// The desync evidence a client reports (netplay/determinism/evidence.h): the evidence masks
// the server announced, each with the frame it applies from, and the hash of a state under
// the mask in force at that state's frame. A hash report names its mask's generation, so the
// server compares only reports made under the same mask.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <vector>

#include "netplay/interfaces/emulator.h"
#include "netplay/wire/protocol.h"

namespace framelock::netplay {

class ClientEvidence {
  public:
    // A mask the server announced. Generations only grow (wrap-safe): an older or repeated
    // one is no news and is dropped.
    void add(EvidenceMask mask);
    // The mask in force at `frame` (the whole state, generation 0, before any other).
    const EvidenceMask& mask_at(std::uint32_t frame) const;
    // Whether the newest mask compares memory (a saved state then keeps its memory's hash,
    // taken while the machine held it).
    bool newest_is_memory() const;
    // The evidence of the state after `frame`: hashed from `saved` when not null (the state
    // saved after it, which a snapshot keeps: a core may not save the same machine the same way
    // twice, so an uploaded snapshot must be the very bytes its report was made of), else
    // from a save of the live machine. Memory evidence: `saved_memory` when the machine has
    // moved on since `saved` was taken (the hash of its memory then), else the live memory.
    std::uint64_t hash_after(std::uint32_t frame, Emulator& emulator,
                             const std::vector<std::uint8_t>* saved = nullptr,
                             std::optional<std::uint64_t> saved_memory = std::nullopt);
    // The report of that evidence, under the mask in force at `frame`.
    HashReport report(std::uint32_t frame, std::uint64_t hash) const;

  private:
    // Oldest first; the first: the whole state, generation 0.
    std::deque<EvidenceMask> m_masks = std::deque<EvidenceMask>(1);
    std::vector<std::uint8_t> m_scratch;  // reused by the live machine's hash
};

}  // namespace framelock::netplay
