#define BOOST_TEST_MODULE neuron_core
#include "neuron/model/hardware/neuron_core.h"
#include "neuron/model/spec/errors.h"
#include "sim_helpers.h"

#include <boost/test/unit_test.hpp>

#include <memory>
#include <optional>
#include <vector>

// A core's engines running a program in simulated time: each engine its own
// stream, semaphores between them, prints when their instruction ends,
// busy time computed when read.

using namespace neuron::model;
using namespace neuron::model::testing;
using namespace std::chrono_literals;

namespace {

constexpr auto tensor = static_cast<std::size_t>(engine_kind::tensor);
constexpr auto vector = static_cast<std::size_t>(engine_kind::vector);
constexpr auto scalar = static_cast<std::size_t>(engine_kind::scalar);
constexpr auto gpsimd = static_cast<std::size_t>(engine_kind::gpsimd);

instruction busy(std::uint64_t ns) {
    instruction i;
    i.busy_ps = ns * 1000;
    return i;
}

instruction touching(std::uint8_t memories, std::uint64_t ns) {
    auto i = busy(ns);
    i.memories = memories;
    return i;
}

struct finished_run {
    std::optional<run_report> report;
    std::uint64_t at_ns = 0;
};

void run(simulation& sim, std::shared_ptr<program> p, finished_run& out, std::uint32_t core = 0) {
    sim.call([&out, p = std::move(p), core](platform& pl) {
        pl.device(0).core(core).run(p, 1, [&out](const run_report& r) {
            out.report = r;
            out.at_ns = static_cast<std::uint64_t>(sc_core::sc_time_stamp().value()) / 1000;
        });
    });
}

std::uint64_t busy_ps(simulation& sim, engine_kind kind) {
    return sim.call([kind](platform& p) { return p.device(0).core(0).find_engine(kind)->busy_ps(); });
}

} // namespace

BOOST_AUTO_TEST_CASE(the_engines_run_their_streams_in_parallel_and_the_run_ends_with_the_last) {
    simulation sim(stepped("trn1.2xlarge"));
    auto p = std::make_shared<program>();
    for (int i = 0; i < 1000; ++i) p->streams[tensor].push_back(busy(3)); // 3 us in all
    p->streams[tensor][0].macs = 7;
    p->streams[vector] = {busy(1000), busy(500)}; // 1.5 us
    finished_run done;
    run(sim, p, done);
    sim.advance(2999ns);
    BOOST_TEST(!done.report);
    sim.advance(1ns);
    BOOST_TEST_REQUIRE(done.report.has_value());
    BOOST_TEST(done.at_ns == 3000u);
    BOOST_TEST(done.report->busy_ps[tensor] == 3'000'000u);
    BOOST_TEST(done.report->busy_ps[vector] == 1'500'000u);
    BOOST_TEST(done.report->busy_ps[scalar] == 0u);
    BOOST_TEST(done.report->macs == 7u);
}

BOOST_AUTO_TEST_CASE(busy_time_is_right_in_the_middle_of_an_instruction) {
    simulation sim(stepped("trn1.2xlarge"));
    auto p = std::make_shared<program>();
    p->streams[tensor] = {busy(10'000)};
    finished_run done;
    run(sim, p, done);
    sim.advance(2500ns);
    BOOST_TEST(busy_ps(sim, engine_kind::tensor) == 2'500'000u);
    sim.advance(10us);
    BOOST_TEST(busy_ps(sim, engine_kind::tensor) == 10'000'000u); // idle since it ended
}

BOOST_AUTO_TEST_CASE(an_engine_waits_on_a_semaphore_another_engine_signals) {
    simulation sim(stepped("trn1.2xlarge"));
    auto p = std::make_shared<program>();
    auto load = busy(2000);
    load.signal_semaphore = 3; // "the tile is in SBUF"
    p->streams[scalar] = {load};
    auto use = busy(1000);
    use.wait_semaphore = 3;
    use.wait_value = 1;
    p->streams[tensor] = {busy(500), use};
    finished_run done;
    run(sim, p, done);
    // It starts 200 tensor cycles (71 429 ps at 2.8 GHz) after the signal
    // at 2000 ns: the dependency latency.
    sim.advance(2500ns);
    BOOST_TEST(busy_ps(sim, engine_kind::tensor) == 500'000u + (2'500'000u - 2'071'429u));
    sim.advance(571ns);
    BOOST_TEST(!done.report);
    sim.advance(1ns);
    BOOST_TEST_REQUIRE(done.report.has_value());
    BOOST_TEST(done.at_ns == 3071u); // 3071.429 ns
    BOOST_TEST(done.report->busy_ps[tensor] == 1'500'000u);
}

// Two producers, 2000 ns and 3000 ns long; the consumer waits on both, in
// either order, and starts the dependency latency after the later.
void waits_on_both(bool later_first) {
    simulation sim(stepped("trn1.2xlarge"));
    auto p = std::make_shared<program>();
    auto early = busy(2000);
    early.signal_semaphore = 3;
    p->streams[scalar] = {early};
    auto late = busy(3000);
    late.signal_semaphore = 5;
    p->streams[vector] = {late};
    auto use = busy(1000);
    use.wait_semaphore = later_first ? 5 : 3;
    use.wait_value = 1;
    use.also_waits[0] = {later_first ? 3u : 5u, 1};
    p->streams[tensor] = {use};
    finished_run done;
    run(sim, p, done);
    sim.advance(10us);
    BOOST_TEST_REQUIRE(done.report.has_value());
    BOOST_TEST(done.at_ns == 4071u); // 3000 + 71.429 + 1000
    BOOST_TEST(done.report->busy_ps[tensor] == 1'000'000u);
}

BOOST_AUTO_TEST_CASE(an_instruction_that_waits_on_two_semaphores_starts_after_the_later) { waits_on_both(false); }

BOOST_AUTO_TEST_CASE(the_order_of_an_instructions_waits_does_not_matter) { waits_on_both(true); }

BOOST_AUTO_TEST_CASE(semaphores_start_at_zero_for_every_run) {
    simulation sim(stepped("trn1.2xlarge"));
    auto first = std::make_shared<program>();
    auto signal = busy(10);
    signal.signal_semaphore = 0;
    first->streams[vector] = {signal};
    finished_run a;
    run(sim, first, a);
    sim.advance(1us);
    BOOST_TEST_REQUIRE(a.report.has_value());
    auto second = std::make_shared<program>();
    auto wait = busy(10);
    wait.wait_semaphore = 0;
    wait.wait_value = 1;
    second->streams[tensor] = {wait};
    finished_run b;
    run(sim, second, b);
    sim.advance(1ms);
    BOOST_TEST(!b.report); // last run's signal does not carry over
    BOOST_TEST(sim.call([](platform& p) { return p.device(0).core(0).busy(); }));
}

BOOST_AUTO_TEST_CASE(a_print_is_emitted_when_its_instruction_ends) {
    simulation sim(stepped("trn1.2xlarge"));
    std::vector<std::pair<std::uint64_t, debug_event>> seen;
    sim.call([&seen](platform& p) {
        p.debug_events().connect([&seen](debug_event&& e) {
            seen.emplace_back(static_cast<std::uint64_t>(sc_core::sc_time_stamp().value()) / 1000, std::move(e));
            return debug_delivery::accepted;
        });
    });
    auto p = std::make_shared<program>();
    device_print print;
    print.prefix = "tile 0";
    p->prints.push_back(print);
    auto printing = busy(700);
    printing.print = 0;
    p->streams[vector] = {busy(300), printing, busy(5000)};
    finished_run done;
    run(sim, p, done, 1);
    sim.advance(999ns);
    BOOST_TEST(sim.call([&seen](platform&) { return seen.size(); }) == 0u);
    sim.advance(1ns);
    BOOST_TEST_REQUIRE(sim.call([&seen](platform&) { return seen.size(); }) == 1u);
    BOOST_TEST(seen[0].first == 1000u);
    BOOST_TEST(seen[0].second.prefix == "tile 0");
    BOOST_TEST(seen[0].second.core == 1u);
}

BOOST_AUTO_TEST_CASE(an_aborted_run_stops_at_once_and_the_core_runs_the_next) {
    simulation sim(stepped("trn1.2xlarge"));
    auto slow = std::make_shared<program>();
    slow->streams[tensor] = {busy(10'000)};
    finished_run first;
    run(sim, slow, first);
    sim.advance(4us);
    sim.call([](platform& p) { p.device(0).core(0).abort(); });
    BOOST_TEST(busy_ps(sim, engine_kind::tensor) == 4'000'000u);
    auto quick = std::make_shared<program>();
    quick->streams[tensor] = {busy(1000)};
    finished_run second;
    run(sim, quick, second);
    sim.advance(20us);
    BOOST_TEST(!first.report); // never answered
    BOOST_TEST_REQUIRE(second.report.has_value());
    BOOST_TEST(second.at_ns == 5000u);
    BOOST_TEST(busy_ps(sim, engine_kind::tensor) == 5'000'000u);
}

BOOST_AUTO_TEST_CASE(a_program_the_core_cannot_run_is_refused) {
    simulation sim(stepped("inf1.xlarge"));
    auto pool = std::make_shared<program>();
    pool->streams[static_cast<std::size_t>(engine_kind::gpsimd)] = {busy(1)};
    finished_run done;
    BOOST_CHECK_THROW(run(sim, pool, done), unsupported_error);
    auto bad = std::make_shared<program>();
    auto wait = busy(1);
    wait.wait_semaphore = 32; // NC-v1 has 32
    bad->streams[tensor] = {wait};
    BOOST_CHECK_THROW(run(sim, bad, done), invalid_argument_error);
    auto print = std::make_shared<program>();
    auto unknown = busy(1);
    unknown.print = 0;
    print->streams[tensor] = {unknown};
    BOOST_CHECK_THROW(run(sim, print, done), invalid_argument_error);
    BOOST_TEST(!sim.call([](platform& p) { return p.device(0).core(0).busy(); }));
}

BOOST_AUTO_TEST_CASE(an_empty_program_ends_at_once) {
    simulation sim(stepped("trn2.3xlarge"));
    finished_run done;
    run(sim, std::make_shared<program>(), done);
    sim.advance(0ns);
    BOOST_TEST_REQUIRE(done.report.has_value());
    BOOST_TEST(done.at_ns == 0u);
}

// engines.md A.1: on NC-v2 Vector and GpSimd cannot access SBUF in parallel,
// nor Vector and Scalar PSUM; NC-v3 lifts both.
std::uint64_t run_time_ns(const char* instance, std::size_t a, std::uint8_t a_touches, std::size_t b,
                          std::uint8_t b_touches) {
    simulation sim(stepped(instance));
    auto p = std::make_shared<program>();
    p->streams[a] = {touching(a_touches, 1000)};
    p->streams[b] = {touching(b_touches, 1000)};
    finished_run done;
    run(sim, p, done);
    sim.advance(5us);
    BOOST_TEST_REQUIRE(done.report.has_value());
    BOOST_TEST(done.report->busy_ps[a] == 1'000'000u); // waiting for a port is not busy time
    BOOST_TEST(done.report->busy_ps[b] == 1'000'000u);
    return done.at_ns;
}

BOOST_AUTO_TEST_CASE(nc_v2_vector_and_gpsimd_take_turns_on_sbuf) {
    BOOST_TEST(run_time_ns("trn1.2xlarge", vector, touches_sbuf, gpsimd, touches_sbuf) == 2000u);
}

BOOST_AUTO_TEST_CASE(inf2_is_nc_v2_too) {
    BOOST_TEST(run_time_ns("inf2.xlarge", gpsimd, touches_sbuf, vector, touches_sbuf | touches_psum) == 2000u);
}

BOOST_AUTO_TEST_CASE(nc_v2_vector_and_scalar_take_turns_on_psum) {
    BOOST_TEST(run_time_ns("trn1.2xlarge", vector, touches_psum, scalar, touches_psum | touches_sbuf) == 2000u);
}

BOOST_AUTO_TEST_CASE(nc_v2_vector_and_scalar_share_no_sbuf_port) {
    BOOST_TEST(run_time_ns("trn1.2xlarge", vector, touches_sbuf, scalar, touches_sbuf) == 1000u);
}

BOOST_AUTO_TEST_CASE(nc_v2_tensor_shares_no_port) {
    BOOST_TEST(run_time_ns("trn1.2xlarge", tensor, touches_sbuf | touches_psum, vector, touches_psum) == 1000u);
}

BOOST_AUTO_TEST_CASE(nc_v3_vector_and_gpsimd_share_no_sbuf_port) {
    BOOST_TEST(run_time_ns("trn2.3xlarge", vector, touches_sbuf, gpsimd, touches_sbuf) == 1000u);
}

BOOST_AUTO_TEST_CASE(nc_v3_vector_and_scalar_share_no_psum_port) {
    BOOST_TEST(run_time_ns("trn2.3xlarge", vector, touches_psum, scalar, touches_psum) == 1000u);
}

BOOST_AUTO_TEST_CASE(port_uses_are_granted_in_the_order_asked_and_end_with_their_stretch) {
    simulation sim(stepped("trn1.2xlarge"));
    auto p = std::make_shared<program>();
    p->streams[vector] = {touching(touches_sbuf, 1000), touching(touches_sbuf, 1000)};
    p->streams[gpsimd] = {touching(touches_sbuf, 500)};
    p->streams[vector][0].signal_semaphore = 0; // two stretches: 0-1000, then after GpSimd's turn
    finished_run done;
    run(sim, p, done);
    sim.advance(5us);
    BOOST_TEST_REQUIRE(done.report.has_value());
    BOOST_TEST(done.at_ns == 2500u); // vector 0-1000, gpsimd 1000-1500, vector 1500-2500
}
