// State transfer: the messages, the sender's window, and a receiver that accepts nothing
// but what its header declared (sizes under the caps, chunks in order, exact inflate, CRC).
#include <catch2/catch.hpp>

#include <zlib.h>

#include <numeric>

#include "netplay/transfer/state_transfer.h"
#include "netplay/wire/compression.h"

using namespace framelock::netplay;
using framelock::Result;

namespace {

std::vector<std::uint8_t> pseudo_random(std::size_t n, std::uint32_t seed) {
    std::vector<std::uint8_t> out(n);
    std::uint32_t x = seed;
    for (auto& b : out) {
        x = x * 1664525u + 1013904223u;
        b = static_cast<std::uint8_t>(x >> 24);
    }
    return out;
}

// Runs a whole transfer sender -> receiver, acknowledging like the peers do.
Result<std::vector<std::uint8_t>> transfer(StateSender& sender, StateReceiver& receiver,
                                           int* rounds = nullptr) {
    int n = 0;
    while (!sender.done()) {
        auto messages = sender.take_messages();
        REQUIRE_FALSE(messages.empty());
        ++n;
        for (const auto& m : messages) {
            if (peek_id(m) == MsgId::kStateHeader) {
                auto h = decode_state_header(m);
                REQUIRE(h);
                if (auto ok = receiver.begin(*h); !ok) return ok.error();
                continue;
            }
            auto chunk = decode_state_chunk(m);
            REQUIRE(chunk);
            auto ack = receiver.add(*chunk);
            if (!ack) return ack.error();
            auto back = decode_state_ack(encode(ack.value()));
            REQUIRE(back);
            CHECK(sender.on_ack(*back));
        }
    }
    if (rounds) *rounds = n;
    return receiver.finish();
}

}  // namespace

TEST_CASE("State messages round trip and refuse truncation and bad fields", "[netplay][state]") {
    StateHeader h{7, StatePurpose::kJoin, true, 5001, 4, 1 << 20, 300000, 0xdeadbeef};
    auto hd = decode_state_header(encode(h));
    REQUIRE(hd);
    CHECK(hd->transfer_id == 7);
    CHECK(hd->purpose == StatePurpose::kJoin);
    CHECK(hd->frame == 5001);
    CHECK(hd->delay == 4);
    CHECK(hd->raw_size == 1u << 20);
    CHECK(hd->compressed_size == 300000);
    CHECK(hd->crc32 == 0xdeadbeef);
    auto bytes = encode(h);
    for (std::size_t n = 0; n < bytes.size(); ++n) {
        CHECK_FALSE(decode_state_header(std::span(bytes).first(n)));
    }
    auto bad_purpose = bytes;
    bad_purpose[5] = 9;
    CHECK_FALSE(decode_state_header(bad_purpose));

    StateChunk c{7, 16384, pseudo_random(1000, 1)};
    auto cd = decode_state_chunk(encode(c));
    REQUIRE(cd);
    CHECK(cd->offset == 16384);
    CHECK(cd->bytes == c.bytes);
    auto cb = encode(c);
    cb.push_back(0);
    CHECK_FALSE(decode_state_chunk(cb));  // trailing byte
    cb.resize(cb.size() - 2);
    CHECK_FALSE(decode_state_chunk(cb));  // one short

    auto rr = decode_resync_report(encode(ResyncReport{121, 100, 130, "RAM (2 bytes at 0x10)"}));
    REQUIRE(rr);
    CHECK(rr->frame == 121);
    CHECK(rr->desync_frame == 100);
    CHECK(rr->resumed_frame == 130);
    CHECK(rr->regions == "RAM (2 bytes at 0x10)");
    auto sr = decode_state_request(encode(StateRequest{3, 601}));
    REQUIRE(sr);
    CHECK(sr->frame == 601);
}

TEST_CASE("A 1 MiB state crosses in windowed chunks and arrives exact", "[netplay][state]") {
    const auto raw = pseudo_random(1 << 20, 42);  // incompressible: the worst case
    StateSender sender(9, StatePurpose::kJoin, pack_state(raw, 3001), 256 * 1024);
    StateReceiver receiver;
    int rounds = 0;
    auto got = transfer(sender, receiver, &rounds);
    REQUIRE(got);
    CHECK(got.value() == raw);
    // 1 MiB and a little zlib framing through a 256 KiB window: 5 windows.
    CHECK(rounds == 5);
    CHECK(sender.acked() == sender.size());
    // The sender never has more than the window unacknowledged.
    StateSender windowed(10, StatePurpose::kJoin, pack_state(raw, 1), 64 * 1024);
    auto first = windowed.take_messages();
    CHECK(first.size() == 1 + 4);  // header + 4 chunks of 16 KiB
    CHECK(windowed.take_messages().empty());
    CHECK_FALSE(windowed.on_ack(StateAck{10, 5 * 16384}));  // beyond what was sent
    CHECK_FALSE(windowed.on_ack(StateAck{11, 16384}));      // another transfer
    CHECK(windowed.on_ack(StateAck{10, 16384}));
    CHECK(windowed.take_messages().size() == 1);
}

TEST_CASE("A zlib bomb, a lying header and disordered chunks are refused", "[netplay][state]") {
    SECTION("zlib bomb: 256 MiB of zeros declared as 1 MiB") {
        // Deflate 256 MiB of zeros in slices (about 256 KiB of compressed data).
        std::vector<std::uint8_t> bomb;
        z_stream z{};
        REQUIRE(deflateInit(&z, 9) == Z_OK);
        std::vector<std::uint8_t> zeros(1 << 20, 0), out(1 << 16);
        for (int i = 0; i < 256; ++i) {
            z.next_in = zeros.data();
            z.avail_in = static_cast<uInt>(zeros.size());
            const int flush = i == 255 ? Z_FINISH : Z_NO_FLUSH;
            do {
                z.next_out = out.data();
                z.avail_out = static_cast<uInt>(out.size());
                deflate(&z, flush);
                bomb.insert(bomb.end(), out.data(), out.data() + (out.size() - z.avail_out));
            } while (z.avail_out == 0);
        }
        deflateEnd(&z);
        PackedState p;
        p.frame = 61;
        p.raw_size = 1 << 20;
        p.crc32 = 0;
        p.compressed = std::make_shared<const std::vector<std::uint8_t>>(bomb);
        StateSender sender(1, StatePurpose::kJoin, p);
        StateReceiver receiver;
        auto got = transfer(sender, receiver);
        REQUIRE_FALSE(got);
        CHECK_THAT(got.error().message, Catch::Contains("frame 61") && Catch::Contains("1048576"));
        CHECK_FALSE(receiver.active());
    }
    SECTION("a state larger than the cap is refused from its header, before any allocation") {
        StateHeader h{1, StatePurpose::kJoin, true, 1, 0, kMaxStateBytes + 1, 1000, 0};
        StateReceiver receiver;
        auto ok = receiver.begin(h);
        REQUIRE_FALSE(ok);
        CHECK_THAT(ok.error().message, Catch::Contains(std::to_string(kMaxStateBytes + 1)) &&
                                           Catch::Contains(std::to_string(kMaxStateBytes)));
    }
    SECTION("more compressed bytes than a state of that size can need") {
        StateHeader h{1, StatePurpose::kJoin, true, 1, 0, 1000, 900'000, 0};
        StateReceiver receiver;
        CHECK_FALSE(receiver.begin(h));
    }
    SECTION("a state that inflates larger than declared") {
        const auto raw = pseudo_random(5000, 3);
        PackedState p = pack_state(raw, 5);
        p.raw_size = 4000;  // the header lies
        StateSender sender(2, StatePurpose::kResync, p);
        StateReceiver receiver;
        auto got = transfer(sender, receiver);
        REQUIRE_FALSE(got);
        CHECK_THAT(got.error().message, Catch::Contains("4000"));
    }
    SECTION("a wrong CRC") {
        const auto raw = pseudo_random(5000, 3);
        PackedState p = pack_state(raw, 5);
        p.crc32 ^= 1;
        StateSender sender(2, StatePurpose::kResync, p);
        StateReceiver receiver;
        auto got = transfer(sender, receiver);
        REQUIRE_FALSE(got);
        CHECK_THAT(got.error().message, Catch::Contains("CRC"));
    }
    SECTION("chunks out of order, beyond the declared size, or of another transfer") {
        const auto raw = pseudo_random(40000, 5);
        PackedState p = pack_state(raw, 5);
        StateSender sender(3, StatePurpose::kJoin, p);
        auto messages = sender.take_messages();
        REQUIRE(messages.size() == 4);  // header + 3 chunks
        StateReceiver receiver;
        REQUIRE(receiver.begin(*decode_state_header(messages[0])));
        auto other = *decode_state_chunk(messages[1]);
        other.transfer_id = 99;
        CHECK_FALSE(receiver.add(other));
        CHECK(receiver.active());  // a stray chunk does not end the transfer
        auto skipped = receiver.add(*decode_state_chunk(messages[2]));
        REQUIRE_FALSE(skipped);
        CHECK_THAT(skipped.error().message, Catch::Contains("does not fit"));
        CHECK_FALSE(receiver.active());  // a gap does
        REQUIRE(receiver.begin(*decode_state_header(messages[0])));
        for (std::size_t i = 1; i < messages.size(); ++i)
            REQUIRE(receiver.add(*decode_state_chunk(messages[i])));
        auto extra = *decode_state_chunk(messages[3]);
        extra.offset = static_cast<std::uint32_t>(p.compressed->size());
        CHECK_FALSE(receiver.add(extra));  // beyond the declared size
    }
}
