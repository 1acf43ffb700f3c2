#include "neuron/model/simulation.h"

#include "command_port.h"
#include "neuron/model/errors.h"
#include "neuron/model/platform.h"

#include <atomic>
#include <condition_variable>
#include <fmt/format.h>
#include <mutex>
#include <optional>
#include <thread>

namespace neuron::model {
namespace {

std::atomic<bool> g_elaborated{false};

sc_core::sc_time ns_to_sc(std::uint64_t ns) {
    return sc_core::sc_time(static_cast<double>(ns), sc_core::SC_NS);
}

std::uint64_t sc_to_ns(const sc_core::sc_time& t) {
    // The kernel keeps the default 1 ps resolution.
    return t.value() / 1000;
}

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
void throw_stopped() { throw simulation_error("the simulation has stopped"); }
} // namespace detail

class simulation::kernel {
public:
    explicit kernel(const platform_config& config)
        : m_config(config), m_state(make_published_state(config)) {
        std::promise<void> started;
        auto ready = started.get_future();
        m_thread = std::thread([this, &started] { main(started); });
        try {
            ready.get();
        } catch (...) {
            m_thread.join();
            throw;
        }
    }

    ~kernel() { stop(); }

    void stop() {
        if (std::this_thread::get_id() == m_thread.get_id()) {
            throw simulation_error("stop called from the kernel thread");
        }
        {
            std::lock_guard lock(m_mutex);
            m_stop = true;
        }
        m_wake.notify_all();
        if (m_thread.joinable()) m_thread.join();
    }

    void enqueue(task t) {
        std::unique_lock lock(m_mutex);
        if (!m_accepting) {
            lock.unlock();
            t(nullptr);
            return;
        }
        if (std::this_thread::get_id() == m_thread.get_id()) {
            lock.unlock();
            throw simulation_error("model work posted from the kernel thread would wait for itself");
        }
        m_port->post_locked([this, t = std::move(t)] { t(m_platform.get()); });
        m_pending = true;
        lock.unlock();
        m_wake.notify_all();
    }

    void advance(std::chrono::nanoseconds duration) {
        if (m_config.mode != time_mode::stepped) {
            throw simulation_error("advance needs stepped time; this simulation runs in realtime");
        }
        if (duration.count() < 0) throw invalid_argument_error("cannot advance by a negative duration");
        std::promise<void> done;
        auto finished = done.get_future();
        {
            std::unique_lock lock(m_mutex);
            if (!m_accepting) detail::throw_stopped();
            if (std::this_thread::get_id() == m_thread.get_id()) {
                throw simulation_error("advance called from the kernel thread");
            }
            m_advances.push_back({static_cast<std::uint64_t>(duration.count()), std::move(done)});
        }
        m_wake.notify_all();
        finished.get();
    }

    const published_state& published() const { return *m_state; }

private:
    struct advance_request {
        std::uint64_t ns;
        std::promise<void> done;
    };

    void main(std::promise<void>& started) {
        try {
            elaborate();
        } catch (...) {
            m_platform.reset();
            started.set_exception(std::current_exception());
            return;
        }
        started.set_value();
        if (m_config.mode == time_mode::stepped) {
            run_stepped();
        } else {
            run_realtime();
        }
        shut_down();
    }

    void elaborate() {
        if (g_elaborated.exchange(true)) {
            throw simulation_error("this process already ran a simulation; SystemC allows one per process");
        }
        sc_core::sc_report_handler::set_handler(report_handler);
        validate(m_config);
        m_platform = std::make_unique<platform>("instance", m_config, *m_state);
        m_port = std::make_unique<command_port>("commands", m_mutex, [this] { return lag(); });
        sc_core::sc_start(sc_core::SC_ZERO_TIME);
        m_state->clock().anchor(0, sim_clock::wall_clock::now());
        std::lock_guard lock(m_mutex);
        m_accepting = true;
    }

    // How far simulated time trails the wall clock (always zero when stepped).
    sc_core::sc_time lag() const {
        const auto& clock = m_state->clock();
        if (clock.mode() == time_mode::stepped) return sc_core::SC_ZERO_TIME;
        const auto target = clock.sim_at(sim_clock::wall_clock::now());
        const auto now = sc_to_ns(sc_core::sc_time_stamp());
        return target > now ? ns_to_sc(target - now) : sc_core::SC_ZERO_TIME;
    }

    // Runs every delta cycle due now, including posted commands (a pending
    // async update counts as activity).
    void settle() {
        while (sc_core::sc_pending_activity_at_current_time()) sc_core::sc_start(sc_core::SC_ZERO_TIME);
        m_state->clock().publish(sc_to_ns(sc_core::sc_time_stamp()));
    }

    void run_stepped() {
        for (;;) {
            std::optional<advance_request> step;
            {
                std::unique_lock lock(m_mutex);
                m_wake.wait(lock, [this] { return m_stop || m_pending || !m_advances.empty(); });
                if (m_stop) return;
                m_pending = false;
                if (!m_advances.empty()) {
                    step.emplace(std::move(m_advances.front()));
                    m_advances.pop_front();
                }
            }
            settle();
            if (step) {
                try {
                    run_for(step->ns);
                    step->done.set_value();
                } catch (...) {
                    step->done.set_exception(std::current_exception());
                }
            }
        }
    }

    void run_for(std::uint64_t ns) {
        const auto now = sc_core::sc_time_stamp();
        const auto room = sc_core::sc_max_time() - now;
        if (ns_to_sc(ns) > room) {
            throw invalid_argument_error(fmt::format(
                "cannot advance by {} ns: simulated time would pass its limit of {} ns", ns,
                sc_to_ns(sc_core::sc_max_time())));
        }
        if (ns > 0) sc_core::sc_start(ns_to_sc(ns));
        settle();
    }

    void run_realtime() {
        auto& clock = m_state->clock();
        for (;;) {
            {
                std::unique_lock lock(m_mutex);
                const auto next = sc_core::sc_time_stamp() + sc_core::sc_time_to_pending_activity();
                const auto deadline = clock.wall_at(sc_to_ns(next));
                m_wake.wait_until(lock, deadline, [this] { return m_stop || m_pending; });
                if (m_stop) return;
                m_pending = false;
            }
            settle();
            const auto target = clock.sim_at(sim_clock::wall_clock::now());
            const auto now = sc_to_ns(sc_core::sc_time_stamp());
            if (target > now) run_for(target - now);
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
        for (auto& s : steps) s.done.set_exception(std::make_exception_ptr(simulation_error("the simulation has stopped")));
        m_port.reset();
    }

    platform_config m_config;
    std::thread m_thread;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_stop = false;
    bool m_pending = false;
    bool m_accepting = false;
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
