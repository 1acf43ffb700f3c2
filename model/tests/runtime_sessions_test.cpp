#define BOOST_TEST_MODULE runtime_sessions
#include "kernel_runs.h"
#include "neuron/model/runtime/api.h"
#include "neuron/model/spec/errors.h"
#include "neuron/model/spec/nrt_status.h"
#include "session_fixture.h"

#include <boost/test/unit_test.hpp>

#include <optional>
#include <string>
#include <vector>

// The runtime's policy over the model (core selection, loads, executions,
// closing), through the model's API in stepped time: no socket, no shim.

using namespace neuron::model;
using namespace neuron::model::testing;
using namespace std::chrono_literals;

namespace {

// Tensor-engine work lasting `ns` on a trn1 core (2.8 GHz), with `macs` MACs.
compiled_model work(std::uint64_t ns, std::uint64_t macs = 0) {
    compiled_model m;
    m.name = "work";
    m.engine_cycles[static_cast<std::size_t>(engine_kind::tensor)] = ns * 28 / 10;
    m.macs = macs;
    return m;
}

} // namespace

BOOST_AUTO_TEST_CASE(a_session_takes_every_core_by_default_and_resets_them) {
    instance i("trn1.32xlarge");
    const auto grant = i.open(core_selection::all_free, 0, 0);
    BOOST_TEST(grant.first == 0u);
    BOOST_TEST(grant.count == 32u);
    BOOST_TEST(grant.lnc == 1u);
    BOOST_TEST(i.owner_of(15, 1) == grant.owner);
    BOOST_TEST(i.core(15, 1, counter_kind::reset_req_count).total == 2u); // the probe reset, then the runtime's
    BOOST_TEST(i.model.who_holds_what().sessions.at(0).label == "test");
}

BOOST_AUTO_TEST_CASE(sessions_that_come_and_go_leave_no_reset_behind) {
    // Each session queues a reset of its cores; one that closed before its
    // reset started left it queued, and its outcome remembered, for ever:
    // some 80 bytes a session while the emulator served.
    instance i("trn1.2xlarge");
    for (int n = 0; n < 1000; ++n) i.model.close_session(i.open(core_selection::range, 0, 1).owner);
    const auto [queued, remembered] = i.sim.call([](platform& p) {
        return std::pair{p.device(0).resets().requests_queued(), p.device(0).resets().results_remembered()};
    });
    BOOST_TEST(queued == 1u); // the first, in progress when the others came
    BOOST_TEST(remembered == 1u);
    BOOST_TEST(i.core(0, 0, counter_kind::reset_req_count).total == 1001u); // each asked for still counts
    const auto live = i.open(core_selection::range, 0, 1);
    BOOST_TEST(i.sim.call([](platform& p) { return p.device(0).resets().requests_queued(); }) == 2u);
    i.model.advance(10s);
    BOOST_TEST(i.sim.call([](platform& p) { return p.device(0).resets().requests_queued(); }) == 0u);
    BOOST_TEST(i.owner_of(0, 0) == live.owner);
}

BOOST_AUTO_TEST_CASE(a_session_without_a_label_is_named_by_its_pid) {
    instance i("trn1.2xlarge");
    session_request r;
    r.pid = 4242;
    i.model.open_session(r);
    BOOST_TEST(i.model.who_holds_what().owners.at(0).label == "pid 4242");
}

BOOST_AUTO_TEST_CASE(a_core_of_another_session_is_refused_by_name) {
    instance i("trn1.32xlarge");
    i.open(core_selection::range, 2, 2, 1, "first-app");
    BOOST_CHECK_EXCEPTION(i.open(core_selection::range, 3, 4), resource_busy_error,
                          says<resource_busy_error>("logical NeuronCore 3 is in use by first-app"));
    BOOST_CHECK_EXCEPTION(i.open(core_selection::all_free, 0, 0), resource_busy_error,
                          says<resource_busy_error>("logical NeuronCore 2"));
    BOOST_TEST(i.model.who_holds_what().sessions.size() == 1u); // nothing of the refused ones is left
    BOOST_TEST(i.core(0, 0, counter_kind::reset_req_count).total == 1u);
}

BOOST_AUTO_TEST_CASE(a_count_takes_the_first_free_run_of_cores) {
    instance i("trn1.32xlarge");
    i.open(core_selection::range, 1, 1);
    i.open(core_selection::range, 4, 1);
    const auto grant = i.open(core_selection::count, 0, 3); // 0 alone, 2-3 too short: 5-7
    BOOST_TEST(grant.first == 5u);
    BOOST_TEST(grant.count == 3u);
    BOOST_TEST(i.open(core_selection::count, 0, 1).first == 0u);
    BOOST_CHECK_EXCEPTION(i.open(core_selection::count, 0, 25), resource_busy_error,
                          says<resource_busy_error>("no 25 free NeuronCores in a row"));
    BOOST_CHECK_EXCEPTION(i.open(core_selection::count, 0, 33), invalid_argument_error,
                          says<invalid_argument_error>("NEURON_RT_NUM_CORES=33: trn1.32xlarge has 32"));
}

BOOST_AUTO_TEST_CASE(lnc2_gives_each_logical_core_two_physical_ones) {
    instance i("trn2.48xlarge");
    const auto grant = i.open(core_selection::range, 5, 1, 2);
    BOOST_TEST(grant.lnc == 2u);
    BOOST_TEST(i.owner_of(1, 2) == grant.owner); // logical 5 = device 1 cores 2, 3
    BOOST_TEST(i.owner_of(1, 3) == grant.owner);
    BOOST_TEST(i.owner_of(1, 4) == 0u);
    BOOST_CHECK_EXCEPTION(i.open(core_selection::range, 10, 1, 1), resource_busy_error,
                          says<resource_busy_error>("logical NeuronCore 10 is in use")); // LNC=1: device 1 core 2
}

BOOST_AUTO_TEST_CASE(a_bad_lnc_or_range_is_invalid) {
    instance i("trn1.32xlarge");
    BOOST_CHECK_EXCEPTION(i.open(core_selection::all_free, 0, 0, 2), invalid_argument_error,
                          says<invalid_argument_error>("size 2 is not supported on trn1.32xlarge"));
    BOOST_CHECK_EXCEPTION(
        i.open(core_selection::range, 30, 3), invalid_argument_error,
        says<invalid_argument_error>("logical NeuronCores 30-32, but trn1.32xlarge with LNC=1 has 0-31"));
    BOOST_CHECK_EXCEPTION(i.open(core_selection::range, 0, 0), invalid_argument_error,
                          says<invalid_argument_error>("asks for no logical NeuronCore"));
    BOOST_TEST(i.model.who_holds_what().owners.empty());
}

BOOST_AUTO_TEST_CASE(a_model_loads_on_the_first_core_without_one) {
    instance i("trn1.32xlarge");
    const auto s = i.open(core_selection::range, 4, 2).owner;
    BOOST_TEST(i.model.load(s, std::nullopt, work(1000)).logical_core == 4u);
    BOOST_TEST(i.model.load(s, std::nullopt, work(1000)).logical_core == 5u);
    BOOST_TEST(i.model.load(s, std::nullopt, work(1000)).logical_core == 4u); // all taken: the first
    BOOST_TEST(i.model.load(s, 5u, work(1000)).logical_core == 5u);
    BOOST_CHECK_EXCEPTION(i.model.load(s, 6u, work(1000)), invalid_argument_error,
                          says<invalid_argument_error>("logical NeuronCore 6 is not owned by this process"));
    i.model.close_session(s);                                             // the datastore reaches sysfs at release
    BOOST_TEST(i.core(2, 0, counter_kind::model_load_count).total == 2u); // logical 4 = device 2 core 0
    BOOST_TEST(i.core(2, 1, counter_kind::model_load_count).total == 2u);
}

BOOST_AUTO_TEST_CASE(a_refused_load_counts_in_its_status_directory) {
    instance i("trn1.32xlarge");
    const auto s = i.open(core_selection::range, 0, 2).owner;
    i.model.load(s, std::nullopt, work(1000));
    i.model.count_refused_load(s, std::nullopt, nrt_status::invalid); // would have gone to logical 1
    i.model.count_refused_load(s, std::nullopt, nrt_status::closed);  // NRT_CLOSED has no directory
    i.model.close_session(s);
    BOOST_TEST(i.core(0, 1, counter_kind::invalid_error).total == 1u);
    BOOST_TEST(i.core(0, 1, counter_kind::model_load_count).total == 0u);
    BOOST_TEST(i.core(0, 0, counter_kind::model_load_count).total == 1u);
}

BOOST_AUTO_TEST_CASE(a_model_that_does_not_fit_holds_nothing_and_counts_resource) {
    instance i("trn1.32xlarge");
    const auto s = i.open(core_selection::range, 0, 1).owner;
    auto big = work(1000);
    big.memory.push_back({mem_location::device, mem_type::code_device, 1 << 20});
    big.memory.push_back({mem_location::device, mem_type::tensors_device, std::uint64_t{1} << 40});
    BOOST_CHECK_THROW(i.model.load(s, std::nullopt, big), out_of_memory_error);
    BOOST_TEST(i.core(0, 0, counter_kind::device_mem).total == 0u);
    BOOST_TEST(i.model.who_holds_what().sessions.at(0).models.empty());
    i.model.close_session(s);
    BOOST_TEST(i.core(0, 0, counter_kind::resource_error).total == 1u);
}

BOOST_AUTO_TEST_CASE(a_model_needing_an_engine_the_device_lacks_is_refused) {
    instance i("inf1.xlarge");
    const auto s = i.open(core_selection::range, 0, 1).owner;
    compiled_model m;
    m.name = "pool";
    m.engine_cycles[static_cast<std::size_t>(engine_kind::gpsimd)] = 10;
    BOOST_CHECK_EXCEPTION(i.model.load(s, std::nullopt, m), unsupported_error,
                          says<unsupported_error>("needs a gpsimd engine"));
    i.model.close_session(s);
    BOOST_TEST(i.core(0, 0, counter_kind::invalid_error).total == 1u);
}

BOOST_AUTO_TEST_CASE(an_execution_lasts_its_work_and_is_counted_when_it_ends) {
    instance i("trn1.32xlarge");
    const auto s = i.open(core_selection::range, 0, 1).owner;
    const auto m = i.model.load(s, std::nullopt, work(50'000, 1'000'000)).model;
    answers a;
    i.model.execute(s, m, 1, a.record());
    i.model.advance(49'999ns);
    BOOST_TEST(a.got.empty());
    i.model.advance(1ns);
    BOOST_TEST_REQUIRE(a.got.size() == 1u);
    BOOST_TEST(a.got[0].status == nrt_status::success);
    BOOST_TEST(a.got[0].completed == 1u);
    i.model.close_session(s);
    BOOST_TEST(i.core(0, 0, counter_kind::inference_count).total == 1u);
    BOOST_TEST(i.core(0, 0, counter_kind::success).total == 1u);
    BOOST_TEST(i.core(0, 0, counter_kind::nc_time_in_use).total == 50u);
    BOOST_TEST(i.core(0, 0, counter_kind::flop_count).total == 2'000'000u);
}

BOOST_AUTO_TEST_CASE(a_hung_execution_fails_when_the_timeout_it_was_given_runs_out) {
    instance i("trn1.32xlarge");
    const auto s = i.open(core_selection::range, 0, 1).owner;
    auto m = work(10'000);
    fault_trigger f;
    f.status = 1200; // NRT_EXEC_HW_ERR_COLLECTIVES
    f.n = 1;
    m.faults.push_back(f);
    const auto id = i.model.load(s, std::nullopt, m).model;
    answers a;
    i.model.execute(s, id, 1, a.record(), 2s); // NEURON_RT_EXEC_TIMEOUT=2
    i.model.advance(2s - 1ns);
    BOOST_TEST(a.got.empty());
    i.model.advance(1ns);
    BOOST_TEST_REQUIRE(a.got.size() == 1u);
    BOOST_TEST(a.got[0].status == 1200u);
    BOOST_CHECK_THROW(i.model.execute(s, id, 1, a.record(), -1ns), invalid_argument_error);
    BOOST_CHECK_THROW(i.model.execute(s, id, 1, a.record(), max_exec_timeout + 1ns), invalid_argument_error);
    i.model.close_session(s);
    BOOST_TEST(i.core(0, 0, counter_kind::hw_collectives_error).total == 1u);
}

// A model declaring 128 days of work: the runtime gives up when the timeout
// it was given runs out, and the repetitions left do not run; the session's
// next execution has the core at once.
BOOST_AUTO_TEST_CASE(an_execution_longer_than_its_timeout_fails_with_nrt_timeout) {
    instance i("trn1.32xlarge");
    const auto s = i.open(core_selection::range, 0, 1).owner;
    const auto huge = i.model.load(s, std::nullopt, work(128ull * 24 * 3600 * 1'000'000'000)).model;
    const auto quick = i.model.load(s, std::nullopt, work(10'000)).model;
    answers a;
    i.model.execute(s, huge, 1000, a.record(), 2s); // NEURON_RT_EXEC_TIMEOUT=2
    i.model.execute(s, quick, 1, a.record(), 2s);
    i.model.advance(2s - 1ns);
    BOOST_TEST(a.got.empty());
    i.model.advance(1ns);
    BOOST_TEST_REQUIRE(a.got.size() == 1u);
    BOOST_TEST(a.got[0].status == nrt_status::timeout);
    BOOST_TEST(a.got[0].completed == 1u);
    i.model.advance(10us);
    BOOST_TEST_REQUIRE(a.got.size() == 2u);
    BOOST_TEST(a.got[1].status == nrt_status::success);
    i.model.advance(10s); // nothing more of the repetitions runs
    BOOST_TEST(a.got.size() == 2u);
    i.model.close_session(s);
    BOOST_TEST(i.core(0, 0, counter_kind::timeout).total == 1u);
    BOOST_TEST(i.core(0, 0, counter_kind::success).total == 1u);
}

BOOST_AUTO_TEST_CASE(repetitions_run_back_to_back_and_answer_once_with_the_first_failure) {
    instance i("trn1.32xlarge");
    const auto s = i.open(core_selection::range, 0, 1).owner;
    auto m = work(10'000);
    fault_trigger f;
    f.status = nrt_status::exec_hw_err_hbm_ue;
    f.n = 2;
    m.faults.push_back(f);
    const auto id = i.model.load(s, std::nullopt, m).model;
    answers a;
    i.model.execute(s, id, 3, a.record());
    i.model.advance(29'999ns);
    BOOST_TEST(a.got.empty());
    i.model.advance(1ns);
    BOOST_TEST_REQUIRE(a.got.size() == 1u);
    BOOST_TEST(a.got[0].status == nrt_status::exec_hw_err_hbm_ue);
    BOOST_TEST(a.got[0].completed == 3u);
    BOOST_CHECK_THROW(i.model.execute(s, id, 0, a.record()), invalid_argument_error);
    BOOST_CHECK_THROW(i.model.execute(s, id + 1, 1, a.record()), invalid_argument_error);
    i.model.close_session(s);
    BOOST_TEST(i.core(0, 0, counter_kind::success).total == 2u);
    BOOST_TEST(i.core(0, 0, counter_kind::hw_hbm_ue_error).total == 1u);
}

BOOST_AUTO_TEST_CASE(closing_a_session_cancels_its_executions_and_frees_its_cores_at_once) {
    instance i("trn1.32xlarge");
    const auto s = i.open(core_selection::range, 0, 1).owner;
    const auto id = i.model.load(s, std::nullopt, work(10'000)).model;
    answers a;
    i.model.execute(s, id, 1000, a.record());
    i.model.advance(25'000ns);
    i.model.close_session(s);
    BOOST_TEST_REQUIRE(a.got.size() == 1u);
    BOOST_TEST(a.got[0].status == nrt_status::closed);
    BOOST_TEST(a.got[0].completed == 2u);
    BOOST_TEST(i.core(0, 0, counter_kind::success).total == 2u); // aggregated at release
    const auto next = i.open(core_selection::range, 0, 1).owner;
    const auto other = i.model.load(next, std::nullopt, work(10'000)).model;
    answers b;
    i.model.execute(next, other, 1, b.record());
    i.model.advance(10'000ns); // not queued behind the closed session's work
    BOOST_TEST(b.got.size() == 1u);
    BOOST_CHECK_THROW(i.model.load(s, std::nullopt, work(1)), invalid_argument_error);
}

BOOST_AUTO_TEST_CASE(an_unloaded_model_frees_its_memory_and_cannot_run) {
    instance i("trn1.32xlarge");
    const auto s = i.open(core_selection::range, 0, 1).owner;
    auto m = work(1000);
    m.memory.push_back({mem_location::device, mem_type::code_device, 1 << 20});
    const auto id = i.model.load(s, std::nullopt, m).model;
    BOOST_TEST(i.core(0, 0, counter_kind::device_mem).total >= 1u << 20);
    i.model.unload(s, id);
    BOOST_TEST(i.core(0, 0, counter_kind::device_mem).total == 0u);
    answers a;
    BOOST_CHECK_EXCEPTION(i.model.execute(s, id, 1, a.record()), invalid_argument_error,
                          says<invalid_argument_error>("no loaded model"));
}

BOOST_AUTO_TEST_CASE(a_print_comes_from_the_owning_sessions_lnc_else_the_default) {
    instance i("trn2.48xlarge");
    i.open(core_selection::range, 8, 4, 1); // LNC=1: logical 8..11 are device 1's cores 0..3
    std::vector<debug_event> seen;
    i.model.connect_debug_events([&seen](debug_event&& e) {
        seen.push_back(std::move(e));
        return debug_delivery::accepted;
    });
    debug_emission e;
    e.dtype = "int32";
    e.shape = {2};
    e.logical_core = 9;
    e.count = 2;
    BOOST_TEST(i.model.emit_debug(e).accepted == 2u);
    e.logical_core = 3; // nobody's: the default LNC=2, device 0 core 6
    e.count = 1;
    i.model.emit_debug(e);
    BOOST_TEST_REQUIRE(seen.size() == 3u);
    BOOST_TEST(seen[0].device == 1u);
    BOOST_TEST(seen[0].core == 1u);
    BOOST_TEST(seen[1].data == (std::vector<std::uint8_t>{1, 0, 0, 0, 1, 0, 0, 0}), boost::test_tools::per_element());
    BOOST_TEST(seen[2].device == 0u);
    BOOST_TEST(seen[2].core == 6u);
    e.logical_core = 64;
    BOOST_CHECK_THROW(i.model.emit_debug(e), invalid_argument_error);
    e.logical_core = 0;
    e.pipe = 2;
    BOOST_CHECK_EXCEPTION(i.model.emit_debug(e), invalid_argument_error,
                          says<invalid_argument_error>("pipe 2 is neither 0 (stdout) nor 1 (stderr)"));
    i.model.connect_debug_events({});
}

BOOST_AUTO_TEST_CASE(an_answer_carries_what_the_repetitions_kept_busy_and_moved) {
    instance i("trn2.48xlarge");
    const auto s = i.open(core_selection::range, 0, 1).owner;
    kernel k;
    k.streams[static_cast<std::size_t>(engine_kind::sync)].push_back(
        testing::dma(memory_kind::hbm, memory_kind::sbuf, 128, 2048)); // 256 KiB from HBM
    k.streams[static_cast<std::size_t>(engine_kind::tensor)].push_back(testing::matmul(128, 512));
    compiled_model m;
    m.name = "layer";
    m.program = std::make_shared<kernel>(k);
    const auto id = i.model.load(s, std::nullopt, m).model;
    answers a;
    i.model.execute(s, id, 2, a.record());
    i.model.advance(1s);
    BOOST_TEST_REQUIRE(a.got.size() == 1u);
    const auto& activity = a.got[0].activity;
    BOOST_TEST(activity.hbm_bytes == 2 * 128 * 2048u);
    BOOST_TEST(activity.dma_bytes == activity.hbm_bytes);
    BOOST_TEST(activity.dma_busy_ps > 0u);
    BOOST_TEST(activity.macs == 2 * 128 * 128 * 512u);
    const auto tensor = activity.engine_busy_ps[static_cast<std::size_t>(engine_kind::tensor)];
    BOOST_TEST(tensor > 0u);
    BOOST_TEST(tensor % 2 == 0u); // two equal runs
    BOOST_TEST(activity.engine_busy_ps[static_cast<std::size_t>(engine_kind::gpsimd)] == 0u);
    BOOST_TEST(activity.duration_ps >= tensor);
}
