#pragma once

#include "neuron/model/driver/owner_id.h"
#include "neuron/model/hardware/neuron_core.h"
#include "neuron/model/program/program.h"
#include "neuron/model/state/activity.h"
#include "neuron/model/state/debug_event.h"
#include "neuron/model/state/execution_activity.h"

#include <systemc>

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace neuron::model {

class owner_registry;
class published_state;

// One execution of a loaded model, as the runtime submits it.
struct execution_request {
    owner_id owner = 0;
    std::uint32_t device = 0;
    std::vector<std::uint32_t> cores;    // the physical cores it occupies; runs and is counted on the first
    std::shared_ptr<const program> work; // what the first core runs
    std::uint32_t forced_status = 0;     // a fault trigger's NRT_STATUS, given at the end; 0 lets the hardware decide
    run_options options;                 // a fault trigger that strikes where it happens; the runtime's timeout
    std::uint64_t number = 1;            // the execution of its loaded model: 1, 2, ...
    std::vector<debug_event> prints;     // emitted when it completes
};

// How an execution ended: its NRT_STATUS and the fault that stopped it, if one did.
struct execution_result {
    std::uint32_t status = 0;
    std::optional<fault_strike> fault;
    execution_activity activity;                     // what it ran, up to where it stopped
    std::shared_ptr<profile::core_timeline> profile; // when it was profiled (run_options::profile)
};
using execution_callback = std::function<void(const execution_result&)>;
using core_finder = std::function<neuron_core&(std::uint32_t device, std::uint32_t core)>;

// Runs executions on the cores' engines, one at a time per core in the
// order they were submitted, and accounts them the way the runtime's
// datastore does: a status counter for every execution, inference_count,
// flops and nc_time_in_use, all held by the owner's session until it is
// released. The cores it keeps busy count toward the device's power
// utilization (activity.h). A fault that strikes the core stops the
// execution with its status, an uncorrected HBM error in its core's channel
// among them (neuron_device::inject_ecc). Judged as it ends, by the hardware
// statuses (nrt-api.md §1.2 "Hardware-error behaviours"): an uncorrected
// SRAM error that appeared on the device while it ran, then an HBM error in
// its channel that a run moving no device memory never read. An execution
// still running when the runtime's timeout (run_options::timeout_ps) runs
// out, counted from its start, is given up on: it ends with NRT_TIMEOUT and
// its cores take the next in line (a collectives hang ends with its own
// status at that time instead).
class execution_unit {
public:
    execution_unit(published_state& state, owner_registry& owners, debug_event_source& prints, core_finder cores);
    ~execution_unit();
    execution_unit(const execution_unit&) = delete;
    execution_unit& operator=(const execution_unit&) = delete;

    // Kernel thread only. `done` runs on the kernel thread when the execution
    // completes, or with NRT_CLOSED when its owner's executions are cancelled.
    void submit(execution_request request, execution_callback done);

    // Kernel thread only. Ends every execution of `owner` that has not
    // completed, running or queued: none of them is counted, each `done`
    // gets NRT_CLOSED, and the cores they held are free at once (a killed
    // process leaves its cores to the next owner, not to its queue).
    void cancel(owner_id owner);

    // Executions submitted and neither completed nor cancelled.
    std::size_t pending() const { return m_pending.size(); }

private:
    struct pending_execution {
        execution_request request;
        execution_callback done;
        bool running = false;
        sc_core::sc_time started;
        std::optional<sc_core::sc_time> deadline; // when the runtime gives up on it (none: never)
        std::uint32_t sram_errors_before = 0;     // the device's count when it started
    };
    using core_key = std::pair<std::uint32_t, std::uint32_t>;

    std::uint32_t sram_errors_on(std::uint32_t device) const;
    std::uint32_t outcome(const execution_request& request, std::uint32_t sram_errors_before,
                          const run_report& report) const;
    void try_start(std::uint64_t id);
    void start_waiting(const execution_request& request);
    // `timed_out`: the runtime gave up on it (NRT_TIMEOUT), whatever the report says.
    void complete(std::uint64_t id, const run_report& report, bool timed_out = false);
    // Gives up on the running executions whose deadline has come; waits for the next deadline.
    void give_up_overdue();
    void account(const execution_request& request, std::uint32_t status, std::uint64_t duration_ps,
                 const run_report& report);
    // The request's cores start (`running`) or stop running an execution.
    void occupy(const execution_request& request, bool running);

    published_state& m_state;
    owner_registry& m_owners;
    debug_event_source& m_prints;
    core_finder m_cores;
    std::map<std::uint64_t, pending_execution> m_pending;
    std::map<core_key, std::deque<std::uint64_t>> m_queues; // per core, the running or next one first
    std::uint64_t m_next_id = 1;
    std::vector<occupancy_record> m_occupancy; // per device
    class deadline_watch;
    std::unique_ptr<deadline_watch> m_deadlines; // wakes give_up_overdue at the earliest deadline
};

} // namespace neuron::model
