// A single-producer, single-consumer queue of stereo float frames between the emulator
// thread (push) and the sound device's thread (pop). Lock-free: neither side ever waits
// for the other, so a slow device can never stall emulation or netplay timing.
#pragma once

#include <algorithm>
#include <atomic>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace framelock::frontend {

class AudioRing {
  public:
    static constexpr int kChannels = 2;

    // Holds up to `capacity_frames` frames (rounded up to a power of two).
    explicit AudioRing(std::size_t capacity_frames) {
        std::size_t capacity = 1;
        while (capacity < capacity_frames) capacity <<= 1;
        m_mask = capacity - 1;
        m_samples.assign(capacity * kChannels, 0.0f);
    }

    std::size_t capacity() const { return m_mask + 1; }

    // Frames queued now. Either side may call it; the answer may be stale by the time it is
    // used (the other side keeps going), which the callers tolerate.
    std::size_t size() const {
        return static_cast<std::size_t>(m_write.load(std::memory_order_acquire) -
                                        m_read.load(std::memory_order_acquire));
    }

    // Producer only. Appends up to `frames` frames; returns how many fitted.
    std::size_t push(const float* interleaved, std::size_t frames) {
        const std::uint64_t write = m_write.load(std::memory_order_relaxed);
        const std::uint64_t read = m_read.load(std::memory_order_acquire);
        const std::size_t room = capacity() - static_cast<std::size_t>(write - read);
        const std::size_t n = std::min(frames, room);
        copy_in(write, interleaved, n);
        m_write.store(write + n, std::memory_order_release);
        return n;
    }

    // Consumer only. Takes up to `frames` frames; returns how many were there.
    std::size_t pop(float* interleaved, std::size_t frames) {
        const std::uint64_t read = m_read.load(std::memory_order_relaxed);
        const std::uint64_t write = m_write.load(std::memory_order_acquire);
        const std::size_t n = std::min(frames, static_cast<std::size_t>(write - read));
        copy_out(read, interleaved, n);
        m_read.store(read + n, std::memory_order_release);
        return n;
    }

  private:
    void copy_in(std::uint64_t at, const float* src, std::size_t frames) {
        const std::size_t start = static_cast<std::size_t>(at) & m_mask;
        const std::size_t first = std::min(frames, capacity() - start);
        std::memcpy(&m_samples[start * kChannels], src, first * kChannels * sizeof(float));
        std::memcpy(&m_samples[0], src + first * kChannels,
                    (frames - first) * kChannels * sizeof(float));
    }
    void copy_out(std::uint64_t at, float* dst, std::size_t frames) const {
        const std::size_t start = static_cast<std::size_t>(at) & m_mask;
        const std::size_t first = std::min(frames, capacity() - start);
        std::memcpy(dst, &m_samples[start * kChannels], first * kChannels * sizeof(float));
        std::memcpy(dst + first * kChannels, &m_samples[0],
                    (frames - first) * kChannels * sizeof(float));
    }

    std::size_t m_mask = 0;
    std::vector<float> m_samples;
    // Frame counters that only grow (2^64 frames: millions of years at 48 kHz).
    alignas(64) std::atomic<std::uint64_t> m_write{0};
    alignas(64) std::atomic<std::uint64_t> m_read{0};
};

}  // namespace framelock::frontend
