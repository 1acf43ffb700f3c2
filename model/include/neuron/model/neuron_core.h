#pragma once

#include "neuron/model/device_spec.h"
#include "neuron/model/engine.h"

#include <systemc>

#include <cstdint>
#include <vector>

namespace neuron::model {

// On-chip memory of a core; its ECC errors are counted in the device's SRAM
// register (stats/hardware/sram_ecc_uncorrected).
struct core_sram {
    std::uint64_t sbuf_bytes; // state buffer: 128 partitions
    std::uint64_t psum_bytes; // partial-sum buffer
};

// One physical NeuronCore: its engine set, its on-chip SRAM, and its DMA
// engines with their queues.
class neuron_core : public sc_core::sc_module {
public:
    neuron_core(sc_core::sc_module_name name, const device_spec& spec, std::uint32_t index);

    std::uint32_t index() const { return m_index; }
    const std::vector<engine>& engines() const { return m_engines; }
    const std::vector<dma_engine>& dma_engines() const { return m_dma_engines; }
    const core_sram& sram() const { return m_sram; }

private:
    std::uint32_t m_index;
    core_sram m_sram;
    std::vector<engine> m_engines;
    std::vector<dma_engine> m_dma_engines;
};

} // namespace neuron::model
