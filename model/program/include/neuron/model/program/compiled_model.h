#pragma once

#include "neuron/model/spec/device_spec.h"
#include "neuron/model/spec/mem_type.h"

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace neuron::model {

// How a device print's tensor data is filled.
enum class print_fill : std::uint8_t {
    iota,      // element i holds i
    execution, // every element holds the execution's number (1, 2, ...)
    value,     // every element holds `value`
};

struct device_print {
    std::string prefix;
    std::string dtype = "float32"; // a debug-stream dtype string
    std::vector<std::uint64_t> shape{1};
    std::uint32_t pipe = 0;
    print_fill fill = print_fill::iota;
    double value = 0;
};

enum class trigger_kind : std::uint8_t {
    on_execution,     // exactly the Nth execution (1-based)
    after_executions, // every execution after the first N
    probability,      // each execution with probability p, from a seeded generator
};

// When a loaded model's execution returns a given status instead of running
// (in the spirit of QEMU's blkdebug and nvml-mock's failure triggers).
struct fault_trigger {
    std::uint32_t status = 0;
    trigger_kind kind = trigger_kind::on_execution;
    std::uint64_t n = 0;
    double probability = 0;
    std::uint64_t seed = 0;
    bool once = false;
};

// Memory a model holds while it is loaded, on physical core `core` of its
// logical core (0: the first). A `shared` need is the runtime's shared
// scratchpad: a core holds the largest one of the models loaded on it, not
// their sum, growing and shrinking as they load and unload.
struct memory_need {
    mem_location where = mem_location::device;
    mem_type type = mem_type::code_device;
    std::uint64_t bytes = 0;
    std::uint32_t core = 0;
    bool shared = false;
};

// The work of a compiled NEFF as its files count it (reference/neff.md),
// its instruction set not decoded: per engine the instructions of its
// longest stream, the multiply-accumulates HLO statistics count and the
// bytes they say it moves, spread over `cores` physical cores (one graph
// each); 0 cores: not a NEFF.
struct stream_work {
    std::array<std::uint64_t, engine_count> instructions{}; // indexed by engine_kind
    std::uint64_t macs = 0;
    std::uint64_t traffic_bytes = 0;
    std::uint32_t cores = 0;
};

struct kernel;

// What the model runs when the runtime loads a model: the work of one
// execution, the memory it holds, its device prints and its fault triggers.
// The runtime's view of it (tensors, names) stays with the runtime.
struct compiled_model {
    std::string name;
    std::vector<memory_need> memory;
    std::array<std::uint64_t, engine_count> engine_cycles{}; // per execution, indexed by engine_kind
    std::uint64_t macs = 0;
    std::shared_ptr<const kernel> program; // when set, it runs instead of engine_cycles
    stream_work streams;                   // when it has cores, it runs instead of either
    std::vector<device_print> prints;
    std::vector<fault_trigger> faults;
};

// How long one execution of `m` lasts on a device, to the nanosecond above:
// its engines run in parallel, so as long as the busiest one. Throws
// unsupported_error when it needs an engine the device lacks.
std::chrono::nanoseconds execution_duration(const compiled_model& m, const device_spec& spec);

} // namespace neuron::model
