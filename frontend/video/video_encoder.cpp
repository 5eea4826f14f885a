#include "frontend/video/video_encoder.h"

extern "C" {
#include <libavutil/channel_layout.h>
#include <libavutil/error.h>
#include <libavutil/log.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libavutil/samplefmt.h>
}

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace framelock::frontend {
namespace {

// The core's pixels (Image: 0x00RRGGBB words) are, in a little-endian machine's memory, the
// bytes B G R 0: FFmpeg's bgr0, which FFV1 stores as it is.
static_assert(std::endian::native == std::endian::little, "Image words as bgr0 bytes");

// Every encoder here takes 48 kHz (Opus only that); the core's rate is resampled to it.
constexpr int kAudioRate = 48000;

std::string av_error_text(int error) {
    char text[AV_ERROR_MAX_STRING_SIZE] = {};
    av_strerror(error, text, sizeof text);
    return text;
}

// Fills `dictionary` (owned by the caller, freed with av_dict_free) with the options.
AVDictionary* to_dictionary(const std::vector<std::pair<std::string, std::string>>& options) {
    AVDictionary* dictionary = nullptr;
    for (const auto& [key, value] : options)
        av_dict_set(&dictionary, key.c_str(), value.c_str(), 0);
    return dictionary;
}

Result<const AVCodec*> find_encoder(const std::string& name) {
    const AVCodec* codec = avcodec_find_encoder_by_name(name.c_str());
    if (!codec) {
        return make_error(ErrorCode::kUsage,
                          "this FFmpeg has no " + name +
                              " encoder (`ffmpeg -encoders` lists those it has; Debian's "
                              "libavcodec59 has it): choose another output extension");
    }
    return codec;
}

}  // namespace

Status VideoEncoder::fail(const std::string& what, int av_error) {
    return make_error(ErrorCode::kIo, m_path + ": " + what + ": " + av_error_text(av_error));
}

Result<std::unique_ptr<VideoEncoder>> VideoEncoder::open(const std::string& path,
                                                         const VideoEncoderOptions& options) {
    // The encoders' chatter (x264's statistics) is not the user's business unless asked.
    av_log_set_level(options.library_log ? AV_LOG_WARNING : AV_LOG_ERROR);
    std::unique_ptr<VideoEncoder> encoder(new VideoEncoder());
    encoder->m_path = path;
    encoder->m_part_path = path + ".part";
    AVFormatContext* output = nullptr;
    int error = avformat_alloc_output_context2(&output, nullptr, options.format.muxer.c_str(),
                                               encoder->m_part_path.c_str());
    if (error < 0 || !output) {
        return make_error(ErrorCode::kUsage, "this FFmpeg cannot write " + options.format.muxer +
                                                 " files: " + av_error_text(error));
    }
    encoder->m_output.reset(output);
    if (Status s = encoder->open_video(options); !s) return s.error();
    if (Status s = encoder->open_audio(options); !s) return s.error();
    encoder->m_packet.reset(av_packet_alloc());
    if (!encoder->m_packet) return make_error(ErrorCode::kIo, "out of memory for a packet");

    if (!(output->oformat->flags & AVFMT_NOFILE)) {
        error = avio_open(&output->pb, encoder->m_part_path.c_str(), AVIO_FLAG_WRITE);
        if (error < 0) {
            return make_error(ErrorCode::kIo, "cannot write " + encoder->m_part_path + ": " +
                                                  av_error_text(error) +
                                                  " (is its folder there and writable?)");
        }
        encoder->m_part_created = true;
    }
    // MP4: the index at the front, so a browser plays the video before it has all of it.
    std::unique_ptr<AVDictionary, libav::DictionaryFree> muxer_options(
        options.format.muxer == "mp4" ? to_dictionary({{"movflags", "+faststart"}}) : nullptr);
    AVDictionary* muxer_raw = muxer_options.release();
    error = avformat_write_header(output, &muxer_raw);
    muxer_options.reset(muxer_raw);
    if (error < 0) return encoder->fail("cannot write the header", error).error();
    encoder->m_header_written = true;
    return encoder;
}

Status VideoEncoder::open_video(const VideoEncoderOptions& options) {
    auto codec = find_encoder(options.format.video_encoder);
    if (!codec) return codec.error();
    const AVPixelFormat pixel_format = av_get_pix_fmt(options.format.pixel_format.c_str());
    m_video.reset(avcodec_alloc_context3(codec.value()));
    m_video_stream = avformat_new_stream(m_output.get(), nullptr);
    m_picture.reset(av_frame_alloc());
    if (!m_video || !m_video_stream || !m_picture || pixel_format == AV_PIX_FMT_NONE)
        return make_error(ErrorCode::kIo,
                          "cannot set up the " + options.format.video_encoder + " encoder");
    AVCodecContext* video = m_video.get();
    // 4:2:0 sampling needs an even size: one more row or column, scaled into.
    const bool even = pixel_format == AV_PIX_FMT_YUV420P;
    video->width = static_cast<int>(even ? (options.width + 1) & ~1u : options.width);
    video->height = static_cast<int>(even ? (options.height + 1) & ~1u : options.height);
    video->pix_fmt = pixel_format;
    // One tick of the time base per frame at the core's exact rate, as a fraction.
    const FrameRate rate = frame_rate_of(options.fps);
    video->framerate = AVRational{rate.num, rate.den};
    video->time_base = av_inv_q(video->framerate);
    video->thread_count = 0;  // as many as the machine has
    video->sample_aspect_ratio = AVRational{1, 1};
    if (m_output->oformat->flags & AVFMT_GLOBALHEADER) video->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    if (options.format.video_encoder == "libvpx-vp9") video->bit_rate = 0;  // constant quality
    std::unique_ptr<AVDictionary, libav::DictionaryFree> codec_options(
        to_dictionary(options.format.video_options));
    AVDictionary* raw = codec_options.release();
    int error = avcodec_open2(video, codec.value(), &raw);
    codec_options.reset(raw);
    if (error < 0)
        return fail("cannot open the " + options.format.video_encoder + " encoder", error);
    error = avcodec_parameters_from_context(m_video_stream->codecpar, video);
    if (error < 0) return fail("cannot describe the video stream", error);
    m_video_stream->time_base = video->time_base;
    m_video_stream->avg_frame_rate = video->framerate;
    m_video_stream->r_frame_rate = video->framerate;

    m_picture->format = video->pix_fmt;
    m_picture->width = video->width;
    m_picture->height = video->height;
    error = av_frame_get_buffer(m_picture.get(), 0);
    if (error < 0) return fail("no memory for a picture", error);
    return {};
}

Status VideoEncoder::open_audio(const VideoEncoderOptions& options) {
    auto codec = find_encoder(options.format.audio_encoder);
    if (!codec) return codec.error();
    m_audio.reset(avcodec_alloc_context3(codec.value()));
    m_audio_stream = avformat_new_stream(m_output.get(), nullptr);
    m_sound.reset(av_frame_alloc());
    if (!m_audio || !m_audio_stream || !m_sound)
        return make_error(ErrorCode::kIo,
                          "cannot set up the " + options.format.audio_encoder + " encoder");
    AVCodecContext* audio = m_audio.get();
    // The encoder's preferred sample format: its first.
    audio->sample_fmt =
        codec.value()->sample_fmts ? codec.value()->sample_fmts[0] : AV_SAMPLE_FMT_FLTP;
    audio->sample_rate = kAudioRate;
    av_channel_layout_default(&audio->ch_layout, 2);
    audio->bit_rate = options.format.audio_bit_rate;
    audio->time_base = AVRational{1, kAudioRate};
    if (m_output->oformat->flags & AVFMT_GLOBALHEADER) audio->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    int error = avcodec_open2(audio, codec.value(), nullptr);
    if (error < 0)
        return fail("cannot open the " + options.format.audio_encoder + " encoder", error);
    error = avcodec_parameters_from_context(m_audio_stream->codecpar, audio);
    if (error < 0) return fail("cannot describe the audio stream", error);
    m_audio_stream->time_base = audio->time_base;
    const bool variable = codec.value()->capabilities & AV_CODEC_CAP_VARIABLE_FRAME_SIZE;
    m_audio_frame_size = variable || audio->frame_size <= 0 ? 1024 : audio->frame_size;

    // The core's interleaved stereo int16 at its rate (a double: 32040.5 Hz happens) to the
    // encoder's format at 48 kHz.
    AVChannelLayout stereo;
    av_channel_layout_default(&stereo, 2);
    SwrContext* resample = nullptr;
    const int in_rate = std::max(1, static_cast<int>(std::lround(options.sample_rate)));
    error = swr_alloc_set_opts2(&resample, &audio->ch_layout, audio->sample_fmt, kAudioRate,
                                &stereo, AV_SAMPLE_FMT_S16, in_rate, 0, nullptr);
    av_channel_layout_uninit(&stereo);
    m_resample.reset(resample);
    if (error < 0) return fail("cannot set up the resampler", error);
    error = swr_init(resample);
    if (error < 0) return fail("cannot set up the resampler", error);
    m_fifo.reset(av_audio_fifo_alloc(audio->sample_fmt, 2, m_audio_frame_size * 4));
    if (!m_fifo) return make_error(ErrorCode::kIo, "out of memory for the sound queue");
    return {};
}

Status VideoEncoder::add_video(const Image& picture) {
    if (picture.width == 0 || picture.height == 0 ||
        picture.pixels.size() != static_cast<std::size_t>(picture.width) * picture.height)
        return make_error(ErrorCode::kIo, m_path + ": an empty picture cannot be encoded");
    AVFrame* frame = m_picture.get();
    // The encoder may still hold the last picture's buffer.
    int error = av_frame_make_writable(frame);
    if (error < 0) return fail("no memory for a picture", error);
    const auto* pixels = reinterpret_cast<const std::uint8_t*>(picture.pixels.data());
    const int stride = static_cast<int>(picture.width * 4);
    if (frame->format == AV_PIX_FMT_BGR0 && static_cast<int>(picture.width) == frame->width &&
        static_cast<int>(picture.height) == frame->height) {
        // Lossless: the bytes as they are.
        for (unsigned y = 0; y < picture.height; ++y) {
            std::memcpy(frame->data[0] + static_cast<std::ptrdiff_t>(y) * frame->linesize[0],
                        pixels + static_cast<std::ptrdiff_t>(y) * stride,
                        static_cast<std::size_t>(stride));
        }
    } else {
        SwsContext* scale = sws_getCachedContext(
            m_scale.release(), static_cast<int>(picture.width), static_cast<int>(picture.height),
            AV_PIX_FMT_BGR0, frame->width, frame->height, static_cast<AVPixelFormat>(frame->format),
            SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT, nullptr, nullptr, nullptr);
        m_scale.reset(scale);
        if (!scale) return make_error(ErrorCode::kIo, m_path + ": cannot convert the picture");
        const std::uint8_t* const source[1] = {pixels};
        const int source_stride[1] = {stride};
        sws_scale(scale, source, source_stride, 0, static_cast<int>(picture.height), frame->data,
                  frame->linesize);
    }
    frame->pts = m_video_pts++;
    return encode(m_video.get(), m_video_stream, frame);
}

Status VideoEncoder::add_audio(const std::int16_t* samples, std::size_t frames) {
    if (frames == 0) return {};
    const int in = static_cast<int>(frames);
    const int capacity = swr_get_out_samples(m_resample.get(), in);
    if (capacity > m_converted_capacity) {
        int linesize = 0;
        const int bytes =
            av_samples_get_buffer_size(&linesize, 2, capacity, m_audio->sample_fmt, 1);
        if (bytes < 0) return fail("cannot size the sound buffer", bytes);
        m_converted.assign(static_cast<std::size_t>(bytes), 0);
        av_samples_fill_arrays(m_converted_planes, &linesize, m_converted.data(), 2, capacity,
                               m_audio->sample_fmt, 1);
        m_converted_capacity = capacity;
    }
    const std::uint8_t* source[1] = {reinterpret_cast<const std::uint8_t*>(samples)};
    const int got =
        swr_convert(m_resample.get(), m_converted_planes, m_converted_capacity, source, in);
    if (got < 0) return fail("cannot resample the sound", got);
    if (av_audio_fifo_write(m_fifo.get(), reinterpret_cast<void**>(m_converted_planes), got) < got)
        return make_error(ErrorCode::kIo, m_path + ": out of memory for the sound queue");
    while (av_audio_fifo_size(m_fifo.get()) >= m_audio_frame_size) {
        if (Status s = encode_audio_frame(m_audio_frame_size); !s) return s;
    }
    return {};
}

Status VideoEncoder::encode_audio_frame(int samples) {
    AVFrame* frame = m_sound.get();
    av_frame_unref(frame);
    const bool whole_frames = !(m_audio->codec->capabilities &
                                (AV_CODEC_CAP_VARIABLE_FRAME_SIZE | AV_CODEC_CAP_SMALL_LAST_FRAME));
    frame->nb_samples = whole_frames ? m_audio_frame_size : samples;
    frame->format = m_audio->sample_fmt;
    frame->sample_rate = m_audio->sample_rate;
    int error = av_channel_layout_copy(&frame->ch_layout, &m_audio->ch_layout);
    if (error >= 0) error = av_frame_get_buffer(frame, 0);
    if (error < 0) return fail("no memory for sound", error);
    const int read =
        av_audio_fifo_read(m_fifo.get(), reinterpret_cast<void**>(frame->data), samples);
    if (read < frame->nb_samples) {
        av_samples_set_silence(frame->data, std::max(read, 0),
                               frame->nb_samples - std::max(read, 0), 2, m_audio->sample_fmt);
    }
    frame->pts = m_audio_pts;
    m_audio_pts += frame->nb_samples;
    return encode(m_audio.get(), m_audio_stream, frame);
}

Status VideoEncoder::encode(AVCodecContext* codec, AVStream* stream, AVFrame* frame) {
    int error = avcodec_send_frame(codec, frame);
    if (error < 0) return fail("the encoder refused a frame", error);
    for (;;) {
        AVPacket* packet = m_packet.get();
        error = avcodec_receive_packet(codec, packet);
        if (error == AVERROR(EAGAIN) || error == AVERROR_EOF) return {};
        if (error < 0) return fail("the encoder failed", error);
        av_packet_rescale_ts(packet, codec->time_base, stream->time_base);
        packet->stream_index = stream->index;
        error = av_interleaved_write_frame(m_output.get(), packet);  // takes the packet's data
        if (error < 0) return fail("cannot write to " + m_part_path, error);
    }
}

Status VideoEncoder::finish() {
    if (m_finished) return {};
    if (Status s = encode(m_video.get(), m_video_stream, nullptr); !s) return s;
    // What the resampler still holds, then the queue's last partial frame.
    const int capacity = m_converted_capacity;
    if (capacity > 0) {
        const int got = swr_convert(m_resample.get(), m_converted_planes, capacity, nullptr, 0);
        if (got > 0)
            av_audio_fifo_write(m_fifo.get(), reinterpret_cast<void**>(m_converted_planes), got);
    }
    while (av_audio_fifo_size(m_fifo.get()) > 0) {
        const int left = av_audio_fifo_size(m_fifo.get());
        if (Status s = encode_audio_frame(std::min(left, m_audio_frame_size)); !s) return s;
    }
    if (Status s = encode(m_audio.get(), m_audio_stream, nullptr); !s) return s;
    int error = av_write_trailer(m_output.get());
    if (error < 0) return fail("cannot finish the file", error);
    if (!(m_output->oformat->flags & AVFMT_NOFILE)) {
        error = avio_closep(&m_output->pb);
        if (error < 0) return fail("cannot close " + m_part_path, error);
    }
    std::error_code renamed;
    std::filesystem::rename(m_part_path, m_path, renamed);
    if (renamed) {
        return make_error(ErrorCode::kIo, "cannot rename " + m_part_path + " to " + m_path + ": " +
                                              renamed.message());
    }
    m_finished = true;
    return {};
}

VideoEncoder::~VideoEncoder() {
    // Only a file this encoder created: an open that failed before leaves another's alone.
    if (m_finished || !m_part_created) return;
    // Closes the half-written file first, then removes it.
    m_output.reset();
    std::error_code ignored;
    std::filesystem::remove(m_part_path, ignored);
}

}  // namespace framelock::frontend
