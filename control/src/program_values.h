#pragma once

// The values a model file's `program:` is made of (runtime_shim/MODEL_FILE.md):
// numbers in their ranges, dtypes, memories, semaphores, operators,
// engines. Each refuses what is out of range with the node's position.

#include "neuron/common/yaml_fields.h"
#include "neuron/model/program/kernel.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace neuron::control {

// The most semaphores a core has (256 on NC-v2 and later) less one; a
// device with fewer is build_program's to check.
inline constexpr std::uint64_t max_semaphore = 255;
// The largest SBUF partition of any generation (trn2: 24 MiB / 128).
inline constexpr std::uint64_t max_sbuf_budget = 224 * 1024;

class program_values {
public:
    explicit program_values(const common::yaml_fields& fields) : m_fields(fields) {}

    std::uint64_t range(const YAML::Node& node, std::string_view what, std::uint64_t low, std::uint64_t high) const;
    // `map[key]` in its range, or `fallback` when there is none.
    std::uint64_t optional_range(const YAML::Node& map, std::string_view key, std::uint64_t fallback, std::uint64_t low,
                                 std::uint64_t high) const;
    // A list of two, as `form` says ("[K, M]").
    std::vector<YAML::Node> pair(const YAML::Node& node, std::string_view what, std::string_view form) const;
    // `map`'s dtype: bfloat16 when it has none.
    model::costs::element_type dtype(const YAML::Node& map) const;
    model::dma_trigger trigger(const YAML::Node& node) const;
    model::memory_kind memory(const YAML::Node& node, std::string_view what) const;
    // Where a compute instruction reads or writes: the engines reach SBUF and PSUM only.
    model::memory_kind on_chip(const YAML::Node& map, std::string_view key, model::memory_kind fallback) const;
    std::uint64_t offset(const YAML::Node& map) const;
    std::uint32_t semaphore(const YAML::Node& node) const;
    // An ALU operator, the value of `key`.
    model::alu_op alu(const YAML::Node& node, std::string_view key) const;
    model::activation_function function(const YAML::Node& node) const;
    // `map`'s loads_on: an engine's name, or `fallback` when it has none.
    model::engine_kind loads_on(const YAML::Node& map, model::engine_kind fallback) const;

private:
    const common::yaml_fields& m_fields;
};

} // namespace neuron::control
