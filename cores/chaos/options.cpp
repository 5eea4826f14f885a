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

constexpr std::array<std::uint32_t, 7> kCpuMs{0, 1, 2, 4, 8, 12, 16};

// v0 format: "Description; default|other|...". The first value is the default, so the lists
// must start with FaultConfig's defaults ("none", 60).
constexpr std::array<retro_variable, 4> kDefinitions{{
    {kFaultKey,
     "Determinism fault; "
     "none|wallclock|uninit|unsaved|varsize|nostate|crash|loadstamp|reloadstamp"},
    {kFaultFrameKey, "Fault start frame; 60|0|1|10|30|100|120|250|500|1000|1500|3000|5000"},
    {kCpuMsKey, "CPU time per frame (ms); 0|1|2|4|8|12|16"},
    {nullptr, nullptr},
}};

}  // namespace

std::optional<Fault> parse_fault(std::string_view value) {
    for (const auto& [name, fault] : kFaultNames) {
        if (name == value) return fault;
    }
    return std::nullopt;
}

namespace {
// `value` when it is one of `offered`: a host that passes anything else has a bug worth
// surfacing.
template <std::size_t N>
std::optional<std::uint32_t> parse_offered(std::string_view value,
                                           const std::array<std::uint32_t, N>& offered) {
    std::uint32_t number = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
    if (error != std::errc{} || end != value.data() + value.size()) return std::nullopt;
    for (const std::uint32_t candidate : offered) {
        if (candidate == number) return number;
    }
    return std::nullopt;
}
}  // namespace

std::optional<std::uint32_t> parse_fault_frame(std::string_view value) {
    return parse_offered(value, kFaultFrames);
}

std::optional<std::uint32_t> parse_cpu_ms(std::string_view value) {
    return parse_offered(value, kCpuMs);
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
