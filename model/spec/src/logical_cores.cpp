#include "neuron/model/spec/logical_cores.h"

#include "neuron/model/spec/errors.h"

#include <fmt/format.h>

namespace neuron::model {

std::uint32_t default_lnc(const instance_type& instance) { return instance.kind == device_kind::trainium2 ? 2 : 1; }

std::uint32_t max_lnc(const instance_type& instance) { return default_lnc(instance); }

logical_cores::logical_cores(const instance_type& instance, std::uint32_t lnc)
        : m_lnc(lnc), m_per_device(instance.cores_per_device()) {
    if (lnc < 1 || lnc > max_lnc(instance)) {
        throw invalid_argument_error(fmt::format("logical NeuronCore size {} is not supported on {} (use {})", lnc,
                                                 instance.name, max_lnc(instance) == 2 ? "1 or 2" : "1"));
    }
    m_total = instance.total_cores() / lnc;
}

std::vector<physical_core> logical_cores::physical(std::uint32_t logical) const {
    if (logical >= m_total) {
        throw invalid_argument_error(
            fmt::format("logical NeuronCore {} out of range: the instance has 0..{}", logical, m_total - 1));
    }
    std::vector<physical_core> cores;
    for (std::uint32_t i = 0; i < m_lnc; ++i) {
        const auto global = logical * m_lnc + i;
        cores.push_back({global / m_per_device, global % m_per_device});
    }
    return cores;
}

std::uint32_t logical_cores::logical_of(physical_core p) const { return (p.device * m_per_device + p.core) / m_lnc; }

} // namespace neuron::model
