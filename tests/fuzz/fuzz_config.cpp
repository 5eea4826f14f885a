// The config file (frontend/app/config.h, TOML; docs/config.md): any text either parses or
// fails with a message that names the file, as every config error must.
#include <string>
#include <string_view>

#include "frontend/app/config.h"
#include "tests/fuzz/fuzz_targets.h"

namespace framelock::fuzz {

int fuzz_config(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const auto config = frontend::parse_config(text, "fuzz.toml");
    if (!config) {
        FUZZ_CHECK(config.error().code == ErrorCode::kConfig);
        FUZZ_CHECK(config.error().message.find("fuzz.toml") != std::string::npos);
        return 0;
    }
    FUZZ_CHECK(config.value().source == "fuzz.toml");
    // A config that parsed parses the same way again (no hidden state between calls).
    const auto again = frontend::parse_config(text, "fuzz.toml");
    FUZZ_CHECK(again.ok());
    FUZZ_CHECK(again.value().core_options == config.value().core_options);
    FUZZ_CHECK(again.value().core_dirs == config.value().core_dirs);
    return 0;
}

}  // namespace framelock::fuzz
