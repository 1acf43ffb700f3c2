#include "neuron/model/neuron_core.h"

namespace neuron::model {

neuron_core::neuron_core(sc_core::sc_module_name name, const device_spec& spec, std::uint32_t index)
    : sc_module(name), m_index(index), m_sram{spec.sbuf_bytes_per_core, spec.psum_bytes_per_core} {
    for (const auto& e : spec.engines) m_engines.emplace_back(e);
    m_dma_engines.reserve(spec.dma_engines_per_core);
    for (std::uint32_t i = 0; i < spec.dma_engines_per_core; ++i) {
        m_dma_engines.emplace_back(i, spec.queues_per_dma_engine);
    }
}

} // namespace neuron::model
