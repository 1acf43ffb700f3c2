#define BOOST_TEST_MODULE peer_census
#include "neuron/control/peer_census.h"

#include <boost/test/unit_test.hpp>

using neuron::control::connection_caps;
using neuron::control::peer_census;
using neuron::control::peer_credentials;

namespace {

constexpr std::uint32_t emulator_user = 1000;

peer_census census(std::size_t total, std::size_t per_process, std::size_t per_user) {
    return peer_census(connection_caps{total, per_process, per_user, emulator_user});
}

} // namespace

BOOST_AUTO_TEST_CASE(a_process_is_refused_past_its_share_and_others_are_not) {
    auto c = census(10, 2, 10);
    const peer_credentials p{100, 2000, 2000};
    c.add(p);
    c.add(p);
    BOOST_TEST(c.refusal(p).value() == "process 100 holds 2 connections to the emulator, the most one process may");
    BOOST_TEST(!c.refusal({101, 2000, 2000}).has_value());
    c.remove(p);
    BOOST_TEST(!c.refusal(p).has_value());
}

BOOST_AUTO_TEST_CASE(a_user_is_refused_past_its_share_but_root_and_the_emulators_user_are_not) {
    auto c = census(100, 10, 2);
    c.add({1, 2000, 0});
    c.add({2, 2000, 0});
    BOOST_TEST(c.refusal({3, 2000, 0}).value() ==
               "user 2000 holds 2 connections to the emulator, the most one user may");
    for (std::uint32_t pid = 10; pid < 15; ++pid) {
        c.add({pid, 0, 0});
        c.add({pid + 100, emulator_user, 0});
    }
    BOOST_TEST(!c.refusal({20, 0, 0}).has_value());
    BOOST_TEST(!c.refusal({21, emulator_user, 0}).has_value());
    BOOST_TEST(c.administers({20, 0, 0}));
    BOOST_TEST(c.administers({21, emulator_user, 0}));
    BOOST_TEST(!c.administers({22, 2000, 0}));
}

BOOST_AUTO_TEST_CASE(the_total_holds_for_everyone_root_included) {
    auto c = census(3, 10, 10);
    for (std::uint32_t pid = 1; pid <= 3; ++pid) c.add({pid, 0, 0});
    BOOST_TEST(c.refusal({9, 0, 0}).value() == "the emulator serves at most 3 connections at once; try again later");
    c.remove({2, 0, 0});
    BOOST_TEST(c.total() == 2u);
    BOOST_TEST(!c.refusal({9, 0, 0}).has_value());
}

BOOST_AUTO_TEST_CASE(removing_what_was_never_added_changes_nothing) {
    auto c = census(3, 1, 1);
    c.remove({5, 2000, 0});
    BOOST_TEST(c.total() == 0u);
    c.add({5, 2000, 0});
    BOOST_TEST(c.refusal({5, 2000, 0}).has_value());
}
