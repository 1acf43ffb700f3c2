#include "neuron/profile/timeline.h"

namespace neuron::profile {
namespace {

// A string's room beyond the object itself (none while it fits inline).
std::size_t heap_of(const std::string& s) { return s.capacity() > std::string().capacity() ? s.capacity() + 1 : 0; }

template <typename T>
std::size_t room_of(const std::vector<T>& v) {
    return v.capacity() * sizeof(T);
}

std::size_t strings_of(const std::vector<std::string>& v) {
    std::size_t bytes = room_of(v);
    for (const auto& s : v) bytes += heap_of(s);
    return bytes;
}

} // namespace

std::size_t footprint(const core_timeline& t) {
    std::size_t bytes = sizeof(t) + heap_of(t.instance_type) + heap_of(t.model_name);
    bytes += strings_of(t.opcodes) + strings_of(t.sources);
    bytes += room_of(t.instructions) + room_of(t.transfers) + room_of(t.dma_runs) + room_of(t.semaphores);
    bytes += room_of(t.faults) + room_of(t.throttled);
    for (const auto& f : t.faults) bytes += heap_of(f.kind);
    return bytes;
}

throttle_totals total_throttled(const core_timeline& t) {
    throttle_totals sum;
    for (const auto& r : t.throttled) {
        sum.time_ps += r.end_ps - r.start_ps;
        sum.work_ps += r.work_ps;
    }
    return sum;
}

} // namespace neuron::profile
