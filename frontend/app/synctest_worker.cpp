#include "frontend/app/synctest_worker.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <system_error>
#include <utility>
#include <vector>

namespace framelock::frontend::synctest {

namespace fs = std::filesystem;

namespace {

std::vector<std::string> worker_command(const SynctestOptions& options, const std::string& mode,
                                        const fs::path& dir) {
    std::vector<std::string> args = options.self_command;
    args.insert(args.end(), {"--worker", mode, "--worker-dir", dir.string()});
    return args;
}

}  // namespace

Result<std::unique_ptr<WorkerCore>> open_worker_core(const SynctestOptions& options) {
    HostConfig host = options.host;
    host.load_sram = false;
    host.write_sram = false;
    auto input = make_input_source(options.input_script,
                                   options.input_script.empty() && !options.random_seed
                                       ? std::optional<std::uint64_t>(1)
                                       : options.random_seed,
                                   host.ports);
    if (!input) return input.error();
    auto emulator = RetroEmulator::create(host);
    if (!emulator) return emulator.error();
    auto core = std::make_unique<WorkerCore>();
    core->emulator = std::move(emulator).value();
    core->input = std::move(input).value();
    core->video.keep_last_frame(true);
    core->emulator->set_video_sink(&core->video);
    core->emulator->set_audio_sink(&core->audio);
    return core;
}

std::string last_line_of(const fs::path& path) {
    std::ifstream in(path);
    std::string line, last;
    while (std::getline(in, line))
        if (!line.empty()) last = line;
    return last;
}

std::string crash_message(const ExitStatus& status, const std::string& what,
                          const fs::path& stderr_path) {
    std::string message = "the core " +
                          std::string(status.signal ? "crashed" : "ended its process") + " (" +
                          status.describe() + ") " + what;
    const std::string last = last_line_of(stderr_path);
    if (!last.empty()) message += "; its last message: " + last;
    return message;
}

std::optional<std::string> read_line(std::FILE* in) {
    char buffer[kMaxLine];
    if (!std::fgets(buffer, sizeof buffer, in)) return std::nullopt;
    return std::string(buffer, strcspn(buffer, "\r\n"));
}

bool send_line(ChildProcess& child, const char* line) {
    const std::size_t length = std::strlen(line);
    std::size_t done = 0;
    while (done < length) {
        const ssize_t n = ::write(child.stdin_fd(), line + done, length - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        done += static_cast<std::size_t>(n);
    }
    return true;
}

Result<std::unique_ptr<PipedWorker>> start_worker(const SynctestOptions& options,
                                                  const std::string& mode, const fs::path& dir) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec)
        return make_error(ErrorCode::kIo, "cannot create " + dir.string() + ": " + ec.message());
    const fs::path stderr_path = dir / "worker.stderr";
    auto child =
        ChildProcess::spawn_piped(worker_command(options, mode, dir), stderr_path.string());
    if (!child) return child.error();
    auto worker = std::make_unique<PipedWorker>(std::move(child).value());
    worker->dir = dir;
    worker->stderr_path = stderr_path;
    worker->out = ::fdopen(::dup(worker->child.stdout_fd()), "r");
    if (!worker->out) return make_error(ErrorCode::kIo, "cannot read from the synctest worker");
    return worker;
}

ExitStatus finish_worker(PipedWorker& worker) {
    worker.child.close_pipes();
    auto status =
        worker.child.wait_until(std::chrono::steady_clock::now() + std::chrono::seconds(10));
    return status ? *status : worker.child.stop(std::chrono::milliseconds(500));
}

}  // namespace framelock::frontend::synctest
