#include "profile_capture.h"

#include "neuron/model/runtime/api.h"
#include "neuron/model/runtime/simulation.h"
#include "neuron/model/spec/logical_cores.h"
#include "neuron/model/spec/nrt_status.h"
#include "neuron/model/state/published_state.h"

#include <fmt/format.h>

#include <future>
#include <memory>

namespace neuron::cli {
namespace {

using namespace std::chrono_literals;

struct worker {
    std::uint32_t rank;
    model::owner_id session;
    std::uint32_t model;
};

// Runs the model once on every worker at the same time and waits, in
// stepped time, until each has completed.
std::vector<model::execution_outcome> execute_all(model::api& api, const std::vector<worker>& workers,
                                                  const capture_plan& plan, bool profiled) {
    std::vector<std::shared_ptr<std::promise<model::execution_outcome>>> promises;
    std::vector<std::future<model::execution_outcome>> futures;
    for (const auto& w : workers) {
        auto p = std::make_shared<std::promise<model::execution_outcome>>();
        futures.push_back(p->get_future());
        const bool profile = profiled && (!plan.profiled_rank || *plan.profiled_rank == w.rank);
        api.execute(
            w.session, w.model, 1, [p](const model::execution_outcome& o) { p->set_value(o); }, {}, profile);
        promises.push_back(std::move(p));
    }
    // Steps that grow: a short execution is not overshot by much, and one
    // the runtime's 30 s timeout ends takes a few dozen steps.
    auto step = std::chrono::nanoseconds(10us);
    for (std::size_t i = 0; i < futures.size();) {
        if (futures[i].wait_for(0s) == std::future_status::ready) {
            ++i;
            continue;
        }
        api.advance(step);
        step = std::min<std::chrono::nanoseconds>(2 * step, 1s);
    }
    std::vector<model::execution_outcome> outcomes;
    for (auto& f : futures) outcomes.push_back(f.get());
    return outcomes;
}

} // namespace

std::vector<captured_profile> capture(const control::model_definition& definition, const capture_plan& plan) {
    model::platform_config config;
    config.instance = plan.instance;
    config.start_epoch_ns = 0; // nothing of the wall clock in a profile
    model::simulation sim(config);
    model::api api(sim);
    // As the runtime opens them: logical cores of the instance's default LNC.
    const auto lnc = model::default_lnc(sim.published().instance());
    const auto cores = sim.published().device_count() * sim.published().cores_per_device() / lnc;
    if (plan.workers == 0 || plan.workers > cores) {
        throw capture_error(fmt::format("{} has {} logical NeuronCores: {} workers do not fit (one core each)",
                                        plan.instance, cores, plan.workers));
    }
    std::vector<worker> workers;
    for (std::uint32_t n = 0; n < plan.workers; ++n) {
        model::session_request request;
        request.label = fmt::format("neuron-emu profile rank {}", plan.first_rank + n);
        request.lnc = lnc;
        request.selection = model::core_selection::range;
        request.first = n;
        request.count = 1;
        const auto grant = api.open_session(request);
        workers.push_back({plan.first_rank + n, grant.owner, 0});
    }
    api.advance(config.reset_duration); // each session waits for its cores' reset, as nrt_init does
    for (auto& w : workers) w.model = api.load(w.session, std::nullopt, definition).model;

    std::vector<captured_profile> out;
    for (std::uint64_t e = 1; e <= plan.nth; ++e) {
        const bool profiled = e == plan.nth;
        const auto outcomes = execute_all(api, workers, plan, profiled);
        for (std::size_t i = 0; i < workers.size(); ++i) {
            const auto& o = outcomes[i];
            if (o.status != model::nrt_status::success && !plan.ignore_errors) {
                throw capture_error(
                    fmt::format("execution {} of '{}' on rank {} returned {} ({}); --ignore-exec-errors keeps going", e,
                                definition.name, workers[i].rank,
                                model::status_name(o.status).value_or("an unknown status"), o.status));
            }
            if (profiled && o.profile) out.push_back({workers[i].rank, *o.profile});
        }
    }
    for (const auto& w : workers) api.close_session(w.session);
    sim.stop();
    return out;
}

} // namespace neuron::cli
