#include "netplay/server/chat_room.h"

#include <algorithm>

#include "netplay/base/safe_text.h"
#include "netplay/server/server_tuning.h"

namespace framelock::netplay {

bool ChatRoom::take_token(ChatRecord& record, Micros now) {
    using server_tuning::kChatBurst;
    using server_tuning::kChatRefillUs;
    if (record.m_refilled_at < 0) {
        record.m_tokens = kChatBurst;
        record.m_refilled_at = now;
    } else if (now > record.m_refilled_at) {
        const Micros refills =
            std::min<Micros>((now - record.m_refilled_at) / kChatRefillUs, kChatBurst);
        record.m_tokens = std::min<int>(kChatBurst, record.m_tokens + static_cast<int>(refills));
        record.m_refilled_at += refills * kChatRefillUs;
        // A full bucket saves no time for later: the burst stays kChatBurst.
        if (record.m_tokens == kChatBurst) record.m_refilled_at = now;
    }
    if (record.m_tokens == 0) return false;
    --record.m_tokens;
    return true;
}

void ChatRoom::tell(ServerSlot& member, std::uint32_t frame, const std::string& why, Micros now) {
    ChatRecord& record = member.chat;
    if (record.m_told_at >= 0 && now - record.m_told_at < server_tuning::kChatRefillUs) return;
    record.m_told_at = now;
    m_transport.send(member.peer, Channel::kControl,
                     encode(ChatLine{frame, kChatFromServer, "", why}));
}

void ChatRoom::say(ServerSlot& member, int number, const ChatSay& say, Micros now,
                   std::uint32_t frame, std::span<const ServerSlot> players,
                   const std::vector<ServerSlot>& spectators) {
    ChatRecord& record = member.chat;
    if (!m_config.chat) {
        tell(member, frame, "chat is off on this server: your message was not sent", now);
        return;
    }
    const std::string text = safe_text(say.text, kMaxChatBytes);
    if (text.find_first_not_of(' ') == std::string::npos) return;
    if (!take_token(record, now)) {
        tell(member, frame,
             "not sent: " + std::to_string(server_tuning::kChatBurst) +
                 " messages at once at most, then one every " +
                 std::to_string(server_tuning::kChatRefillUs / 1'000'000) + " s",
             now);
        return;
    }
    ++m_relayed;
    const ChatLine line{frame, static_cast<std::uint8_t>(number), member.name, text};
    const std::vector<std::uint8_t> message = encode(line);
    for (const ServerSlot& slot : players) {
        if (slot.in_session() && !slot.away())
            m_transport.send(slot.peer, Channel::kControl, message);
    }
    for (const ServerSlot& spectator : spectators)
        m_transport.send(spectator.peer, Channel::kControl, message);
    if (m_events.room())
        m_events.emit({ServerEvent::Type::kChat, number, frame, 0, 0, chat_line_text(line)});
}

}  // namespace framelock::netplay
