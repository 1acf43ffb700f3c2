#pragma once

#include "neuron/model/device_spec.h"
#include "neuron/model/mem_type.h"
#include "neuron/protocol/messages.h"

#include <array>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace neuron::control {

// How a device print's tensor data is filled.
enum class print_fill : std::uint8_t {
    iota,      // element i holds i
    execution, // every element holds the execution's number (1, 2, ...)
    value,     // every element holds `value`
};

struct model_print {
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

struct model_memory {
    model::mem_location where = model::mem_location::device;
    model::mem_type type = model::mem_type::code_device;
    std::uint64_t bytes = 0;
};

inline constexpr std::size_t engine_count = 5; // tensor, vector, scalar, gpsimd, sync

// An emulated model: what `nrt_load` accepts instead of a NEFF
// (runtime_shim/MODEL_FILE.md documents the format).
struct model_definition {
    std::string name;
    std::vector<protocol::model_tensor> tensors; // inputs, then outputs
    std::vector<model_memory> memory;
    std::array<std::uint64_t, engine_count> engine_cycles{}; // per execution
    std::uint64_t macs = 0;
    std::vector<model_print> prints;
    std::vector<fault_trigger> faults;

    // The engines run in parallel: an execution lasts as long as the busiest.
    // Throws model::unsupported_error when it needs an engine the device lacks.
    std::chrono::nanoseconds duration_on(const model::device_spec& spec) const;
};

using protocol::max_model_file_bytes;

// Parses a model file. Errors are common::yaml_error with
// "source:line:column: " and the bad key or value; unknown keys are refused
// with the closest valid one suggested. A text over max_model_file_bytes is
// refused before it is parsed.
model_definition parse_model_file(std::string_view text, std::string source = "model");

// True when the bytes look like a model file at all (its first key is
// `neuron_emu_model`); a real NEFF does not.
bool looks_like_model_file(std::string_view bytes);

} // namespace neuron::control
