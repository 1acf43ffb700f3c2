#include "repeated_execution.h"

#include "neuron/model/runtime/platform.h"
#include "neuron/model/spec/nrt_status.h"
#include "neuron/model/state/hardware_fault.h"
#include "sc_ns.h"

namespace neuron::model {

void repeated_execution::start(platform& platform, std::shared_ptr<loaded_model> model, owner_id owner,
                               const logical_cores& cores, std::uint32_t repeat, std::uint64_t timeout_ps, bool profile,
                               execution_done done) {
    const std::shared_ptr<repeated_execution> run(
        new repeated_execution(platform, std::move(model), owner, cores, repeat, timeout_ps, profile, std::move(done)));
    run->submit_next();
}

repeated_execution::repeated_execution(platform& platform, std::shared_ptr<loaded_model> model, owner_id owner,
                                       const logical_cores& cores, std::uint32_t repeat, std::uint64_t timeout_ps,
                                       bool profile, execution_done done)
        : m_platform(platform), m_model(std::move(model)), m_owner(owner),
          m_cores(cores.physical(m_model->logical_core())), m_lnc(cores.lnc()), m_remaining(repeat),
          m_timeout_ps(timeout_ps), m_profile(profile), m_done(std::move(done)) {}

void repeated_execution::submit_next() {
    const auto next = m_model->begin_execution();
    execution_request r;
    r.owner = m_owner;
    r.device = m_cores.front().device;
    for (const auto& c : m_cores) r.cores.push_back(c.core);
    r.work = m_model->work();
    if (const auto fault = fault_for_status(next.forced_status)) {
        r.options.fault = fault; // strikes where it happens
    } else {
        r.forced_status = next.forced_status;
    }
    r.prints = m_model->prints(next.number, m_cores.front());
    r.options.timeout_ps = m_timeout_ps;
    if (m_profile && m_remaining == 1) r.options.profile = std::make_shared<profile::core_timeline>();
    r.number = next.number;
    m_platform.executions().submit(
        std::move(r), [self = shared_from_this()](const execution_result& result) { self->completed(result); });
}

void repeated_execution::completed(const execution_result& result) {
    m_outcome.ended_ns = sc_to_ns(sc_core::sc_time_stamp());
    if (result.status == nrt_status::closed) {
        m_done({result.status, m_outcome.completed, std::nullopt, m_outcome.activity, m_outcome.ended_ns, nullptr});
        return;
    }
    ++m_outcome.completed;
    m_outcome.activity += result.activity;
    if (result.profile) {
        result.profile->instance_type = m_platform.instance().name;
        result.profile->model_name = m_model->compiled().name;
        result.profile->logical_core = m_model->logical_core();
        result.profile->lnc = m_lnc;
        m_outcome.profile = result.profile;
    }
    if (m_outcome.status == nrt_status::success) {
        m_outcome.status = result.status;
        m_outcome.fault = result.fault;
    }
    // Ours: once the runtime gave up on one repetition it runs no more (each
    // would wait out the timeout again).
    if (--m_remaining > 0 && result.status != nrt_status::timeout) {
        submit_next();
        return;
    }
    m_done(m_outcome);
}

} // namespace neuron::model
