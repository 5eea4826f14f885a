#include "frontend/app/atlas.h"

#include <fmt/core.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <thread>

#include "frontend/app/atlas_report.h"
#include "frontend/app/command_error.h"
#include "frontend/files/atomic_file.h"
#include "frontend/host/core_locator.h"
#include "frontend/terminal/progress.h"

namespace framelock::frontend {
namespace {

namespace fs = std::filesystem;

struct Job {
    std::size_t core;  // index into the results
    AtlasTask task;
    std::vector<AtlasCheck> checks;
    AtlasCoreIdentity identity;
};

// Runs `jobs` (the indices in `order`) on `workers` threads; `done` counts finished jobs.
void run_pool(const AtlasSettings& settings, const std::vector<AtlasCoreResult>& results,
              std::vector<Job>& jobs, const std::vector<std::size_t>& order, int workers,
              std::atomic<std::size_t>& done) {
    std::atomic<std::size_t> next{0};
    std::vector<std::thread> threads;
    for (int w = 0; w < std::max(1, workers); ++w) {
        threads.emplace_back([&] {
            for (std::size_t i; (i = next.fetch_add(1)) < order.size();) {
                Job& job = jobs[order[i]];
                job.checks =
                    run_atlas_task(settings, results[job.core].core, job.task, &job.identity);
                done.fetch_add(1);
            }
        });
    }
    for (auto& t : threads) t.join();
}

}  // namespace

int run_atlas(const AtlasOptions& options) {
    const auto started = std::chrono::steady_clock::now();
    auto catalogue = load_atlas_catalogue(options.catalogue);
    if (!catalogue) return fail(catalogue.error());
    for (const auto& name : options.only) {
        if (std::none_of(catalogue.value().begin(), catalogue.value().end(),
                         [&](const AtlasCore& c) { return c.name == name; }))
            return fail(make_error(ErrorCode::kUsage,
                                   "--only " + name + ": no such core in " + options.catalogue));
    }
    std::vector<AtlasCoreResult> results;
    const auto dirs = core_search_dirs({});
    for (const auto& core : catalogue.value()) {
        if (!options.only.empty() &&
            std::find(options.only.begin(), options.only.end(), core.name) == options.only.end())
            continue;
        AtlasCoreResult r;
        r.core = core;
        if (!core.unavailable.empty()) {
            r.not_measured = core.unavailable;
        } else if (auto path = locate_core(core.core, dirs); !path) {
            r.not_measured = "not installed here (" + core.package + ")";
        } else {
            r.core_path = path.value();
            r.declares = declared_savestate_features(options.info_dir, r.core_path);
            const fs::path content = fs::path(options.settings.roms_dir) / core.content;
            if (!core.content.empty() && !fs::exists(content))
                r.not_measured = "its test ROM " + content.string() + " was not built";
        }
        results.push_back(std::move(r));
    }

    std::vector<Job> jobs;
    std::vector<std::size_t> sessions, cpu;
    for (std::size_t c = 0; c < results.size(); ++c) {
        if (!results[c].not_measured.empty()) continue;
        for (AtlasTask task : kAtlasTasks) {
            (is_session_task(task) ? sessions : cpu).push_back(jobs.size());
            jobs.push_back({c, task, {}, {}});
        }
    }
    fmt::print("atlas: {} cores, {} measured here: {} checks, {} sessions of {} frames\n",
               results.size(), jobs.size() / std::size(kAtlasTasks), cpu.size(), sessions.size(),
               options.settings.session_frames);
    std::fflush(stdout);
    std::atomic<std::size_t> done{0};
    {
        std::thread session_pool(
            [&] { run_pool(options.settings, results, jobs, sessions, options.sessions, done); });
        std::thread cpu_pool(
            [&] { run_pool(options.settings, results, jobs, cpu, options.cpu_jobs, done); });
        ProgressBar bar("atlas", jobs.size(), options.progress, "checks");
        while (done.load() < jobs.size()) {
            bar.update(done.load());
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
        }
        bar.update(jobs.size());
        session_pool.join();
        cpu_pool.join();
    }
    // Every core's checks in the table's order.
    for (AtlasTask task : kAtlasTasks) {
        for (auto& job : jobs) {
            if (job.task != task) continue;
            auto& r = results[job.core];
            if (task == AtlasTask::kTwice) r.identity = job.identity;
            r.checks.insert(r.checks.end(), job.checks.begin(), job.checks.end());
        }
    }
    for (auto& r : results) {
        decide_verdict(r);
        fmt::print("{:<20} {:<15} {}\n", r.core.name, verdict_word(r.verdict), r.reason);
    }
    AtlasRun run;
    run.check_frames = options.settings.check_frames;
    run.session_frames = options.settings.session_frames;
    run.start_gap_s = options.settings.start_gap_s;
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    fmt::print("atlas: {:.0f} s\n", run.seconds);
    if (!options.markdown_out.empty()) {
        if (Status s = write_file_atomic(options.markdown_out, atlas_markdown(results, run)); !s)
            return fail(s.error());
        fmt::print("atlas: wrote {}\n", options.markdown_out);
    }
    if (!options.json_out.empty()) {
        if (Status s = write_file_atomic(options.json_out, atlas_json(results, run)); !s)
            return fail(s.error());
        fmt::print("atlas: wrote {}\n", options.json_out);
    }
    return 0;
}

}  // namespace framelock::frontend
