#include "neuron/model/neuron_core.h"

#include "neuron/model/debug_tensor_data.h"
#include "neuron/model/engine_costs.h"
#include "neuron/model/errors.h"

#include <fmt/format.h>

namespace neuron::model {
namespace {

std::uint64_t now_ps() { return static_cast<std::uint64_t>(sc_core::sc_time_stamp().value()); }

// A transfer's data starts moving dma_start_ns after its instruction began,
// which was dma_instruction_ns ago when the instruction ends (A.6).
constexpr std::uint64_t transfer_latency_ps = (costs::dma_start_ns - costs::dma_instruction_ns) * 1000;

} // namespace

neuron_core::neuron_core(sc_core::sc_module_name name, const device_spec& spec, std::uint32_t device,
                         std::uint32_t index, memory_bandwidth& memory, debug_event_source& prints)
    : sc_module(name), m_device(device), m_index(index), m_sram{spec.sbuf_bytes_per_core, spec.psum_bytes_per_core},
      m_prints(prints), m_semaphores(spec.semaphores_per_core),
      m_dma("dma", spec.dma_engines_per_core, spec.queues_per_dma_engine, spec.dma_bytes_per_ns, memory, m_semaphores) {
    for (const auto& e : spec.engines) {
        m_engines.push_back(std::make_unique<engine>(std::string(engine_name(e.kind)).c_str(), e, m_semaphores));
    }
    m_dma.on_slices_end([this](std::uint32_t slices) {
        m_slices_in_flight -= slices;
        finish_if_done();
    });
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
    const auto semaphore = [&](std::uint32_t s) { return s == no_semaphore || s < m_semaphores.size(); };
    const auto valid = [&](const instruction& i) {
        return semaphore(i.wait_semaphore) && semaphore(i.signal_semaphore) &&
               (i.print == no_print || i.print < p.prints.size()) &&
               (i.transfer == no_transfer || i.transfer < p.transfers.size());
    };
    for (const auto& stream : p.streams) {
        for (const auto& i : stream) {
            if (!valid(i)) {
                throw invalid_argument_error("the program names a semaphore, print or transfer that does not exist");
            }
        }
    }
    const auto queues = m_dma.queue_count();
    for (const auto& t : p.transfers) {
        if (!semaphore(t.signal_semaphore) || t.queue >= queues || t.dma_engines == 0) {
            throw invalid_argument_error("a DMA transfer names a semaphore or queue that does not exist");
        }
    }
    m_checked = checked;
}

void neuron_core::run(std::shared_ptr<const program> p, std::uint64_t execution, finished done) {
    if (m_program) throw simulation_error(fmt::format("neuron_core{} already runs a program", m_index));
    check(p);
    m_semaphores.clear();
    m_program = std::move(p);
    m_execution = execution;
    m_done = std::move(done);
    m_streams_left = m_engines.size();
    m_slices_in_flight = 0;
    m_at_start = {};
    for (const auto& e : m_engines) m_at_start.busy_ps[static_cast<std::size_t>(e->type())] = e->busy_ps();
    m_at_start.dma = m_dma.totals();
    for (const auto& e : m_engines) {
        e->start(
            m_program->streams[static_cast<std::size_t>(e->type())], [this] { stream_ended(); },
            [this](const instruction& i) { instruction_ended(i); });
    }
}

void neuron_core::instruction_ended(const instruction& i) {
    if (i.transfer != no_transfer) start_transfer(m_program->transfers[i.transfer]);
    if (i.print != no_print) {
        const auto& print = m_program->prints[i.print];
        const auto value = print.fill == print_fill::execution ? static_cast<double>(m_execution) : print.value;
        m_prints.emit(print_event(print, m_device, m_index, value));
    }
}

void neuron_core::start_transfer(const dma_transfer& t) {
    m_slices_in_flight += m_dma.submit(t, now_ps() + transfer_latency_ps);
}

void neuron_core::abort() {
    for (const auto& e : m_engines) e->stop();
    m_dma.stop();
    m_slices_in_flight = 0;
    m_streams_left = 0;
    m_program.reset();
    m_done = nullptr;
}

void neuron_core::stream_ended() {
    --m_streams_left;
    finish_if_done();
}

void neuron_core::finish_if_done() {
    if (!m_program || m_streams_left > 0 || m_slices_in_flight > 0) return;
    run_report report;
    for (const auto& e : m_engines) {
        const auto k = static_cast<std::size_t>(e->type());
        report.busy_ps[k] = e->busy_ps() - m_at_start.busy_ps[k];
    }
    const auto dma = m_dma.totals();
    report.dma = {dma.busy_ps - m_at_start.dma.busy_ps, dma.bytes - m_at_start.dma.bytes,
                  dma.hbm_bytes - m_at_start.dma.hbm_bytes};
    for (const auto& stream : m_program->streams) {
        for (const auto& i : stream) report.macs += i.macs;
    }
    auto done = std::move(m_done);
    m_program.reset();
    if (done) done(report);
}

} // namespace neuron::model
