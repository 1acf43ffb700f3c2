#define BOOST_TEST_MODULE model_ops
// The instructions a model file's program can hold: every opcode in the
// shipped example.

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
using neuron::model::opcode;

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
