#define BOOST_TEST_MODULE shim_vendor_tools
// The vendor's tools against a served emulator with applications on it
// (issue: neuron-ls, neuron-monitor and neuron-top emulated): what neuron-ls
// shows of the processes holding devices, read from the emulator's status
// and /proc, with the tree read at the mount.

#include "support/shim_harness.h"

#include <boost/test/unit_test.hpp>

#include <fmt/format.h>

using namespace neuron::shim::testing;

namespace {

// `neuron-emu TOOL ...` against `emu`'s tree and control socket; its stdout.
std::string tool(served_instance& emu, std::vector<std::string> args) {
    args.insert(args.end(), {"--sysfs-root", emu.mount(), "--control", emu.control()});
    const auto result = neuron::cli::testing::run_to_end(emu.dir(), args);
    BOOST_TEST_REQUIRE(result.status == 0, "neuron-emu " << args.front() << " failed: " << result.err);
    return result.out;
}

program_options visible(served_instance& emu, const std::string& cores) {
    return {.env = {{"NEURON_RT_VISIBLE_CORES", cores}}, .control = emu.control()};
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(shim_vendor_tools, diagnostics)

BOOST_AUTO_TEST_CASE(ls_shows_each_device_with_the_processes_holding_its_cores) {
    require_mount("this test");
    served_instance emu({.instance = "trn1.32xlarge"});
    program app(emu.dir(), "session", visible(emu, "2-3")); // device 1
    BOOST_TEST(app.call("init") == "init NRT_SUCCESS visible=2");

    const auto json = YAML::Load(tool(emu, {"ls", "--json-output"}));
    BOOST_TEST_REQUIRE(json.size() == 16u);
    const auto device = json[1];
    BOOST_TEST(device["neuron_device"].as<int>() == 1);
    BOOST_TEST(device["bdf"].as<std::string>() == "0000:10:1e.0");
    BOOST_TEST(device["nc_count"].as<int>() == 2);
    BOOST_TEST_REQUIRE(device["neuron_processes"].size() == 1u);
    const auto process = device["neuron_processes"][0];
    BOOST_TEST(process["pid"].as<pid_t>() == app.pid());
    // Its command line, cut at 40 characters as neuron-ls cuts it.
    const auto command = program_path("session");
    BOOST_TEST(process["command"].as<std::string>() ==
               (command.size() > 40 ? command.substr(0, 37) + "..." : command));
    BOOST_TEST(process["neuron_runtime_version"].as<std::string>() == "2.30.50");
    BOOST_TEST(json[0]["neuron_processes"].size() == 0u);
    BOOST_TEST(json[2]["neuron_processes"].size() == 0u);

    // The table: the runtime's pid and version on device 1, NA on the others.
    const auto table = tool(emu, {"ls"});
    BOOST_TEST(table.starts_with("instance-type: trn1.32xlarge\ninstance-id: i-0"));
    const auto width = std::max<std::size_t>(3, std::to_string(app.pid()).size());
    BOOST_TEST(table.find(fmt::format("| 1      | 2      | 2-3      | 32 GB  | 13, 0, 5, 2   | 0000:10:1e.0 | {:<{}} | "
                                      "0-31,64-95   | 0    | 2.30.50 |",
                                      app.pid(), width)) != std::string::npos,
               table);
    BOOST_TEST(table.find(fmt::format("| 0      | 2      | 0-1      | 32 GB  | 12, 3, 4, 1   | 0000:10:1b.0 | {:<{}} | "
                                      "0-31,64-95   | 0    | NA      |",
                                      "NA", width)) != std::string::npos,
               table);

    app.call("quit");
    app.require_exit(0);
    BOOST_TEST(tool(emu, {"ls"}).find("PID") == std::string::npos, "no process: no process columns");
}

BOOST_AUTO_TEST_CASE(ls_without_an_emulator_shows_the_tree_and_no_processes) {
    require_mount("this test");
    served_instance emu({.instance = "inf2.xlarge"});
    const auto result = neuron::cli::testing::run_to_end(emu.dir(), {"ls", "--sysfs-root", emu.mount(), "--control", ""});
    BOOST_TEST(result.status == 0, result.err);
    BOOST_TEST(result.out.find("| 0      | 2      | 0-1      | 32 GB  |") != std::string::npos, result.out);
    BOOST_TEST(result.out.find("instance-id: NA") != std::string::npos, "the instance is unknown without EC2 or the emulator");
}

BOOST_AUTO_TEST_CASE(ls_with_no_tree_fails_as_neuron_ls_does) {
    require_mount("this test");
    served_instance emu({.instance = "inf2.xlarge"});
    const auto result = neuron::cli::testing::run_to_end(emu.dir(), {"ls", "--sysfs-root", emu.dir() / "nothing", "--control", ""});
    BOOST_TEST(result.status == 1);
    BOOST_TEST(result.out.empty());
    BOOST_TEST(result.err.find("Failed to discover neuron devices") != std::string::npos, result.err);
}

BOOST_AUTO_TEST_SUITE_END()
