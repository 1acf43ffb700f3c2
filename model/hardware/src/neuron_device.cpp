#include "neuron/model/hardware/neuron_device.h"

#include "neuron/model/state/hardware_fault.h"
#include "neuron/model/state/published_state.h"

#include <fmt/format.h>

namespace neuron::model {

neuron_device::neuron_device(sc_core::sc_module_name name, std::uint32_t index, published_state& state,
                             counter_bank& counters, const device_openers& openers, sc_core::sc_time reset_duration,
                             debug_event_source& prints)
        : sc_module(name), m_index(index), m_state(state),
          m_memory("memory", state.spec().memory_bytes_per_ns, state.spec().dma_engine_bytes_per_ns()),
          m_ecc(state, index), m_resets("reset_controller", state, counters, openers, index, reset_duration) {
    const auto& spec = state.spec();
    for (std::uint32_t c = 0; c < spec.cores_per_device; ++c) {
        m_cores.push_back(std::make_unique<neuron_core>(fmt::format("neuron_core{}", c).c_str(), spec, index, c,
                                                        m_memory, m_ecc, prints, state));
    }
    for (std::uint32_t ch = 0; ch < spec.memory_channels; ++ch) {
        m_channels.push_back({ch, spec.channel_bytes});
    }
}

void neuron_device::inject_ecc(ecc_kind kind, std::int64_t count, std::optional<std::uint32_t> channel) {
    m_ecc.inject(kind, count, channel);
    const auto read = fault_reading(kind);
    if (!read) return; // SRAM and corrected errors wait for no transfer
    const auto fault = as_struck(*read, m_ecc.repair_pending());
    for (const auto& core : m_cores) {
        if (core->memory_channel() == channel.value_or(0)) core->memory_error(fault);
    }
}

neuron_core& neuron_device::core(std::uint32_t index) {
    m_state.check_core(m_index, static_cast<std::int32_t>(index));
    return *m_cores[index];
}

} // namespace neuron::model
