// Figure 7: four readers scrape the whole trn1.32xlarge tree over and over
// while executions (libnrt programs, one after another) and ECC injections
// run. No read may fail that does not fail on an idle tree, and no counter
// that only grows may be seen going back. Reads per second under load are
// reported against the same readers on the idle tree.

#include "figures.h"
#include "support/measure.h"
#include "support/scrape.h"
#include "support/served.h"

#include "neuron/common/child_process.h"
#include "neuron/protocol/simple_client.h"

#include <fmt/format.h>

#include <atomic>
#include <charconv>
#include <map>
#include <mutex>
#include <set>
#include <thread>

namespace neuron::bench {
namespace {

using protocol::message_type;
constexpr int readers = 4;

// Files whose value never goes down while nothing clears them.
bool only_grows(const std::string& path) {
    const bool counter_total = path.ends_with("/total") && (path.find("/stats/status/") != std::string::npos ||
                                                            path.find("/stats/other_info/") != std::string::npos);
    return counter_total || path.ends_with("/peak") || path.find("/stats/hardware/") != std::string::npos;
}

std::optional<std::uint64_t> value_of(const std::string& text) {
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end == text.data()) return std::nullopt;
    return v;
}

struct reader_stats {
    std::atomic<std::uint64_t> reads{0};
    std::atomic<std::uint64_t> errors{0};
    std::atomic<std::uint64_t> went_back{0};
    std::mutex mutex;
    std::string first_problem;
};

// Readers scraping until `stop`; what they saw goes into `stats`.
void scrape_until(const std::string& tree, const std::set<std::string>& failing_when_idle, std::atomic<bool>& stop,
                  reader_stats& stats) {
    std::vector<std::thread> threads;
    for (int r = 0; r < readers; ++r) {
        threads.emplace_back([&] {
            std::map<std::string, std::uint64_t> seen;
            while (!stop.load()) {
                (void)scrape(tree, [&](const std::string& path, const std::string& text, int error) {
                    stats.reads.fetch_add(1, std::memory_order_relaxed);
                    const auto note = [&](std::string what) {
                        std::lock_guard lock(stats.mutex);
                        if (stats.first_problem.empty()) stats.first_problem = std::move(what);
                    };
                    if (error != 0) {
                        if (!failing_when_idle.contains(path)) {
                            stats.errors.fetch_add(1);
                            note(fmt::format("{}: errno {}", path, error));
                        }
                        return;
                    }
                    if (!only_grows(path)) return;
                    const auto v = value_of(text);
                    if (!v) return;
                    auto& last = seen[path];
                    if (*v < last) {
                        stats.went_back.fetch_add(1);
                        note(fmt::format("{} went from {} to {}", path, last, *v));
                    }
                    last = *v;
                });
            }
        });
    }
    for (auto& t : threads) t.join();
}

double reads_per_second(const reader_stats& s, nanoseconds d) {
    return static_cast<double>(s.reads.load()) / std::chrono::duration<double>(d).count();
}

} // namespace

void load(const context& c) {
    served emulator(c.emulator, serve_options("trn1.32xlarge").realtime());
    std::set<std::string> failing_when_idle;
    (void)scrape(emulator.tree(), [&](const std::string& path, const std::string&, int error) {
        if (error != 0) failing_when_idle.insert(path);
    });

    // Idle: the same readers, nothing else running.
    const auto idle_time = std::chrono::seconds(c.quick ? 2 : 5);
    reader_stats idle;
    std::atomic<bool> stop{false};
    auto start = clock::now();
    std::thread idle_timer([&] {
        std::this_thread::sleep_for(idle_time); // the measurement's length, not a synchronisation
        stop = true;
    });
    scrape_until(emulator.tree(), failing_when_idle, stop, idle);
    idle_timer.join();
    const auto idle_rate = reads_per_second(idle, clock::now() - start);

    // Loaded: executions and ECC injections meanwhile.
    const auto load_time = std::chrono::seconds(c.quick ? 10 : 60);
    reader_stats loaded;
    stop = false;
    std::atomic<std::uint64_t> programs{0}, injections{0};
    std::mutex problem_mutex;
    std::string workload_problem;
    // A workload thread that fails says why and ends the run early.
    const auto guarded = [&](const char* what, auto body) {
        return [&, what, body] {
            try {
                body();
            } catch (const std::exception& e) {
                std::lock_guard lock(problem_mutex);
                if (workload_problem.empty()) workload_problem = fmt::format("{}: {}", what, e.what());
                stop = true;
            }
        };
    };
    start = clock::now();
    std::thread executions(guarded("executions", [&] {
        auto env = common::current_environment();
        env["NEURON_EMU_CONTROL"] = emulator.control_path();
        env["NEURON_RT_VISIBLE_CORES"] = "0"; // device 0; the errors go to the others
        env["LD_LIBRARY_PATH"] = c.library;
        scratch_dir dir;
        while (!stop.load()) {
            common::child_process p({c.run_model, c.models + "/add.yaml", "200"}, env, dir / "run_model.stderr");
            while (p.read_line(std::chrono::seconds(30))) {}
            const auto status = p.wait(std::chrono::seconds(30));
            if (!status || *status != 0) {
                throw std::runtime_error(
                    fmt::format("nrt-run-model ended with status {}: {}", status.value_or(-1), p.err()));
            }
            programs.fetch_add(1);
        }
    }));
    std::thread ecc(guarded("ECC injections", [&] {
        protocol::simple_client control(emulator.control_path(), protocol::peer_role::control, "neuron-bench");
        std::uint32_t device = 0;
        while (!stop.load()) {
            protocol::inject_ecc m;
            // Devices 1..15: an error on device 0 would fail an execution
            // there, and nrt-run-model stops at a failed execution.
            m.device = 1 + device++ % 15;
            m.kind = device % 3 == 0 ? "sram" : "hbm";
            m.count = 1;
            control.call<protocol::empty_body>(message_type::inject_ecc, m, message_type::ok);
            injections.fetch_add(1);
            std::this_thread::sleep_for(std::chrono::milliseconds(5)); // the injection rate
        }
    }));
    std::thread timer([&] {
        const auto until = clock::now() + load_time;
        while (!stop.load() && clock::now() < until) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50)); // the measurement's length
        }
        stop = true;
    });
    scrape_until(emulator.tree(), failing_when_idle, stop, loaded);
    const auto loaded_rate = reads_per_second(loaded, clock::now() - start);
    timer.join();
    executions.join();
    ecc.join();
    if (!workload_problem.empty()) throw std::runtime_error(workload_problem);

    const double problems = static_cast<double>(loaded.errors.load() + loaded.went_back.load());
    print({fmt::format("7a load {} s: read errors + values going back", load_time.count()), problems, 0, "",
           goal::value_at_most, 0,
           fmt::format("{} reads; {} programs of 200 executions, {} ECC injections meanwhile{}", loaded.reads.load(),
                       programs.load(), injections.load(),
                       loaded.first_problem.empty() ? "" : "; first problem: " + loaded.first_problem)});
    print({"7b load: reads/s of 4 scraping readers", loaded_rate, idle_rate, "reads/s", goal::info, 0,
           "baseline: the same readers on the idle tree"});
    emulator.stop();
}

} // namespace neuron::bench
