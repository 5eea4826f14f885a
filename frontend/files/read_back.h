// Reading back the files a child process wrote (a hash log, a stats or summary JSON): the
// demo and the core atlas run framelock's own commands and judge them by these files.
// Threading: none.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "netplay/base/result.h"

namespace framelock::frontend {

// The file's lines, without their newlines; none when it cannot be read.
std::vector<std::string> read_lines(const std::filesystem::path& path);

// The file's JSON. kIo error "cannot read PATH", or "PATH is not valid JSON".
Result<nlohmann::json> read_json(const std::filesystem::path& path);

}  // namespace framelock::frontend
