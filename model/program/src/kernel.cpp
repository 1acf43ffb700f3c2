#include "neuron/model/program/kernel.h"

#include <fmt/format.h>

namespace neuron::model {
namespace {

constexpr std::uint8_t on(engine_kind k) { return static_cast<std::uint8_t>(1u << static_cast<unsigned>(k)); }
constexpr std::uint8_t any_engine = 0x1f;

using enum engine_kind;

// Engine assignment: engines.md A.3.
constexpr opcode_info table[] = {
    {opcode::nc_matmul, "nc_matmul", on(tensor)},
    {opcode::nc_transpose, "nc_transpose", on(tensor) | on(vector)},
    {opcode::activation, "activation", on(scalar)},
    {opcode::activation_reduce, "activation_reduce", on(scalar)},
    {opcode::tensor_tensor, "tensor_tensor", on(vector) | on(gpsimd), true},
    {opcode::tensor_tensor_scan, "tensor_tensor_scan", on(vector), true},
    {opcode::tensor_scalar, "tensor_scalar", on(vector) | on(scalar) | on(gpsimd)},
    {opcode::scalar_tensor_tensor, "scalar_tensor_tensor", on(vector), true},
    {opcode::tensor_scalar_reduce, "tensor_scalar_reduce", on(vector)},
    {opcode::tensor_reduce, "tensor_reduce", on(vector)},
    {opcode::tensor_copy, "tensor_copy", on(vector) | on(scalar) | on(gpsimd)},
    {opcode::tensor_copy_predicated, "tensor_copy_predicated", on(vector), true},
    {opcode::reciprocal, "reciprocal", on(vector)},
    {opcode::bn_stats, "bn_stats", on(vector)},
    {opcode::bn_aggr, "bn_aggr", on(vector)},
    {opcode::memset, "memset", on(vector) | on(gpsimd)},
    {opcode::iota, "iota", on(gpsimd)},
    {opcode::affine_select, "affine_select", on(gpsimd)},
    {opcode::range_select, "range_select", on(vector)},
    {opcode::dma_copy, "dma_copy", any_engine},
    {opcode::print, "print", any_engine},
};

constexpr bool in_enum_order() {
    for (std::size_t i = 0; i < std::size(table); ++i) {
        if (static_cast<std::size_t>(table[i].op) != i) return false;
    }
    return true;
}
static_assert(in_enum_order(), "info() indexes the table by opcode");

constexpr std::pair<alu_op, std::string_view> alu_names[] = {
    {alu_op::add, "add"}, {alu_op::subtract, "subtract"}, {alu_op::multiply, "multiply"}, {alu_op::divide, "divide"},
    {alu_op::max, "max"}, {alu_op::min, "min"},           {alu_op::power, "power"},
};

struct function_info {
    activation_function function;
    std::string_view name;
    bool lookup; // computed from ScalarE's tables
};

constexpr function_info functions[] = {
    {activation_function::copy, "copy", false},      {activation_function::identity, "identity", false},
    {activation_function::relu, "relu", false},      {activation_function::square, "square", false},
    {activation_function::abs, "abs", false},        {activation_function::exp, "exp", true},
    {activation_function::log, "log", true},         {activation_function::tanh, "tanh", true},
    {activation_function::sigmoid, "sigmoid", true}, {activation_function::gelu, "gelu", true},
    {activation_function::silu, "silu", true},       {activation_function::softplus, "softplus", true},
    {activation_function::sqrt, "sqrt", true},       {activation_function::rsqrt, "rsqrt", true},
    {activation_function::sin, "sin", true},         {activation_function::erf, "erf", true},
};

constexpr bool functions_in_enum_order() {
    for (std::size_t i = 0; i < std::size(functions); ++i) {
        if (static_cast<std::size_t>(functions[i].function) != i) return false;
    }
    return true;
}
static_assert(functions_in_enum_order(), "function_name() indexes the table by function");

} // namespace

std::string_view function_name(activation_function f) { return functions[static_cast<std::size_t>(f)].name; }

bool from_lookup_table(activation_function f) { return functions[static_cast<std::size_t>(f)].lookup; }

std::optional<activation_function> find_function(std::string_view name) {
    for (const auto& row : functions) {
        if (row.name == name) return row.function;
    }
    return std::nullopt;
}

std::string function_names() {
    std::string out;
    for (const auto& row : functions) out += (out.empty() ? "" : ", ") + std::string(row.name);
    return out;
}

std::span<const opcode_info> opcodes() { return table; }

const opcode_info& info(opcode op) { return table[static_cast<std::size_t>(op)]; }

std::optional<opcode> find_opcode(std::string_view name) {
    for (const auto& row : table) {
        if (row.name == name) return row.op;
    }
    return std::nullopt;
}

std::string opcode_names() {
    std::string out;
    for (const auto& row : table) out += (out.empty() ? "" : ", ") + std::string(row.name);
    return out;
}

std::string_view memory_name(memory_kind kind) {
    switch (kind) {
    case memory_kind::hbm: return "hbm";
    case memory_kind::sbuf: return "sbuf";
    case memory_kind::psum: return "psum";
    }
    return "unknown";
}

std::string_view alu_name(alu_op op) {
    for (const auto& [o, name] : alu_names) {
        if (o == op) return name;
    }
    return "unknown";
}

std::optional<alu_op> find_alu_op(std::string_view name) {
    for (const auto& [o, n] : alu_names) {
        if (n == name) return o;
    }
    return std::nullopt;
}

} // namespace neuron::model
