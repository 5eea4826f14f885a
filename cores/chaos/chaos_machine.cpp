#include "chaos_machine.h"

#include <algorithm>

#include "fault_sources.h"

namespace framelock::cores::chaos {
namespace {

// unserialize restores "everything but HIDDEN" as one prefix copy.
static_assert(kHidden.offset + kHidden.size == kBlockSize, "HIDDEN must be the last region");

constexpr std::array<std::uint8_t, 4> kStateMagic{'F', 'L', 'C', 'H'};
constexpr std::uint32_t kStateVersion = 1;
constexpr std::array<std::uint8_t, 4> kGrowthTag{'G', 'R', 'O', 'W'};

constexpr std::uint32_t kFnvBasis = 2166136261U;
constexpr std::uint32_t kFnvPrime = 16777619U;

// Sprites live in a playfield under the region display; positions are relative to it.
constexpr unsigned kPlayfieldTop = 80;
constexpr unsigned kSpriteSize = 8;
constexpr unsigned kSpriteSpanX = kWidth - kSpriteSize + 1;
constexpr unsigned kSpriteSpanY = kHeight - kPlayfieldTop - kSpriteSize + 1;
constexpr std::array<std::array<std::uint8_t, 2>, kPorts> kSpriteStart{{{40, 16}, {112, 16}}};

constexpr unsigned kButtonA = 8;  // RETRO_DEVICE_ID_JOYPAD_A
constexpr unsigned kButtonUp = 4;
constexpr unsigned kButtonDown = 5;
constexpr unsigned kButtonLeft = 6;
constexpr unsigned kButtonRight = 7;

constexpr std::int16_t kToneAmplitude = 1500;

std::uint32_t load_u32(std::span<const std::uint8_t> bytes, std::size_t at) {
    return static_cast<std::uint32_t>(bytes[at]) | static_cast<std::uint32_t>(bytes[at + 1]) << 8 |
           static_cast<std::uint32_t>(bytes[at + 2]) << 16 |
           static_cast<std::uint32_t>(bytes[at + 3]) << 24;
}

void store_u32(std::span<std::uint8_t> bytes, std::size_t at, std::uint32_t value) {
    for (std::size_t i = 0; i < 4; ++i) bytes[at + i] = static_cast<std::uint8_t>(value >> (8 * i));
}

void store_u64(std::span<std::uint8_t> bytes, std::size_t at, std::uint64_t value) {
    for (std::size_t i = 0; i < 8; ++i) bytes[at + i] = static_cast<std::uint8_t>(value >> (8 * i));
}

// A full-avalanche 32-bit mixer: one flipped input bit changes about half the output bits, so a
// single diverging byte anywhere shows up in MAIN's running hash and on screen.
std::uint32_t mix32(std::uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

std::uint32_t fnv1a(std::uint32_t hash, std::span<const std::uint8_t> bytes) {
    for (const std::uint8_t byte : bytes) hash = (hash ^ byte) * kFnvPrime;
    return hash;
}

std::uint32_t digest(std::span<const std::uint8_t> bytes) {
    return mix32(fnv1a(kFnvBasis, bytes));
}

// 3-3-2 bits of the byte spread over RGB565, so every byte value has its own colour and zero is
// black (untouched regions read as dark rectangles).
std::uint16_t byte_colour(std::uint8_t value) {
    const unsigned r = ((value >> 5) & 7U) * 31U / 7U;
    const unsigned g = ((value >> 2) & 7U) * 63U / 7U;
    const unsigned b = (value & 3U) * 31U / 3U;
    return static_cast<std::uint16_t>(r << 11 | g << 5 | b);
}

constexpr std::uint16_t rgb565(unsigned r8, unsigned g8, unsigned b8) {
    return static_cast<std::uint16_t>((r8 >> 3) << 11 | (g8 >> 2) << 5 | (b8 >> 3));
}

constexpr std::uint16_t kBackground = rgb565(24, 28, 40);
constexpr std::uint16_t kPlayfield = rgb565(10, 40, 20);
// One border colour per region (MAIN, CLOCK, SCRATCH, HIDDEN) so screenshots identify them.
constexpr std::array<std::uint16_t, 4> kRegionBorder{rgb565(255, 255, 255), rgb565(255, 60, 60),
                                                     rgb565(255, 230, 40), rgb565(230, 60, 230)};
constexpr std::array<std::uint16_t, kPorts> kSpriteColour{rgb565(60, 220, 90),
                                                          rgb565(250, 150, 30)};
constexpr std::uint16_t kSpritePressed = rgb565(255, 255, 255);

// Where each region's bytes are drawn: top-left corner and bytes per row; each byte is a
// kCell x kCell square.
struct RegionView {
    unsigned x;
    unsigned y;
    unsigned columns;
};
constexpr unsigned kCell = 4;
constexpr std::array<RegionView, 4> kRegionViews{
    {{16, 4, 32}, {8, 42, 16}, {88, 42, 16}, {8, 62, 16}}};

}  // namespace

ChaosMachine::ChaosMachine() {
    power_on();
}

void ChaosMachine::power_on() {
    m_block.fill(0);
    set_main_u32(kMainInputHash, kFnvBasis);
    for (unsigned port = 0; port < kPorts; ++port) {
        const std::size_t at = port == 0 ? kMainSprite0 : kMainSprite1;
        m_block[kMain.offset + at] = kSpriteStart[port][0];
        m_block[kMain.offset + at + 1] = kSpriteStart[port][1];
    }
    m_audio_frames = 0;
    m_load_stamp = m_faults.fault == Fault::kLoadstamp ? wallclock_ns() : 0;
    render();
}

std::uint32_t ChaosMachine::frame() const {
    return main_u32(kMainFrame);
}

bool ChaosMachine::crash_due() const {
    return m_faults.fault == Fault::kCrash && frame() == m_faults.frame;
}

std::uint32_t ChaosMachine::main_u32(std::size_t field) const {
    return load_u32(region(kMain), field);
}

void ChaosMachine::set_main_u32(std::size_t field, std::uint32_t value) {
    store_u32(region(kMain), field, value);
}

void ChaosMachine::run_frame(const std::array<PadWord, kPorts>& pads) {
    if (crash_due()) crash_now();
    const std::uint32_t f = frame();

    // MAIN absorbs the other regions as they stood before this frame, so a fault written into
    // one of them at frame F reaches MAIN only at F+1 and a checker sees the culprit alone first.
    const std::uint32_t clock_digest = digest(region(kClock));
    const std::uint32_t scratch_digest = digest(region(kScratch));
    const std::uint32_t hidden_digest = digest(region(kHidden));
    set_main_u32(kMainClockDigest, clock_digest);
    set_main_u32(kMainScratchDigest, scratch_digest);
    set_main_u32(kMainHiddenDigest, hidden_digest);

    const std::span<std::uint8_t> main = region(kMain);
    std::array<std::uint8_t, 2 * kPorts> pad_bytes{};
    for (unsigned port = 0; port < kPorts; ++port) {
        pad_bytes[2 * port] = static_cast<std::uint8_t>(pads[port]);
        pad_bytes[2 * port + 1] = static_cast<std::uint8_t>(pads[port] >> 8);
    }
    std::copy(pad_bytes.begin(), pad_bytes.end(), main.begin() + kMainPad0);
    const std::uint32_t input_hash = fnv1a(main_u32(kMainInputHash), pad_bytes);
    set_main_u32(kMainInputHash, input_hash);

    move_sprites(pads);
    evolve_hidden(f, pads);

    std::uint32_t mix = main_u32(kMainMix);
    mix = mix32(mix + input_hash);
    mix = mix32(mix ^ clock_digest);
    mix = mix32(mix + scratch_digest);
    mix = mix32(mix ^ hidden_digest);
    mix = mix32(mix + load_u32(main, kMainSprite0) + f);
    set_main_u32(kMainMix, mix);
    set_main_u32(kMainHistory + 4 * (f % kMainHistoryWords), mix);

    inject_faults(f);
    synthesize_audio(f);
    set_main_u32(kMainFrame, f + 1);
    render();
}

void ChaosMachine::move_sprites(const std::array<PadWord, kPorts>& pads) {
    for (unsigned port = 0; port < kPorts; ++port) {
        const PadWord pad = pads[port];
        const std::size_t at = kMain.offset + (port == 0 ? kMainSprite0 : kMainSprite1);
        unsigned x = m_block[at];
        unsigned y = m_block[at + 1];
        // Adding span - 1 instead of subtracting keeps the wrap in unsigned arithmetic.
        if (pad & (1U << kButtonLeft)) x = (x + kSpriteSpanX - 1) % kSpriteSpanX;
        if (pad & (1U << kButtonRight)) x = (x + 1) % kSpriteSpanX;
        if (pad & (1U << kButtonUp)) y = (y + kSpriteSpanY - 1) % kSpriteSpanY;
        if (pad & (1U << kButtonDown)) y = (y + 1) % kSpriteSpanY;
        m_block[at] = static_cast<std::uint8_t>(x);
        m_block[at + 1] = static_cast<std::uint8_t>(y);
    }
}

void ChaosMachine::evolve_hidden(std::uint32_t frame, const std::array<PadWord, kPorts>& pads) {
    // A chain: each frame's word derives from the previous frame's, so a wrong HIDDEN (say, one a
    // savestate failed to restore) stays wrong forever instead of washing out.
    const std::span<std::uint8_t> hidden = region(kHidden);
    constexpr std::size_t kWords = kHidden.size / 4;
    const std::size_t slot = frame % kWords;
    const std::uint32_t previous = load_u32(hidden, 4 * ((slot + kWords - 1) % kWords));
    const std::uint32_t pad_word =
        static_cast<std::uint32_t>(pads[0]) | static_cast<std::uint32_t>(pads[1]) << 16;
    store_u32(hidden, 4 * slot, mix32(previous + 0x9e3779b9U * (frame + 1) + pad_word));
}

void ChaosMachine::inject_faults(std::uint32_t frame) {
    // A fault of its own, in SCRATCH, which MAIN absorbs only from the next frame on: the
    // state after this frame differs from every other player's in that byte alone.
    if (m_faults.flip_frame == frame) region(kScratch)[kFlipOffset] ^= 0xFF;
    if (frame < m_faults.frame) return;
    switch (m_faults.fault) {
        case Fault::kWallclock:
            // A ring of the last eight timestamps, so CLOCK keeps changing visibly on screen.
            store_u64(region(kClock), 8 * (frame % 8), wallclock_ns());
            break;
        case Fault::kUninit:
            if (frame == m_faults.frame) fill_leftover_bytes(region(kScratch), this);
            break;
        default:
            break;
    }
}

void ChaosMachine::synthesize_audio(std::uint32_t frame) {
    // 32000 / 60 = 533.33: two frames of 533 then one of 534 keeps the long-run rate exact and
    // the count a function of the frame number alone.
    m_audio_frames = frame % 3 == 2 ? 534 : 533;
    const std::span<const std::uint8_t> main = region(kMain);
    const std::array<std::size_t, 2> phase_fields{kMainPhaseLeft, kMainPhaseRight};
    const std::array<std::size_t, 2> sprite_fields{kMainSprite0, kMainSprite1};
    for (unsigned channel = 0; channel < 2; ++channel) {
        // Pitch follows the sprite's x, so the tone is derived from (and restored with) state.
        const std::uint64_t hertz = 220U + 2U * main[sprite_fields[channel]];
        const auto step = static_cast<std::uint32_t>((hertz << 32) / kSampleRate);
        std::uint32_t phase = main_u32(phase_fields[channel]);
        for (std::size_t i = 0; i < m_audio_frames; ++i) {
            m_audio[2 * i + channel] = (phase & 0x80000000U) ? kToneAmplitude : -kToneAmplitude;
            phase += step;
        }
        set_main_u32(phase_fields[channel], phase);
    }
}

void ChaosMachine::render() {
    m_video.fill(kBackground);
    auto fill_rect = [this](unsigned x, unsigned y, unsigned w, unsigned h, std::uint16_t colour) {
        for (unsigned row = y; row < y + h; ++row) {
            std::fill_n(m_video.begin() + row * kWidth + x, w, colour);
        }
    };

    for (std::size_t r = 0; r < kRegions.size(); ++r) {
        const Region& reg = kRegions[r];
        const RegionView& view = kRegionViews[r];
        const unsigned rows = static_cast<unsigned>(reg.size) / view.columns;
        fill_rect(view.x - 1, view.y - 1, view.columns * kCell + 2, rows * kCell + 2,
                  kRegionBorder[r]);
        const std::span<const std::uint8_t> bytes = region(reg);
        for (std::size_t i = 0; i < bytes.size(); ++i) {
            const unsigned cx = view.x + static_cast<unsigned>(i % view.columns) * kCell;
            const unsigned cy = view.y + static_cast<unsigned>(i / view.columns) * kCell;
            fill_rect(cx, cy, kCell, kCell, byte_colour(bytes[i]));
        }
    }

    fill_rect(0, kPlayfieldTop, kWidth, kHeight - kPlayfieldTop, kPlayfield);
    const std::span<const std::uint8_t> main = region(kMain);
    for (unsigned port = 0; port < kPorts; ++port) {
        const std::size_t at = port == 0 ? kMainSprite0 : kMainSprite1;
        const std::size_t pad_at = port == 0 ? kMainPad0 : kMainPad1;
        const unsigned pad = main[pad_at] | main[pad_at + 1] << 8;
        const std::uint16_t colour =
            (pad & (1U << kButtonA)) ? kSpritePressed : kSpriteColour[port];
        fill_rect(main[at], kPlayfieldTop + main[at + 1], kSpriteSize, kSpriteSize, colour);
    }
}

bool ChaosMachine::stamped() const {
    return m_faults.fault == Fault::kLoadstamp || m_faults.fault == Fault::kReloadstamp;
}

bool ChaosMachine::state_fault_active(Fault fault, std::uint32_t at_frame) const {
    return m_faults.fault == fault && at_frame >= m_faults.frame;
}

std::size_t ChaosMachine::growth_chunks(std::uint32_t at_frame) const {
    // First chunk at F itself, so the fault is visible from its start frame.
    if (!state_fault_active(Fault::kVarsize, at_frame)) return 0;
    return (at_frame - m_faults.frame) / kGrowthPeriod + 1;
}

std::size_t ChaosMachine::state_size_at(std::uint32_t at_frame) const {
    if (state_fault_active(Fault::kNostate, at_frame)) return 0;
    const std::size_t stamp = stamped() ? 8 : 0;
    return kBaseStateSize + growth_chunks(at_frame) * kGrowthChunkSize + stamp;
}

std::size_t ChaosMachine::state_size() const {
    return state_size_at(frame());
}

bool ChaosMachine::serialize(std::span<std::uint8_t> out) const {
    const std::uint32_t f = frame();
    const std::size_t size = state_size_at(f);
    if (size == 0 || out.size() < size) return false;

    std::copy(kStateMagic.begin(), kStateMagic.end(), out.begin());
    store_u32(out, 4, kStateVersion);
    const std::span<std::uint8_t> block = out.subspan(kStateHeaderSize, kBlockSize);
    std::copy(m_block.begin(), m_block.end(), block.begin());
    if (state_fault_active(Fault::kUnsaved, f)) {
        // The bug being simulated: a field added to the machine but forgotten in the savestate.
        std::fill_n(block.begin() + kHidden.offset, kHidden.size, std::uint8_t{0});
    }

    // Stand-in for state that really grows (an arcade core's timer or sprite lists): tagged and
    // indexed so unserialize can tell a well-formed longer state from garbage.
    const std::uint32_t main_digest = digest(region(kMain));
    for (std::size_t chunk = 0; chunk < growth_chunks(f); ++chunk) {
        const std::span<std::uint8_t> bytes =
            out.subspan(kBaseStateSize + chunk * kGrowthChunkSize, kGrowthChunkSize);
        std::copy(kGrowthTag.begin(), kGrowthTag.end(), bytes.begin());
        store_u32(bytes, 4, static_cast<std::uint32_t>(chunk));
        store_u32(bytes, 8, f);
        store_u32(bytes, 12, main_digest);
    }

    if (stamped()) store_u64(out, size - 8, m_load_stamp);

    // A host may hash its whole buffer; keep bytes past the state deterministic too.
    std::fill(out.begin() + static_cast<std::ptrdiff_t>(size), out.end(), std::uint8_t{0});
    return true;
}

bool ChaosMachine::unserialize(std::span<const std::uint8_t> in) {
    if (state_fault_active(Fault::kNostate, frame())) return false;
    if (in.size() < kBaseStateSize) return false;
    if (!std::equal(kStateMagic.begin(), kStateMagic.end(), in.begin())) return false;
    if (load_u32(in, 4) != kStateVersion) return false;

    const std::span<const std::uint8_t> block = in.subspan(kStateHeaderSize, kBlockSize);
    const std::span<const std::uint8_t> main = block.subspan(kMain.offset, kMain.size);
    const std::uint32_t loaded_frame = load_u32(main, kMainFrame);
    // The size is a function of the saved frame, so a varsize state is checked exactly too.
    if (in.size() != state_size_at(loaded_frame)) return false;
    const std::uint32_t main_digest = digest(main);
    for (std::size_t chunk = 0; chunk < growth_chunks(loaded_frame); ++chunk) {
        const std::span<const std::uint8_t> bytes =
            in.subspan(kBaseStateSize + chunk * kGrowthChunkSize, kGrowthChunkSize);
        if (!std::equal(kGrowthTag.begin(), kGrowthTag.end(), bytes.begin()) ||
            load_u32(bytes, 4) != chunk || load_u32(bytes, 8) != loaded_frame ||
            load_u32(bytes, 12) != main_digest) {
            return false;
        }
    }

    if (state_fault_active(Fault::kUnsaved, loaded_frame)) {
        // HIDDEN keeps whatever the live machine had: the omitted field is never restored.
        std::copy_n(block.begin(), kHidden.offset, m_block.begin());
    } else {
        std::copy(block.begin(), block.end(), m_block.begin());
    }
    if (m_faults.fault == Fault::kLoadstamp) {
        m_load_stamp = 0;
        for (std::size_t i = 0; i < 8; ++i)
            m_load_stamp |= static_cast<std::uint64_t>(in[in.size() - 8 + i]) << (8 * i);
    } else if (m_faults.fault == Fault::kReloadstamp) {
        m_load_stamp = wallclock_ns();
    }
    m_audio_frames = 0;
    render();
    return true;
}

}  // namespace framelock::cores::chaos
