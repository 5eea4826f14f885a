// The guard of a server's ENet socket against connections that never speak (a flood of
// half-open connections): it judges each connection request against the peers an address
// holds silent already and, when the socket has no free slot, names the silent peer whose
// slot the newcomer gets. It counts what it refused and evicted per source address.
// EnetTransport runs it from its intercept (EnetOptions::max_silent_per_address); like it,
// this header keeps <enet/enet.h> out. Threading: none, like its transport.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "netplay/interfaces/clock.h"

struct _ENetAddress;
struct _ENetHost;
struct _ENetPeer;

namespace framelock::netplay {

class EnetGuard {
  public:
    struct Counts {
        std::uint64_t refused = 0;  // connection requests dropped unread
        std::uint64_t evicted = 0;  // silent peers whose slot went to a newcomer
    };
    // More addresses than this in one report are summed under "other addresses".
    static constexpr std::size_t kMaxAddresses = 1024;

    explicit EnetGuard(int max_silent_per_address) : m_limit(max_silent_per_address) {}

    // The connectID (raw, as ENet compares it) of an ENet connection request: a datagram to no
    // peer yet whose first command is CONNECT; nullopt for any other datagram. `checksum`: the
    // datagrams carry ENet's CRC32 after the header.
    static std::optional<std::uint32_t> connect_request_id(std::span<const std::uint8_t> datagram,
                                                           bool checksum);

    // What becomes of a connection request from `from`. `silent(peer)` says whether a slot in
    // use holds a silent peer (no message yet, or closed), `since(peer)` since when (the
    // smallest value for one ENet is still accepting). Counts what it decides.
    struct Verdict {
        bool admit = true;           // false: drop the request unread
        _ENetPeer* evict = nullptr;  // reset this peer first: its slot is the newcomer's
    };
    Verdict judge(const _ENetHost& host, const _ENetAddress& from, std::uint32_t connect_id,
                  const std::function<bool(const _ENetPeer&)>& silent,
                  const std::function<Micros(const _ENetPeer&)>& since);

    // Per source address ("a.b.c.d"), what it did since the last call.
    std::map<std::string, Counts> take_report() { return std::exchange(m_report, {}); }
    // Since the guard was made.
    Counts totals() const { return m_totals; }

  private:
    void count(std::uint32_t host, bool evicted);

    int m_limit;
    std::map<std::string, Counts> m_report;
    Counts m_totals;
};

}  // namespace framelock::netplay
