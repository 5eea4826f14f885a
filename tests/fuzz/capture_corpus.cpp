// Writes the fuzz targets' seed corpus (tests/fuzz/corpus/<target>/) from real traffic:
// short simulated sessions (netplay/sim/sim_session.h run_scenario) in frame-lock, no-wait and
// rollback modes, a late join with its state transfer and a desync repaired by a resync,
// with every datagram captured as it is sent (SimNetwork::set_tap) and every message each
// client was handed, opened (SimScenario::received: the client seeds, above the seal). Also
// a replay recorded from one of those sessions, the config examples of docs/config.md, input
// scripts and lobby requests.
//
//   capture_corpus OUT_DIR DOCS_CONFIG_MD
//
// Deterministic: the sessions are seeded, so the same program writes the same files, but for
// the bytes the handshake draws at random (nonces, keys, the sealed traffic).
// Regenerate with tools/fuzz.sh --capture (docs/fuzzing.md).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "netplay/determinism/replay.h"
#include "netplay/sim/sim_session.h"
#include "netplay/wire/compression.h"
#include "tests/fuzz/fuzz_input.h"
#include "tests/fuzz/fuzz_session.h"

using namespace framelock::netplay;
using framelock::fuzz::FuzzOutput;
namespace fs = std::filesystem;
namespace fz = framelock::fuzz;

namespace {

using Bytes = std::vector<std::uint8_t>;

struct Datagram {
    Micros at;
    std::string from, to;
    Channel channel;
    Bytes bytes;
};

struct Capture {
    std::string name;
    std::uint8_t flags = 0;
    std::vector<Datagram> traffic;   // on the wire: sealed after each Welcome
    std::vector<Datagram> received;  // what each client was handed, opened
    SimResult result;
};

int g_files = 0;

void write(const fs::path& dir, const std::string& name, const Bytes& bytes) {
    fs::create_directories(dir);
    std::ofstream out(dir / name, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
    if (!out) {
        std::fprintf(stderr, "capture_corpus: cannot write %s\n", (dir / name).c_str());
        std::exit(1);
    }
    ++g_files;
}

void write_text(const fs::path& dir, const std::string& name, const std::string& text) {
    write(dir, name, Bytes(text.begin(), text.end()));
}

// A session the harnesses' flags describe (fuzz_session.h), captured.
Capture capture(const std::string& name, std::uint8_t flags, std::uint32_t frames,
                const std::function<void(SimScenario&)>& adjust = {}) {
    Capture c;
    c.name = name;
    c.flags = flags;
    SimScenario sc;
    sc.players = 2;
    sc.frames = frames;
    sc.seed = 11;
    sc.link = LinkParams{15'000, 2'000, 0.02, 0.0, 0};
    sc.server = fz::fuzz_server_config(flags);
    sc.slots = sc.server.players;
    sc.server.start_players = 0;  // run_scenario starts with the players it has
    if (adjust) adjust(sc);
    sc.tap = [&](Micros at, const std::string& from, const std::string& to, Channel channel,
                 std::span<const std::uint8_t> bytes) {
        c.traffic.push_back({at, from, to, channel, Bytes(bytes.begin(), bytes.end())});
    };
    sc.received = [&](Micros at, const std::string& from, const std::string& to, Channel channel,
                      std::span<const std::uint8_t> bytes) {
        c.received.push_back({at, from, to, channel, Bytes(bytes.begin(), bytes.end())});
    };
    c.result = run_scenario(sc);
    std::printf("%-10s %zu datagrams, %u frames run by client 1\n", name.c_str(), c.traffic.size(),
                static_cast<unsigned>(c.result.clients[0].hashes.size()));
    return c;
}

int peer_index(const std::string& name) {
    for (int p = 0; p < fz::kFuzzPeers; ++p) {
        if (fz::kFuzzPeerNames[p] == name) return p;
    }
    return -1;
}

// Clock advances up to `to`, in the harnesses' units.
void advance(FuzzOutput& out, Micros& now, Micros to) {
    while (now + fz::kFuzzAdvanceUnitUs <= to) {
        const Micros units = std::min<Micros>((to - now) / fz::kFuzzAdvanceUnitUs, 256);
        out.u8(fz::kOpAdvance);
        out.u8(static_cast<std::uint8_t>(units - 1));
        now += units * fz::kFuzzAdvanceUnitUs;
    }
}

// The server harness's input: what the players sent the server during the first `until`
// microseconds. Peers 0 and 1's Hellos are the harness's own.
Bytes server_seed(const Capture& c, Micros until) {
    FuzzOutput out;
    out.u8(c.flags);
    Micros now = fz::kFuzzClockStart;
    for (const Datagram& d : c.traffic) {
        const int p = peer_index(d.from);
        if (d.to != "server" || p < 0 || d.at > fz::kFuzzClockStart + until) continue;
        if (p < 2 && peek_id(d.bytes) == MsgId::kHello) continue;
        advance(out, now, d.at);
        out.u8(
            static_cast<std::uint8_t>(fz::kOpSend | (p << 2) | (static_cast<int>(d.channel) << 4)));
        out.blob(d.bytes);
    }
    return out.data();
}

// The client harness's input: what `peer` was handed by the server (handshake included),
// opened, when it arrived. The harness signs the Welcome and seals what follows it again.
Bytes client_seed(const Capture& c, const std::string& peer, Micros until) {
    FuzzOutput out;
    out.u8(static_cast<std::uint8_t>(c.flags | fz::kRawHandshake));
    Micros now = fz::kFuzzClockStart;
    for (const Datagram& d : c.received) {
        if (d.from != "server" || d.to != peer || d.at > fz::kFuzzClockStart + until) continue;
        advance(out, now, d.at);
        out.u8(static_cast<std::uint8_t>(fz::kOpSend | (static_cast<int>(d.channel) << 4)));
        out.blob(d.bytes);
    }
    return out.data();
}

// A few datagrams of each message type, the first distinct ones seen.
void protocol_seeds(const std::vector<Capture>& captures, const fs::path& dir) {
    std::map<std::uint8_t, std::set<Bytes>> kept;
    for (const Capture& c : captures) {
        for (const Datagram& d : c.traffic) {
            if (d.bytes.empty() || d.bytes.size() > 2048) continue;
            auto& set = kept[d.bytes[0]];
            if (set.size() < 3) set.insert(d.bytes);
        }
    }
    for (const auto& [id, set] : kept) {
        int n = 0;
        for (const Bytes& bytes : set) {
            char name[32];
            std::snprintf(name, sizeof name, "msg-%02x-%d", id, n++);
            write(dir, name, bytes);
        }
    }
}

// The state transfer harness: the bulk channel to a late joiner (header and chunks, as a
// stream), an inflate case and a few states for the sender.
void state_transfer_seeds(const std::vector<Capture>& captures, const fs::path& dir) {
    int n = 0;
    for (const Capture& c : captures) {
        FuzzOutput stream;
        stream.u8(0);
        int messages = 0;
        for (const Datagram& d : c.traffic) {
            if (d.channel != Channel::kBulk || d.from != "server") continue;
            const auto id = peek_id(d.bytes);
            if (id != MsgId::kStateHeader && id != MsgId::kStateChunk) continue;
            stream.blob(d.bytes);
            ++messages;
        }
        if (messages > 0) write(dir, "bulk-" + c.name + "-" + std::to_string(n++), stream.data());
    }
    const Bytes state = {1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0, 0, 0, 0, 0, 9, 9, 9, 9, 9, 9};
    FuzzOutput inflate;
    inflate.u8(1);
    inflate.u32(static_cast<std::uint32_t>(state.size()));
    const Bytes packed = deflate_bytes(state);
    for (auto b : packed) inflate.u8(b);
    write(dir, "inflate-0", inflate.data());
    FuzzOutput send;
    send.u8(2);
    send.u32(600);
    for (int i = 0; i < 300; ++i) send.u8(static_cast<std::uint8_t>(i * 7));
    write(dir, "send-0", send.data());
}

// A replay recorded from a session's first client: its inputs and hashes, as the recorder
// writes them (one block per kReplayFramesPerBlock frames).
void replay_seeds(const Capture& c, const fs::path& dir) {
    const auto& client = c.result.clients[0];
    ReplayHeader header;
    header.identity = fz::fuzz_identity();
    header.players = 2;
    Bytes file = encode_replay_start(header);
    std::vector<ReplayFrame> frames;
    for (std::size_t f = 0; f < client.hashes.size() && f < client.inputs.size(); ++f)
        frames.push_back({client.inputs[f], client.hashes[f]});
    for (std::size_t at = 0; at < frames.size(); at += kReplayFramesPerBlock) {
        const std::size_t n = std::min(kReplayFramesPerBlock, frames.size() - at);
        const Bytes block = encode_replay_frames(static_cast<std::uint32_t>(at),
                                                 std::span(frames).subspan(at, n), 2);
        file.insert(file.end(), block.begin(), block.end());
        if (at == 0) write(dir, "replay-" + c.name + "-1block.flrp", file);
    }
    write(dir, "replay-" + c.name + ".flrp", file);
    // The same header with a start state, cut short in its second block (as after a crash).
    header.start_frame = 120;
    header.start_state = {0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4};
    Bytes cut = encode_replay_start(header);
    const Bytes block = encode_replay_frames(
        120, std::span(frames).first(std::min<std::size_t>(frames.size(), 40)), 2);
    cut.insert(cut.end(), block.begin(), block.end());
    cut.insert(cut.end(), block.begin(), block.begin() + static_cast<long>(block.size() / 2));
    write(dir, "replay-cut.flrp", cut);
}

// The config examples of docs/config.md (its ```toml blocks), and one with every section.
void config_seeds(const std::string& docs, const fs::path& dir) {
    std::ifstream in(docs);
    if (!in) {
        std::fprintf(stderr, "capture_corpus: cannot read %s\n", docs.c_str());
        std::exit(1);
    }
    std::string line, block;
    bool inside = false;
    int n = 0;
    while (std::getline(in, line)) {
        if (!inside && line == "```toml") {
            inside = true;
            block.clear();
        } else if (inside && line == "```") {
            inside = false;
            write_text(dir, "docs-example-" + std::to_string(n++) + ".toml", block);
        } else if (inside) {
            block += line + "\n";
        }
    }
    write_text(dir, "every-section.toml", R"([paths]
system = "bios"
saves = "saves"
cores = ["cores", "/opt/cores"]

[core_options."framelock-arcade"]
farcade_seed = 1941
farcade_hard = true

[video]
scale = 2
integer_scale = false
aspect = 1.333
fullscreen = false
filter = "linear"
overlay = true
font_size = 16
screenshot_dir = "shots"

[audio]
enabled = true
latency_ms = 64
rate = 44100
rate_control_percent = 0.5

[input]
axis_threshold = 0.4

[input.port1]
pad = 1
a = ["X", "Space"]
select = "Backspace"

[input.pad]
a = "a"
b = "b"

[hotkeys]
fullscreen = "F11"
screenshot = "F12"
overlay = "F1"
quit = "Escape"
)");
    write_text(dir, "errors.toml", "[video]\nscale = 99\n[nope]\nx = 1\n");
}

void input_script_seeds(const fs::path& dir) {
    write_text(dir, "tap.txt", "# a one-frame tap\n120 1 A\n121 1 none\n");
    write_text(dir, "two-ports.txt",
               "0 1 RIGHT\n0 2 LEFT\n30 1 RIGHT+B\n30 2 LEFT+Y\n60 1 none\n60 2 0x0101\n");
    write_text(dir, "every-button.txt",
               "1 1 B+Y+SELECT+START\n2 1 UP+DOWN+LEFT+RIGHT\n3 1 A+X+L+R\n4 1 L2+R2+L3+R3\n"
               "5 8 65535\n6 3 none   # comment\n");
    write_text(dir, "errors.txt", "10 9 A\nx 1 A\n5 1 JUMP\n");
}

void lobby_seeds(const fs::path& dir) {
    const std::string room =
        R"({"host_name":"alice","game_name":"Galaxy","content_hash":"0123456789abcdef",)"
        R"("core_name":"fbneo","core_version":"1.0","mode":"framelock","slots":2,"players":1,)"
        R"("region":"eu-west","server_address":"203.0.113.7:7845"})";
    write_text(
        dir, "create-list.txt",
        "POST /api/rooms\n\n" + room + "\n---\nGET /api/rooms?game=Galaxy&has_slots=1&limit=5\n");
    write_text(
        dir, "room-lifecycle.txt",
        "POST /api/rooms\n\n" + room +
            "\n---\nGET /api/rooms/{code}\n"
            "\n---\nPOST /api/rooms/{id}/heartbeat\n{token}\n{\"players\":2,\"spectators\":1}"
            "\n---\nPATCH /api/rooms/{id}\n{token}\n{\"players\":1,\"region\":\"home\"}"
            "\n---\nPOST /api/rooms/{code}/join\n\n{}"
            "\n---\nDELETE /api/rooms/{id}\n{token}\n");
    write_text(
        dir, "servers.txt",
        "POST /api/servers\n{relay_key}\n{\"address\":\"198.51.100.4:7850\",\"region\":\"us\","
        "\"capacity\":8}\n---\nPOST /api/servers/{id}/heartbeat\n{token}\n"
        "{\"load\":3,\"capacity\":8}\n---\nGET /api/servers\n"
        "\n---\nPOST /api/rooms\n\n{\"host_name\":\"bob\",\"game_name\":\"G\","
        "\"content_hash\":\"00000000000000ff\",\"core_name\":\"c\",\"core_version\":\"1\","
        "\"mode\":\"rollback\",\"slots\":4}\n");
    write_text(dir, "pages.txt",
               "GET /health\n\n---\nGET /metrics\n\n---\nGET /\n\n---\nGET /api/nothing\n");
    write(dir, "bad-bytes.txt",
          Bytes{'G', 'E', 'T', ' ', '/', 'a', 'p', 'i', '/', 'r', 'o', 'o', 'm', 's', '/', 0xff,
                0xfe, '\n', '\n'});
    write_text(dir, "bad-json.txt",
               "POST /api/rooms\n\n{\"slots\": \"many\", \n---\nPUT /api/rooms\n\n[]");
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: capture_corpus OUT_DIR DOCS_CONFIG_MD\n");
        return 2;
    }
    const fs::path out = argv[1];
    const std::uint8_t lock = static_cast<std::uint8_t>(SessionMode::kFrameLock);
    const std::uint8_t rollback = static_cast<std::uint8_t>(SessionMode::kRollback);
    const std::uint8_t nowait = static_cast<std::uint8_t>(SessionMode::kNoWait);
    std::vector<Capture> captures;
    captures.push_back(capture("framelock", lock, 300));
    captures.push_back(capture("nowait", nowait, 300));
    captures.push_back(capture("rollback", rollback, 300));
    // A third player joins the running session: Welcome(late), Start, the state transfer.
    captures.push_back(capture("join", lock | fz::kFlagThreeSlots, 300, [](SimScenario& sc) {
        sc.joiners = {{90, false, 3}};
    }));
    // Client 2 diverges: hash reports disagree, the server fetches client 1's state (the
    // host's, who runs the server: a tie follows it) and sends it to client 2 (a resync),
    // which reports what differed.
    captures.push_back(capture("resync", lock, 420, [](SimScenario& sc) {
        sc.server.host_slot = 1;
        sc.server.hash_interval = 30;
        sc.diverging_client = 2;
        sc.diverge_frame = 100;
    }));

    protocol_seeds(captures, out / "protocol");
    for (const Capture& c : captures) {
        write(out / "server", c.name + "-2s", server_seed(c, 2'000'000));
        write(out / "server", c.name + "-4s", server_seed(c, 4'000'000));
        write(out / "client", c.name + "-client1-2s", client_seed(c, "client1", 2'000'000));
        write(out / "client", c.name + "-client2-4s", client_seed(c, "client2", 4'000'000));
    }
    write(out / "client", "join-joiner1", client_seed(captures[3], "joiner1", 8'000'000));
    state_transfer_seeds(captures, out / "state_transfer");
    replay_seeds(captures[0], out / "replay");
    config_seeds(argv[2], out / "config");
    input_script_seeds(out / "input_script");
    lobby_seeds(out / "lobby");
    std::printf("capture_corpus: %d files under %s\n", g_files, out.c_str());
    return 0;
}
