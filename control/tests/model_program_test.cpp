#define BOOST_TEST_MODULE model_program
// The model file's `program:`: written streams parsed into a kernel;
// syntax and range errors as FILE:LINE:COLUMN.

#include "support/program_text.h"

#include "neuron/control/model_file.h"
#include "neuron/model/program/kernel.h"

#include <boost/test/unit_test.hpp>

#include <string>

using namespace neuron;
using namespace neuron::control::testing;
using neuron::model::alu_op;
using neuron::model::engine_kind;
using neuron::model::kernel;
using neuron::model::memory_kind;
using neuron::model::no_semaphore_index;
using neuron::model::opcode;
using neuron::model::costs::element_type;

BOOST_AUTO_TEST_CASE(each_opcode_parses_into_its_fields) {
    const auto text = header + R"(program:
  tensor:
    - {op: nc_matmul, stationary: [64, 128], moving: [64, 512], dtype: float8e4m3, offset: 2048, wait: {semaphore: 1, value: 32}, signal: {semaphore: 2}, source: "matmul.py:14"}
    - {op: nc_transpose, shape: [128, 96], dtype: float32}
  vector:
    - {op: tensor_tensor, shape: [128, 2048], from: psum, from2: psum, operator: multiply, dtype: float32, offset: 4096}
    - {op: tensor_scalar, shape: [32, 100]}
    - {op: tensor_reduce, shape: [128, 512], operator: max}
    - {op: memset, shape: [128, 64], value: -1.5, dtype: float16}
    - {op: nc_transpose, shape: [32, 32]}
  scalar:
    - {op: activation, shape: [128, 512], from: psum, to: sbuf, dtype: bfloat16, signal: {semaphore: 7, increment: 3}}
    - {op: activation_reduce, shape: [1, 1]}
    - {op: tensor_copy, shape: [16, 8], to: psum, dtype: int32}
  gpsimd:
    - {op: iota, shape: [128, 10], dtype: uint32}
    - {op: print, prefix: step, dtype: int64, shape: [1], fill: execution, pipe: 1, source: "matmul.py:14"}
  sync:
    - {op: dma_copy, from: hbm, to: sbuf, partitions: 64, bytes_per_partition: 4096, queue: 3, dma_engines: 8, offset: 1024, signal: 1, source: "load.py:2"}
    - {op: dma_copy, from: sbuf, to: hbm, bytes_per_partition: 100}
)";
    const auto m = control::parse_model_file(text, "kernel.yaml");
    const auto k_owner = program_of(m);
    const auto& k = *k_owner;
    BOOST_TEST(k.file == "kernel.yaml");
    BOOST_TEST(k.instruction_count() == 14u);
    BOOST_TEST(m.engine_cycles == (std::array<std::uint64_t, model::engine_count>{}));

    const auto& mm = stream(k, engine_kind::tensor)[0];
    BOOST_TEST((mm.op == opcode::nc_matmul));
    BOOST_TEST(mm.partitions == 64u);
    BOOST_TEST(mm.stationary_free == 128u);
    BOOST_TEST(mm.free == 512u);
    BOOST_TEST((mm.dtype == element_type::fp8));
    BOOST_TEST((mm.from == memory_kind::sbuf));
    BOOST_TEST((mm.to == memory_kind::psum));
    BOOST_TEST(mm.offset == 2048u);
    BOOST_TEST(mm.wait_semaphore == 1u);
    BOOST_TEST(mm.wait_value == 32u);
    BOOST_TEST(mm.signal_semaphore == 2u);
    BOOST_TEST(mm.signal_increment == 1u);
    BOOST_TEST_REQUIRE(mm.source < k.sources.size());
    BOOST_TEST(k.sources[mm.source] == "matmul.py:14");
    BOOST_TEST(mm.at.line == 5u);
    BOOST_TEST(mm.at.column == 7u);

    const auto& transpose = stream(k, engine_kind::tensor)[1];
    BOOST_TEST((transpose.op == opcode::nc_transpose));
    BOOST_TEST((transpose.to == memory_kind::psum)); // the Tensor engine transposes into PSUM
    BOOST_TEST((transpose.dtype == element_type::fp32));
    BOOST_TEST(transpose.wait_semaphore == no_semaphore_index);
    BOOST_TEST(transpose.signal_semaphore == no_semaphore_index);
    BOOST_TEST(transpose.source == no_semaphore_index);
    BOOST_TEST(transpose.at.line == 6u);

    const auto& vector = stream(k, engine_kind::vector);
    BOOST_TEST_REQUIRE(vector.size() == 5u);
    BOOST_TEST((vector[0].op == opcode::tensor_tensor));
    BOOST_TEST(vector[0].partitions == 128u);
    BOOST_TEST(vector[0].free == 2048u);
    BOOST_TEST((vector[0].from == memory_kind::psum));
    BOOST_TEST((vector[0].from2 == memory_kind::psum));
    BOOST_TEST((vector[0].to == memory_kind::sbuf));
    BOOST_TEST((vector[0].alu == alu_op::multiply));
    BOOST_TEST(vector[0].offset == 4096u);
    BOOST_TEST((vector[1].op == opcode::tensor_scalar));
    BOOST_TEST(vector[1].partitions == 32u);
    BOOST_TEST((vector[1].dtype == element_type::bf16)); // the default
    BOOST_TEST((vector[1].from == memory_kind::sbuf));
    BOOST_TEST((vector[2].alu == alu_op::max));
    BOOST_TEST((vector[3].op == opcode::memset));
    BOOST_TEST(vector[3].value == -1.5);
    BOOST_TEST((vector[3].dtype == element_type::fp16));
    BOOST_TEST((vector[4].to == memory_kind::sbuf)); // the Vector engine transposes within SBUF

    const auto& scalar = stream(k, engine_kind::scalar);
    BOOST_TEST_REQUIRE(scalar.size() == 3u);
    BOOST_TEST((scalar[0].op == opcode::activation));
    BOOST_TEST(scalar[0].signal_semaphore == 7u);
    BOOST_TEST(scalar[0].signal_increment == 3u);
    BOOST_TEST((scalar[1].op == opcode::activation_reduce));
    BOOST_TEST((scalar[2].to == memory_kind::psum));
    BOOST_TEST((scalar[2].dtype == element_type::int32));

    const auto& gpsimd = stream(k, engine_kind::gpsimd);
    BOOST_TEST_REQUIRE(gpsimd.size() == 2u);
    BOOST_TEST((gpsimd[0].op == opcode::iota));
    BOOST_TEST((gpsimd[0].dtype == element_type::int32));
    BOOST_TEST((gpsimd[1].op == opcode::print));
    BOOST_TEST_REQUIRE(gpsimd[1].print < k.prints.size());
    const auto& print = k.prints[gpsimd[1].print];
    BOOST_TEST(print.prefix == "step");
    BOOST_TEST(print.dtype == "int64");
    BOOST_TEST((print.fill == model::print_fill::execution));
    BOOST_TEST(print.pipe == 1u);
    BOOST_TEST(gpsimd[1].source == mm.source); // one entry per distinct source
    BOOST_TEST(m.prints.empty());              // the end-of-execution prints are another list

    const auto& sync = stream(k, engine_kind::sync);
    BOOST_TEST_REQUIRE(sync.size() == 2u);
    BOOST_TEST((sync[0].op == opcode::dma_copy));
    BOOST_TEST((sync[0].from == memory_kind::hbm));
    BOOST_TEST((sync[0].to == memory_kind::sbuf));
    BOOST_TEST(sync[0].partitions == 64u);
    BOOST_TEST(sync[0].free == 4096u);
    BOOST_TEST(sync[0].queue == 3u);
    BOOST_TEST(sync[0].dma_engines == 8u);
    BOOST_TEST(sync[0].offset == 1024u);
    BOOST_TEST(sync[0].signal_semaphore == 1u);
    BOOST_TEST(k.sources[sync[0].source] == "load.py:2");
    BOOST_TEST(sync[1].partitions == 128u);
    BOOST_TEST(sync[1].queue == 0u);
    BOOST_TEST(sync[1].dma_engines == 16u);
    BOOST_TEST(k.sources.size() == 2u);
}

BOOST_AUTO_TEST_CASE(block_style_instructions_record_where_they_start) {
    const auto text = header + R"(program:
  scalar:
    - op: activation
      shape: [128, 512]
    -   op: tensor_copy
        shape: [1, 1]
)";
    const auto k_owner = program_of(control::parse_model_file(text));
    const auto& k = *k_owner;
    const auto& s = stream(k, engine_kind::scalar);
    BOOST_TEST_REQUIRE(s.size() == 2u);
    BOOST_TEST(s[0].at.line == 5u);
    BOOST_TEST(s[0].at.column == 7u);
    BOOST_TEST(s[1].at.line == 7u);
    BOOST_TEST(s[1].at.column == 9u);
}

BOOST_AUTO_TEST_CASE(an_instruction_can_wait_on_several_semaphores) {
    const auto text = header + R"(program:
  tensor:
    - {op: nc_matmul, stationary: [128, 128], moving: [128, 512], wait: [{semaphore: 0, value: 32}, {semaphore: 4, value: 2}]}
)";
    const auto k = program_of(control::parse_model_file(text));
    const auto& mm = stream(*k, engine_kind::tensor)[0];
    BOOST_TEST(mm.wait_semaphore == 0u);
    BOOST_TEST(mm.wait_value == 32u);
    BOOST_TEST(mm.also_waits[0].semaphore == 4u);
    BOOST_TEST(mm.also_waits[0].value == 2u);
    BOOST_TEST(mm.also_waits[1].semaphore == no_semaphore_index);
    const std::string op = "program:\n  tensor:\n    - {op: nc_matmul, stationary: [1, 1], moving: [1, 1], wait: ";
    refused(op + "[]}\n", "[]", "an instruction waits on 1 to 4 semaphores, not 0");
    refused(op + "[{semaphore: 0, value: 1}, {semaphore: 1, value: 1}, {semaphore: 2, value: 1}, "
                 "{semaphore: 3, value: 1}, {semaphore: 4, value: 1}]}\n",
            "[{semaphore: 0", "an instruction waits on 1 to 4 semaphores, not 5");
    refused(op + "[{semaphore: 1, value: 1}, {semaphore: 1, value: 2}]}\n", "{semaphore: 1, value: 2}",
            "waits twice on semaphore 1");
    refused(op + "[3]}\n", "3]", "wait must be a map: {semaphore: S, value: V}");
}

BOOST_AUTO_TEST_CASE(signal_and_wait_forms) {
    refused("program:\n  tensor:\n    - {op: nc_matmul, stationary: [1, 1], moving: [1, 1], wait: 3}\n", "3}",
            "wait must be a map: {semaphore: S, value: V}");
    refused("program:\n  tensor:\n    - {op: nc_matmul, stationary: [1, 1], moving: [1, 1], wait: {semaphore: 3}}\n",
            "{semaphore: 3}", "wait needs 'value'");
    refused("program:\n  tensor:\n    - {op: nc_matmul, stationary: [1, 1], moving: [1, 1], wait: {semaphore: 256, "
            "value: 1}}\n",
            "256", "a semaphore must be from 0 to 255, not 256");
    refused("program:\n  tensor:\n    - {op: nc_matmul, stationary: [1, 1], moving: [1, 1], wait: {semafore: 2, value: "
            "1}}\n",
            "semafore", "unknown key 'semafore' in wait; did you mean 'semaphore'?");
    refused("program:\n  tensor:\n    - {op: nc_matmul, stationary: [1, 1], moving: [1, 1], signal: [1, 2]}\n",
            "[1, 2]", "signal must be a semaphore number or {semaphore: S, increment: N}");
    refused("program:\n  tensor:\n    - {op: nc_matmul, stationary: [1, 1], moving: [1, 1], signal: {semaphore: 1, "
            "increment: 0}}\n",
            "0}", "increment must be from 1 to 4294967295, not 0");
    refused("program:\n  sync:\n    - {op: dma_copy, from: hbm, to: sbuf, bytes_per_partition: 1, signal: {semaphore: "
            "1, increment: 2}}\n",
            "2}}", "a dma_copy adds 1 for each of its DMA engines when that engine's part ends; it takes no increment");
}

BOOST_AUTO_TEST_CASE(a_dma_copy_says_how_it_is_triggered_static_by_default) {
    const auto m = control::parse_model_file(
        header + "program:\n  sync:\n    - {op: dma_copy, from: hbm, to: sbuf, bytes_per_partition: 64}\n"
                 "    - {op: dma_copy, from: hbm, to: sbuf, bytes_per_partition: 64, trigger: hardware}\n"
                 "    - {op: dma_copy, from: hbm, to: sbuf, bytes_per_partition: 64, trigger: static}\n");
    const auto& sync = stream(*program_of(m), engine_kind::sync);
    BOOST_TEST_REQUIRE(sync.size() == 3u);
    BOOST_TEST((sync[0].trigger == neuron::model::dma_trigger::static_descriptors));
    BOOST_TEST((sync[1].trigger == neuron::model::dma_trigger::hardware));
    BOOST_TEST((sync[2].trigger == neuron::model::dma_trigger::static_descriptors));
    refused("program:\n  sync:\n    - {op: dma_copy, from: hbm, to: sbuf, bytes_per_partition: 64, trigger: dge}\n",
            "dge", "unknown trigger 'dge' (valid: static, hardware)");
    refused("program:\n  vector:\n    - {op: tensor_copy, shape: [1, 1], trigger: static}\n", "trigger",
            "unknown key 'trigger' in this tensor_copy");
}

BOOST_AUTO_TEST_CASE(syntax_errors_name_their_place) {
    refused(
        "program:\n  tensor:\n    - {op: nc_matmull, stationary: [1, 1], moving: [1, 1]}\n", "nc_matmull",
        "unknown opcode 'nc_matmull' (valid: nc_matmul, nc_transpose, activation, activation_reduce, tensor_tensor, "
        "tensor_tensor_scan, tensor_scalar, scalar_tensor_tensor, tensor_scalar_reduce, tensor_reduce, tensor_copy, "
        "tensor_copy_predicated, reciprocal, bn_stats, bn_aggr, memset, iota, affine_select, range_select, dma_copy, "
        "print)");
    refused("program:\n  tensor:\n    - {stationary: [1, 1], moving: [1, 1]}\n", "{stationary",
            "an instruction needs 'op'");
    refused("program:\n  tensor:\n    - nc_matmul\n", "nc_matmul", "an instruction must be a map");
    refused("program:\n  tensr:\n    - {op: nc_matmul}\n", "tensr",
            "unknown key 'tensr' in program; did you mean 'tensor'?");
    refused("program:\n  tensor: {op: nc_matmul}\n", "{op", "program.tensor must be a list");
    refused("program:\n  tensor:\n    - {op: nc_matmul, stationary: [1, 1], moving: [1, 1], shape: [1, 1]}\n", "shape",
            "unknown key 'shape' in this nc_matmul");
    refused("program:\n  vector:\n    - {op: tensor_copy, shape: [1, 1], operator: add}\n", "operator",
            "unknown key 'operator' in this tensor_copy");
    refused("program:\n  vector:\n    - {op: tensor_copy}\n", "{op", "this tensor_copy needs 'shape'");
    refused("program:\n  vector:\n    - {op: tensor_copy, shape: [128]}\n", "[128]",
            "shape must be [partitions, free]");
    refused("program:\n  vector:\n    - {op: tensor_copy, shape: [129, 1]}\n", "129",
            "partitions must be from 1 to 128, not 129");
    refused("program:\n  vector:\n    - {op: tensor_copy, shape: [1, 0]}\n", "0]",
            "the free size must be from 1 to 4294967295, not 0");
    refused("program:\n  vector:\n    - {op: tensor_copy, shape: [1, 1], dtype: float64}\n", "float64",
            "unknown dtype 'float64' (valid: bfloat16, float16, float32, tfloat32, float8e4m3, float8e5m2, float8e3m4, "
            "int8, "
            "uint8, int16, uint16, int32, uint32)");
    refused("program:\n  vector:\n    - {op: tensor_copy, shape: [1, 1], dtype: int64}\n", "int64",
            "the engines do not compute with int64");
    refused("program:\n  vector:\n    - {op: tensor_copy, shape: [1, 1], from: dram}\n", "dram",
            "unknown memory 'dram' for from (valid: hbm, sbuf, psum)");
    refused("program:\n  vector:\n    - {op: tensor_copy, shape: [1, 1], to: hbm}\n", "hbm",
            "an engine reads and writes sbuf or psum, not hbm");
    refused("program:\n  vector:\n    - {op: tensor_tensor, shape: [1, 1], operator: xor}\n", "xor",
            "unknown operator 'xor' (valid: add, subtract, multiply, divide, max, min, power)");
    refused("program:\n  vector:\n    - {op: memset, shape: [1, 1], value: lots}\n", "lots", "value must be a number");
    refused("program:\n  vector:\n    - {op: memset, shape: [1, 1], from: sbuf}\n", "from",
            "unknown key 'from' in this memset");
    refused("program:\n  vector:\n    - {op: tensor_copy, shape: [1, 1], from2: psum}\n", "from2",
            "unknown key 'from2' in this tensor_copy");
    refused("program:\n  vector:\n    - {op: tensor_tensor, shape: [1, 1], from2: hbm}\n", "hbm",
            "an engine reads and writes sbuf or psum, not hbm");
    refused("program:\n  vector:\n    - {op: tensor_copy, shape: [1, 1], offset: 4294967296}\n", "4294967296",
            "offset must be from 0 to 4294967295");
    refused("program:\n  vector:\n    - {op: tensor_copy, shape: [1, 1], source: \"\"}\n", "\"\"",
            "a source needs 1 to 255 characters");
    refused("program:\n  tensor:\n    - {op: nc_matmul, stationary: [128, 129], moving: [128, 1]}\n", "129",
            "stationary's free size M must be from 1 to 128, not 129");
    refused("program:\n  tensor:\n    - {op: nc_matmul, stationary: [128, 128], moving: [64, 512]}\n", "64",
            "moving's K must be stationary's, 128, not 64");
    refused("program:\n  tensor:\n    - {op: nc_matmul, stationary: [128, 128]}\n", "{op",
            "this nc_matmul needs 'moving'");
    refused("program:\n  sync:\n    - {op: dma_copy, from: hbm, to: sbuf}\n", "{op",
            "this dma_copy needs 'bytes_per_partition'");
    refused("program:\n  sync:\n    - {op: dma_copy, from: hbm, to: sbuf, bytes_per_partition: 1, queue: 16}\n", "16}",
            "queue must be from 0 to 15, not 16");
    refused("program:\n  sync:\n    - {op: dma_copy, from: hbm, to: sbuf, bytes_per_partition: 1, dma_engines: 0}\n",
            "0}", "dma_engines must be from 1 to 16, not 0");
    refused("program:\n  sync:\n    - {op: dma_copy, from: hbm, to: sbuf, bytes_per_partition: 1, partitions: 0}\n",
            "0}", "partitions must be from 1 to 128, not 0");
    refused("program:\n  gpsimd:\n    - {op: print, prefix: p, dtype: complex}\n", "complex",
            "'complex' is not a debug-stream dtype");
    refused("program:\n  gpsimd:\n    - {op: print}\n", "{op", "a print needs 'prefix'");
    refused("program: {}\n", "{}", "the program has no instructions");
    refused("program: [1]\n", "[1]", "program must be a map");
    refused("work: {tensor: 5}\nprogram:\n  tensor:\n    - {op: nc_matmul, stationary: [1, 1], moving: [1, 1]}\n",
            "tensor:\n    -", "a model has work or a program, not both");
}
