#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "frontend/host/headless.h"

using namespace framelock::frontend;

namespace {
// Remembers what it was given.
class Recorder final : public VideoSink {
  public:
    void present(const VideoFrame& frame) override { frames.push_back(frame); }
    std::vector<VideoFrame> frames;
};
}  // namespace

TEST_CASE("HeadlessVideo keeps a copy of the last picture and passes every one on",
          "[frontend][headless]") {
    Recorder window;
    HeadlessVideo copy;
    copy.keep_last_frame(true);
    copy.forward_to(&window);
    CHECK(copy.forwards_to() == &window);
    // 2x2 XRGB8888 with a padded pitch.
    const std::uint32_t pixels[6] = {1, 2, 0xdead, 3, 4, 0xbeef};
    copy.present({pixels, 2, 2, 12, PixelFormat::kXRGB8888});
    copy.present({nullptr, 2, 2, 12, PixelFormat::kXRGB8888});  // a dupe
    REQUIRE(window.frames.size() == 2);
    CHECK(window.frames[0].data == pixels);  // the core's own buffer, not the copy
    CHECK(window.frames[1].data == nullptr);
    CHECK(copy.frames() == 2);
    CHECK(copy.dupes() == 1);
    // The copy is tightly packed and outlives the core's buffer.
    CHECK(copy.last_frame().pitch == 8);
    const auto* kept = static_cast<const std::uint32_t*>(copy.last_frame().data);
    CHECK(kept[0] == 1);
    CHECK(kept[1] == 2);
    CHECK(kept[2] == 3);
    CHECK(kept[3] == 4);
}
