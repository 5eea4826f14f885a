// `framelock replay export FILE OUT`: a replay as a video anyone can watch (picture and
// sound, through FFmpeg's libraries): its frames run from its start state (a range from the
// nearest keyframe), one picture per frame at the core's exact rate, the pads burnt in, or
// lossless.
#include <fmt/core.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/log.h"
#include "common/stop_signal.h"
#include "frontend/app/command_error.h"
#include "frontend/app/commands.h"
#include "frontend/app/host_args.h"
#include "frontend/app/replay_start.h"
#include "frontend/files/replay_file.h"
#include "frontend/host/headless.h"
#include "frontend/host/image.h"
#include "frontend/host/retro_emulator.h"
#include "frontend/terminal/progress.h"
#include "frontend/video/export_format.h"
#include "frontend/video/input_display.h"
#include "frontend/video/video_encoder.h"
#include "netplay/determinism/replay_seeker.h"

namespace framelock::frontend {
namespace {

struct ExportArgs {
    HostArgs host;
    std::string file;
    std::string out;
    std::optional<std::uint64_t> from;  // none: the replay's first frame
    std::optional<std::uint64_t> to;    // none: its last
    bool input_display = false;
    bool lossless = false;
    bool sram = false;
    bool no_progress = false;
};

// The sound of the frame being shown (frames run unseen give none), kept until its picture
// is encoded (the encoder opens at the first picture, whose size it takes).
class FrameSound final : public AudioSink {
  public:
    void play(const std::int16_t* samples, std::size_t frames) override {
        m_samples.insert(m_samples.end(), samples, samples + frames * 2);
    }
    // Hands the frame's sound to the encoder and forgets it.
    Status flush_to(VideoEncoder& encoder) {
        Status s = encoder.add_audio(m_samples.data(), m_samples.size() / 2);
        m_samples.clear();
        return s;
    }

  private:
    std::vector<std::int16_t> m_samples;
};

struct FrameRange {
    std::uint64_t from = 0, to = 0;  // inclusive, the replay's frame numbers
};

Result<FrameRange> range_of(const ExportArgs& args, const netplay::ReplayContents& contents) {
    if (contents.frames.empty())
        return make_error(ErrorCode::kUsage, args.file + ": the replay holds no frames to export");
    const std::uint64_t first = contents.header.start_frame;
    const std::uint64_t last = first + contents.frames.size() - 1;
    FrameRange range{args.from.value_or(first), args.to.value_or(last)};
    const std::string holds = fmt::format("{} holds frames {} to {}", args.file, first, last);
    if (range.from < first || range.from > last)
        return make_error(ErrorCode::kUsage,
                          fmt::format("--from {} is outside the replay: {}", range.from, holds));
    if (range.to < first || range.to > last)
        return make_error(ErrorCode::kUsage,
                          fmt::format("--to {} is outside the replay: {}", range.to, holds));
    if (range.to < range.from) {
        return make_error(ErrorCode::kUsage,
                          fmt::format("--from {} --to {} is an empty range: --to must be at least "
                                      "--from ({})",
                                      range.from, range.to, holds));
    }
    return range;
}

int cmd_replay_export(const ExportArgs& args) {
    args.host.apply_log_level();
    // What the output can be is known before any frame runs.
    auto format = choose_export_format(args.out, args.lossless);
    if (!format) return fail(format.error());
    auto replay = read_replay(args.file);
    if (!replay) return fail(replay.error());
    const netplay::ReplayContents& contents = replay.value();
    auto range = range_of(args, contents);
    if (!range) return fail(range.error());
    // Plain names, not a structured binding: the lambdas below use them (clang 14 refuses a
    // binding in a lambda).
    const std::uint64_t from = range.value().from, to = range.value().to;
    auto emulator = start_replay_emulator(args.host, contents, args.sram);
    if (!emulator) return fail(emulator.error());
    RetroEmulator& emu = *emulator.value();
    install_stop_signal_handlers();

    const retro_system_av_info av = emu.av_info();
    VideoEncoderOptions options;
    options.format = format.value();
    options.fps = av.timing.fps;
    options.sample_rate = av.timing.sample_rate;
    options.library_log = args.host.verbose;
    HeadlessVideo video;
    video.keep_last_frame(true);
    FrameSound sound;
    emu.set_video_sink(&video);
    emu.set_audio_sink(&sound);
    const unsigned ports = contents.header.identity.ports;

    // Forward only: the seeker keeps no states on the way (a seek to --from starts at the
    // nearest keyframe at or before it; the frames from there run unseen and unheard).
    netplay::ReplaySeeker seeker(emu, contents, netplay::ReplaySeeker::Options::forward_only());
    ProgressBar progress("export", to - from + 1, !args.no_progress && !args.host.quiet);
    std::unique_ptr<VideoEncoder> encoder;
    Image picture;
    // The frame the seeker just showed, and its sound, to the video.
    const auto encode_shown = [&]() -> Status {
        // A frame the core did not draw (a dupe) shows the last picture again.
        Image drawn = to_image(video.last_frame());
        if (drawn.width) {
            picture = std::move(drawn);
        } else if (!picture.width) {
            picture.width = std::max(1u, av.geometry.base_width);
            picture.height = std::max(1u, av.geometry.base_height);
            picture.pixels.assign(static_cast<std::size_t>(picture.width) * picture.height, 0);
        }
        Image shown = picture;
        if (args.input_display) {
            draw_input_display(shown, contents.frames[seeker.shown() - seeker.first()].inputs,
                               ports);
        }
        if (!encoder) {
            options.width = shown.width;
            options.height = shown.height;
            auto opened = VideoEncoder::open(args.out, options);
            if (!opened) return opened.error();
            encoder = std::move(opened).value();
        }
        if (Status s = encoder->add_video(shown); !s) return s;
        progress.update(seeker.shown() - from + 1);
        return sound.flush_to(*encoder);
    };
    const auto started = std::chrono::steady_clock::now();
    auto sought = seeker.show(from);
    if (!sought) return fail(sought.error());
    if (Status s = encode_shown(); !s) return fail(s.error());
    while (seeker.shown() < to) {
        if (stop_requested()) {
            return fail(make_error(ErrorCode::kIo, "stopped: " + args.out + " not written"));
        }
        seeker.advance(true);
        if (Status s = encode_shown(); !s) return fail(s.error());
    }
    if (Status s = encoder->finish(); !s) return fail(s.error());
    progress.done();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const std::uint64_t frames = encoder->video_frames();
    fmt::print("export   {}: {} frames ({} .. {}) at {:.4f} fps, {}x{}, {}{}\n", args.out, frames,
               from, to, av.timing.fps, options.width, options.height, format.value().description,
               args.input_display ? ", input display" : "");
    fmt::print("export: {} frames in {:.2f} s ({:.1f} fps)\n", frames, seconds,
               seconds > 0 ? static_cast<double>(frames) / seconds : 0.0);
    return 0;
}

}  // namespace

Subcommand add_replay_export_command(CLI::App& replay) {
    auto args = std::make_shared<ExportArgs>();
    CLI::App* command = replay.add_subcommand(
        "export", "write a replay as a video with sound (.mp4, .webm, .mkv) through FFmpeg");
    command->add_option("file", args->file, "the replay file")->required();
    command
        ->add_option("out", args->out,
                     "the video: .mp4 (H.264 + AAC), .webm (VP9 + Opus), .mkv (H.264 + AAC, "
                     "or FFV1 + FLAC with --lossless); written to OUT.part, then renamed")
        ->required();
    args->host.add_to(*command);
    command->add_option("--from", args->from,
                        "the first frame in the video (the replay's numbering; reached from the "
                        "nearest keyframe before it, unseen and unheard)");
    command->add_option("--to", args->to, "the last frame in the video (included)");
    command->add_flag("--input-display", args->input_display,
                      "burn each player's pad into the picture's bottom: a box per button, lit "
                      "while held");
    command->add_flag("--lossless", args->lossless,
                      "FFV1 on RGB with FLAC sound in .mkv: every decoded pixel is the core's");
    command->add_flag("--sram", args->sram,
                      "load save RAM at start, as the session did with `join --sram`");
    command->add_flag("--no-progress", args->no_progress, "no progress bar on stderr");
    return {command, [args] { return cmd_replay_export(*args); }};
}

}  // namespace framelock::frontend
