#define BOOST_TEST_MODULE owner_registry
#include "bare_model.h"
#include "neuron/model/spec/errors.h"

#include <boost/test/unit_test.hpp>

using namespace neuron::model;
using neuron::model::testing::bare_model;

namespace {
std::uint32_t raw(mem_type t) { return static_cast<std::uint32_t>(t); }
} // namespace

BOOST_AUTO_TEST_CASE(status_is_aggregated_only_when_the_owner_is_released) {
    bare_model m;
    const auto app = m.owners.open("app");
    m.owners.record(app, 1, 0, counter_kind::success, 10);
    m.owners.record(app, 1, 0, counter_kind::hw_hbm_ue_error, 1);
    m.owners.record(app, 1, 0, counter_kind::inference_count, 11);
    BOOST_TEST(m.core_counter(1, 0, counter_kind::success).total == 0u);
    BOOST_TEST(m.core_counter(1, 0, counter_kind::inference_count).total == 0u);
    m.owners.release(app);
    BOOST_TEST((m.core_counter(1, 0, counter_kind::success) == counter_value{10, 10, 10}));
    BOOST_TEST((m.core_counter(1, 0, counter_kind::hw_hbm_ue_error) == counter_value{1, 1, 1}));
    BOOST_TEST((m.core_counter(1, 0, counter_kind::inference_count) == counter_value{11, 11, 11}));
}

BOOST_AUTO_TEST_CASE(total_sums_owners_and_present_is_the_last_contribution) {
    bare_model m;
    const auto first = m.owners.open("first");
    const auto second = m.owners.open("second");
    m.owners.record(first, 0, 1, counter_kind::success, 7);
    m.owners.record(first, 0, 1, counter_kind::timeout, 2);
    m.owners.record(second, 0, 1, counter_kind::success, 3);
    m.owners.release(first);
    m.owners.release(second);
    BOOST_TEST((m.core_counter(0, 1, counter_kind::success) == counter_value{10, 3, 10}));
    // second contributed no timeouts: present keeps first's contribution.
    BOOST_TEST((m.core_counter(0, 1, counter_kind::timeout) == counter_value{2, 2, 2}));
}

BOOST_AUTO_TEST_CASE(flop_count_is_twice_the_macs_and_time_in_use_adds_up) {
    bare_model m;
    const auto app = m.owners.open("app");
    m.owners.record_macs(app, 0, 0, 1000);
    m.owners.record_macs(app, 0, 0, 500);
    m.owners.record(app, 0, 0, counter_kind::nc_time_in_use, 250);
    m.owners.record(app, 0, 0, counter_kind::model_load_count, 1);
    m.owners.release(app);
    BOOST_TEST(m.core_counter(0, 0, counter_kind::flop_count).total == 3000u);
    BOOST_TEST(m.core_counter(0, 0, counter_kind::nc_time_in_use).total == 250u);
    BOOST_TEST(m.core_counter(0, 0, counter_kind::model_load_count).total == 1u);
}

BOOST_AUTO_TEST_CASE(only_runtime_accumulated_counters_can_be_recorded) {
    bare_model m;
    const auto app = m.owners.open("app");
    BOOST_CHECK_EXCEPTION(m.owners.record(app, 0, 0, counter_kind::flop_count, 1), invalid_argument_error,
                          [](const auto& e) { return std::string(e.what()).find("MACs") != std::string::npos; });
    BOOST_CHECK_THROW(m.owners.record(app, 0, 0, counter_kind::reset_req_count, 1), invalid_argument_error);
    BOOST_CHECK_THROW(m.owners.record(app, 0, 0, counter_kind::device_mem, 1), invalid_argument_error);
    BOOST_CHECK_THROW(m.owners.record(app, 0, 2, counter_kind::success, 1), invalid_argument_error);
    BOOST_CHECK_THROW(m.owners.record(99, 0, 0, counter_kind::success, 1), invalid_argument_error);
}

BOOST_AUTO_TEST_CASE(cores_are_owned_exclusively) {
    bare_model m;
    const auto first = m.owners.open("pid 100 train.py");
    const auto second = m.owners.open("pid 200 serve.py");
    m.owners.acquire_cores(first, 4, 0b01);
    m.owners.acquire_cores(second, 4, 0b10);
    BOOST_CHECK_EXCEPTION(m.owners.acquire_cores(second, 4, 0b11), resource_busy_error, [](const auto& e) {
        return std::string(e.what()).find("pid 100 train.py") != std::string::npos;
    });
    BOOST_TEST((m.owners.core_owner(4, 0) == first));
    BOOST_TEST((m.owners.core_owner(4, 1) == second));
    m.owners.acquire_cores(first, 4, 0b01); // re-acquiring your own core is fine
    m.owners.release(first);
    BOOST_TEST(!m.owners.core_owner(4, 0).has_value());
    m.owners.acquire_cores(second, 4, 0b01);
    BOOST_TEST((m.owners.core_owner(4, 0) == second));
}

BOOST_AUTO_TEST_CASE(a_refused_acquire_takes_no_core) {
    bare_model m;
    const auto first = m.owners.open("a");
    const auto second = m.owners.open("b");
    m.owners.acquire_cores(first, 0, 0b10);
    BOOST_CHECK_THROW(m.owners.acquire_cores(second, 0, 0b11), resource_busy_error);
    BOOST_TEST(!m.owners.core_owner(0, 0).has_value());
}

BOOST_AUTO_TEST_CASE(bad_core_masks_are_refused) {
    bare_model m;
    const auto app = m.owners.open("app");
    BOOST_CHECK_THROW(m.owners.acquire_cores(app, 0, 0), invalid_argument_error);
    BOOST_CHECK_THROW(m.owners.acquire_cores(app, 0, 0b100), invalid_argument_error);
    BOOST_CHECK_THROW(m.owners.acquire_cores(app, 16, 0b1), invalid_argument_error);
}

BOOST_AUTO_TEST_CASE(a_device_is_open_while_a_session_uses_it) {
    bare_model m;
    const auto app = m.owners.open("app");
    BOOST_TEST(!m.owners.device_open(3));
    m.owners.attach(app, 3);
    BOOST_TEST(m.owners.device_open(3));
    BOOST_TEST(!m.owners.device_open(2));
    m.owners.allocate(app, 2, 0, mem_location::host, raw(mem_type::misc_host), 1);
    BOOST_TEST(m.owners.device_open(2));
    m.owners.release(app);
    BOOST_TEST(!m.owners.device_open(3));
    BOOST_TEST(!m.owners.device_open(2));
}

BOOST_AUTO_TEST_CASE(release_frees_everything_the_owner_still_held) {
    bare_model m;
    const auto app = m.owners.open("crashed");
    const auto other = m.owners.open("other");
    m.owners.allocate(app, 0, 0, mem_location::device, raw(mem_type::code_device), 4096);
    m.owners.allocate(app, 0, 0, mem_location::host, raw(mem_type::tensors_host), 8192);
    m.owners.allocate(other, 0, 0, mem_location::device, raw(mem_type::code_device), 4096);
    m.owners.release(app);
    BOOST_TEST((m.core_counter(0, 0, counter_kind::device_model_code) == counter_value{4096, 4096, 8192}));
    BOOST_TEST((m.core_counter(0, 0, counter_kind::host_mem) == counter_value{0, 8192, 8192}));
    BOOST_TEST(!m.owners.exists(app));
    BOOST_CHECK_THROW(m.owners.release(app), invalid_argument_error);
}

BOOST_AUTO_TEST_CASE(an_owner_frees_only_its_own_allocations) {
    bare_model m;
    const auto a = m.owners.open("a");
    const auto b = m.owners.open("b");
    const auto id = m.owners.allocate(a, 0, 0, mem_location::device, raw(mem_type::code_device), 1);
    BOOST_CHECK_THROW(m.owners.free(b, id), invalid_argument_error);
    BOOST_TEST(m.core_counter(0, 0, counter_kind::device_mem).total == 4096u);
    m.owners.free(a, id);
    BOOST_TEST(m.core_counter(0, 0, counter_kind::device_mem).total == 0u);
}

BOOST_AUTO_TEST_CASE(summaries_list_owners_with_their_cores) {
    bare_model m;
    const auto app = m.owners.open("app");
    m.owners.acquire_cores(app, 1, 0b11);
    const auto all = m.owners.owners();
    BOOST_TEST_REQUIRE(all.size() == 1u);
    BOOST_TEST(all[0].label == "app");
    BOOST_TEST(all[0].cores.size() == 2u);
    BOOST_TEST(all[0].devices.count(1) == 1u);
}
