#pragma once

#include "neuron/model/device_spec.h"
#include "neuron/model/engine.h"

#include <systemc>

#include <cstdint>
#include <vector>

namespace neuron::model {

// One physical NeuronCore: its engine set and its DMA engines with their queues.
class neuron_core : public sc_core::sc_module {
public:
    neuron_core(sc_core::sc_module_name name, const device_spec& spec, std::uint32_t index);

    std::uint32_t index() const { return m_index; }
    const std::vector<engine>& engines() const { return m_engines; }
    const std::vector<dma_engine>& dma_engines() const { return m_dma_engines; }

private:
    std::uint32_t m_index;
    std::vector<engine> m_engines;
    std::vector<dma_engine> m_dma_engines;
};

} // namespace neuron::model
