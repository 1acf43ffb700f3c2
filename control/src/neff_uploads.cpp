#include "neuron/control/neff_uploads.h"

#include "neuron/control/runtime_service.h"
#include "neuron/model/spec/nrt_status.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <utility>

namespace neuron::control {
namespace {

namespace nrt = model::nrt_status;

std::string amount(std::uint64_t bytes) {
    if (bytes != 0 && bytes % (std::uint64_t{1} << 30) == 0) return fmt::format("{} GiB", bytes >> 30);
    if (bytes != 0 && bytes % (std::uint64_t{1} << 20) == 0) return fmt::format("{} MiB", bytes >> 20);
    if (bytes != 0 && bytes % 1024 == 0) return fmt::format("{} KiB", bytes >> 10);
    return fmt::format("{} bytes", bytes);
}

std::string duration(std::chrono::milliseconds d) {
    if (d.count() % 1000 == 0) return fmt::format("{} s", d.count() / 1000);
    return fmt::format("{} ms", d.count());
}

} // namespace

// The bytes held, every upload and queued file together. Any thread.
class neff_uploads::budget {
public:
    explicit budget(std::uint64_t limit) : m_limit(limit) {}
    bool take(std::uint64_t n) {
        std::lock_guard lock(m_mutex);
        if (n > m_limit - std::min(m_limit, m_held)) return false;
        m_held += n;
        return true;
    }
    // What the allocator rounded up: held, whatever the limit.
    void add(std::uint64_t n) {
        std::lock_guard lock(m_mutex);
        m_held += n;
    }
    void give_back(std::uint64_t n) {
        std::lock_guard lock(m_mutex);
        m_held -= n;
    }
    std::uint64_t held() const {
        std::lock_guard lock(m_mutex);
        return m_held;
    }
    std::uint64_t limit() const { return m_limit; }

private:
    mutable std::mutex m_mutex;
    std::uint64_t m_held = 0;
    const std::uint64_t m_limit;
};

// A whole file queued for the NEFF thread, and read there. The job posted
// owns it: a job dropped unrun (the thread stopping) gives its room back.
struct neff_uploads::job {
    explicit job(std::shared_ptr<budget> b) : room(std::move(b)) {}
    ~job() { room->give_back(reserved); }
    job(const job&) = delete;
    job& operator=(const job&) = delete;

    // Frees the file and gives its room back. With `mutex` held.
    void release() {
        std::string().swap(bytes);
        room->give_back(std::exchange(reserved, 0));
    }

    std::shared_ptr<budget> room;
    std::mutex mutex;
    std::string bytes;
    std::uint64_t reserved = 0; // counted in the budget
    bool started = false;
    std::atomic<bool> cancelled = false;
};

neff_uploads::neff_uploads(background_jobs& thread, neff_upload_limits limits, clock now)
        : m_thread(thread), m_limits(limits), m_now(std::move(now)),
          m_budget(std::make_shared<budget>(limits.max_held_bytes)) {}

neff_uploads::~neff_uploads() {
    std::vector<std::uint64_t> connections;
    for (const auto& [connection, u] : m_uploads) connections.push_back(connection);
    for (const auto& [connection, jobs] : m_jobs) connections.push_back(connection);
    for (const auto connection : connections) drop(connection);
}

std::uint64_t neff_uploads::held_bytes() const { return m_budget->held(); }

void neff_uploads::release(upload& u) {
    std::string().swap(u.bytes);
    m_budget->give_back(std::exchange(u.reserved, 0));
}

// Room for `needed` bytes: twice what the upload had (the fewest copies),
// or only what it needs when the budget has no more, never past its total.
// The budget counts the buffer from before the copy.
void neff_uploads::grow(upload& u, std::uint64_t needed) {
    if (needed <= u.bytes.capacity()) return;
    const auto doubled = std::min<std::uint64_t>(u.total, std::max<std::uint64_t>(needed, 2 * u.bytes.capacity()));
    auto room = doubled;
    if (!m_budget->take(room - u.reserved)) {
        room = needed;
        if (!m_budget->take(room - u.reserved)) {
            throw request_error(nrt::resource,
                                fmt::format("the emulator holds {} of NEFFs being loaded, its limit; load again when "
                                            "the others have loaded",
                                            amount(m_budget->limit())));
        }
    }
    std::string grown;
    grown.reserve(room);
    grown.append(u.bytes);
    u.bytes.swap(grown);
    if (u.bytes.capacity() > room) m_budget->add(u.bytes.capacity() - room);
    u.reserved = std::max<std::uint64_t>(room, u.bytes.capacity());
}

void neff_uploads::expire_idle() {
    const auto now = m_now();
    for (auto it = m_uploads.begin(); it != m_uploads.end();) {
        if (now - it->second.last_piece < m_limits.idle_timeout) {
            ++it;
            continue;
        }
        release(it->second);
        m_timed_out.insert(it->first);
        it = m_uploads.erase(it);
    }
}

void neff_uploads::add_piece(std::uint64_t connection, const protocol::model_piece& piece) {
    expire_idle();
    if (piece.offset == 0) {
        if (const auto it = m_uploads.find(connection); it != m_uploads.end()) {
            release(it->second);
            m_uploads.erase(it);
        }
        m_timed_out.erase(connection);
        if (piece.total_bytes > protocol::max_neff_bytes) {
            throw request_error(nrt::invalid, fmt::format("a NEFF of {} bytes: the emulator loads at most {}",
                                                          piece.total_bytes, amount(protocol::max_neff_bytes)));
        }
        m_uploads[connection].total = piece.total_bytes;
    }
    const auto it = m_uploads.find(connection);
    if (it == m_uploads.end() && m_timed_out.contains(connection)) {
        throw request_error(nrt::timeout, fmt::format("the NEFF being sent was dropped: no piece of it came for {}, "
                                                      "the emulator's limit; load it again",
                                                      duration(m_limits.idle_timeout)));
    }
    if (it == m_uploads.end() || it->second.bytes.size() != piece.offset || it->second.total != piece.total_bytes) {
        if (it != m_uploads.end()) {
            release(it->second);
            m_uploads.erase(it);
        }
        throw request_error(nrt::invalid, fmt::format("a piece at byte {} of a {}-byte NEFF continues none being sent",
                                                      piece.offset, piece.total_bytes));
    }
    auto& u = it->second;
    try {
        grow(u, piece.offset + piece.bytes.size());
    } catch (const request_error&) {
        release(u);
        m_uploads.erase(it);
        throw;
    }
    u.bytes += piece.bytes;
    u.last_piece = m_now();
}

std::string neff_uploads::finish(std::uint64_t connection, std::string last) {
    expire_idle();
    const auto it = m_uploads.find(connection);
    if (it == m_uploads.end()) {
        if (m_timed_out.erase(connection) != 0) {
            throw request_error(nrt::timeout,
                                fmt::format("the NEFF being sent was dropped: no piece of it came for {}, the "
                                            "emulator's limit; load it again",
                                            duration(m_limits.idle_timeout)));
        }
        return last; // a file in one message
    }
    auto u = std::move(it->second);
    m_uploads.erase(it);
    const auto have = u.bytes.size() + last.size();
    if (have != u.total) {
        release(u);
        throw request_error(nrt::invalid,
                            fmt::format("the NEFF's pieces and its end hold {} of its {} bytes", have, u.total));
    }
    try {
        grow(u, u.total);
    } catch (const request_error&) {
        release(u);
        throw;
    }
    u.bytes += last; // within the room kept for the whole file
    m_budget->give_back(std::exchange(u.reserved, 0));
    return std::move(u.bytes);
}

void neff_uploads::read_later(std::uint64_t connection, std::string bytes, reader read) {
    auto j = std::make_shared<job>(m_budget);
    const std::uint64_t room = bytes.capacity();
    if (!m_budget->take(room)) {
        throw request_error(nrt::resource,
                            fmt::format("the emulator holds {} of NEFFs being loaded, its limit; load again when the "
                                        "others have loaded",
                                        amount(m_budget->limit())));
    }
    j->reserved = room;
    j->bytes = std::move(bytes);
    auto& jobs = m_jobs[connection];
    std::erase_if(jobs, [](const std::weak_ptr<job>& other) { return other.expired(); });
    jobs.push_back(j);
    m_thread.post([j, read = std::move(read), thread = &m_thread] {
        {
            std::lock_guard lock(j->mutex);
            if (j->cancelled) return; // its connection left: freed then
            j->started = true;
        }
        read(j->bytes, [&j, thread] { return j->cancelled.load(std::memory_order_relaxed) || thread->stopping(); });
        std::lock_guard lock(j->mutex);
        j->release();
    });
}

void neff_uploads::drop(std::uint64_t connection) {
    if (const auto it = m_uploads.find(connection); it != m_uploads.end()) {
        release(it->second);
        m_uploads.erase(it);
    }
    m_timed_out.erase(connection);
    const auto it = m_jobs.find(connection);
    if (it == m_jobs.end()) return;
    for (const auto& weak : it->second) {
        const auto j = weak.lock();
        if (!j) continue; // read, or dropped with the thread
        std::lock_guard lock(j->mutex);
        j->cancelled = true;
        if (!j->started) j->release(); // never read: its room is free at once
    }
    m_jobs.erase(it);
}

} // namespace neuron::control
