// Replay files on disk (format: netplay/determinism/replay.h).
//
// A recording is written to PATH.part one block a second (flushed and synced), so a crash
// loses at most the last second and leaves a file that plays up to its last complete frame;
// close() renames it to PATH, so PATH itself only ever holds a finished replay. The blocks are
// packed and written on a thread of the writer's own, in the order they were added: a
// keyframe of a large state (12 MiB for desmume) takes a tenth of a second to pack, which
// the session's loop must not wait for.
#pragma once

#include <condition_variable>
#include <cstdio>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "netplay/base/result.h"
#include "netplay/determinism/replay.h"

namespace framelock::frontend {

class ReplayWriter {
  public:
    // Creates PATH.part with the header. kIo error naming the path.
    static Result<std::unique_ptr<ReplayWriter>> open(const std::string& path,
                                                      const netplay::ReplayHeader& header);
    ~ReplayWriter();  // without close(): what was added is written, PATH.part stays (a crash's)
    ReplayWriter(const ReplayWriter&) = delete;
    ReplayWriter& operator=(const ReplayWriter&) = delete;

    // The next frame (frames come in order, from the header's start frame).
    Status add(const netplay::ReplayFrame& frame);
    // From mask.from_frame on, the frames' hashes leave the mask's bytes out (written after
    // the frames before it).
    Status add_mask(const netplay::EvidenceMask& mask);
    // A chat line said in the session (written after the frames before it).
    Status add_chat(const netplay::ChatLine& line);
    // The core's state before `frame` ran (the next frame to be added; written after the
    // frames before it). Taken over: packing a large state is the writer's thread's work.
    Status add_keyframe(std::uint32_t frame, std::vector<std::uint8_t> state);
    // Writes what is buffered, syncs, renames PATH.part to PATH.
    Status close();
    std::uint64_t frames() const { return m_added; }

  private:
    // A block to write, packed on the writer's thread: the session's loop only hands over.
    struct Job {
        std::function<std::vector<std::uint8_t>()> pack;
        bool sync = false;  // flushed and synced after it (each second's frames)
    };

    ReplayWriter() = default;
    // The frames buffered as one block, then `next` (a mask, chat or keyframe block), if any.
    Status hand_over(std::optional<Job> next);
    void run();            // the writer's thread
    Status first_error();  // the writer's first failure, if any
    void stop_thread();

    std::FILE* m_file = nullptr;
    std::string m_path;
    int m_players = 0;
    std::uint32_t m_next_block_frame = 0;
    std::uint64_t m_added = 0;
    std::vector<netplay::ReplayFrame> m_pending;

    std::thread m_thread;
    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::deque<Job> m_jobs;   // guarded by m_mutex
    bool m_stopping = false;  // guarded by m_mutex
    Status m_error;           // guarded by m_mutex: the first write that failed
};

// Reads and parses a replay; errors name the path.
Result<netplay::ReplayContents> read_replay_file(const std::string& path);

}  // namespace framelock::frontend
