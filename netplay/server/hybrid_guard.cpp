#include "netplay/server/hybrid_guard.h"

#include "netplay/base/safe_text.h"

namespace framelock::netplay {

std::optional<HybridGuard::Leave> HybridGuard::leave(std::string reason, std::uint8_t differing) {
    if (!hybrid()) return std::nullopt;
    m_config.mode = SessionMode::kFrameLock;
    m_config.delay.hybrid = false;
    m_config.prediction_window = 0;
    // What it means first: a long reason is cut at its end on the wire.
    return Leave{"frame lock from now on: " + std::move(reason), differing};
}

std::optional<HybridGuard::Leave> HybridGuard::desync(std::uint32_t frame, std::uint8_t differing) {
    std::string who;
    for (int s = 1; s <= kMaxPlayers; ++s) {
        if (differing & (1u << (s - 1))) who += (who.empty() ? "" : ", ") + std::to_string(s);
    }
    return leave("a desync at frame " + std::to_string(frame) + " (slot(s) " + who +
                     ") in the hybrid: the core or its savestates are not deterministic here",
                 differing);
}

std::optional<HybridGuard::Leave> HybridGuard::vouch(int slot, ServerSlot& player,
                                                     const SavestateVouch& vouch) {
    auto& word = m_vouched[static_cast<std::size_t>(slot - 1)];
    if (word || !m_config.hybrid_if_vouched) {
        // A second word (the first stands), or one this server never asks for.
        ++player.malformed;
        return std::nullopt;
    }
    word = vouch.passed;
    if (vouch.passed) return std::nullopt;  // (after the hybrid ended, leave() says nothing)
    return leave("player " + std::to_string(slot) + " (" + player.name +
                     ") cannot vouch for its savestates: " + safe_text(vouch.note, kMaxNoteBytes),
                 static_cast<std::uint8_t>(1u << (slot - 1)));
}

HybridGuard::Wait HybridGuard::before_start(std::span<const ServerSlot> players, Micros now,
                                            Micros quorum_since) {
    if (!asks()) return {};
    std::string silent;
    std::uint8_t slots = 0;
    for (std::size_t i = 0; i < players.size(); ++i) {
        if (!players[i].taken() || m_vouched[i]) continue;
        silent += (silent.empty() ? "" : ", ") + std::to_string(i + 1);
        slots |= static_cast<std::uint8_t>(1u << i);
    }
    if (!slots) return {};
    if (now - quorum_since < kVouchWaitUs) return {true, std::nullopt};
    return {false, leave("player(s) " + silent + " said nothing of their savestates within " +
                             std::to_string(kVouchWaitUs / 1'000'000) + " s",
                         slots)};
}

}  // namespace framelock::netplay
