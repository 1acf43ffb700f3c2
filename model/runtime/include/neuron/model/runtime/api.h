#pragma once

#include "neuron/model/driver/memory_ledger.h"
#include "neuron/model/driver/notifier.h"
#include "neuron/model/driver/owner_registry.h"
#include "neuron/model/driver/reset_controller.h"
#include "neuron/model/program/compiled_model.h"
#include "neuron/model/runtime/runtime_sessions.h"
#include "neuron/model/spec/counter.h"
#include "neuron/model/state/debug_event.h"
#include "neuron/model/state/ecc.h"
#include "neuron/model/state/hardware_fault.h"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace neuron::model {

class published_state;
class simulation;

// A run of device prints asked for from outside (ctl emit-debug): `count`
// events from the core behind a global logical core, event i's elements
// all holding i so a reader can check the order.
struct debug_emission {
    std::uint32_t logical_core = 0; // under its session's LNC, else the instance's default
    std::string prefix;
    std::string dtype;
    std::vector<std::uint64_t> shape;
    std::uint32_t pipe = 0;
    std::uint32_t count = 1;
};

struct debug_emission_result {
    std::uint64_t accepted = 0;
    std::uint64_t dropped = 0;
    std::uint64_t discarded = 0;
};

// Who holds what, taken at one instant.
struct ownership {
    std::vector<owner_summary> owners; // every owner of cores or memory, runtime sessions included
    std::vector<session_summary> sessions;
};

// The model's command API: what cli, control and sysfs ask of the model.
// Callable from any thread but the kernel thread; each call runs on the
// kernel thread at the current simulated time and returns its result or
// throws its model_error (simulation_error once the simulation stopped).
// Callbacks (execution_done, listeners, the debug sink) run on the kernel
// thread and must not block or call back into the API.
class api {
public:
    explicit api(simulation& sim) : m_sim(sim) {}

    const published_state& published() const;

    // Runtime sessions (runtime_sessions.h has the policy).
    session_grant open_session(const session_request& request);
    void close_session(owner_id owner);
    allocation_id allocate(owner_id owner, std::uint32_t logical_core, mem_location where, std::uint32_t raw_mem_type,
                           std::uint64_t bytes);
    void free(owner_id owner, allocation_id id);
    model_placement load(owner_id owner, std::optional<std::uint32_t> logical_core, compiled_model compiled);
    void count_refused_load(owner_id owner, std::optional<std::uint32_t> logical_core, std::uint32_t status);
    void unload(owner_id owner, std::uint32_t model);
    void execute(owner_id owner, std::uint32_t model, std::uint32_t repeat, execution_done done,
                 std::chrono::nanoseconds timeout = {}, bool profile = false);
    void join_collective(owner_id owner, std::uint32_t logical_core, collective_arrival arrival, collective_done done);
    ownership who_holds_what();

    // Faults and the device's controls.
    void inject_ecc(std::uint32_t device, ecc_kind kind, std::int64_t count, std::optional<std::uint32_t> channel);
    // Arms `fault` on `core` of `device`, or on every core of it: each
    // strikes when its core next does what the fault names (hardware_fault.h).
    void inject_fault(std::uint32_t device, std::optional<std::uint32_t> core, const armed_fault& fault);
    void set_repair_state(std::uint32_t device, hbm_repair_state state);
    reset_outcome reset_device(std::uint32_t device);
    void fail_resets(std::uint32_t device, std::int64_t count);
    debug_emission_result emit_debug(const debug_emission& request);

    // What the driver's writable attributes do.
    void clear_counter(const counter_ref& counter, counter_field field);
    void set_notifications(bool enabled);

    // Who hears of changes and device prints.
    notifier::listener_id subscribe(change_listener listener);
    void unsubscribe(notifier::listener_id id);
    void connect_debug_events(debug_event_source::sink sink);

    // Stepped time.
    void advance(std::chrono::nanoseconds duration);

private:
    simulation& m_sim;
};

} // namespace neuron::model
