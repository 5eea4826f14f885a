#include "common/relay_key.h"

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>

namespace framelock {
namespace {

Result<std::string> checked(std::string key, const std::string& where) {
    while (!key.empty() &&
           (key.back() == '\n' || key.back() == '\r' || key.back() == ' ' || key.back() == '\t'))
        key.pop_back();
    for (const char c : key) {
        const auto u = static_cast<unsigned char>(c);
        if (u <= 0x20 || u == 0x7f)
            return make_error(ErrorCode::kUsage,
                              fmt::format("the relay key in {} holds a space or a control "
                                          "character: a key is one line of printable characters",
                                          where));
    }
    if (key.size() < kRelayKeyMinLength)
        return make_error(ErrorCode::kUsage,
                          fmt::format("the relay key in {} has {} characters: it needs at least "
                                      "{} (make one with `head -c 24 /dev/urandom | base64`)",
                                      where, key.size(), kRelayKeyMinLength));
    return key;
}

}  // namespace

Result<std::string> load_relay_key(const std::string& file) {
    if (!file.empty()) {
        std::ifstream in(file);
        std::string line;
        if (!in || !std::getline(in, line))
            return make_error(ErrorCode::kUsage,
                              fmt::format("cannot read the relay key from {} (a file holding "
                                          "the key on its first line)",
                                          file));
        return checked(std::move(line), file);
    }
    const char* env = std::getenv(kRelayKeyEnv);
    if (env == nullptr || *env == '\0') return std::string();
    return checked(env, kRelayKeyEnv);
}

}  // namespace framelock
