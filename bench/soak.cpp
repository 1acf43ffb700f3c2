// Figure 9: hostile and honest clients together against one server for
// minutes (support/hostile_clients.h lists the misbehaviours; they run in a
// process of their own, as an attacker's would). Honest
// clients ask for the status and run executions throughout; every one of
// their requests must be answered. The server's memory, descriptors and
// answer latency are measured before the attack (honest clients alone),
// during it, and after the hostile clients have gone, against the start.

#include "figures.h"
#include "support/hostile_clients.h"
#include "support/measure.h"
#include "support/served.h"

#include "neuron/protocol/simple_client.h"

#include <fmt/format.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <thread>

namespace neuron::bench {
namespace {

using protocol::message_type;

int descriptors_of(pid_t pid) {
    int n = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(fmt::format("/proc/{}/fd", pid))) ++n;
    return n;
}

// Status round trips and executions until stopped; latencies go to the
// window that is current when each request ends.
class honest_clients {
public:
    honest_clients(const std::string& socket, const std::string& models) {
        std::ifstream in(models + "/add.yaml");
        const std::string add{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
        m_threads.emplace_back([this, socket] {
            run([&] {
                protocol::simple_client c(socket, protocol::peer_role::control, "honest-ctl");
                while (!m_stop) {
                    record(time_once([&] {
                        (void)c.call<protocol::status_report>(message_type::status, protocol::empty_body{},
                                                              message_type::status_report);
                    }));
                }
            });
        });
        m_threads.emplace_back([this, socket, add] {
            run([&] {
                protocol::simple_client c(socket, protocol::peer_role::runtime, "honest-app");
                c.call<protocol::session_opened>(message_type::open_session,
                                                 protocol::open_session{1, protocol::core_selection::count, 0, 1},
                                                 message_type::session_opened);
                const auto m = c.call<protocol::model_loaded>(message_type::load_model, protocol::load_model{-1, add},
                                                              message_type::model_loaded);
                while (!m_stop) {
                    const auto r = c.call<protocol::executed>(message_type::execute, protocol::execute{m.model_id, 1},
                                                              message_type::executed);
                    if (r.status != 0) throw std::runtime_error(fmt::format("an execution failed: {}", r.status));
                    ++m_executions;
                }
            });
        });
    }
    ~honest_clients() { stop(); }

    void stop() {
        m_stop = true;
        for (auto& t : m_threads) {
            if (t.joinable()) t.join();
        }
    }
    // Starts a new latency window; returns the one that ended.
    samples next_window() {
        std::lock_guard lock(m_mutex);
        return std::exchange(m_window, {});
    }
    std::uint64_t failures() const { return m_failures; }
    std::uint64_t executions() const { return m_executions; }
    std::string first_failure() const {
        std::lock_guard lock(m_mutex);
        return m_first_failure;
    }

private:
    template <typename F>
    void run(F&& loop) {
        while (!m_stop) {
            try {
                loop();
            } catch (const std::exception& e) {
                ++m_failures;
                std::lock_guard lock(m_mutex);
                if (m_first_failure.empty()) m_first_failure = e.what();
            }
        }
    }
    void record(nanoseconds d) {
        std::lock_guard lock(m_mutex);
        m_window.add(d);
    }

    std::atomic<bool> m_stop{false};
    std::atomic<std::uint64_t> m_failures{0};
    std::atomic<std::uint64_t> m_executions{0};
    mutable std::mutex m_mutex;
    samples m_window;
    std::string m_first_failure;
    std::vector<std::thread> m_threads;
};

struct snapshot {
    double rss = 0;
    int fds = 0;
    samples latency;
};

snapshot settle_and_measure(served& emulator, honest_clients& honest, std::chrono::seconds window) {
    (void)honest.next_window();
    std::this_thread::sleep_for(window); // a measuring window of wall-clock time, not a synchronisation
    return {emulator.rss_mib(), descriptors_of(emulator.pid()), honest.next_window()};
}

} // namespace

void soak(const context& c) {
    crowd_process crowd; // before any thread of ours
    served emulator(c.emulator, serve_options("trn1.32xlarge").realtime());
    const auto attack = std::chrono::seconds(c.quick ? 20 : 180);
    const auto window = std::chrono::seconds(5);
    honest_clients honest(emulator.control_path(), c.models);
    const auto start = settle_and_measure(emulator, honest, window);

    double peak_rss = start.rss;
    samples during;
    std::string crowd_summary;
    {
        crowd.start(emulator.control_path(), c.models);
        const auto until = clock::now() + attack;
        (void)honest.next_window();
        while (clock::now() < until) {
            std::this_thread::sleep_for(std::chrono::seconds(1));
            peak_rss = std::max(peak_rss, emulator.rss_mib());
        }
        during = honest.next_window();
        crowd_summary = crowd.stop();
    }
    // The hello timeout (10 s) closes what the silent clients left connected.
    std::this_thread::sleep_for(std::chrono::seconds(12));
    const auto end = settle_and_measure(emulator, honest, window);
    honest.stop();
    const auto executions = honest.executions();

    print({"9 soak: honest requests failed", static_cast<double>(honest.failures()), 0, "", goal::value_at_most, 0,
           fmt::format("{} s of attack; {} honest executions; first failure: {}; hostile rounds: {}", attack.count(),
                       executions, honest.first_failure().empty() ? "none" : honest.first_failure(), crowd_summary)});
    print({"9 soak: status p99 during the attack", during.p99() / 1e3, start.latency.p99() / 1e3, "us", goal::info, 0,
           fmt::format("p50 {:.0f} us against {:.0f} us with honest clients alone", during.median() / 1e3,
                       start.latency.median() / 1e3)});
    print({"9 soak: status p99 after / before", end.latency.p99() / 1e3, start.latency.p99() / 1e3, "us",
           goal::ratio_at_most, 3.0,
           fmt::format("p50 {:.0f} us after, {:.0f} us before", end.latency.median() / 1e3,
                       start.latency.median() / 1e3)});
    print({"9 soak: descriptors after / before", static_cast<double>(end.fds), static_cast<double>(start.fds), "",
           goal::ratio_at_most, 1.0, "the server's /proc/PID/fd entries"});
    print({"9 soak: RSS after / before", end.rss, start.rss, "MiB", goal::value_at_most, start.rss + 64,
           fmt::format("peak {:.0f} MiB during the attack (debug streams may hold 256 MiB); target: start + 64 MiB",
                       peak_rss)});
    emulator.stop();
}

} // namespace neuron::bench
