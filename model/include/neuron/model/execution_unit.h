#pragma once

#include "neuron/model/debug_event.h"
#include "neuron/model/owner_id.h"

#include <systemc>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <utility>
#include <vector>

namespace neuron::model {

class owner_registry;
class published_state;
class timed_callbacks;

// One execution of a loaded model, as the runtime submits it.
struct execution_request {
    owner_id owner = 0;
    std::uint32_t device = 0;
    std::vector<std::uint32_t> cores; // the physical cores it occupies; counted on the first
    std::chrono::nanoseconds duration{0};
    std::uint64_t macs = 0;
    std::uint64_t matmul_cycles = 0;  // tensor engine cycles per core (tensor_engine/pe_cntrs)
    std::uint32_t forced_status = 0;  // a fault trigger's NRT_STATUS; 0 lets the hardware decide
    std::vector<debug_event> prints;  // emitted when it completes
};

using execution_callback = std::function<void(std::uint32_t status)>;

// Runs executions in simulated time, one at a time per core, and accounts
// them the way the runtime's datastore does: a status counter for every
// execution, inference_count, flops and nc_time_in_use, all held by the
// owner's session until it is released. An uncorrected memory error that
// appears on the device while an execution runs fails it with the
// matching hardware status (nrt-api.md §1.2 "Hardware-error behaviours").
class execution_unit {
public:
    execution_unit(published_state& state, owner_registry& owners, timed_callbacks& timers,
                   debug_event_source& prints);

    // Kernel thread only. `done` runs on the kernel thread when the execution
    // completes, or with NRT_CLOSED when its owner's executions are cancelled.
    void submit(execution_request request, execution_callback done);

    // Kernel thread only. Ends every execution of `owner` that has not
    // completed, running or queued: none of them is counted, each `done`
    // gets NRT_CLOSED, and the cores they held are free at once (a killed
    // process leaves its cores to the next owner, not to its queue).
    void cancel(owner_id owner);

    // When the last queued execution on this core completes.
    sc_core::sc_time busy_until(std::uint32_t device, std::uint32_t core) const;
    // Executions submitted and neither completed nor cancelled.
    std::size_t pending() const { return m_pending.size(); }

private:
    struct memory_errors {
        std::uint32_t sram = 0;
        std::uint32_t hbm = 0;
        std::uint32_t hbm_repairable = 0;
    };
    memory_errors errors_on(std::uint32_t device) const;
    std::uint32_t outcome(const execution_request& request, const memory_errors& before) const;
    void account(const execution_request& request, std::uint32_t status);

    struct pending_execution {
        execution_request request;
        execution_callback done;
        sc_core::sc_time end;
    };
    void complete(std::uint64_t id, const memory_errors& before);

    published_state& m_state;
    owner_registry& m_owners;
    timed_callbacks& m_timers;
    debug_event_source& m_prints;
    std::map<std::pair<std::uint32_t, std::uint32_t>, sc_core::sc_time> m_busy_until;
    std::map<std::uint64_t, pending_execution> m_pending;
    std::uint64_t m_next_id = 1;
};

} // namespace neuron::model
