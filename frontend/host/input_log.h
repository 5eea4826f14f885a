// InputLogWriter: the pads of a run written as an input script (input_script.h's format,
// FRAME PORT BUTTONS), a line per port whose pad changed, so `framelock run --input` plays
// them again. `run --input-log` (a window's pads) and `replay play --input-log` (a replay's)
// write them. Threading: none.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "frontend/files/text_file.h"
#include "netplay/base/result.h"
#include "netplay/base/types.h"

namespace framelock::frontend {

class InputLogWriter {
  public:
    // Creates or truncates `path`, its first line "# " + `comment`. kIo error naming the path.
    static Result<std::unique_ptr<InputLogWriter>> open(const std::string& path,
                                                        const std::string& comment);
    // The pads of ports 0 .. ports-1 at `frame` (frames in order): a line for each port whose
    // pad differs from the last frame written, every port's on the first.
    void write(std::uint64_t frame, const netplay::InputFrame& pads, unsigned ports);
    // kIo error when a write failed.
    Status close();

  private:
    InputLogWriter() = default;
    std::unique_ptr<TextFile> m_file;  // never null
    bool m_written_any = false;
    netplay::InputFrame m_last;
};

}  // namespace framelock::frontend
