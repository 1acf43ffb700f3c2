#include "neuron/model/spec/engine_costs.h"

#include <algorithm>

namespace neuron::model::costs {

std::uint64_t element_bytes(element_type type) {
    switch (type) {
    case element_type::fp8:
    case element_type::int8: return 1;
    case element_type::bf16:
    case element_type::fp16:
    case element_type::int16: return 2;
    case element_type::tf32:
    case element_type::fp32:
    case element_type::int32: return 4;
    }
    return 4;
}

std::uint64_t nc_matmul(const core_costs& c, std::uint64_t stationary_free, std::uint64_t moving_free,
                        element_type type) {
    const auto cycles = std::max(std::min<std::uint64_t>(64, stationary_free), moving_free);
    return type == element_type::fp32 ? c.fp32_matmul_passes.value * cycles : cycles;
}

std::uint64_t nc_transpose_tensor(const core_costs& c, std::uint64_t partitions, std::uint64_t free,
                                  element_type type) {
    const auto cycles = std::max(partitions, std::min<std::uint64_t>(64, free));
    return type == element_type::fp32 ? c.fp32_transpose_passes.value * cycles : cycles;
}

std::uint64_t nc_transpose_vector(const core_costs& c, std::uint64_t n) { return std::max(c.min_ii.value, n); }

std::uint64_t activation(const core_costs& c, std::uint64_t n) { return std::max(c.min_ii.value, n); }

std::uint64_t tensor_tensor_scan(const core_costs& c, std::uint64_t n) { return std::max(c.min_ii.value, 2 * n); }

std::uint64_t bn_stats(const core_costs& c, std::uint64_t n) { return std::max(c.min_ii.value, n); }

std::uint64_t bn_aggr(const core_costs& c, std::uint64_t n) { return std::max(c.min_ii.value, 13 * (n / 3)); }

std::uint64_t affine_select(const core_costs& c, std::uint64_t n) { return c.gpsimd_start.value + n; }

std::uint64_t reciprocal(const core_costs& c, std::uint64_t n) {
    return std::max(c.min_ii.value, c.reciprocal_element_cycles.value * n);
}

std::uint64_t activation_reduce(const core_costs& c, std::uint64_t n) {
    return std::max(c.min_ii.value, n) + c.min_ii.value;
}

std::uint64_t tensor_tensor(const core_costs& c, std::uint64_t n, bool one_input_in_psum, bool sbuf_simple_arith) {
    return std::max(c.min_ii.value, one_input_in_psum || sbuf_simple_arith ? n : 2 * n);
}

std::uint64_t tensor_scalar(const core_costs& c, std::uint64_t n) { return std::max(c.min_ii.value, n); }

std::uint64_t scalar_tensor_tensor(const core_costs& c, std::uint64_t n, bool bf16_subtract_multiply) {
    return std::max(c.min_ii.value, bf16_subtract_multiply && n % 2 == 0 ? n : 2 * n);
}

std::uint64_t tensor_scalar_reduce(const core_costs& c, std::uint64_t n) {
    return std::max(c.min_ii.value, n) + c.min_ii.value;
}

std::uint64_t tensor_reduce(const core_costs& c, std::uint64_t n, bool bf16_add_or_max) {
    return std::max(c.min_ii.value, bf16_add_or_max ? n / 2 : n);
}

std::uint64_t tensor_copy(const core_costs& c, std::uint64_t n) { return std::max(c.min_ii.value, n); }

std::uint64_t tensor_copy_predicated(const core_costs& c, std::uint64_t n, bool both_in_sbuf) {
    return std::max(c.min_ii.value, both_in_sbuf ? 2 * n : n);
}

std::uint64_t range_select(const core_costs& c, std::uint64_t n) { return std::max(c.min_ii.value, n); }

std::uint64_t memset(const core_costs& c, std::uint64_t n, bool zero_into_16_bit_float) {
    return std::max(c.min_ii.value, zero_into_16_bit_float ? n / 2 : n);
}

std::uint64_t iota(const core_costs& c, std::uint64_t n) { return c.gpsimd_start.value + n; }

} // namespace neuron::model::costs
