#include "frontend/host/headless.h"

#include <chrono>
#include <cstring>

#include "frontend/host/image.h"
#include "netplay/determinism/state_hash.h"

namespace framelock::frontend {

void HeadlessVideo::present(const VideoFrame& frame) {
    if (m_next) m_next->present(frame);
    ++m_frames;
    if (!frame.data) {
        ++m_dupes;
        return;
    }
    if (!m_keep) return;
    const std::size_t row = static_cast<std::size_t>(frame.width) * bytes_per_pixel(frame.format);
    m_pixels.resize(row * frame.height);
    for (unsigned y = 0; y < frame.height; ++y) {
        std::memcpy(m_pixels.data() + y * row,
                    static_cast<const std::uint8_t*>(frame.data) + y * frame.pitch, row);
    }
    m_last = frame;
    m_last.data = m_pixels.data();
    m_last.pitch = row;
}

void HeadlessAudio::play(const std::int16_t* samples, std::size_t frames) {
    m_frames += frames;
    if (m_hash_samples) {
        m_hash ^=
            netplay::hash_bytes({reinterpret_cast<const std::uint8_t*>(samples), frames * 4}) +
            m_frames;
    }
}

Result<std::unique_ptr<HashLogWriter>> HashLogWriter::open(const std::string& path,
                                                           bool with_regions) {
    auto file = TextFile::open(path, "hash log");
    if (!file) return file.error();
    std::unique_ptr<HashLogWriter> writer(new HashLogWriter());
    writer->m_file = std::move(file).value();
    writer->m_regions = with_regions;
    return writer;
}

HashLogWriter::~HashLogWriter() = default;

void HashLogWriter::write(std::uint64_t frame, netplay::Emulator& emulator) {
    write_line(hash_log_line(frame, emulator, m_regions));
}

void HashLogWriter::write_line(const std::string& line) {
    std::fwrite(line.data(), 1, line.size(), m_file->get());
    std::fputc('\n', m_file->get());
}

std::string hash_log_line(std::uint64_t frame, netplay::Emulator& emulator, bool with_regions) {
    std::string line = std::to_string(frame) + ' ' + netplay::hash_to_hex(emulator.state_hash());
    if (with_regions) {
        for (const auto& region : netplay::hash_regions(emulator.memory_regions())) {
            line += ' ' + region.name + '=' + netplay::hash_to_hex(region.hash);
        }
    }
    return line;
}

void HashLogWriter::flush() {
    if (m_file->get()) std::fflush(m_file->get());
}

Status HashLogWriter::close() {
    return m_file->close();
}

Result<HeadlessRunSummary> run_headless(RetroEmulator& emulator, InputSource& input,
                                        const HeadlessRunOptions& options) {
    std::unique_ptr<HashLogWriter> log;
    if (!options.hash_log.empty()) {
        auto opened = HashLogWriter::open(options.hash_log, options.hash_regions);
        if (!opened) return opened.error();
        log = std::move(opened).value();
    }
    // A screenshot keeps a copy of every picture and passes it on to the sink.
    VideoSink* const sink = emulator.video_sink();
    HeadlessVideo copy;
    if (options.screenshot_frame) {
        copy.keep_last_frame(true);
        copy.forward_to(sink);
        emulator.set_video_sink(&copy);
    }
    Status screenshot =
        options.screenshot_frame
            ? Status(make_error(ErrorCode::kIo, "no picture of frame " +
                                                    std::to_string(*options.screenshot_frame) +
                                                    " for " + options.screenshot_path +
                                                    ": the run ended before it"))
            : Status();
    HeadlessRunSummary summary;
    const auto start = std::chrono::steady_clock::now();
    for (std::uint64_t i = 0; i < options.frames; ++i) {
        const std::uint64_t frame = emulator.frame_count();
        emulator.run_frame(input.input_for(frame), true);
        if (log) log->write(frame, emulator);
        if (options.screenshot_frame && frame == *options.screenshot_frame) {
            const Image picture = to_image(copy.last_frame());
            screenshot =
                picture.width
                    ? write_png(options.screenshot_path, picture)
                    : Status(make_error(ErrorCode::kIo, "the core showed no picture at frame " +
                                                            std::to_string(frame)));
        }
        ++summary.frames;
        if (emulator.shutdown_requested()) {
            summary.core_shutdown = true;
            break;
        }
    }
    summary.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (options.screenshot_frame) emulator.set_video_sink(sink);
    if (log) {
        if (Status s = log->close(); !s) return s.error();
    }
    if (!screenshot) return screenshot.error();
    summary.final_state_hash = emulator.state_hash();
    return summary;
}

}  // namespace framelock::frontend
