#include "frontend/host/input_log.h"

#include <cstdio>

#include "frontend/host/input_script.h"

namespace framelock::frontend {

Result<std::unique_ptr<InputLogWriter>> InputLogWriter::open(const std::string& path,
                                                             const std::string& comment) {
    auto file = TextFile::open(path, "input log");
    if (!file) return file.error();
    std::unique_ptr<InputLogWriter> writer(new InputLogWriter());
    writer->m_file = std::move(file).value();
    std::fprintf(writer->m_file->get(), "# %s\n", comment.c_str());
    return writer;
}

void InputLogWriter::write(std::uint64_t frame, const netplay::InputFrame& pads, unsigned ports) {
    for (unsigned p = 0; p < ports && p < netplay::kMaxPlayers; ++p) {
        if (!m_written_any || pads.pads[p] != m_last.pads[p]) {
            std::fprintf(m_file->get(), "%llu %u %s\n", static_cast<unsigned long long>(frame),
                         p + 1, format_buttons(pads.pads[p]).c_str());
        }
    }
    m_last = pads;
    m_written_any = true;
}

Status InputLogWriter::close() {
    return m_file->close();
}

}  // namespace framelock::frontend
