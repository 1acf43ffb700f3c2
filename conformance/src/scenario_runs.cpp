#include "neuron/conformance/scenario_runs.h"

#include "neuron/conformance/isolated_run.h"
#include "record_line.h"

#include <fmt/format.h>

#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace neuron::conformance {
namespace {

std::optional<verdict> verdict_named(std::string_view name) {
    for (const auto v : {verdict::pass, verdict::fail, verdict::skip}) {
        if (verdict_name(v) == name) return v;
    }
    return std::nullopt;
}

std::vector<std::string> outcome_record(std::size_t index, const scenario_outcome& o) {
    return {std::to_string(index),
            std::string(verdict_name(o.result)),
            o.reason,
            o.where,
            o.step,
            o.details,
            std::to_string(o.duration.count())};
}

template <typename Number>
std::optional<Number> number(std::string_view text) {
    Number n{};
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
    return n;
}

scenario_outcome failed(std::string reason) {
    scenario_outcome o;
    o.result = verdict::fail;
    o.reason = std::move(reason);
    return o;
}

scenario_outcome run_one(const scenario_run& r, const tool_paths& tools) {
    if (r.decided) return *r.decided;
    return run_isolated(*r.what, r.target, tools, r.timeout);
}

// A worker's side: runs the indices it is sent, one at a time, and sends
// back each outcome; ends when its input closes or a stop was requested.
[[noreturn]] void work(int commands, int results, std::span<const scenario_run> runs, const tool_paths& tools) {
    ::prctl(PR_SET_CHILD_SUBREAPER, 1);
    record_reader reader;
    std::vector<std::string> fields;
    char buffer[256];
    while (!stop_requested()) {
        if (!reader.next(fields)) {
            const auto n = ::read(commands, buffer, sizeof buffer);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;
            reader.add(std::string_view(buffer, static_cast<std::size_t>(n)));
            continue;
        }
        const auto index = fields.size() == 1 ? number<std::size_t>(fields[0]) : std::nullopt;
        if (!index || *index >= runs.size()) break;
        if (!send_record(results, outcome_record(*index, run_one(runs[*index], tools)))) break;
    }
    ::_exit(0);
}

struct worker {
    pid_t pid = -1;
    int commands = -1; // we write run indices
    int results = -1;  // it writes outcomes
    record_reader reader;
    std::optional<std::size_t> running;
};

std::string how_it_ended(int status) {
    if (WIFSIGNALED(status)) return fmt::format("signal {}", WTERMSIG(status));
    return fmt::format("exit {}", WEXITSTATUS(status));
}

class worker_pool {
public:
    worker_pool(std::span<const scenario_run> runs, const tool_paths& tools, const run_limits& limits,
                const std::function<void(std::size_t, const scenario_outcome&)>& done)
            : m_runs(runs), m_tools(tools), m_limits(limits), m_done(done), m_outcomes(runs.size()) {}

    std::size_t run() {
        report_decided();
        std::size_t waiting = 0; // runs that need a worker
        for (auto i = m_next; i < m_runs.size(); ++i) waiting += !m_runs[i].decided;
        const auto count = m_stopped ? 0 : std::min<std::size_t>(m_limits.workers, waiting);
        for (std::size_t i = 0; i < count; ++i) start_worker();
        if (m_workers.empty() && count > 0) {
            record(m_next, failed(fmt::format("cannot start a worker process: {}", std::strerror(errno))));
            return m_reported;
        }
        for (auto& w : m_workers) hand_out(w);
        while (busy()) {
            if (stop_requested() && !m_signalled) {
                // Each worker cuts its scenario off, reports it and ends.
                for (const auto& w : m_workers) {
                    if (w.pid > 0) ::kill(w.pid, SIGTERM);
                }
                m_signalled = true;
                m_stopped = true;
            }
            wait_for_results();
        }
        for (auto& w : m_workers) retire(w);
        return m_reported;
    }

private:
    void start_worker() {
        int commands[2], results[2];
        if (::pipe2(commands, O_CLOEXEC) != 0) return;
        if (::pipe2(results, O_CLOEXEC) != 0) {
            ::close(commands[0]);
            ::close(commands[1]);
            return;
        }
        std::fflush(nullptr);
        const pid_t pid = ::fork();
        if (pid == 0) {
            for (const auto& w : m_workers) {
                ::close(w.commands);
                ::close(w.results);
            }
            ::close(commands[1]);
            ::close(results[0]);
            work(commands[0], results[1], m_runs, m_tools);
        }
        ::close(commands[0]);
        ::close(results[1]);
        if (pid < 0) {
            ::close(commands[1]);
            ::close(results[0]);
            return;
        }
        worker w;
        w.pid = pid;
        w.commands = commands[1];
        w.results = results[0];
        m_workers.push_back(std::move(w));
    }

    // Gives the worker the next run that needs one; reports the decided
    // ones on the way. Closes its input when nothing is left.
    void hand_out(worker& w) {
        report_decided();
        if (m_stopped || m_next == m_runs.size()) {
            if (w.commands >= 0) ::close(w.commands);
            w.commands = -1;
            return;
        }
        const auto index = m_next++;
        if (!send_record(w.commands, {std::to_string(index)})) {
            record(index, failed("the worker process that was to run it had ended"));
            ::close(w.commands);
            w.commands = -1;
            return;
        }
        w.running = index;
    }

    // Runs whose verdict is known need no worker: reported as their turn comes.
    void report_decided() {
        while (!m_stopped && m_next < m_runs.size() && m_runs[m_next].decided) {
            record(m_next, *m_runs[m_next].decided);
            ++m_next;
        }
    }

    bool busy() const {
        for (const auto& w : m_workers) {
            if (w.results >= 0) return true;
        }
        return false;
    }

    void wait_for_results() {
        std::vector<pollfd> fds;
        std::vector<worker*> owners;
        for (auto& w : m_workers) {
            if (w.results < 0) continue;
            fds.push_back({w.results, POLLIN, 0});
            owners.push_back(&w);
        }
        const int n = ::poll(fds.data(), fds.size(), 1000);
        if (n <= 0) return; // a signal (request_stop) or nothing yet
        for (std::size_t i = 0; i < fds.size(); ++i) {
            if (fds[i].revents != 0) read_from(*owners[i]);
        }
    }

    void read_from(worker& w) {
        char buffer[65536];
        const auto n = ::read(w.results, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) return;
        if (n <= 0) {
            retire(w);
            return;
        }
        w.reader.add(std::string_view(buffer, static_cast<std::size_t>(n)));
        for (std::vector<std::string> fields; w.reader.next(fields);) {
            const auto index = fields.size() == 7 ? number<std::size_t>(fields[0]) : std::nullopt;
            const auto result = fields.size() == 7 ? verdict_named(fields[1]) : std::nullopt;
            const auto nanos = fields.size() == 7 ? number<std::int64_t>(fields[6]) : std::nullopt;
            if (!index || !result || !nanos || w.running != *index) continue;
            scenario_outcome o;
            o.result = *result;
            o.reason = std::move(fields[2]);
            o.where = std::move(fields[3]);
            o.step = std::move(fields[4]);
            o.details = std::move(fields[5]);
            o.duration = nanoseconds(*nanos);
            w.running.reset();
            record(*index, o);
            hand_out(w);
        }
    }

    // The worker has ended (or is told to): what it was running fails.
    void retire(worker& w) {
        if (w.commands >= 0) ::close(w.commands);
        if (w.results >= 0) ::close(w.results);
        w.commands = w.results = -1;
        if (w.pid <= 0) return;
        int status = 0;
        while (::waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {}
        w.pid = -1;
        if (w.running) {
            record(*w.running, failed(fmt::format("the worker process running it ended ({}) without its verdict",
                                                  how_it_ended(status))));
            w.running.reset();
        }
    }

    void record(std::size_t index, const scenario_outcome& o) {
        if (o.result == verdict::fail && m_limits.stop_on_failure) m_stopped = true;
        m_outcomes[index] = o;
        while (m_reported < m_outcomes.size() && m_outcomes[m_reported]) {
            m_done(m_reported, *m_outcomes[m_reported]);
            ++m_reported;
        }
    }

    std::span<const scenario_run> m_runs;
    const tool_paths& m_tools;
    run_limits m_limits;
    const std::function<void(std::size_t, const scenario_outcome&)>& m_done;
    std::vector<std::optional<scenario_outcome>> m_outcomes;
    std::vector<worker> m_workers;
    std::size_t m_next = 0;
    std::size_t m_reported = 0;
    bool m_stopped = false;
    bool m_signalled = false;
};

} // namespace

std::size_t run_scenarios(std::span<const scenario_run> runs, const tool_paths& tools, const run_limits& limits,
                          const std::function<void(std::size_t, const scenario_outcome&)>& done) {
    if (limits.workers > 1) return worker_pool(runs, tools, limits, done).run();
    std::size_t reported = 0;
    for (const auto& r : runs) {
        if (stop_requested()) break;
        const auto outcome = run_one(r, tools);
        done(reported++, outcome);
        if (outcome.result == verdict::fail && limits.stop_on_failure) break;
    }
    return reported;
}

} // namespace neuron::conformance
