#pragma once

#include "neuron/control/loaded_model.h"
#include "neuron/control/logical_cores.h"
#include "neuron/model/owner_id.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace neuron::model {
class platform;
}

namespace neuron::control {

// What `nrt_execute_repeat` of N asks for: N executions of one loaded model,
// one after the other, answered once. Each repetition is submitted when the
// previous one completes, so a count of 2^32-1 holds one execution in the
// model at a time, not billions. Kernel thread only.
class repeated_execution : public std::enable_shared_from_this<repeated_execution> {
public:
    struct outcome {
        std::uint32_t status = 0; // the first failure's, else NRT_SUCCESS
        std::uint32_t completed = 0;
    };
    using finished = std::function<void(const outcome&)>;

    // Submits the first repetition; `done` runs once, after the last one or
    // when the session's executions are cancelled (status NRT_CLOSED).
    static void start(model::platform& platform, std::shared_ptr<loaded_model> model, model::owner_id owner,
                      std::vector<physical_core> cores, std::chrono::nanoseconds duration, std::uint32_t repeat,
                      finished done);

private:
    repeated_execution(model::platform& platform, std::shared_ptr<loaded_model> model, model::owner_id owner,
                       std::vector<physical_core> cores, std::chrono::nanoseconds duration, std::uint32_t repeat,
                       finished done);
    void submit_next();
    void completed(std::uint32_t status);

    model::platform& m_platform;
    std::shared_ptr<loaded_model> m_model;
    model::owner_id m_owner;
    std::vector<physical_core> m_cores;
    std::chrono::nanoseconds m_duration;
    std::uint32_t m_remaining;
    outcome m_outcome;
    finished m_done;
};

} // namespace neuron::control
