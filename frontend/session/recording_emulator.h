// The emulator a player's netplay::Client drives (frontend/session/client_runner.h): the real one,
// plus what the player asked to keep of the session: a hash-log line per frame, the frames
// of a replay, a copy of one frame's picture. Threading: none.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <vector>

#include "frontend/files/replay_file.h"
#include "frontend/host/headless.h"
#include "frontend/host/image.h"
#include "frontend/host/retro_emulator.h"
#include "frontend/session/desync_bundles.h"
#include "netplay/client/client.h"
#include "netplay/determinism/evidence.h"
#include "netplay/interfaces/emulator.h"

namespace framelock::frontend {

// The emulator the netplay client drives: the real one, plus a hash-log line after every
// frame and a copy of the picture of one frame (which is presented even when the client
// fast-forwards through it).
class RecordingEmulator final : public netplay::Emulator {
  public:
    // `record`: a replay will be asked for, so frames are kept from the first one on (a
    // late joiner runs frames in the very tick its state arrives, before the runner has
    // seen the event and opened the file).
    RecordingEmulator(RetroEmulator& inner, HashLogWriter* log, std::uint64_t log_frames,
                      const HeadlessVideo* video, std::optional<std::uint64_t> picture_frame,
                      bool record)
        : m_inner(inner),
          m_log(log),
          m_log_frames(log_frames),
          m_video(video),
          m_picture_frame(picture_frame),
          m_record(record) {}

    void run_frame(const netplay::InputFrame& inputs, bool present) override;
    void rewind_to(std::uint64_t next_frame) override;
    // Writes the hash-log lines and replay frames of frames [.., final_frames): those that
    // will not run again.
    void flush_log(std::uint64_t final_frames);
    // The client whose evidence masks the log's hashes follow.
    void set_client(const netplay::Client* client) { m_client = client; }
    // Every frame run is shown to `bundles` (what a desync bundle needs; null: nothing).
    void keep_for_bundles(DesyncBundles* bundles) { m_bundles = bundles; }
    // Frames are recorded from now on (from the first frame: set before the session starts
    // or, for a late joiner, before its first frame is flushed).
    void record_to(ReplayWriter* replay) {
        m_replay = replay;
        m_record = replay != nullptr;
    }
    // A late joiner's first frame and the state it loaded for it (empty: none captured).
    std::uint64_t start_frame() const { return m_start_frame; }
    const std::vector<std::uint8_t>& start_state() const { return m_start_state; }
    std::uint64_t frame_count() const override { return m_inner.frame_count(); }
    bool save_state(std::vector<std::uint8_t>& out) override { return m_inner.save_state(out); }
    bool load_state(std::span<const std::uint8_t> state) override {
        return m_inner.load_state(state);
    }
    std::uint64_t state_hash() override { return m_inner.state_hash(); }
    std::vector<netplay::MemoryRegion> memory_regions() override {
        return m_inner.memory_regions();
    }
    double frames_per_second() const override { return m_inner.frames_per_second(); }

    std::uint64_t logged() const { return m_logged; }
    const Image& picture() const { return m_picture; }

  private:
    RetroEmulator& m_inner;
    HashLogWriter* m_log;
    std::uint64_t m_log_frames;
    const HeadlessVideo* m_video;
    std::optional<std::uint64_t> m_picture_frame;
    std::uint64_t m_logged = 0;
    struct Line {
        netplay::InputFrame inputs;
        std::uint64_t hash = 0;
        std::uint16_t generation = 0;  // of the evidence mask it was hashed with
    };
    std::map<std::uint64_t, Line> m_lines;  // frames run, not yet final
    // The states before keyframes' frames (netplay::kReplayKeyframeInterval), not yet final.
    std::map<std::uint64_t, std::vector<std::uint8_t>> m_keyframes;
    ReplayWriter* m_replay = nullptr;
    bool m_record = false;
    bool m_ran_any = false;
    std::uint64_t m_flushed_end = 0;  // frames [0, this) are written
    const netplay::Client* m_client = nullptr;
    DesyncBundles* m_bundles = nullptr;
    std::vector<std::uint8_t> m_scratch;
    // The evidence masks hashes were computed with, each from the first frame it was used
    // at (a replay records them), and how many of them the replay has.
    std::uint16_t m_newest_mask = 0;
    std::vector<netplay::EvidenceMask> m_masks_used;
    std::size_t m_masks_written = 0;
    std::uint64_t m_start_frame = 0;
    std::vector<std::uint8_t> m_start_state;
    Image m_picture;
};

}  // namespace framelock::frontend
