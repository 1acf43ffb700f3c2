#define BOOST_TEST_MODULE runner_options
#include "neuron/conformance/runner_options.h"

#include <boost/test/unit_test.hpp>

using namespace neuron::conformance;

namespace {

runner_options parse(std::vector<std::string> args) { return parse_runner_options(args); }

void refused(std::vector<std::string> args, const std::string& what) {
    try {
        (void)parse(std::move(args));
        BOOST_ERROR("accepted");
    } catch (const usage_error& e) {
        BOOST_TEST(std::string(e.what()).find(what) != std::string::npos, e.what());
    }
}

} // namespace

BOOST_AUTO_TEST_CASE(the_model_target_is_the_default) {
    const auto o = parse({});
    BOOST_TEST(o.model_target);
    BOOST_TEST(o.paths.empty());
    BOOST_TEST(!o.keep_going);
}

BOOST_AUTO_TEST_CASE(every_option_is_read) {
    const auto o = parse({"--target",
                          "model",
                          "--instance=trn2.48xlarge",
                          "--driver-version",
                          "2.16",
                          "--filter",
                          "reset/*",
                          "--tag",
                          "notify",
                          "--tag",
                          "ecc",
                          "--junit",
                          "r.xml",
                          "--keep-going",
                          "--timeout",
                          "5s",
                          "--emulator",
                          "/x/neuron-emu",
                          "scenarios/reset",
                          "a.yaml"});
    BOOST_TEST(*o.instance == "trn2.48xlarge");
    BOOST_TEST(*o.driver_version == "2.16");
    BOOST_TEST(o.filter == "reset/*");
    BOOST_TEST(o.tags == std::vector<std::string>({"notify", "ecc"}), boost::test_tools::per_element());
    BOOST_TEST(o.junit == "r.xml");
    BOOST_TEST(o.keep_going);
    BOOST_TEST(o.timeout->count() == 5'000'000'000);
    BOOST_TEST(o.emulator == "/x/neuron-emu");
    BOOST_TEST(o.paths == std::vector<std::string>({"scenarios/reset", "a.yaml"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_sysfs_root_is_the_other_target) {
    const auto o = parse({"--sysfs-root", "/sys/devices/virtual/neuron_device", "--list"});
    BOOST_TEST(!o.model_target);
    BOOST_TEST(o.sysfs_root == "/sys/devices/virtual/neuron_device");
    BOOST_TEST(o.list);
}

BOOST_AUTO_TEST_CASE(bad_usage_says_what_is_wrong) {
    refused({"--target", "hardware"}, "--target takes 'model'");
    refused({"--target", "model", "--sysfs-root", "/x"}, "give one target");
    refused({"--sysfs-root"}, "--sysfs-root needs a value");
    refused({"--timeout", "soon"}, "--timeout takes a duration");
    refused({"--keep-goin"}, "did you mean '--keep-going'?");
    refused({"--list=yes"}, "--list takes no value");
    refused({"-j", "0"}, "-j takes a number from 1 to 64, not '0'");
    refused({"--jobs=65"}, "--jobs takes a number from 1 to 64, not '65'");
    refused({"-jx"}, "-j takes a number from 1 to 64, not 'x'");
    refused({"--shard", "0/2"}, "--shard takes I/N with 1 <= I <= N");
    refused({"--shard", "3/2"}, "--shard takes I/N");
    refused({"--shard", "2"}, "--shard takes I/N");
    refused({"--matrix", "--sysfs-root", "/x"}, "--matrix runs against the model");
    refused({"--sysfs-root", "/x", "-j", "2"}, "they run on it one at a time");
    refused({"--matrix", "--instance", "trn1.2xlarge"}, "it takes no --instance or --driver-version");
}

BOOST_AUTO_TEST_CASE(jobs_shards_and_the_matrix_are_read) {
    const auto o = parse({"-j", "4", "--shard", "2/3", "--matrix", "--quiet"});
    BOOST_TEST(o.jobs == 4u);
    BOOST_TEST(o.shard == 1u); // 0-based here
    BOOST_TEST(o.shards == 3u);
    BOOST_TEST(o.matrix);
    BOOST_TEST(o.quiet);
    BOOST_TEST(parse({"-j8"}).jobs == 8u);
    BOOST_TEST(parse({"--jobs=2"}).jobs == 2u);
    BOOST_TEST(parse({}).jobs == 1u);
    BOOST_TEST(parse({}).shards == 1u);
}
