#include "netplay/crypto/replay_window.h"

namespace framelock::netplay {

std::uint64_t ReplayWindow::expand(std::uint8_t low, unsigned ahead) const {
    const std::uint64_t newest = m_next == 0 ? 0 : m_next - 1;
    std::uint64_t counter = (newest & ~std::uint64_t{0xff}) | low;
    // The candidate within 128 of the newest: this one, or one period either side of it.
    if (counter > newest && counter - newest > 0x80 && counter >= 0x100)
        counter -= 0x100;
    else if (counter < newest && newest - counter > 0x80)
        counter += 0x100;
    return counter + std::uint64_t{ahead} * 0x100;
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
