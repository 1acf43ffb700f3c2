#define BOOST_TEST_MODULE reset_controller
#include "neuron/model/spec/errors.h"
#include "sim_helpers.h"

#include <boost/test/unit_test.hpp>

using namespace neuron::model;
using namespace neuron::model::testing;

namespace {

reset_outcome reset_device(simulation& sim, std::uint32_t device) {
    return sim.call([device](platform& p) { return p.device(device).resets().request_device_reset(); });
}

} // namespace

BOOST_AUTO_TEST_CASE(a_fresh_model_shows_the_probe_reset_on_every_core) {
    simulation sim(stepped("trn2.48xlarge"));
    for (std::uint32_t d = 0; d < 16; ++d) {
        BOOST_TEST(sim.published().reset_state(d) == device_state::ready);
        for (std::uint32_t c = 0; c < 8; ++c) {
            BOOST_TEST((core_counter(sim, d, c, counter_kind::reset_req_count) == counter_value{1, 1, 1}));
            BOOST_TEST(core_counter(sim, d, c, counter_kind::reset_fail_count).total == 0u);
        }
    }
}

BOOST_AUTO_TEST_CASE(state_is_0_for_the_reset_duration_then_1) {
    simulation sim(stepped("trn1.32xlarge", 500ms));
    BOOST_TEST(reset_device(sim, 3) == reset_outcome::queued);
    BOOST_TEST(sim.published().reset_state(3) == device_state::resetting);
    BOOST_TEST(sim.published().reset_state(2) == device_state::ready);
    sim.advance(500ms - 1ns);
    BOOST_TEST(sim.published().reset_state(3) == device_state::resetting);
    sim.advance(1ns);
    BOOST_TEST(sim.published().reset_state(3) == device_state::ready);
    BOOST_TEST(sim.published().clock().now_ns() == 500'000'000u);
}

BOOST_AUTO_TEST_CASE(a_request_counts_reset_req_count_on_every_core_of_the_device_only) {
    simulation sim(stepped("trn1.32xlarge"));
    reset_device(sim, 3);
    for (std::uint32_t c = 0; c < 2; ++c) {
        BOOST_TEST((core_counter(sim, 3, c, counter_kind::reset_req_count) == counter_value{2, 1, 2}));
        BOOST_TEST(core_counter(sim, 2, c, counter_kind::reset_req_count).total == 1u);
    }
}

BOOST_AUTO_TEST_CASE(an_injected_failure_gives_state_2_and_reset_fail_count_on_every_core) {
    simulation sim(stepped("trn2.3xlarge", 100ms));
    sim.call([](platform& p) { p.device(0).resets().fail_next_resets(1); });
    reset_device(sim, 0);
    sim.advance(100ms);
    BOOST_TEST(sim.published().reset_state(0) == device_state::invalid);
    for (std::uint32_t c = 0; c < 8; ++c) {
        BOOST_TEST((core_counter(sim, 0, c, counter_kind::reset_fail_count) == counter_value{1, 1, 1}));
    }
    // The next reset succeeds again; the failure count stays.
    BOOST_TEST(reset_device(sim, 0) == reset_outcome::queued);
    BOOST_TEST(sim.published().reset_state(0) == device_state::resetting);
    sim.advance(100ms);
    BOOST_TEST(sim.published().reset_state(0) == device_state::ready);
    BOOST_TEST(core_counter(sim, 0, 5, counter_kind::reset_fail_count).total == 1u);
    BOOST_TEST(core_counter(sim, 0, 5, counter_kind::reset_req_count).total == 3u);
}

BOOST_AUTO_TEST_CASE(failures_are_consumed_one_reset_at_a_time) {
    simulation sim(stepped("trn1.2xlarge", 10ms));
    sim.call([](platform& p) { p.device(0).resets().fail_next_resets(2); });
    for (int i = 0; i < 3; ++i) {
        reset_device(sim, 0);
        sim.advance(10ms);
    }
    BOOST_TEST(sim.published().reset_state(0) == device_state::ready);
    BOOST_TEST(core_counter(sim, 0, 1, counter_kind::reset_fail_count).total == 2u);
}

BOOST_AUTO_TEST_CASE(an_open_device_refuses_the_sysfs_reset) {
    simulation sim(stepped("trn1.2xlarge"));
    const auto owner = sim.call([](platform& p) {
        const auto id = p.owners().open("app");
        p.owners().acquire_cores(id, 0, 0b1);
        return id;
    });
    BOOST_TEST(reset_device(sim, 0) == reset_outcome::refused_device_open);
    BOOST_TEST(sim.published().reset_state(0) == device_state::ready);
    BOOST_TEST(core_counter(sim, 0, 0, counter_kind::reset_req_count).total == 1u);
    sim.call([owner](platform& p) { p.owners().release(owner); });
    BOOST_TEST(reset_device(sim, 0) == reset_outcome::queued);
}

BOOST_AUTO_TEST_CASE(a_second_request_while_pending_is_skipped_uncounted) {
    simulation sim(stepped("trn1.2xlarge", 1s));
    reset_device(sim, 0);
    sim.advance(300ms);
    BOOST_TEST(reset_device(sim, 0) == reset_outcome::already_pending);
    BOOST_TEST(core_counter(sim, 0, 0, counter_kind::reset_req_count).total == 2u);
    sim.advance(700ms);
    BOOST_TEST(sim.published().reset_state(0) == device_state::ready);
}

BOOST_AUTO_TEST_CASE(a_core_reset_counts_only_its_cores_and_keeps_the_device_ready) {
    simulation sim(stepped("trn2.3xlarge", 50ms));
    const auto id = sim.call([](platform& p) { return p.device(0).resets().request_core_reset(0b1010); });
    BOOST_TEST(sim.published().reset_state(0) == device_state::ready);
    for (std::uint32_t c = 0; c < 8; ++c) {
        const std::uint64_t expected = (c == 1 || c == 3) ? 2 : 1;
        BOOST_TEST(core_counter(sim, 0, c, counter_kind::reset_req_count).total == expected);
    }
    auto result = [&] { return sim.call([id](platform& p) { return p.device(0).resets().result(id); }); };
    BOOST_TEST(result() == reset_result::pending);
    sim.advance(50ms);
    BOOST_TEST(result() == reset_result::succeeded);
}

BOOST_AUTO_TEST_CASE(a_failed_core_reset_counts_on_every_core_and_leaves_the_state) {
    simulation sim(stepped("trn2.3xlarge", 50ms));
    const auto id = sim.call([](platform& p) {
        p.device(0).resets().fail_next_resets(1);
        return p.device(0).resets().request_core_reset(0b1);
    });
    sim.advance(50ms);
    BOOST_TEST(sim.call([id](platform& p) { return p.device(0).resets().result(id); }) == reset_result::failed);
    BOOST_TEST(sim.published().reset_state(0) == device_state::ready);
    for (std::uint32_t c = 0; c < 8; ++c)
        BOOST_TEST(core_counter(sim, 0, c, counter_kind::reset_fail_count).total == 1u);
}

BOOST_AUTO_TEST_CASE(a_good_core_reset_does_not_repair_an_invalid_device) {
    simulation sim(stepped("trn1.2xlarge", 10ms));
    sim.call([](platform& p) { p.device(0).resets().fail_next_resets(1); });
    reset_device(sim, 0);
    sim.advance(10ms);
    sim.call([](platform& p) { return p.device(0).resets().request_core_reset(0b11); });
    sim.advance(10ms);
    BOOST_TEST(sim.published().reset_state(0) == device_state::invalid);
}

BOOST_AUTO_TEST_CASE(requests_are_served_one_after_another) {
    simulation sim(stepped("trn1.2xlarge", 100ms));
    const auto first = sim.call([](platform& p) { return p.device(0).resets().request_core_reset(0b01); });
    reset_device(sim, 0);
    sim.advance(100ms);
    auto result = [&](reset_request_id id) {
        return sim.call([id](platform& p) { return p.device(0).resets().result(id); });
    };
    BOOST_TEST(result(first) == reset_result::succeeded);
    // The device reset queued behind it still holds the device in RESET.
    BOOST_TEST(sim.published().reset_state(0) == device_state::resetting);
    sim.advance(100ms);
    BOOST_TEST(sim.published().reset_state(0) == device_state::ready);
}

BOOST_AUTO_TEST_CASE(a_device_remembers_the_outcomes_of_its_last_requests_only) {
    // Every runtime session resets its cores: outcomes kept for ever grew
    // the emulator by some 80 bytes a session.
    simulation sim(stepped("trn1.2xlarge", 1ms));
    constexpr std::size_t requests = 1000;
    std::vector<reset_request_id> ids;
    for (std::size_t i = 0; i < requests; ++i) {
        ids.push_back(sim.call([](platform& p) { return p.device(0).resets().request_core_reset(0b01); }));
        sim.advance(1ms);
    }
    const auto last = ids.back();
    const auto remembered = sim.call([](platform& p) { return p.device(0).resets().results_remembered(); });
    BOOST_TEST(remembered == reset_controller::remembered_results);
    BOOST_TEST(sim.call([last](platform& p) { return p.device(0).resets().result(last); }) == reset_result::succeeded);
    BOOST_CHECK_EXCEPTION(sim.call([&ids](platform& p) { return p.device(0).resets().result(ids.front()); }),
                          invalid_argument_error, [](const auto& e) {
                              return std::string(e.what()) ==
                                     "no reset request 1 (device 0 remembers the outcome of its last 64)";
                          });
    // Queued requests are never forgotten, however many.
    const auto queued = sim.call([](platform& p) {
        std::vector<reset_request_id> q;
        for (int i = 0; i < 100; ++i) q.push_back(p.device(0).resets().request_core_reset(0b01));
        return q;
    });
    BOOST_TEST(sim.call([&queued](platform& p) { return p.device(0).resets().result(queued.front()); }) ==
               reset_result::pending);
}

BOOST_AUTO_TEST_CASE(a_reset_clears_no_counter) {
    simulation sim(stepped("trn1.2xlarge", 10ms));
    sim.call([](platform& p) {
        const auto app = p.owners().open("app");
        p.owners().record(app, 0, 0, counter_kind::success, 4);
        p.owners().release(app);
        p.memory().allocate(driver_owner, 0, 1, mem_location::device, 8, 4096);
    });
    reset_device(sim, 0);
    sim.advance(10ms);
    BOOST_TEST(core_counter(sim, 0, 0, counter_kind::success).total == 4u);
    BOOST_TEST(core_counter(sim, 0, 1, counter_kind::device_model_code).total == 4096u);
}

BOOST_AUTO_TEST_CASE(bad_reset_arguments_are_refused) {
    simulation sim(stepped("trn1.2xlarge"));
    BOOST_CHECK_THROW(sim.call([](platform& p) { return p.device(0).resets().request_core_reset(0b100); }),
                      invalid_argument_error);
    BOOST_CHECK_THROW(sim.call([](platform& p) { return p.device(0).resets().request_core_reset(0); }),
                      invalid_argument_error);
    BOOST_CHECK_THROW(reset_device(sim, 1), invalid_argument_error);
    BOOST_CHECK_THROW(sim.call([](platform& p) { return p.device(0).resets().result(42); }), invalid_argument_error);
    BOOST_CHECK_EXCEPTION(
        sim.call([](platform& p) { p.device(0).resets().fail_next_resets(-1); }), invalid_argument_error,
        [](const auto& e) { return std::string(e.what()) == "reset failure count -1 invalid: must be 0..4294967295"; });
    BOOST_TEST(sim.call([](platform& p) { return p.device(0).resets().failures_armed(); }) == 0u);
    BOOST_TEST(core_counter(sim, 0, 0, counter_kind::reset_req_count).total == 1u);
}

namespace {

using change = std::pair<counter_ref, field_mask>;

std::shared_ptr<std::vector<change>> record_changes(simulation& sim, bool enabled) {
    auto changes = std::make_shared<std::vector<change>>();
    sim.call([changes, enabled](platform& p) {
        p.notifications().set_enabled(enabled);
        p.notifications().subscribe([changes](const counter_ref& c, field_mask f) { changes->push_back({c, f}); });
        p.device(0).resets().fail_next_resets(1);
    });
    return changes;
}

} // namespace

BOOST_AUTO_TEST_CASE(reset_counters_notify_when_notifications_are_on) {
    simulation sim(stepped("trn1.2xlarge", 10ms));
    const auto changes = record_changes(sim, true);
    reset_device(sim, 0);
    sim.advance(10ms);
    const auto seen = sim.call([changes](platform&) { return *changes; });
    const field_mask all = field_mask(counter_field::total) | counter_field::present | counter_field::peak;
    BOOST_TEST_REQUIRE(seen.size() == 6u);
    BOOST_TEST((seen[0].first == counter_ref::of_core(0, 0, counter_kind::reset_req_count)));
    BOOST_TEST((seen[1].first == counter_ref::of_core(0, 0, counter_kind::reset_count)));
    BOOST_TEST((seen[2].first == counter_ref::of_core(0, 1, counter_kind::reset_req_count)));
    BOOST_TEST((seen[3].first == counter_ref::of_core(0, 1, counter_kind::reset_count)));
    BOOST_TEST((seen[4].first == counter_ref::of_core(0, 0, counter_kind::reset_fail_count)));
    BOOST_TEST((seen[5].first == counter_ref::of_core(0, 1, counter_kind::reset_fail_count)));
    for (const auto& [counter, fields] : seen) BOOST_TEST((fields == all)); // each one raised its peak
}

BOOST_AUTO_TEST_CASE(resets_are_silent_when_notifications_are_off) {
    simulation sim(stepped("trn1.2xlarge", 10ms));
    const auto changes = record_changes(sim, false);
    reset_device(sim, 0);
    sim.advance(10ms);
    BOOST_TEST(sim.call([changes](platform&) { return changes->size(); }) == 0u);
    BOOST_TEST(core_counter(sim, 0, 1, counter_kind::reset_fail_count).total == 1u);
}
