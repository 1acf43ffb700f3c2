#define BOOST_TEST_MODULE notifier
#include "bare_model.h"

#include <boost/test/unit_test.hpp>

using namespace neuron::model;
using neuron::model::testing::bare_model;
using neuron::model::testing::notification_log;

namespace {
const auto counter = counter_ref::of_core(2, 1, counter_kind::device_tensors);
const field_mask total_present = field_mask(counter_field::total) | counter_field::present;
const field_mask all_three = total_present | counter_field::peak;
} // namespace

BOOST_AUTO_TEST_CASE(notifications_are_off_at_start) {
    bare_model m;
    notification_log log(m.notes);
    BOOST_TEST(!m.notes.enabled());
    BOOST_TEST(!m.state.notifications_enabled());
    m.counters.increment(counter, 4096);
    m.counters.decrement(counter, 4096);
    m.counters.clear(counter, counter_field::total);
    BOOST_TEST(log.entries.empty());
}

BOOST_AUTO_TEST_CASE(increment_notifies_total_present_and_peak_only_when_peak_rises) {
    bare_model m;
    notification_log log(m.notes);
    m.notes.set_enabled(true);
    m.counters.increment(counter, 100); // peak 0 -> 100
    m.counters.decrement(counter, 60);  // total 40
    m.counters.increment(counter, 50);  // total 90, peak stays 100
    m.counters.increment(counter, 20);  // total 110, peak rises
    BOOST_TEST_REQUIRE(log.entries.size() == 4u);
    BOOST_TEST((log.entries[0].fields == all_three));
    BOOST_TEST((log.entries[1].fields == total_present));
    BOOST_TEST((log.entries[2].fields == total_present));
    BOOST_TEST((log.entries[3].fields == all_three));
    for (const auto& e : log.entries) BOOST_TEST((e.counter == counter));
}

BOOST_AUTO_TEST_CASE(present_is_notified_even_when_its_value_is_unchanged) {
    bare_model m;
    notification_log log(m.notes);
    m.notes.set_enabled(true);
    m.counters.increment(counter, 5);
    m.counters.decrement(counter, 5);
    m.counters.increment(counter, 5); // present stays 5, total back to 5, peak stays 5
    BOOST_TEST_REQUIRE(log.entries.size() == 3u);
    BOOST_TEST((log.entries[2].fields == total_present));
}

BOOST_AUTO_TEST_CASE(delta_zero_notifies_nothing) {
    bare_model m;
    notification_log log(m.notes);
    m.notes.set_enabled(true);
    m.counters.increment(counter, 0);
    m.counters.decrement(counter, 0);
    BOOST_TEST(log.entries.empty());
}

BOOST_AUTO_TEST_CASE(a_clear_notifies_the_cleared_field_even_if_already_zero) {
    bare_model m;
    notification_log log(m.notes);
    m.notes.set_enabled(true);
    m.counters.clear(counter, counter_field::peak);
    m.counters.clear(counter, counter_field::present);
    BOOST_TEST_REQUIRE(log.entries.size() == 2u);
    BOOST_TEST((log.entries[0].fields == field_mask(counter_field::peak)));
    BOOST_TEST((log.entries[1].fields == field_mask(counter_field::present)));
}

BOOST_AUTO_TEST_CASE(turning_notifications_off_stops_them_for_every_device) {
    bare_model m;
    notification_log log(m.notes);
    m.notes.set_enabled(true);
    m.counters.increment(counter_ref::of_core(0, 0, counter_kind::success), 1);
    m.counters.increment(counter_ref::of_core(15, 1, counter_kind::success), 1);
    m.notes.set_enabled(false);
    m.counters.increment(counter_ref::of_core(0, 0, counter_kind::success), 1);
    m.counters.increment(counter_ref::of_core(15, 1, counter_kind::success), 1);
    BOOST_TEST(log.entries.size() == 2u);
    BOOST_TEST(!m.state.notifications_enabled());
}

BOOST_AUTO_TEST_CASE(every_listener_hears_each_change_until_it_unsubscribes) {
    bare_model m;
    int first = 0, second = 0;
    const auto id = m.notes.subscribe([&](const counter_ref&, field_mask) { ++first; });
    m.notes.subscribe([&](const counter_ref&, field_mask) { ++second; });
    m.notes.set_enabled(true);
    m.counters.increment(counter, 1);
    m.notes.unsubscribe(id);
    m.counters.increment(counter, 1);
    BOOST_TEST(first == 1);
    BOOST_TEST(second == 2);
}

BOOST_AUTO_TEST_CASE(listeners_may_subscribe_and_unsubscribe_while_being_notified) {
    bare_model m;
    int once = 0, late = 0, steady = 0;
    notifier::listener_id once_id = 0;
    once_id = m.notes.subscribe([&](const counter_ref&, field_mask) {
        ++once;
        m.notes.unsubscribe(once_id);
        m.notes.subscribe([&](const counter_ref&, field_mask) { ++late; });
    });
    m.notes.subscribe([&](const counter_ref&, field_mask) { ++steady; });
    m.notes.set_enabled(true);
    m.counters.increment(counter, 1); // once runs, removes itself, adds late
    m.counters.increment(counter, 1); // late hears this one only
    BOOST_TEST(once == 1);
    BOOST_TEST(late == 1);
    BOOST_TEST(steady == 2);
}

BOOST_AUTO_TEST_CASE(a_throwing_listener_does_not_interrupt_the_update) {
    bare_model m;
    int after = 0;
    m.notes.subscribe([](const counter_ref&, field_mask) { throw std::runtime_error("listener bug"); });
    m.notes.subscribe([&](const counter_ref&, field_mask) { ++after; });
    m.notes.set_enabled(true);
    const auto owner = m.owners.open("app");
    m.owners.allocate(owner, 0, 1, mem_location::device, static_cast<std::uint32_t>(mem_type::code_device), 100);
    BOOST_TEST(after == 2);
    BOOST_TEST(m.core_counter(0, 1, counter_kind::device_model_code).total == 4096u);
}

BOOST_AUTO_TEST_CASE(a_memory_allocation_notifies_its_four_counters) {
    bare_model m;
    notification_log log(m.notes);
    m.notes.set_enabled(true);
    const auto owner = m.owners.open("app");
    m.owners.allocate(owner, 0, 1, mem_location::device, static_cast<std::uint32_t>(mem_type::code_device), 100);
    m.owners.allocate(owner, 0, 1, mem_location::host, static_cast<std::uint32_t>(mem_type::tensors_host), 100);
    BOOST_TEST_REQUIRE(log.entries.size() == 4u);
    BOOST_TEST((log.entries[0].counter == counter_ref::of_core(0, 1, counter_kind::device_mem)));
    BOOST_TEST((log.entries[1].counter == counter_ref::of_core(0, 1, counter_kind::device_model_code)));
    BOOST_TEST((log.entries[2].counter == counter_ref::of_core(0, 1, counter_kind::host_mem)));
    BOOST_TEST((log.entries[3].counter == counter_ref::of_device(0, counter_kind::host_tensors)));
    for (const auto& e : log.entries) BOOST_TEST((e.fields == all_three));
}
