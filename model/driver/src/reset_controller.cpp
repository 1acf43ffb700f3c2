#include "neuron/model/driver/reset_controller.h"

#include "neuron/model/driver/counter_bank.h"
#include "neuron/model/spec/errors.h"
#include "neuron/model/state/published_state.h"

#include <algorithm>
#include <fmt/format.h>

namespace neuron::model {

reset_controller::reset_controller(sc_core::sc_module_name name, published_state& state, counter_bank& counters,
                                   const device_openers& openers, std::uint32_t device, sc_core::sc_time duration)
        : sc_module(name), m_state(state), m_counters(counters), m_openers(openers), m_device(device),
          m_duration(duration), m_all_cores((1u << state.cores_per_device()) - 1) {
    SC_METHOD(finish_current);
    sensitive << m_done;
    dont_initialize();
}

void reset_controller::count_probe_reset() {
    count_request(m_all_cores);
    m_state.set_reset_state(m_device, device_state::ready);
}

void reset_controller::count_request(std::uint32_t core_mask) {
    for (std::uint32_t c = 0; c < m_state.cores_per_device(); ++c) {
        if (core_mask & (1u << c)) {
            m_counters.increment(counter_ref::of_core(m_device, c, counter_kind::reset_req_count), 1);
        }
        // 2.7's single reset_count went up on every present core, whatever the nc_map.
        m_counters.increment(counter_ref::of_core(m_device, c, counter_kind::reset_count), 1);
    }
}

bool reset_controller::device_reset_queued() const {
    return std::any_of(m_queue.begin(), m_queue.end(), [](const request& r) { return r.whole_device; });
}

reset_outcome reset_controller::request_device_reset() {
    if (m_openers.device_open(m_device)) return reset_outcome::refused_device_open;
    if (device_reset_queued()) return reset_outcome::already_pending;
    m_state.set_reset_state(m_device, device_state::resetting);
    count_request(m_all_cores);
    enqueue({m_next_id++, true, m_all_cores});
    return reset_outcome::queued;
}

reset_request_id reset_controller::request_core_reset(std::uint32_t core_mask) {
    if (core_mask == 0 || (core_mask & ~m_all_cores) != 0) {
        throw invalid_argument_error(fmt::format("core mask {:#x} invalid: device {} has cores 0..{}", core_mask,
                                                 m_device, m_state.cores_per_device() - 1));
    }
    count_request(core_mask);
    const auto id = m_next_id++;
    enqueue({id, false, core_mask});
    return id;
}

void reset_controller::withdraw(reset_request_id id) {
    if (m_queue.size() < 2) return; // the front one is in progress
    const auto it = std::find_if(std::next(m_queue.begin()), m_queue.end(),
                                 [id](const request& r) { return r.id == id && !r.whole_device; });
    if (it == m_queue.end()) return;
    m_queue.erase(it);
    m_results.erase(id);
}

void reset_controller::fail_next_resets(std::int64_t count) {
    if (count < 0 || count > std::int64_t{UINT32_MAX}) {
        throw invalid_argument_error(fmt::format("reset failure count {} invalid: must be 0..{}", count, UINT32_MAX));
    }
    m_failures_armed += static_cast<std::uint64_t>(count);
}

void reset_controller::enqueue(request r) {
    m_results[r.id] = reset_result::pending;
    m_queue.push_back(r);
    if (m_queue.size() == 1) m_done.notify(m_duration);
}

void reset_controller::finish_current() {
    const request done = m_queue.front();
    m_queue.pop_front();
    if (m_failures_armed > 0) {
        --m_failures_armed;
        m_results[done.id] = reset_result::failed;
        if (done.whole_device) m_state.set_reset_state(m_device, device_state::invalid);
        for (std::uint32_t c = 0; c < m_state.cores_per_device(); ++c) {
            m_counters.increment(counter_ref::of_core(m_device, c, counter_kind::reset_fail_count), 1);
        }
    } else {
        m_results[done.id] = reset_result::succeeded;
        if (done.whole_device) m_state.set_reset_state(m_device, device_state::ready);
    }
    forget_old_results();
    if (!m_queue.empty()) m_done.notify(m_duration);
}

// Requests finish in the order they were queued, so the oldest ids are the
// finished ones.
void reset_controller::forget_old_results() {
    while (m_results.size() > m_queue.size() + remembered_results) m_results.erase(m_results.begin());
}

reset_result reset_controller::result(reset_request_id id) const {
    auto it = m_results.find(id);
    if (it == m_results.end()) {
        throw invalid_argument_error(fmt::format("no reset request {} (device {} remembers the outcome of its last {})",
                                                 id, m_device, remembered_results));
    }
    return it->second;
}

} // namespace neuron::model
