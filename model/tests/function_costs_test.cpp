#define BOOST_TEST_MODULE function_costs
#include "bound_kernels.h"
#include "neuron/model/program/kernel.h"
#include "neuron/model/program/program_builder.h"
#include "neuron/model/spec/errors.h"

#include <boost/test/unit_test.hpp>

#include <string>

// What an activation's function and a reciprocal cost once bound: ScalarE
// takes lookup-table functions of 4-byte elements more slowly (K5), and
// reciprocal runs on Vector only.

using namespace neuron::model;
using neuron::model::testing::busy_ps;

namespace {

kernel_op op_of(opcode code, std::uint64_t free, costs::element_type dtype) {
    auto op = testing::op_of(code, 128, free);
    op.dtype = dtype;
    return op;
}

kernel_op activation(activation_function f, costs::element_type dtype, opcode code = opcode::activation) {
    auto op = op_of(code, 512, dtype);
    op.function = f;
    return op;
}

} // namespace

BOOST_AUTO_TEST_CASE(an_fp32_exp_costs_more_than_an_fp32_copy) {
    using costs::element_type;
    // fp32 on trn1's ScalarE at 1.4 GHz: a copy 2 cycles per element
    // (1024 cycles, 731 ns), exp 128% of that (1310 cycles, 936 ns: K5's
    // ~937 ns).
    BOOST_TEST(busy_ps(engine_kind::scalar, activation(activation_function::copy, element_type::fp32)) == 731'429u);
    BOOST_TEST(busy_ps(engine_kind::scalar, activation(activation_function::exp, element_type::fp32)) == 935'714u);
    BOOST_TEST(busy_ps(engine_kind::scalar, activation(activation_function::relu, element_type::fp32)) == 731'429u);
    // activation_reduce adds its MIN_II to the same streaming.
    BOOST_TEST(busy_ps(engine_kind::scalar, activation(activation_function::tanh, element_type::fp32,
                                                       opcode::activation_reduce)) == 981'429u);
}

BOOST_AUTO_TEST_CASE(a_16_bit_function_costs_what_a_copy_does) {
    using costs::element_type;
    const auto copy = busy_ps(engine_kind::scalar, activation(activation_function::copy, element_type::bf16));
    BOOST_TEST(copy == 365'714u); // N at 1.4 GHz
    for (auto f : {activation_function::exp, activation_function::gelu, activation_function::rsqrt})
        BOOST_TEST(busy_ps(engine_kind::scalar, activation(f, element_type::bf16)) == copy);
}

BOOST_AUTO_TEST_CASE(every_function_has_one_name_and_lookups_are_the_transcendental_ones) {
    for (const auto& name : {"copy", "identity", "relu", "square", "abs"})
        BOOST_TEST(!from_lookup_table(*find_function(name)), name);
    for (const auto& name :
         {"exp", "log", "tanh", "sigmoid", "gelu", "silu", "softplus", "sqrt", "rsqrt", "sin", "erf"})
        BOOST_TEST(from_lookup_table(*find_function(name)), name);
    BOOST_TEST(!find_function("Exp").has_value());
    BOOST_TEST(function_names().starts_with("copy, identity, relu"));
    BOOST_TEST(function_name(activation_function::silu) == "silu");
}

BOOST_AUTO_TEST_CASE(a_reciprocal_costs_three_vector_cycles_per_element) {
    // 512 elements: 1536 cycles at trn1's 1.12 GHz, 1371 ns; whatever the dtype.
    BOOST_TEST(busy_ps(engine_kind::vector, op_of(opcode::reciprocal, 512, costs::element_type::fp32)) == 1'371'429u);
    BOOST_TEST(busy_ps(engine_kind::vector, op_of(opcode::reciprocal, 512, costs::element_type::bf16)) == 1'371'429u);
    BOOST_TEST(busy_ps(engine_kind::vector, op_of(opcode::reciprocal, 8, costs::element_type::fp32)) == 57'143u);
}

BOOST_AUTO_TEST_CASE(only_vector_takes_a_reciprocal) {
    for (auto e : {engine_kind::scalar, engine_kind::gpsimd, engine_kind::tensor}) {
        try {
            busy_ps(e, op_of(opcode::reciprocal, 512, costs::element_type::fp32));
            BOOST_FAIL("a reciprocal bound on " << engine_name(e));
        } catch (const invalid_argument_error& error) {
            BOOST_TEST(std::string(error.what()).find("reciprocal") != std::string::npos, error.what());
        }
    }
}

BOOST_AUTO_TEST_CASE(a_dtype_left_out_is_refused_where_the_cost_depends_on_it) {
    auto matmul = op_of(opcode::nc_matmul, 512, costs::element_type::bf16);
    matmul.stationary_free = 128;
    matmul.to = memory_kind::psum;
    matmul.dtype_unsaid = true;
    try {
        busy_ps(engine_kind::tensor, matmul);
        BOOST_FAIL("a matmul without a dtype bound");
    } catch (const invalid_argument_error& e) {
        BOOST_TEST(std::string(e.what()) ==
                   "m.yaml: nc_matmul: what it costs on Trainium1's tensor engine (NC-v2) depends on its dtype, which "
                   "it leaves out: give it a dtype");
    }
    // A 16-bit copy on trn2's Vector runs in performance mode, on trn1's not.
    auto copy = op_of(opcode::tensor_copy, 512, costs::element_type::bf16);
    copy.dtype_unsaid = true;
    BOOST_TEST(busy_ps(engine_kind::vector, copy) == 457'143u);
    BOOST_CHECK_THROW(busy_ps(engine_kind::vector, copy, device_kind::trainium2), invalid_argument_error);
    // A reciprocal costs 3N whatever its dtype.
    auto reciprocal = op_of(opcode::reciprocal, 512, costs::element_type::bf16);
    reciprocal.dtype_unsaid = true;
    BOOST_TEST(busy_ps(engine_kind::vector, reciprocal) == 1'371'429u);
}
