#pragma once

#include "neuron/model/driver/device_openers.h"

#include <systemc>

#include <cstdint>
#include <deque>
#include <map>

namespace neuron::model {

class counter_bank;
class published_state;

using reset_request_id = std::uint64_t;

enum class reset_outcome : std::uint8_t {
    queued,              // state went to 0; the reset completes after the reset duration
    refused_device_open, // the device is open: the driver does nothing (and still reports success)
    already_pending,     // a device reset is already queued: skipped, not counted
};

enum class reset_result : std::uint8_t { pending, succeeded, failed };

// One device's reset thread (driver-sysfs.md §5, neuron_reset.c). Requests are
// served one at a time, each taking `duration` of simulated time. A request
// counts reset_req_count on each core it names; any failed reset (armed with
// fail_next_resets) counts reset_fail_count on every core. Only device-wide
// resets move the device state: 0 when queued, then 1, or 2 on failure (the
// driver ties device_state to them; what a per-core reset does to it is not
// documented, so it leaves it alone). Counters are never cleared by a reset.
class reset_controller : public sc_core::sc_module {
public:
    SC_HAS_PROCESS(reset_controller);

    reset_controller(sc_core::sc_module_name name, published_state& state, counter_bank& counters,
                     const device_openers& openers, std::uint32_t device, sc_core::sc_time duration);

    // The reset queued by the driver's probe before the model's time 0; it has
    // completed by the time anyone looks (READY, reset_req_count 1 per core).
    void count_probe_reset();

    // A write to neuronN/reset.
    reset_outcome request_device_reset();
    // NEURON_IOCTL_NC_RESET from a runtime: resets the cores in core_mask.
    reset_request_id request_core_reset(std::uint32_t core_mask);
    // The runtime that asked for a core reset is gone: the request leaves the
    // queue if it has not started (it was counted when asked for; nobody waits
    // for it, and the next runtime on those cores asks for its own). Ours: the
    // driver would still run it, which only delays the requests behind it.
    void withdraw(reset_request_id id);
    // Arms the next `count` resets to fail; counts outside 0..2^32-1 are refused.
    void fail_next_resets(std::int64_t count);

    std::uint64_t failures_armed() const { return m_failures_armed; }
    std::size_t requests_queued() const { return m_queue.size(); }
    // A request's outcome while it is queued, and for the last
    // remembered_results finished ones; an older id is refused as unknown.
    reset_result result(reset_request_id id) const;
    std::size_t results_remembered() const { return m_results.size(); }

    // Ours: every runtime session resets its cores, so outcomes kept for
    // ever would grow with every session the emulator serves (withdrawn
    // requests leave no outcome).
    static constexpr std::size_t remembered_results = 64;

private:
    struct request {
        reset_request_id id;
        bool whole_device;
        std::uint32_t core_mask;
    };

    void enqueue(request r);
    void count_request(std::uint32_t core_mask);
    void finish_current();
    void forget_old_results();
    bool device_reset_queued() const;

    published_state& m_state;
    counter_bank& m_counters;
    const device_openers& m_openers;
    std::uint32_t m_device;
    sc_core::sc_time m_duration;
    std::uint32_t m_all_cores;
    std::uint64_t m_failures_armed = 0;
    std::deque<request> m_queue; // front is in progress
    std::map<reset_request_id, reset_result> m_results;
    reset_request_id m_next_id = 1;
    sc_core::sc_event m_done;
};

} // namespace neuron::model
