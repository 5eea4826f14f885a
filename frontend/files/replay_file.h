// Replay files on disk (format: netplay/determinism/replay.h).
//
// A recording is written to PATH.part one block a second (flushed and synced), so a crash
// loses at most the last second and leaves a file that plays up to its last complete frame;
// close() renames it to PATH, so PATH itself only ever holds a finished replay.
#pragma once

#include <cstdio>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "netplay/base/result.h"
#include "netplay/determinism/replay.h"

namespace framelock::frontend {

class ReplayWriter {
  public:
    // Creates PATH.part with the header. kIo error naming the path.
    static Result<std::unique_ptr<ReplayWriter>> open(const std::string& path,
                                                      const netplay::ReplayHeader& header);
    ~ReplayWriter();  // without close(): PATH.part stays, as after a crash
    ReplayWriter(const ReplayWriter&) = delete;
    ReplayWriter& operator=(const ReplayWriter&) = delete;

    // The next frame (frames come in order, from the header's start frame).
    Status add(const netplay::ReplayFrame& frame);
    // From mask.from_frame on, the frames' hashes leave the mask's bytes out (written at once,
    // after the frames before it).
    Status add_mask(const netplay::EvidenceMask& mask);
    // A chat line said in the session (written at once, after the frames before it).
    Status add_chat(const netplay::ChatLine& line);
    // The core's state before `frame` ran (the next frame to be added: written at once,
    // after the frames before it).
    Status add_keyframe(std::uint32_t frame, std::span<const std::uint8_t> state);
    // Writes what is buffered, syncs, renames PATH.part to PATH.
    Status close();
    std::uint64_t frames() const { return m_written + m_pending.size(); }

  private:
    ReplayWriter() = default;
    Status write_block();
    // The frames buffered, then `block` (a mask or chat block).
    Status write_now(const std::vector<std::uint8_t>& block);

    std::FILE* m_file = nullptr;
    std::string m_path;
    int m_players = 0;
    std::uint32_t m_next_block_frame = 0;
    std::uint64_t m_written = 0;
    std::vector<netplay::ReplayFrame> m_pending;
};

// Reads and parses a replay; errors name the path.
Result<netplay::ReplayContents> read_replay_file(const std::string& path);

}  // namespace framelock::frontend
