#include "program_values.h"

#include "model_fields.h"

#include <fmt/format.h>

#include <string>

namespace neuron::control {
namespace {

using model::alu_op;
using model::engine_kind;
using model::memory_kind;
using model::costs::element_type;

// The model file's dtype names (nrt_dtype.cpp) for what the engines compute
// with, and tfloat32, which only the engines have.
struct program_dtype {
    std::string_view name;
    element_type type;
};
constexpr program_dtype program_dtypes[] = {
    {"bfloat16", element_type::bf16},  {"float16", element_type::fp16},   {"float32", element_type::fp32},
    {"tfloat32", element_type::tf32},  {"float8e4m3", element_type::fp8}, {"float8e5m2", element_type::fp8},
    {"float8e3m4", element_type::fp8}, {"int8", element_type::int8},      {"uint8", element_type::int8},
    {"int16", element_type::int16},    {"uint16", element_type::int16},   {"int32", element_type::int32},
    {"uint32", element_type::int32},
};
constexpr std::string_view no_engine_dtypes[] = {"int64", "uint64", "float32r"};

std::string program_dtype_names() {
    std::string out;
    for (const auto& d : program_dtypes) out += (out.empty() ? "" : ", ") + std::string(d.name);
    return out;
}

} // namespace

model::engine_kind program_values::loads_on(const YAML::Node& map, model::engine_kind fallback) const {
    const auto node = map["loads_on"];
    if (!node) return fallback;
    const auto name = m_fields.text(node, "loads_on");
    const auto engine = model::find_engine(name);
    if (!engine) {
        std::string valid;
        for (std::size_t e = 0; e < model::engine_count; ++e) {
            valid += (valid.empty() ? "" : ", ") + std::string(model::engine_name(static_cast<engine_kind>(e)));
        }
        m_fields.fail(node, fmt::format("unknown engine '{}' (valid: {})", quoted(name), valid));
    }
    return *engine;
}

std::uint64_t program_values::range(const YAML::Node& node, std::string_view what, std::uint64_t low,
                                    std::uint64_t high) const {
    const auto n = m_fields.unsigned_number(node, what);
    if (n < low || n > high) m_fields.fail(node, fmt::format("{} must be from {} to {}, not {}", what, low, high, n));
    return n;
}

std::uint64_t program_values::optional_range(const YAML::Node& map, std::string_view key, std::uint64_t fallback,
                                             std::uint64_t low, std::uint64_t high) const {
    const auto node = map[std::string(key)];
    return node ? range(node, key, low, high) : fallback;
}

std::vector<YAML::Node> program_values::pair(const YAML::Node& node, std::string_view what,
                                             std::string_view form) const {
    if (!node.IsSequence() || node.size() != 2) m_fields.fail(node, fmt::format("{} must be {}", what, form));
    return {node[0], node[1]};
}

element_type program_values::dtype(const YAML::Node& map) const {
    const auto node = map["dtype"];
    if (!node) return element_type::bf16;
    const auto name = m_fields.text(node, "dtype");
    for (const auto& d : program_dtypes) {
        if (d.name == name) return d.type;
    }
    for (const auto n : no_engine_dtypes) {
        if (n == name) {
            m_fields.fail(node, fmt::format("the engines do not compute with {} (they do with: {})", name,
                                            program_dtype_names()));
        }
    }
    m_fields.fail(node, fmt::format("unknown dtype '{}' (valid: {})", quoted(name), program_dtype_names()));
}

model::dma_trigger program_values::trigger(const YAML::Node& node) const {
    const auto name = m_fields.text(node, "trigger");
    if (name == "static") return model::dma_trigger::static_descriptors;
    if (name == "hardware") return model::dma_trigger::hardware;
    m_fields.fail(node, fmt::format("unknown trigger '{}' (valid: static, hardware)", quoted(name)));
}

memory_kind program_values::memory(const YAML::Node& node, std::string_view what) const {
    const auto name = m_fields.text(node, what);
    for (const auto kind : {memory_kind::hbm, memory_kind::sbuf, memory_kind::psum}) {
        if (model::memory_name(kind) == name) return kind;
    }
    m_fields.fail(node, fmt::format("unknown memory '{}' for {} (valid: hbm, sbuf, psum)", quoted(name), what));
}

memory_kind program_values::on_chip(const YAML::Node& map, std::string_view key, memory_kind fallback) const {
    const auto node = map[std::string(key)];
    if (!node) return fallback;
    const auto kind = memory(node, key);
    if (kind == memory_kind::hbm) {
        m_fields.fail(node,
                      fmt::format("an engine reads and writes sbuf or psum, not hbm (a dma_copy moves data to and "
                                  "from hbm)"));
    }
    return kind;
}

std::uint64_t program_values::offset(const YAML::Node& map) const {
    const auto node = map["offset"];
    return node ? range(node, "offset", 0, UINT32_MAX) : 0;
}

std::uint32_t program_values::semaphore(const YAML::Node& node) const {
    return static_cast<std::uint32_t>(range(node, "a semaphore", 0, max_semaphore));
}

alu_op program_values::alu(const YAML::Node& node, std::string_view key) const {
    const auto name = m_fields.text(node, key);
    if (const auto op = model::find_alu_op(name)) return *op;
    std::string names;
    for (auto a = static_cast<unsigned>(alu_op::add); a <= static_cast<unsigned>(alu_op::power); ++a) {
        names += (names.empty() ? "" : ", ") + std::string(model::alu_name(static_cast<alu_op>(a)));
    }
    m_fields.fail(node, fmt::format("unknown operator '{}' (valid: {})", quoted(name), names));
}

model::activation_function program_values::function(const YAML::Node& node) const {
    const auto name = m_fields.text(node, "function");
    if (const auto f = model::find_function(name)) return *f;
    m_fields.fail(node,
                  fmt::format("unknown activation function '{}' (valid: {})", quoted(name), model::function_names()));
}

} // namespace neuron::control
