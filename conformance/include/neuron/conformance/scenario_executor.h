#pragma once

#include "neuron/conformance/runtime_process.h"
#include "neuron/conformance/scenario.h"
#include "neuron/conformance/target.h"
#include "neuron/conformance/target_session.h"
#include "neuron/conformance/tree_io.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

namespace neuron::conformance {

// A step did not do what the scenario says: where, what, and why.
class step_failure : public std::runtime_error {
public:
    step_failure(source_location where, std::string step, const std::string& why)
            : std::runtime_error(why), m_where(std::move(where)), m_step(std::move(step)) {}
    const source_location& where() const { return m_where; }
    const std::string& step() const { return m_step; }

private:
    source_location m_where;
    std::string m_step;
};

// Runs one scenario's steps against a live target, in order, stopping at the
// first that fails (step_failure). `on_step` hears of each step before it
// runs (the runner reports where a scenario that timed out was).
class scenario_executor {
public:
    using step_listener = std::function<void(const source_location&, const std::string& step)>;

    scenario_executor(const scenario& s, const target_description& target, target_session& session,
                      const tool_paths& tools, std::string directory, step_listener on_step = {});
    ~scenario_executor();

    void run();

    struct runner; // the running state (src/executor_state.h)

private:
    std::unique_ptr<runner> m_runner;
};

} // namespace neuron::conformance
