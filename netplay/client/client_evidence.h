// The desync evidence a client reports (netplay/determinism/evidence.h): the evidence masks
// the server announced, each with the frame it applies from, and the hash of a state under
// the mask in force at that state's frame. A hash report names its mask's generation, so the
// server compares only reports made under the same mask.
#pragma once

#include <cstdint>
#include <deque>
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
    // The evidence of the state after `frame`: the live machine's, or (`saved` not null) saved
    // bytes, whose memory hash `saved_memory` was taken when they were saved.
    std::uint64_t hash_after(std::uint32_t frame, Emulator& emulator,
                             const std::vector<std::uint8_t>* saved = nullptr,
                             std::uint64_t saved_memory = 0);
    // The report of that evidence, under the mask in force at `frame`.
    HashReport report(std::uint32_t frame, std::uint64_t hash) const;

  private:
    // Oldest first; the first: the whole state, generation 0.
    std::deque<EvidenceMask> m_masks = std::deque<EvidenceMask>(1);
    std::vector<std::uint8_t> m_scratch;  // reused by the live machine's hash
};

}  // namespace framelock::netplay
