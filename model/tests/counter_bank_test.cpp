#define BOOST_TEST_MODULE counter_bank
#include "bare_model.h"
#include "neuron/model/spec/errors.h"

#include <boost/test/unit_test.hpp>

#include <limits>

using namespace neuron::model;
using neuron::model::testing::bare_model;

namespace {
const auto core0_loads = counter_ref::of_core(0, 0, counter_kind::model_load_count);
constexpr auto u64_max = std::numeric_limits<std::uint64_t>::max();
} // namespace

BOOST_AUTO_TEST_CASE(counters_start_at_zero) {
    bare_model m;
    BOOST_TEST((m.counters.value(core0_loads) == counter_value{0, 0, 0}));
}

BOOST_AUTO_TEST_CASE(increment_adds_to_total_sets_present_and_raises_peak) {
    bare_model m;
    m.counters.increment(core0_loads, 5);
    BOOST_TEST((m.counters.value(core0_loads) == counter_value{5, 5, 5}));
    m.counters.increment(core0_loads, 3);
    BOOST_TEST((m.counters.value(core0_loads) == counter_value{8, 3, 8}));
}

BOOST_AUTO_TEST_CASE(decrement_subtracts_sets_present_and_keeps_peak) {
    bare_model m;
    m.counters.increment(core0_loads, 10);
    m.counters.decrement(core0_loads, 4);
    BOOST_TEST((m.counters.value(core0_loads) == counter_value{6, 4, 10}));
    m.counters.increment(core0_loads, 1);
    BOOST_TEST((m.counters.value(core0_loads) == counter_value{7, 1, 10}));
}

BOOST_AUTO_TEST_CASE(delta_zero_changes_nothing) {
    bare_model m;
    m.counters.increment(core0_loads, 9);
    m.counters.decrement(core0_loads, 2);
    m.counters.increment(core0_loads, 0);
    m.counters.decrement(core0_loads, 0);
    BOOST_TEST((m.counters.value(core0_loads) == counter_value{7, 2, 9}));
}

BOOST_AUTO_TEST_CASE(decrement_below_zero_wraps_the_u64) {
    bare_model m;
    m.counters.increment(core0_loads, 4096);
    m.counters.clear(core0_loads, counter_field::total);
    m.counters.decrement(core0_loads, 4096);
    BOOST_TEST((m.counters.value(core0_loads) == counter_value{u64_max - 4095, 4096, 4096}));
    // Incrementing a wrapped total wraps it back through zero; 0 is below peak.
    m.counters.increment(core0_loads, 4096);
    BOOST_TEST((m.counters.value(core0_loads) == counter_value{0, 4096, 4096}));
}

BOOST_AUTO_TEST_CASE(peak_jumps_to_a_wrapped_total_on_the_next_increment) {
    bare_model m;
    m.counters.increment(core0_loads, 4096);
    m.counters.clear(core0_loads, counter_field::total);
    m.counters.decrement(core0_loads, 4096);
    BOOST_TEST(m.counters.value(core0_loads).peak == 4096u); // a decrement never moves peak
    m.counters.increment(core0_loads, 1);
    BOOST_TEST((m.counters.value(core0_loads) == counter_value{u64_max - 4094, 1, u64_max - 4094}));
}

BOOST_AUTO_TEST_CASE(increment_past_u64_max_wraps_and_leaves_peak) {
    bare_model m;
    m.counters.increment(core0_loads, u64_max);
    m.counters.increment(core0_loads, 2);
    BOOST_TEST((m.counters.value(core0_loads) == counter_value{1, 2, u64_max}));
}

BOOST_AUTO_TEST_CASE(clearing_a_field_zeroes_only_that_field) {
    for (auto field : {counter_field::total, counter_field::present, counter_field::peak}) {
        BOOST_TEST_CONTEXT(field_name(field)) {
            bare_model m;
            m.counters.increment(core0_loads, 7);
            m.counters.increment(core0_loads, 2);
            m.counters.clear(core0_loads, field);
            const auto v = m.counters.value(core0_loads);
            BOOST_TEST(v.total == (field == counter_field::total ? 0u : 9u));
            BOOST_TEST(v.present == (field == counter_field::present ? 0u : 2u));
            BOOST_TEST(v.peak == (field == counter_field::peak ? 0u : 9u));
        }
    }
}

BOOST_AUTO_TEST_CASE(peak_rises_again_after_a_peak_clear) {
    bare_model m;
    m.counters.increment(core0_loads, 10);
    m.counters.clear(core0_loads, counter_field::peak);
    m.counters.decrement(core0_loads, 3);
    BOOST_TEST(m.counters.value(core0_loads).peak == 0u);
    m.counters.increment(core0_loads, 1);
    BOOST_TEST((m.counters.value(core0_loads) == counter_value{8, 1, 8}));
}

BOOST_AUTO_TEST_CASE(device_and_core_slots_are_independent) {
    bare_model m;
    const auto device_level = counter_ref::of_device(0, counter_kind::model_load_count);
    const auto core1 = counter_ref::of_core(0, 1, counter_kind::model_load_count);
    const auto other_device = counter_ref::of_core(1, 0, counter_kind::model_load_count);
    m.counters.increment(core0_loads, 1);
    m.counters.increment(device_level, 2);
    m.counters.increment(core1, 3);
    m.counters.increment(other_device, 4);
    BOOST_TEST(m.counters.value(core0_loads).total == 1u);
    BOOST_TEST(m.counters.value(device_level).total == 2u);
    BOOST_TEST(m.counters.value(core1).total == 3u);
    BOOST_TEST(m.counters.value(other_device).total == 4u);
}

BOOST_AUTO_TEST_CASE(out_of_range_references_are_refused_with_the_value) {
    bare_model m; // trn1.32xlarge: 16 devices, 2 cores
    auto message_has = [](std::string text) {
        return
            [text](const invalid_argument_error& e) { return std::string(e.what()).find(text) != std::string::npos; };
    };
    BOOST_CHECK_EXCEPTION(m.counters.increment(counter_ref::of_core(16, 0, counter_kind::success), 1),
                          invalid_argument_error, message_has("device 16"));
    BOOST_CHECK_EXCEPTION(m.counters.increment(counter_ref::of_core(0, 2, counter_kind::success), 1),
                          invalid_argument_error, message_has("core 2"));
    BOOST_CHECK_EXCEPTION(m.counters.clear(counter_ref{0, -2, counter_kind::success}, counter_field::total),
                          invalid_argument_error, message_has("core -2"));
    BOOST_CHECK_THROW(m.counters.increment(counter_ref::of_core(16, 0, counter_kind::success), 0),
                      invalid_argument_error);
}
