// Admission (admission.h): the Challenge and the Hello that answers it, its proofs (password,
// rejoin token), slots and names, spectators.
#include "netplay/server/admission.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "netplay/base/safe_text.h"

namespace framelock::netplay {

namespace {

std::string describe(const SessionIdentity& id, const std::string& content_name) {
    char text[256];
    std::snprintf(text, sizeof text,
                  "%s %s, content %s (%016" PRIx64 "), options %016" PRIx64 ", %.3f fps",
                  id.core_name.c_str(), id.core_version.c_str(),
                  content_name.empty() ? "-" : content_name.c_str(), id.content_hash,
                  id.options_hash, id.fps_milli / 1000.0);
    return text;
}

// Connections closed before their Hello are reported at most this often, in one event
// naming the addresses: a flood must not flood the log.
constexpr Micros kHalfOpenReportUs = 10'000'000;
constexpr std::size_t kMaxReportedSources = 1024;  // more are summed as "other addresses"
constexpr std::size_t kNamedSources = 5;           // named in the event, by count

// "192.0.2.7" of "192.0.2.7:40123" (a simulated endpoint's "name:3": its name).
std::string source_of(const std::string& address) {
    const auto colon = address.rfind(':');
    return colon == std::string::npos ? address : address.substr(0, colon);
}

std::uint64_t total(const Admission::HalfOpen& counts) {
    return counts.too_many + counts.evicted + counts.expired;
}

}  // namespace

Admission::Admission(Transport& transport, const ServerConfig& config, ServerEvents& events)
    : m_transport(transport),
      m_config(config),
      m_events(events),
      m_server_identity(config.identity ? config.identity
                                        : std::make_shared<const ServerIdentity>()) {
    m_salt = random_array<kSaltBytes>();
    if (!m_config.password.empty())
        m_player_key = derive_password_key(m_config.password, m_salt, m_config.password_kdf);
    if (!m_config.spectator_password.empty())
        m_spectator_key =
            derive_password_key(m_config.spectator_password, m_salt, m_config.password_kdf);
}

void Admission::challenge(PeerId peer, Micros now) {
    std::string source = source_of(m_transport.peer_address(peer));
    if (!source.empty()) {
        const auto joining = std::count_if(m_pending.begin(), m_pending.end(), [&](const auto& p) {
            return p.second.source == source;
        });
        if (joining >= m_config.max_joining_per_address)
            return close_half_open(peer, source, Cause::kTooMany, now);
    }
    if (static_cast<int>(m_pending.size()) >= m_config.max_joining) make_room(now);
    Challenge challenge;
    challenge.nonce = random_array<kNonceBytes>();
    challenge.salt = m_salt;
    challenge.kdf = m_config.password_kdf;
    challenge.player_password = !m_config.password.empty();
    challenge.spectator_password = !m_config.spectator_password.empty();
    m_pending[peer] = Pending{challenge.nonce, now, std::move(source)};
    m_transport.send(peer, Channel::kControl, encode(challenge));
}

void Admission::expire(Micros now) {
    for (auto it = m_pending.begin(); it != m_pending.end();) {
        if (now - it->second.since <= m_config.hello_timeout_us) {
            ++it;
            continue;
        }
        const PeerId peer = it->first;
        const std::string source = std::move(it->second.source);
        it = m_pending.erase(it);
        close_half_open(peer, source, Cause::kExpired, now);
    }
    report_half_open(now);
}

std::optional<Micros> Admission::next_expiry() const {
    std::optional<Micros> next;
    for (const auto& [peer, pending] : m_pending) {
        const Micros at = pending.since + m_config.hello_timeout_us + 1;
        if (!next || at < *next) next = at;
    }
    if (!m_unreported.empty() && (!next || m_next_report < *next)) next = m_next_report;
    return next;
}

void Admission::make_room(Micros now) {
    std::map<std::string, int> by_source;
    for (const auto& [peer, pending] : m_pending) ++by_source[pending.source];
    // The address with the most joining, and of equals the one waiting longest: its oldest.
    auto victim = m_pending.end();
    for (auto it = m_pending.begin(); it != m_pending.end(); ++it) {
        if (victim == m_pending.end()) {
            victim = it;
            continue;
        }
        const int count = by_source[it->second.source], best = by_source[victim->second.source];
        if (count > best || (count == best && it->second.since < victim->second.since)) victim = it;
    }
    if (victim == m_pending.end()) return;
    const PeerId peer = victim->first;
    const std::string source = std::move(victim->second.source);
    m_pending.erase(victim);
    close_half_open(peer, source, Cause::kEvicted, now);
}

void Admission::close_half_open(PeerId peer, const std::string& source, Cause cause, Micros now) {
    const std::string why =
        cause == Cause::kExpired
            ? "no Hello within " + std::to_string(m_config.hello_timeout_us / 1000) +
                  " ms of connecting (not a framelock client?)"
        : cause == Cause::kTooMany
            ? std::to_string(m_config.max_joining_per_address) +
                  " connections from your address are joining already; try again in a moment"
            : "the server is busy with other joining connections; try again in a moment";
    m_transport.send(peer, Channel::kControl, encode(Reject{RejectReason::kBadHello, why}));
    m_transport.disconnect(peer);
    const auto bump = [cause](HalfOpen& counts) {
        (cause == Cause::kExpired   ? counts.expired
         : cause == Cause::kTooMany ? counts.too_many
                                    : counts.evicted) += 1;
    };
    bump(m_half_open);
    std::string key = source.empty() ? "unknown addresses" : source;
    if (m_unreported.size() >= kMaxReportedSources && !m_unreported.contains(key))
        key = "other addresses";
    bump(m_unreported[key]);
    report_half_open(now);
}

void Admission::report_half_open(Micros now) {
    if (m_unreported.empty() || now < m_next_report) return;
    std::vector<std::pair<std::string, HalfOpen>> sources(m_unreported.begin(), m_unreported.end());
    std::sort(sources.begin(), sources.end(),
              [](const auto& a, const auto& b) { return total(a.second) > total(b.second); });
    HalfOpen sum;
    std::string named;
    for (std::size_t i = 0; i < sources.size(); ++i) {
        sum.too_many += sources[i].second.too_many;
        sum.evicted += sources[i].second.evicted;
        sum.expired += sources[i].second.expired;
        if (i < kNamedSources)
            named += (i ? ", " : "") + std::to_string(total(sources[i].second)) + " from " +
                     sources[i].first;
    }
    if (sources.size() > kNamedSources)
        named += ", and " + std::to_string(sources.size() - kNamedSources) + " more addresses";
    m_events.emit(
        {ServerEvent::Type::kHalfOpen, 0, 0, 0, 0,
         "connections closed before their Hello: " + named + " (" + std::to_string(sum.expired) +
             " said no Hello within " + std::to_string(m_config.hello_timeout_us / 1000) + " ms, " +
             std::to_string(sum.too_many) + " over " +
             std::to_string(m_config.max_joining_per_address) + " joining from one address, " +
             std::to_string(sum.evicted) + " closed for newcomers; next report in " +
             std::to_string(kHalfOpenReportUs / 1'000'000) + " s at the earliest)"});
    m_unreported.clear();
    m_next_report = now + kHalfOpenReportUs;
}

void Admission::reject(PeerId peer, RejectReason reason, const std::string& message) {
    m_pending.erase(peer);  // closed here: no disconnect event follows
    m_seals.erase(peer);
    m_transport.send(peer, Channel::kControl, encode(Reject{reason, message}));
    m_transport.flush();
    m_transport.disconnect(peer);
    m_events.emit({ServerEvent::Type::kRejected, 0, 0, 0, 0, message});
}

Admission::Admit Admission::admit(PeerId peer, const Hello& hello, const Roster& roster,
                                  Micros now) {
    const Admit refused;
    if (hello.version != kProtocolVersion) {
        reject(peer, RejectReason::kVersion,
               "protocol version mismatch: you speak " + std::to_string(hello.version) +
                   ", this server speaks " + std::to_string(kProtocolVersion) +
                   " (update framelock on the older side)");
        return refused;
    }
    if (hello.identity.fps_milli < 1000 || hello.identity.fps_milli > 1'000'000) {
        reject(peer, RejectReason::kBadHello,
               "frame rate " + std::to_string(hello.identity.fps_milli / 1000.0) +
                   " fps is out of range");
        return refused;
    }
    // The nonce this connection was challenged with; one Hello answers it, once.
    const auto pending = m_pending.find(peer);
    if (pending == m_pending.end()) {
        reject(peer, RejectReason::kBadHello,
               "Hello before the server's Challenge (not a framelock client?)");
        return refused;
    }
    const Nonce nonce = pending->second.nonce;
    m_pending.erase(pending);
    if (!check_password(peer, hello, nonce)) return refused;
    // The seal's keys, bound to the Challenge and to the password the Hello just proved.
    const bool spectating = hello.role == Role::kSpectator;
    const bool bound = !(spectating ? m_config.spectator_password : m_config.password).empty();
    const KxKeys kx = new_kx_keys();
    const auto keys = server_seal_keys(
        kx, hello.kx_key, nonce,
        bound ? (spectating ? m_spectator_key : m_player_key) : std::optional<PasswordKey>{});
    if (!keys) {
        reject(peer, RejectReason::kBadHello, "the Hello's key exchange key is unusable");
        return refused;
    }
    m_seals[peer] = {kx.public_key, hello.kx_key, nonce, *keys};
    // Only now: the session's game (content name and hash) is for those who may join it.
    if (m_identity && !(*m_identity == hello.identity)) {
        reject(
            peer, RejectReason::kMismatch,
            "this session does not match your game: " +
                identity_mismatch(*m_identity, m_content_name, hello.identity, hello.content_name));
        return refused;
    }
    if (hello.role == Role::kSpectator) return admit_spectator(peer, hello, roster);
    if (hello.requested_slot > m_config.players) {
        reject(peer, RejectReason::kFull,
               "slot " + std::to_string(hello.requested_slot) +
                   " does not exist: the session has " + std::to_string(m_config.players) +
                   " player slots");
        return refused;
    }
    const int proven = proven_slot(hello, nonce, roster);
    if (proven && !roster.player(proven).away() &&
        now - roster.player(proven).last_heard < m_config.link_lost_us) {
        // Its token, but the slot's connection still talks: a live slot goes to nobody, the
        // token's holder included (a copy of the token is not the player).
        reject(peer, RejectReason::kSlotTaken,
               "slot " + std::to_string(proven) + " is '" + roster.player(proven).name +
                   "''s, who is still playing on another connection; if that framelock has "
                   "crashed, run this again in a second");
        return refused;
    }
    if (roster.started()) return admit_running(peer, hello, proven, roster);
    // Before the start: its own slot from a new process (the old connection is gone, or about
    // to be), the slot it asks for, or the first free one.
    int s = proven;
    if (s == 0) {
        s = hello.requested_slot;
        if (s > 0 && roster.player(s).taken()) {
            reject(peer, RejectReason::kSlotTaken,
                   "slot " + std::to_string(s) + " is taken by '" + roster.player(s).name +
                       "'; pick another or omit --slot (a slot is taken back only with its "
                       "rejoin token, by the framelock it was given to)");
            return refused;
        }
    }
    if (s == 0 && (s = free_slot_or_reject(peer, hello, "", roster)) == 0) return refused;
    Admit admit;
    admit.as = Admit::As::kPlayer;
    admit.slot = s;
    admit.proven = proven != 0;
    if (!m_identity) {
        m_identity = hello.identity;
        m_content_name = hello.content_name;
        admit.first = true;
    }
    admit.name = proven ? roster.player(s).name : "";
    if (admit.name.empty()) admit.name = player_name(hello, s, roster);
    admit.game = describe(hello.identity, hello.content_name);
    return admit;
}

Admission::Admit Admission::admit_spectator(PeerId peer, const Hello& hello, const Roster& roster) {
    if (static_cast<int>(roster.spectators().size()) >= m_config.max_spectators) {
        reject(peer, RejectReason::kFull,
               "this session takes no more spectators (" + std::to_string(m_config.max_spectators) +
                   " watching)");
        return {};
    }
    if (!m_identity) {
        reject(peer, RejectReason::kBadHello,
               "nobody plays in this session yet: spectators join once a player has");
        return {};
    }
    Admit admit;
    admit.as = Admit::As::kSpectator;
    admit.name =
        unique_name(hello.player_name.empty() ? "spectator" : hello.player_name, nullptr, roster);
    return admit;
}

Admission::Admit Admission::admit_running(PeerId peer, const Hello& hello, int proven,
                                          const Roster& roster) {
    int s = proven;  // its own slot, proven by its token: a rejoin
    if (s == 0 && hello.requested_slot > 0) {
        s = hello.requested_slot;  // checked against the slot count by admit()
        const ServerSlot& slot = roster.player(s);
        if (slot.in_session()) {
            reject(peer, RejectReason::kSlotTaken,
                   slot.away() ? "slot " + std::to_string(s) + " belongs to '" + slot.name +
                                     "', whose connection dropped; only their framelock, with the "
                                     "rejoin token it was given, may take it back (within " +
                                     std::to_string(m_config.reconnect_grace_us / 1'000'000) +
                                     " s). Pick another slot or omit --slot"
                               : "slot " + std::to_string(s) + " is taken by '" + slot.name +
                                     "', who is playing; pick another or omit --slot");
            return {};
        }
    }
    if (s == 0 &&
        (s = free_slot_or_reject(peer, hello, "; watch as a spectator (--spectate)", roster)) == 0)
        return {};
    Admit admit;
    admit.as = Admit::As::kPlayer;
    admit.slot = s;
    admit.proven = proven != 0;
    const ServerSlot& slot = roster.player(s);
    admit.name = slot.in_session() ? slot.name : player_name(hello, s, roster);
    return admit;
}

Welcome Admission::welcome(const ServerSlot& member, int slot_number, bool late,
                           const BoxPublicKey& box_key, std::uint16_t snapshot_interval,
                           Micros now) {
    Welcome welcome;
    welcome.slot = static_cast<std::uint8_t>(slot_number);
    welcome.players = static_cast<std::uint8_t>(m_config.players);
    welcome.hash_interval = m_config.hash_interval;
    welcome.keyframe_interval = m_config.keyframe_interval;
    welcome.send_interval = m_config.send_interval;
    welcome.server_time_us = now;
    welcome.mode = m_config.mode;
    welcome.prediction_window =
        m_config.mode == SessionMode::kRollback ? m_config.prediction_window : 0;
    welcome.role = member.spectator ? Role::kSpectator : Role::kPlayer;
    welcome.late = late;
    welcome.vouch_savestates = !member.spectator && m_config.hybrid_if_vouched &&
                               m_config.mode == SessionMode::kRollback && m_config.delay.hybrid;
    welcome.snapshot_interval = snapshot_interval;
    welcome.chat = m_config.chat;
    welcome.name = member.name;
    welcome.server_key = m_server_identity->public_key();
    if (const auto seal = m_seals.find(member.peer); seal != m_seals.end()) {
        welcome.kx_key = seal->second.server_key;
        welcome.signature = m_server_identity->sign_welcome(
            seal->second.nonce, seal->second.client_key, welcome.kx_key);
    }
    if (!member.spectator) {
        RejoinToken& token = m_tokens[static_cast<std::size_t>(slot_number - 1)];
        token = random_array<kRejoinTokenBytes>();
        welcome.sealed_token = seal_token(token, box_key);
    }
    return welcome;
}

std::optional<SealKeys> Admission::take_seal_keys(PeerId peer) {
    const auto seal = m_seals.find(peer);
    if (seal == m_seals.end()) return std::nullopt;
    const SealKeys keys = seal->second.keys;
    m_seals.erase(seal);
    return keys;
}

int Admission::proven_slot(const Hello& hello, const Nonce& nonce, const Roster& roster) const {
    if (!hello.rejoin_proof) return 0;
    for (int s = 1; s <= m_config.players; ++s) {
        const ServerSlot& slot = roster.player(s);
        if (slot.in_session() && !slot.spectator &&
            same_proof(rejoin_proof(m_tokens[static_cast<std::size_t>(s - 1)], nonce),
                       *hello.rejoin_proof))
            return s;
    }
    return 0;
}

bool Admission::check_password(PeerId peer, const Hello& hello, const Nonce& nonce) {
    const bool spectator = hello.role == Role::kSpectator;
    const std::string& password = spectator ? m_config.spectator_password : m_config.password;
    if (password.empty()) return true;
    const std::optional<PasswordKey>& key = spectator ? m_spectator_key : m_player_key;
    const std::string needs =
        spectator ? "this session's spectators need a password" : "this session needs a password";
    if (!key) {
        reject(peer, RejectReason::kPassword,
               needs +
                   ", and this server could not derive its key (out of memory, or a key "
                   "cost out of bounds): nobody can join until it is restarted");
        return false;
    }
    if (!hello.password_proof) {
        reject(peer, RejectReason::kPassword, needs + " (--password)");
        return false;
    }
    if (!same_proof(password_proof(*key, nonce, hello.role), *hello.password_proof)) {
        reject(peer, RejectReason::kPassword,
               spectator ? "wrong spectator password" : "wrong password");
        return false;
    }
    return true;
}

void Admission::make_text_safe(Hello& hello) {
    hello.player_name = safe_text(hello.player_name, kMaxNameBytes);
    hello.content_name = safe_text(hello.content_name);
    hello.identity.core_name = safe_text(hello.identity.core_name);
    hello.identity.core_version = safe_text(hello.identity.core_version);
}

std::string Admission::unique_name(std::string wanted, const ServerSlot* self,
                                   const Roster& roster) const {
    const auto taken = [&](const std::string& name) {
        for (const ServerSlot& slot : roster.players()) {
            if (&slot != self && slot.in_session() && slot.name == name) return true;
        }
        for (const ServerSlot& spectator : roster.spectators()) {
            if (&spectator != self && spectator.name == name) return true;
        }
        return false;
    };
    if (!taken(wanted)) return wanted;
    // Room for the suffix within the wire's limit, cut on a character's boundary.
    wanted = cut_text(wanted, kMaxNameBytes - 5);
    for (int n = 2;; ++n) {
        std::string name = wanted + " (" + std::to_string(n) + ")";
        if (!taken(name)) return name;
    }
}

std::string Admission::player_name(const Hello& hello, int slot_number,
                                   const Roster& roster) const {
    return unique_name(
        hello.player_name.empty() ? "player " + std::to_string(slot_number) : hello.player_name,
        &roster.player(slot_number), roster);
}

int Admission::free_slot_or_reject(PeerId peer, const Hello& hello, const std::string& advice,
                                   const Roster& roster) {
    // Before the start a slot given up is emptied; after it, it stays (left) on the timeline.
    for (int s = 1; s <= m_config.players; ++s) {
        if (!roster.player(s).in_session()) return s;
    }
    reject(peer, RejectReason::kFull,
           "the session is full (" + std::to_string(m_config.players) + "/" +
               std::to_string(m_config.players) + " players)" + advice + name_hint(hello, roster));
    return 0;
}

std::string Admission::name_hint(const Hello& hello, const Roster& roster) const {
    for (const ServerSlot& slot : roster.players()) {
        if (slot.in_session() && !hello.player_name.empty() && slot.name == hello.player_name)
            return "; '" + hello.player_name +
                   "' plays here already, and a name is no key to a slot: after a crash, "
                   "start framelock join again the same way and it takes its slot back with "
                   "the rejoin token it kept";
    }
    return "";
}

}  // namespace framelock::netplay
