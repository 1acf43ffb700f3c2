#include "neuron/model/runtime/loaded_model.h"

#include "neuron/model/program/debug_tensor_data.h"

namespace neuron::model {
namespace {

// Uniform in [0, 1) from 53 random bits: the same on every platform.
double uniform(std::mt19937_64& g) { return static_cast<double>(g() >> 11) * 0x1.0p-53; }

} // namespace

loaded_model::loaded_model(std::uint32_t id, compiled_model compiled, std::uint32_t logical_core,
                           std::shared_ptr<const program> work)
        : m_id(id), m_compiled(std::move(compiled)), m_logical_core(logical_core), m_work(std::move(work)) {
    for (const auto& f : m_compiled.faults) m_generators.emplace_back(f.seed);
    m_fired.assign(m_compiled.faults.size(), false);
}

loaded_model::next_execution loaded_model::begin_execution() {
    const auto number = ++m_executions;
    std::uint32_t forced = 0;
    for (std::size_t i = 0; i < m_compiled.faults.size(); ++i) {
        const auto& f = m_compiled.faults[i];
        bool hit = false;
        switch (f.kind) {
        case trigger_kind::on_execution: hit = number == f.n; break;
        case trigger_kind::after_executions: hit = number > f.n; break;
        case trigger_kind::probability: hit = uniform(m_generators[i]) < f.probability; break;
        }
        if (!hit || (f.once && m_fired[i]) || forced != 0) continue;
        forced = f.status;
        m_fired[i] = true;
    }
    return {number, forced};
}

std::vector<debug_event> loaded_model::prints(std::uint64_t number, physical_core on) const {
    std::vector<debug_event> events;
    for (const auto& p : m_compiled.prints) {
        const auto value = p.fill == print_fill::execution ? static_cast<double>(number) : p.value;
        events.push_back(print_event(p, on.device, on.core, value));
    }
    return events;
}

} // namespace neuron::model
