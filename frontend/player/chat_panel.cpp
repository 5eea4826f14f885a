#include "frontend/player/chat_panel.h"

#include <algorithm>

#include "netplay/base/safe_text.h"

namespace framelock::frontend {

void ChatPanel::add(std::string text, Tone tone, netplay::Micros now) {
    if (m_lines.size() == kHistory) m_lines.pop_front();
    m_lines.push_back({std::move(text), tone, now});
    // Scrolled back, the view stays on the lines it shows.
    if (m_scroll > 0) m_scroll = std::min(m_scroll + 1, m_lines.size() - 1);
}

void ChatPanel::open_line() {
    m_typing = true;
    m_typed.clear();
    m_scroll = 0;
}

void ChatPanel::close_line() {
    m_typing = false;
    m_typed.clear();
    m_scroll = 0;
}

void ChatPanel::type(const std::string& text) {
    if (!m_typing) return;
    // Whole, or not at all: a cut could take back a character typed before (a combining mark
    // at the limit is cut with its base).
    if (m_typed.size() + text.size() <= kMaxTypedBytes) m_typed += text;
}

void ChatPanel::backspace() {
    if (m_typed.empty()) return;
    std::size_t end = m_typed.size() - 1;
    // Back over continuation bytes (10xxxxxx) to the sequence's first byte.
    while (end > 0 && (static_cast<unsigned char>(m_typed[end]) & 0xC0) == 0x80) --end;
    m_typed.erase(end);
}

std::optional<std::string> ChatPanel::submit() {
    std::optional<std::string> said;
    if (m_typed.find_first_not_of(' ') != std::string::npos) said = m_typed;
    close_line();
    return said;
}

void ChatPanel::scroll(int rows) {
    if (!m_typing || m_lines.empty()) return;
    const auto most = m_lines.size() > kHistoryRows ? m_lines.size() - kHistoryRows : 0;
    const auto moved = static_cast<long>(m_scroll) + rows;
    m_scroll = static_cast<std::size_t>(std::clamp<long>(moved, 0, static_cast<long>(most)));
}

std::vector<OverlayLine> ChatPanel::rows(netplay::Micros now) const {
    std::vector<OverlayLine> out;
    if (m_typing) {
        const std::size_t end = m_lines.size() - std::min(m_scroll, m_lines.size());
        const std::size_t begin = end > kHistoryRows ? end - kHistoryRows : 0;
        if (m_scroll > 0)
            out.push_back(
                {"(" + std::to_string(m_scroll) + " newer below: Page Down)", Tone::kDim});
        for (std::size_t i = begin; i < end; ++i) out.push_back({m_lines[i].text, m_lines[i].tone});
        // The typed text is the player's own: shown safe, as it will be sent.
        out.push_back({"say: " + safe_text(m_typed) + "_", Tone::kGood});
        return out;
    }
    std::size_t first = m_lines.size();
    while (first > 0 && m_lines.size() - first < kRecentRows &&
           now - m_lines[first - 1].at < kShowUs)
        --first;
    for (std::size_t i = first; i < m_lines.size(); ++i)
        out.push_back({m_lines[i].text, m_lines[i].tone});
    return out;
}

}  // namespace framelock::frontend
