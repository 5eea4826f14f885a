// A player's side of the session's chat (the server's side: netplay/server/chat_room.h). The
// lines the server relays are logged (what a headless client prints), recorded into the
// replay, and kept for the window's overlay and history, a muted sender's left out of the log
// and the window (the replay keeps every line: muting is this player's view). What the player
// says comes from the window's chat line or a script (--say FRAME:TEXT); a typed line may be
// a command instead: /mute NAME, /unmute NAME, /muted.
// Threading: none (the session's loop).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <set>
#include <string>
#include <vector>

#include "netplay/base/result.h"
#include "netplay/client/client.h"
#include "netplay/interfaces/clock.h"
#include "netplay/wire/protocol.h"

namespace framelock::frontend {

class ReplayWriter;

// A line a script says once its client has run `frame` frames (--say FRAME:TEXT).
struct ScriptedChat {
    std::uint32_t frame = 0;
    std::string text;
};

// "FRAME:TEXT" as --say takes it; kUsage error naming what is wrong.
Result<ScriptedChat> parse_scripted_chat(const std::string& spec);

// One line as the window shows it: the server's line and when it arrived here.
struct ChatEntry {
    netplay::ChatLine line;
    netplay::Micros at = 0;
};

class SessionChat {
  public:
    static constexpr std::size_t kHistory = 200;  // lines the window can scroll back through

    SessionChat(std::vector<std::string> muted, std::vector<ScriptedChat> script);

    // Takes the lines the client has: each logged (unless muted), recorded (`replay` may be
    // null), kept (unless muted). Says the scripted lines whose frame has come.
    void poll(netplay::Client& client, ReplayWriter* replay, netplay::Micros now);
    // What the player typed in the window's chat line: a line said, or a command run. The
    // answer to show the player (a command's, or why nothing was said); empty when said.
    std::string submit(netplay::Client& client, const std::string& typed);

    bool muted(const std::string& name) const { return m_muted.count(name) != 0; }
    // The lines kept, oldest first, and a count that moves whenever they change.
    const std::deque<ChatEntry>& history() const { return m_history; }
    std::uint64_t changes() const { return m_changes; }

  private:
    void keep(netplay::ChatLine line, netplay::Micros now);

    std::set<std::string> m_muted;
    std::vector<ScriptedChat> m_script;  // by frame, the next at m_next_scripted
    std::size_t m_next_scripted = 0;
    std::deque<ChatEntry> m_history;
    std::uint64_t m_changes = 0;
};

}  // namespace framelock::frontend
