#pragma once

#include "neuron/model/driver/reset_controller.h"
#include "neuron/model/hardware/memory_bandwidth.h"
#include "neuron/model/hardware/neuron_core.h"
#include "neuron/model/state/ecc.h"

#include <systemc>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace neuron::model {

class counter_bank;
class published_state;

struct memory_channel {
    std::uint32_t index;
    std::uint64_t bytes;
};

// One Neuron device: its cores, its HBM channels and SRAM with their ECC
// registers, and its reset controller.
class neuron_device : public sc_core::sc_module {
public:
    neuron_device(sc_core::sc_module_name name, std::uint32_t index, published_state& state, counter_bank& counters,
                  const device_openers& openers, sc_core::sc_time reset_duration, debug_event_source& prints);

    std::uint32_t index() const { return m_index; }
    neuron_core& core(std::uint32_t index);
    std::size_t core_count() const { return m_cores.size(); }
    const std::vector<memory_channel>& memory_channels() const { return m_channels; }
    ecc_unit& ecc() { return m_ecc; }
    // Counts the errors in the ECC registers (ecc_unit::inject). An
    // uncorrected HBM error also meets the runs in progress on the cores of
    // its channel (neuron_core::memory_error), as the fault the firmware
    // reports it as now: repairable while a repair is pending.
    void inject_ecc(ecc_kind kind, std::int64_t count, std::optional<std::uint32_t> channel = std::nullopt);
    const memory_bandwidth& memory() const { return m_memory; }
    reset_controller& resets() { return m_resets; }

private:
    std::uint32_t m_index;
    const published_state& m_state;
    memory_bandwidth m_memory; // before the cores, whose DMA engines share it
    std::vector<std::unique_ptr<neuron_core>> m_cores;
    std::vector<memory_channel> m_channels;
    ecc_unit m_ecc;
    reset_controller m_resets;
};

} // namespace neuron::model
