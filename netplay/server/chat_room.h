// The server's chat: a member's message (a player's or a spectator's) made safe text, held to
// the member's rate and relayed to every member as one ChatLine, the sender's name and slot as
// the server knows them (never as the sender claims). The line carries the server's confirmed
// frame, so a replay keeps it where it was said.
//
// A member may say server_tuning::kChatBurst messages at once and one more each
// kChatRefillUs; what it says beyond is dropped, and it hears why (a ChatLine from the
// server, to it alone) at most once each kChatRefillUs. With chat off (ServerConfig::chat)
// every message is dropped, and the Welcome said so. An empty message (nothing but spaces
// once safe) is dropped without a word. The part's record of each member is its ChatRecord
// (server_slot.h).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "netplay/interfaces/clock.h"
#include "netplay/interfaces/transport.h"
#include "netplay/server/server_config.h"
#include "netplay/server/server_events.h"
#include "netplay/server/server_slot.h"
#include "netplay/wire/protocol.h"

namespace framelock::netplay {

class ChatRoom {
  public:
    // All borrowed for the part's lifetime (the Server's own).
    ChatRoom(Transport& transport, const ServerConfig& config, ServerEvents& events)
        : m_transport(transport), m_config(config), m_events(events) {}

    // `member` (player slot `number`, or 0: a spectator) says `say` at `now`, the server's
    // confirmed frames `frame`: relayed to every member of `players` in the session and to
    // every spectator, or dropped (the sender told why, within its rate of notices).
    void say(ServerSlot& member, int number, const ChatSay& say, Micros now, std::uint32_t frame,
             std::span<const ServerSlot> players, const std::vector<ServerSlot>& spectators);

    std::uint64_t relayed() const { return m_relayed; }

  private:
    // Whether the member may say one more message at `now` (takes it from its bucket).
    static bool take_token(ChatRecord& record, Micros now);
    void tell(ServerSlot& member, std::uint32_t frame, const std::string& why, Micros now);

    Transport& m_transport;
    const ServerConfig& m_config;
    ServerEvents& m_events;
    std::uint64_t m_relayed = 0;
};

}  // namespace framelock::netplay
