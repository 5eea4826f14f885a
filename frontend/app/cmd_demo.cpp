// `framelock demo`: two bots play the arcade game through a delaying proxy
// (frontend/app/demo.h); exit 0 when their states are identical.
#include <cstdint>
#include <memory>

#include "common/stop_signal.h"
#include "frontend/app/command_error.h"
#include "frontend/app/commands.h"
#include "frontend/app/demo.h"

namespace framelock::frontend {
namespace {

int cmd_demo(const DemoOptions& options) {
    install_stop_signal_handlers();
    auto report = run_demo(options);
    if (!report) return fail(report.error());
    print_demo_report(report.value());
    return report.value().comparison.identical ? 0 : 1;
}

}  // namespace

Subcommand add_demo_command(CLI::App& app) {
    auto options = std::make_shared<DemoOptions>();
    CLI::App* demo = app.add_subcommand(
        "demo", "two bots play the arcade game through a delaying proxy; compare their states");
    demo->add_option("--frames", options->frames, "frames each client plays")
        ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{10'000'000}))
        ->capture_default_str();
    demo->add_option("--rtt", options->rtt_ms, "round trip added by the proxy (ms)")
        ->check(CLI::Range(0.0, 10000.0))
        ->capture_default_str();
    demo->add_option("--jitter", options->jitter_ms, "+/- jitter each way (ms)")
        ->check(CLI::Range(0.0, 10000.0));
    demo->add_option("--loss", options->loss_pct, "datagram loss each way (%)")
        ->check(CLI::Range(0.0, 100.0));
    demo->add_option("--out", options->out_dir, "directory for logs, statistics, pictures")
        ->capture_default_str();
    return {demo, [options] { return cmd_demo(*options); }};
}

}  // namespace framelock::frontend
