#define BOOST_TEST_MODULE isa_ops
#include "bound_kernels.h"
#include "neuron/model/program/kernel.h"
#include "neuron/model/program/program_builder.h"
#include "neuron/model/spec/errors.h"

#include <boost/test/unit_test.hpp>

#include <string>

// The ISA's scan, batch-norm statistics, predicated copy and selects once
// bound: each on its engine at its A.3 cost, with the outputs and limits it
// has.

using namespace neuron::model;
using neuron::model::testing::busy_ps;

namespace {

kernel_op op_of(opcode code, std::uint64_t free, memory_kind to = memory_kind::sbuf) {
    auto op = testing::op_of(code, 128, free);
    op.dtype = costs::element_type::fp32;
    op.to = to;
    return op;
}

std::string error_of(engine_kind e, const kernel_op& op) { return testing::error_of(testing::one(e, op)); }

} // namespace

BOOST_AUTO_TEST_CASE(each_costs_its_formula_at_its_engines_clock) {
    // trn1: Vector at 1.12 GHz, GpSimd at 1.4 GHz.
    BOOST_TEST(busy_ps(engine_kind::vector, op_of(opcode::tensor_tensor_scan, 560)) == 1'000'000u); // 2N
    BOOST_TEST(busy_ps(engine_kind::vector, op_of(opcode::bn_stats, 448)) == 400'000u);             // N
    BOOST_TEST(busy_ps(engine_kind::vector, op_of(opcode::bn_aggr, 96)) == 371'429u);               // 13 (N / 3)
    BOOST_TEST(busy_ps(engine_kind::gpsimd, op_of(opcode::affine_select, 1250)) == 1'000'000u);     // 150 + N
    BOOST_TEST(busy_ps(engine_kind::vector, op_of(opcode::range_select, 1120)) == 1'000'000u);      // N
    // A predicated copy reads its data and its predicate: 2N with both in
    // SBUF, N with one of them in PSUM.
    auto predicated = op_of(opcode::tensor_copy_predicated, 560);
    BOOST_TEST(busy_ps(engine_kind::vector, predicated) == 1'000'000u);
    predicated.from2 = memory_kind::psum;
    BOOST_TEST(busy_ps(engine_kind::vector, predicated) == 500'000u);
    BOOST_TEST(busy_ps(engine_kind::vector, op_of(opcode::scalar_tensor_tensor, 560)) == 1'000'000u);  // 2N
    BOOST_TEST(busy_ps(engine_kind::vector, op_of(opcode::tensor_scalar_reduce, 1056)) == 1'000'000u); // N + 64
}

BOOST_AUTO_TEST_CASE(a_bf16_scalar_tensor_tensor_that_subtracts_then_multiplies_takes_n) {
    auto op = op_of(opcode::scalar_tensor_tensor, 1120);
    op.alu = alu_op::subtract;
    op.alu1 = alu_op::multiply;
    BOOST_TEST(busy_ps(engine_kind::vector, op) == 2'000'000u); // fp32: 2N
    op.dtype = costs::element_type::bf16;
    BOOST_TEST(busy_ps(engine_kind::vector, op) == 1'000'000u); // N
    op.alu1 = alu_op::add;
    BOOST_TEST(busy_ps(engine_kind::vector, op) == 2'000'000u);
    // Its cost depends on its dtype, then: one left out is refused.
    op.alu1 = alu_op::multiply;
    op.dtype_unsaid = true;
    BOOST_TEST(error_of(engine_kind::vector, op).find("depends on its dtype") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(each_runs_on_its_engine_only) {
    BOOST_TEST(error_of(engine_kind::gpsimd, op_of(opcode::tensor_tensor_scan, 8)).find("runs on the vector engine") !=
               std::string::npos);
    BOOST_TEST(error_of(engine_kind::scalar, op_of(opcode::bn_stats, 8)).find("runs on the vector engine") !=
               std::string::npos);
    BOOST_TEST(error_of(engine_kind::vector, op_of(opcode::affine_select, 8)).find("runs on the gpsimd engine") !=
               std::string::npos);
    for (const auto code : {opcode::range_select, opcode::tensor_copy_predicated, opcode::scalar_tensor_tensor,
                            opcode::tensor_scalar_reduce}) {
        BOOST_TEST(error_of(engine_kind::gpsimd, op_of(code, 8)).find("runs on the vector engine") !=
                   std::string::npos);
    }
}

BOOST_AUTO_TEST_CASE(a_predicate_must_fit_where_it_is_read) {
    // Its predicate is a tile like the data: 32 KiB of fp32 fits SBUF, not
    // trn1's 16 KiB PSUM partition.
    auto predicated = op_of(opcode::tensor_copy_predicated, 8192);
    predicated.from2 = memory_kind::psum;
    BOOST_TEST(error_of(engine_kind::vector, predicated).find("psum") != std::string::npos);
    predicated.from2 = memory_kind::sbuf;
    BOOST_TEST(error_of(engine_kind::vector, predicated) == "");
}

BOOST_AUTO_TEST_CASE(bn_stats_takes_up_to_512_elements_and_writes_six_statistics) {
    BOOST_TEST(error_of(engine_kind::vector, op_of(opcode::bn_stats, 513)) ==
               "m.yaml: bn_stats: takes up to 512 elements per partition, not 513");
    // Its 6 fp32 fit the last 24 bytes of a PSUM partition (16 KiB on trn1),
    // though 512 of them would not; bn_aggr's 2 fit the last 8.
    auto stats = op_of(opcode::bn_stats, 512, memory_kind::psum);
    stats.offset = 16 * 1024 - 24;
    BOOST_TEST(error_of(engine_kind::vector, stats) == "");
    stats.offset += 1;
    BOOST_TEST(error_of(engine_kind::vector, stats) != "");
    auto aggr = op_of(opcode::bn_aggr, 6, memory_kind::psum);
    aggr.offset = 16 * 1024 - 8;
    BOOST_TEST(error_of(engine_kind::vector, aggr) == "");
}

BOOST_AUTO_TEST_CASE(a_scan_reads_its_second_input_where_it_says) {
    auto scan = op_of(opcode::tensor_tensor_scan, 64);
    scan.from2 = memory_kind::psum;
    BOOST_TEST((testing::bind(testing::one(engine_kind::vector, scan))
                    ->streams[static_cast<std::size_t>(engine_kind::vector)]
                    .front()
                    .memories &
                touches_psum) != 0);
}
