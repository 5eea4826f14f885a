// Moving a savestate across the network: zlib-compressed, split into StateChunks on
// Channel::kBulk, with a window of unacknowledged bytes so a transfer never queues
// seconds of data in front of the same link's inputs.
//
// Pure logic, no I/O: the owner sends what take_messages() hands out and feeds the
// receiver what arrives. The receiver accepts only what its header declared: sizes are
// checked against caps before anything is allocated, chunks must arrive in order and fill
// exactly the declared compressed size, and the state must inflate to exactly the
// declared size with the declared CRC (netplay/wire/compression.h): a crafted transfer cannot
// make it allocate more than the cap.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "netplay/base/result.h"
#include "netplay/wire/protocol.h"

namespace framelock::netplay {

// A compressed state, ready to send to any number of peers.
struct PackedState {
    std::uint32_t frame = 0;
    std::uint32_t raw_size = 0;
    std::uint32_t crc32 = 0;
    std::uint8_t delay = 0;
    std::shared_ptr<const std::vector<std::uint8_t>> compressed;
};

// Compresses `raw` (the state before `frame`).
PackedState pack_state(std::span<const std::uint8_t> raw, std::uint32_t frame);

// Checks a received header against the caps; the error names the values.
Status check_state_header(const StateHeader& header, std::uint32_t cap = kMaxStateBytes);

// The largest compressed size a state of `raw_size` bytes may declare (zlib's worst case
// for incompressible data, with margin).
std::uint32_t max_compressed_size(std::uint32_t raw_size);

class StateSender {
  public:
    static constexpr std::uint32_t kDefaultWindow = 2 * 1024 * 1024;

    StateSender(std::uint32_t transfer_id, StatePurpose purpose, PackedState state,
                std::uint32_t window = kDefaultWindow);

    // The header first, then chunks while fewer than `window` bytes are unacknowledged.
    std::vector<std::vector<std::uint8_t>> take_messages();
    // A StateAck for this transfer: false when it is not one (wrong id, beyond what was sent).
    bool on_ack(const StateAck& ack);

    bool done() const { return m_acked >= size(); }
    std::uint32_t transfer_id() const { return m_id; }
    StatePurpose purpose() const { return m_purpose; }
    std::uint32_t frame() const { return m_state.frame; }
    std::uint32_t size() const { return static_cast<std::uint32_t>(m_state.compressed->size()); }
    std::uint32_t acked() const { return m_acked; }

  private:
    std::uint32_t m_id;
    StatePurpose m_purpose;
    PackedState m_state;
    std::uint32_t m_window;
    bool m_header_sent = false;
    std::uint32_t m_sent = 0, m_acked = 0;
};

class StateReceiver {
  public:
    explicit StateReceiver(std::uint32_t cap = kMaxStateBytes) : m_cap(cap) {}

    // Starts a transfer (replacing any unfinished one). Errors: sizes over the caps.
    Status begin(const StateHeader& header);
    // Adds the next chunk; returns the StateAck to send back. Errors: no transfer open,
    // another transfer's chunk, a chunk out of order or beyond the declared size.
    Result<StateAck> add(const StateChunk& chunk);
    bool active() const { return m_active; }
    bool complete() const { return m_active && m_data.size() == m_header.compressed_size; }
    // The state, once complete: inflated within the declared size, CRC checked.
    Result<std::vector<std::uint8_t>> finish();
    // The received state still compressed (a server relays it without inflating twice).
    PackedState packed() const;
    void reset() {
        m_active = false;
        m_data.clear();
    }

    const StateHeader& header() const { return m_header; }
    double progress() const {
        return m_active && m_header.compressed_size
                   ? static_cast<double>(m_data.size()) / m_header.compressed_size
                   : 0.0;
    }

  private:
    std::uint32_t m_cap;
    bool m_active = false;
    StateHeader m_header{};
    std::vector<std::uint8_t> m_data;
};

}  // namespace framelock::netplay
