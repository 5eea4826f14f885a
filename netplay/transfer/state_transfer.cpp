#include "netplay/transfer/state_transfer.h"

#include <algorithm>

#include "netplay/wire/compression.h"

namespace framelock::netplay {

PackedState pack_state(std::span<const std::uint8_t> raw, std::uint32_t frame) {
    PackedState p;
    p.frame = frame;
    p.raw_size = static_cast<std::uint32_t>(raw.size());
    p.crc32 = crc32_of(raw);
    p.compressed = std::make_shared<const std::vector<std::uint8_t>>(deflate_bytes(raw));
    return p;
}

std::uint32_t max_compressed_size(std::uint32_t raw_size) {
    // zlib's stored blocks add 5 bytes per 16 KiB plus the stream's header and trailer.
    return raw_size + raw_size / 1000 + 1024;
}

Status check_state_header(const StateHeader& header, std::uint32_t cap) {
    if (!header.available) return {};
    if (header.raw_size == 0 || header.raw_size > cap) {
        return Error{ErrorCode::kState, "state of " + std::to_string(header.raw_size) +
                                            " bytes refused: the limit is " + std::to_string(cap) +
                                            " bytes"};
    }
    if (header.compressed_size == 0 ||
        header.compressed_size > max_compressed_size(header.raw_size)) {
        return Error{ErrorCode::kState, "state refused: " + std::to_string(header.compressed_size) +
                                            " compressed bytes cannot hold a state of " +
                                            std::to_string(header.raw_size) + " bytes"};
    }
    return {};
}

StateSender::StateSender(std::uint32_t transfer_id, StatePurpose purpose, PackedState state,
                         std::uint32_t window)
    : m_id(transfer_id),
      m_purpose(purpose),
      m_state(std::move(state)),
      m_window(std::max<std::uint32_t>(window, kStateChunkBytes)) {}

std::vector<std::vector<std::uint8_t>> StateSender::take_messages() {
    std::vector<std::vector<std::uint8_t>> out;
    if (!m_header_sent) {
        StateHeader h;
        h.transfer_id = m_id;
        h.purpose = m_purpose;
        h.frame = m_state.frame;
        h.delay = m_state.delay;
        h.raw_size = m_state.raw_size;
        h.compressed_size = size();
        h.crc32 = m_state.crc32;
        out.push_back(encode(h));
        m_header_sent = true;
    }
    const auto& data = *m_state.compressed;
    while (m_sent < size() && m_sent - m_acked < m_window) {
        const std::uint32_t n = std::min<std::uint32_t>(kStateChunkBytes, size() - m_sent);
        StateChunk chunk;
        chunk.transfer_id = m_id;
        chunk.offset = m_sent;
        chunk.bytes.assign(data.begin() + m_sent, data.begin() + m_sent + n);
        out.push_back(encode(chunk));
        m_sent += n;
    }
    return out;
}

bool StateSender::on_ack(const StateAck& ack) {
    if (ack.transfer_id != m_id || ack.received > m_sent) return false;
    m_acked = std::max(m_acked, ack.received);
    return true;
}

Status StateReceiver::begin(const StateHeader& header) {
    m_active = false;
    m_data.clear();
    if (!header.available) {
        return Error{ErrorCode::kState,
                     "the peer no longer holds the state of frame " + std::to_string(header.frame)};
    }
    if (auto ok = check_state_header(header, m_cap); !ok) return ok.error();
    m_header = header;
    m_active = true;
    m_data.reserve(header.compressed_size);
    return {};
}

Result<StateAck> StateReceiver::add(const StateChunk& chunk) {
    if (!m_active) return Error{ErrorCode::kState, "state chunk without a transfer dropped"};
    if (chunk.transfer_id != m_header.transfer_id) {
        return Error{ErrorCode::kState, "chunk of transfer " + std::to_string(chunk.transfer_id) +
                                            " during transfer " +
                                            std::to_string(m_header.transfer_id) + " dropped"};
    }
    if (chunk.offset != m_data.size() ||
        chunk.bytes.size() > m_header.compressed_size - m_data.size()) {
        const auto declared = m_header.compressed_size;
        reset();
        return Error{ErrorCode::kState, "state chunk at " + std::to_string(chunk.offset) + " (+" +
                                            std::to_string(chunk.bytes.size()) +
                                            " bytes) does not fit: the transfer declared " +
                                            std::to_string(declared) +
                                            " compressed bytes; transfer abandoned"};
    }
    m_data.insert(m_data.end(), chunk.bytes.begin(), chunk.bytes.end());
    return StateAck{m_header.transfer_id, static_cast<std::uint32_t>(m_data.size())};
}

Result<std::vector<std::uint8_t>> StateReceiver::finish() {
    if (!complete()) return Error{ErrorCode::kState, "state transfer incomplete"};
    auto raw = inflate_bounded(m_data, m_header.raw_size, m_cap);
    if (!raw) {
        reset();
        return Error{ErrorCode::kState, "state of frame " + std::to_string(m_header.frame) +
                                            " refused: " + raw.error().message};
    }
    if (crc32_of(raw.value()) != m_header.crc32) {
        reset();
        return Error{ErrorCode::kState, "state of frame " + std::to_string(m_header.frame) +
                                            " refused: its CRC does not match the header"};
    }
    return raw;
}

PackedState StateReceiver::packed() const {
    PackedState p;
    p.frame = m_header.frame;
    p.raw_size = m_header.raw_size;
    p.crc32 = m_header.crc32;
    p.delay = m_header.delay;
    p.compressed = std::make_shared<const std::vector<std::uint8_t>>(m_data);
    return p;
}

}  // namespace framelock::netplay
