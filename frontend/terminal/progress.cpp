#include "frontend/terminal/progress.h"

#include <unistd.h>

#include <cstdio>

namespace framelock::frontend {

ProgressBar::ProgressBar(std::string label, std::uint64_t total, bool enabled, std::string unit)
    : m_label(std::move(label)),
      m_unit(std::move(unit)),
      m_total(total ? total : 1),
      m_enabled(enabled),
      m_tty(enabled && ::isatty(2)) {}

void ProgressBar::update(std::uint64_t done_so_far) {
    if (!m_enabled || m_finished) return;
    const std::uint64_t clamped = done_so_far < m_total ? done_so_far : m_total;
    if (m_tty) {
        const int permille = static_cast<int>(clamped * 1000 / m_total);
        if (permille == m_last_shown) return;
        m_last_shown = permille;
        constexpr int kWidth = 30;
        const int filled = permille * kWidth / 1000;
        std::fprintf(stderr, "\r%-10s [%.*s%*s] %3d%% %llu/%llu", m_label.c_str(), filled,
                     "##############################", kWidth - filled, "", permille / 10,
                     static_cast<unsigned long long>(clamped),
                     static_cast<unsigned long long>(m_total));
    } else {
        const int tenth = static_cast<int>(clamped * 10 / m_total);
        if (tenth == m_last_shown || tenth == 0) return;
        m_last_shown = tenth;
        std::fprintf(stderr, "%s: %d%% (%llu/%llu %s)\n", m_label.c_str(), tenth * 10,
                     static_cast<unsigned long long>(clamped),
                     static_cast<unsigned long long>(m_total), m_unit.c_str());
    }
    std::fflush(stderr);
}

void ProgressBar::done() {
    if (m_finished) return;
    m_finished = true;
    if (m_enabled && m_tty && m_last_shown >= 0) std::fputc('\n', stderr);
}

}  // namespace framelock::frontend
