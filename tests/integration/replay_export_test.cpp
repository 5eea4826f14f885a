// `framelock replay export` with real processes: a replay recorded in a real session of the
// bundled arcade game (server and two `join` players on 127.0.0.1, one recording), exported to
// .mp4, .webm and a range, each checked with ffprobe (the core's frame rate as the rational,
// one video frame per replay frame, a sound stream as long as the video); exported lossless, 10
// decoded frames equal, pixel for pixel, `framelock run`'s screenshots of the same frames with
// the replay's pads (`replay play --input-log`); and the errors: a wrong extension for
// --lossless, an empty or outside range, a folder that is not there, none leaving a file; a
// range reached from a keyframe, frame for frame the whole video there.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "frontend/host/image.h"
#include "integration/netplay_session.h"
#include "support/process.h"

using namespace framelock::test;

namespace {

constexpr int kFrames = 300;

// A program on $PATH (the tests run ffmpeg's tools as a user would), or "".
std::string on_path(const std::string& name) {
    const char* path = std::getenv("PATH");
    std::stringstream folders(path ? path : "");
    for (std::string folder; std::getline(folders, folder, ':');) {
        const std::filesystem::path candidate = std::filesystem::path(folder) / name;
        if (!folder.empty() && std::filesystem::exists(candidate)) return candidate.string();
    }
    return "";
}

std::string tool(const std::string& name) {
    const std::string found = on_path(name);
    if (found.empty()) FRAMELOCK_SKIP_BECAUSE(name + " is missing (apt-get install ffmpeg)");
    return found;
}

// The arcade core's arguments for every subcommand that hosts it.
std::vector<std::string> with_core(std::vector<std::string> args) {
    const CoreCase core = two_player_arcade();
    args.insert(args.end(), {"--core", core.core, "--no-sram", "-q"});
    args.insert(args.end(), core.extra.begin(), core.extra.end());
    return args;
}

ProcessResult export_replay(const std::string& replay, const std::string& out,
                            const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {build_paths::framelock_exe, "replay", "export", replay, out};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_process(with_core(args));
}

// ffprobe's streams, every frame counted.
nlohmann::json probe(const std::string& file) {
    const ProcessResult probed = run_process(
        {tool("ffprobe"), "-v", "error", "-count_frames", "-show_streams", "-of", "json", file});
    INFO(probed.err);
    REQUIRE(probed.exit_code == 0);
    return nlohmann::json::parse(probed.out);
}

const nlohmann::json& stream_of(const nlohmann::json& probed, const std::string& type) {
    for (const auto& stream : probed.at("streams")) {
        if (stream.at("codec_type") == type) return stream;
    }
    FAIL("no " << type << " stream in " << probed.dump());
    return probed;
}

// One recorded session, shared by the test cases of this file (recorded once per process).
const std::string& recorded_replay() {
    static Session session("replay_export");
    static std::string replay;
    if (!replay.empty()) return replay;
    const CoreCase core = two_player_arcade();
    require_core_case(core);
    const auto limit = session_time(kFrames);
    const Deadline deadline = after(limit);
    session.start_server(2, limit);
    const std::string path = session.dir().file("ann.flrp");
    ChildProcess& ann = session.start_client("ann", core, 1, 71, kFrames, {"--record", path});
    ChildProcess& bob = session.start_client("bob", core, 2, 72, kFrames);
    session.require_success(ann, "ann", deadline);
    session.require_success(bob, "bob", deadline);
    session.require_server_success(after(15s));
    replay = path;
    return replay;
}

}  // namespace

TEST_CASE(
    "replay export, real processes: an mp4, a webm and a range hold one video frame per replay "
    "frame at the core's rate, and sound",
    "[integration][export]") {
    const std::string& replay = recorded_replay();
    const TempDir dir("replay_export_formats");

    const std::string mp4 = dir.file("match.mp4");
    const ProcessResult exported = export_replay(replay, mp4);
    INFO(exported.out << exported.err);
    REQUIRE(exported.exit_code == 0);
    CHECK_THAT(exported.out, Catch::Contains("export: 300 frames in "));
    CHECK_FALSE(std::filesystem::exists(mp4 + ".part"));
    const nlohmann::json probed = probe(mp4);
    const auto& video = stream_of(probed, "video");
    CHECK(video.at("codec_name") == "h264");
    // The arcade core runs at exactly 60 frames per second (its av_info).
    CHECK(video.at("r_frame_rate") == "60/1");
    CHECK(video.at("nb_read_frames") == std::to_string(kFrames));
    const auto& audio = stream_of(probed, "audio");
    CHECK(audio.at("codec_name") == "aac");
    CHECK(audio.at("sample_rate") == "48000");
    // As long as the picture (5 s), within an AAC frame and its priming.
    CHECK(std::stod(audio.at("duration").get<std::string>()) == Approx(5.0).margin(0.05));

    const std::string webm = dir.file("match.webm");
    const ProcessResult webm_run = export_replay(replay, webm);
    INFO(webm_run.out << webm_run.err);
    REQUIRE(webm_run.exit_code == 0);
    const nlohmann::json webm_probed = probe(webm);
    CHECK(stream_of(webm_probed, "video").at("codec_name") == "vp9");
    CHECK(stream_of(webm_probed, "video").at("r_frame_rate") == "60/1");
    CHECK(stream_of(webm_probed, "video").at("nb_read_frames") == std::to_string(kFrames));
    CHECK(stream_of(webm_probed, "audio").at("codec_name") == "opus");

    // A range: frames 100 to 159, the frames before still run.
    const std::string range = dir.file("range.mp4");
    const ProcessResult range_run =
        export_replay(replay, range, {"--from", "100", "--to", "159", "--input-display"});
    INFO(range_run.out << range_run.err);
    REQUIRE(range_run.exit_code == 0);
    CHECK_THAT(range_run.out, Catch::Contains("60 frames (100 .. 159)"));
    const nlohmann::json range_probed = probe(range);
    CHECK(stream_of(range_probed, "video").at("nb_read_frames") == "60");
    CHECK(std::stod(stream_of(range_probed, "audio").at("duration").get<std::string>()) ==
          Approx(1.0).margin(0.05));
}

TEST_CASE(
    "replay export, real processes: a lossless mkv decodes to the very pixels framelock run "
    "shows for the replay's pads",
    "[integration][export]") {
    const std::string& replay = recorded_replay();
    const TempDir dir("replay_export_lossless");
    const std::string mkv = dir.file("match.mkv");
    const ProcessResult exported = export_replay(replay, mkv, {"--lossless"});
    INFO(exported.out << exported.err);
    REQUIRE(exported.exit_code == 0);
    const nlohmann::json probed = probe(mkv);
    CHECK(stream_of(probed, "video").at("codec_name") == "ffv1");
    CHECK(stream_of(probed, "video").at("nb_read_frames") == std::to_string(kFrames));
    CHECK(stream_of(probed, "audio").at("codec_name") == "flac");

    // The replay's pads as a script; the replay starts at its session's start, frame 0, so
    // `run` from power-on with the script runs the same frames.
    const std::string pads = dir.file("pads.txt");
    const ProcessResult played = run_process(
        with_core({build_paths::framelock_exe, "replay", "play", replay, "--input-log", pads}));
    INFO(played.out << played.err);
    REQUIRE(played.exit_code == 0);
    REQUIRE_THAT(played.out, Catch::Contains("300 frames played (0 .. 299)"));

    std::set<std::vector<std::uint32_t>> distinct;
    for (int n : {0, 33, 66, 99, 132, 165, 198, 231, 264, 299}) {
        INFO("frame " << n);
        const std::string raw = dir.file("frame" + std::to_string(n) + ".rgb");
        const ProcessResult decoded =
            run_process({tool("ffmpeg"), "-v", "error", "-y", "-i", mkv, "-vf",
                         "select=eq(n\\," + std::to_string(n) + ")", "-vframes", "1", "-f",
                         "rawvideo", "-pix_fmt", "rgb24", raw});
        INFO(decoded.err);
        REQUIRE(decoded.exit_code == 0);
        const std::string png = dir.file("frame" + std::to_string(n) + ".png");
        const CoreCase core = two_player_arcade();
        const ProcessResult ran = run_process(
            run_args(core, {"--frames", std::to_string(n + 1), "--input", pads,
                            "--screenshot-frame", std::to_string(n), "--screenshot", png}));
        INFO(ran.out << ran.err);
        REQUIRE(ran.exit_code == 0);
        auto shot = framelock::frontend::read_png(png);
        REQUIRE(shot.ok());
        const framelock::frontend::Image& image = shot.value();
        const std::string bytes = read_text(raw);
        REQUIRE(bytes.size() == static_cast<std::size_t>(image.width) * image.height * 3);
        std::size_t differing = 0;
        for (std::size_t i = 0; i < image.pixels.size(); ++i) {
            const std::uint32_t decoded_pixel =
                (static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i * 3])) << 16) |
                (static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i * 3 + 1])) << 8) |
                static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i * 3 + 2]));
            if (decoded_pixel != image.pixels[i]) ++differing;
        }
        CHECK(differing == 0);
        distinct.insert(image.pixels);
    }
    // The game moves: the ten frames are not one picture ten times.
    CHECK(distinct.size() >= 5);
}

TEST_CASE(
    "replay export, real processes: a wrong extension for lossless, an empty or outside range "
    "and a missing folder are named, and leave no file",
    "[integration][export]") {
    const std::string& replay = recorded_replay();
    const TempDir dir("replay_export_errors");
    const std::string mp4 = dir.file("match.mp4");

    const ProcessResult lossless = export_replay(replay, mp4, {"--lossless"});
    CHECK(lossless.exit_code == 2);
    CHECK_THAT(lossless.err, Catch::Contains("name the output .mkv"));
    const ProcessResult unknown = export_replay(replay, dir.file("match.avi"));
    CHECK(unknown.exit_code == 2);
    CHECK_THAT(unknown.err, Catch::Contains(".mp4 (H.264 + AAC), .webm (VP9 + Opus) or .mkv"));
    const ProcessResult empty = export_replay(replay, mp4, {"--from", "200", "--to", "100"});
    CHECK(empty.exit_code == 2);
    CHECK_THAT(empty.err, Catch::Contains("is an empty range"));
    CHECK_THAT(empty.err, Catch::Contains("holds frames 0 to 299"));
    const ProcessResult outside = export_replay(replay, mp4, {"--to", "300"});
    CHECK(outside.exit_code == 2);
    CHECK_THAT(outside.err, Catch::Contains("--to 300 is outside the replay"));
    const std::string nowhere = dir.file("missing/match.mp4");
    const ProcessResult missing = export_replay(replay, nowhere);
    CHECK(missing.exit_code == 6);
    CHECK_THAT(missing.err, Catch::Contains("cannot write " + nowhere + ".part"));
    CHECK_FALSE(std::filesystem::exists(mp4));
    CHECK_FALSE(std::filesystem::exists(mp4 + ".part"));
    CHECK(std::filesystem::is_empty(dir.path()));
}

TEST_CASE(
    "replay export, real processes: a range reached from a keyframe holds the very frames the "
    "whole video holds there",
    "[integration][export]") {
    // A session long enough for a keyframe (one every 600 frames).
    constexpr int kLong = 720;
    const CoreCase core = two_player_arcade();
    require_core_case(core);
    const auto limit = session_time(kLong);
    const Deadline deadline = after(limit);
    Session session("replay_export_keyframe");
    session.start_server(2, limit);
    const std::string replay = session.dir().file("ann.flrp");
    ChildProcess& ann = session.start_client("ann", core, 1, 81, kLong, {"--record", replay});
    ChildProcess& bob = session.start_client("bob", core, 2, 82, kLong);
    session.require_success(ann, "ann", deadline);
    session.require_success(bob, "bob", deadline);
    session.require_server_success(after(15s));
    const ProcessResult sought = run_process(
        with_core({build_paths::framelock_exe, "replay", "play", replay, "--from", "650"}));
    INFO(sought.out << sought.err);
    REQUIRE(sought.exit_code == 0);
    REQUIRE_THAT(sought.out, Catch::Contains("from the state of frame 600"));

    const std::string whole = session.dir().file("whole.mkv");
    const std::string range = session.dir().file("range.mkv");
    const ProcessResult whole_run = export_replay(replay, whole, {"--lossless"});
    INFO(whole_run.out << whole_run.err);
    REQUIRE(whole_run.exit_code == 0);
    const ProcessResult range_run =
        export_replay(replay, range, {"--lossless", "--from", "650", "--to", "659"});
    INFO(range_run.out << range_run.err);
    REQUIRE(range_run.exit_code == 0);
    CHECK(stream_of(probe(range), "video").at("nb_read_frames") == "10");
    const auto decode = [&](const std::string& video, int n) {
        const std::string raw = session.dir().file("frame.rgb");
        const ProcessResult decoded =
            run_process({tool("ffmpeg"), "-v", "error", "-y", "-i", video, "-vf",
                         "select=eq(n\\," + std::to_string(n) + ")", "-vframes", "1", "-f",
                         "rawvideo", "-pix_fmt", "rgb24", raw});
        INFO(decoded.err);
        REQUIRE(decoded.exit_code == 0);
        return read_text(raw);
    };
    std::set<std::string> distinct;
    for (int i : {0, 4, 9}) {
        INFO("frame " << 650 + i);
        const std::string in_range = decode(range, i);
        CHECK(in_range.size() == 320u * 224u * 3u);
        CHECK(in_range == decode(whole, 650 + i));
        distinct.insert(in_range);
    }
    CHECK(distinct.size() > 1);
}
