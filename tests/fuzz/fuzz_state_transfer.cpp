// State transfer (netplay/transfer/state_transfer.h) and bounded decompression
// (netplay/wire/compression.h). The flags byte picks one of three harnesses:
//   0  a receiver fed a stream of datagrams (u16 length + bytes each), as Channel::kBulk
//      delivers them: StateHeader opens a transfer, StateChunks fill it; a complete one is
//      inflated and must come out at exactly the declared size with the declared CRC.
//   1  inflate_bounded on the rest (u32 declared size first): within the cap, exact size.
//   2  the sender: the rest is a state; packed, chunked with a small window, acknowledged
//      and received, it must come back byte for byte.
// Bit 0x80 gives the receiver the real cap (kMaxStateBytes) instead of 1 MiB.
#include <vector>

#include "netplay/transfer/state_transfer.h"
#include "netplay/wire/compression.h"
#include "tests/fuzz/fuzz_input.h"
#include "tests/fuzz/fuzz_targets.h"

namespace framelock::fuzz {
namespace {

using namespace netplay;
using Bytes = std::vector<std::uint8_t>;

void receive_stream(FuzzInput& in, std::uint32_t cap) {
    StateReceiver rx(cap);
    std::uint32_t acked = 0;
    while (!in.empty()) {
        const Bytes message = in.blob();
        const auto id = peek_id(message);
        if (id == MsgId::kStateHeader) {
            const auto header = decode_state_header(message);
            if (!header) continue;
            const Status begun = rx.begin(*header);
            FUZZ_CHECK(begun.ok() == rx.active());
            FUZZ_CHECK(begun.ok() || !begun.error().message.empty());
            if (begun) {
                FUZZ_CHECK(header->raw_size <= cap);
                FUZZ_CHECK(header->compressed_size <= max_compressed_size(header->raw_size));
            }
            acked = 0;
        } else if (id == MsgId::kStateChunk) {
            const auto chunk = decode_state_chunk(message);
            if (!chunk) continue;
            const auto ack = rx.add(*chunk);
            if (!ack) continue;
            FUZZ_CHECK(ack.value().received > acked);
            FUZZ_CHECK(ack.value().received <= rx.header().compressed_size);
            acked = ack.value().received;
        }
        FUZZ_CHECK(rx.progress() >= 0.0 && rx.progress() <= 1.0);
        if (rx.complete()) {
            const StateHeader header = rx.header();
            const auto state = rx.finish();
            if (state) {
                FUZZ_CHECK(state.value().size() == header.raw_size);
                FUZZ_CHECK(crc32_of(state.value()) == header.crc32);
            } else {
                FUZZ_CHECK(!rx.active());
            }
            rx.reset();
        }
    }
}

void inflate(FuzzInput& in) {
    const std::uint32_t declared = in.u32() % (2u << 20);
    const auto data = in.bytes(in.remaining());
    const std::size_t cap = 1u << 20;
    const auto raw = inflate_bounded(data, declared, cap);
    if (!raw) {
        FUZZ_CHECK(!raw.error().message.empty());
        return;
    }
    FUZZ_CHECK(declared <= cap);
    FUZZ_CHECK(raw.value().size() == declared);
    // What inflated deflates and inflates back to itself.
    const Bytes again = deflate_bytes(raw.value());
    const auto back = inflate_bounded(again, declared, cap);
    FUZZ_CHECK(back.ok() && back.value() == raw.value());
}

void send_and_receive(FuzzInput& in) {
    const std::uint32_t frame = in.u32();
    const auto raw = in.bytes(in.remaining());
    if (raw.empty()) return;
    StateSender sender(7, StatePurpose::kJoin, pack_state(raw, frame), 4096);
    StateReceiver rx;
    bool got = false;
    for (int round = 0; round < 10'000 && !got; ++round) {
        const auto messages = sender.take_messages();
        FUZZ_CHECK(!messages.empty() || sender.done());
        for (const auto& message : messages) {
            if (peek_id(message) == MsgId::kStateHeader) {
                FUZZ_CHECK(rx.begin(decode_state_header(message).value()).ok());
                continue;
            }
            const auto ack = rx.add(decode_state_chunk(message).value());
            FUZZ_CHECK(ack.ok());
            FUZZ_CHECK(sender.on_ack(ack.value()));
            if (rx.complete()) {
                const auto state = rx.finish();
                FUZZ_CHECK(state.ok());
                FUZZ_CHECK(Bytes(raw.begin(), raw.end()) == state.value());
                FUZZ_CHECK(rx.header().frame == frame);
                got = true;
            }
        }
    }
    FUZZ_CHECK(got && sender.done());
}

}  // namespace

int fuzz_state_transfer(const std::uint8_t* data, std::size_t size) {
    FuzzInput in(data, size);
    const std::uint8_t flags = in.u8();
    switch ((flags & 0x7f) % 3) {
        case 0:
            receive_stream(in, (flags & 0x80) ? kMaxStateBytes : 1u << 20);
            break;
        case 1:
            inflate(in);
            break;
        case 2:
            send_and_receive(in);
            break;
    }
    return 0;
}

}  // namespace framelock::fuzz
