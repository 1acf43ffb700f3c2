#define BOOST_TEST_MODULE target
#include "neuron/conformance/scenario_parser.h"
#include "neuron/conformance/target.h"
#include "neuron/test_support/temporary_directory.h"

#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

using namespace neuron::conformance;
namespace fs = std::filesystem;

namespace {

scenario parse(const std::string& text) { return parse_scenario(text, "s.yaml", "."); }

std::string reason(const std::string& text, const target_description& t) {
    return skip_reason(parse(text), t).value_or("runs");
}

// A model target as if FUSE were usable here.
target_description model(const std::string& instance, const std::string& release = "2.24") {
    auto t = describe_model_target(instance, release);
    t.unavailable.clear();
    return t;
}

// A tree on disk with `devices` devices of `device_name`, each with `cores` cores and the given files.
struct fake_tree {
    // Its own directory: ctest runs this program's cases side by side.
    neuron::test_support::temporary_directory directory{"neuron-conformance-target-test"};
    fs::path root{directory.path()};
    fake_tree(unsigned devices, unsigned cores, const std::string& device_name, const std::vector<std::string>& files) {
        for (unsigned d = 0; d < devices; ++d) {
            const auto dev = root / ("neuron" + std::to_string(d));
            fs::create_directories(dev / "info/architecture");
            std::ofstream(dev / "info/architecture/device_name") << device_name << "\n";
            for (unsigned c = 0; c < cores; ++c)
                fs::create_directories(dev / ("neuron_core" + std::to_string(c)) / "stats");
            for (const auto& f : files) {
                fs::create_directories((dev / f).parent_path());
                std::ofstream(dev / f) << "0\n";
            }
        }
        fs::create_directories(root / "not_a_device");
    }
};

} // namespace

BOOST_AUTO_TEST_CASE(a_sysfs_tree_is_recognised_from_its_devices) {
    fake_tree tree(16, 2, "Trainium1", {"neuron_core0/stats/status/oob_error", "connected_devices"});
    const auto t = detect_sysfs_target(tree.root.string(), std::nullopt, std::nullopt);
    BOOST_TEST(t.unavailable.empty());
    BOOST_TEST(t.devices == 16u);
    BOOST_TEST(t.cores_per_device == 2u);
    BOOST_TEST(t.instance == nullptr);
    BOOST_TEST_REQUIRE(t.candidates.size() == 2u); // trn1.32xlarge and trn1n.32xlarge show the same tree
    BOOST_TEST(t.candidates[0]->name == "trn1.32xlarge");
    BOOST_TEST(!t.release_exact);
    BOOST_TEST(t.release->tag == "2.16.7.0"); // the oldest release with oob_error
    BOOST_TEST(!t.capabilities.contains(capability::inject_ecc));
    BOOST_TEST(!t.capabilities.contains(capability::fresh_instance));
}

BOOST_AUTO_TEST_CASE(a_tree_without_devices_is_unavailable) {
    fake_tree tree(0, 0, "", {});
    const auto t = detect_sysfs_target(tree.root.string(), std::nullopt, std::nullopt);
    BOOST_TEST(t.unavailable.find("no neuronN device directories") != std::string::npos);
    BOOST_TEST(reason("name: t\nsteps: [{read: a}]\n", t) == t.unavailable);
}

BOOST_AUTO_TEST_CASE(what_a_sysfs_target_cannot_do_is_a_skip_with_the_reason) {
    fake_tree tree(1, 2, "Trainium1", {});
    const auto t = detect_sysfs_target(tree.root.string(), std::nullopt, "2.24");
    BOOST_TEST(reason("name: t\nrequires: [inject_ecc]\nsteps: [{inject_ecc: {device: 0, kind: hbm}}]\n", t) ==
               "needs inject_ecc: the target cannot inject ECC errors");
    BOOST_TEST(reason("name: t\nsetup: {instance: trn2.3xlarge}\nsteps: [{read: a}]\n", t) ==
               "set up for trn2.3xlarge; the target is trn1.2xlarge");
    BOOST_TEST(reason("name: t\nsetup: {driver_version: \"2.7\"}\nsteps: [{read: a}]\n", t) ==
               "set up for driver 2.7.15.0; the target's is 2.24.7.0");
    BOOST_TEST(reason("name: t\nsetup: {driver_version: \"2.24\"}\nsteps: [{read: a}]\n", t) == "runs");
}

BOOST_AUTO_TEST_CASE(applies_to_filters_by_instance_device_arch_and_driver) {
    const auto trn2 = model("trn2.48xlarge");
    BOOST_TEST(reason("name: t\napplies_to: {instances: [\"trn2*\"]}\nsteps: [{read: a}]\n", trn2) == "runs");
    BOOST_TEST(reason("name: t\napplies_to: {instances: [\"inf*\"]}\nsteps: [{read: a}]\n", trn2) ==
               "applies to inf*; the target is trn2.48xlarge");
    BOOST_TEST(reason("name: t\napplies_to: {devices: [Trainium1]}\nsteps: [{read: a}]\n", trn2)
                   .starts_with("applies to Trainium1"));
    BOOST_TEST(reason("name: t\napplies_to: {arch: [v3]}\nsteps: [{read: a}]\n", trn2) == "runs");
    BOOST_TEST(reason("name: t\napplies_to: {arch: [v1, v2]}\nsteps: [{read: a}]\n", trn2)
                   .starts_with("applies to arch v1, v2"));
    BOOST_TEST(reason("name: t\napplies_to: {driver: \">= 2.23\"}\nsteps: [{read: a}]\n", trn2) == "runs");
    BOOST_TEST(reason("name: t\napplies_to: {driver: \"< 2.23\"}\nsteps: [{read: a}]\n", trn2) ==
               "applies to driver < 2.23; the target's is 2.24.7.0");
}

BOOST_AUTO_TEST_CASE(with_only_the_oldest_release_known_a_bound_may_be_undecided) {
    fake_tree tree(1, 2, "Trainium1", {"neuron_core0/stats/status/oob_error"}); // 2.16 or later
    const auto t = detect_sysfs_target(tree.root.string(), std::nullopt, std::nullopt);
    BOOST_TEST(reason("name: t\napplies_to: {driver: \">= 2.15\"}\nsteps: [{read: a}]\n", t) == "runs");
    BOOST_TEST(reason("name: t\napplies_to: {driver: \"< 2.16\"}\nsteps: [{read: a}]\n", t) ==
               "applies to driver < 2.16; the target's is 2.16.7.0");
    BOOST_TEST(
        reason("name: t\napplies_to: {driver: \">= 2.20\"}\nsteps: [{read: a}]\n", t).find("not known exactly") !=
        std::string::npos);
    BOOST_TEST(reason("name: t\napplies_to: {driver: \"< 2.20\"}\nsteps: [{read: a}]\n", t).find("not known exactly") !=
               std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_model_target_takes_the_scenarios_instance_and_release) {
    const auto base = model("trn1.2xlarge");
    const auto s = parse("name: t\nsetup: {instance: trn2.48xlarge, driver_version: \"2.16\"}\nsteps: [{read: a}]\n");
    const auto t = model_target_for(base, s);
    BOOST_TEST(t.instance->name == "trn2.48xlarge");
    BOOST_TEST(t.release->tag == "2.16.7.0");
    BOOST_TEST(t.devices == 16u);
    BOOST_TEST(t.cores_per_device == 8u);
    BOOST_TEST(!skip_reason(s, t).has_value());
}

BOOST_AUTO_TEST_CASE(a_combination_the_driver_never_had_is_skipped) {
    const auto s = parse("name: t\nsetup: {instance: trn2.3xlarge, driver_version: \"2.15\"}\nsteps: [{read: a}]\n");
    const auto why = skip_reason(s, model_target_for(model("trn1.2xlarge"), s));
    BOOST_TEST(why.value_or("").find("no Trainium2 support") != std::string::npos);
}
