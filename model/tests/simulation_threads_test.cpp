#define BOOST_TEST_MODULE simulation_threads
#define SC_INCLUDE_DYNAMIC_PROCESSES // sc_spawn, for an event at a chosen picosecond
#include "neuron/model/spec/errors.h"
#include "sim_helpers.h"

#include <boost/test/unit_test.hpp>

#include <atomic>
#include <condition_variable>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using namespace neuron::model;
using namespace neuron::model::testing;

BOOST_AUTO_TEST_CASE(commands_from_many_threads_all_apply_while_time_advances) {
    simulation sim(stepped("trn1.32xlarge"));
    constexpr int posters = 4;
    constexpr int per_poster = 500;
    std::atomic<bool> done{false};
    std::atomic<std::uint64_t> backwards{0};

    std::thread reader([&] {
        std::uint64_t last_total = 0;
        std::uint64_t last_time = 0;
        while (!done.load()) {
            const auto total =
                sim.published().counter(counter_ref::of_core(7, 1, counter_kind::success), counter_field::total);
            const auto now = sim.published().clock().now_ns();
            if (total < last_total || now < last_time) backwards.fetch_add(1);
            last_total = total;
            last_time = now;
        }
    });
    std::thread stepper([&] {
        for (int i = 0; i < 200; ++i) sim.advance(1ms);
    });
    std::vector<std::thread> threads;
    for (int t = 0; t < posters; ++t) {
        threads.emplace_back([&] {
            for (int i = 0; i < per_poster; ++i) {
                sim.call(
                    [](platform& p) { p.counters().increment(counter_ref::of_core(7, 1, counter_kind::success), 1); });
            }
        });
    }
    for (auto& t : threads) t.join();
    stepper.join();
    done = true;
    reader.join();

    BOOST_TEST(core_counter(sim, 7, 1, counter_kind::success).total == std::uint64_t{posters * per_poster});
    BOOST_TEST(sim.published().clock().now_ns() == 200'000'000u);
    BOOST_TEST(backwards.load() == 0u);
}

BOOST_AUTO_TEST_CASE(futures_carry_results_and_typed_errors) {
    simulation sim(stepped("trn1.2xlarge"));
    auto ok = sim.post([](platform& p) { return p.device_count(); });
    auto bad = sim.post([](platform& p) { return p.device(5).index(); });
    BOOST_TEST(ok.get() == 1u);
    BOOST_CHECK_THROW(bad.get(), invalid_argument_error);
}

BOOST_AUTO_TEST_CASE(posting_from_the_kernel_thread_is_refused_not_deadlocked) {
    simulation sim(stepped("trn1.2xlarge"));
    auto refused = std::make_shared<bool>(false);
    sim.call([&sim, refused](platform&) {
        try {
            sim.call([](platform&) {});
        } catch (const simulation_error&) {
            *refused = true;
        }
    });
    BOOST_TEST(*refused);
}

BOOST_AUTO_TEST_CASE(work_after_stop_fails_and_the_published_state_stays_readable) {
    simulation sim(stepped("trn1.2xlarge"));
    sim.call([](platform& p) { p.counters().increment(counter_ref::of_core(0, 0, counter_kind::success), 3); });
    sim.stop();
    sim.stop(); // idempotent
    BOOST_CHECK_THROW(sim.call([](platform&) {}), simulation_error);
    BOOST_CHECK_THROW(sim.advance(1ms), simulation_error);
    BOOST_TEST(core_counter(sim, 0, 0, counter_kind::success).total == 3u);
}

BOOST_AUTO_TEST_CASE(a_bad_config_fails_before_elaboration_and_leaves_the_process_usable) {
    auto config = stepped("trn9.huge");
    BOOST_CHECK_THROW(simulation{config}, unknown_instance_error);
    config = stepped("trn1.2xlarge");
    config.real_time_factor = -2;
    BOOST_CHECK_THROW(simulation{config}, invalid_argument_error);
    simulation sim(stepped("inf2.xlarge"));
    BOOST_TEST(sim.published().instance().name == "inf2.xlarge");
}

BOOST_AUTO_TEST_CASE(a_second_simulation_in_one_process_is_refused) {
    simulation first(stepped("trn1.2xlarge"));
    BOOST_CHECK_EXCEPTION(simulation{stepped("trn1.2xlarge")}, simulation_error, [](const auto& e) {
        return std::string(e.what()).find("one per process") != std::string::npos;
    });
    BOOST_TEST(first.call([](platform& p) { return p.device_count(); }) == 1u);
}

BOOST_AUTO_TEST_CASE(stop_from_two_threads_at_once_returns_in_both) {
    simulation sim(stepped("trn1.2xlarge"));
    std::thread other([&] { sim.stop(); });
    sim.stop();
    other.join();
    BOOST_CHECK_THROW(sim.call([](platform&) {}), simulation_error);
}

BOOST_AUTO_TEST_CASE(work_posted_during_an_advance_runs_when_the_advance_ends) {
    // A listener stops the kernel in the middle of a 10 ms advance (at a
    // reset completing at 4 ms) until this thread has posted its work; in
    // stepped mode that work must run at 10 ms, not at 4 ms.
    std::mutex m;
    std::condition_variable cv;
    bool mid_advance = false, posted = false;

    simulation sim(stepped("trn1.2xlarge", 4ms));
    sim.call([&](platform& p) {
        p.notifications().set_enabled(true);
        p.notifications().subscribe([&](const counter_ref& c, field_mask) {
            if (c.kind != counter_kind::reset_fail_count || c.core != 0) return;
            std::unique_lock lock(m);
            mid_advance = true;
            cv.notify_all();
            cv.wait(lock, [&] { return posted; });
        });
        p.device(0).resets().fail_next_resets(1);
        p.device(0).resets().request_device_reset();
    });
    std::thread stepper([&] { sim.advance(10ms); });
    {
        std::unique_lock lock(m);
        cv.wait(lock, [&] { return mid_advance; });
    }
    auto seen_at = sim.post([&](platform&) {
        return std::pair{sc_core::sc_time_stamp().value() / 1000, sim.published().clock().now_ns()};
    });
    {
        std::lock_guard lock(m);
        posted = true;
    }
    cv.notify_all();
    stepper.join();
    const auto [kernel_ns, published_ns] = seen_at.get();
    BOOST_TEST(kernel_ns == 10'000'000u);
    BOOST_TEST(published_ns == 10'000'000u);
}

// SystemC's maximum time at its 1 ps resolution: 2^64-1 ps.
constexpr std::uint64_t kernel_limit_ns = 18'446'744'073'709'551u;

BOOST_AUTO_TEST_CASE(realtime_simulation_ends_with_an_error_at_the_kernel_limit) {
    // Time standing still at the limit would leave every reset in progress
    // for good; the simulation ends there instead, and says why.
    auto config = stepped("trn1.2xlarge");
    config.mode = time_mode::realtime;
    config.real_time_factor = 1e12; // SystemC's ~213 days pass in well under a second
    simulation sim(config);
    BOOST_TEST(sim.published().clock().limit_ns() == kernel_limit_ns);
    BOOST_TEST(sim.published().clock().sim_at(sim_clock::wall_clock::time_point::max()) == kernel_limit_ns);
    std::string why;
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (why.empty() && std::chrono::steady_clock::now() < give_up) {
        try {
            sim.call([](platform&) {}); // a round trip through the kernel, which keeps catching up
        } catch (const simulation_error& e) {
            why = e.what();
        }
    }
    BOOST_TEST(why.starts_with("the simulation has stopped: simulated time reached its end at 18446744073709551 ns "
                               "(213.5 days, SystemC's maximum time"),
               why);
    BOOST_TEST(sim.published().clock().now_ns() == kernel_limit_ns);
    BOOST_CHECK_EXCEPTION(
        sim.call([](platform& p) { p.device(0).resets().request_device_reset(); }), simulation_error,
        [](const simulation_error& e) { return std::string(e.what()).find("reached its end") != std::string::npos; });
}

BOOST_AUTO_TEST_CASE(stepped_time_refuses_to_pass_the_kernel_limit) {
    simulation sim(stepped("trn1.2xlarge"));
    BOOST_TEST(sim.published().clock().limit_ns() == kernel_limit_ns);
    sim.advance(std::chrono::nanoseconds(kernel_limit_ns - 1000));
    BOOST_CHECK_EXCEPTION(sim.advance(1001ns), invalid_argument_error, [](const invalid_argument_error& e) {
        return std::string(e.what()) == "cannot advance by 1001 ns: simulated time is at 18446744073708551 ns and "
                                        "ends at 18446744073709551 ns (SystemC's maximum time)";
    });
    BOOST_TEST(sim.published().clock().now_ns() == kernel_limit_ns - 1000);
    sim.advance(1000ns);
    BOOST_TEST(sim.published().clock().now_ns() == kernel_limit_ns);
    BOOST_CHECK_THROW(sim.advance(1ns), invalid_argument_error);
    sim.call([](platform& p) { p.counters().increment(counter_ref::of_core(0, 0, counter_kind::success), 1); });
    BOOST_TEST(core_counter(sim, 0, 0, counter_kind::success).total == 1u);
}

BOOST_AUTO_TEST_CASE(stepped_time_moves_only_when_asked) {
    simulation sim(stepped("trn1.2xlarge"));
    BOOST_TEST(sim.published().clock().now_ns() == 0u);
    sim.call([](platform&) {});
    BOOST_TEST(sim.published().clock().now_ns() == 0u);
    sim.advance(1500us);
    BOOST_TEST(sim.published().clock().now_ns() == 1'500'000u);
    BOOST_CHECK_THROW(sim.advance(-1ns), invalid_argument_error);
}

BOOST_AUTO_TEST_CASE(nanoseconds_reaching_an_instant_round_up) {
    BOOST_TEST(ns_reaching(0) == 0u);
    BOOST_TEST(ns_reaching(1) == 1u);
    BOOST_TEST(ns_reaching(667) == 1u);
    BOOST_TEST(ns_reaching(1000) == 1u);
    BOOST_TEST(ns_reaching(1'166'667) == 1167u); // 2800 cycles at 2.4 GHz
    BOOST_TEST(ns_reaching(UINT64_MAX) == UINT64_MAX / 1000 + 1);
}

// Events 667 ps apart: whenever the realtime kernel stops on a whole
// nanosecond, the next one is under 1 ns away. It must still wake for it
// (rounded down, that read as no event, and the kernel slept until the next
// command: an execution on Trn2 never finished). At the slowest rate the
// 667 ns of the chain outlast any stop.
BOOST_AUTO_TEST_CASE(realtime_kernel_wakes_for_events_under_a_nanosecond_away) {
    auto config = stepped("trn2.3xlarge");
    config.mode = time_mode::realtime;
    config.real_time_factor = min_real_time_factor;
    simulation sim(config);
    std::promise<void> fired;
    auto done = fired.get_future();
    sim.call([&](platform&) {
        sc_core::sc_spawn([&] {
            for (int i = 0; i < 1000; ++i) sc_core::wait(sc_core::sc_time::from_value(667));
            fired.set_value();
        });
    });
    BOOST_TEST_REQUIRE((done.wait_for(std::chrono::seconds(10)) == std::future_status::ready));
}

BOOST_AUTO_TEST_CASE(realtime_mode_refuses_advance_and_completes_resets_on_the_wall_clock) {
    // The failed reset's reset_fail_count notification marks its completion.
    // Declared before the simulation: the listener runs until it stops.
    std::mutex m;
    std::condition_variable cv;
    bool completed = false;

    auto config = stepped("trn1.2xlarge", 20ms);
    config.mode = time_mode::realtime;
    config.real_time_factor = 1.0;
    simulation sim(config);
    BOOST_CHECK_THROW(sim.advance(1ms), simulation_error);
    sim.call([&](platform& p) {
        p.notifications().set_enabled(true);
        p.notifications().subscribe([&](const counter_ref& c, field_mask) {
            if (c.kind != counter_kind::reset_fail_count) return;
            std::lock_guard lock(m);
            completed = true;
            cv.notify_all();
        });
        p.device(0).resets().fail_next_resets(1);
    });
    const auto started = sim.published().clock().now_ns();
    sim.call([](platform& p) { p.device(0).resets().request_device_reset(); });
    {
        std::unique_lock lock(m);
        BOOST_TEST_REQUIRE(cv.wait_for(lock, std::chrono::seconds(10), [&] { return completed; }));
    }
    BOOST_TEST(sim.published().reset_state(0) == device_state::invalid);
    BOOST_TEST(sim.published().clock().now_ns() >= started + 20'000'000);
}
