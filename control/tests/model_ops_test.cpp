#define BOOST_TEST_MODULE model_ops
// The instructions a model file's program can hold: every opcode in the
// shipped example and an activation's function.

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
