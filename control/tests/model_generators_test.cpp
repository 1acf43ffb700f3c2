#define BOOST_TEST_MODULE model_generators
// The model file's `generate:` programs: the kernels their functions make,
// and their parameters' errors as FILE:LINE:COLUMN.

#include "support/program_text.h"

#include "neuron/control/model_file.h"
#include "neuron/model/program/kernel.h"
#include "neuron/model/program/kernel_generators.h"
#include "neuron/model/program/program_builder.h"

#include <boost/test/unit_test.hpp>
#include <fmt/format.h>

#include <string>

using namespace neuron;
using namespace neuron::control::testing;
using neuron::model::engine_kind;
using neuron::model::kernel;
using neuron::model::opcode;
using neuron::model::costs::element_type;

BOOST_AUTO_TEST_CASE(generators_make_the_kernels_their_functions_do) {
    const auto text = header + "program: {generate: tiled_matmul, m: 2048, k: 2048, n: 2048, activation: true}\n";
    const auto k_owner = program_of(control::parse_model_file(text, "mm.yaml"));
    const auto& k = *k_owner;
    const auto direct = model::tiled_matmul({.m = 2048, .k = 2048, .n = 2048, .activation = true}).program;
    for (std::size_t e = 0; e < model::engine_count; ++e) BOOST_TEST(k.streams[e].size() == direct.streams[e].size());
    BOOST_TEST(stream(k, engine_kind::tensor).size() == 1024u);
    BOOST_TEST((stream(k, engine_kind::scalar)[0].op == opcode::activation));
    BOOST_TEST(k.file == "mm.yaml");
    // Errors about a generated instruction point at the generator.
    BOOST_TEST(stream(k, engine_kind::tensor)[7].at.line == 3u);
    BOOST_TEST(stream(k, engine_kind::tensor)[7].at.column == 10u);

    const auto block = header + R"(program:
  generate: tiled_matmul
  m: 300
  k: 200
  n: 700
  dtype: float32
  tile_m: 64
  tile_k: 100
  tile_n: 256
  dma_engines: 4
  sbuf_budget: 65536
)";
    const auto small_owner = program_of(control::parse_model_file(block));
    const auto& small = *small_owner;
    const auto expected = model::tiled_matmul({.m = 300,
                                               .k = 200,
                                               .n = 700,
                                               .dtype = element_type::fp32,
                                               .tile_m = 64,
                                               .tile_k = 100,
                                               .tile_n = 256,
                                               .dma_engines = 4,
                                               .sbuf_budget = 65536})
                              .program;
    BOOST_TEST(stream(small, engine_kind::tensor).size() == expected.streams[0].size());
    BOOST_TEST((stream(small, engine_kind::tensor)[0].dtype == element_type::fp32));
    BOOST_TEST(stream(small, engine_kind::sync)[0].dma_engines == 4u);

    const auto ew_owner =
        program_of(control::parse_model_file(header + "program: {generate: elementwise, rows: 1024, cols: 4096, op: "
                                                      "tensor_tensor, operator: add, tile_free: 1024}\n"));
    const auto& ew = *ew_owner;
    BOOST_TEST(stream(ew, engine_kind::vector).size() == 2 * 8 * 4u);
    BOOST_TEST(stream(ew, engine_kind::sync).size() == 2 * 8 * 4u);

    const auto copy_owner = program_of(control::parse_model_file(
        header + "program: {generate: dma_copy, bytes: 67108864, bytes_per_partition: 8192, from: hbm, to: sbuf}\n"));
    const auto& copy = *copy_owner;
    BOOST_TEST(stream(copy, engine_kind::sync).size() == 64u);

    // Inferentia has no Sync engine: the loads can come from an idle one.
    const auto on_vector = program_of(control::parse_model_file(
        header + "program: {generate: tiled_matmul, m: 256, k: 256, n: 512, loads_on: vector}\n"));
    BOOST_TEST(stream(*on_vector, engine_kind::sync).empty());
    BOOST_TEST(stream(*on_vector, engine_kind::vector).size() == 3u); // A^T in 2 chunks and one B block
    BOOST_TEST((stream(*on_vector, engine_kind::vector)[0].op == opcode::dma_copy));
}

BOOST_AUTO_TEST_CASE(generator_errors_name_their_place) {
    refused("program: {generate: tiled_matmull, m: 1, k: 1, n: 1}\n", "tiled_matmull",
            "unknown generator 'tiled_matmull' (valid: tiled_matmul, elementwise, dma_copy)");
    refused("program: {generate: tiled_matmul, m: 1, k: 1}\n", "{generate", "tiled_matmul needs 'n'");
    refused("program: {generate: tiled_matmul, m: 1, k: 1, n: 1, tile_n: 1024}\n", "1024",
            "tile_n must be from 1 to 512, not 1024");
    refused("program: {generate: tiled_matmul, m: 1, k: 1, n: 1, tile_m: 0}\n", "0}",
            "tile_m must be from 1 to 128, not 0");
    refused("program: {generate: tiled_matmul, m: 0, k: 1, n: 1}\n", "0,", "m must be from 1 to 4294967295, not 0");
    refused("program: {generate: tiled_matmul, m: 1, k: 1, n: 1, tile: 4}\n",
            "tile:", "unknown key 'tile' in a tiled_matmul program");
    refused("program: {generate: tiled_matmul, m: 1, k: 1, n: 1, activation: yes}\n", "yes",
            "activation must be true or false");
    refused("program: {generate: tiled_matmul, m: 1, k: 1, n: 1, sbuf_budget: 300000}\n", "300000",
            "sbuf_budget must be from 1 to 229376, not 300000");
    refused("program: {generate: tiled_matmul, m: 128, k: 65536, n: 512}\n", "tiled_matmul",
            "tiled_matmul: k = 65536 needs 1183744 bytes per partition of SBUF");
    refused("program: {generate: tiled_matmul, m: 1048576, k: 128, n: 1048576}\n", "tiled_matmul",
            "tiled_matmul: these parameters make more than 1048576 instructions");
    refused("program: {generate: elementwise, rows: 1, cols: 1, op: nc_matmul}\n", "nc_matmul",
            "an elementwise op is activation, tensor_scalar, tensor_tensor or tensor_copy, not 'nc_matmul'");
    refused("program: {generate: elementwise, rows: 1, cols: 1, operator: add}\n", "add",
            "operator goes with op: tensor_tensor");
    refused("program: {generate: elementwise, rows: 1, cols: 1, tile_free: 100000}\n", "elementwise",
            "elementwise: tile_free must be from 1 to 24576");
    refused("program: {generate: dma_copy, bytes: 1, to: psum, bytes_per_partition: 20000}\n", "dma_copy",
            "dma_copy: bytes_per_partition must be from 1 to 16384 for a copy from hbm to psum, not 20000");
    refused("program: {generate: dma_copy}\n", "{generate", "dma_copy needs 'bytes'");
    refused("program: {generate: dma_copy, bytes: 1, to: l2}\n", "l2", "unknown memory 'l2' for to");
    refused("program: {generate: dma_copy, bytes: 1, loads_on: dma}\n", "dma}",
            "unknown engine 'dma' (valid: tensor, vector, scalar, gpsimd, sync)");
    refused("program: {generate: tiled_matmul, m: 1, k: 1, n: 1, loads_on: scalar}\n", "tiled_matmul",
            "tiled_matmul: loads_on: the scalar engine computes in this kernel; issue the loads from an engine it "
            "leaves idle");
    refused("program: {generate: elementwise, rows: 1, cols: 1, op: tensor_copy, loads_on: vector}\n", "elementwise",
            "elementwise: loads_on: the vector engine computes in this kernel");
}
