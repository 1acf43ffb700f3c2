// The system-trace capture store: one capture per process, a ring of events
// per NeuronCore, drained into the fetch JSON.

#include "sys_trace.h"
#include "sys_trace_event.h"

#include "objects.h"

#include <algorithm>
#include <atomic>
#include <ctime>
#include <deque>
#include <limits>
#include <mutex>
#include <sys/syscall.h>
#include <unistd.h>
#include <vector>

namespace neuron::shim::sys_trace {
namespace {

struct capture {
    capture_owner owner{};
    capture_settings settings;
    std::uint64_t number = 0; // which capture of the process
    std::uint64_t next_id = 0;
    std::map<std::uint32_t, std::deque<event>> rings; // a core gets one with its first event
};

// Never destroyed: worker threads may still record while the process exits.
struct store {
    std::mutex mutex;
    std::optional<capture> current;
    std::uint64_t captures = 0;
};
store& the_store() {
    static auto* s = new store;
    return *s;
}

std::atomic<bool> g_capturing{false};
std::atomic<std::uint64_t> g_tracking_ids{0};
std::atomic<std::uint64_t> g_exec_ids{0};

std::uint64_t thread_id() {
    thread_local const auto id = static_cast<std::uint64_t>(::syscall(SYS_gettid));
    return id;
}

// Stores `events` in the running capture (in capture number `only`, unless 0)
// when its settings take them all; the capture's number, or 0 when not stored.
std::uint64_t record(std::vector<event>& events, std::uint64_t only) {
    auto& s = the_store();
    std::lock_guard lock(s.mutex);
    auto& c = s.current;
    if (!c || (only != 0 && c->number != only)) return 0;
    for (const auto& e : events) {
        if (!c->settings.captures(e.type) || !c->settings.captures(e.nc_idx)) return 0;
    }
    for (auto& e : events) {
        e.id = ++c->next_id;
        auto& ring = c->rings[e.nc_idx];
        ring.push_back(std::move(e));
        if (ring.size() > c->settings.max_events_per_nc) ring.pop_front();
    }
    return c->number;
}

event make_event(event_type type, phase when, std::uint32_t nc, std::uint64_t tracking_id, std::uint64_t seq) {
    event e;
    e.type = type;
    e.when = when;
    e.nc_idx = nc;
    e.tracking_id = tracking_id;
    e.thread_id = thread_id();
    e.seq = seq;
    e.timestamp_ns = host_now_ns();
    return e;
}

std::uint32_t nc_of(std::int64_t nc_idx) {
    return nc_idx < 0 || nc_idx > std::numeric_limits<std::uint32_t>::max() ? 0 : static_cast<std::uint32_t>(nc_idx);
}

constexpr bool table_in_enum_order() {
    for (std::size_t i = 0; i < event_types.size(); ++i) {
        if (static_cast<std::size_t>(event_types[i].type) != i) return false;
    }
    return true;
}
static_assert(table_in_enum_order(), "name_of indexes event_types by event_type");

} // namespace

std::optional<event_type> event_type_named(std::string_view name) {
    for (const auto& row : event_types) {
        if (name == row.name) return row.type;
    }
    return std::nullopt;
}

const char* name_of(event_type type) { return event_types[static_cast<std::size_t>(type)].name; }

std::optional<event_type> execute_event(std::string_view fn) {
    if (fn == "nrt_execute" || fn == "nrt_execute_repeat") return event_type::nrt_execute;
    return std::nullopt;
}

bool capture_settings::captures(std::uint32_t nc) const {
    const auto it = nc_overrides.find(nc);
    return it == nc_overrides.end() ? ncs_by_default : it->second;
}

const char* starter_of(capture_owner owner) {
    return owner == capture_owner::sys_trace ? "nrt_sys_trace_start" : "nrt_inspect_begin";
}

std::optional<capture_owner> start(capture_owner owner, const capture_settings& settings) {
    auto& s = the_store();
    std::lock_guard lock(s.mutex);
    if (s.current) return s.current->owner;
    s.current.emplace();
    s.current->owner = owner;
    s.current->settings = settings;
    s.current->number = ++s.captures;
    g_capturing.store(true);
    return std::nullopt;
}

bool stop(capture_owner owner) {
    std::optional<capture> ended; // its events are freed outside the lock
    auto& s = the_store();
    std::lock_guard lock(s.mutex);
    if (!s.current || s.current->owner != owner) return false;
    g_capturing.store(false);
    ended.swap(s.current);
    return true;
}

std::optional<capture_owner> running() {
    auto& s = the_store();
    std::lock_guard lock(s.mutex);
    return s.current ? std::optional(s.current->owner) : std::nullopt;
}

std::string fetch_json(const fetch_filter& filter) {
    std::vector<event> drained;
    {
        auto& s = the_store();
        std::lock_guard lock(s.mutex);
        if (!s.current) return to_json(drained);
        for (auto& [nc, ring] : s.current->rings) {
            if (filter.nc_idx && *filter.nc_idx != nc) continue;
            const auto n = filter.max_events_per_nc == 0
                               ? ring.size()
                               : std::min<std::uint64_t>(ring.size(), filter.max_events_per_nc);
            std::move(ring.begin(), ring.begin() + static_cast<std::ptrdiff_t>(n), std::back_inserter(drained));
            ring.erase(ring.begin(), ring.begin() + static_cast<std::ptrdiff_t>(n));
        }
    }
    std::sort(drained.begin(), drained.end(), [](const event& a, const event& b) { return a.id < b.id; });
    return to_json(drained);
}

std::uint64_t host_now_ns() noexcept {
    timespec now{};
    ::clock_gettime(CLOCK_REALTIME, &now);
    return static_cast<std::uint64_t>(now.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(now.tv_nsec);
}

std::string printable(std::string_view text) {
    std::string shown(text.substr(0, 200));
    for (auto& c : shown) {
        if (c < 0x20 || c > 0x7e) c = '?';
    }
    return shown;
}

// ---- recording

api_event::api_event(std::optional<event_type> type, std::int64_t nc_idx, std::string_view name) noexcept {
    if (!type || !g_capturing.load(std::memory_order_relaxed)) return;
    try {
        m_type = *type;
        m_nc = nc_of(nc_idx);
        m_name = name;
        const auto tracking_id = ++g_tracking_ids;
        std::vector<event> start{make_event(m_type, phase::start, m_nc, tracking_id, 0)};
        start[0].name = m_name;
        m_capture = record(start, 0);
        if (m_capture != 0) m_tracking_id = tracking_id;
    } catch (...) {
        m_tracking_id = 0; // tracing never fails the call it traces
    }
}

api_event::api_event(event_type type, const nrt_tensor_t* tensor) noexcept
        : api_event(type, tensor != nullptr ? tensor->vnc : -1,
                    tensor != nullptr ? std::string_view(tensor->name) : std::string_view()) {}

api_event::api_event(std::optional<event_type> type, const nrt_model_t* model) noexcept
        : api_event(type, model != nullptr ? model->vnc : -1,
                    model != nullptr ? std::string_view(model->name) : std::string_view()) {}

api_event::~api_event() {
    if (m_tracking_id == 0) return;
    try {
        std::vector<event> stop{make_event(m_type, phase::stop, m_nc, m_tracking_id, m_seq)};
        stop[0].name = std::move(m_name);
        stop[0].status = m_status;
        record(stop, m_capture);
    } catch (...) {}
}

void record_execution(std::uint32_t nc_idx, std::uint64_t device_start_ns, std::uint64_t device_end_ns,
                      std::uint64_t cpu_start_ns, std::uint64_t cpu_end_ns, std::uint32_t model_id, NRT_STATUS status,
                      std::uint64_t seq) noexcept {
    if (!g_capturing.load(std::memory_order_relaxed)) return;
    try {
        const auto duration = device_end_ns > device_start_ns ? device_end_ns - device_start_ns : 0;
        const auto moved = cpu_end_ns >= duration ? cpu_end_ns - duration : 0;
        const auto host_start = std::min(std::max(moved, cpu_start_ns), cpu_end_ns);
        const auto exec_id = ++g_exec_ids;
        const auto tracking_id = ++g_tracking_ids;
        std::vector<event> events{
            make_event(event_type::nc_exec_running, phase::start, nc_idx, tracking_id, seq),
            make_event(event_type::nc_exec_running, phase::stop, nc_idx, tracking_id, seq),
            make_event(event_type::timestamp_sync_point, phase::instant, nc_idx, ++g_tracking_ids, seq)};
        const std::uint64_t device[] = {device_start_ns, device_end_ns, device_end_ns};
        const std::uint64_t host[] = {host_start, cpu_end_ns, cpu_end_ns};
        for (std::size_t i = 0; i < events.size(); ++i) {
            events[i].timestamp_ns = host[i];
            events[i].exec_id = exec_id;
            events[i].nc_timestamp_ns = device[i];
            if (i < 2) events[i].model_id = model_id;
        }
        events[1].status = static_cast<std::uint32_t>(status);
        events[2].cpu_timestamp_ns = cpu_end_ns;
        // The pair into one capture; the sync point alone (its type may be filtered out).
        std::vector<event> sync{std::move(events[2])};
        events.pop_back();
        const auto capture = record(events, 0);
        record(sync, capture);
    } catch (...) {}
}

} // namespace neuron::shim::sys_trace
