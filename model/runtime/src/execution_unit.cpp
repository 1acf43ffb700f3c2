#include "neuron/model/runtime/execution_unit.h"

#include "neuron/model/driver/owner_registry.h"
#include "neuron/model/hardware/neuron_core.h"
#include "neuron/model/spec/errors.h"
#include "neuron/model/spec/nrt_status.h"
#include "neuron/model/state/ecc.h"
#include "neuron/model/state/published_state.h"
#include "sc_ns.h"

#include <algorithm>

namespace neuron::model {

// Calls `due` once simulated time reaches the earliest time it was woken for.
class execution_unit::deadline_watch : public sc_core::sc_module {
public:
    SC_HAS_PROCESS(deadline_watch);
    deadline_watch(sc_core::sc_module_name name, std::function<void()> due) : sc_module(name), m_due(std::move(due)) {
        SC_METHOD(fire);
        sensitive << m_event;
        dont_initialize();
    }
    void wake_at(const sc_core::sc_time& when) {
        const auto now = sc_core::sc_time_stamp();
        m_event.notify(when > now ? when - now : sc_core::SC_ZERO_TIME); // an earlier pending wake-up stays
    }

private:
    void fire() { m_due(); }
    std::function<void()> m_due;
    sc_core::sc_event m_event;
};

namespace {

execution_activity activity_of(const run_report& report, std::uint64_t duration_ps) {
    execution_activity a;
    a.engine_busy_ps = report.busy_ps;
    a.dma_busy_ps = report.dma.busy_ps;
    a.dma_bytes = report.dma.bytes;
    a.hbm_bytes = report.dma.hbm_bytes;
    a.macs = report.macs;
    a.duration_ps = duration_ps;
    return a;
}

} // namespace

execution_unit::execution_unit(published_state& state, owner_registry& owners, debug_event_source& prints,
                               core_finder cores)
        : m_state(state), m_owners(owners), m_prints(prints), m_cores(std::move(cores)),
          m_occupancy(state.device_count()),
          m_deadlines(std::make_unique<deadline_watch>("execution_deadlines", [this] { give_up_overdue(); })) {}

execution_unit::~execution_unit() = default;

std::uint32_t execution_unit::sram_errors_on(std::uint32_t device) const {
    return read_ecc(m_state, device).sram_ecc_uncorrected;
}

void execution_unit::submit(execution_request request, execution_callback done) {
    if (request.cores.empty()) throw invalid_argument_error("an execution needs at least one core");
    for (const auto core : request.cores) m_state.check_core(request.device, static_cast<std::int32_t>(core));
    if (!request.work) throw invalid_argument_error("an execution needs a program");
    m_cores(request.device, request.cores.front()).check(request.work);
    const auto id = m_next_id++;
    for (const auto core : request.cores) m_queues[{request.device, core}].push_back(id);
    m_pending.emplace(id, pending_execution{std::move(request), std::move(done), false, {}, {}});
    try_start(id);
}

// Starts `id` when it is first in line on every core it occupies.
void execution_unit::try_start(std::uint64_t id) {
    auto& e = m_pending.at(id);
    if (e.running) return;
    for (const auto core : e.request.cores) {
        if (m_queues[{e.request.device, core}].front() != id) return;
    }
    e.running = true;
    occupy(e.request, true);
    e.started = sc_core::sc_time_stamp();
    const auto timeout_ps = e.request.options.timeout_ps;
    if (timeout_ps <= sc_core::sc_max_time().value() - e.started.value()) {
        e.deadline = e.started + sc_core::sc_time::from_value(timeout_ps);
        m_deadlines->wake_at(*e.deadline);
    }
    e.sram_errors_before = sram_errors_on(e.request.device);
    m_cores(e.request.device, e.request.cores.front())
        .run(
            e.request.work, e.request.number, [this, id](const run_report& report) { complete(id, report); },
            e.request.options);
}

void execution_unit::start_waiting(const execution_request& request) {
    for (const auto core : request.cores) {
        const auto it = m_queues.find({request.device, core});
        if (it != m_queues.end() && !it->second.empty()) try_start(it->second.front());
    }
}

void execution_unit::complete(std::uint64_t id, const run_report& report, bool timed_out) {
    const auto it = m_pending.find(id);
    if (it == m_pending.end()) return;
    auto execution = std::move(it->second);
    m_pending.erase(it);
    for (const auto core : execution.request.cores) m_queues[{execution.request.device, core}].pop_front();
    occupy(execution.request, false);
    const auto status = timed_out      ? nrt_status::timeout
                        : report.fault ? report.fault->status
                                       : outcome(execution.request, execution.sram_errors_before, report);
    const auto duration_ps = (sc_core::sc_time_stamp() - execution.started).value();
    account(execution.request, status, duration_ps, report);
    for (auto& print : execution.request.prints) m_prints.emit(std::move(print));
    if (report.profile) {
        report.profile->status = status;
        report.profile->execution = execution.request.number;
    }
    if (execution.done) execution.done({status, report.fault, activity_of(report, duration_ps), report.profile});
    start_waiting(execution.request);
}

void execution_unit::give_up_overdue() {
    const auto now = sc_core::sc_time_stamp();
    std::vector<std::uint64_t> overdue;
    std::optional<sc_core::sc_time> next;
    for (const auto& [id, e] : m_pending) {
        if (!e.running || !e.deadline) continue;
        auto& core = m_cores(e.request.device, e.request.cores.front());
        if (*e.deadline > now) {
            next = next ? std::min(*next, *e.deadline) : *e.deadline;
        } else if (!core.stopping_by(now.value())) { // a fault that struck ends it now with its own status
            overdue.push_back(id);
        }
    }
    for (const auto id : overdue) {
        const auto it = m_pending.find(id); // an earlier one's callback may have changed the queue
        if (it == m_pending.end() || !it->second.running) continue;
        const auto& r = it->second.request;
        complete(id, m_cores(r.device, r.cores.front()).give_up(), true);
    }
    if (next) m_deadlines->wake_at(*next);
}

void execution_unit::cancel(owner_id owner) {
    std::vector<execution_callback> cancelled;
    std::vector<execution_request> freed;
    for (auto it = m_pending.begin(); it != m_pending.end();) {
        auto& e = it->second;
        if (e.request.owner != owner) {
            ++it;
            continue;
        }
        if (e.running) {
            m_cores(e.request.device, e.request.cores.front()).abort();
            occupy(e.request, false);
        }
        for (const auto core : e.request.cores) std::erase(m_queues[{e.request.device, core}], it->first);
        cancelled.push_back(std::move(e.done));
        freed.push_back(std::move(e.request));
        it = m_pending.erase(it);
    }
    // Another owner's work on those cores (there is none while ownership is
    // exclusive) moves up.
    for (const auto& r : freed) start_waiting(r);
    for (auto& done : cancelled) {
        if (done) done({nrt_status::closed, std::nullopt, {}, nullptr}); // what an abandoned run did is not kept
    }
}

// An HBM error in the run's channel stops it where its DMA reads it
// (neuron_core::memory_error); only a run that moves no device memory is
// judged by it here.
std::uint32_t execution_unit::outcome(const execution_request& request, std::uint32_t sram_errors_before,
                                      const run_report& report) const {
    if (request.forced_status != nrt_status::success) return request.forced_status;
    if (sram_errors_on(request.device) > sram_errors_before) return nrt_status::exec_hw_err_nc_ue;
    if (report.memory_error) return fault_info(*report.memory_error).status;
    return nrt_status::success;
}

void execution_unit::account(const execution_request& request, std::uint32_t status, std::uint64_t duration_ps,
                             const run_report& report) {
    if (!m_owners.exists(request.owner)) return; // the process is gone: its datastore went with it
    const auto device = request.device;
    const auto core = request.cores.front();
    if (const auto counter = status_counter(status)) m_owners.record(request.owner, device, core, *counter, 1);
    const auto micros = duration_ps / 1'000'000;
    if (micros > 0) m_owners.record(request.owner, device, core, counter_kind::nc_time_in_use, micros);
    if (status != nrt_status::success) return;
    m_owners.record(request.owner, device, core, counter_kind::inference_count, 1);
    m_owners.record_macs(request.owner, device, core, report.macs);
}

void execution_unit::occupy(const execution_request& request, bool running) {
    auto& r = m_occupancy[request.device];
    const auto cores = request.cores.size();
    const auto now_ns = sc_to_ns(sc_core::sc_time_stamp());
    r = occupancy_changed(r, now_ns, running ? r.busy + cores : r.busy - cores);
    m_state.publish(request.device, r);
}

} // namespace neuron::model
