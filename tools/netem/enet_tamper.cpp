#include "tools/netem/enet_tamper.h"

#include <zlib.h>

#include <cstring>

namespace framelock::netem {
namespace {

constexpr std::uint8_t kCommandMask = 0x0f;
constexpr std::uint8_t kConnect = 2;
constexpr std::uint8_t kSendUnsequenced = 9;
constexpr std::size_t kCommandHeader = 4;      // command, channel, reliable sequence number
constexpr std::size_t kConnectIdOffset = 36;   // in CONNECT, after its command header
constexpr std::size_t kUnsequencedHeader = 8;  // + unsequenced group, data length

std::uint16_t big16(const std::uint8_t* p) {
    return static_cast<std::uint16_t>((p[0] << 8) | p[1]);
}

constexpr std::size_t kConnectBytes = 48;  // the CONNECT command, header included

// Where the commands start: the peer ID, the sent time if flagged, the CRC32 if used.
std::size_t commands_at(std::span<const std::uint8_t> datagram, bool crc) {
    if (datagram.size() < 2) return datagram.size();
    return 2 + ((big16(datagram.data()) & 0x8000) ? 2 : 0) + (crc ? 4 : 0);
}

}  // namespace

void EnetTamper::observe_up(std::uint64_t client, std::span<const std::uint8_t> datagram) {
    for (const bool crc : {false, true}) {
        const std::size_t at = commands_at(datagram, crc);
        if (datagram.size() != at + kConnectBytes || (datagram[at] & kCommandMask) != kConnect)
            continue;
        Connection connection;
        std::memcpy(&connection.connect_id,
                    datagram.data() + at + kCommandHeader + kConnectIdOffset, 4);
        connection.crc = crc;
        m_connections[client] = connection;
        return;
    }
}

bool EnetTamper::tamper_up(std::uint64_t client, std::span<std::uint8_t> datagram) const {
    const auto found = m_connections.find(client);
    if (found == m_connections.end()) return false;
    const Connection& connection = found->second;
    const std::size_t at = commands_at(datagram, connection.crc);
    if (datagram.size() < at + kUnsequencedHeader + 1) return false;
    if ((datagram[at] & kCommandMask) != kSendUnsequenced) return false;
    const std::size_t length = big16(datagram.data() + at + 6);
    if (at + kUnsequencedHeader + length != datagram.size()) return false;  // one message only
    datagram.back() ^= 0x01;
    if (!connection.crc) return true;
    std::uint8_t* crc_field = datagram.data() + at - 4;
    std::memcpy(crc_field, &connection.connect_id, 4);
    const auto crc =
        static_cast<std::uint32_t>(crc32(0L, datagram.data(), static_cast<uInt>(datagram.size())));
    crc_field[0] = static_cast<std::uint8_t>(crc >> 24);
    crc_field[1] = static_cast<std::uint8_t>(crc >> 16);
    crc_field[2] = static_cast<std::uint8_t>(crc >> 8);
    crc_field[3] = static_cast<std::uint8_t>(crc);
    return true;
}

}  // namespace framelock::netem
