#include "options.h"

#include <array>
#include <charconv>
#include <utility>

#include <libretro.h>

namespace framelock::cores::chaos {
namespace {

constexpr std::array<std::pair<std::string_view, Fault>, 9> kFaultNames{{
    {"none", Fault::kNone},
    {"wallclock", Fault::kWallclock},
    {"uninit", Fault::kUninit},
    {"unsaved", Fault::kUnsaved},
    {"varsize", Fault::kVarsize},
    {"nostate", Fault::kNostate},
    {"crash", Fault::kCrash},
    {"loadstamp", Fault::kLoadstamp},
    {"reloadstamp", Fault::kReloadstamp},
}};

constexpr std::array<std::uint32_t, 13> kFaultFrames{60,  0,   1,    10,   30,   100, 120,
                                                     250, 500, 1000, 1500, 3000, 5000};

// v0 format: "Description; default|other|...". The first value is the default, so the lists
// must start with FaultConfig's defaults ("none", 60).
constexpr std::array<retro_variable, 3> kDefinitions{{
    {kFaultKey,
     "Determinism fault; "
     "none|wallclock|uninit|unsaved|varsize|nostate|crash|loadstamp|reloadstamp"},
    {kFaultFrameKey, "Fault start frame; 60|0|1|10|30|100|120|250|500|1000|1500|3000|5000"},
    {nullptr, nullptr},
}};

}  // namespace

std::optional<Fault> parse_fault(std::string_view value) {
    for (const auto& [name, fault] : kFaultNames) {
        if (name == value) return fault;
    }
    return std::nullopt;
}

std::optional<std::uint32_t> parse_fault_frame(std::string_view value) {
    std::uint32_t frame = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), frame);
    if (error != std::errc{} || end != value.data() + value.size()) return std::nullopt;
    // Only the offered values: a host that passes anything else has a bug worth surfacing.
    for (const std::uint32_t offered : kFaultFrames) {
        if (offered == frame) return frame;
    }
    return std::nullopt;
}

const char* fault_name(Fault fault) {
    for (const auto& [name, candidate] : kFaultNames) {
        if (candidate == fault) return name.data();
    }
    return "?";
}

const retro_variable* option_definitions() {
    return kDefinitions.data();
}

}  // namespace framelock::cores::chaos
