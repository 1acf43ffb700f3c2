#include "op_cycles.h"

#include "neuron/model/spec/engine_costs.h"

#include <algorithm>

namespace neuron::model {
namespace {

using costs::element_type;

bool sixteen_bit_float(element_type t) { return t == element_type::bf16 || t == element_type::fp16; }
bool simple_arith(alu_op a) { return a == alu_op::add || a == alu_op::subtract || a == alu_op::multiply; }
bool sbuf_inputs(const kernel_op& op) { return op.from == memory_kind::sbuf && op.from2 == memory_kind::sbuf; }
bool all_bf16_sbuf(const kernel_op& op) { return op.dtype == element_type::bf16 && !touches(op, memory_kind::psum); }

// ScalarE takes several cycles per 4-byte element, more for a function
// from its lookup tables (core_costs.h): its formulas see that many
// elements per element.
kernel_op scalar_streamed(const core_costs& c, const kernel_op& op, engine_kind on) {
    if (on != engine_kind::scalar || costs::element_bytes(op.dtype) != 4) return op;
    auto streamed = op;
    streamed.free *= c.scalar_4_byte_element_cycles.value;
    const bool applies = op.op == opcode::activation || op.op == opcode::activation_reduce;
    if (applies && from_lookup_table(op.function)) {
        streamed.free = streamed.free * c.scalar_4_byte_lookup_percent.value / 100;
    }
    return streamed;
}

std::uint64_t formula_cycles(const core_costs& c, const kernel_op& op) {
    switch (op.op) {
    case opcode::nc_transpose: return costs::nc_transpose_vector(c, op.free);
    case opcode::activation: return costs::activation(c, op.free);
    case opcode::activation_reduce: return costs::activation_reduce(c, op.free);
    case opcode::tensor_tensor:
        return costs::tensor_tensor(c, op.free, (op.from == memory_kind::psum) != (op.from2 == memory_kind::psum),
                                    sbuf_inputs(op) && simple_arith(op.alu));
    case opcode::tensor_tensor_scan: return costs::tensor_tensor_scan(c, op.free);
    case opcode::tensor_scalar: return costs::tensor_scalar(c, op.free);
    case opcode::scalar_tensor_tensor:
        return costs::scalar_tensor_tensor(
            c, op.free, op.dtype == element_type::bf16 && op.alu == alu_op::subtract && op.alu1 == alu_op::multiply);
    case opcode::tensor_scalar_reduce: return costs::tensor_scalar_reduce(c, op.free);
    case opcode::tensor_reduce:
        return costs::tensor_reduce(c, op.free,
                                    op.dtype == element_type::bf16 && (op.alu == alu_op::add || op.alu == alu_op::max));
    case opcode::tensor_copy: return costs::tensor_copy(c, op.free);
    case opcode::tensor_copy_predicated: return costs::tensor_copy_predicated(c, op.free, sbuf_inputs(op));
    case opcode::reciprocal: return costs::reciprocal(c, op.free);
    case opcode::bn_stats: return costs::bn_stats(c, op.free);
    case opcode::bn_aggr: return costs::bn_aggr(c, op.free);
    case opcode::memset: return costs::memset(c, op.free, op.value == 0 && sixteen_bit_float(op.dtype));
    case opcode::iota: return costs::iota(c, op.free);
    case opcode::affine_select: return costs::affine_select(c, op.free);
    case opcode::range_select: return costs::range_select(c, op.free);
    default: return 0; // nc_matmul and a Tensor transpose: op_cycles(); dma_copy and print cost no cycles
    }
}

// Vector performance mode (A.5, NC-v3): 4x for 16-bit tensor_copy and
// tensor_scalar all in SBUF, 2x for those with one side in PSUM and for
// all-bf16 SBUF tensor_tensor (tiles are taken as contiguous).
std::uint64_t vector_speedup(const core_costs& c, const kernel_op& op, engine_kind on, std::uint64_t cycles) {
    if (on != engine_kind::vector || !c.vector_performance_mode) return cycles;
    const bool copy_or_scalar = op.op == opcode::tensor_copy || op.op == opcode::tensor_scalar;
    if (copy_or_scalar && sixteen_bit_float(op.dtype)) {
        const bool all_sbuf = op.from == memory_kind::sbuf && op.to == memory_kind::sbuf;
        return std::max<std::uint64_t>(1, cycles / (all_sbuf ? 4 : 2));
    }
    if (op.op == opcode::tensor_tensor && all_bf16_sbuf(op)) return std::max<std::uint64_t>(1, cycles / 2);
    return cycles;
}

} // namespace

bool two_inputs(const kernel_op& op) { return info(op.op).second_input; }

bool touches(const kernel_op& op, memory_kind m) {
    return op.from == m || (two_inputs(op) && op.from2 == m) || op.to == m;
}

std::uint64_t op_cycles(const core_costs& c, const kernel_op& op, engine_kind on) {
    if (op.op == opcode::nc_matmul) return costs::nc_matmul(c, op.stationary_free, op.free, op.dtype);
    if (op.op == opcode::nc_transpose && on == engine_kind::tensor) {
        return costs::nc_transpose_tensor(c, op.partitions, op.free, op.dtype);
    }
    return vector_speedup(c, op, on, formula_cycles(c, scalar_streamed(c, op, on)));
}

bool cost_depends_on_dtype(const core_costs& c, const kernel_op& op, engine_kind on) {
    constexpr element_type every_type[] = {element_type::fp8,   element_type::bf16, element_type::fp16,
                                           element_type::tf32,  element_type::fp32, element_type::int8,
                                           element_type::int16, element_type::int32};
    const auto cycles = op_cycles(c, op, on);
    return std::any_of(std::begin(every_type), std::end(every_type), [&](element_type t) {
        auto other = op;
        other.dtype = t;
        return op_cycles(c, other, on) != cycles;
    });
}

} // namespace neuron::model
