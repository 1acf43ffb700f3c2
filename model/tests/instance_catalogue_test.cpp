#define BOOST_TEST_MODULE instance_catalogue
#include "neuron/model/spec/errors.h"
#include "neuron/model/spec/instance_catalogue.h"
#include "neuron/model/state/platform_config.h"

#include <boost/test/unit_test.hpp>

#include <set>
#include <string>

using namespace neuron::model;

namespace {

constexpr std::uint64_t GiB = 1ull << 30;

struct expected_instance {
    std::string_view name;
    std::uint32_t devices;
    std::uint32_t cores_per_device;
    std::uint64_t device_memory;
    std::string_view nd_suffix, nc_suffix, instance_type, device_name;
};

// nrt-api.md §6 (counts, memory) and driver-sysfs.md §7 (identity strings).
constexpr expected_instance expected[] = {
    {"inf1.xlarge", 1, 4, 8 * GiB, "v1", "v1", "Inf1", "Inferentia"},
    {"inf1.2xlarge", 1, 4, 8 * GiB, "v1", "v1", "Inf1", "Inferentia"},
    {"inf1.6xlarge", 4, 4, 8 * GiB, "v1", "v1", "Inf1", "Inferentia"},
    {"inf1.24xlarge", 16, 4, 8 * GiB, "v1", "v1", "Inf1", "Inferentia"},
    {"inf2.xlarge", 1, 2, 32 * GiB, "v3", "v2", "Inf2", "Inferentia2"},
    {"inf2.8xlarge", 1, 2, 32 * GiB, "v3", "v2", "Inf2", "Inferentia2"},
    {"inf2.24xlarge", 6, 2, 32 * GiB, "v3", "v2", "Inf2", "Inferentia2"},
    {"inf2.48xlarge", 12, 2, 32 * GiB, "v3", "v2", "Inf2", "Inferentia2"},
    {"trn1.2xlarge", 1, 2, 32 * GiB, "v2", "v2", "Trn1", "Trainium1"},
    {"trn1.32xlarge", 16, 2, 32 * GiB, "v2", "v2", "Trn1", "Trainium1"},
    {"trn1n.32xlarge", 16, 2, 32 * GiB, "v2", "v2", "Trn1", "Trainium1"},
    {"trn2.3xlarge", 1, 8, 96 * GiB, "v3", "v3", "Trn2", "Trainium2"},
    {"trn2.48xlarge", 16, 8, 96 * GiB, "v3", "v3", "Trn2", "Trainium2"},
    {"trn2u.48xlarge", 16, 8, 96 * GiB, "v3", "v3", "Trn2", "Trainium2"},
};

} // namespace

BOOST_AUTO_TEST_CASE(catalogue_lists_every_instance_type_in_order) {
    const auto catalogue = instance_catalogue();
    BOOST_TEST_REQUIRE(catalogue.size() == std::size(expected));
    for (std::size_t i = 0; i < catalogue.size(); ++i) BOOST_TEST(catalogue[i].name == expected[i].name);
}

BOOST_AUTO_TEST_CASE(every_instance_has_its_counts_memory_and_identity_strings) {
    for (const auto& e : expected) {
        BOOST_TEST_CONTEXT(e.name) {
            const auto& type = find_instance_type(e.name);
            BOOST_TEST(type.device_count == e.devices);
            BOOST_TEST(type.cores_per_device() == e.cores_per_device);
            BOOST_TEST(type.total_cores() == e.devices * e.cores_per_device);
            BOOST_TEST(type.device_memory_bytes() == e.device_memory);
            BOOST_TEST(type.spec().device_arch_suffix == e.nd_suffix);
            BOOST_TEST(type.spec().core_arch_suffix == e.nc_suffix);
            BOOST_TEST(type.spec().instance_type == e.instance_type);
            BOOST_TEST(type.spec().device_name == e.device_name);
        }
    }
}

BOOST_AUTO_TEST_CASE(only_inf1_lacks_serial_ecc_and_pe_counters) {
    for (const auto& type : instance_catalogue()) {
        BOOST_TEST_CONTEXT(type.name) {
            const bool inf1 = type.kind == device_kind::inferentia;
            BOOST_TEST(type.spec().has_serial_number == !inf1);
            BOOST_TEST(type.spec().has_ecc_reporting == !inf1);
            BOOST_TEST((type.spec().pe_row_groups == 0) == inf1);
        }
    }
}

BOOST_AUTO_TEST_CASE(memory_channels_per_generation) {
    BOOST_TEST(find_instance_type("inf1.xlarge").spec().memory_channels == 2u);
    BOOST_TEST(find_instance_type("trn1.2xlarge").spec().memory_channels == 2u);
    BOOST_TEST(find_instance_type("inf2.xlarge").spec().memory_channels == 2u);
    BOOST_TEST(find_instance_type("trn2.3xlarge").spec().memory_channels == 4u);
}

BOOST_AUTO_TEST_CASE(unknown_instance_names_every_valid_type) {
    try {
        find_instance_type("trn9.huge");
        BOOST_FAIL("no error for an unknown instance type");
    } catch (const unknown_instance_error& e) {
        const std::string message = e.what();
        BOOST_TEST(message.find("'trn9.huge'") != std::string::npos);
        for (const auto& type : instance_catalogue()) {
            BOOST_TEST_CONTEXT(type.name) { BOOST_TEST(message.find(type.name) != std::string::npos); }
        }
    }
}

BOOST_AUTO_TEST_CASE(serials_are_deterministic_distinct_and_never_unprintable) {
    BOOST_TEST(derive_serial(7, 3) == derive_serial(7, 3));
    BOOST_TEST(derive_serial(7, 3) != derive_serial(8, 3));
    std::set<std::uint64_t> seen;
    for (std::uint64_t seed = 0; seed < 64; ++seed) {
        for (std::uint32_t device = 0; device < 64; ++device) {
            const auto serial = derive_serial(seed, device);
            BOOST_TEST(serial != 0u);
            BOOST_TEST((serial & 0xffffffffu) != 0xdeadbeefu);
            BOOST_TEST((serial >> 32) != 0xdeadbeefu);
            seen.insert(serial);
        }
    }
    BOOST_TEST(seen.size() == 64u * 64u);
}

BOOST_AUTO_TEST_CASE(config_validation_names_the_bad_value) {
    platform_config config;
    config.instance = "trn1.2xlarge";
    config.serial_overrides[1] = 5;
    BOOST_CHECK_EXCEPTION(validate(config), invalid_argument_error,
                          [](const auto& e) { return std::string(e.what()).find("device 1") != std::string::npos; });
    config.serial_overrides.clear();
    config.real_time_factor = 0;
    BOOST_CHECK_THROW(validate(config), invalid_argument_error);
    config.real_time_factor = 1;
    config.instance = "nope";
    BOOST_CHECK_THROW(validate(config), unknown_instance_error);
}
