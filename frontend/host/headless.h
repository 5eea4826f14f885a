// Headless hosting: no window, no audio device. Servers, bots, tests and benchmarks
// run cores this way, at full speed.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "frontend/files/text_file.h"
#include "frontend/host/io.h"
#include "frontend/host/retro_emulator.h"

namespace framelock::frontend {

// Counts frames and keeps nothing, unless asked to keep a copy of the last picture. It can
// pass every picture on to another sink (a window) too.
class HeadlessVideo final : public VideoSink {
  public:
    void present(const VideoFrame& frame) override;

    void keep_last_frame(bool keep) { m_keep = keep; }
    // Every picture also goes to `next` (borrowed; nullptr: nowhere).
    void forward_to(VideoSink* next) { m_next = next; }
    VideoSink* forwards_to() const { return m_next; }
    std::uint64_t frames() const { return m_frames; }
    std::uint64_t dupes() const { return m_dupes; }
    // The last picture as tightly packed rows (width * bytes_per_pixel), if kept.
    const std::vector<std::uint8_t>& last_pixels() const { return m_pixels; }
    const VideoFrame& last_frame() const { return m_last; }  // data points into last_pixels()

  private:
    bool m_keep = false;
    VideoSink* m_next = nullptr;
    std::uint64_t m_frames = 0;
    std::uint64_t m_dupes = 0;
    std::vector<std::uint8_t> m_pixels;
    VideoFrame m_last;
};

// Counts sample frames; hashes them only when asked (tests comparing sound).
class HeadlessAudio final : public AudioSink {
  public:
    void play(const std::int16_t* samples, std::size_t frames) override;
    void hash_samples(bool enabled) { m_hash_samples = enabled; }
    std::uint64_t frames() const { return m_frames; }
    std::uint64_t samples_hash() const { return m_hash; }

  private:
    bool m_hash_samples = false;
    std::uint64_t m_frames = 0;
    std::uint64_t m_hash = 0;
};

// One line per frame: "FRAME HASH" (decimal, 16 hex digits), optionally followed by
// " NAME=HASH" for each memory region. FRAME is the 0-based number of the frame just
// run; HASH is the hash of the serialized state after it.
class HashLogWriter {
  public:
    static Result<std::unique_ptr<HashLogWriter>> open(const std::string& path, bool with_regions);
    ~HashLogWriter();
    void write(std::uint64_t frame, netplay::Emulator& emulator);
    void write_line(const std::string& line);  // one line as hash_log_line() makes them
    void flush();                              // hands what is buffered to the OS
    Status close();

  private:
    HashLogWriter() = default;
    std::unique_ptr<TextFile> m_file;  // never null
    bool m_regions = false;
};

// One hash-log line (no newline): "FRAME HASH[ NAME=HASH...]".
std::string hash_log_line(std::uint64_t frame, netplay::Emulator& emulator, bool with_regions);

struct HeadlessRunOptions {
    std::uint64_t frames = 600;
    std::string hash_log;  // empty: none
    bool hash_regions = false;
    std::optional<std::uint64_t> screenshot_frame;  // the core's picture of this frame ...
    std::string screenshot_path;                    // ... as a PNG here
};

struct HeadlessRunSummary {
    std::uint64_t frames = 0;
    std::uint64_t final_state_hash = 0;
    double seconds = 0;  // wall time spent in the loop
    bool core_shutdown = false;
};

Result<HeadlessRunSummary> run_headless(RetroEmulator& emulator, InputSource& input,
                                        const HeadlessRunOptions& options);

}  // namespace framelock::frontend
