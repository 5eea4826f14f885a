#include "frontend/video/export_format.h"

extern "C" {
#include <libavutil/rational.h>
}

#include <algorithm>
#include <cctype>
#include <filesystem>

namespace framelock::frontend {

Result<ExportFormat> choose_export_format(const std::string& path, bool lossless) {
    std::string ext = std::filesystem::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (lossless) {
        if (ext != ".mkv") {
            return make_error(ErrorCode::kUsage,
                              "--lossless writes FFV1 (pixel-exact RGB) with FLAC sound, which " +
                                  (ext.empty() ? std::string("a file without an extension")
                                               : "a " + ext + " file") +
                                  " cannot hold: name the output .mkv");
        }
        return ExportFormat{
            "matroska", "ffv1", "bgr0", {{"level", "3"}, {"slices", "4"}, {"slicecrc", "1"}},
            "flac",     0,      true,   "FFV1 (lossless RGB) + FLAC in Matroska"};
    }
    // Fast presets: a minute of play encodes in seconds on two cores; the quality is that of a
    // good web video (CRF 20 for H.264; VP9 in libvpx's real-time mode).
    const std::vector<std::pair<std::string, std::string>> x264 = {{"preset", "veryfast"},
                                                                   {"crf", "20"}};
    if (ext == ".mp4")
        return ExportFormat{"mp4", "libx264", "yuv420p", x264,
                            "aac", 160000,    false,     "H.264 + AAC in MP4"};
    if (ext == ".mkv")
        return ExportFormat{"matroska", "libx264", "yuv420p", x264,
                            "aac",      160000,    false,     "H.264 + AAC in Matroska"};
    if (ext == ".webm") {
        return ExportFormat{
            "webm",
            "libvpx-vp9",
            "yuv420p",
            {{"deadline", "realtime"}, {"cpu-used", "8"}, {"row-mt", "1"}, {"crf", "32"}},
            "libopus",
            128000,
            false,
            "VP9 + Opus in WebM"};
    }
    return make_error(ErrorCode::kUsage,
                      "cannot tell the video format of '" + path +
                          "': name the output .mp4 (H.264 + AAC), .webm (VP9 + Opus) or .mkv "
                          "(H.264 + AAC; with --lossless, FFV1 + FLAC)");
}

FrameRate frame_rate_of(double fps) {
    if (!(fps > 0)) return {60, 1};  // a core that says nothing sensible: the usual rate
    const AVRational q = av_d2q(fps, (1 << 26) - 1);
    return {q.num, q.den};
}

}  // namespace framelock::frontend
