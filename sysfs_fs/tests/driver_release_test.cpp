#define BOOST_TEST_MODULE driver_release
#include <boost/test/unit_test.hpp>

#include "neuron/sysfs/driver_release.h"
#include "neuron/sysfs/errors.h"
#include "neuron/sysfs/layout_feature.h"

#include <fmt/format.h>

#include <set>
#include <string>
#include <string_view>

using namespace neuron::sysfs;
using namespace std::string_view_literals;

namespace {

using f = layout_feature;

std::string version_text(const driver_version& v) { return fmt::format("{}.{}", v.major, v.minor); }

bool is_known(const driver_version& v) {
    for (const auto& r : known_releases()) {
        if (r.version == v) return true;
    }
    return false;
}

bool on(std::string_view release, layout_feature feature) { return has_feature(find_release(release), feature); }

} // namespace

// --- releases ---------------------------------------------------------------

BOOST_AUTO_TEST_CASE(known_releases_are_the_version_table_oldest_first) {
    std::string tags;
    for (const auto& r : known_releases()) tags += std::string(r.tag) + " ";
    BOOST_TEST(tags == "2.7.15.0 2.8.4.0 2.9.4.0 2.10.11.0 2.12.11.0 2.13.4.0 2.14.5.0 2.15.9.0 2.16.7.0 "
                       "2.17.17.0 2.18.12.0 2.19.64.0 2.20.28.0 2.21.37.0 2.23.9.0 2.24.7.0 2.25.4.0 ");
    const auto all = known_releases();
    for (std::size_t i = 1; i < all.size(); ++i) BOOST_TEST((all[i - 1].version < all[i].version));
}

BOOST_AUTO_TEST_CASE(tag_starts_with_its_version) {
    for (const auto& r : known_releases()) {
        BOOST_TEST(r.tag.starts_with(version_text(r.version) + "."), r.tag);
    }
}

BOOST_AUTO_TEST_CASE(default_release_is_2_24_7_0) {
    BOOST_TEST(default_release().tag == "2.24.7.0");
    BOOST_TEST((default_release().version == driver_version{2, 24}));
}

BOOST_AUTO_TEST_CASE(find_accepts_major_minor_and_the_full_tag) {
    BOOST_TEST(find_release("2.24").tag == "2.24.7.0");
    BOOST_TEST(find_release("2.24.7.0").tag == "2.24.7.0");
    BOOST_TEST(&find_release("2.24") == &default_release());
    BOOST_TEST(find_release("2.7").tag == "2.7.15.0");
    BOOST_TEST(find_release("2.19.64.0").tag == "2.19.64.0");
    BOOST_TEST(find_release("2.25").tag == "2.25.4.0");
}

BOOST_AUTO_TEST_CASE(every_known_release_is_found_by_both_names) {
    for (const auto& r : known_releases()) {
        BOOST_TEST(&find_release(r.tag) == &r, r.tag);
        BOOST_TEST(&find_release(version_text(r.version)) == &r, r.tag);
    }
}

BOOST_AUTO_TEST_CASE(a_release_without_a_tree_change_shows_the_latest_tree_at_or_below_it) {
    BOOST_TEST(find_release("2.11").tag == "2.10.11.0");
    BOOST_TEST(find_release("2.22").tag == "2.21.37.0");
    BOOST_TEST(find_release("2.12.18.0").tag == "2.12.11.0");
    BOOST_TEST(find_release("2.20.74.0").tag == "2.20.28.0");
    BOOST_TEST(find_release("2.24.7.1").tag == "2.24.7.0");
    BOOST_TEST(find_release("2.25.99.0").tag == "2.25.4.0");
    BOOST_TEST(find_release("2.7.1.0").tag == "2.7.15.0"); // a minor shows one tree, whatever its patch
}

BOOST_AUTO_TEST_CASE(every_minor_from_2_7_to_2_25_is_accepted) {
    for (std::uint16_t minor = 7; minor <= 25; ++minor) {
        const auto& r = find_release(fmt::format("2.{}", minor));
        BOOST_TEST((r.version <= driver_version{2, minor}), minor);
        BOOST_TEST((r.version.minor >= minor - 1), minor); // at most one minor without a change in a row
    }
}

BOOST_AUTO_TEST_CASE(unknown_versions_throw) {
    for (const auto text :
         {"3.0"sv, ""sv, "2.24.7"sv, "2"sv, "v2.24"sv, " 2.24"sv, "2.24 "sv, "2.24.7.0\n"sv, "2.6"sv, "2.26"sv, "1.9"sv,
          "2..24"sv, "2.24."sv, "2.24.7.0.1"sv, "2.+24"sv, "2.0024"sv, "2.99999999999"sv, "2.-1"sv}) {
        BOOST_CHECK_THROW(find_release(text), unknown_driver_version_error);
    }
}

BOOST_AUTO_TEST_CASE(unknown_version_error_is_an_invalid_argument) {
    BOOST_CHECK_THROW(find_release("3.0"), neuron::model::invalid_argument_error);
}

BOOST_AUTO_TEST_CASE(unknown_version_message_names_the_input_and_every_known_tag) {
    try {
        find_release("2.26");
        BOOST_FAIL("2.26 was accepted");
    } catch (const unknown_driver_version_error& e) {
        const std::string message = e.what();
        BOOST_TEST(message.find("'2.26'") != std::string::npos, message);
        BOOST_TEST(message.find("from 2.7 to 2.25") != std::string::npos, message);
        for (const auto& r : known_releases()) BOOST_TEST(message.find(r.tag) != std::string::npos, r.tag);
    }
}

BOOST_AUTO_TEST_CASE(known_release_list_joins_every_tag) {
    BOOST_TEST(known_release_list() ==
               "2.7.15.0, 2.8.4.0, 2.9.4.0, 2.10.11.0, 2.12.11.0, 2.13.4.0, 2.14.5.0, 2.15.9.0, 2.16.7.0, "
               "2.17.17.0, 2.18.12.0, 2.19.64.0, 2.20.28.0, 2.21.37.0, 2.23.9.0, 2.24.7.0, 2.25.4.0");
}

// --- layout features --------------------------------------------------------

BOOST_AUTO_TEST_CASE(feature_table_is_indexed_by_feature) {
    const auto table = layout_features();
    BOOST_TEST(table.size() == static_cast<std::size_t>(f::inferentia1) + 1);
    for (std::size_t i = 0; i < table.size(); ++i) {
        BOOST_TEST(static_cast<std::size_t>(table[i].feature) == i);
        BOOST_TEST(&info_of(table[i].feature) == &table[i]);
    }
}

BOOST_AUTO_TEST_CASE(feature_names_are_unique_and_non_empty) {
    std::set<std::string_view> names;
    for (const auto& info : layout_features()) {
        BOOST_TEST(!info.name.empty());
        BOOST_TEST(names.insert(info.name).second, info.name);
    }
}

BOOST_AUTO_TEST_CASE(every_feature_starts_and_ends_at_a_known_release) {
    for (const auto& info : layout_features()) {
        BOOST_TEST(is_known(info.since), info.name << " since " << version_text(info.since));
        if (info.removed_in) {
            BOOST_TEST(is_known(*info.removed_in), info.name);
            BOOST_TEST((info.since < *info.removed_in), info.name);
        }
    }
}

BOOST_AUTO_TEST_CASE(every_feature_is_present_in_some_release) {
    for (const auto& info : layout_features()) {
        bool present = false;
        for (const auto& r : known_releases()) present = present || has_feature(r, info.feature);
        BOOST_TEST(present, info.name);
    }
}

BOOST_AUTO_TEST_CASE(has_feature_is_since_inclusive_and_removed_exclusive) {
    for (const auto& info : layout_features()) {
        for (const auto& r : known_releases()) {
            const bool expected = !(r.version < info.since) && (!info.removed_in || r.version < *info.removed_in);
            BOOST_TEST(has_feature(r, info.feature) == expected, info.name << " in " << r.tag);
        }
    }
}

BOOST_AUTO_TEST_CASE(release_2_7_has_the_metrics_directory_only) {
    BOOST_TEST(on("2.7", f::metrics_directory));
    BOOST_TEST(on("2.7", f::bare_arch_type));
    BOOST_TEST(on("2.7", f::refresh_rate));
    BOOST_TEST(on("2.7", f::dynamic_metrics));
    BOOST_TEST(on("2.7", f::infer_status_names));
    BOOST_TEST(on("2.7", f::single_reset_count));
    BOOST_TEST(!on("2.7", f::architecture_info));
    BOOST_TEST(!on("2.7", f::memory_peak));
    BOOST_TEST(!on("2.7", f::notify_delay));
}

BOOST_AUTO_TEST_CASE(release_2_8_drops_the_metrics_level) {
    BOOST_TEST(!on("2.8", f::metrics_directory));
    BOOST_TEST(!on("2.8", f::refresh_rate));
    BOOST_TEST(!on("2.8", f::dynamic_metrics));
    BOOST_TEST(!on("2.8", f::infer_status_names));
    BOOST_TEST(!on("2.8", f::single_reset_count));
    BOOST_TEST(on("2.8", f::architecture_info));
    BOOST_TEST(on("2.8", f::memory_peak));
    BOOST_TEST(on("2.8", f::split_reset_counts));
    BOOST_TEST(!on("2.8", f::notify_delay));
}

BOOST_AUTO_TEST_CASE(version_table_rows) {
    BOOST_TEST(on("2.9", f::notify_delay));
    BOOST_TEST(!on("2.9", f::memory_breakdown));
    BOOST_TEST(on("2.10", f::memory_breakdown));
    BOOST_TEST(!on("2.10", f::flop_count));
    BOOST_TEST(on("2.12", f::flop_count));
    BOOST_TEST(!on("2.12", f::connected_devices));
    BOOST_TEST(on("2.13", f::connected_devices));
    BOOST_TEST(!on("2.13", f::hardware_ecc));
    BOOST_TEST(on("2.14", f::hardware_ecc));
    BOOST_TEST(!on("2.14", f::serial_number));
    BOOST_TEST(!on("2.14", f::world_readable_metrics));
    BOOST_TEST(!on("2.14", f::inf2_core_arch_v2));
    BOOST_TEST(on("2.15", f::serial_number));
    BOOST_TEST(on("2.15", f::world_readable_metrics));
    BOOST_TEST(on("2.15", f::inf2_core_arch_v2));
    BOOST_TEST(!on("2.15", f::oob_error));
    BOOST_TEST(!on("2.15", f::trainium2));
    BOOST_TEST(on("2.16", f::oob_error));
    BOOST_TEST(on("2.16", f::trainium2));
    BOOST_TEST(!on("2.16", f::driver_memory_categories));
    BOOST_TEST(on("2.17", f::driver_memory_categories));
    BOOST_TEST(!on("2.17", f::dma_rings_category));
    BOOST_TEST(on("2.18", f::dma_rings_category));
    BOOST_TEST(!on("2.18", f::hw_status_errors));
    BOOST_TEST(on("2.19", f::hw_status_errors));
    BOOST_TEST(!on("2.19", f::nq_overflow_status));
    BOOST_TEST(on("2.20", f::nq_overflow_status));
    BOOST_TEST(!on("2.20", f::sw_status_errors));
    BOOST_TEST(!on("2.20", f::nc_time_in_use));
    BOOST_TEST(!on("2.20", f::power_utilization));
    BOOST_TEST(on("2.21", f::sw_status_errors));
    BOOST_TEST(on("2.21", f::nc_time_in_use));
    BOOST_TEST(on("2.21", f::power_utilization));
    BOOST_TEST(!on("2.21", f::repairable_hbm));
    BOOST_TEST(!on("2.21", f::pe_counters));
    BOOST_TEST(!on("2.21", f::class_attributes));
    BOOST_TEST(on("2.23", f::repairable_hbm));
    BOOST_TEST(on("2.23", f::pe_counters));
    BOOST_TEST(on("2.23", f::class_attributes));
}

BOOST_AUTO_TEST_CASE(inferentia1_ends_with_2_24) {
    BOOST_TEST(on("2.7", f::inferentia1));
    BOOST_TEST(on("2.24", f::inferentia1));
    BOOST_TEST(!on("2.25", f::inferentia1));
}

BOOST_AUTO_TEST_CASE(releases_2_24_and_2_25_show_every_later_feature) {
    // 2.24 and 2.25 changed nothing in the sysfs metrics.
    for (const auto& info : layout_features()) {
        if (info.feature == f::inferentia1) continue;
        BOOST_TEST(on("2.24", info.feature) == on("2.23", info.feature), info.name);
        BOOST_TEST(on("2.25", info.feature) == on("2.24", info.feature), info.name);
    }
}
