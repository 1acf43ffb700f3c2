#define BOOST_TEST_MODULE memory_ledger
#include "bare_model.h"
#include "neuron/model/spec/errors.h"

#include <boost/test/unit_test.hpp>

#include <limits>

using namespace neuron::model;
using neuron::model::testing::bare_model;

namespace {

std::uint32_t raw(mem_type t) { return static_cast<std::uint32_t>(t); }

struct category_row {
    std::uint32_t value;
    bool host;
    std::string_view dir; // the sysfs directory the driver counts it in
};

// driver-sysfs.md §3: mem_alloc_category_t -> sysfs directory.
constexpr category_row driver_table[] = {
    {0, true, "uncategorized"},
    {1, true, "dma_buffers"},
    {2, true, "tensors"},
    {3, true, "constants"},
    {4, true, "application_memory"},
    {5, true, "driver_memory"},
    {6, true, "notifications"},
    {7, false, "uncategorized"},
    {8, false, "model_code"},
    {9, false, "tensors"},
    {10, false, "constants"},
    {11, false, "model_shared_scratchpad"},
    {12, false, "runtime_memory"},
    {13, false, "driver_memory"},
    {14, false, "collectives"},
    {15, false, "nonshared_scratchpad"},
    {16, false, "notifications"},
    {17, true, "dma_rings"},
    {18, false, "dma_rings"},
    {19, false, "model_shared_scratchpad"},
};

} // namespace

BOOST_AUTO_TEST_CASE(each_of_the_20_mem_types_feeds_the_drivers_directory) {
    BOOST_TEST_REQUIRE(std::size(driver_table) == mem_type_count);
    for (const auto& row : driver_table) {
        BOOST_TEST_CONTEXT("mem_type " << row.value) {
            const auto where = row.host ? mem_location::host : mem_location::device;
            const auto& info = info_of(category_counter(row.value, where));
            BOOST_TEST(info.name == row.dir);
            BOOST_TEST((info.group == (row.host ? counter_group::host_category : counter_group::device_category)));
        }
    }
}

BOOST_AUTO_TEST_CASE(mem_type_names_round_trip) {
    for (std::uint32_t v = 0; v < mem_type_count; ++v) {
        const auto type = static_cast<mem_type>(v);
        BOOST_TEST((parse_mem_type(mem_type_name(type)) == type));
    }
    BOOST_CHECK_EXCEPTION(parse_mem_type("code"), invalid_argument_error, [](const auto& e) {
        const std::string message = e.what();
        return message.starts_with("unknown mem_type 'code'; valid types: unknown_host, code_host,") &&
               message.ends_with("contiguous_scratchpad_device");
    });
}

BOOST_AUTO_TEST_CASE(out_of_range_mem_types_are_uncategorized_by_location) {
    BOOST_TEST((category_counter(20, mem_location::host) == counter_kind::host_uncategorized));
    BOOST_TEST((category_counter(0xffffffff, mem_location::device) == counter_kind::device_uncategorized));
}

BOOST_AUTO_TEST_CASE(sizes_round_up_to_a_page) {
    bare_model m;
    const auto check = [&](std::uint64_t size, std::uint64_t rounded) {
        const auto id =
            m.memory.allocate(driver_owner, 0, 0, mem_location::device, raw(mem_type::tensors_device), size);
        BOOST_TEST(m.memory.find(id)->bytes == rounded);
        BOOST_TEST(m.core_counter(0, 0, counter_kind::device_mem).present == rounded);
        m.memory.free(id);
    };
    check(1, 4096);
    check(4096, 4096);
    check(4097, 8192);
    check(3 * 4096 - 1, 3 * 4096);
}

BOOST_AUTO_TEST_CASE(device_memory_counts_per_core_total_and_per_core_category) {
    bare_model m;
    m.memory.allocate(driver_owner, 3, 1, mem_location::device, raw(mem_type::constants_device), 10000);
    BOOST_TEST((m.core_counter(3, 1, counter_kind::device_mem) == counter_value{12288, 12288, 12288}));
    BOOST_TEST((m.core_counter(3, 1, counter_kind::device_constants) == counter_value{12288, 12288, 12288}));
    BOOST_TEST(m.core_counter(3, 0, counter_kind::device_mem).total == 0u);
    BOOST_TEST(m.core_counter(3, 1, counter_kind::host_mem).total == 0u);
    BOOST_TEST(m.device_counter(3, counter_kind::device_constants).total == 0u);
    BOOST_TEST(m.memory.device_bytes_in_use(3) == 12288u);
}

BOOST_AUTO_TEST_CASE(host_memory_counts_per_core_total_and_per_device_category) {
    bare_model m;
    m.memory.allocate(driver_owner, 2, 1, mem_location::host, raw(mem_type::code_host), 4096);
    m.memory.allocate(driver_owner, 2, 0, mem_location::host, raw(mem_type::code_host), 8192);
    BOOST_TEST((m.core_counter(2, 1, counter_kind::host_mem) == counter_value{4096, 4096, 4096}));
    BOOST_TEST((m.core_counter(2, 0, counter_kind::host_mem) == counter_value{8192, 8192, 8192}));
    BOOST_TEST((m.device_counter(2, counter_kind::host_dma_buffers) == counter_value{12288, 8192, 12288}));
    BOOST_TEST(m.memory.device_bytes_in_use(2) == 0u);
}

BOOST_AUTO_TEST_CASE(freeing_decrements_both_counters_and_keeps_peak) {
    bare_model m;
    const auto a = m.memory.allocate(driver_owner, 0, 0, mem_location::device, raw(mem_type::code_device), 8192);
    m.memory.allocate(driver_owner, 0, 0, mem_location::device, raw(mem_type::code_device), 4096);
    m.memory.free(a);
    BOOST_TEST((m.core_counter(0, 0, counter_kind::device_mem) == counter_value{4096, 8192, 12288}));
    BOOST_TEST((m.core_counter(0, 0, counter_kind::device_model_code) == counter_value{4096, 8192, 12288}));
    BOOST_TEST(m.memory.find(a) == nullptr);
    BOOST_CHECK_THROW(m.memory.free(a), invalid_argument_error);
}

BOOST_AUTO_TEST_CASE(free_all_releases_one_owners_allocations_only) {
    bare_model m;
    m.memory.allocate(1, 0, 0, mem_location::device, raw(mem_type::tensors_device), 4096);
    m.memory.allocate(2, 0, 0, mem_location::device, raw(mem_type::tensors_device), 8192);
    m.memory.allocate(1, 0, 1, mem_location::host, raw(mem_type::tensors_host), 4096);
    m.memory.free_all(1);
    BOOST_TEST(m.core_counter(0, 0, counter_kind::device_tensors).total == 8192u);
    BOOST_TEST(m.core_counter(0, 1, counter_kind::host_mem).total == 0u);
    BOOST_TEST(m.device_counter(0, counter_kind::host_tensors).total == 0u);
    BOOST_TEST(m.memory.owned_by(1).empty());
    BOOST_TEST(m.memory.owned_by(2).size() == 1u);
}

BOOST_AUTO_TEST_CASE(a_host_allocation_tagged_with_a_device_category_lands_in_a_hidden_slot) {
    bare_model m;
    m.memory.allocate(driver_owner, 0, 1, mem_location::host, raw(mem_type::code_device), 4096);
    BOOST_TEST(m.core_counter(0, 1, counter_kind::host_mem).total == 4096u);
    BOOST_TEST(m.device_counter(0, counter_kind::device_model_code).total == 4096u);
    BOOST_TEST(m.core_counter(0, 1, counter_kind::device_model_code).total == 0u);
}

BOOST_AUTO_TEST_CASE(freeing_after_a_total_clear_wraps_like_the_driver) {
    bare_model m;
    const auto a = m.memory.allocate(driver_owner, 0, 0, mem_location::device, raw(mem_type::tensors_device), 4096);
    m.counters.clear(counter_ref::of_core(0, 0, counter_kind::device_mem), counter_field::total);
    m.memory.free(a);
    BOOST_TEST(m.core_counter(0, 0, counter_kind::device_mem).total ==
               std::numeric_limits<std::uint64_t>::max() - 4095);
    BOOST_TEST(m.core_counter(0, 0, counter_kind::device_tensors).total == 0u);
}

BOOST_AUTO_TEST_CASE(bad_sizes_and_places_are_refused_and_change_nothing) {
    bare_model m;
    BOOST_CHECK_THROW(m.memory.allocate(driver_owner, 0, 0, mem_location::device, 8, 0), invalid_argument_error);
    BOOST_CHECK_THROW(
        m.memory.allocate(driver_owner, 0, 0, mem_location::device, 8, std::numeric_limits<std::uint64_t>::max()),
        invalid_argument_error);
    BOOST_CHECK_THROW(m.memory.allocate(driver_owner, 16, 0, mem_location::device, 8, 1), invalid_argument_error);
    BOOST_CHECK_THROW(m.memory.allocate(driver_owner, 0, 2, mem_location::device, 8, 1), invalid_argument_error);
    BOOST_TEST(m.core_counter(0, 0, counter_kind::device_mem).total == 0u);
}

BOOST_AUTO_TEST_CASE(device_memory_is_limited_to_the_device_size) {
    bare_model m; // 32 GiB per Trainium1
    const std::uint64_t gib = 1ull << 30;
    m.memory.allocate(driver_owner, 0, 0, mem_location::device, raw(mem_type::tensors_device), 30 * gib);
    BOOST_CHECK_EXCEPTION(
        m.memory.allocate(driver_owner, 0, 1, mem_location::device, raw(mem_type::tensors_device), 3 * gib),
        out_of_memory_error, [](const auto& e) { return std::string(e.what()).find("device 0") != std::string::npos; });
    BOOST_TEST(m.core_counter(0, 1, counter_kind::device_mem).total == 0u);
    m.memory.allocate(driver_owner, 0, 1, mem_location::device, raw(mem_type::tensors_device), 2 * gib);
    BOOST_TEST(m.memory.device_bytes_in_use(0) == 32 * gib);
    // Host memory is not device memory.
    m.memory.allocate(driver_owner, 0, 1, mem_location::host, raw(mem_type::tensors_host), 3 * gib);
}
