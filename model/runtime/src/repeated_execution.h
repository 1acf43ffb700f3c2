#pragma once

#include "neuron/model/driver/owner_id.h"
#include "neuron/model/runtime/execution_unit.h"
#include "neuron/model/runtime/loaded_model.h"
#include "neuron/model/runtime/runtime_sessions.h"
#include "neuron/model/spec/logical_cores.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace neuron::model {

class platform;

// What `nrt_execute_repeat` of N asks for: N executions of one loaded model,
// one after the other, answered once. Each repetition is submitted when the
// previous one completes, so a count of 2^32-1 holds one execution in the
// model at a time, not billions. Kernel thread only.
class repeated_execution : public std::enable_shared_from_this<repeated_execution> {
public:
    // Submits the first repetition; `done` runs once, after the last one,
    // after one that timed out (NRT_TIMEOUT: the rest do not run), or when
    // the session's executions are cancelled (status NRT_CLOSED).
    // `cores`: the session's logical cores; `profile`: the last repetition
    // is recorded.
    static void start(platform& platform, std::shared_ptr<loaded_model> model, owner_id owner,
                      const logical_cores& cores, std::uint32_t repeat, std::uint64_t timeout_ps, bool profile,
                      execution_done done);

private:
    repeated_execution(platform& platform, std::shared_ptr<loaded_model> model, owner_id owner,
                       const logical_cores& cores, std::uint32_t repeat, std::uint64_t timeout_ps, bool profile,
                       execution_done done);
    void submit_next();
    void completed(const execution_result& result);

    platform& m_platform;
    std::shared_ptr<loaded_model> m_model;
    owner_id m_owner;
    std::vector<physical_core> m_cores;
    std::uint32_t m_lnc;
    std::uint32_t m_remaining;
    std::uint64_t m_timeout_ps;
    bool m_profile;
    execution_outcome m_outcome;
    execution_done m_done;
};

} // namespace neuron::model
