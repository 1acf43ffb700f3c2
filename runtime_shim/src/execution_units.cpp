#include "execution_units.h"

#include "api.h"
#include "rate_limited_log.h"
#include "runtime.h"

#include <condition_variable>
#include <deque>
#include <fcntl.h>
#include <map>
#include <memory>
#include <mutex>
#include <sys/eventfd.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace neuron::shim {
namespace {

// Statuses after which a unit is dead until nrt_close (§7.2: timeouts and
// detected hardware faults are not recoverable).
bool fatal(NRT_STATUS status) {
    return status == NRT_TIMEOUT || status == NRT_HW_ERROR || status == NRT_EXEC_UNIT_UNRECOVERABLE ||
           (status >= NRT_EXEC_HW_ERR_COLLECTIVES && status <= NRT_NETWORK_PROXY_FAILURE);
}

constexpr std::uint32_t max_lnc = 1023; // the unit id packs lnc (10 bits), kind (3) and queue (3)

std::uint16_t unit_id(const xu_address& a) {
    return static_cast<std::uint16_t>((a.lnc << 6) | (static_cast<unsigned>(a.kind) << 3) |
                                      static_cast<unsigned>(a.queue));
}

void signal(int fd) {
    const std::uint64_t one = 1;
    [[maybe_unused]] const auto n = ::write(fd, &one, sizeof(one));
}

class unit;
thread_local const unit* current_unit = nullptr; // the unit whose thread this is

struct request {
    std::uint64_t number = 0;
    xu_work work;
    xu_done done;
};

class unit {
public:
    explicit unit(std::uint16_t id) : m_id(id), m_thread([this] { run(); }) {}
    ~unit() {
        stop();
        if (m_thread.joinable()) m_thread.detach(); // only if dropped on its own thread, which nrt_close refuses
        for (const auto& [number, fds] : m_fds) {
            for (const int fd : fds) ::close(fd);
        }
    }

    // Runs what is queued to its end, then ends the thread (not from the thread itself).
    void stop() {
        {
            std::lock_guard lock(m_mutex);
            m_stopping = true;
        }
        m_changed.notify_all();
        if (m_thread.joinable() && m_thread.get_id() != std::this_thread::get_id()) m_thread.join();
    }

    nrta_seq_t seq(std::uint64_t number) const { return (nrta_seq_t{m_id} << 48) | number; }

    std::variant<NRT_STATUS, nrta_seq_t> submit(const xu_start& start, xu_done done) {
        std::lock_guard lock(m_mutex);
        if (m_dead) return NRT_EXEC_UNIT_UNRECOVERABLE;
        if (m_queue.size() + (m_busy ? 1 : 0) >= max_pending_per_unit) return NRT_QUEUE_FULL;
        const auto number = m_submitted + 1;
        auto work = start(seq(number)); // may throw: then nothing is queued
        m_submitted = number;
        m_queue.push_back({number, std::move(work), std::move(done)});
        m_changed.notify_all();
        return seq(number);
    }

    // nullopt: never handed out.
    std::optional<bool> completed(std::uint64_t number) {
        std::lock_guard lock(m_mutex);
        if (number == 0 || number > m_submitted) return std::nullopt;
        return number <= m_completed;
    }
    std::uint64_t last_completed() {
        std::lock_guard lock(m_mutex);
        return m_completed;
    }
    bool watch(std::uint64_t number, int fd) {
        std::lock_guard lock(m_mutex);
        if (number == 0 || number > m_submitted) return false;
        if (number <= m_completed) {
            signal(fd);
            ::close(fd);
        } else {
            m_fds[number].push_back(fd);
        }
        return true;
    }
    // False on the unit's own thread while it has work queued: that work
    // waits for this very call.
    bool drain() {
        std::unique_lock lock(m_mutex);
        if (current_unit == this) return m_queue.empty();
        m_changed.wait(lock, [this] { return m_queue.empty() && !m_busy; });
        return true;
    }

private:
    void run() {
        current_unit = this;
        std::unique_lock lock(m_mutex);
        for (;;) {
            m_changed.wait(lock, [this] { return m_stopping || !m_queue.empty(); });
            if (m_queue.empty()) return; // stopping, and everything queued has run
            auto next = std::move(m_queue.front());
            m_queue.pop_front();
            m_busy = true;
            lock.unlock();
            // Queued work runs even behind a fatal failure: it was submitted already.
            const auto status = guarded("nrta", next.work);
            // The caller hears of the outcome before the completion is visible,
            // so a failure is in its error tracker once the sequence shows it done.
            if (next.done) next.done(seq(next.number), status);
            lock.lock();
            if (fatal(status)) m_dead = true;
            m_completed = next.number;
            m_busy = false;
            if (const auto it = m_fds.find(next.number); it != m_fds.end()) {
                for (const int fd : it->second) {
                    signal(fd);
                    ::close(fd);
                }
                m_fds.erase(it);
            }
            m_changed.notify_all();
        }
    }

    const std::uint16_t m_id;
    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::deque<request> m_queue;
    std::uint64_t m_submitted = 0;
    std::uint64_t m_completed = 0;
    bool m_busy = false;
    bool m_dead = false;
    bool m_stopping = false;
    std::map<std::uint64_t, std::vector<int>> m_fds; // our duplicates of handed-out completion fds
    std::thread m_thread;
};

class units {
public:
    // Never destroyed: at exit a unit's thread may still wait for the emulator.
    static units& get() {
        static auto* instance = new units;
        return *instance;
    }
    // Units stay alive while a caller uses one, even across nrt_close.
    std::shared_ptr<unit> at(std::uint16_t id) {
        std::lock_guard lock(m_mutex);
        auto& u = m_units[id];
        if (!u) u = std::make_shared<unit>(id);
        return u;
    }
    std::shared_ptr<unit> find(std::uint16_t id) {
        std::lock_guard lock(m_mutex);
        const auto it = m_units.find(id);
        return it == m_units.end() ? nullptr : it->second;
    }
    bool drain(int lnc) {
        std::vector<std::shared_ptr<unit>> all;
        {
            std::lock_guard lock(m_mutex);
            for (auto& [id, u] : m_units) {
                if (lnc < 0 || (id >> 6) == static_cast<unsigned>(lnc)) all.push_back(u);
            }
        }
        bool drained = true;
        for (const auto& u : all) drained = u->drain() && drained;
        return drained;
    }
    bool any() {
        std::lock_guard lock(m_mutex);
        return !m_units.empty();
    }
    // Each runs its queue to the end, then stops.
    void stop() {
        std::map<std::uint16_t, std::shared_ptr<unit>> gone;
        {
            std::lock_guard lock(m_mutex);
            gone.swap(m_units);
        }
        for (const auto& [id, u] : gone) u->stop();
    }

private:
    std::mutex m_mutex;
    std::map<std::uint16_t, std::shared_ptr<unit>> m_units;
};

} // namespace

int queues_of(xu_kind kind) {
    switch (kind) {
    case xu_kind::tensor_read:
    case xu_kind::tensor_write:
    case xu_kind::tensor_op: return 2;
    case xu_kind::compute:
    case xu_kind::collectives: return 1;
    }
    return 0;
}

NRT_STATUS check_address(const char* fn, const xu_address& where) {
    if (const auto status = runtime::get().check(fn); status != NRT_SUCCESS) return status;
    if (where.lnc > max_lnc || where.lnc >= runtime::get().session().count) {
        return invalid(fn, "NeuronCore " + std::to_string(where.lnc) + " is not one of this process's");
    }
    if (where.queue < 0 || where.queue >= queues_of(where.kind)) {
        return invalid(fn, "queue " + std::to_string(where.queue) +
                               " does not exist: this kind of execution unit has " +
                               std::to_string(queues_of(where.kind)));
    }
    return NRT_SUCCESS;
}

std::variant<NRT_STATUS, nrta_seq_t> schedule(const char* fn, const xu_address& where, xu_start start, xu_done done) {
    if (const auto status = check_address(fn, where); status != NRT_SUCCESS) return status;
    const auto result = units::get().at(unit_id(where))->submit(start, std::move(done));
    if (const auto* status = std::get_if<NRT_STATUS>(&result)) {
        // A caller retries these in a loop: a line a second says so, not a line each.
        static rate_limited_line full, dead;
        if (*status == NRT_QUEUE_FULL) {
            full.log_error(fn, "the execution unit's queue is full (" + std::to_string(max_pending_per_unit) +
                                   " requests)");
        } else {
            dead.log_error(fn, "the execution unit failed fatally before: nrt_close and nrt_init again");
        }
    }
    return result;
}

NRT_STATUS is_completed(const char* fn, nrta_seq_t seq, bool* completed) {
    if (completed == nullptr) return invalid(fn, "is_completed is NULL");
    // Outside nrt_init/nrt_close the units are gone: the state says so, not the sequence.
    if (const auto status = runtime::get().check(fn); status != NRT_SUCCESS) return status;
    const auto u = units::get().find(static_cast<std::uint16_t>(NRTA_SEQ_GET_XU_ID(seq)));
    const auto done = u ? u->completed(NRTA_SEQ_GET_SEQ_NUM(seq)) : std::nullopt;
    if (!done) return invalid(fn, "sequence " + std::to_string(seq) + " was not handed out by any execution unit");
    *completed = *done;
    return NRT_SUCCESS;
}

NRT_STATUS last_completed(const char* fn, const xu_address& where, nrta_seq_t* seq) {
    if (seq == nullptr) return invalid(fn, "seq is NULL");
    return guarded(fn, [&]() -> NRT_STATUS {
        if (const auto status = check_address(fn, where); status != NRT_SUCCESS) return status;
        const auto u = units::get().at(unit_id(where));
        *seq = u->seq(u->last_completed());
        return NRT_SUCCESS;
    });
}

NRT_STATUS completion_fd(const char* fn, nrta_seq_t seq, int& fd) {
    if (const auto status = runtime::get().check(fn); status != NRT_SUCCESS) return status;
    const auto u = units::get().find(static_cast<std::uint16_t>(NRTA_SEQ_GET_XU_ID(seq)));
    if (u == nullptr)
        return invalid(fn, "sequence " + std::to_string(seq) + " was not handed out by any execution unit");
    const int ours = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (ours < 0) return NRT_RESOURCE;
    const int theirs = ::fcntl(ours, F_DUPFD_CLOEXEC, 0);
    if (theirs < 0) {
        ::close(ours);
        return NRT_RESOURCE;
    }
    if (!u->watch(NRTA_SEQ_GET_SEQ_NUM(seq), ours)) {
        ::close(ours);
        ::close(theirs);
        return invalid(fn, "sequence " + std::to_string(seq) + " was not handed out by any execution unit");
    }
    fd = theirs;
    return NRT_SUCCESS;
}

bool drain_units(int lnc) { return units::get().drain(lnc); }
void stop_units() { units::get().stop(); }
bool on_unit_thread() { return current_unit != nullptr; }
bool units_in_use() { return units::get().any(); }

} // namespace neuron::shim
