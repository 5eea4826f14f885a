// A progress bar for long runs on stderr: redrawn in place on a terminal, a line every tenth
// of the way otherwise (logs of CI jobs stay short).
#pragma once

#include <cstdint>
#include <string>

namespace framelock::frontend {

class ProgressBar {
  public:
    // `enabled` false: prints nothing. `unit`: what is counted, named in the lines written
    // when stderr is not a terminal.
    ProgressBar(std::string label, std::uint64_t total, bool enabled, std::string unit = "frames");
    ~ProgressBar() { done(); }
    void update(std::uint64_t done_so_far);
    // Ends the bar's line (once).
    void done();

  private:
    std::string m_label;
    std::string m_unit;
    std::uint64_t m_total;
    bool m_enabled;
    bool m_tty;
    bool m_finished = false;
    int m_last_shown = -1;  // per mille on a terminal, tenths otherwise
};

}  // namespace framelock::frontend
