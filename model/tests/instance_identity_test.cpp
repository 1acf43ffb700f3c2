#define BOOST_TEST_MODULE instance_identity
#include <boost/test/unit_test.hpp>

#include "neuron/model/state/instance_identity.h"

#include <algorithm>
#include <cctype>

using namespace neuron::model;

namespace {

published_state state_with_first_serial(std::uint64_t serial) {
    const auto& trn1 = find_instance_type("trn1.32xlarge");
    std::vector<std::uint64_t> serials(trn1.device_count, 7);
    serials[0] = serial;
    return {trn1, serials, time_mode::stepped, 1.0, 0};
}

bool lowercase_hex(std::string_view s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(c) || (c >= 'a' && c <= 'f'); });
}

} // namespace

BOOST_AUTO_TEST_CASE(the_type_is_the_instance_and_the_id_follows_the_first_serial_number) {
    const auto identity = identity_of(state_with_first_serial(0x1234abcdULL));
    BOOST_TEST(identity.type == "trn1.32xlarge");
    BOOST_TEST(identity.id == "i-0000000001234abcd");
}

BOOST_AUTO_TEST_CASE(the_uuid_has_nitros_form) {
    const auto uuid = identity_of(state_with_first_serial(42)).uuid;
    BOOST_TEST_REQUIRE(uuid.size() == 36U);
    BOOST_TEST(uuid.starts_with("ec2"));
    for (const auto dash : {8, 13, 18, 23}) BOOST_TEST(uuid[dash] == '-');
    std::string digits = uuid;
    std::erase(digits, '-');
    BOOST_TEST(digits.size() == 32U);
    BOOST_TEST(lowercase_hex(digits));
}

BOOST_AUTO_TEST_CASE(the_uuid_follows_the_seed_and_only_it) {
    const auto a = identity_of(state_with_first_serial(1)).uuid;
    BOOST_TEST(identity_of(state_with_first_serial(1)).uuid == a);
    BOOST_TEST(identity_of(state_with_first_serial(2)).uuid != a);
}
