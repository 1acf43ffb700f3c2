#include "neuron/model/hardware/neuron_core.h"

#include "neuron/model/hardware/kernel_time.h"
#include "neuron/model/program/debug_tensor_data.h"
#include "neuron/model/program/kernel.h"
#include "neuron/model/spec/engine_costs.h"
#include "neuron/model/spec/errors.h"
#include "neuron/model/state/ecc.h"

#include <fmt/format.h>

#include <algorithm>

namespace neuron::model {
namespace {

// The instructions every engine runs before its stream (K1): written once, run
// engine_preamble_instructions times.
instruction_stream engine_preamble(const core_costs& costs) {
    instruction_stream s;
    if (costs.engine_preamble_instructions.value == 0) return s;
    instruction i;
    i.busy_ps = costs.engine_preamble_instruction_ns.value * 1000;
    i.op = preamble_opcode;
    s.begin_loop(costs.engine_preamble_instructions.value);
    s.push_back(i);
    s.end_loop();
    return s;
}

} // namespace

neuron_core::neuron_core(sc_core::sc_module_name name, const device_spec& spec, std::uint32_t device,
                         std::uint32_t index, memory_bandwidth& memory, ecc_unit& ecc, debug_event_source& prints,
                         published_state& state)
        : sc_module(name), m_device(device), m_index(index),
          m_channel(memory_channel_of(spec, index)), m_sram{spec.sbuf_bytes_per_core, spec.psum_bytes_per_core},
          m_ecc(ecc), m_prints(prints), m_semaphores(spec.semaphores_per_core),
          m_dma("dma", spec.dma_engines_per_core, spec.queues_per_dma_engine, spec.dma_engine_bytes_per_ns(),
                {spec.costs().dma_descriptor_bytes.value, spec.costs().dma_engine_stagger_ns.value}, memory,
                m_semaphores),
          m_preamble_ps(spec.costs().execution_preamble_ns.value * 1000),
          m_postamble_ps(spec.costs().execution_postamble_ns.value * 1000),
          m_engine_preamble(engine_preamble(spec.costs())), m_pe(state, device, index) {
    for (const auto& e : spec.engines) {
        m_engines.push_back(
            std::make_unique<engine>(std::string(engine_name(e.kind)).c_str(), e, spec.costs(), m_semaphores));
        if (e.kind == engine_kind::tensor && spec.pe_row_groups > 0) m_engines.back()->meter(&m_pe);
        if (spec.costs().shared_data_ports) m_engines.back()->share(&m_ports);
    }
    for (const auto& e : spec.engines) m_figures.engine_clock_hz[static_cast<std::size_t>(e.kind)] = e.clock_hz;
    m_figures.core_clock_hz = spec.core_clock_hz;
    m_figures.dma_engines = spec.dma_engines_per_core;
    m_figures.queues_per_dma_engine = spec.queues_per_dma_engine;
    m_figures.dma_bytes_per_ns = spec.dma_bytes_per_ns;
    m_figures.memory_bytes_per_ns = spec.memory_bytes_per_ns;
    m_figures.cores_per_device = spec.cores_per_device;
    m_dma.on_slices_end([this](std::uint32_t slices) {
        m_slices_in_flight -= slices;
        finish_if_done();
    });
    SC_METHOD(strike_due);
    sensitive << m_strike_event;
    dont_initialize();
    SC_METHOD(complete);
    sensitive << m_postamble_end;
    dont_initialize();
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
        // More waits come only after a first one, one after the other.
        if (i.also_waits[0].semaphore != no_semaphore) {
            bool ended = i.wait_semaphore == no_semaphore;
            for (const auto& w : i.also_waits) {
                if (w.semaphore == no_semaphore) {
                    ended = true;
                } else if (ended || !semaphore(w.semaphore)) {
                    return false;
                }
            }
        }
        return semaphore(i.wait_semaphore) && semaphore(i.signal_semaphore) &&
               (i.print == no_print || i.print < p.prints.size()) &&
               (i.transfer == no_transfer || i.transfer < p.transfers.size());
    };
    for (const auto& stream : p.streams) {
        for (const auto& i : stream.text()) {
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

void neuron_core::leave_out_tensor_throttle() {
    for (const auto& e : m_engines) e->leave_out_throttle();
}

void neuron_core::run(std::shared_ptr<const program> p, std::uint64_t execution, finished done, run_options options) {
    if (m_program) throw simulation_error(fmt::format("neuron_core{} already runs a program", m_index));
    check(p);
    m_semaphores.clear();
    m_program = std::move(p);
    m_execution = execution;
    m_done = std::move(done);
    m_options = options;
    m_started_ps = now_ps();
    m_ports.release(m_started_ps);
    m_streams_left = m_engines.size();
    m_slices_in_flight = 0;
    m_at_start = {};
    for (const auto& e : m_engines) m_at_start.busy_ps[static_cast<std::size_t>(e->type())] = e->busy_ps();
    m_at_start.dma = m_dma.totals();
    if (options.fault) {
        m_armed.insert(m_armed.begin(), armed_fault{*options.fault, {}});
        m_trigger_armed = true;
    }
    if (m_options.profile) start_recording(std::move(m_options.profile));
    const auto hung = std::find_if(m_armed.begin(), m_armed.end(),
                                   [](const armed_fault& f) { return f.kind == fault_kind::collectives_hang; });
    if (hung != m_armed.end()) {
        if (hung == m_armed.begin()) m_trigger_armed = false;
        m_armed.erase(hung);
        hang();
        return;
    }
    watch_for_faults();
    for (const auto& e : m_engines) {
        e->start(
            m_program->streams[static_cast<std::size_t>(e->type())], [this] { stream_ended(); },
            [this, kind = e->type()](const instruction& i, std::uint64_t end_ps) {
                instruction_ended(i, kind, end_ps);
            },
            m_preamble_ps, m_engine_preamble.empty() || m_program->preambles_included ? nullptr : &m_engine_preamble);
    }
}

// A print is told as its instruction ends; a transfer may be told earlier,
// with the time its instruction ends (engine::start()).
void neuron_core::instruction_ended(const instruction& i, engine_kind on, std::uint64_t end_ps) {
    if (i.transfer != no_transfer) start_transfer(m_program->transfers[i.transfer], on, end_ps);
    if (i.print != no_print) {
        const auto overflow = std::find_if(m_armed.begin(), m_armed.end(), [](const armed_fault& f) {
            return f.kind == fault_kind::notification_overflow;
        });
        if (overflow != m_armed.end()) {
            strike(static_cast<std::size_t>(overflow - m_armed.begin()), now_ps(), 0);
            return; // the notification is lost
        }
        const auto& print = m_program->prints[i.print];
        const auto value = print.fill == print_fill::execution ? static_cast<double>(m_execution) : print.value;
        m_prints.emit(print_event(print, m_device, m_index, value));
    }
}

void neuron_core::start_transfer(const dma_transfer& t, engine_kind issuer, std::uint64_t issued_ps) {
    const auto arrives = issued_ps + t.start_latency_ps;
    m_slices_in_flight += m_dma.submit(t, arrives, issuer);
    if (m_recorder) m_recorder->transfer_issued(t, m_dma.last_serial(), issuer, arrives);
}

void neuron_core::start_recording(std::shared_ptr<profile::core_timeline> out) {
    m_profile = std::move(out);
    m_profile->device = m_device;
    m_profile->core = m_index;
    m_profile->start_ps = m_started_ps;
    m_profile->figures = m_figures;
    m_recorder = std::make_unique<execution_recorder>(m_program, *m_profile);
    m_recorder->attach(m_engines, m_dma, m_semaphores);
}

std::shared_ptr<profile::core_timeline> neuron_core::end_recording() {
    if (!m_recorder) return nullptr;
    m_recorder->detach(m_engines, m_dma, m_semaphores);
    m_recorder.reset();
    m_profile->end_ps = now_ps();
    return std::move(m_profile);
}

void neuron_core::abort() { (void)stop_run(); }

run_report neuron_core::give_up() {
    if (!m_program) throw simulation_error(fmt::format("neuron_core{} runs no program", m_index));
    auto report = report_now();
    report.profile = stop_run();
    return report;
}

std::shared_ptr<profile::core_timeline> neuron_core::stop_run() {
    for (const auto& e : m_engines) e->stop();
    m_dma.stop();
    auto recorded = end_recording();
    m_slices_in_flight = 0;
    m_streams_left = 0;
    m_program.reset();
    m_done = nullptr;
    if (m_trigger_armed) m_armed.erase(m_armed.begin()); // a trigger is for its run only
    m_trigger_armed = false;
    m_memory_error.reset();
    m_strike.reset();
    m_strike_event.cancel();
    m_in_postamble = false;
    m_postamble_end.cancel();
    watch_for_faults();
    return recorded;
}

void neuron_core::stream_ended() {
    --m_streams_left;
    finish_if_done();
}

run_report neuron_core::report_now() const {
    run_report report;
    for (const auto& e : m_engines) {
        const auto k = static_cast<std::size_t>(e->type());
        report.busy_ps[k] = e->busy_ps() - m_at_start.busy_ps[k];
    }
    const auto dma = m_dma.totals();
    report.dma = {dma.busy_ps - m_at_start.dma.busy_ps, dma.bytes - m_at_start.dma.bytes,
                  dma.hbm_bytes - m_at_start.dma.hbm_bytes};
    for (const auto& stream : m_program->streams) {
        each_with_runs(stream, [&](const instruction& i, std::uint64_t runs) {
            if (i.op != static_cast<std::uint8_t>(opcode::nc_transpose)) report.macs += i.macs * runs; // the model's
        });
    }
    return report;
}

// Once its engines and DMA are done, a run's postamble begins; it
// completes at its end.
void neuron_core::finish_if_done() {
    if (!m_program || m_streams_left > 0 || m_slices_in_flight > 0 || m_in_postamble) return;
    m_in_postamble = true;
    m_postamble_end.notify(sc_core::sc_time::from_value(m_postamble_ps));
}

// A run whose trigger found nothing to strike on fails as it ends.
void neuron_core::complete() {
    if (!m_in_postamble) return;
    m_in_postamble = false;
    if (m_trigger_armed) {
        const auto kind = m_armed.front().kind;
        m_armed.erase(m_armed.begin());
        m_trigger_armed = false;
        fail({kind, fault_info(kind).status}, false);
        return;
    }
    auto report = report_now();
    // An error waiting for a transfer of device memory came after the run's
    // last one and is dropped; a run that moves none carries it to its end.
    if (m_memory_error && m_memory_error->at_end) report.memory_error = m_memory_error->kind;
    m_memory_error.reset();
    report.profile = end_recording();
    auto done = std::move(m_done);
    m_program.reset();
    watch_for_faults();
    if (done) done(report);
}

} // namespace neuron::model
