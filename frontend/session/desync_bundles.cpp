#include "frontend/session/desync_bundles.h"

#include <algorithm>
#include <cstdio>

#include "common/log.h"
#include "netplay/determinism/byte_diff.h"
#include "netplay/determinism/state_hash.h"
#include "netplay/wire/wire.h"

namespace framelock::frontend {
namespace {

// Memory pictures kept, the newest: a desync is reported within seconds of its frame, and its
// states are of the first snapshot frame after it (a copy of a large core's memory is
// megabytes, kept whether a desync comes or not).
constexpr std::size_t kRegionPicturesKept = 4;
// A divergent player waits this many snapshot intervals past the states' frame for a repair.
constexpr std::uint32_t kRepairWaitIntervals = 4;

// The session's id: the server's key and its time of frame 0, the same for every player.
std::uint64_t session_id(const netplay::Client& client) {
    netplay::WireWriter w;
    const netplay::ServerKey key = client.server_key().value_or(netplay::ServerKey{});
    w.bytes(key);
    w.i64(client.session_start_us());
    return netplay::hash_bytes(w.data());
}

std::string slots_text(std::uint8_t slots) {
    std::string text;
    for (int s = 0; s < netplay::kMaxPlayers; ++s) {
        if (slots & (1u << s)) text += (text.empty() ? "" : ", ") + std::to_string(s + 1);
    }
    return text.empty() ? "-" : text;
}

}  // namespace

void DesyncBundles::after_frame(std::uint64_t frame, const netplay::InputFrame& inputs,
                                netplay::Emulator& emulator, std::uint16_t snapshot_interval) {
    m_inputs[frame] = inputs;
    while (m_inputs.size() > kBundleInputFrames) m_inputs.erase(m_inputs.begin());
    if (snapshot_interval == 0 || frame % snapshot_interval != 0) return;
    const auto next = static_cast<std::uint32_t>(frame + 1);
    m_regions[next] = netplay::copy_regions(emulator);
    while (m_regions.size() > kRegionPicturesKept) m_regions.erase(m_regions.begin());
    // A bundle waiting for this frame's state keeps its memory (until it is written).
    for (Pending& p : m_pending) {
        if (p.bundle.state_frame == next) p.bundle.own_regions = m_regions[next];
    }
}

std::string DesyncBundles::on_desync(const netplay::Client& client,
                                     const netplay::ClientEvent& event) {
    if (client.spectator() || client.slot() < 1) return {};
    if (std::find(m_frames.begin(), m_frames.end(), event.frame) != m_frames.end()) return {};
    if (static_cast<int>(m_frames.size()) >= kMaxPerSession) return {};
    m_frames.push_back(event.frame);
    const std::uint32_t si = std::max<std::uint32_t>(client.snapshot_interval(), 1);
    Pending p;
    DesyncBundle& b = p.bundle;
    b.identity = m_identity;
    b.content_name = m_content_name;
    b.session = session_id(client);
    b.mode = client.mode();
    b.delay = static_cast<std::uint8_t>(std::clamp(client.delay_at(event.frame), 0, 255));
    b.slot = static_cast<std::uint8_t>(client.slot());
    b.players = static_cast<std::uint8_t>(client.players());
    b.desync_frame = event.frame;
    b.differing_slots = event.differing_slots;
    b.state_frame = (event.frame + si - 1) / si * si + 1;
    if (auto it = m_regions.find(b.state_frame); it != m_regions.end()) b.own_regions = it->second;
    const std::uint8_t own = static_cast<std::uint8_t>(1u << (client.slot() - 1));
    // Every player present differs: no reference, so nobody is repaired (hash_votes.h).
    const std::uint8_t present = client.present_slots();
    const bool no_reference = present && (event.differing_slots & present) == present;
    p.await_repair = (event.differing_slots & own) && !no_reference &&
                     client.mode() != netplay::SessionMode::kRollback;
    char name[96];
    std::snprintf(name, sizeof name, "desync-%s-frame%u-slot%d.flbundle",
                  netplay::hash_to_hex(b.session).c_str(), event.frame, client.slot());
    p.path = m_dir / name;
    m_pending.push_back(std::move(p));
    return m_pending.back().path.string();
}

void DesyncBundles::poll(const netplay::Client& client, bool ending) {
    const std::uint32_t si = std::max<std::uint32_t>(client.snapshot_interval(), 1);
    const std::uint32_t done = client.final_frames();
    for (auto it = m_pending.begin(); it != m_pending.end();) {
        DesyncBundle& b = it->bundle;
        const auto& resync = client.last_resync();
        const bool repaired = resync && resync->frame == b.state_frame;
        const bool own_in = client.own_state(b.state_frame) != nullptr;
        const bool late =
            netplay::Frame(done) > netplay::Frame(b.state_frame + kRepairWaitIntervals * si);
        const bool ready = it->await_repair ? repaired || late : own_in || late;
        if (!ready && !ending) {
            ++it;
            continue;
        }
        write(*it, client);
        it = m_pending.erase(it);
    }
}

void DesyncBundles::write(Pending& p, const netplay::Client& client) {
    DesyncBundle& b = p.bundle;
    const auto& resync = client.last_resync();
    if (resync && resync->frame == b.state_frame) {
        b.own_state = resync->own_state;
        b.own_regions = resync->own_regions;
        b.other = DesyncBundle::Other::kReference;
        b.other_state = resync->reference_state;
        b.other_regions = resync->reference_regions;
        b.other_note = "the reference state the repair sent this player";
    } else {
        if (const auto* own = client.own_state(b.state_frame)) b.own_state = *own;
        // The memory was kept with the bundle (after_frame); without the state, it is not hers.
        if (b.own_state.empty()) b.own_regions.clear();
        const std::uint8_t own_bit = static_cast<std::uint8_t>(1u << (b.slot - 1));
        b.other = DesyncBundle::Other::kNone;
        b.other_note =
            (b.differing_slots & own_bit)
                ? "no repair brought this player the reference state (a tie without a "
                  "reference, a rollback session, or a server that does not repair): compare "
                  "with another player's bundle"
                : "this player holds the reference state (the majority's, or the host's on a "
                  "tie): the divergent player's bundle holds the other side";
    }
    if (!b.other_state.empty() || !b.other_regions.empty()) {
        b.state_diff = netplay::diff_bytes(b.own_state, b.other_state);
        b.region_diffs = netplay::diff_regions(b.own_regions, b.other_regions);
    }
    // The inputs as run, the newest contiguous frames that are final (rollback: the frames
    // ahead ran on predictions).
    b.inputs.clear();
    std::uint64_t next = 0;
    const std::uint64_t final_end = client.final_frames();
    for (const auto& [frame, inputs] : m_inputs) {
        if (frame >= final_end) break;
        if (b.inputs.empty() || frame != next) {
            b.inputs.clear();
            b.inputs_from = static_cast<std::uint32_t>(frame);
        }
        b.inputs.push_back(inputs);
        next = frame + 1;
    }
    if (Status s = write_desync_bundle(p.path, b); !s) {
        log_error("desync bundle of frame {} not written: {}", b.desync_frame, s.error().message);
        return;
    }
    ++m_written;
    const std::string states =
        b.own_state.empty()
            ? std::string("without its own state (no longer held)")
            : "with its own state of frame " + std::to_string(b.state_frame) +
                  (b.other == DesyncBundle::Other::kReference
                       ? " and the reference state (" +
                             (b.region_diffs.empty() ? std::string("no memory region differs")
                                                     : netplay::describe_regions(b.region_diffs)) +
                             ")"
                       : " only (" + b.other_note + ")");
    log_warn(
        "desync bundle written: {} (desync at frame {}, slot(s) {} differ; {}; {} frames of "
        "inputs): `framelock synctest --compare` reads it",
        p.path.string(), b.desync_frame, slots_text(b.differing_slots), states, b.inputs.size());
}

}  // namespace framelock::frontend
