#pragma once

#include "neuron/model/driver/memory_ledger.h"
#include "neuron/model/driver/owner_id.h"
#include "neuron/model/driver/reset_controller.h"
#include "neuron/model/program/compiled_model.h"
#include "neuron/model/runtime/collectives.h"
#include "neuron/model/runtime/loaded_model.h"
#include "neuron/model/spec/logical_cores.h"
#include "neuron/model/state/execution_activity.h"
#include "neuron/model/state/hardware_fault.h"
#include "neuron/profile/timeline.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace neuron::model {

class platform;

// Which logical NeuronCores a process asks for (nrt-api.md §3.7).
enum class core_selection : std::uint8_t {
    all_free, // neither NEURON_RT_VISIBLE_CORES nor NEURON_RT_NUM_CORES: every core
    range,    // NEURON_RT_VISIBLE_CORES=first-last
    count,    // NEURON_RT_NUM_CORES=count: the first free run of that many
};

struct session_request {
    std::string label; // how sysfs and status name the session; empty: "pid <pid>"
    std::uint32_t pid = 0;
    std::uint32_t lnc = 1;
    core_selection selection = core_selection::all_free;
    std::uint32_t first = 0;
    std::uint32_t count = 0;
};

struct session_grant {
    owner_id owner = 0;
    std::uint32_t lnc = 1;
    std::uint32_t first = 0; // logical cores first .. first+count-1
    std::uint32_t count = 0;
};

struct model_placement {
    std::uint32_t model = 0; // the loaded model's id
    std::uint32_t logical_core = 0;
};

// What nrt_execute_repeat answers.
// The longest NEURON_RT_EXEC_TIMEOUT the model takes; past the 100 days
// simulated time can hold, a wait is as good as forever.
inline constexpr std::chrono::nanoseconds max_exec_timeout = std::chrono::hours(24 * 365);

struct execution_outcome {
    std::uint32_t status = 0;          // the first failing repetition's NRT_STATUS, else NRT_SUCCESS
    std::uint32_t completed = 0;       // repetitions that ran (NRT_CLOSED: cancelled before all did)
    std::optional<fault_strike> fault; // what stopped the first failing repetition, if a fault did
    execution_activity activity;       // of the repetitions that ran, summed
    std::uint64_t ended_ns = 0;        // simulated time when the last one ended
    // The last repetition, instruction by instruction, when it was profiled.
    std::shared_ptr<const profile::core_timeline> profile;
};
using execution_done = std::function<void(const execution_outcome&)>;

// A model a session has loaded, as the runtime reports it to its tools.
struct model_summary {
    std::uint32_t id = 0;
    std::string name;
    std::uint32_t logical_core = 0;
    std::vector<physical_core> cores; // the logical core's physical ones
    std::vector<allocation> memory;   // what its load allocated
    bool running = false;             // an execution of it is queued or running
};

struct session_summary {
    owner_id owner = 0;
    std::string label;
    std::uint32_t lnc = 1;
    std::uint32_t first = 0;
    std::uint32_t count = 0;
    std::vector<model_summary> models;
};

// The runtime's policy over the model, one session per process: which cores
// a process gets (exclusively, reset when taken), where a model loads, what
// its memory and failures count, how long an execution lasts and how its
// repetitions run. Closing a session (however the process ended) cancels
// its executions and releases everything it holds. Kernel thread only.
class runtime_sessions {
public:
    explicit runtime_sessions(platform& platform);
    ~runtime_sessions();

    // Throws invalid_argument_error for a bad LNC or selection, and
    // resource_busy_error when a wanted core belongs to another session.
    session_grant open(const session_request& request);
    void close(owner_id owner);

    allocation_id allocate(owner_id owner, std::uint32_t logical_core, mem_location where, std::uint32_t raw_mem_type,
                           std::uint64_t bytes);
    void free(owner_id owner, allocation_id id);

    // Loads on `logical_core`, or on the session's first core without a
    // model. Counts model_load_count, or the failure's status counter.
    model_placement load(owner_id owner, std::optional<std::uint32_t> logical_core, compiled_model compiled);
    // A load the runtime refused before it reached the model (a file it
    // could not parse): counted in `status`'s directory of the core it
    // would have loaded on.
    void count_refused_load(owner_id owner, std::optional<std::uint32_t> logical_core, std::uint32_t status);
    void unload(owner_id owner, std::uint32_t model);

    // Runs the model `repeat` times; `done` runs on the kernel thread.
    // `timeout` is how long the runtime waits for a hung core
    // (NEURON_RT_EXEC_TIMEOUT; 0: 30 s). `profile`: the last repetition is
    // recorded (execution_outcome::profile).
    void execute(owner_id owner, std::uint32_t model, std::uint32_t repeat, execution_done done,
                 std::chrono::nanoseconds timeout = {}, bool profile = false);
    // A rank of a collective on one of the owner's logical cores (collectives.h);
    // its timeout is an execution's (0: the runtime's default).
    void join_collective(owner_id owner, std::uint32_t logical_core, collective_arrival arrival, collective_done done);

    std::vector<session_summary> sessions() const;

    // The physical core behind global logical core `logical`: under the LNC
    // of the session that owns it, else the instance's default LNC. Throws
    // invalid_argument_error past the last core.
    physical_core physical_of(std::uint32_t logical) const;

private:
    // A physical core's shared scratchpad: as large as the largest need of
    // the models loaded on it, in one allocation per growth.
    struct scratchpad_region {
        std::uint64_t bytes = 0;
        std::vector<allocation_id> allocations;
    };
    struct session {
        logical_cores cores;
        std::uint32_t first = 0;
        std::uint32_t count = 0;
        // Shared with executions still running after an unload.
        std::map<std::uint32_t, std::shared_ptr<loaded_model>> models;
        std::map<std::pair<std::uint32_t, std::uint32_t>, scratchpad_region> scratchpads; // by (device, core)
        std::vector<std::pair<std::uint32_t, reset_request_id>> resets; // asked for at open, by device
        bool owns(std::uint32_t logical) const { return logical >= first && logical < first + count; }
    };

    session& get(owner_id owner);
    void check_fits(owner_id owner, const session& s, std::uint32_t logical, const compiled_model& compiled);
    void allocate_memory(owner_id owner, session& s, loaded_model& loaded);
    // Resizes the shared scratchpads of `logical`'s cores to what its loaded
    // models (and `adding`) need; throws out_of_memory_error when one cannot grow.
    void fit_scratchpads(owner_id owner, session& s, std::uint32_t logical, const loaded_model* adding = nullptr);
    std::vector<std::uint32_t> choose_cores(const logical_cores& map, const session_request& request) const;
    std::uint32_t load_target(const session& s, std::optional<std::uint32_t> logical_core) const;

    platform& m_platform;
    std::map<owner_id, session> m_sessions;
    std::uint32_t m_next_model = 1;
};

} // namespace neuron::model
