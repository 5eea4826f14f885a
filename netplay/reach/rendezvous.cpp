#include "netplay/reach/rendezvous.h"

#include <algorithm>
#include <charconv>

#include "netplay/wire/wire.h"

namespace framelock::netplay {
namespace {

enum class Type : std::uint8_t {
    kProbe = 1,
    kProbeReply = 2,
    kHostRegister = 3,
    kHostRegistered = 4,
    kJoinerHello = 5,
    kJoinerAck = 6,
};

// Bytes a Probe carries beyond its nonce, so that its reply (which adds an endpoint) is no
// larger than the probe.
constexpr std::size_t kProbePadding = 6;

void put(WireWriter& out, const Endpoint& e) {
    out.u32(e.ipv4);
    out.u16(e.port);
}
Endpoint get_endpoint(WireReader& in) {
    Endpoint e;
    e.ipv4 = in.u32();
    e.port = in.u16();
    return e;
}
void put(WireWriter& out, const RendezvousSecret& s) {
    out.bytes(s);
}
RendezvousSecret get_secret(WireReader& in) {
    RendezvousSecret s{};
    const auto bytes = in.bytes(s.size());
    if (bytes.size() == s.size()) std::copy(bytes.begin(), bytes.end(), s.begin());
    return s;
}

Result<RendezvousMessage> malformed(const std::string& why) {
    return make_error(ErrorCode::kProtocol, "malformed rendezvous datagram: " + why);
}

// Zeros up to kRendezvousRequestBytes: a request as large as what it may draw.
void pad_request(WireWriter& out) {
    while (out.data().size() < kRendezvousRequestBytes) out.u8(0);
}

// Reads a request's padding: exactly up to kRendezvousRequestBytes (`read_so_far` counts the
// magic too).
void skip_padding(WireReader& in, std::size_t read_so_far) {
    if (read_so_far > kRendezvousRequestBytes) {
        in.fail();
        return;
    }
    in.bytes(kRendezvousRequestBytes - read_so_far);
}

}  // namespace

std::string Endpoint::to_string() const {
    return std::to_string(ipv4 >> 24) + "." + std::to_string((ipv4 >> 16) & 0xff) + "." +
           std::to_string((ipv4 >> 8) & 0xff) + "." + std::to_string(ipv4 & 0xff) + ":" +
           std::to_string(port);
}

Result<Endpoint> parse_endpoint(const std::string& text) {
    const auto invalid = [&text](const std::string& why) -> Result<Endpoint> {
        return make_error(ErrorCode::kUsage, "invalid endpoint '" + text + "': " + why);
    };
    const std::size_t colon = text.rfind(':');
    if (colon == std::string::npos) return invalid("expected a.b.c.d:port");
    Endpoint e;
    const char* p = text.data();
    const char* host_end = text.data() + colon;
    for (int i = 0; i < 4; ++i) {
        unsigned octet = 0;
        auto [next, ec] = std::from_chars(p, host_end, octet);
        if (ec != std::errc{} || octet > 255 || next == p) return invalid("not an IPv4 address");
        e.ipv4 = (e.ipv4 << 8) | octet;
        p = next;
        if (i < 3) {
            if (p == host_end || *p != '.') return invalid("not an IPv4 address");
            ++p;
        }
    }
    if (p != host_end) return invalid("not an IPv4 address");
    unsigned port = 0;
    const char* port_end = text.data() + text.size();
    auto [next, ec] = std::from_chars(host_end + 1, port_end, port);
    if (ec != std::errc{} || next != port_end || port == 0 || port > 65535)
        return invalid("the port must be 1-65535");
    e.port = static_cast<std::uint16_t>(port);
    return e;
}

std::string secret_to_hex(const RendezvousSecret& secret) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    for (std::uint8_t b : secret) {
        out += kHex[b >> 4];
        out += kHex[b & 15];
    }
    return out;
}

std::optional<RendezvousSecret> secret_from_hex(const std::string& hex) {
    if (hex.size() != 2 * kRendezvousSecretBytes) return std::nullopt;
    RendezvousSecret s{};
    for (std::size_t i = 0; i < s.size(); ++i) {
        unsigned v = 0;
        auto [next, ec] = std::from_chars(hex.data() + 2 * i, hex.data() + 2 * i + 2, v, 16);
        if (ec != std::errc{} || next != hex.data() + 2 * i + 2) return std::nullopt;
        s[i] = static_cast<std::uint8_t>(v);
    }
    return s;
}

bool is_rendezvous(std::span<const std::uint8_t> datagram) {
    return datagram.size() >= kRendezvousMagic.size() &&
           std::equal(kRendezvousMagic.begin(), kRendezvousMagic.end(), datagram.begin());
}

std::vector<std::uint8_t> encode_rendezvous(const RendezvousMessage& message) {
    WireWriter out;
    out.bytes(kRendezvousMagic);
    out.u8(kRendezvousVersion);
    std::visit(
        [&out](const auto& m) {
            using T = std::decay_t<decltype(m)>;
            if constexpr (std::is_same_v<T, Probe>) {
                out.u8(static_cast<std::uint8_t>(Type::kProbe));
                out.u64(m.nonce);
                for (std::size_t i = 0; i < kProbePadding; ++i) out.u8(0);
            } else if constexpr (std::is_same_v<T, ProbeReply>) {
                out.u8(static_cast<std::uint8_t>(Type::kProbeReply));
                out.u64(m.nonce);
                put(out, m.seen);
            } else if constexpr (std::is_same_v<T, HostRegister>) {
                out.u8(static_cast<std::uint8_t>(Type::kHostRegister));
                put(out, m.key);
                out.u64(m.nonce);
                pad_request(out);
            } else if constexpr (std::is_same_v<T, HostRegistered>) {
                out.u8(static_cast<std::uint8_t>(Type::kHostRegistered));
                out.u64(m.nonce);
                put(out, m.seen);
                const std::size_t n = std::min(m.punch_to.size(), kMaxPunchTargets);
                out.u8(static_cast<std::uint8_t>(n));
                for (std::size_t i = m.punch_to.size() - n; i < m.punch_to.size(); ++i)
                    put(out, m.punch_to[i]);
                out.string(m.move_to, kMaxMoveTo);
            } else if constexpr (std::is_same_v<T, JoinerHello>) {
                out.u8(static_cast<std::uint8_t>(Type::kJoinerHello));
                put(out, m.ticket);
                pad_request(out);
            } else if constexpr (std::is_same_v<T, JoinerAck>) {
                out.u8(static_cast<std::uint8_t>(Type::kJoinerAck));
                put(out, m.seen);
                put(out, m.host);
            }
        },
        message);
    return out.take();
}

Result<RendezvousMessage> decode_rendezvous(std::span<const std::uint8_t> datagram) {
    if (!is_rendezvous(datagram)) return malformed("no FLRV magic");
    WireReader in(datagram.subspan(kRendezvousMagic.size()));
    const std::uint8_t version = in.u8();
    if (in.failed()) return malformed("no version");
    if (version != kRendezvousVersion) {
        return malformed("version " + std::to_string(version) + ", this side speaks " +
                         std::to_string(kRendezvousVersion));
    }
    const std::uint8_t type = in.u8();
    RendezvousMessage message;
    switch (static_cast<Type>(type)) {
        case Type::kProbe: {
            Probe m;
            m.nonce = in.u64();
            in.bytes(kProbePadding);
            message = m;
            break;
        }
        case Type::kProbeReply: {
            ProbeReply m;
            m.nonce = in.u64();
            m.seen = get_endpoint(in);
            message = m;
            break;
        }
        case Type::kHostRegister: {
            HostRegister m;
            m.key = get_secret(in);
            m.nonce = in.u64();
            skip_padding(in, 4 + 1 + 1 + kRendezvousSecretBytes + 8);
            message = m;
            break;
        }
        case Type::kHostRegistered: {
            HostRegistered m;
            m.nonce = in.u64();
            m.seen = get_endpoint(in);
            const std::size_t n = in.u8();
            if (n > kMaxPunchTargets) return malformed(std::to_string(n) + " punch targets");
            for (std::size_t i = 0; i < n && !in.failed(); ++i)
                m.punch_to.push_back(get_endpoint(in));
            m.move_to = in.string(kMaxMoveTo);
            message = std::move(m);
            break;
        }
        case Type::kJoinerHello:
            message = JoinerHello{get_secret(in)};
            skip_padding(in, 4 + 1 + 1 + kRendezvousSecretBytes);
            break;
        case Type::kJoinerAck: {
            JoinerAck m;
            m.seen = get_endpoint(in);
            m.host = get_endpoint(in);
            message = m;
            break;
        }
        default:
            return malformed("unknown type " + std::to_string(type));
    }
    if (!in.done()) return malformed(in.failed() ? "too short" : "trailing bytes");
    return message;
}

}  // namespace framelock::netplay
