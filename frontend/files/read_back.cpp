#include "frontend/files/read_back.h"

#include <fstream>

namespace framelock::frontend {

std::vector<std::string> read_lines(const std::filesystem::path& path) {
    std::ifstream in(path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

Result<nlohmann::json> read_json(const std::filesystem::path& path) {
    std::ifstream in(path);
    if (!in) return make_error(ErrorCode::kIo, "cannot read " + path.string());
    auto json = nlohmann::json::parse(in, nullptr, false);
    if (json.is_discarded())
        return make_error(ErrorCode::kIo, path.string() + " is not valid JSON");
    return json;
}

}  // namespace framelock::frontend
