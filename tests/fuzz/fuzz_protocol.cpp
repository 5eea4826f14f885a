// Every wire message decoder (netplay/wire/protocol.h): an input is one datagram. peek_id names
// the decoder; whatever decodes must re-encode and decode to the same value (compared as its
// encoding, which writes every field), and every other decoder must refuse it. The
// rendezvous datagrams beside ENet (netplay/reach/rendezvous.h) go through their decoder too.
#include <vector>

#include "netplay/reach/rendezvous.h"
#include "netplay/wire/protocol.h"
#include "tests/fuzz/fuzz_targets.h"

namespace framelock::fuzz {
namespace {

using Bytes = std::vector<std::uint8_t>;
using netplay::MsgId;

// Decodes with `decode`; when it succeeds, checks the value survives encode -> decode.
// `canonical`: the message has one encoding per value, so re-encoding gives back the input
// (not so for run-length coded inputs, which may split a run, nor for a Hello of another
// protocol version, whose fields past the version are not read).
template <class Decode>
bool round_trip(std::span<const std::uint8_t> bytes, Decode decode, bool canonical = true) {
    const auto first = decode(bytes);
    if (!first) return false;
    const Bytes encoded = netplay::encode(*first);
    FUZZ_CHECK(!encoded.empty() && encoded[0] == bytes[0]);
    if (canonical) FUZZ_CHECK(Bytes(bytes.begin(), bytes.end()) == encoded);
    const auto second = decode(encoded);
    FUZZ_CHECK(second.has_value());
    FUZZ_CHECK(netplay::encode(*second) == encoded);
    return true;
}

}  // namespace

int fuzz_protocol(const std::uint8_t* data, std::size_t size) {
    const std::span<const std::uint8_t> bytes(data, size);
    const auto id = netplay::peek_id(bytes);
    FUZZ_CHECK(id.has_value() || size == 0 || netplay::peek_id(bytes.first(1)) == std::nullopt);
    // Every decoder sees every input: only the one named by the id byte may accept it.
    int accepted = 0;
    accepted += round_trip(bytes, netplay::decode_challenge, false);
    accepted += round_trip(bytes, netplay::decode_hello, false);
    accepted += round_trip(bytes, netplay::decode_welcome);
    accepted += round_trip(bytes, netplay::decode_reject);
    accepted += round_trip(bytes, netplay::decode_start);
    accepted += round_trip(bytes, netplay::decode_bye);
    accepted += round_trip(bytes, netplay::decode_player_left);
    accepted += round_trip(bytes, netplay::decode_client_input, false);
    accepted += round_trip(bytes, netplay::decode_server_update, false);
    accepted += round_trip(bytes, netplay::decode_hash_report);
    accepted += round_trip(bytes, netplay::decode_desync);
    accepted += round_trip(bytes, netplay::decode_client_stats);
    accepted += round_trip(bytes, netplay::decode_state_request);
    accepted += round_trip(bytes, netplay::decode_state_header);
    accepted += round_trip(bytes, netplay::decode_state_chunk);
    accepted += round_trip(bytes, netplay::decode_state_ack);
    accepted += round_trip(bytes, netplay::decode_resync_report);
    accepted += round_trip(bytes, netplay::decode_moved_bytes);
    accepted += round_trip(bytes, netplay::decode_evidence_mask);
    accepted += round_trip(bytes, netplay::decode_chat_say);
    accepted += round_trip(bytes, netplay::decode_chat_line);
    // The datagrams beside ENet (netplay/reach/rendezvous.h): whatever decodes survives
    // encode -> decode, and a decoded datagram is never longer encoded than it came (a
    // probe's padding is not read back, so the encoding is no copy of the input).
    if (const auto rendezvous = netplay::decode_rendezvous(bytes)) {
        const Bytes encoded = netplay::encode_rendezvous(rendezvous.value());
        FUZZ_CHECK(encoded.size() <= size);
        const auto again = netplay::decode_rendezvous(encoded);
        FUZZ_CHECK(static_cast<bool>(again));
        FUZZ_CHECK(netplay::encode_rendezvous(again.value()) == encoded);
    }
    FUZZ_CHECK(accepted <= 1);
    FUZZ_CHECK(accepted == 0 || id.has_value());
    return 0;
}

}  // namespace framelock::fuzz
