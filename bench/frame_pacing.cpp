// Frame pacing of `framelock run` in a real window under a private Xvfb: the bundled
// arcade game (60 Hz) for 10 s of wall time, and two fixture cores at arcade boards'
// rates (59.185606 Hz, 57.5 Hz) for 5 s each. framelock writes when each frame's present
// call was made and when it returned (--timing-log, monotonic clock); this prints, from
// frame 1 on (the schedule starts once frame 0 is on screen):
//   presents  the intervals between present calls: the pacer's own timing
//   returns   the intervals between their returns: plus the display stack, which under
//             Xvfb copies the whole window in software on every present
// each as the mean interval, its error against 1/fps in percent, and the 99th percentile
// and maximum of |interval - 1/fps|; and whether they meet the targets (mean within
// 0.1%, p99 within 2 ms). Figures, not pass/fail: always exits 0 (2 on a broken setup).
// Without Xvfb it says so and skips.
#include <fcntl.h>
#include <fmt/core.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/child_process.h"
#include "frontend/player/frame_pacer.h"

using namespace framelock::frontend;
using framelock::ChildProcess;
namespace fs = std::filesystem;

namespace {

// Xvfb on a display number it picks itself; stopped by the destructor.
class Xvfb {
  public:
    bool start() {
        int fds[2];
        if (::pipe(fds) != 0) return false;
        const std::string fd = std::to_string(fds[1]);
        m_pid = ::fork();
        if (m_pid == 0) {
            ::prctl(PR_SET_PDEATHSIG, SIGKILL);
            ::close(fds[0]);
            const int null = ::open("/dev/null", O_RDWR);
            ::dup2(null, 0);
            ::dup2(null, 1);
            ::dup2(null, 2);
            ::execl("/usr/bin/Xvfb", "Xvfb", "-displayfd", fd.c_str(), "-screen", "0",
                    "1280x1024x24", "-nolisten", "tcp", "-noreset", static_cast<char*>(nullptr));
            ::_exit(127);
        }
        ::close(fds[1]);
        std::string number;
        for (int i = 0; i < 100 && number.find('\n') == std::string::npos; ++i) {
            pollfd p{fds[0], POLLIN, 0};
            if (::poll(&p, 1, 100) <= 0) continue;
            char buffer[16];
            const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
            if (n <= 0) break;
            number.append(buffer, static_cast<std::size_t>(n));
        }
        ::close(fds[0]);
        if (number.find('\n') == std::string::npos) return false;
        ::setenv("DISPLAY", (":" + number.substr(0, number.find('\n'))).c_str(), 1);
        return true;
    }
    ~Xvfb() {
        if (m_pid > 0) {
            ::kill(m_pid, SIGTERM);
            ::waitpid(m_pid, nullptr, 0);
        }
    }

  private:
    pid_t m_pid = -1;
};

struct Case {
    std::string label;
    std::string core;  // name or path
    double fps;
    double seconds;
};

void print_report(const char* what, const PacingReport& r) {
    const bool mean_ok = std::abs(r.mean_error_pct) <= 0.1;
    const bool p99_ok = r.p99_abs_deviation_ms <= 2.0;
    fmt::print(
        "  {:<8} mean {:.4f} ms ({:+.4f}% of {:.4f}), sd {:.3f} ms, p99 |dev| {:.3f} ms, "
        "max {:.3f} ms   [mean within 0.1%: {}, p99 within 2 ms: {}]\n",
        what, r.mean_ms, r.mean_error_pct, r.target_ms, r.stddev_ms, r.p99_abs_deviation_ms,
        r.max_abs_deviation_ms, mean_ok ? "yes" : "NO", p99_ok ? "yes" : "NO");
}

}  // namespace

int main(int argc, char** argv) {
    const fs::path here = fs::canonical("/proc/self/exe").parent_path();
    std::string exe = (here / "framelock").string();
    std::string fixtures = (here / "fixtures").string();
    double seconds = 10;
    // Three flags: parsed by hand (CLI11 costs more to compile than this program).
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        if (flag == "--framelock" && i + 1 < argc) {
            exe = argv[++i];
        } else if (flag == "--fixtures" && i + 1 < argc) {
            fixtures = argv[++i];
        } else if (flag == "--seconds" && i + 1 < argc) {
            seconds = std::atof(argv[++i]);
        } else {
            std::fprintf(flag == "--help" ? stdout : stderr,
                         "usage: bench_frame_pacing [--framelock EXE] [--fixtures DIR] "
                         "[--seconds 10]\n");
            return flag == "--help" ? 0 : 2;
        }
    }

    if (!fs::exists("/usr/bin/Xvfb")) {
        fmt::print("frame_pacing  skipped: Xvfb is not installed (apt-get install xvfb xauth)\n");
        return 0;
    }
    Xvfb xvfb;
    if (!xvfb.start()) {
        fmt::print(stderr, "frame_pacing: Xvfb did not start\n");
        return 2;
    }
    std::vector<Case> cases{{"arcade game", "arcade", 60.0, seconds}};
    for (const auto& [file, fps] : {std::pair{"fake_59hz_libretro.so", 59.185606},
                                    std::pair{"fake_57hz_libretro.so", 57.5}}) {
        const fs::path core = fs::path(fixtures) / file;
        if (fs::exists(core))
            cases.push_back({"fixture core", core.string(), fps, seconds / 2});
        else
            fmt::print("frame_pacing  ({} not built: FRAMELOCK_TESTS=OFF; skipped)\n", file);
    }
    const fs::path dir =
        fs::temp_directory_path() / ("framelock-pacing-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    int status = 0;
    for (const Case& c : cases) {
        const int frames = static_cast<int>(std::lround(c.seconds * c.fps)) + 1;
        const std::string log = (dir / "timing.txt").string();
        std::ofstream(dir / "none.toml") << "";  // the defaults, whatever ~/.config holds
        auto child =
            ChildProcess::spawn({exe, "run", "--core", c.core, "--video", "sdl", "--audio", "none",
                                 "--no-sram", "-q", "--config", (dir / "none.toml").string(),
                                 "--frames", std::to_string(frames), "--timing-log", log},
                                (dir / "out.txt").string(), (dir / "err.txt").string());
        if (!child) {
            fmt::print(stderr, "frame_pacing: {}\n", child.error().message);
            status = 2;
            break;
        }
        const auto ended =
            child.value().wait_until(std::chrono::steady_clock::now() + std::chrono::seconds(120));
        if (!ended || !ended->success()) {
            std::ifstream err(dir / "err.txt");
            std::stringstream text;
            text << err.rdbuf();
            fmt::print(stderr, "frame_pacing: framelock run failed: {}\n", text.str());
            status = 2;
            break;
        }
        std::vector<Nanos> issued, returned;
        std::ifstream in(log);
        for (std::string line; std::getline(in, line);) {
            std::istringstream fields(line);
            long long frame = 0, due = 0, sampled = 0, call = 0, back = 0;
            if (!(fields >> frame >> due >> sampled >> call >> back) || frame == 0) continue;
            issued.push_back(call);
            returned.push_back(back);
        }
        fmt::print("frame_pacing  {} at {:.6f} Hz, {} intervals over {:.1f} s of wall time:\n",
                   c.label, c.fps, issued.size() ? issued.size() - 1 : 0,
                   issued.size() > 1 ? (issued.back() - issued.front()) / 1e9 : 0.0);
        print_report("presents", summarize_pacing(issued, c.fps));
        print_report("returns", summarize_pacing(returned, c.fps));
    }
    std::error_code ec;
    fs::remove_all(dir, ec);
    return status;
}
