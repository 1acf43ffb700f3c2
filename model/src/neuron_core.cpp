#include "neuron/model/neuron_core.h"

#include "neuron/model/errors.h"

#include <fmt/format.h>

namespace neuron::model {

neuron_core::neuron_core(sc_core::sc_module_name name, const device_spec& spec, std::uint32_t device,
                         std::uint32_t index, debug_event_source& prints)
    : sc_module(name), m_device(device), m_index(index), m_sram{spec.sbuf_bytes_per_core, spec.psum_bytes_per_core},
      m_prints(prints), m_semaphores(spec.semaphores_per_core) {
    for (const auto& e : spec.engines) {
        m_engines.push_back(std::make_unique<engine>(std::string(engine_name(e.kind)).c_str(), e, m_semaphores));
    }
    m_dma_engines.reserve(spec.dma_engines_per_core);
    for (std::uint32_t i = 0; i < spec.dma_engines_per_core; ++i) {
        m_dma_engines.emplace_back(i, spec.queues_per_dma_engine);
    }
}

engine* neuron_core::find_engine(engine_kind kind) const {
    for (const auto& e : m_engines) {
        if (e->type() == kind) return e.get();
    }
    return nullptr;
}

void neuron_core::check(const std::shared_ptr<const program>& checked) {
    if (!m_checked.owner_before(checked) && !checked.owner_before(m_checked) && !m_checked.expired()) return;
    const auto& p = *checked;
    for (std::size_t k = 0; k < engine_count; ++k) {
        if (!p.streams[k].empty() && find_engine(static_cast<engine_kind>(k)) == nullptr) {
            throw unsupported_error(fmt::format("the program has work for a {} engine, which this core does not have",
                                                engine_name(static_cast<engine_kind>(k))));
        }
    }
    const auto valid = [&](const instruction& i) {
        return (i.wait_semaphore == no_semaphore || i.wait_semaphore < m_semaphores.size()) &&
               (i.signal_semaphore == no_semaphore || i.signal_semaphore < m_semaphores.size()) &&
               (i.print == no_print || i.print < p.prints.size());
    };
    for (const auto& stream : p.streams) {
        for (const auto& i : stream) {
            if (!valid(i)) throw invalid_argument_error("the program names a semaphore or a print that does not exist");
        }
    }
    m_checked = checked;
}

void neuron_core::run(std::shared_ptr<const program> p, finished done) {
    if (m_program) throw simulation_error(fmt::format("neuron_core{} already runs a program", m_index));
    check(p);
    m_semaphores.clear();
    m_program = std::move(p);
    m_done = std::move(done);
    m_streams_left = m_engines.size();
    for (const auto& e : m_engines) {
        const auto k = static_cast<std::size_t>(e->type());
        m_busy_at_start[k] = e->busy_ps();
        e->start(m_program->streams[k], [this] { stream_ended(); }, [this](std::uint32_t print) {
            auto event = m_program->prints.at(print);
            event.device = m_device;
            event.core = m_index;
            m_prints.emit(std::move(event));
        });
    }
}

void neuron_core::abort() {
    for (const auto& e : m_engines) e->stop();
    m_program.reset();
    m_done = nullptr;
}

void neuron_core::stream_ended() {
    if (--m_streams_left > 0) return;
    run_report report;
    for (const auto& e : m_engines) {
        const auto k = static_cast<std::size_t>(e->type());
        report.busy_ps[k] = e->busy_ps() - m_busy_at_start[k];
    }
    for (const auto& stream : m_program->streams) {
        for (const auto& i : stream) report.macs += i.macs;
    }
    auto done = std::move(m_done);
    m_program.reset();
    if (done) done(report);
}

} // namespace neuron::model
