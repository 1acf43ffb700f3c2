#define BOOST_TEST_MODULE tree_structure
// The tree's structure as it grows and once finished: names found among
// their siblings, a name given twice refused, and a directory of very many
// entries (a recorded host's, served again) built without comparing each
// name with every other: 200 000 of them would take some 2 * 10^10 string
// comparisons that way, minutes instead of a fraction of a second.

#include "neuron/model/spec/errors.h"
#include "neuron/sysfs/sysfs_tree.h"

#include <boost/test/unit_test.hpp>

#include <string>

using namespace neuron::sysfs;

namespace {

std::string name_of(std::size_t i) { return "f" + std::to_string(i); }

} // namespace

BOOST_AUTO_TEST_CASE(names_are_found_among_200000_siblings_as_the_tree_grows_and_once_finished) {
    constexpr std::size_t count = 200'000;
    sysfs_tree tree;
    const auto dir = tree.directory(root_node, "neuron0");
    std::vector<node_id> ids;
    ids.reserve(count);
    for (std::size_t i = 0; i < count; ++i) ids.push_back(tree.add_attribute(dir, name_of(i), 0444, {}));
    BOOST_TEST(tree.child(dir, name_of(count / 2)) == ids[count / 2]);
    BOOST_TEST(tree.child(dir, "absent") == no_node);
    BOOST_CHECK_THROW(tree.add_attribute(dir, name_of(7), 0444, {}), neuron::model::model_error);
    BOOST_TEST(tree.directory(root_node, "neuron0") == dir); // made once, found after
    tree.finish();
    BOOST_TEST(tree.at(dir).children.size() == count);
    for (const std::size_t i : {std::size_t{0}, count / 3, count - 1})
        BOOST_TEST(tree.child(dir, name_of(i)) == ids[i]);
    BOOST_TEST(tree.resolve("neuron0/" + name_of(12345)) == ids[12345]);
}

BOOST_AUTO_TEST_CASE(the_same_name_in_two_directories_is_two_nodes) {
    sysfs_tree tree;
    const auto a = tree.directory(root_node, "a");
    const auto b = tree.directory(root_node, "b");
    const auto in_a = tree.add_symlink(a, "x", "../b");
    const auto in_b = tree.add_attribute(b, "x", 0444, {});
    BOOST_TEST(in_a != in_b);
    BOOST_TEST(tree.child(a, "x") == in_a);
    BOOST_TEST(tree.child(b, "x") == in_b);
    tree.finish();
    BOOST_TEST(tree.resolve("a/x") == in_a);
    BOOST_TEST(tree.resolve("b/x") == in_b);
    BOOST_CHECK_THROW(tree.directory(root_node, "c"), neuron::model::model_error); // finished
}
