#define BOOST_TEST_MODULE model_loops
// A model file's `repeat:` and `loop:`: blocks kept once whatever their
// trips, their per-trip waits and offsets, and what they may not do.

#include "support/program_text.h"

#include "neuron/control/model_file.h"
#include "neuron/model/program/kernel.h"
#include "neuron/model/program/program_builder.h"
#include "neuron/model/spec/errors.h"

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

using namespace neuron;
using namespace neuron::control::testing;
using neuron::model::engine_kind;
using neuron::model::kernel_op;
using neuron::model::no_semaphore_index;

BOOST_AUTO_TEST_CASE(repeat_is_a_loop_of_one_instruction) {
    const auto text = header + R"(program:
  tensor:
    - {op: nc_matmul, stationary: [128, 128], moving: [128, 512], wait: {semaphore: 0, value: 16}}
    - {op: nc_matmul, stationary: [128, 128], moving: [128, 512], repeat: 100000}
    - {op: nc_matmul, stationary: [128, 128], moving: [128, 256], signal: 3}
)";
    const auto k_owner = program_of(control::parse_model_file(text));
    const auto& k = *k_owner;
    const auto& t = stream(k, engine_kind::tensor);
    BOOST_TEST_REQUIRE(t.size() == 100002u);
    BOOST_TEST(t.text().size() == 3u); // written once, not unrolled
    const std::vector<kernel_op> ran(t.begin(), t.end());
    BOOST_TEST(ran[0].wait_semaphore == 0u);
    BOOST_TEST(ran[1].wait_semaphore == no_semaphore_index);
    BOOST_TEST(ran[100000].free == 512u);
    BOOST_TEST(ran[100000].at.line == 6u); // every trip points at the line that wrote it
    BOOST_TEST(ran[100001].free == 256u);
    BOOST_TEST(ran[100001].signal_semaphore == 3u);
}

BOOST_AUTO_TEST_CASE(a_program_runs_at_most_max_executed_instructions) {
    static_assert(model::max_executed_instructions == 1073741824);
    const auto limit =
        header + "program:\n  tensor:\n    - {op: nc_matmul, stationary: [1, 1], moving: [1, 1], repeat: 1073741824}\n";
    BOOST_TEST(program_of(control::parse_model_file(limit))->instruction_count() == 1073741824u);

    refused("program:\n  tensor:\n    - {op: nc_matmul, stationary: [1, 1], moving: [1, 1], repeat: 1073741825}\n",
            "1073741825", "repeat must be from 1 to 1073741824, not 1073741825");
    refused("program:\n  tensor:\n    - {op: nc_matmul, stationary: [1, 1], moving: [1, 1], repeat: 1073741000}\n"
            "  sync:\n    - {op: dma_copy, from: hbm, to: sbuf, bytes_per_partition: 1, repeat: 825}\n",
            "825}", "the program would run more than 1073741824 instructions");
    refused("program:\n  tensor:\n    - {op: nc_matmul, stationary: [1, 1], moving: [1, 1], repeat: 1073741824}\n"
            "    - {op: nc_matmul, stationary: [1, 1], moving: [1, 1]}\n",
            "{op: nc_matmul, stationary: [1, 1], moving: [1, 1]}", "the program would run more than 1073741824");
    refused("program:\n  tensor:\n    - {op: nc_matmul, stationary: [1, 1], moving: [1, 1], repeat: 0}\n", "0}",
            "repeat must be from 1 to 1073741824, not 0");
    refused("program:\n  gpsimd:\n    - {op: print, prefix: p, repeat: 4097}\n", "{op: print",
            "more than 4096 print instructions");
}

BOOST_AUTO_TEST_CASE(a_loop_repeats_its_body_with_per_trip_changes) {
    const auto text = header + R"(program:
  sync:
    - loop:
        trips: 8
        wait_step: {1: 1}
        offset_stride: 4096
        body:
          - {op: dma_copy, from: hbm, to: sbuf, bytes_per_partition: 4096, signal: 0, wait: {semaphore: 1, value: 0}}
  vector:
    - loop:
        trips: 4
        wait_step: 32
        body:
          - {op: tensor_copy, shape: [128, 1024], wait: {semaphore: 0, value: 32}}
          - loop: {trips: 3, body: [{op: tensor_copy, shape: [128, 8]}]}
          - {op: memset, shape: [128, 8], signal: 1, repeat: 2}
)";
    const auto k = program_of(control::parse_model_file(text));
    const auto& sync = stream(*k, engine_kind::sync);
    BOOST_TEST(sync.size() == 8u);
    BOOST_TEST(sync.text().size() == 1u);
    std::vector<std::uint64_t> offsets, waits;
    for (auto c = sync.begin(); !c.done(); ++c) {
        offsets.push_back(c.offset(c->offset));
        waits.push_back(c.wait_value(c->wait_semaphore, c->wait_value));
    }
    BOOST_TEST(offsets == (std::vector<std::uint64_t>{0, 4096, 8192, 12288, 16384, 20480, 24576, 28672}),
               boost::test_tools::per_element());
    BOOST_TEST(waits == (std::vector<std::uint64_t>{0, 1, 2, 3, 4, 5, 6, 7}), boost::test_tools::per_element());
    const auto& vector = stream(*k, engine_kind::vector);
    BOOST_TEST(vector.size() == 4u * (1 + 3 + 2));
    BOOST_TEST(vector.text().size() == 3u);
    BOOST_TEST(k->instruction_count() == 8u + 24u);
    std::vector<std::uint64_t> copy_waits;
    for (auto c = vector.begin(); !c.done(); ++c) {
        if (c->wait_semaphore == 0) copy_waits.push_back(c.wait_value(0, c->wait_value));
    }
    BOOST_TEST(copy_waits == (std::vector<std::uint64_t>{32, 64, 96, 128}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(bad_loops_are_refused_where_they_are_written) {
    refused("program:\n  vector:\n    - loop: {trips: 0, body: [{op: memset, shape: [1, 1]}]}\n", "0,",
            "trips must be from 1 to 1073741824, not 0");
    refused("program:\n  vector:\n    - loop: {body: [{op: memset, shape: [1, 1]}]}\n", "{body", "loop needs 'trips'");
    refused("program:\n  vector:\n    - loop: {trips: 2, body: []}\n", "[]",
            "a loop's body needs at least one instruction");
    refused("program:\n  vector:\n    - loop: {trips: 2, body: [{op: memset, shape: [1, 1]}], stride: 4}\n", "stride",
            "unknown key 'stride'");
    refused("program:\n  vector:\n    - {loop: {trips: 2, body: [{op: memset, shape: [1, 1]}]}, op: memset}\n",
            "op: memset}", "unknown key 'op'");
    refused("program:\n  vector:\n    - loop: {trips: 2, wait_step: [1], body: [{op: memset, shape: [1, 1]}]}\n", "[1]",
            "wait_step must be a number or a map {SEMAPHORE: STEP}");
    refused("program:\n  vector:\n    - loop: {trips: 2, wait_step: {256: 1}, body: [{op: memset, shape: [1, 1]}]}\n",
            "256", "a semaphore must be from 0 to 255, not 256");
    // Trips multiplied past what a program runs: refused before anything is built.
    refused("program:\n  vector:\n    - loop: {trips: 65536, body: [{loop: {trips: 65536, body: [{op: memset, "
            "shape: [1, 1]}]}}]}\n",
            "65536, body: [{op", "the loops here run 4294967296 trips in all, more than the 1073741824");
    // Nine loops deep.
    std::string deep = "program:\n  vector:\n    - ";
    for (int i = 0; i < 9; ++i) deep += "loop: {trips: 1, body: [";
    deep += "{op: memset, shape: [1, 1]}";
    for (int i = 0; i < 9; ++i) deep += "]}";
    deep += "\n";
    refused(deep, "loop: {trips: 1, body: [{op", "loops nest at most 8 deep");
}

BOOST_AUTO_TEST_CASE(a_stride_past_the_partition_is_refused_at_the_instruction_when_bound) {
    const auto text = header + R"(program:
  vector:
    - loop:
        trips: 100
        offset_stride: 2048
        body:
          - {op: tensor_copy, shape: [128, 1024]}
)";
    const auto m = control::parse_model_file(text);
    try {
        (void)model::build_program(m, model::spec_of(model::device_kind::trainium));
        BOOST_FAIL("a stride past the partition was taken");
    } catch (const model::invalid_argument_error& e) {
        BOOST_TEST(std::string(e.what()) == "model:9:13: tensor_copy: writes bytes 202752 to 204799 of each sbuf "
                                            "partition, which holds 196608 on Trainium1");
    }
}
