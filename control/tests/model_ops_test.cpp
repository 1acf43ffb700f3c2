#define BOOST_TEST_MODULE model_ops
// The instructions a model file's program can hold: every opcode in the
// shipped example, an activation's function and the reciprocal.

#include "support/program_text.h"

#include "neuron/control/model_file.h"
#include "neuron/model/program/kernel.h"

#include <boost/test/unit_test.hpp>

#include <fstream>
#include <iterator>
#include <set>
#include <string>

using namespace neuron;
using namespace neuron::control::testing;
using neuron::model::activation_function;
using neuron::model::engine_kind;
using neuron::model::opcode;

namespace {

const model::kernel_op& first_on(const model::kernel& k, engine_kind e) {
    return *k.streams[static_cast<std::size_t>(e)].begin();
}

} // namespace

BOOST_AUTO_TEST_CASE(an_activation_names_its_function_copy_by_default) {
    const auto k = program_of(control::parse_model_file(header + R"(program:
  scalar:
    - {op: activation, shape: [128, 512], dtype: float32, function: exp}
    - {op: activation_reduce, shape: [128, 512], function: gelu}
    - {op: activation, shape: [128, 512]}
)"));
    std::vector<activation_function> functions;
    for (const auto& op : k->streams[static_cast<std::size_t>(engine_kind::scalar)]) functions.push_back(op.function);
    BOOST_TEST(
        (functions == std::vector{activation_function::exp, activation_function::gelu, activation_function::copy}));
}

BOOST_AUTO_TEST_CASE(an_unknown_function_is_refused_with_the_valid_names) {
    refused("program:\n  scalar:\n    - {op: activation, shape: [1, 1], function: Exp}\n", "Exp",
            "unknown activation function 'Exp' (valid: copy, identity, relu, square, abs, exp, log, tanh, sigmoid, "
            "gelu, silu, softplus, sqrt, rsqrt, sin, erf)");
    refused("program:\n  vector:\n    - {op: tensor_copy, shape: [1, 1], function: exp}\n", "function",
            "unknown key 'function' in this tensor_copy");
}

BOOST_AUTO_TEST_CASE(a_reciprocal_is_a_vector_instruction) {
    const auto k = program_of(control::parse_model_file(header + R"(program:
  vector:
    - {op: reciprocal, shape: [128, 512], dtype: float32, offset: 2048}
)"));
    const auto& op = first_on(*k, engine_kind::vector);
    BOOST_TEST((op.op == opcode::reciprocal));
    BOOST_TEST(op.free == 512u);
    BOOST_TEST(op.offset == 2048u);
    refused("program:\n  vector:\n    - {op: reciprocal, shape: [1, 1], operator: add}\n", "operator",
            "unknown key 'operator' in this reciprocal");
}

BOOST_AUTO_TEST_CASE(a_scan_has_two_inputs_and_the_statistics_ops_one) {
    const auto k = program_of(control::parse_model_file(header + R"(program:
  vector:
    - {op: tensor_tensor_scan, shape: [128, 64], from: psum, from2: sbuf}
    - {op: bn_stats, shape: [128, 512], dtype: float32}
    - {op: bn_aggr, shape: [128, 6], dtype: float32, to: psum}
  gpsimd:
    - {op: affine_select, shape: [128, 64], offset: 256}
)"));
    const auto& vector = k->streams[static_cast<std::size_t>(engine_kind::vector)];
    auto it = vector.begin();
    BOOST_TEST((it->op == opcode::tensor_tensor_scan && it->from == model::memory_kind::psum &&
                it->from2 == model::memory_kind::sbuf));
    ++it;
    BOOST_TEST((it->op == opcode::bn_stats && it->free == 512u));
    ++it;
    BOOST_TEST((it->op == opcode::bn_aggr && it->to == model::memory_kind::psum));
    const auto& select = first_on(*k, engine_kind::gpsimd);
    BOOST_TEST((select.op == opcode::affine_select && select.offset == 256u));
    refused("program:\n  vector:\n    - {op: bn_stats, shape: [1, 1], from2: sbuf}\n", "from2",
            "unknown key 'from2' in this bn_stats");
}

BOOST_AUTO_TEST_CASE(a_predicated_copy_places_its_predicate_and_a_range_select_one_input) {
    const auto k = program_of(control::parse_model_file(header + R"(program:
  vector:
    - {op: tensor_copy_predicated, shape: [128, 512], dtype: float32, from: psum, from2: sbuf, offset: 1024}
    - {op: range_select, shape: [128, 256], dtype: float32, from: psum}
)"));
    const auto& vector = k->streams[static_cast<std::size_t>(engine_kind::vector)];
    auto it = vector.begin();
    BOOST_TEST((it->op == opcode::tensor_copy_predicated && it->from == model::memory_kind::psum &&
                it->from2 == model::memory_kind::sbuf && it->offset == 1024u));
    ++it;
    BOOST_TEST((it->op == opcode::range_select && it->from == model::memory_kind::psum && it->free == 256u));
    refused("program:\n  vector:\n    - {op: range_select, shape: [1, 1], from2: sbuf}\n", "from2",
            "unknown key 'from2' in this range_select");
}

BOOST_AUTO_TEST_CASE(a_scalar_tensor_tensor_names_both_its_operators) {
    const auto k = program_of(control::parse_model_file(header + R"(program:
  vector:
    - {op: scalar_tensor_tensor, shape: [128, 512], dtype: bfloat16, from2: psum, operator: subtract, operator1: multiply}
    - {op: tensor_scalar_reduce, shape: [128, 512], dtype: float32, offset: 4096}
)"));
    const auto& vector = k->streams[static_cast<std::size_t>(engine_kind::vector)];
    auto it = vector.begin();
    BOOST_TEST((it->op == opcode::scalar_tensor_tensor && it->from2 == model::memory_kind::psum &&
                it->alu == model::alu_op::subtract && it->alu1 == model::alu_op::multiply));
    ++it;
    BOOST_TEST((it->op == opcode::tensor_scalar_reduce && it->offset == 4096u));
    refused("program:\n  vector:\n    - {op: scalar_tensor_tensor, shape: [1, 1], operator1: modulo}\n", "modulo",
            "unknown operator 'modulo'");
    refused("program:\n  vector:\n    - {op: tensor_tensor, shape: [1, 1], operator1: add}\n", "operator1",
            "unknown key 'operator1' in this tensor_tensor");
}

BOOST_AUTO_TEST_CASE(an_instruction_records_whether_it_said_its_dtype) {
    const auto k = program_of(control::parse_model_file(header + R"(program:
  vector:
    - {op: tensor_copy, shape: [128, 64]}
    - {op: tensor_copy, shape: [128, 64], dtype: bfloat16}
)"));
    const auto& vector = k->streams[static_cast<std::size_t>(engine_kind::vector)];
    auto it = vector.begin();
    BOOST_TEST(it->dtype_unsaid); // bound, it is refused where its cost depends on the dtype
    ++it;
    BOOST_TEST(!it->dtype_unsaid);
}

BOOST_AUTO_TEST_CASE(the_every_op_example_holds_each_opcode) {
    std::ifstream in(std::string(NEURON_EXAMPLE_MODELS) + "/every_op.yaml");
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    const auto k = program_of(control::parse_model_file(text));
    std::set<opcode> seen;
    for (const auto& s : k->streams) {
        for (const auto& op : s) seen.insert(op.op);
    }
    BOOST_TEST(seen.size() == model::opcodes().size());
}

BOOST_AUTO_TEST_CASE(a_dma_copy_says_its_contiguous_runs_and_whether_it_transposes) {
    const auto k = program_of(control::parse_model_file(header + R"(program:
  sync:
    - {op: dma_copy, from: hbm, to: sbuf, bytes_per_partition: 4096, contiguous_bytes: 512}
    - {op: dma_copy, from: hbm, to: sbuf, bytes_per_partition: 4096, transpose: true, dtype: bfloat16}
    - {op: dma_copy, from: hbm, to: sbuf, bytes_per_partition: 4096}
)"));
    std::vector<std::pair<std::uint64_t, bool>> seen;
    for (const auto& op : stream(*k, engine_kind::sync)) seen.emplace_back(op.contiguous_bytes, op.dma_transpose);
    BOOST_TEST((seen == std::vector<std::pair<std::uint64_t, bool>>{{512, false}, {0, true}, {0, false}}));
}

BOOST_AUTO_TEST_CASE(a_transposing_dma_needs_a_dtype_of_2_or_4_bytes_and_whole_elements) {
    const std::string copy = "program:\n  sync:\n    - {op: dma_copy, from: hbm, to: sbuf, ";
    refused(copy + "bytes_per_partition: 64, transpose: true}\n", "{op", "a transposing dma_copy needs 'dtype'");
    refused(copy + "bytes_per_partition: 64, transpose: true, dtype: int8}\n", "int8",
            "a DMA transposes 2- and 4-byte elements, not 1-byte ones");
    refused(copy + "bytes_per_partition: 66, transpose: true, dtype: float32}\n", "66",
            "bytes_per_partition 66 is not a whole number of 4-byte elements");
    refused(copy + "bytes_per_partition: 64, dtype: float32}\n", "float32",
            "a dma_copy takes a dtype only with transpose: true");
    refused(copy + "bytes_per_partition: 64, contiguous_bytes: 65}\n", "65", "contiguous_bytes");
}
