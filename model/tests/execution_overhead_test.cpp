#define BOOST_TEST_MODULE execution_overhead
#include "kernel_runs.h"
#include "neuron/model/spec/instance_catalogue.h"
#include "neuron/profile/summary.h"

#include <boost/test/unit_test.hpp>

#include <algorithm>

// Every execution pays its generation's fixed cost outside every engine
// (engines-calibration.md K1): a preamble before its engines start and a
// postamble after they and its DMA end. Profiles count it in total_time and
// in no active time. Then every engine runs its own preamble instructions
// (K1, K2) before its stream, in its active time.
// platform_config::execution_overhead = false leaves all of it out.

using namespace neuron::model;
using namespace neuron::model::testing;
using namespace std::chrono_literals;

namespace {

platform_config with_overhead(const char* instance) {
    auto config = stepped(instance);
    config.execution_overhead = true;
    return config;
}

kernel_run run_to_end(simulation& sim, const kernel& k, run_options options = {}) {
    kernel_run run;
    start_kernel(sim, k, run, std::move(options));
    sim.advance(1s);
    BOOST_TEST_REQUIRE(run.report.has_value());
    return run;
}

kernel one_activation() {
    kernel k;
    stream(k, engine_kind::scalar).push_back(op_of(opcode::activation, 128, 1000));
    return k;
}

std::uint64_t overhead_ps(const char* instance) {
    const auto& c = spec_of(find_instance_type(instance).kind).costs();
    return (c.execution_preamble_ns.value + c.execution_postamble_ns.value) * 1000;
}

// Every engine's preamble instructions, one after the other.
std::uint64_t engine_preamble_ps(const char* instance) {
    const auto& c = spec_of(find_instance_type(instance).kind).costs();
    return c.engine_preamble_instructions.value * c.engine_preamble_instruction_ns.value * 1000;
}

// one_activation() run with its profile recorded.
kernel_run profiled_activation(simulation& sim) {
    run_options options;
    options.profile = std::make_shared<neuron::profile::core_timeline>();
    return run_to_end(sim, one_activation(), options);
}

double field(const std::vector<neuron::profile::summary_field>& fields, std::string_view name) {
    const auto it = std::find_if(fields.begin(), fields.end(), [&](const auto& f) { return f.key == name; });
    BOOST_TEST_REQUIRE((it != fields.end()), name);
    return std::get<double>(it->value);
}

} // namespace

BOOST_AUTO_TEST_CASE(an_empty_program_lasts_the_fixed_cost_k1_shows_on_trn2) {
    simulation sim(with_overhead("trn2.48xlarge"));
    const auto run = run_to_end(sim, kernel{});
    // K1: 12.4-12.8 us of total_time lie outside every engine, and every
    // engine runs 64 preamble instructions of 25 ns.
    BOOST_TEST(run.end_ps == 12'600'000u + 1'600'000u);
    BOOST_TEST(run.end_ps == overhead_ps("trn2.48xlarge") + engine_preamble_ps("trn2.48xlarge"));
    for (const auto busy : run.report->busy_ps) BOOST_TEST(busy == 1'600'000u);
}

BOOST_AUTO_TEST_CASE(the_engines_start_after_the_preamble_and_the_run_ends_after_the_postamble) {
    simulation sim(with_overhead("trn1.2xlarge"));
    const auto& c = spec_of(device_kind::trainium).costs();
    const auto run = run_to_end(sim, one_activation());
    // activation of 1000 elements: 1000 ScalarE cycles at 1.4 GHz.
    const auto preamble = engine_preamble_ps("trn1.2xlarge");
    BOOST_TEST(run.end_ps ==
               c.execution_preamble_ns.value * 1000 + preamble + 714'286 + c.execution_postamble_ns.value * 1000);
    BOOST_TEST(run.report->busy_ps[static_cast<std::size_t>(engine_kind::scalar)] == preamble + 714'286u);
}

BOOST_AUTO_TEST_CASE(without_the_overhead_a_run_is_its_engines_work_alone) {
    simulation sim(stepped("trn1.2xlarge"));
    BOOST_TEST(run_to_end(sim, one_activation()).end_ps == 714'286u);
    BOOST_TEST(run_to_end(sim, kernel{}).end_ps == 1'000'000'000'000u, "ends where it started");
}

BOOST_AUTO_TEST_CASE(a_profile_counts_the_overhead_in_total_time_and_in_no_active_time) {
    simulation sim(with_overhead("trn2.48xlarge"));
    const auto run = profiled_activation(sim);
    const auto& t = *run.report->profile;
    const auto activation = std::find_if(t.instructions.begin(), t.instructions.end(),
                                         [&](const auto& r) { return t.opcodes[r.opcode] == "activation"; });
    BOOST_TEST_REQUIRE((activation != t.instructions.end()));
    BOOST_TEST(activation->start_ps - t.start_ps == 6'300'000u + 1'600'000u);
    BOOST_TEST(t.end_ps - activation->end_ps == 6'300'000u);
    const auto fields = neuron::profile::summarize(t);
    const double activation_s = 1000 / 1.2e9; // 1000 ScalarE cycles at 1.2 GHz
    BOOST_TEST(field(fields, "total_time") == 12.6e-6 + 1.6e-6 + activation_s, boost::test_tools::tolerance(1e-3));
    BOOST_TEST(field(fields, "total_active_time") == 1.6e-6 + activation_s, boost::test_tools::tolerance(1e-3));
}

BOOST_AUTO_TEST_CASE(every_engine_runs_64_preamble_instructions_before_its_stream_in_its_active_time) {
    simulation sim(with_overhead("trn2.48xlarge"));
    const auto run = profiled_activation(sim);
    const auto& t = *run.report->profile;
    std::array<std::uint64_t, engine_count> preambles{};
    std::array<std::uint64_t, engine_count> last_end{};
    for (const auto& r : t.instructions) {
        if (t.opcodes[r.opcode] != "preamble") continue;
        ++preambles[r.engine];
        BOOST_TEST(r.end_ps - r.start_ps == 25'000u);
        last_end[r.engine] = std::max(last_end[r.engine], r.end_ps);
    }
    // K1: Vector ran 66 instructions with two adds, 65 with one; K2: Scalar 128 with 64 copies.
    for (std::size_t e = 0; e < engine_count; ++e) {
        BOOST_TEST(preambles[e] == 64u);
        BOOST_TEST(last_end[e] - t.start_ps == 6'300'000u + 1'600'000u);
    }
    BOOST_TEST(t.instructions.size() == 5 * 64 + 1u);
    const auto fields = neuron::profile::summarize(t);
    BOOST_TEST(field(fields, "vector_engine_active_time") == 1.6e-6, boost::test_tools::tolerance(1e-6));
}

BOOST_AUTO_TEST_CASE(a_run_aborted_in_its_preamble_never_starts_its_engines_and_the_next_run_pays_its_own) {
    simulation sim(with_overhead("trn1.2xlarge"));
    kernel_run first;
    start_kernel(sim, one_activation(), first);
    sim.advance(3us); // within the 6.3 us preamble
    sim.call([](platform& p) { p.device(0).core(0).abort(); });
    kernel_run second;
    start_kernel(sim, one_activation(), second);
    sim.advance(1s);
    BOOST_TEST(!first.report.has_value()); // never answered
    BOOST_TEST_REQUIRE(second.report.has_value());
    const auto preamble = engine_preamble_ps("trn1.2xlarge");
    BOOST_TEST(second.end_ps == 3'000'000u + overhead_ps("trn1.2xlarge") + preamble + 714'286u);
    // The first run's engines never started: only the second's preamble and activation are busy time.
    BOOST_TEST(second.report->busy_ps[static_cast<std::size_t>(engine_kind::scalar)] == preamble + 714'286u);
    const auto scalar_busy =
        sim.call([](platform& p) { return p.device(0).core(0).find_engine(engine_kind::scalar)->busy_ps(); });
    BOOST_TEST(scalar_busy == preamble + 714'286u);
}
