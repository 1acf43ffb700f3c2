#include "neuron/conformance/run_plan.h"

#include "neuron/model/spec/errors.h"
#include "neuron/model/spec/instance_catalogue.h"
#include "neuron/sysfs/driver_release.h"
#include <fmt/format.h>

#include <set>
#include <tuple>

namespace neuron::conformance {
namespace {

scenario_outcome decided(verdict v, std::string reason) {
    scenario_outcome o;
    o.result = v;
    o.reason = std::move(reason);
    return o;
}

} // namespace

std::vector<scenario_run> plan_runs(std::span<const scenario* const> selected,
                                    std::span<const target_description> targets, const plan_options& options) {
    std::vector<scenario_run> runs;
    std::set<std::tuple<const scenario*, const model::instance_type*, const sysfs::driver_release*>> seen;
    std::size_t index = 0;
    for (const auto& base : targets) {
        for (const auto* s : selected) {
            scenario_run r;
            r.what = s;
            r.timeout = options.timeout.value_or(s->timeout.value_or(default_scenario_timeout));
            try {
                r.target = base.what == target_description::kind::model ? model_target_for(base, *s) : base;
                if (base.what == target_description::kind::model &&
                    !seen.emplace(s, r.target.instance, r.target.release).second) {
                    continue;
                }
                if (const auto why = skip_reason(*s, r.target)) r.decided = decided(verdict::skip, *why);
            } catch (const model::invalid_argument_error& e) {
                // A setup no target can have (an unknown release): this
                // scenario fails, the others run.
                r.target = base;
                r.decided = decided(verdict::fail, fmt::format("its setup cannot be met: {}", e.what()));
            }
            if (index++ % options.shards != options.shard) continue;
            runs.push_back(std::move(r));
        }
    }
    return runs;
}

std::vector<target_description> every_model_target() {
    std::vector<target_description> targets;
    for (const auto& instance : model::instance_catalogue()) {
        for (const auto& release : sysfs::known_releases()) {
            targets.push_back(describe_model_target(std::string(instance.name), std::string(release.tag)));
        }
    }
    return targets;
}

} // namespace neuron::conformance
