// Desync bundle parsing (frontend/files/desync_bundle.h): a file a player hands to someone
// else. An input that starts with the FLDESYNC magic is a bundle as it is on disk (the two
// bundles of a real session's desync seed the corpus); any other input gets the magic in front
// and its CRC behind, so mutations reach the field parsers instead of dying at the CRC.
//
// What parses must survive a round trip: encoded again, it decodes to the same fields, and
// comparing it with itself finds nothing different.
#include <vector>

#include "frontend/app/synctest_bundle_compare.h"
#include "frontend/files/desync_bundle.h"
#include "netplay/wire/compression.h"
#include "netplay/wire/wire.h"
#include "tests/fuzz/fuzz_targets.h"

namespace framelock::fuzz {
namespace {

using Bytes = std::vector<std::uint8_t>;

bool same_regions(const std::vector<netplay::RegionCopy>& a,
                  const std::vector<netplay::RegionCopy>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a[i].name != b[i].name || a[i].start != b[i].start || a[i].bytes != b[i].bytes)
            return false;
    }
    return true;
}

void check_round_trip(const frontend::DesyncBundle& b) {
    const auto again = frontend::decode_desync_bundle(frontend::encode_desync_bundle(b));
    FUZZ_CHECK(again.ok());
    const frontend::DesyncBundle& r = again.value();
    FUZZ_CHECK(r.identity == b.identity);
    FUZZ_CHECK(r.content_name == b.content_name);
    FUZZ_CHECK(r.session == b.session && r.mode == b.mode && r.delay == b.delay);
    FUZZ_CHECK(r.slot == b.slot && r.players == b.players);
    FUZZ_CHECK(r.desync_frame == b.desync_frame && r.state_frame == b.state_frame);
    FUZZ_CHECK(r.own_state == b.own_state && same_regions(r.own_regions, b.own_regions));
    FUZZ_CHECK(r.other == b.other && r.other_note == b.other_note);
    FUZZ_CHECK(r.other_state == b.other_state && same_regions(r.other_regions, b.other_regions));
    FUZZ_CHECK(r.region_diffs.size() == b.region_diffs.size());
    FUZZ_CHECK(r.inputs_from == b.inputs_from && r.inputs == b.inputs);
    // A bundle compared with itself: the same desync, nothing different (or a usage error
    // when it holds no state to compare).
    const auto compared = frontend::compare_bundles(b, &b);
    FUZZ_CHECK(!compared.ok() || !compared.value().differ);
}

}  // namespace

int fuzz_desync_bundle(const std::uint8_t* data, std::size_t size) {
    std::span<const std::uint8_t> file(data, size);
    Bytes framed;
    if (!frontend::is_desync_bundle(file)) {
        netplay::WireWriter w;
        w.bytes({reinterpret_cast<const std::uint8_t*>(frontend::kDesyncBundleMagic), 8});
        w.u16(frontend::kDesyncBundleVersion);
        w.bytes(file);
        w.u32(netplay::crc32_of(w.data()));
        framed = w.take();
        file = framed;
    }
    const auto bundle = frontend::decode_desync_bundle(file);
    if (!bundle) {
        FUZZ_CHECK(!bundle.error().message.empty());
        return 0;
    }
    check_round_trip(bundle.value());
    return 0;
}

}  // namespace framelock::fuzz
