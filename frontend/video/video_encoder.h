// VideoEncoder: pictures and sound into a video file with FFmpeg's libraries (libavformat,
// libavcodec, libswscale, libswresample), one picture per frame at the core's exact rate.
//
// The file is written to PATH.part and renamed to PATH by finish(); an encoder destroyed
// without a successful finish() removes PATH.part, so PATH only ever holds a whole video.
// Not thread-safe: one thread calls everything.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "frontend/host/image.h"
#include "frontend/video/export_format.h"
#include "frontend/video/libav_handles.h"
#include "netplay/base/result.h"

namespace framelock::frontend {

struct VideoEncoderOptions {
    ExportFormat format;
    unsigned width = 0, height = 0;  // the video's size (a yuv420p video rounds it up to even)
    double fps = 60;                 // pictures per second (the core's, e.g. 60.0988...)
    double sample_rate = 48000;      // the sound given to add_audio, stereo int16 frames per s
    bool library_log = false;        // FFmpeg's own messages (warnings up) on stderr; else errors
};

class VideoEncoder {
  public:
    // Opens both encoders and PATH.part. Errors (kUsage: this FFmpeg lacks an encoder; kIo:
    // the file cannot be written) say what to do.
    static Result<std::unique_ptr<VideoEncoder>> open(const std::string& path,
                                                      const VideoEncoderOptions& options);
    ~VideoEncoder();  // without finish(): PATH.part removed
    VideoEncoder(const VideoEncoder&) = delete;
    VideoEncoder& operator=(const VideoEncoder&) = delete;

    // The next frame's picture, shown for 1/fps s. A picture of another size is scaled to
    // the video's (a lossless video then is no longer exact).
    Status add_video(const Image& picture);
    // Sound: `frames` interleaved stereo int16 pairs at the sample rate opened with.
    Status add_audio(const std::int16_t* samples, std::size_t frames);
    // Flushes both encoders, writes the trailer, renames PATH.part to PATH.
    Status finish();

    std::uint64_t video_frames() const { return m_video_pts; }
    const std::string& path() const { return m_path; }

  private:
    VideoEncoder() = default;
    Status open_video(const VideoEncoderOptions& options);
    Status open_audio(const VideoEncoderOptions& options);
    // Sends `frame` (nullptr: flush) to `codec` and writes every packet it gives back.
    Status encode(AVCodecContext* codec, AVStream* stream, AVFrame* frame);
    // Encodes up to one encoder frame of the queued sound (padded with silence when the
    // encoder needs whole frames).
    Status encode_audio_frame(int samples);
    Status fail(const std::string& what, int av_error);

    std::string m_path;
    std::string m_part_path;
    bool m_finished = false;
    bool m_part_created = false;  // PATH.part was opened (and so is this encoder's to remove)
    bool m_header_written = false;
    libav::OutputFormat m_output;
    libav::CodecContext m_video;
    libav::CodecContext m_audio;
    AVStream* m_video_stream = nullptr;  // owned by m_output
    AVStream* m_audio_stream = nullptr;
    libav::Frame m_picture;
    libav::Frame m_sound;
    libav::Packet m_packet;
    libav::Scale m_scale;
    libav::Resample m_resample;
    libav::AudioFifo m_fifo;
    std::vector<std::uint8_t> m_converted;     // swr's output, the encoder's sample format
    std::uint8_t* m_converted_planes[2] = {};  // into m_converted (one plane if interleaved)
    int m_converted_capacity = 0;              // samples per plane
    int m_audio_frame_size = 0;                // samples per encoder frame
    std::int64_t m_video_pts = 0;              // frames so far
    std::int64_t m_audio_pts = 0;              // samples so far, at the encoder's rate
};

}  // namespace framelock::frontend
