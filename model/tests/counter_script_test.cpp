#define BOOST_TEST_MODULE counter_script
// A recorded host's counters on the model's clock: values at 0 before
// anything reads, later ones at their instants, the model's rules between.
#include "sim_helpers.h"

#include "neuron/model/runtime/api.h"
#include "neuron/model/spec/errors.h"

#include <boost/test/unit_test.hpp>

#include <vector>

using namespace neuron::model;
using namespace neuron::model::testing;

namespace neuron::model {
inline std::ostream& operator<<(std::ostream& os, const counter_value& v) {
    return os << "{" << v.total << ", " << v.present << ", " << v.peak << "}";
}
} // namespace neuron::model

namespace {

const counter_ref success = counter_ref::of_core(0, 1, counter_kind::success);
const counter_ref reset_count = counter_ref::of_core(0, 0, counter_kind::reset_count);

scripted_counter_value at(std::uint64_t ns, counter_ref c, counter_field f, std::uint64_t v) { return {ns, c, f, v}; }

std::shared_ptr<const std::vector<scripted_counter_value>> script(std::vector<scripted_counter_value> values) {
    return std::make_shared<const std::vector<scripted_counter_value>>(std::move(values));
}

} // namespace

BOOST_AUTO_TEST_CASE(values_at_zero_are_there_before_anything_reads_and_replace_the_probe) {
    auto config = stepped("trn1.2xlarge");
    config.counter_script = script({at(0, success, counter_field::total, 41), at(0, success, counter_field::peak, 50),
                                    at(0, reset_count, counter_field::total, 7)});
    const simulation sim(config);
    BOOST_TEST(sim.published().counter(success) == (counter_value{41, 0, 50}));
    // The probe counted one reset; the host had seven.
    BOOST_TEST(sim.published().counter(reset_count, counter_field::total) == 7u);
}

BOOST_AUTO_TEST_CASE(later_values_arrive_at_their_instants_and_notify_only_what_moved) {
    auto config = stepped("trn1.2xlarge");
    config.counter_script =
        script({at(2'000'000'000, success, counter_field::total, 12), at(0, success, counter_field::total, 10),
                at(1'000'000'000, success, counter_field::total, 10), // unchanged: no event
                at(1'000'000'000, success, counter_field::present, 3)});
    simulation sim(config);
    api model(sim);
    model.set_notifications(true);
    std::vector<std::pair<counter_ref, field_mask>> heard;
    model.subscribe([&](const counter_ref& c, field_mask f) { heard.emplace_back(c, f); });
    sim.advance(999ms);
    BOOST_TEST(sim.published().counter(success) == (counter_value{10, 0, 0}));
    BOOST_TEST(heard.empty());
    sim.advance(1ms);
    BOOST_TEST(sim.published().counter(success) == (counter_value{10, 3, 0}));
    BOOST_TEST_REQUIRE(heard.size() == 1u);
    BOOST_TEST((heard[0].first == success));
    BOOST_TEST((heard[0].second == field_mask(counter_field::present)));
    sim.advance(1s);
    BOOST_TEST(sim.published().counter(success, counter_field::total) == 12u);
    BOOST_TEST(heard.size() == 2u);
}

BOOST_AUTO_TEST_CASE(a_growth_adds_to_what_the_model_counted_meanwhile) {
    auto config = stepped("trn1.2xlarge");
    config.counter_script =
        script({at(0, success, counter_field::total, 10),
                {1'000'000'000, success, counter_field::total, 2, script_action::add},
                {2'000'000'000, success, counter_field::total, UINT64_MAX, script_action::add}}); // -1
    simulation sim(config);
    sim.call([](platform& p) { p.counters().increment(success, 5); });
    sim.advance(1s);
    BOOST_TEST(sim.published().counter(success, counter_field::total) == 17u);
    sim.advance(1s);
    BOOST_TEST(sim.published().counter(success, counter_field::total) == 16u);
}

BOOST_AUTO_TEST_CASE(the_models_rules_apply_on_top_of_the_recorded_values) {
    auto config = stepped("trn1.2xlarge");
    config.counter_script =
        script({at(0, success, counter_field::total, 100), at(0, success, counter_field::peak, 100)});
    simulation sim(config);
    sim.call([](platform& p) { p.counters().increment(success, 5); });
    BOOST_TEST(sim.published().counter(success) == (counter_value{105, 5, 105}));
    api(sim).clear_counter(success, counter_field::total);
    BOOST_TEST(sim.published().counter(success, counter_field::total) == 0u);
}

BOOST_AUTO_TEST_CASE(a_counter_the_instance_does_not_have_is_refused) {
    auto config = stepped("trn1.2xlarge");
    config.counter_script = script({at(0, counter_ref::of_core(1, 0, counter_kind::success), counter_field::total, 1)});
    BOOST_CHECK_THROW(validate(config), invalid_argument_error);
    config.counter_script = script({at(0, counter_ref::of_core(0, 2, counter_kind::success), counter_field::total, 1)});
    BOOST_CHECK_THROW(validate(config), invalid_argument_error);
}
