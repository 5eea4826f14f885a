// What a replay's video is written as, chosen from the output file's extension: the container,
// the video and audio encoders and their settings, and the frame rate as a fraction.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "netplay/base/result.h"

namespace framelock::frontend {

// Everything is named the way FFmpeg names it (muxers, encoders, pixel formats, options), so
// this header needs no FFmpeg header.
struct ExportFormat {
    std::string muxer;          // "mp4", "webm", "matroska"
    std::string video_encoder;  // "libx264", "libvpx-vp9", "ffv1"
    std::string pixel_format;   // what the encoder is fed: "yuv420p", or "bgr0" (lossless)
    // Private options of the video encoder (a preset, a quality), as FFmpeg's -OPTION VALUE.
    std::vector<std::pair<std::string, std::string>> video_options;
    std::string audio_encoder;    // "aac", "libopus", "flac"
    std::int64_t audio_bit_rate;  // bits per second; 0: the encoder's choice (FLAC)
    bool lossless = false;        // decoded to rgb24, every pixel is the core's
    std::string description;      // for the log: "H.264 + AAC in MP4"
};

// The format for OUT by its extension (case-insensitive): .mp4 (H.264 + AAC), .webm (VP9 +
// Opus), .mkv (H.264 + AAC; with `lossless`, FFV1 on RGB + FLAC). kUsage error for any other
// extension, or for `lossless` with an extension whose container cannot hold it, saying what
// to use instead.
Result<ExportFormat> choose_export_format(const std::string& path, bool lossless);

// A core's frame rate (frames per second, e.g. 60.0988...) as the fraction num/den the
// video's time base is made of (1/rate per frame): exact for whole and common rates, within
// 1e-9 relative otherwise, num and den below 2^26 (an MP4 time scale holds it).
struct FrameRate {
    int num = 0;
    int den = 1;
};
// A rate that is not above 0 (a core that reports none) is taken as 60/1.
FrameRate frame_rate_of(double fps);

}  // namespace framelock::frontend
