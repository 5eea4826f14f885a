// The small interfaces between the core host and whatever shows, plays or reads:
// SDL2 implements them for a player's window, headless ones for servers and tests.
#pragma once

#include <cstddef>
#include <cstdint>

#include "netplay/base/types.h"

namespace framelock::frontend {

enum class PixelFormat { k0RGB1555, kXRGB8888, kRGB565 };

inline int bytes_per_pixel(PixelFormat format) {
    return format == PixelFormat::kXRGB8888 ? 4 : 2;
}

// One picture from the core. `data` is owned by the core and valid only during the
// present() call; data == nullptr means "same picture as last time" (GET_CAN_DUPE).
struct VideoFrame {
    const void* data = nullptr;
    unsigned width = 0;
    unsigned height = 0;
    std::size_t pitch = 0;  // bytes per line
    PixelFormat format = PixelFormat::k0RGB1555;
};

class VideoSink {
  public:
    virtual ~VideoSink() = default;
    virtual void present(const VideoFrame& frame) = 0;
};

class AudioSink {
  public:
    virtual ~AudioSink() = default;
    // Interleaved stereo signed 16-bit, `frames` L/R pairs, at the core's sample rate.
    // Valid only during the call.
    virtual void play(const std::int16_t* samples, std::size_t frames) = 0;
};

// Where each frame's pads come from: a script, a random bot, a keyboard, the network.
class InputSource {
  public:
    virtual ~InputSource() = default;
    virtual netplay::InputFrame input_for(std::uint64_t frame) = 0;
};

}  // namespace framelock::frontend
