// The video export's pure parts and the encoder's file handling: which format an extension
// means (and what --lossless refuses), the frame rate as a fraction, the input display's
// pixels, and VideoEncoder writing PATH.part, renaming it when finished, removing it when not.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <vector>

#include "frontend/host/image.h"
#include "frontend/video/export_format.h"
#include "frontend/video/input_display.h"
#include "frontend/video/video_encoder.h"
#include "support/temp_dir.h"

using namespace framelock::frontend;
using framelock::ErrorCode;

TEST_CASE("export format: the extension picks the container and codecs, lossless only in mkv",
          "[export]") {
    CHECK(choose_export_format("a/match.mp4", false).value().video_encoder == "libx264");
    CHECK(choose_export_format("a/match.mp4", false).value().audio_encoder == "aac");
    CHECK(choose_export_format("MATCH.WEBM", false).value().video_encoder == "libvpx-vp9");
    CHECK(choose_export_format("MATCH.WEBM", false).value().audio_encoder == "libopus");
    CHECK(choose_export_format("m.mkv", false).value().muxer == "matroska");
    const auto lossless = choose_export_format("m.mkv", true);
    REQUIRE(lossless.ok());
    CHECK(lossless.value().video_encoder == "ffv1");
    CHECK(lossless.value().pixel_format == "bgr0");
    CHECK(lossless.value().lossless);
    const auto refused = choose_export_format("m.mp4", true);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == ErrorCode::kUsage);
    CHECK_THAT(refused.error().message, Catch::Contains("a .mp4 file cannot hold"));
    CHECK_THAT(refused.error().message, Catch::Contains(".mkv"));
    const auto unknown = choose_export_format("m.gif", false);
    REQUIRE_FALSE(unknown.ok());
    CHECK_THAT(unknown.error().message, Catch::Contains(".mp4"));
}

TEST_CASE("export format: a core's frame rate becomes an exact or very close fraction",
          "[export]") {
    CHECK(frame_rate_of(60.0).num == 60);
    CHECK(frame_rate_of(60.0).den == 1);
    CHECK(frame_rate_of(59.94).num == 2997);
    CHECK(frame_rate_of(59.94).den == 50);
    // The Game Boy's (gambatte's av_info: 4194304 / 70224), exact: what ffprobe reads from an mp4.
    CHECK(frame_rate_of(4194304.0 / 70224.0).num == 262144);
    CHECK(frame_rate_of(4194304.0 / 70224.0).den == 4389);
    // The NES's NTSC rate (nestopia's av_info) and the SNES's.
    for (const double fps : {60.098813897440515, 60.0988, 60.09881389744051, 59.727500569606}) {
        const FrameRate rate = frame_rate_of(fps);
        INFO(fps << " -> " << rate.num << "/" << rate.den);
        CHECK(rate.num < (1 << 26));
        CHECK(rate.den < (1 << 26));
        CHECK(std::abs(static_cast<double>(rate.num) / rate.den - fps) / fps < 1e-9);
    }
}

TEST_CASE("export, input display: a held button lit in its player's colour, the rest dark",
          "[export]") {
    Image picture{320, 224, std::vector<std::uint32_t>(320 * 224, 0x123456)};
    framelock::netplay::InputFrame inputs;
    inputs.pads[0] = 1u << 8;  // P1 holds A
    inputs.pads[1] = 1u << 4;  // P2 holds UP
    draw_input_display(picture, inputs, 2);
    // The picture above the pads is untouched.
    for (unsigned y = 0; y < 224 - kInputPadHeight; ++y) {
        for (unsigned x = 0; x < 320; ++x) REQUIRE(picture.at(x, y) == 0x123456);
    }
    // A sits at grid column 10, row 2: 9 + 50 = x 59, 2 + 10 = y 12 in P1's panel.
    const unsigned top = 224 - kInputPadHeight;
    CHECK(picture.at(59 + 1, top + 12 + 1) == input_display_color(0));
    // P1's UP (column 1, row 1) is not held; P2's is, in P2's pad (65 + 3 to the right).
    CHECK(picture.at(14 + 1, top + 7 + 1) != input_display_color(0));
    CHECK(picture.at(68 + 14 + 1, top + 7 + 1) == input_display_color(1));
    CHECK(input_display_color(0) != input_display_color(1));
    // Nothing of a third pad: only two ports.
    CHECK(picture.at(2 * 68 + 30, top + 12) == 0x123456);
}

TEST_CASE("export, input display: eight pads wrap upwards, a tiny picture is clipped", "[export]") {
    Image picture{160, 120, std::vector<std::uint32_t>(160 * 120, 0)};
    framelock::netplay::InputFrame inputs;
    inputs.pads.fill(0xffff);
    draw_input_display(picture, inputs, 8);
    // Two pads a row: P8 (0-based 7) is in the fourth row from the bottom, at the right.
    const unsigned row4_top = 120 - 4 * kInputPadHeight - 3 * 3;
    CHECK(picture.at(68 + 59 + 1, row4_top + 12 + 1) == input_display_color(7));
    Image tiny{7, 5, std::vector<std::uint32_t>(35, 0)};
    draw_input_display(tiny, inputs, 8);  // no write outside it (ASan would say)
    Image none;
    draw_input_display(none, inputs, 2);
    CHECK(none.pixels.empty());
}

TEST_CASE(
    "export, video encoder: the file is PATH.part until finish renames it, and is gone if never "
    "finished",
    "[export]") {
    framelock::test::TempDir dir("video_encoder");
    VideoEncoderOptions options;
    options.format = choose_export_format("x.mkv", true).value();
    options.width = 16;
    options.height = 8;
    options.fps = 60;
    options.sample_rate = 32040.5;
    const Image picture{16, 8, std::vector<std::uint32_t>(16 * 8, 0x00ff8000)};
    const std::vector<std::int16_t> sound(2 * 534, 1000);
    const std::string path = dir.file("video.mkv");
    {
        auto opened = VideoEncoder::open(path, options);
        REQUIRE(opened.ok());
        auto& encoder = *opened.value();
        REQUIRE(encoder.add_video(picture).ok());
        REQUIRE(encoder.add_audio(sound.data(), sound.size() / 2).ok());
        CHECK(std::filesystem::exists(path + ".part"));
        CHECK_FALSE(std::filesystem::exists(path));
    }
    CHECK_FALSE(std::filesystem::exists(path + ".part"));
    CHECK_FALSE(std::filesystem::exists(path));

    auto opened = VideoEncoder::open(path, options);
    REQUIRE(opened.ok());
    auto& encoder = *opened.value();
    for (int i = 0; i < 3; ++i) {
        REQUIRE(encoder.add_video(picture).ok());
        REQUIRE(encoder.add_audio(sound.data(), sound.size() / 2).ok());
    }
    REQUIRE(encoder.finish().ok());
    CHECK(encoder.video_frames() == 3);
    CHECK(std::filesystem::exists(path));
    CHECK(std::filesystem::file_size(path) > 0);
    CHECK_FALSE(std::filesystem::exists(path + ".part"));

    const Image empty;
    auto again = VideoEncoder::open(dir.file("again.mkv"), options);
    REQUIRE(again.ok());
    CHECK_FALSE(again.value()->add_video(empty).ok());
}
