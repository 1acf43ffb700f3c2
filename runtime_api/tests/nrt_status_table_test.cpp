#define BOOST_TEST_MODULE nrt_status_table
#include "neuron/runtime_api/nrt_status_table.h"

#include <boost/test/unit_test.hpp>

#include <string_view>

using namespace neuron::runtime_api;

BOOST_AUTO_TEST_CASE(every_status_of_the_runtime_is_in_the_table) {
    BOOST_TEST(nrt_status_table.size() == 28u); // nrt-api.md §1 lists 28 values
    for (const auto& row : nrt_status_table) {
        const auto by_value = nrt_status_of(row.value);
        const auto by_name = nrt_status_named(row.name);
        BOOST_TEST_REQUIRE(by_value.has_value(), row.value);
        BOOST_TEST_REQUIRE(by_name.has_value(), row.name);
        BOOST_TEST(std::string_view{by_value->name} == row.name);
        BOOST_TEST(by_name->value == row.value);
    }
}

BOOST_AUTO_TEST_CASE(a_value_finds_its_identifier) {
    BOOST_TEST(std::string_view{nrt_status_of(0)->name} == "NRT_SUCCESS");
    BOOST_TEST(std::string_view{nrt_status_of(1201)->name} == "NRT_EXEC_HW_ERR_HBM_UE");
    BOOST_TEST(std::string_view{nrt_status_of(1206)->name} == "NRT_NETWORK_PROXY_FAILURE");
}

BOOST_AUTO_TEST_CASE(values_the_runtime_leaves_unused_find_nothing) {
    for (const std::uint32_t unused : {8u, 12u, 16u, 100u, 1001u, 1007u, 1207u, 4294967295u}) {
        BOOST_TEST(!nrt_status_of(unused).has_value(), unused);
    }
}

BOOST_AUTO_TEST_CASE(an_identifier_must_match_exactly) {
    BOOST_TEST(nrt_status_named("NRT_EXEC_OOB")->value == 1006u);
    BOOST_TEST(!nrt_status_named("NRT_OOB").has_value()); // the doc's name, not the header's
    BOOST_TEST(!nrt_status_named("nrt_exec_oob").has_value());
    BOOST_TEST(!nrt_status_named("EXEC_OOB").has_value());
    BOOST_TEST(!nrt_status_named("NRT_EXEC_OOB ").has_value());
    BOOST_TEST(!nrt_status_named("").has_value());
}

BOOST_AUTO_TEST_CASE(named_constants_are_the_table_values) {
    BOOST_TEST(nrt_status::success == 0u);
    BOOST_TEST(nrt_status::failure == 1u);
    BOOST_TEST(nrt_status::invalid == 2u);
    BOOST_TEST(nrt_status::resource == 4u);
    BOOST_TEST(nrt_status::closed == 14u);
    BOOST_TEST(nrt_status::exec_hw_err_repairable_hbm_ue == 1205u);
}
