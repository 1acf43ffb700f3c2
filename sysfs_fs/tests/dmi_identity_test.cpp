#define BOOST_TEST_MODULE dmi_identity
// The machine's identity beside the driver's tree, as dmi-id.c shows it on
// an EC2 Nitro instance: where, with which modes, and what the files read
// (the instance type, and an id and UUID that follow the seed).
#include <boost/test/unit_test.hpp>

#include "neuron/model/state/instance_identity.h"
#include "neuron/model/state/make_published_state.h"
#include "neuron/sysfs/attribute_reader.h"
#include "neuron/sysfs/dmi_identity.h"
#include "neuron/sysfs/driver_release.h"
#include "neuron/sysfs/generic_device_state.h"
#include "neuron/sysfs/tree_builder.h"

#include <memory>
#include <string>

using namespace neuron::sysfs;

namespace {

struct instance {
    instance(std::string_view type, std::uint64_t seed)
            : state(neuron::model::make_published_state(config(type, seed))),
              shape(neuron::model::find_instance_type(type), find_release("2.24"), 239), tree(build_tree(shape)),
              generic(state->device_count()), reader(shape, *state, generic) {}

    static neuron::model::platform_config config(std::string_view type, std::uint64_t seed) {
        neuron::model::platform_config c;
        c.instance = std::string(type);
        c.seed = seed;
        return c;
    }

    const node& at(const std::string& name) const {
        const auto id = tree.resolve(std::string(dmi_path) + "/" + name);
        BOOST_TEST_REQUIRE(id != no_node, name);
        return tree.at(id);
    }
    std::string read(const std::string& name) const {
        const auto result = reader.read(at(name).attr);
        BOOST_TEST(result.error == 0);
        return result.text;
    }

    std::unique_ptr<neuron::model::published_state> state;
    layout shape;
    sysfs_tree tree;
    generic_device_state generic;
    attribute_reader reader;
};

} // namespace

BOOST_AUTO_TEST_CASE(product_name_is_the_instance_type_and_the_vendor_is_ec2) {
    const instance trn2("trn2.48xlarge", 1);
    BOOST_TEST(trn2.read("product_name") == "trn2.48xlarge\n");
    BOOST_TEST(trn2.read("sys_vendor") == "Amazon EC2\n");
    BOOST_TEST(trn2.read("board_vendor") == "Amazon EC2\n");
    BOOST_TEST(instance("inf2.xlarge", 1).read("product_name") == "inf2.xlarge\n");
}

BOOST_AUTO_TEST_CASE(the_asset_tag_is_the_instance_id_and_the_uuid_is_nitros_both_following_the_seed) {
    const instance a("trn1.32xlarge", 7);
    const auto identity = neuron::model::identity_of(*a.state);
    BOOST_TEST(a.read("board_asset_tag") == identity.id + "\n");
    BOOST_TEST(identity.id.starts_with("i-0"));
    BOOST_TEST(a.read("product_uuid") == identity.uuid + "\n");
    BOOST_TEST(a.read("product_serial") == identity.uuid + "\n");
    const instance b("trn1.32xlarge", 8);
    BOOST_TEST(b.read("board_asset_tag") != a.read("board_asset_tag"));
    BOOST_TEST(b.read("product_uuid") != a.read("product_uuid"));
    BOOST_TEST(instance("trn1.32xlarge", 7).read("product_uuid") == a.read("product_uuid"));
}

BOOST_AUTO_TEST_CASE(serials_and_the_uuid_are_roots_alone_as_dmi_id_makes_them) {
    const instance i("trn1.2xlarge", 1);
    BOOST_TEST(i.at("product_uuid").mode == 0400U);
    BOOST_TEST(i.at("product_serial").mode == 0400U);
    BOOST_TEST(i.at("product_name").mode == 0444U);
    BOOST_TEST(i.at("board_asset_tag").mode == 0444U);
    BOOST_TEST(i.at("uevent").mode == 0644U);
}

BOOST_AUTO_TEST_CASE(modalias_joins_the_fields_as_get_modalias_does) {
    const instance i("trn1.32xlarge", 1);
    const std::string expected = "dmi:bvnAmazonEC2:bvr1.0:bd10/16/2017:br1.0:svnAmazonEC2:pntrn1.32xlarge:pvr:"
                                 "rvnAmazonEC2:rn:rvr:cvnAmazonEC2:ct1:cvr:sku:";
    BOOST_TEST(i.read("modalias") == expected + "\n");
    BOOST_TEST(i.read("uevent") == "MODALIAS=" + expected + "\n");
}

BOOST_AUTO_TEST_CASE(the_class_directory_links_to_it_and_it_back_to_the_class) {
    const instance i("trn1.2xlarge", 1);
    BOOST_TEST((i.at("subsystem").type == node_type::symlink));
    BOOST_TEST(i.at("subsystem").target == "../../../../class/dmi");
    const auto link = i.tree.resolve(std::string(dmi_class_path) + "/id");
    BOOST_TEST_REQUIRE(link != no_node);
    BOOST_TEST(i.tree.at(link).target == "../../devices/virtual/dmi/id");
}
