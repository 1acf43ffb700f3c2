#define BOOST_TEST_MODULE sysfs_tree_walk
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include "support/mounted_tree.h"
#include "support/spec_listing.h"

#include "neuron/model/spec/instance_catalogue.h"

#include <fmt/format.h>

#include <string>
#include <vector>

using namespace neuron::sysfs;
using namespace neuron::sysfs::testing;

namespace {

std::string describe(const spec_entry& e) {
    return e.type == 'l' ? fmt::format("link -> {}", e.target) : fmt::format("{} {:04o}", e.type, e.mode);
}

// Every difference between what the mount shows and what the spec says.
std::vector<std::string> differences(const spec_listing& seen, const spec_listing& expected) {
    std::vector<std::string> out;
    for (const auto& [path, entry] : expected) {
        const auto it = seen.find(path);
        if (it == seen.end()) {
            out.push_back(fmt::format("missing {} ({})", path, describe(entry)));
        } else if (!(it->second == entry)) {
            out.push_back(fmt::format("{}: {} instead of {}", path, describe(it->second), describe(entry)));
        }
    }
    for (const auto& [path, entry] : seen) {
        if (!expected.contains(path)) out.push_back(fmt::format("unexpected {} ({})", path, describe(entry)));
    }
    return out;
}

void check_walk(const std::string& instance, const std::string& release) {
    mounted_tree tree({instance, release, "", true});
    const auto seen = walk_directory(tree.root());
    const auto expected = expected_listing(instance, release);
    const auto diff = differences(seen, expected);
    for (std::size_t i = 0; i < std::min<std::size_t>(diff.size(), 25); ++i) BOOST_TEST_MESSAGE(diff[i]);
    BOOST_TEST(diff.empty(), fmt::format("{} on driver {}: {} differences from the spec (first ones above), {} "
                                         "entries seen, {} expected",
                                         instance, release, diff.size(), seen.size(), expected.size()));
}

std::vector<std::string> catalogue_names() {
    std::vector<std::string> names;
    for (const auto& t : neuron::model::instance_catalogue()) names.emplace_back(t.name);
    return names;
}

struct case_spec {
    std::string instance;
    std::string release;
};

std::ostream& operator<<(std::ostream& out, const case_spec& c) { return out << c.instance << '@' << c.release; }

// Every release on Trn1, and the releases where the other generations differ.
std::vector<case_spec> release_cases() {
    std::vector<case_spec> cases;
    for (const auto* r : {"2.7", "2.8", "2.9", "2.10", "2.12", "2.13", "2.14", "2.15", "2.16", "2.17", "2.18", "2.19",
                          "2.20", "2.21", "2.23", "2.24", "2.25"}) {
        cases.push_back({"trn1.2xlarge", r});
    }
    for (const auto* r : {"2.7", "2.14", "2.15", "2.21", "2.23"}) cases.push_back({"inf1.xlarge", r});
    for (const auto* r : {"2.7", "2.13", "2.15"}) cases.push_back({"inf2.xlarge", r});
    for (const auto* r : {"2.16", "2.21", "2.23", "2.25"}) cases.push_back({"trn2.3xlarge", r});
    return cases;
}

} // namespace

BOOST_AUTO_TEST_SUITE(walk)

BOOST_DATA_TEST_CASE(every_instance_type_shows_the_spec_tree_of_driver_2_24,
                     boost::unit_test::data::make(catalogue_names()), instance) {
    check_walk(instance, "2.24");
}

BOOST_DATA_TEST_CASE(older_and_newer_releases_show_their_own_tree, boost::unit_test::data::make(release_cases()), c) {
    check_walk(c.instance, c.release);
}

BOOST_AUTO_TEST_SUITE_END()
