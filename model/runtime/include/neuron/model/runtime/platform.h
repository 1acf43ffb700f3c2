#pragma once

#include "neuron/model/driver/category_poller.h"
#include "neuron/model/driver/counter_bank.h"
#include "neuron/model/driver/memory_ledger.h"
#include "neuron/model/driver/notifier.h"
#include "neuron/model/driver/owner_registry.h"
#include "neuron/model/hardware/instance_hardware.h"
#include "neuron/model/runtime/collectives.h"
#include "neuron/model/runtime/counter_script.h"
#include "neuron/model/runtime/execution_unit.h"
#include "neuron/model/runtime/runtime_sessions.h"
#include "neuron/model/state/debug_event.h"
#include "neuron/model/state/platform_config.h"
#include "neuron/model/state/published_state.h"

#include <systemc>

#include <memory>

namespace neuron::model {

// The SystemC model of one instance: its hardware (devices, cores, engines),
// the driver's counters, memory accounting and owners, and the runtime's
// sessions, executions and collectives over them.
// Everything here belongs to the kernel thread; other threads read
// published() and reach the rest through the command API (api.h).
class platform : public sc_core::sc_module {
public:
    // `state` is the store this model publishes to; it outlives the model so
    // readers can still look at the last values after the kernel stops.
    platform(sc_core::sc_module_name name, const platform_config& config, published_state& state);

    const instance_type& instance() const { return m_state.instance(); }
    instance_hardware& hardware() { return *m_hardware; }
    neuron_device& device(std::uint32_t index) { return m_hardware->device(index); }
    std::uint32_t device_count() const { return m_hardware->device_count(); }

    published_state& published() { return m_state; }
    const published_state& published() const { return m_state; }
    notifier& notifications() { return m_notifier; }
    counter_bank& counters() { return m_counters; }
    memory_ledger& memory() { return m_memory; }
    owner_registry& owners() { return m_owners; }
    execution_unit& executions() { return m_executions; }
    debug_event_source& debug_events() { return m_debug_events; }
    runtime_sessions& sessions() { return m_sessions; }
    model::collectives& collectives() { return *m_collectives; }

private:
    published_state& m_state;
    notifier m_notifier;
    counter_bank m_counters;
    memory_ledger m_memory;
    owner_registry m_owners;
    debug_event_source m_debug_events;
    execution_unit m_executions;
    std::unique_ptr<instance_hardware> m_hardware;
    runtime_sessions m_sessions{*this};
    std::unique_ptr<category_poller> m_category_poller;
    std::unique_ptr<model::collectives> m_collectives;
    std::unique_ptr<counter_script_player> m_counter_script;
};

} // namespace neuron::model
