#pragma once

#include "neuron/control/model_file.h"
#include "neuron/profile/timeline.h"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace neuron::cli {

// What `neuron-emu profile capture` runs: the model on `workers` logical
// cores of an emulated instance (one runtime session each, as one process
// per worker would), `nth` executions each, the last one profiled.
struct capture_plan {
    std::string instance;
    std::uint32_t workers = 1;
    std::uint32_t first_rank = 0;               // the global rank of worker 0
    std::optional<std::uint32_t> profiled_rank; // none: every worker
    std::uint64_t nth = 1;
    bool ignore_errors = false;
};

struct captured_profile {
    std::uint32_t rank;
    profile::core_timeline timeline;
};

// An execution that failed (without ignore_errors), or workers that do not
// fit the instance: what() says which.
class capture_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Runs on a fresh stepped simulation; one call per process (SystemC allows
// one simulation per process).
std::vector<captured_profile> capture(const control::model_definition& model, const capture_plan& plan);

} // namespace neuron::cli
