#include "netplay/server/slot_stats.h"

#include "netplay/server/delay_measurements.h"
#include "netplay/server/server_slot.h"

namespace framelock::netplay {

std::vector<SlotStats> slot_stats_of(std::span<const ServerSlot> players,
                                     const DelayMeasurements& measure, const Transport& transport,
                                     Micros now) {
    std::vector<SlotStats> out;
    for (std::size_t i = 0; i < players.size(); ++i) {
        const ServerSlot& slot = players[i];
        if (!slot.taken()) continue;
        SlotStats st;
        st.slot = static_cast<int>(i) + 1;
        st.name = slot.name;
        st.connected = slot.life() != SlotLife::kLeft;
        measure.fill(slot.link, st, now);
        st.malformed = slot.malformed;
        st.states_refused = slot.transfer.states_refused();
        st.traffic = transport.stats(slot.peer);
        out.push_back(st);
    }
    return out;
}

}  // namespace framelock::netplay
