#include "neuron/model/runtime/simulation.h"

#include "command_port.h"
#include "neuron/common/wake_signal.h"
#include "neuron/model/runtime/platform.h"
#include "neuron/model/spec/errors.h"
#include "neuron/model/state/make_published_state.h"
#include "sc_ns.h"

#include <algorithm>
#include <atomic>
#include <fmt/format.h>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace neuron::model {
namespace {

std::atomic<bool> g_elaborated{false};

std::uint64_t limit_ns() { return sc_to_ns(sc_core::sc_max_time()); }

std::uint64_t now_ns() { return sc_to_ns(sc_core::sc_time_stamp()); }

// SystemC prints warnings to stdout; ours go to stderr, errors still throw.
void report_handler(const sc_core::sc_report& report, const sc_core::sc_actions& actions) {
    if (report.get_severity() == sc_core::SC_WARNING) {
        fmt::print(stderr, "neuron-emu: systemc warning W{}: {}\n", report.get_id(), report.get_msg_type());
        return;
    }
    if (report.get_severity() == sc_core::SC_INFO) return;
    sc_core::sc_report_handler::default_handler(report, actions);
}

} // namespace

namespace detail {
void throw_stopped(const std::string& why) {
    throw simulation_error(why.empty() ? std::string("the simulation has stopped")
                                       : fmt::format("the simulation has stopped: {}", why));
}
} // namespace detail

class simulation::kernel {
public:
    explicit kernel(const platform_config& config) : m_config(config), m_state(make_published_state(config)) {
        auto started = std::make_shared<std::promise<void>>();
        auto ready = started->get_future();
        m_thread = std::thread([this, started] { main(*started); });
        try {
            ready.get();
        } catch (...) {
            m_thread.join();
            throw;
        }
    }

    ~kernel() { stop(); }

    void stop() {
        if (on_kernel_thread()) throw simulation_error("stop called from the kernel thread");
        {
            std::lock_guard lock(m_mutex);
            m_stop = true;
        }
        m_wake.wake();
        std::lock_guard join(m_join_mutex);
        if (m_thread.joinable()) m_thread.join();
    }

    void enqueue(task t) {
        if (on_kernel_thread()) {
            throw simulation_error("model work posted from the kernel thread would wait for itself");
        }
        std::unique_lock lock(m_mutex);
        if (!m_accepting) {
            const auto why = m_stopped_because;
            lock.unlock();
            t(nullptr, why);
            return;
        }
        // Tasks orphaned by a stop run in shut_down(), after the reason is set.
        m_port->post_locked([this, t = std::move(t)] { t(m_platform.get(), m_stopped_because); });
        m_pending = true;
        lock.unlock();
        m_wake.wake();
    }

    void advance(std::chrono::nanoseconds duration) {
        if (m_config.mode != time_mode::stepped) {
            throw simulation_error("advance needs stepped time; this simulation runs in realtime");
        }
        if (duration.count() < 0) throw invalid_argument_error("cannot advance by a negative duration");
        if (on_kernel_thread()) throw simulation_error("advance called from the kernel thread");
        std::promise<void> done;
        auto finished = done.get_future();
        {
            std::lock_guard lock(m_mutex);
            if (!m_accepting) detail::throw_stopped(m_stopped_because);
            m_advances.push_back({static_cast<std::uint64_t>(duration.count()), std::move(done)});
        }
        m_wake.wake();
        finished.get();
    }

    const published_state& published() const { return *m_state; }

private:
    struct advance_request {
        std::uint64_t ns;
        std::promise<void> done;
    };

    bool on_kernel_thread() const { return std::this_thread::get_id() == m_kernel_id; }

    // Returns false once `until` passed.
    bool sleep(std::unique_lock<std::mutex>& lock, std::optional<sim_clock::wall_clock::time_point> until) {
        lock.unlock();
        const bool woken = m_wake.sleep(until);
        lock.lock();
        return woken;
    }

    void main(std::promise<void>& started) {
        m_kernel_id = std::this_thread::get_id();
        try {
            elaborate();
        } catch (...) {
            m_port.reset();
            m_platform.reset();
            started.set_exception(std::current_exception());
            return;
        }
        started.set_value();
        try {
            if (m_config.mode == time_mode::stepped) {
                run_stepped();
            } else {
                run_realtime();
            }
        } catch (const std::exception& e) {
            fmt::print(stderr, "neuron-emu: the simulation stopped on an error: {}\n", e.what());
            std::lock_guard lock(m_mutex);
            m_stopped_because = e.what();
        }
        shut_down();
    }

    void elaborate() {
        if (g_elaborated.exchange(true)) {
            throw simulation_error("this process already ran a simulation; SystemC allows one per process");
        }
        sc_core::sc_report_handler::set_handler(report_handler);
        m_platform = std::make_unique<platform>("instance", m_config, *m_state);
        m_port = std::make_unique<command_port>(
            "commands", m_mutex, [this] { return when_to_run(); }, [this] { m_state->clock().publish(now_ns()); });
        sc_core::sc_start(sc_core::SC_ZERO_TIME);
        m_state->clock().anchor(0, sim_clock::wall_clock::now(), limit_ns());
        std::lock_guard lock(m_mutex);
        m_accepting = true;
    }

    // When posted work runs. Stepped: now, unless an advance is under way;
    // then it waits for the advance to end, so stepped runs stay
    // deterministic. Realtime: once simulated time has caught up with the
    // wall clock.
    std::optional<sc_core::sc_time> when_to_run() const {
        if (m_config.mode == time_mode::stepped) {
            if (m_advancing) return std::nullopt;
            return sc_core::SC_ZERO_TIME;
        }
        const auto target = m_state->clock().sim_at(sim_clock::wall_clock::now());
        const auto now = now_ns();
        return target > now ? ns_to_sc(target - now) : sc_core::SC_ZERO_TIME;
    }

    // Runs every delta cycle due now, including posted commands (a pending
    // async update counts as activity).
    void settle() {
        while (sc_core::sc_pending_activity_at_current_time()) sc_core::sc_start(sc_core::SC_ZERO_TIME);
        m_state->clock().publish(now_ns());
    }

    void run_stepped() {
        for (;;) {
            std::optional<advance_request> step;
            {
                std::unique_lock lock(m_mutex);
                while (!m_stop && !m_pending && m_advances.empty()) sleep(lock, std::nullopt);
                if (m_stop) return;
                m_pending = false;
                if (!m_advances.empty()) {
                    step.emplace(std::move(m_advances.front()));
                    m_advances.pop_front();
                }
            }
            settle();
            if (!step) continue;
            try {
                run_for(checked_duration(step->ns));
                step->done.set_value();
            } catch (const invalid_argument_error&) {
                step->done.set_exception(std::current_exception());
            } catch (...) {
                step->done.set_exception(std::current_exception());
                throw;
            }
        }
    }

    std::uint64_t checked_duration(std::uint64_t ns) const {
        if (ns > limit_ns() - now_ns()) {
            throw invalid_argument_error(fmt::format(
                "cannot advance by {} ns: simulated time is at {} ns and ends at {} ns (SystemC's maximum time)", ns,
                now_ns(), limit_ns()));
        }
        return ns;
    }

    void run_for(std::uint64_t ns) {
        if (ns > 0) {
            m_advancing = true;
            sc_core::sc_start(ns_to_sc(ns));
            m_advancing = false;
            std::lock_guard lock(m_mutex);
            m_port->release_held_locked();
        }
        settle();
    }

    // Realtime time cannot go on past the kernel's limit, and a model whose
    // time stands still would leave every reset and execution in progress
    // for good: the simulation ends there instead, saying why.
    [[noreturn]] void end_of_time() const {
        constexpr double ns_per_day = 86'400e9;
        throw simulation_error(fmt::format(
            "simulated time reached its end at {} ns ({:.1f} days, SystemC's maximum time at its 1 ps resolution), "
            "{:.1f} days of wall-clock time at real-time factor {}",
            limit_ns(), static_cast<double>(limit_ns()) / ns_per_day,
            static_cast<double>(limit_ns()) / ns_per_day / m_config.real_time_factor, m_config.real_time_factor));
    }

    void run_realtime() {
        auto& clock = m_state->clock();
        for (;;) {
            {
                std::unique_lock lock(m_mutex);
                // Sleep until the next event is due on the wall clock (never
                // later than the kernel's time limit).
                const auto now = now_ns();
                const auto to_next = ns_reaching(sc_core::sc_time_to_pending_activity().value());
                const auto next = now + std::min(to_next, limit_ns() - now);
                std::optional<sim_clock::wall_clock::time_point> until;
                if (next > now) until = clock.wall_at(next);
                while (!m_stop && !m_pending) {
                    if (!sleep(lock, until)) break;
                }
                if (m_stop) return;
                m_pending = false;
            }
            settle();
            const auto target = clock.sim_at(sim_clock::wall_clock::now()); // never past the limit
            const auto now = now_ns();
            if (target > now) run_for(target - now);
            if (now_ns() == limit_ns()) end_of_time();
        }
    }

    void shut_down() {
        std::deque<command_port::task> orphans;
        std::deque<advance_request> steps;
        {
            std::lock_guard lock(m_mutex);
            m_accepting = false;
            orphans = m_port->take_all_locked();
            steps.swap(m_advances);
        }
        m_platform.reset(); // the orphaned tasks below see no model and fail
        for (auto& t : orphans) t();
        for (auto& s : steps) {
            try {
                detail::throw_stopped(m_stopped_because);
            } catch (...) {
                s.done.set_exception(std::current_exception());
            }
        }
        m_port.reset();
    }

    platform_config m_config;
    std::thread m_thread;
    std::thread::id m_kernel_id;
    std::mutex m_join_mutex;
    std::mutex m_mutex;
    common::wake_signal m_wake; // given at every change the kernel thread must see
    bool m_stop = false;
    bool m_pending = false;
    bool m_accepting = false;
    bool m_advancing = false;      // kernel thread only
    std::string m_stopped_because; // set before m_accepting turns false; empty: stop()
    std::deque<advance_request> m_advances;
    std::unique_ptr<published_state> m_state;
    std::unique_ptr<platform> m_platform;
    std::unique_ptr<command_port> m_port;
};

simulation::simulation(platform_config config) : m_config(std::move(config)) {
    validate(m_config);
    m_kernel = std::make_unique<kernel>(m_config);
}

simulation::~simulation() = default;

void simulation::enqueue(task t) { m_kernel->enqueue(std::move(t)); }

void simulation::advance(std::chrono::nanoseconds duration) { m_kernel->advance(duration); }

const published_state& simulation::published() const { return m_kernel->published(); }

void simulation::stop() { m_kernel->stop(); }

} // namespace neuron::model
