#include "netplay/crypto/replay_window.h"

namespace framelock::netplay {

std::uint64_t ReplayWindow::expand(std::uint16_t low) const {
    const std::uint64_t newest = m_next == 0 ? 0 : m_next - 1;
    const std::uint64_t base = (newest & ~std::uint64_t{0xffff}) | low;
    // The candidate within 32768 of the newest: base, or one period either side of it.
    if (base > newest && base - newest > 0x8000 && base >= 0x10000) return base - 0x10000;
    if (base < newest && newest - base > 0x8000) return base + 0x10000;
    return base;
}

bool ReplayWindow::fresh(std::uint64_t counter) const {
    if (counter >= m_next) return true;
    const std::uint64_t behind = m_next - 1 - counter;
    return behind < kSize && (m_seen & (std::uint64_t{1} << behind)) == 0;
}

void ReplayWindow::accept(std::uint64_t counter) {
    if (counter >= m_next) {
        const std::uint64_t shift = counter + 1 - m_next;
        m_seen = shift >= kSize ? 0 : m_seen << shift;
        m_seen |= 1;
        m_next = counter + 1;
        return;
    }
    m_seen |= std::uint64_t{1} << (m_next - 1 - counter);
}

}  // namespace framelock::netplay
