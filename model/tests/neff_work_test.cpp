#define BOOST_TEST_MODULE neff_work
// What a loaded NEFF runs and holds, through the model's API in stepped
// time: the program its stream work becomes (stream_program.h), memory per
// physical core of its logical core, and the shared scratchpad, which holds
// the largest need of the models loaded on a core rather than their sum.

#include "neuron/model/program/kernel.h"
#include "neuron/model/program/program_builder.h"
#include "neuron/model/spec/engine_costs.h"
#include "neuron/model/spec/errors.h"
#include "neuron/model/spec/nrt_status.h"
#include "session_fixture.h"

#include <boost/test/unit_test.hpp>

using namespace neuron::model;
using namespace neuron::model::testing;
using namespace std::chrono_literals;

namespace {

constexpr auto tensor_engine = static_cast<std::size_t>(engine_kind::tensor);
constexpr auto vector_engine = static_cast<std::size_t>(engine_kind::vector);
constexpr auto sync_engine = static_cast<std::size_t>(engine_kind::sync);
constexpr std::uint64_t mib = 1 << 20;

compiled_model neff(std::array<std::uint64_t, engine_count> instructions, std::uint64_t macs = 0,
                    std::uint64_t traffic = 0, std::uint32_t cores = 1) {
    compiled_model m;
    m.name = "synthetic.neff";
    m.streams = {instructions, macs, traffic, cores};
    return m;
}

std::uint64_t sum_macs(const program& p) {
    std::uint64_t n = 0;
    for (const auto& s : p.streams) {
        for (const auto& i : s) n += i.macs;
    }
    return n;
}

std::uint64_t busy_ps(const instruction_stream& stream) {
    std::uint64_t ps = 0;
    for (const auto& i : stream) ps += i.busy_ps;
    return ps;
}

// A shared scratchpad need of `bytes` on physical core `core`, and code beside it.
compiled_model holding(std::uint64_t scratchpad, std::uint32_t core = 0) {
    auto m = neff({1, 0, 0, 0, 0});
    m.memory.push_back({mem_location::device, mem_type::code_device, 4096, core, false});
    m.memory.push_back({mem_location::device, mem_type::scratchpad_device, scratchpad, core, true});
    return m;
}

// Loads `m` on core 0 of a trn1 session, executes it once and lets `enough` pass: what it answered.
execution_outcome run_once(instance& i, owner_id s, compiled_model m, std::chrono::nanoseconds enough) {
    const auto id = i.model.load(s, std::nullopt, std::move(m)).model;
    answers a;
    i.model.execute(s, id, 1, a.record());
    i.model.advance(enough);
    BOOST_TEST_REQUIRE(a.got.size() == 1u);
    return a.got[0];
}

} // namespace

BOOST_AUTO_TEST_CASE(every_engine_runs_as_many_instructions_as_its_stream_holds) {
    const auto& spec = spec_of(device_kind::trainium);
    const auto p = build_program(neff({12, 2, 5, 7, 3}, 4194304, 262144), spec);
    const std::size_t want[] = {12, 2, 5, 7, 3};
    for (std::size_t e = 0; e < engine_count; ++e) BOOST_TEST(p->streams[e].size() == want[e]);
    BOOST_TEST(sum_macs(*p) == 4194304u, "the MACs, all of them, on the tensor engine");
    for (auto i = p->streams[tensor_engine].begin(); !i.done(); ++i) {
        BOOST_TEST(i->op == static_cast<std::uint8_t>(opcode::nc_matmul));
        BOOST_TEST(i->macs == 4194304u / 12 + (i.position() < 4194304 % 12 ? 1 : 0));
    }
    // A vector instruction takes MIN_II at its engine's clock.
    BOOST_TEST(p->streams[vector_engine][0].busy_ps ==
               cycles_to_ps(costs_of(core_generation::nc_v2).min_ii.value, spec.engines[1].clock_hz));
}

BOOST_AUTO_TEST_CASE(a_matmul_instruction_lasts_what_its_macs_take_the_pe_array) {
    const auto& spec = spec_of(device_kind::trainium);
    const auto clock = spec.engines[0].clock_hz;
    // 16384 MACs a cycle: 10^9 MACs over 10 instructions is 6104 cycles each (rounded up).
    auto p = build_program(neff({10, 0, 0, 0, 0}, 1'000'000'000), spec);
    BOOST_TEST(p->streams[tensor_engine][0].busy_ps == cycles_to_ps(6104, clock));
    // Two graphs share the work: each array does half of it.
    p = build_program(neff({10, 0, 0, 0, 0}, 1'000'000'000, 0, 2), spec);
    BOOST_TEST(p->streams[tensor_engine][0].busy_ps == cycles_to_ps(3052, clock));
    BOOST_TEST(sum_macs(*p) == 1'000'000'000u, "flops count the whole NEFF");
    // Few MACs: MIN_II.
    p = build_program(neff({10, 0, 0, 0, 0}, 100), spec);
    BOOST_TEST(p->streams[tensor_engine][0].busy_ps ==
               cycles_to_ps(costs_of(core_generation::nc_v2).min_ii.value, clock));
}

BOOST_AUTO_TEST_CASE(the_traffic_moves_in_transfers_sync_issues_along_its_stream) {
    const auto& spec = spec_of(device_kind::trainium);
    const std::uint64_t traffic = 100 * mib;
    auto p = build_program(neff({4, 0, 0, 0, 64}, 0, traffic), spec);
    BOOST_TEST_REQUIRE(p->transfers.size() == 13u, "at most 8 MiB each");
    std::uint64_t moved = 0;
    for (const auto& t : p->transfers) {
        BOOST_TEST((t.from == memory_kind::hbm && t.to == memory_kind::sbuf));
        moved += t.partitions * t.bytes_per_partition;
    }
    BOOST_TEST(moved >= traffic);
    BOOST_TEST(moved < traffic + 13 * 128);
    std::size_t issued = 0;
    for (const auto& i : p->streams[sync_engine]) {
        if (i.transfer == no_transfer) continue;
        ++issued;
        BOOST_TEST(i.busy_ps == costs_of(core_generation::nc_v2).dma_instruction_ns.value * 1000);
    }
    BOOST_TEST(issued == 13u);
    // No Sync instructions: the engine with the most issues them.
    p = build_program(neff({4, 9, 0, 0, 0}, 0, traffic), spec);
    std::size_t by_vector = 0;
    for (const auto& i : p->streams[vector_engine]) by_vector += i.transfer != no_transfer;
    BOOST_TEST(by_vector == 9u, "one transfer per instruction when there are fewer instructions than 8 MiB pieces");
}

BOOST_AUTO_TEST_CASE(a_stream_too_long_runs_in_groups_that_last_as_long) {
    const auto& spec = spec_of(device_kind::trainium);
    const std::uint64_t real = 3'000'000;
    const auto p = build_program(neff({0, real, 0, 0, 0}), spec);
    BOOST_TEST(p->instruction_count() <= std::size_t{1} << 20);
    BOOST_TEST(p->streams[vector_engine].size() == 1'000'000u, "groups of 3");
    BOOST_TEST(busy_ps(p->streams[vector_engine]) ==
               1'000'000 * cycles_to_ps(3 * costs_of(core_generation::nc_v2).min_ii.value, spec.engines[1].clock_hz));
}

BOOST_AUTO_TEST_CASE(a_neff_for_an_engine_the_device_lacks_is_refused) {
    BOOST_CHECK_EXCEPTION(build_program(neff({1, 0, 0, 2, 0}), spec_of(device_kind::inferentia)), unsupported_error,
                          says<unsupported_error>("NEFF 'synthetic.neff' has 2 instructions for the gpsimd engine"));
}

BOOST_AUTO_TEST_CASE(an_execution_counts_the_neffs_flops_and_lasts_its_busiest_engine) {
    instance i("trn1.32xlarge");
    const auto s = i.open(core_selection::range, 0, 1).owner;
    // The vector engine's 100 instructions take 6400 cycles: less than the tensor engine's 61040.
    const auto got = run_once(i, s, neff({10, 100, 0, 0, 0}, 1'000'000'000), 1ms);
    BOOST_TEST(got.status == nrt_status::success);
    const auto expected_ps = 10 * cycles_to_ps(6104, spec_of(device_kind::trainium).engines[0].clock_hz);
    BOOST_TEST(got.activity.duration_ps == expected_ps);
    i.model.close_session(s);
    BOOST_TEST(i.core(0, 0, counter_kind::flop_count).total == 2'000'000'000u);
}

BOOST_AUTO_TEST_CASE(the_shared_scratchpad_holds_the_largest_need_and_follows_unloads) {
    instance i("trn1.32xlarge");
    const auto s = i.open(core_selection::range, 0, 1).owner;
    const auto scratchpad = [&] { return i.core(0, 0, counter_kind::device_model_shared_scratchpad).total; };
    const auto small = i.model.load(s, 0u, holding(64 * mib)).model;
    BOOST_TEST(scratchpad() == 64 * mib);
    const auto big = i.model.load(s, 0u, holding(192 * mib)).model;
    BOOST_TEST(scratchpad() == 192 * mib, "the largest, not the sum");
    const auto middle = i.model.load(s, 0u, holding(128 * mib)).model;
    BOOST_TEST(scratchpad() == 192 * mib);
    BOOST_TEST(i.core(0, 0, counter_kind::device_model_code).total == 3 * 4096u);
    i.model.unload(s, big);
    BOOST_TEST(scratchpad() == 128 * mib, "shrinks to the largest still loaded");
    i.model.unload(s, middle);
    BOOST_TEST(scratchpad() == 64 * mib);
    i.model.unload(s, small);
    BOOST_TEST(scratchpad() == 0u);
    BOOST_TEST(i.core(0, 0, counter_kind::device_mem).total == 0u);
}

BOOST_AUTO_TEST_CASE(a_scratchpad_that_cannot_grow_leaves_nothing_of_the_load) {
    instance i("trn1.32xlarge");
    const auto s = i.open(core_selection::range, 0, 1).owner;
    i.model.load(s, 0u, holding(64 * mib));
    const auto before = i.core(0, 0, counter_kind::device_mem).total;
    BOOST_CHECK_THROW(i.model.load(s, 0u, holding(std::uint64_t{1} << 40)), out_of_memory_error);
    BOOST_TEST(i.core(0, 0, counter_kind::device_mem).total == before);
    BOOST_TEST(i.core(0, 0, counter_kind::device_model_shared_scratchpad).total == 64 * mib);
    BOOST_TEST(i.model.who_holds_what().sessions.at(0).models.size() == 1u);
}

BOOST_AUTO_TEST_CASE(a_longer_stream_than_the_matmuls_sets_the_latency) {
    instance i("trn1.32xlarge");
    const auto s = i.open(core_selection::range, 0, 1).owner;
    const auto got = run_once(i, s, neff({10, 20000, 0, 0, 0}, 1'000'000'000), 5ms);
    const auto vector_ps = 20000 * cycles_to_ps(costs_of(core_generation::nc_v2).min_ii.value,
                                                spec_of(device_kind::trainium).engines[1].clock_hz);
    BOOST_TEST(got.activity.duration_ps == vector_ps);
}

BOOST_AUTO_TEST_CASE(a_scratchpad_failing_on_one_core_undoes_the_others) {
    instance i("trn2.48xlarge");
    const auto s = i.open(core_selection::range, 0, 1, 2).owner;
    auto m = neff({1, 0, 0, 0, 0}, 0, 0, 2);
    m.memory.push_back({mem_location::device, mem_type::scratchpad_device, 64 * mib, 0, true});
    m.memory.push_back({mem_location::device, mem_type::scratchpad_device, std::uint64_t{1} << 40, 1, true});
    BOOST_CHECK_THROW(i.model.load(s, std::nullopt, m), out_of_memory_error);
    BOOST_TEST(i.core(0, 0, counter_kind::device_model_shared_scratchpad).total == 0u);
    BOOST_TEST(i.core(0, 0, counter_kind::device_mem).total == 0u);
    // The region is as it was: a model needing 64 MiB there still grows it.
    m.memory.pop_back();
    i.model.load(s, std::nullopt, m);
    BOOST_TEST(i.core(0, 0, counter_kind::device_model_shared_scratchpad).total == 64 * mib);
}

BOOST_AUTO_TEST_CASE(a_size_no_device_has_leaves_nothing_and_counts_invalid) {
    instance i("trn1.32xlarge");
    const auto s = i.open(core_selection::range, 0, 1).owner;
    auto m = neff({1, 0, 0, 0, 0});
    m.memory.push_back({mem_location::device, mem_type::code_device, 4096, 0, false});
    m.memory.push_back({mem_location::device, mem_type::constants_device, UINT64_MAX, 0, false});
    BOOST_CHECK_THROW(i.model.load(s, std::nullopt, m), invalid_argument_error);
    BOOST_TEST(i.core(0, 0, counter_kind::device_mem).total == 0u, "the code allocated first is freed");
    i.model.close_session(s);
    BOOST_TEST(i.core(0, 0, counter_kind::invalid_error).total == 1u);
}

BOOST_AUTO_TEST_CASE(a_models_memory_cannot_be_freed_on_its_own) {
    instance i("trn1.32xlarge");
    const auto s = i.open(core_selection::range, 0, 1).owner;
    i.model.load(s, 0u, holding(64 * mib));
    // Allocation ids count from 1 in the order made: the code, then the scratchpad.
    BOOST_CHECK_EXCEPTION(i.model.free(s, 1), invalid_argument_error,
                          says<invalid_argument_error>("belongs to loaded model"));
    BOOST_CHECK_EXCEPTION(i.model.free(s, 2), invalid_argument_error,
                          says<invalid_argument_error>("is a shared scratchpad's"));
    BOOST_TEST(i.core(0, 0, counter_kind::device_model_shared_scratchpad).total == 64 * mib);
}

BOOST_AUTO_TEST_CASE(each_graph_charges_its_own_physical_core) {
    instance i("trn2.48xlarge");
    const auto s = i.open(core_selection::range, 1, 1, 2).owner; // logical core 1: physical cores 2 and 3
    auto m = neff({1, 0, 0, 0, 0}, 0, 0, 2);
    m.memory.push_back({mem_location::device, mem_type::code_device, 8192, 0, false});
    m.memory.push_back({mem_location::device, mem_type::code_device, 16384, 1, false});
    m.memory.push_back({mem_location::device, mem_type::scratchpad_device, 64 * mib, 1, true});
    i.model.load(s, std::nullopt, m);
    BOOST_TEST(i.core(0, 2, counter_kind::device_model_code).total == 8192u);
    BOOST_TEST(i.core(0, 3, counter_kind::device_model_code).total == 16384u);
    BOOST_TEST(i.core(0, 2, counter_kind::device_model_shared_scratchpad).total == 0u);
    BOOST_TEST(i.core(0, 3, counter_kind::device_model_shared_scratchpad).total == 64 * mib);
}

BOOST_AUTO_TEST_CASE(a_neff_for_more_cores_than_the_logical_core_has_is_invalid) {
    instance i("trn2.48xlarge");
    const auto s = i.open(core_selection::range, 0, 1, 1).owner; // LNC=1
    BOOST_CHECK_EXCEPTION(i.model.load(s, std::nullopt, neff({1, 0, 0, 0, 0}, 0, 0, 2)), unsupported_error,
                          says<unsupported_error>("'synthetic.neff' was compiled for 2 NeuronCores, but logical "
                                                  "NeuronCore 0 of test has 1 (LNC=1)"));
    BOOST_TEST(i.core(0, 0, counter_kind::device_mem).total == 0u);
    i.model.close_session(s);
    BOOST_TEST(i.core(0, 0, counter_kind::invalid_error).total == 1u);
}
