#include "netplay/client/client_evidence.h"

#include "netplay/base/types.h"
#include "netplay/determinism/evidence.h"

namespace framelock::netplay {
namespace {
// Evidence masks kept (each with the frame it applies from): the newest ones are all a
// report can be under.
constexpr std::size_t kMaxMasksKept = 16;
}  // namespace

void ClientEvidence::add(EvidenceMask mask) {
    if (static_cast<std::int16_t>(mask.generation - m_masks.back().generation) <= 0) return;
    m_masks.push_back(std::move(mask));
    while (m_masks.size() > kMaxMasksKept) m_masks.pop_front();
}

const EvidenceMask& ClientEvidence::mask_at(std::uint32_t frame) const {
    for (auto it = m_masks.rbegin(); it != m_masks.rend(); ++it) {
        if (Frame(frame) >= Frame(it->from_frame)) return *it;
    }
    return m_masks.front();
}

bool ClientEvidence::newest_is_memory() const {
    return m_masks.back().kind == EvidenceKind::kMemory;
}

std::uint64_t ClientEvidence::hash_after(std::uint32_t frame, Emulator& emulator,
                                         const std::vector<std::uint8_t>* saved,
                                         std::optional<std::uint64_t> saved_memory) {
    const EvidenceMask& mask = mask_at(frame);
    if (mask.kind == EvidenceKind::kMemory)
        return saved_memory ? *saved_memory : memory_hash(emulator.memory_regions());
    return saved ? evidence_hash(*saved, mask) : evidence_hash(emulator, mask, m_scratch);
}

HashReport ClientEvidence::report(std::uint32_t frame, std::uint64_t hash) const {
    return HashReport{frame, hash, mask_at(frame).generation};
}

}  // namespace framelock::netplay
