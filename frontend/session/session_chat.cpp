#include "frontend/session/session_chat.h"

#include <algorithm>
#include <charconv>

#include "common/log.h"
#include "frontend/files/replay_file.h"
#include "netplay/base/safe_text.h"

namespace framelock::frontend {

Result<ScriptedChat> parse_scripted_chat(const std::string& spec) {
    const auto colon = spec.find(':');
    ScriptedChat out;
    const char* end = spec.data() + (colon == std::string::npos ? 0 : colon);
    const auto [ptr, ec] = std::from_chars(spec.data(), end, out.frame);
    if (colon == std::string::npos || colon == 0 || ec != std::errc() || ptr != end)
        return make_error(ErrorCode::kUsage,
                          "--say takes FRAME:TEXT (say TEXT once frame FRAME has run), not '" +
                              safe_text(spec, 80) + "'");
    out.text = spec.substr(colon + 1);
    if (out.text.find_first_not_of(' ') == std::string::npos)
        return make_error(ErrorCode::kUsage, "--say " + safe_text(spec, 80) + ": nothing to say");
    return out;
}

SessionChat::SessionChat(std::vector<std::string> muted, std::vector<ScriptedChat> script)
    : m_muted(muted.begin(), muted.end()), m_script(std::move(script)) {
    std::stable_sort(
        m_script.begin(), m_script.end(),
        [](const ScriptedChat& a, const ScriptedChat& b) { return a.frame < b.frame; });
}

void SessionChat::keep(netplay::ChatLine line, netplay::Micros now) {
    if (m_history.size() == kHistory) m_history.pop_front();
    m_history.push_back({std::move(line), now});
    ++m_changes;
}

void SessionChat::poll(netplay::Client& client, ReplayWriter* replay, netplay::Micros now) {
    while (auto line = client.poll_chat()) {
        const bool from_server = line->from_slot == netplay::kChatFromServer;
        if (replay && !from_server) {
            if (Status s = replay->add_chat(*line); !s)
                log_warn("chat line not recorded: {}", s.error().message);
        }
        if (!from_server && muted(line->from)) continue;
        log_info("chat at frame {}: {}", line->frame, netplay::chat_line_text(*line));
        keep(std::move(*line), now);
    }
    while (m_next_scripted < m_script.size() &&
           client.final_frames() >= m_script[m_next_scripted].frame &&
           client.state() == netplay::Client::State::kRunning) {
        if (Status s = client.say(m_script[m_next_scripted].text); !s)
            log_warn("--say: {}", s.error().message);
        ++m_next_scripted;
    }
}

std::string SessionChat::submit(netplay::Client& client, const std::string& typed) {
    const auto command = [&](const char* name) {
        const std::string prefix = std::string("/") + name;
        if (typed.rfind(prefix, 0) != 0) return false;
        return typed.size() == prefix.size() || typed[prefix.size()] == ' ';
    };
    const auto argument = [&](std::size_t skip) {
        std::string rest = typed.size() > skip ? typed.substr(skip) : "";
        rest.erase(0, rest.find_first_not_of(' '));
        rest.erase(rest.find_last_not_of(' ') + 1);
        return rest;
    };
    if (command("mute")) {
        const std::string name = argument(5);
        if (name.empty()) return "/mute NAME: whose lines to hide";
        if (name == client.display_name()) return "that is you";
        m_muted.insert(name);
        return "muted " + safe_text(name) + " (/unmute " + safe_text(name) + " to hear again)";
    }
    if (command("unmute")) {
        const std::string name = argument(7);
        if (m_muted.erase(name) == 0) return safe_text(name) + " was not muted";
        return "unmuted " + safe_text(name);
    }
    if (command("muted")) {
        if (m_muted.empty()) return "nobody is muted";
        std::string list;
        for (const auto& name : m_muted) list += (list.empty() ? "" : ", ") + safe_text(name);
        return "muted: " + list;
    }
    if (Status s = client.say(typed); !s) return s.error().message;
    return {};
}

}  // namespace framelock::frontend
