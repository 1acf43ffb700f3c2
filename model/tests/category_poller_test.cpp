#define BOOST_TEST_MODULE category_poller
// Drivers 2.10 to 2.16: memory category counters set from the datastore on
// whole seconds since load; the per-core totals still follow each allocation.
#include "sim_helpers.h"

#include <boost/test/unit_test.hpp>

using namespace neuron::model;
using namespace neuron::model::testing;

namespace {

platform_config polled(std::string instance) {
    auto config = stepped(std::move(instance));
    config.category_poll_period = 1s;
    return config;
}

constexpr std::uint32_t code_device = 8; // mem_type CODE_DEVICE: device_mem/model_code

allocation_id allocate_code(simulation& sim, std::uint64_t bytes) {
    return sim.call([bytes](platform& p) {
        return p.memory().allocate(driver_owner, 0, 1, mem_location::device, code_device, bytes);
    });
}

} // namespace

BOOST_AUTO_TEST_CASE(a_category_follows_its_allocation_at_the_next_whole_second) {
    simulation sim(polled("trn1.2xlarge"));
    sim.advance(300ms);
    allocate_code(sim, 4096);
    // The core's device_mem total moves at once; the category waits for the poll.
    BOOST_TEST(core_counter(sim, 0, 1, counter_kind::device_mem).total == 4096u);
    BOOST_TEST(core_counter(sim, 0, 1, counter_kind::device_model_code).total == 0u);
    sim.advance(699ms);
    BOOST_TEST(core_counter(sim, 0, 1, counter_kind::device_model_code).total == 0u);
    sim.advance(1ms); // t = 1 s
    const auto polled_value = core_counter(sim, 0, 1, counter_kind::device_model_code);
    BOOST_TEST(polled_value.total == 4096u);
    BOOST_TEST(polled_value.present == 4096u); // set: present is the value, not the last allocation
    BOOST_TEST(polled_value.peak == 4096u);
}

BOOST_AUTO_TEST_CASE(changes_within_a_second_show_once_as_their_sum_and_a_free_as_the_rest) {
    simulation sim(polled("trn1.2xlarge"));
    const auto a = allocate_code(sim, 8192);
    allocate_code(sim, 4096);
    sim.advance(1s);
    BOOST_TEST(core_counter(sim, 0, 1, counter_kind::device_model_code).total == 12288u);
    sim.call([a](platform& p) { p.memory().free(a); });
    sim.advance(500ms);
    BOOST_TEST(core_counter(sim, 0, 1, counter_kind::device_model_code).total == 12288u); // not polled yet
    sim.advance(500ms);
    const auto after = core_counter(sim, 0, 1, counter_kind::device_model_code);
    BOOST_TEST(after.total == 4096u);
    BOOST_TEST(after.present == 4096u);
    BOOST_TEST(after.peak == 12288u);
}

BOOST_AUTO_TEST_CASE(without_a_period_categories_follow_each_allocation) {
    simulation sim(stepped("trn1.2xlarge"));
    allocate_code(sim, 4096);
    BOOST_TEST(core_counter(sim, 0, 1, counter_kind::device_model_code).total == 4096u);
}
