// Files that must never be left half-written (SRAM, replays, reports): write a
// temporary file beside the target, flush it to disk, then rename over the target.
// A crash at any point leaves either the old file or the new one, never a mix.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string_view>
#include <vector>

#include "netplay/base/result.h"

namespace framelock::frontend {

Status write_file_atomic(const std::filesystem::path& path, std::span<const std::uint8_t> bytes);
// The same for text (JSON reports, port files, summaries).
Status write_file_atomic(const std::filesystem::path& path, std::string_view text);

// Whole file into memory. kIo error naming the path when it cannot be read.
Result<std::vector<std::uint8_t>> read_file(const std::filesystem::path& path);

// Creates `dir` if needed and proves it writable by creating and removing a file in it.
Status ensure_writable_directory(const std::filesystem::path& dir, const char* what);

}  // namespace framelock::frontend
