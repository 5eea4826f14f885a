#include <catch2/catch.hpp>

#include <functional>

#include "netplay/crypto/datagram_seal.h"
#include "netplay/timing/loss_counter.h"
#include "netplay/wire/protocol.h"
#include "wire_fixtures.h"

using namespace framelock::netplay;

namespace {

// Every strict prefix of a valid message must be refused, and so must one extra byte.
template <class Decode>
void check_truncation_and_trailing(const std::vector<std::uint8_t>& bytes, Decode decode) {
    for (std::size_t n = 0; n < bytes.size(); ++n) {
        INFO("prefix of " << n << " of " << bytes.size() << " bytes");
        CHECK_FALSE(decode(std::span<const std::uint8_t>(bytes.data(), n)).has_value());
    }
    auto longer = bytes;
    longer.push_back(0);
    CHECK_FALSE(decode(longer).has_value());
    CHECK(decode(bytes).has_value());
}

SessionIdentity sample_identity() {
    return {"framelock-arcade", "1.0", 0x0123456789abcdefull, 0xfedcba9876543210ull, 60000};
}

}  // namespace

TEST_CASE("Hello round trip, truncation, wrong magic, foreign version", "[netplay][protocol]") {
    Hello m;
    m.requested_slot = 3;
    m.player_name = "ryu";
    m.content_name = "game.nes";
    m.identity = sample_identity();
    const auto bytes = encode(m);
    CHECK(bytes[0] == static_cast<std::uint8_t>(MsgId::kHello));
    CHECK(bytes[1] == 0x46);  // little-endian magic "FLCK": 'F' first
    auto d = decode_hello(bytes);
    REQUIRE(d);
    CHECK(d->requested_slot == 3);
    CHECK(d->player_name == "ryu");
    CHECK(d->content_name == "game.nes");
    CHECK(d->identity == sample_identity());
    check_truncation_and_trailing(bytes, decode_hello);

    auto bad_magic = bytes;
    bad_magic[1] ^= 0xff;
    CHECK_FALSE(decode_hello(bad_magic));
    // Another version: magic and version are still read, so the server can say so.
    Hello future = m;
    future.version = kProtocolVersion + 1;
    auto other = decode_hello(encode(future));
    REQUIRE(other);
    CHECK(other->version == kProtocolVersion + 1);
}

TEST_CASE("Control messages round trip and refuse truncation", "[netplay][protocol]") {
    Welcome w = test_welcome(2, 4, -123456789);
    auto wd = decode_welcome(encode(w));
    REQUIRE(wd);
    CHECK(wd->slot == 2);
    CHECK(wd->players == 4);
    CHECK(wd->server_time_us == -123456789);
    CHECK(wd->mode == SessionMode::kFrameLock);
    check_truncation_and_trailing(encode(w), decode_welcome);
    Welcome rollback = w;
    rollback.mode = SessionMode::kRollback;
    rollback.prediction_window = 8;
    auto rd = decode_welcome(encode(rollback));
    REQUIRE(rd);
    CHECK(rd->mode == SessionMode::kRollback);
    CHECK(rd->prediction_window == 8);
    auto bad_mode = encode(rollback);
    bad_mode[16] = 7;  // no such mode (after the id, slot, players, intervals and time)
    CHECK_FALSE(decode_welcome(bad_mode));
    // Spectators get slot 0, and only they do.
    Welcome watcher = w;
    watcher.slot = 0;
    watcher.role = Role::kSpectator;
    watcher.late = true;
    watcher.snapshot_interval = 120;
    auto wa = decode_welcome(encode(watcher));
    REQUIRE(wa);
    CHECK(wa->role == Role::kSpectator);
    CHECK(wa->late);
    CHECK(wa->snapshot_interval == 120);
    watcher.role = Role::kPlayer;
    CHECK_FALSE(decode_welcome(encode(watcher)));  // a player without a slot
    Welcome seated_watcher = w;
    seated_watcher.role = Role::kSpectator;
    CHECK_FALSE(decode_welcome(encode(seated_watcher)));
    CHECK_FALSE(decode_welcome(encode(test_welcome(5, 4, 0))));  // slot beyond players

    Reject r{RejectReason::kMismatch, "content: session plays a.nes, you have b.nes"};
    CHECK(decode_reject(encode(r))->message == r.message);
    check_truncation_and_trailing(encode(r), decode_reject);

    Start s{5'000'000'000ll, 16'666'667, 7, 3};
    auto sd = decode_start(encode(s));
    REQUIRE(sd);
    CHECK(sd->start_time_us == 5'000'000'000ll);
    CHECK(sd->frame_time_ns == 16'666'667u);
    CHECK(sd->delay == 7);
    check_truncation_and_trailing(encode(s), decode_start);
    CHECK_FALSE(decode_start(encode(Start{0, 10, 1, 2})));  // absurd frame time

    Bye b{ByeReason::kTimeout, "no data for 5.0 s"};
    CHECK(decode_bye(encode(b))->message == b.message);
    check_truncation_and_trailing(encode(b), decode_bye);

    PlayerLeft l{2, 1234, "bob: connection lost"};
    CHECK(decode_player_left(encode(l))->frame == 1234);
    check_truncation_and_trailing(encode(l), decode_player_left);
    CHECK_FALSE(decode_player_left(encode(PlayerLeft{9, 0, ""})));

    HashReport h{600, 0xdeadbeefcafef00dull, 3};
    CHECK(decode_hash_report(encode(h))->hash == h.hash);
    CHECK(decode_hash_report(encode(h))->generation == 3);
    check_truncation_and_trailing(encode(h), decode_hash_report);

    MovedBytes mv{600, 4096, false, {{16, 8}, {100, 4}}};
    auto mvd = decode_moved_bytes(encode(mv));
    REQUIRE(mvd);
    CHECK(mvd->frame == 600);
    CHECK(mvd->state_size == 4096);
    CHECK(mvd->ranges == mv.ranges);
    check_truncation_and_trailing(encode(mv), decode_moved_bytes);
    MovedBytes overflow{0, 4096, true, {}};
    CHECK(decode_moved_bytes(encode(overflow))->overflow);
    // Ranges out of order, overlapping, empty or beyond the largest state are malformed.
    CHECK_FALSE(decode_moved_bytes(encode(MovedBytes{0, 4096, false, {{100, 4}, {16, 8}}})));
    CHECK_FALSE(decode_moved_bytes(encode(MovedBytes{0, 4096, false, {{16, 8}, {20, 8}}})));
    CHECK_FALSE(decode_moved_bytes(encode(MovedBytes{0, 4096, false, {{16, 0}}})));
    CHECK_FALSE(decode_moved_bytes(encode(MovedBytes{0, 4096, false, {{kMaxStateBytes - 4, 8}}})));
    auto listed_overflow = encode(MovedBytes{0, 4096, false, {{16, 8}}});
    listed_overflow[9] = 1;  // overflow with ranges listed
    CHECK_FALSE(decode_moved_bytes(listed_overflow));

    EvidenceMask em{2, 1234, EvidenceKind::kState, {{16, 8}}};
    auto emd = decode_evidence_mask(encode(em));
    REQUIRE(emd);
    CHECK(emd->generation == 2);
    CHECK(emd->from_frame == 1234);
    CHECK(emd->kind == EvidenceKind::kState);
    CHECK(emd->ranges == em.ranges);
    check_truncation_and_trailing(encode(em), decode_evidence_mask);
    auto bad_kind = encode(em);
    bad_kind[7] = 2;  // no such evidence
    CHECK_FALSE(decode_evidence_mask(bad_kind));

    Desync ds{1200, 0b0100, {1, 2, 3}};
    auto dd = decode_desync(encode(ds));
    REQUIRE(dd);
    CHECK(dd->hashes == std::vector<std::uint64_t>{1, 2, 3});
    check_truncation_and_trailing(encode(ds), decode_desync);

    ClientStats cs{100, 3, 1000, 50, 12, 70'000, 0, 2'430};
    cs.up_100us = 412;
    cs.down_100us = 65535;
    CHECK(decode_client_stats(encode(cs))->down_loss_permille == 12);
    CHECK(decode_client_stats(encode(cs))->rerun_frame_us == 2'430);
    CHECK(decode_client_stats(encode(cs))->down_lost == 70'000u);
    CHECK(decode_client_stats(encode(cs))->up_100us == 412);
    CHECK(decode_client_stats(encode(cs))->down_100us == 65535);
    check_truncation_and_trailing(encode(cs), decode_client_stats);

    ModeChange mc{SessionMode::kFrameLock, 1260, "a desync at frame 1020 (slot(s) 2)"};
    auto mcd = decode_mode_change(encode(mc));
    REQUIRE(mcd);
    CHECK(mcd->mode == SessionMode::kFrameLock);
    CHECK(mcd->frame == 1260);
    CHECK(mcd->reason == mc.reason);
    check_truncation_and_trailing(encode(mc), decode_mode_change);
    auto no_mode = encode(mc);
    no_mode[1] = 3;  // no such mode
    CHECK_FALSE(decode_mode_change(no_mode));
    CHECK(peek_id(encode(mc)) == MsgId::kModeChange);
    FrameLockFrom fl{1275};
    CHECK(decode_frame_lock_from(encode(fl))->frame == 1275);
    check_truncation_and_trailing(encode(fl), decode_frame_lock_from);
    CHECK(peek_id(encode(fl)) == MsgId::kFrameLockFrom);

    ChatSay say{"gg"};
    CHECK(decode_chat_say(encode(say))->text == "gg");
    check_truncation_and_trailing(encode(say), decode_chat_say);
    CHECK(peek_id(encode(say)) == MsgId::kChatSay);
    // A longer text is cut by the encoder; one longer on the wire is refused.
    CHECK(decode_chat_say(encode(ChatSay{std::string(kMaxChatWireBytes + 1, 'x')}))->text.size() ==
          kMaxChatWireBytes);
    auto too_long = encode(ChatSay{std::string(kMaxChatWireBytes, 'x')});
    too_long[1] = static_cast<std::uint8_t>((kMaxChatWireBytes + 1) & 0xff);  // u16 length
    too_long[2] = static_cast<std::uint8_t>((kMaxChatWireBytes + 1) >> 8);
    too_long.push_back('x');
    CHECK_FALSE(decode_chat_say(too_long));
    ChatLine line{4200, 2, "bob", "well played"};
    auto lined = decode_chat_line(encode(line));
    REQUIRE(lined);
    CHECK(lined->frame == 4200);
    CHECK(lined->from_slot == 2);
    CHECK(lined->from == "bob");
    CHECK(lined->text == "well played");
    check_truncation_and_trailing(encode(line), decode_chat_line);
    CHECK(peek_id(encode(line)) == MsgId::kChatLine);
    CHECK(decode_chat_line(encode(ChatLine{1, kChatFromServer, "", "not sent"})));
    CHECK(decode_chat_line(encode(ChatLine{1, 0, "sam", "a spectator's"})));
    CHECK_FALSE(decode_chat_line(encode(ChatLine{1, kMaxPlayers + 1, "x", "no such slot"})));
}

TEST_CASE("ClientInput run-length codes inputs and rejects inconsistent runs",
          "[netplay][protocol]") {
    ClientInput m;
    m.seq = 250;
    m.confirmed_ack = 65535;
    m.latency_100us = 1280;
    m.late_ms = 37;
    m.echo_seq = 201;
    m.echo_hold_10us = 1530;
    m.first_frame = 65530;
    m.inputs = {1, 1, 1, 0x0100, 0x0100, 0, 0xffff};
    const auto bytes = encode(m);
    auto d = decode_client_input(bytes);
    REQUIRE(d);
    CHECK(d->inputs == m.inputs);
    CHECK(d->first_frame == 65530);
    CHECK(d->seq == 250);
    CHECK(d->late_ms == 37);
    CHECK(d->echo_seq == 201);
    CHECK(d->echo_hold_10us == 1530);
    check_truncation_and_trailing(bytes, decode_client_input);
    // 4 runs for 7 words: 11 bytes header (confirmed_ack a byte from first_frame) + 1 count
    // + 4 * 3 (the runs end where they add up to the count: no run count).
    CHECK(bytes.size() == 1 + 1 + 2 + 1 + 2 + 1 + 1 + 2 + 1 + 4 * 3);

    // A run that claims more words than the count: refused.
    auto bad = bytes;
    bad[11] = 2;  // frame count 7 -> 2
    CHECK_FALSE(decode_client_input(bad));
    // An acknowledgement far from first_frame travels whole, after an escape byte.
    for (const int ack : {65530 - 128, 65530 + 128 - 65536, 1000}) {
        m.confirmed_ack = static_cast<std::uint16_t>(ack);
        const auto far = encode(m);
        CHECK(far.size() == bytes.size() + 2);
        CHECK(decode_client_input(far)->confirmed_ack == ack);
        check_truncation_and_trailing(far, decode_client_input);
    }
    m.confirmed_ack = 65530 + 127 - 65536;  // past the wrap: still near
    CHECK(encode(m).size() == bytes.size());
    CHECK(decode_client_input(encode(m))->confirmed_ack == 65530 + 127 - 65536);
    // 300 equal words need two runs (255 + 45), and a count over 255 is cut to the message cap.
    ClientInput many;
    many.inputs.assign(200, 0x0010);
    CHECK(decode_client_input(encode(many))->inputs.size() == 200);
}

TEST_CASE("ServerUpdate round trip with schedule and every slot", "[netplay][protocol]") {
    ServerUpdate m;
    m.seq = 9;
    m.server_time = 123;
    m.echo_seq = 45;
    m.echo_hold_10us = 78;
    m.input_ack = 100;
    m.schedule = {{90, 6}, {120, 8}};
    m.first_frame = 95;
    m.players = 8;
    m.present = 0b10110101;
    m.copies = 2;
    for (int f = 0; f < 5; ++f) {
        InputFrame frame;
        for (int p = 0; p < 8; ++p)
            frame.pads[p] = static_cast<InputWord>((p * 7 + f / 2) & 0xffff);
        m.frames.push_back(frame);
    }
    const auto bytes = encode(m);
    auto d = decode_server_update(bytes);
    REQUIRE(d);
    CHECK(d->frames == m.frames);
    CHECK(d->schedule == m.schedule);
    CHECK(d->players == 8);
    CHECK(d->present == m.present);
    CHECK(d->copies == 2);
    CHECK(d->tails.empty());
    CHECK(d->input_ack == 100);
    check_truncation_and_trailing(bytes, decode_server_update);
    // 14 bytes of header (server_time's low 24 bits; input_ack a byte from first_frame;
    // players, schedule length,
    // copies, whether tails follow and the path floor in two bytes; then who is present), the
    // schedule, the frame count, then each slot's 3 runs (no run count: they end where they
    // add up to the frame count).
    CHECK(bytes.size() == 14 + 2 * 5 + 1 + 8 * 3 * 3);
    // Every slot present: no present byte. A path floor of 15 frames or more: a byte of its
    // own.
    for (const std::uint8_t floor : {0, 1, 14, 15, 200}) {
        ServerUpdate all = m;
        all.present = 0xff;
        all.path_floor = floor;
        const auto packed = encode(all);
        CHECK(packed.size() == bytes.size() - 1 + (floor >= 15 ? 1 : 0));
        const auto p = decode_server_update(packed);
        REQUIRE(p);
        CHECK(p->present == 0xff);
        CHECK(p->path_floor == floor);
        check_truncation_and_trailing(packed, decode_server_update);
    }
    ServerUpdate few = m;  // two players, both present
    few.players = 2;
    few.present = 0b11;
    for (auto& frame : few.frames) frame.pads = {frame.pads[0], frame.pads[1]};
    CHECK(decode_server_update(encode(few))->present == 0b11);
    few.present = 0b01;
    CHECK(decode_server_update(encode(few))->present == 0b01);

    // Rollback: every slot's inputs beyond the confirmed frames, of their own lengths.
    m.tails.assign(8, {});
    m.tails[1] = {1, 1, 2};
    m.tails[6] = {0x0100};
    const auto with_tails = encode(m);
    auto t = decode_server_update(with_tails);
    REQUIRE(t);
    CHECK(t->tails == m.tails);
    CHECK(t->frames == m.frames);
    check_truncation_and_trailing(with_tails, decode_server_update);
    m.tails.resize(3);  // a tail count that is neither 0 nor the player count
    CHECK_FALSE(decode_server_update(encode(m)));
    m.tails.clear();
    m.copies = 0;  // no copy at all, or more than the protocol allows: refused
    CHECK_FALSE(decode_server_update(encode(m)));
    m.copies = kMaxCopies + 1;
    CHECK_FALSE(decode_server_update(encode(m)));
}

TEST_CASE("A clean frame-lock frame fits RetroArch's 144 B per link with the seal",
          "[netplay][protocol]") {
    // One ClientInput up and one ServerUpdate down per frame on a clean link: one new input,
    // two players present, nothing to schedule, one copy (bench_bandwidth --rtt 0 measures
    // the same, plus the odd acknowledgement and copy).
    ClientInput up;
    up.seq = 7;
    up.first_frame = 1001;
    up.confirmed_ack = 998;
    up.latency_100us = 12;
    up.echo_hold_10us = 150;
    up.inputs = {0x0010};
    ServerUpdate down;
    down.seq = 7;
    down.server_time = 0x12345678;
    down.echo_hold_10us = 20;
    down.first_frame = 999;
    down.input_ack = 1001;
    down.players = 2;
    down.present = 0b11;
    down.path_floor = 1;
    InputFrame frame;
    frame.pads[0] = 0x0010;
    frame.pads[1] = 0x0100;
    down.frames = {frame};
    // Per datagram: the seal's counter byte and tag, ENet's header (peer ID 2, CRC32 4, an
    // unreliable send command 8) and IPv4 + UDP.
    constexpr std::size_t kPerDatagram = kSealOverheadBytes + 14 + 28;
    const std::size_t link = encode(up).size() + encode(down).size() + 2 * kPerDatagram;
    INFO("up " << encode(up).size() << " B, down " << encode(down).size() << " B, link " << link
               << " B per frame");
    CHECK(link <= 140);  // a margin under 144 for acknowledgements and copies
}

TEST_CASE("Unknown ids and empty input are not messages", "[netplay][protocol]") {
    CHECK_FALSE(peek_id({}).has_value());
    const std::uint8_t unknown[] = {0x7f, 1, 2, 3};
    CHECK_FALSE(peek_id(unknown).has_value());
    const std::uint8_t hash_id[] = {0x20};
    CHECK(peek_id(hash_id) == MsgId::kHashReport);
    CHECK_FALSE(decode_hash_report(hash_id));
    // A message of one kind never decodes as another.
    CHECK_FALSE(decode_welcome(encode(HashReport{1, 2})));
}

TEST_CASE("16-bit frames and 32-bit times expand across wraparound", "[netplay][protocol]") {
    CHECK(expand_frame(5, Frame(0x0001fff0u)).value() == 0x00020005u);
    CHECK(expand_frame(0xfff0, Frame(0x00020005u)).value() == 0x0001fff0u);
    CHECK(expand_frame(0xffff, Frame(0)).value() == 0xffffffffu);  // "nothing held yet" = frame -1
    CHECK(expand_frame(10, Frame(0xfffffff0u)).value() == 10u);    // across the 32-bit wrap
    CHECK(expand_time(0x000010u, 0x1fffffff0ll) == 0x200000010ll);
    CHECK(expand_time(0xfffff0u, 0x200000010ll) == 0x1fffffff0ll);
    CHECK(expand_time(0x345678u, 0x7f345600ll) == 0x7f345678ll);
    CHECK(expand_time(0x345600u, 0x7f345678ll) == 0x7f345600ll);
    // Only the low 24 bits count: 8 s either way of the reference expand right.
    CHECK(expand_time(static_cast<std::uint32_t>(0x12345678ll + 8'000'000), 0x12345678ll) ==
          0x12345678ll + 8'000'000);
    CHECK(expand_time(static_cast<std::uint32_t>(0x12345678ll - 8'000'000), 0x12345678ll) ==
          0x12345678ll - 8'000'000);
}

TEST_CASE("LossCounter: a late datagram is not lost, a duplicate counts once, gaps are lost",
          "[protocol]") {
    using framelock::netplay::LossCounter;
    LossCounter c;
    CHECK(c.record(250));
    CHECK(c.record(252));  // 251 missing for now
    CHECK(c.lost() == 1);
    CHECK_FALSE(c.record(251));  // it was only late
    CHECK(c.lost() == 0);
    CHECK_FALSE(c.record(251));  // duplicate
    CHECK_FALSE(c.record(252));
    CHECK(c.received() == 3);
    CHECK(c.record(3));  // wraps: 253..255, 0..2 missing
    CHECK(c.lost() == 6);
    CHECK(c.received() == 4);
    CHECK(c.rate() == Approx(0.6));
    CHECK_FALSE(c.record(180));  // 79 behind: too old to tell, ignored
    CHECK(c.received() == 4);
}

TEST_CASE("Clock readings beyond +-2^60 us are malformed", "[netplay][protocol]") {
    // Found by fuzz_client: a Welcome or Start carrying a time near the int64 limits made
    // the client's clock arithmetic overflow.
    Welcome w = test_welcome(1, 2, kMaxClockUs);
    CHECK(decode_welcome(encode(w)));
    w.server_time_us = -kMaxClockUs;
    CHECK(decode_welcome(encode(w)));
    w.server_time_us = kMaxClockUs + 1;
    CHECK_FALSE(decode_welcome(encode(w)));
    w.server_time_us = INT64_MIN;
    CHECK_FALSE(decode_welcome(encode(w)));
    Start s{kMaxClockUs, 16'666'667, 2, 2};
    CHECK(decode_start(encode(s)));
    s.start_time_us = -kMaxClockUs - 1;
    CHECK_FALSE(decode_start(encode(s)));
    s.start_time_us = INT64_MAX;
    CHECK_FALSE(decode_start(encode(s)));
}

TEST_CASE("The join handshake's messages round trip: Challenge, proofs, token, clock",
          "[netplay][protocol][trust]") {
    Challenge c;
    c.nonce.fill(0x11);
    c.salt.fill(0x22);
    c.kdf = {3, 4096};
    c.player_password = true;
    const auto cb = encode(c);
    auto cd = decode_challenge(cb);
    REQUIRE(cd);
    CHECK(cd->nonce == c.nonce);
    CHECK(cd->salt == c.salt);
    CHECK(cd->kdf == c.kdf);
    CHECK(cd->player_password);
    CHECK_FALSE(cd->spectator_password);
    check_truncation_and_trailing(cb, decode_challenge);
    Challenge future = c;
    future.version = kProtocolVersion + 1;  // read no further than the version
    REQUIRE(decode_challenge(encode(future)));
    CHECK(decode_challenge(encode(future))->version == kProtocolVersion + 1);

    Hello h;
    h.player_name = "bob";
    h.identity = sample_identity();
    h.password_proof = Proof{};
    h.password_proof->fill(0x33);
    h.rejoin_proof = Proof{};
    h.rejoin_proof->fill(0x44);
    const auto hb = encode(h);
    auto hd = decode_hello(hb);
    REQUIRE(hd);
    CHECK(hd->password_proof == h.password_proof);
    CHECK(hd->rejoin_proof == h.rejoin_proof);
    check_truncation_and_trailing(hb, decode_hello);
    Hello plain = h;
    plain.password_proof.reset();
    plain.rejoin_proof.reset();
    CHECK(encode(plain).size() == hb.size() - 2 * kProofBytes);
    auto bad_flag = encode(plain);
    bad_flag[bad_flag.size() - kBoxKeyBytes - kKxKeyBytes - 1] = 2;  // a proof: 1 or 0
    CHECK_FALSE(decode_hello(bad_flag));

    Welcome w = test_welcome(2, 2, 0);
    w.name = "bob (2)";
    w.sealed_token.fill(0x55);
    auto wd = decode_welcome(encode(w));
    REQUIRE(wd);
    CHECK(wd->name == "bob (2)");
    CHECK(wd->sealed_token == w.sealed_token);

    ClientStats s;
    s.clock_us = -5'000'000;
    CHECK(decode_client_stats(encode(s))->clock_us == -5'000'000);
    s.clock_us = kMaxClockUs + 1;
    CHECK_FALSE(decode_client_stats(encode(s)));
}
