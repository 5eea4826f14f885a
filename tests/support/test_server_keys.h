// Server keys (netplay/crypto/server_identity.h, as text) for the requests tests make by hand:
// a room on its host's own server and a relay each name the key of the server they play on;
// a real server's key is read from its log line "server key KEY".
#pragma once

#include <fstream>
#include <iterator>
#include <string>
#include <string_view>

namespace framelock::test {

inline constexpr const char* kHostServerKey = "QzvoaRdFaln7PGNpk3KSLj8AOyTOde9HS6bwlNoaEU8";
inline constexpr const char* kRelayServerKey = "7uNc2WznF8lK_aazIXcaAc_ZSV0VyvRgwUtJ_J098kM";

// The key a `framelock server` or `host` logged to `log_path` (it logs it before it binds,
// so once its port file is written); "" when the log has none.
inline std::string server_key_in_log(const std::string& log_path) {
    std::ifstream in(log_path);
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    static constexpr std::string_view kMark = "server key ";
    const auto at = text.find(kMark);
    if (at == std::string::npos) return "";
    const auto begin = at + kMark.size();
    const auto end = text.find_first_of(" \n", begin);
    return text.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

}  // namespace framelock::test
