// A player's desync bundles (frontend/files/desync_bundle.h) as its session goes: what it keeps
// to write one (every player's inputs of the last kBundleInputFrames frames, the memory regions
// at each snapshot frame), and when each bundle is written. On a desync at frame D the states
// are of the first snapshot frame from D on (the frame a repair's state is of): a divergent
// player writes once its repair loaded the reference state (both states), the player holding
// the reference once its own state of that frame is in (its own only: the other side's is in
// the divergent player's bundle), and a divergent player nobody repairs (a tie without a
// reference, rollback, a server that does not repair) a few seconds later, with its own.
// Threading: none.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "frontend/files/desync_bundle.h"
#include "netplay/client/client.h"
#include "netplay/interfaces/emulator.h"

namespace framelock::frontend {

class DesyncBundles {
  public:
    // Bundles written in one session at most (one per desync frame).
    static constexpr int kMaxPerSession = 4;

    // Bundles go to `dir` (created when the first is written); `identity` and `content_name`
    // are what this player's Hello said.
    DesyncBundles(std::filesystem::path dir, netplay::SessionIdentity identity,
                  std::string content_name)
        : m_dir(std::move(dir)),
          m_identity(std::move(identity)),
          m_content_name(std::move(content_name)) {}

    // The emulator the client drives ran `frame` with `inputs` (RecordingEmulator): the inputs
    // are kept, and at a snapshot frame the memory as it is now (the snapshot's state is the
    // machine's after this frame).
    void after_frame(std::uint64_t frame, const netplay::InputFrame& inputs,
                     netplay::Emulator& emulator, std::uint16_t snapshot_interval);

    // The server saw a desync (ClientEvent::kDesync): the path its bundle will be written to,
    // or "" when none will be (one is for this frame already, or kMaxPerSession are).
    std::string on_desync(const netplay::Client& client, const netplay::ClientEvent& event);
    // Every step, and with `ending` once the session is over: writes the bundles whose states
    // are in or will not come, and logs each.
    void poll(const netplay::Client& client, bool ending);

    int written() const { return m_written; }

  private:
    struct Pending {
        DesyncBundle bundle;  // own_regions: the memory of its state's frame, once it ran
        std::filesystem::path path;
        bool await_repair = false;  // this player differs and a repair may come
    };
    // Fills the own side (from the snapshot kept, or the repair's evidence), the other side
    // and the inputs, and writes it.
    void write(Pending& pending, const netplay::Client& client);

    std::filesystem::path m_dir;
    netplay::SessionIdentity m_identity;
    std::string m_content_name;
    std::map<std::uint64_t, netplay::InputFrame> m_inputs;  // by frame, the newest
    // The memory after each snapshot frame, by the next frame (the snapshot's), the newest.
    std::map<std::uint32_t, std::vector<netplay::RegionCopy>> m_regions;
    std::vector<Pending> m_pending;
    std::vector<std::uint32_t> m_frames;  // desync frames with a bundle, written or pending
    int m_written = 0;
};

}  // namespace framelock::frontend
