#define BOOST_TEST_MODULE profile_store
// One process's recorded profiles: what a read may name, the bounds of the
// store and of the file a read builds, and the budget every process's store
// shares.
#include "neuron/control/profile_store.h"

#include <boost/test/unit_test.hpp>

#include <memory>
#include <string>
#include <vector>

using namespace neuron;
using control::profile_budget;
using control::profile_limits;
using control::profile_room_error;
using control::profile_store;

namespace {

std::shared_ptr<const profile::core_timeline> timeline_of(std::size_t instructions) {
    auto t = std::make_shared<profile::core_timeline>();
    t->instance_type = "trn2.48xlarge";
    t->model_name = "m";
    t->opcodes = {"nc_matmul"};
    t->instructions.resize(instructions);
    for (std::size_t i = 0; i < instructions; ++i) {
        t->instructions[i].start_ps = i * 1000;
        t->instructions[i].end_ps = i * 1000 + 900;
        t->instructions[i].index = static_cast<std::uint32_t>(i);
    }
    t->end_ps = instructions * 1000;
    return t;
}

auto says(const std::string& text) {
    return [text](const std::exception& e) {
        BOOST_TEST_INFO("what: " << e.what());
        return std::string(e.what()).find(text) != std::string::npos;
    };
}

std::string file_of(profile_store& store, const std::vector<std::uint32_t>& ids) {
    std::string file;
    for (;;) {
        const auto piece = store.read(ids, file.size(), 4096);
        file += piece.bytes;
        if (file.size() == piece.total_bytes) return file;
    }
}

} // namespace

BOOST_AUTO_TEST_CASE(a_read_naming_a_profile_twice_is_refused) {
    profile_store store(std::make_shared<profile_budget>());
    const auto id = store.keep(timeline_of(10));
    const auto other = store.keep(timeline_of(10));
    const std::vector<std::uint32_t> twice{id, other, id};
    BOOST_CHECK_EXCEPTION(store.begin_read(twice), std::invalid_argument,
                          says("profile " + std::to_string(id) + " is named more than once"));
    BOOST_CHECK_EXCEPTION(store.read(twice, 0, 100), std::invalid_argument, says("is named more than once"));
    const std::vector<std::uint32_t> copies(4096, other);
    BOOST_CHECK_EXCEPTION(store.read(copies, 0, 100), std::invalid_argument, says("is named more than once"));
}

BOOST_AUTO_TEST_CASE(a_file_past_the_most_a_read_builds_is_refused) {
    profile_store store(std::make_shared<profile_budget>(), profile_limits{.file_bytes = 4096});
    const auto small = store.keep(timeline_of(10));
    const auto large = store.keep(timeline_of(10'000));
    BOOST_TEST(profile::decode_session(file_of(store, {small})).size() == 1u);
    BOOST_CHECK_EXCEPTION(store.read(std::vector{small, large}, 0, 100), profile_room_error,
                          says("the session file of these 2 profiles would be larger than"));
}

BOOST_AUTO_TEST_CASE(one_build_at_a_time_per_process) {
    profile_store store(std::make_shared<profile_budget>());
    const auto a = store.keep(timeline_of(10));
    const auto b = store.keep(timeline_of(10));
    const std::vector<std::uint32_t> first{a}, second{b};
    BOOST_TEST(!store.begin_read(first)); // to build
    BOOST_CHECK_EXCEPTION(store.begin_read(second), profile_room_error, says("still being built"));
    (void)store.finish_read(first, 0, 100);
    BOOST_TEST(store.begin_read(first)); // built: answered at once
    BOOST_TEST(!store.begin_read(second));
}

BOOST_AUTO_TEST_CASE(a_build_whose_profiles_went_meanwhile_still_ends) {
    profile_store store(std::make_shared<profile_budget>());
    const auto a = store.keep(timeline_of(10));
    const auto b = store.keep(timeline_of(10));
    const std::vector<std::uint32_t> first{a}, second{b};
    BOOST_TEST(!store.begin_read(first));
    store.drop(first); // before the build runs
    BOOST_CHECK_EXCEPTION(store.finish_read(first, 0, 100), std::invalid_argument, says("is not kept"));
    BOOST_TEST(!store.begin_read(second)); // not "still being built"
}

BOOST_AUTO_TEST_CASE(the_oldest_are_pushed_out_past_the_bytes_of_one_process) {
    const auto one = profile::footprint(*timeline_of(1000));
    profile_store store(std::make_shared<profile_budget>(), profile_limits{.bytes = 2 * one + one / 2});
    const auto first = store.keep(timeline_of(1000));
    const auto second = store.keep(timeline_of(1000));
    const auto third = store.keep(timeline_of(1000));
    BOOST_CHECK_EXCEPTION(store.read(std::vector{first}, 0, 100), std::invalid_argument,
                          says("profile " + std::to_string(first) + " is not kept"));
    BOOST_TEST(profile::decode_session(file_of(store, {second, third})).size() == 2u);
}

BOOST_AUTO_TEST_CASE(a_profile_past_the_shared_budget_is_refused_and_its_read_says_why) {
    const auto one = profile::footprint(*timeline_of(1000));
    const auto budget = std::make_shared<profile_budget>(one + one / 2);
    profile_store a(budget), b(budget);
    const auto kept = a.keep(timeline_of(1000));
    const auto refused = b.keep(timeline_of(1000));
    BOOST_TEST(budget->held() == one);
    BOOST_CHECK_EXCEPTION(b.begin_read(std::vector{refused}), profile_room_error,
                          says("profile " + std::to_string(refused) + " was not kept"));
    BOOST_CHECK_EXCEPTION(b.read(std::vector{refused}, 0, 100), profile_room_error,
                          says("the emulator gives to the profiles of every process together"));
    // Dropped, its room is given back for another process's next profile.
    a.drop(std::vector{kept});
    BOOST_TEST(budget->held() == 0u);
    const auto next = b.keep(timeline_of(1000));
    BOOST_TEST(profile::decode_session(file_of(b, {next})).size() == 1u);
}

BOOST_AUTO_TEST_CASE(a_built_file_is_counted_and_given_back) {
    const auto budget = std::make_shared<profile_budget>();
    const auto one = profile::footprint(*timeline_of(1000));
    {
        profile_store store(budget);
        const auto id = store.keep(timeline_of(1000));
        const auto other = store.keep(timeline_of(1000));
        const auto file = file_of(store, {id});
        BOOST_TEST(budget->held() == 2 * one + file.size());
        // A file with no room is refused; the profiles stay.
        budget->set_limit(2 * one + 10);
        BOOST_CHECK_EXCEPTION(store.read(std::vector{other}, 0, 100), profile_room_error,
                              says("the session file of these profiles"));
        BOOST_TEST(budget->held() == 2 * one);
        budget->set_limit(profile_budget::default_limit());
        (void)file_of(store, {id, other});
        store.drop(std::vector{other});
        BOOST_TEST(budget->held() == one);
    }
    // A store that ends (its session closed) gives back all it held.
    BOOST_TEST(budget->held() == 0u);
}
