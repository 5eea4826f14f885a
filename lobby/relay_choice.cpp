#include "lobby/relay_choice.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <tuple>

namespace framelock::lobby {

using json = nlohmann::json;

std::string probes_to_text(const RelayProbes& probes) {
    if (probes.empty()) return "";
    json out = json::object();
    for (const auto& [id, us] : probes) {
        if (us % 1000 == 0) {
            out[id] = us / 1000;
        } else {
            out[id] = static_cast<double>(us) / 1000.0;
        }
    }
    return out.dump();
}

RelayProbes probes_from_text(const std::string& text) {
    RelayProbes probes;
    if (text.empty()) return probes;
    const json in = json::parse(text, nullptr, false);
    if (!in.is_object()) return probes;
    for (const auto& [id, ms] : in.items()) {
        if (!ms.is_number() || ms.get<double>() < 0) continue;
        probes[id] = static_cast<Micros>(std::llround(ms.get<double>() * 1000.0));
    }
    return probes;
}

namespace {

// The store's least-loaded order: the most free capacity, then the lower load, the lower id.
auto load_order(const RelayServer& s) {
    return std::make_tuple(-(s.capacity - s.load), s.load, s.id);
}

// The worst round trip of `players` to relay `id`, nullopt when one of them has no probe.
std::optional<Micros> worst_to(const std::string& id, std::span<const RelayProbes> players) {
    std::vector<Micros> rtts;
    for (const RelayProbes& p : players) {
        const auto it = p.find(id);
        if (it == p.end()) return std::nullopt;
        rtts.push_back(it->second);
    }
    return netplay::worst_round_trip(rtts);
}

// The joiner's round trips as the choice reads them: to the relays the host measured only,
// and where the joiner sent none, the host's own standing in for it. So a joiner's claim
// counts only where the host measured too, the worse of the two counts, and leaving a relay
// out neither rules it out nor moves the room.
RelayProbes joiner_view(const RelayProbes& host, const RelayProbes& joiner) {
    RelayProbes view;
    for (const auto& [id, us] : host) {
        const auto it = joiner.find(id);
        view[id] = it != joiner.end() ? it->second : us;
    }
    return view;
}

}  // namespace

std::optional<RelayChoice> choose_relay(const std::vector<RelayServer>& live,
                                        std::span<const RelayProbes> players,
                                        const std::string& current_id) {
    const RelayServer* best = nullptr;
    std::optional<Micros> best_rtt;
    const RelayServer* least = nullptr;
    for (const RelayServer& s : live) {
        const bool current = !current_id.empty() && s.id == current_id;
        if (!current && s.load >= s.capacity) continue;
        if (!least || load_order(s) < load_order(*least)) least = &s;
        if (players.empty()) continue;
        const auto rtt = worst_to(s.id, players);
        if (!rtt) continue;
        const auto key = [&](const RelayServer& r, Micros t) {
            return std::make_tuple(t, r.id == current_id ? 0 : 1, load_order(r));
        };
        if (!best || key(s, *rtt) < key(*best, *best_rtt)) {
            best = &s;
            best_rtt = rtt;
        }
    }
    if (best) return RelayChoice{best->id, best->address, best->server_key, best_rtt};
    if (least) return RelayChoice{least->id, least->address, least->server_key, std::nullopt};
    return std::nullopt;
}

std::optional<RelayChoice> relay_for_join(const Room& room, const RelayProbes& host,
                                          const RelayProbes& joiner,
                                          const std::vector<RelayServer>& live, bool want_relay) {
    RelayChoice choice{room.server_id, room.server_address, room.server_key, std::nullopt};
    const std::vector<RelayProbes> both = {host, joiner_view(host, joiner)};
    if (room.server_id.empty()) {
        if (!want_relay) return std::nullopt;
        // A host that measured none: the least loaded, the lobby's choice. Else the relays
        // the host measured, else (none of them live with room) the least loaded.
        const auto best = host.empty() ? choose_relay(live, {}) : choose_relay(live, both);
        if (!best) return std::nullopt;
        choice = *best;
    } else if (room.players < 2 && !host.empty() && !joiner.empty()) {
        // Nobody measured a relay both could use: the room stays.
        if (const auto best = choose_relay(live, both, room.server_id); best && best->worst_rtt_us)
            choice = *best;
    }
    // The estimate for this joiner: its own probe of the relay, and the host's when known.
    choice.worst_rtt_us.reset();
    if (const auto mine = joiner.find(choice.id); mine != joiner.end()) {
        Micros worst = mine->second;
        if (const auto theirs = host.find(choice.id); theirs != host.end())
            worst = std::max(worst, theirs->second);
        choice.worst_rtt_us = worst;
    }
    return choice;
}

}  // namespace framelock::lobby
