#define BOOST_TEST_MODULE ctl_command
// `neuron-emu ctl` end to end against a served instance (stepped time, a
// control socket in the case's own directory): one line per verb, JSON where
// asked, and exit status 1 with the reason (2 for usage) when it fails.

#include "support/process_harness.h"

#include <boost/test/unit_test.hpp>
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

using namespace neuron::cli::testing;

namespace {

// A served trn1.32xlarge in stepped time, its tree and its control socket.
struct served {
    explicit served(const std::string& time = "stepped", const std::string& instance = "trn1.32xlarge")
            : tmp("ctl"), mount(tmp / "mnt"), socket(tmp / "ctl.sock"),
              serve({"serve", "--instance", instance, "--mount", mount, "--control", socket, "--time", time},
                    {.stderr_path = tmp / "serve-stderr"}) {
        serve.require_ready();
        const auto control_line = serve.read_line(std::chrono::seconds(20));
        BOOST_TEST_REQUIRE(control_line.has_value());
        BOOST_TEST_REQUIRE(contains(*control_line, socket), *control_line);
    }
    outcome ctl(std::vector<std::string> args) const {
        args.insert(args.begin(), {"ctl", "--control", socket});
        return run_to_end(tmp, args);
    }
    std::string read(const std::string& relative) const { return read_file(mount + "/" + relative).text; }

    temp_dir tmp;
    std::string mount;
    std::string socket;
    emulator serve;
};

} // namespace

BOOST_AUTO_TEST_CASE(status_is_one_line_or_the_whole_report_as_json) {
    neuron::test_support::require_fuse_mount("the ctl test");
    served s;
    const auto line = s.ctl({"status"});
    BOOST_TEST(line.status == 0, line.err);
    BOOST_TEST(line.out.starts_with("trn1.32xlarge driver 2.24.7.0 stepped t=0ns devices=16 "), line.out);
    BOOST_TEST(std::count(line.out.begin(), line.out.end(), '\n') == 1);
    const auto json = s.ctl({"status", "--json"});
    BOOST_TEST(json.status == 0, json.err);
    const auto report = YAML::Load(json.out);
    BOOST_TEST(report["instance"].as<std::string>() == "trn1.32xlarge");
    BOOST_TEST(report["devices"].size() == 16u);
    BOOST_TEST(report["devices"][0]["cores"].size() == 2u);
    BOOST_TEST(report["devices"][0]["reset_state"].as<int>() == 1);
}

BOOST_AUTO_TEST_CASE(inject_ecc_reaches_sysfs_and_the_report) {
    neuron::test_support::require_fuse_mount("the ctl test");
    served s;
    const auto r = s.ctl({"inject-ecc", "--device", "3", "--kind", "hbm", "--count", "2", "--channel", "1"});
    BOOST_TEST(r.status == 0, r.err);
    BOOST_TEST(r.out == "neuron3: injected 2 hbm errors on channel 1\n");
    BOOST_TEST(s.read("neuron3/stats/hardware/mem_ecc_uncorrected") == "2\n");
    const auto report = YAML::Load(s.ctl({"status", "--json"}).out);
    BOOST_TEST(report["devices"][3]["hardware"]["mem_ecc_uncorrected"].as<int>() == 2);
}

BOOST_AUTO_TEST_CASE(inject_fault_arms_a_fault_or_says_why_not_in_one_line) {
    neuron::test_support::require_fuse_mount("the ctl test");
    served s;
    const auto engine =
        s.ctl({"inject-fault", "--device", "1", "--core", "1", "--kind", "out_of_bounds", "--engine", "vector"});
    BOOST_TEST(engine.status == 0, engine.err);
    BOOST_TEST(engine.out == "neuron1: out_of_bounds armed on core 1, aimed at the vector engine\n");
    const auto queue = s.ctl({"inject-fault", "--device", "0", "--kind", "dma_abort", "--queue", "0"});
    BOOST_TEST(queue.status == 0, queue.err);
    BOOST_TEST(queue.out == "neuron0: dma_abort armed on every core, aimed at DMA queue 0\n");

    const auto one_line_error = [&](const std::vector<std::string>& args, const std::string& reason) {
        const auto r = s.ctl(args);
        BOOST_TEST(r.status == 1);
        BOOST_TEST(r.out.empty(), r.out);
        BOOST_TEST(r.err.starts_with("neuron-emu: ctl inject-fault: "), r.err);
        BOOST_TEST(contains(r.err, reason), r.err);
        BOOST_TEST(std::count(r.err.begin(), r.err.end(), '\n') == 1, r.err);
    };
    one_line_error({"inject-fault", "--device", "0", "--kind", "bogus"},
                   "unknown fault kind 'bogus' (one of: dma_abort, out_of_bounds, hbm_uncorrectable, hbm_repairable, "
                   "sram_uncorrectable, notification_overflow, collectives_hang)");
    one_line_error({"inject-fault", "--device", "0", "--kind", "out_of_bounds", "--engine", "tensor", "--queue", "0"},
                   "not both");
    one_line_error({"inject-fault", "--device", "0", "--kind", "out_of_bounds", "--engine", "warp"},
                   "'warp' is not an engine");
    one_line_error({"inject-fault", "--device", "16", "--kind", "dma_abort"}, "16");
    const auto usage = s.ctl({"inject-fault", "--device", "0", "--kind", "dma_abort", "--queue", "4294967296"});
    BOOST_TEST(usage.status == 2);
    BOOST_TEST(contains(usage.err, "--queue 4294967296 is not a DMA queue"), usage.err);
}

BOOST_AUTO_TEST_CASE(the_hbm_repair_state_decides_which_file_counts) {
    neuron::test_support::require_fuse_mount("the ctl test");
    served s("stepped", "trn2.3xlarge");
    BOOST_TEST(s.ctl({"inject-ecc", "--device", "0", "--kind", "hbm", "--count", "3"}).status == 0);
    BOOST_TEST(s.read("neuron0/stats/hardware/mem_ecc_uncorrected") == "3\n");
    const auto pending = s.ctl({"set-repair-state", "--device", "0", "--state", "pending"});
    BOOST_TEST(pending.status == 0, pending.err);
    BOOST_TEST(pending.out == "neuron0: HBM repair state pending (1)\n");
    BOOST_TEST(s.read("neuron0/stats/hardware/mem_ecc_uncorrected") == "0\n");
    BOOST_TEST(s.read("neuron0/stats/hardware/mem_ecc_repairable_uncorrected") == "3\n");
    BOOST_TEST(s.ctl({"set-repair-state", "--device", "0", "--state", "failed"}).status == 0);
    BOOST_TEST(s.read("neuron0/stats/hardware/mem_ecc_uncorrected") == "3\n");
    BOOST_TEST(s.read("neuron0/stats/hardware/mem_ecc_repairable_uncorrected") == "0\n");
    const auto report = YAML::Load(s.ctl({"status", "--json"}).out);
    BOOST_TEST(report["devices"][0]["ecc_registers"]["hbm_repair_state"].as<int>() == 2);
    const auto bad = s.ctl({"set-repair-state", "--device", "0", "--state", "repaired"});
    BOOST_TEST(bad.status == 2);
    BOOST_TEST(contains(bad.err, "none, pending or failed"), bad.err);
}

BOOST_AUTO_TEST_CASE(trainium1_firmware_has_no_repair_state) {
    neuron::test_support::require_fuse_mount("the ctl test");
    served s;
    const auto r = s.ctl({"set-repair-state", "--device", "0", "--state", "failed"});
    BOOST_TEST(r.status == 1);
    BOOST_TEST(contains(r.err, "no HBM repair state"), r.err);
}

BOOST_AUTO_TEST_CASE(reset_and_failed_resets_move_in_stepped_time) {
    neuron::test_support::require_fuse_mount("the ctl test");
    served s;
    BOOST_TEST(s.ctl({"reset", "--device", "0"}).out == "neuron0: reset queued\n");
    BOOST_TEST(s.read("neuron0/reset") == "0\n");
    BOOST_TEST(s.ctl({"reset", "--device", "0"}).out == "neuron0: reset already_pending\n");
    BOOST_TEST(s.ctl({"advance", "--ns", "1000000000"}).out == "simulated time is 1000000000 ns\n");
    BOOST_TEST(s.read("neuron0/reset") == "1\n");
    BOOST_TEST(s.ctl({"fail-resets", "--device", "0", "--count", "1"}).out == "neuron0: the next 1 reset will fail\n");
    s.ctl({"reset", "--device", "0"});
    s.ctl({"advance", "--ns", "1000000000"});
    BOOST_TEST(s.read("neuron0/reset") == "2\n");
    BOOST_TEST(s.read("neuron0/neuron_core1/stats/other_info/reset_fail_count/total") == "1\n");
}

BOOST_AUTO_TEST_CASE(emit_debug_without_a_client_discards_and_says_so) {
    neuron::test_support::require_fuse_mount("the ctl test");
    served s;
    const auto r = s.ctl({"emit-debug", "--core", "5", "--count", "3", "--shape", "2,2"});
    BOOST_TEST(r.status == 0, r.err);
    BOOST_TEST(r.out == "logical core 5: 3 emitted, 0 accepted, 0 dropped (buffer full), 3 discarded (no client)\n");
    const auto json = YAML::Load(s.ctl({"emit-debug", "--core", "5", "--json"}).out);
    BOOST_TEST(json["discarded"].as<int>() == 1);
}

BOOST_AUTO_TEST_CASE(the_emulator_refusing_a_request_is_exit_1_with_its_reason) {
    neuron::test_support::require_fuse_mount("the ctl test");
    served s;
    const auto kind = s.ctl({"inject-ecc", "--device", "0", "--kind", "plasma"});
    BOOST_TEST(kind.status == 1);
    BOOST_TEST(contains(kind.err, "plasma"), kind.err);
    BOOST_TEST(contains(kind.err, "hbm-repairable"), kind.err); // the valid kinds are listed
    const auto device = s.ctl({"reset", "--device", "16"});
    BOOST_TEST(device.status == 1);
    BOOST_TEST(contains(device.err, "device 16 out of range"), device.err);
    const auto dtype = s.ctl({"emit-debug", "--core", "0", "--dtype", "complex64"});
    BOOST_TEST(dtype.status == 1);
    BOOST_TEST(contains(dtype.err, "complex64"), dtype.err);
    const auto pipe = s.ctl({"emit-debug", "--core", "0", "--pipe", "7"});
    BOOST_TEST(pipe.status == 1);
    BOOST_TEST(contains(pipe.err, "pipe 7"), pipe.err);
    const auto channel = s.ctl({"inject-ecc", "--device", "0", "--kind", "hbm", "--channel", "4"});
    BOOST_TEST(channel.status == 1);
    BOOST_TEST(contains(channel.err, "HBM channel 4 out of range"), channel.err);
}

// The largest channel number must not wrap into the wire's "default channel".
BOOST_AUTO_TEST_CASE(a_channel_beyond_the_wire_is_refused_not_the_default) {
    neuron::test_support::require_fuse_mount("the ctl test");
    served s;
    const auto r = s.ctl({"inject-ecc", "--device", "0", "--kind", "hbm", "--channel", "4294967295"});
    BOOST_TEST(r.status == 2);
    BOOST_TEST(contains(r.err, "--channel 4294967295"), r.err);
    const auto json = YAML::Load(s.ctl({"status", "--json"}).out);
    BOOST_TEST(json["devices"][0]["hardware"]["mem_ecc_uncorrected"].as<int>() == 0, "an error was injected anyway");
}

BOOST_AUTO_TEST_CASE(advance_needs_stepped_time) {
    neuron::test_support::require_fuse_mount("the ctl test");
    served s("realtime");
    const auto r = s.ctl({"advance", "--ns", "5"});
    BOOST_TEST(r.status == 1);
    BOOST_TEST(contains(r.err, "stepped"), r.err);
}

BOOST_AUTO_TEST_CASE(no_emulator_is_exit_1_naming_the_socket) {
    temp_dir tmp("ctl");
    const auto missing = tmp / "nothing.sock";
    const auto r = run_to_end(tmp, {"ctl", "--control", missing, "status"});
    BOOST_TEST(r.status == 1);
    BOOST_TEST(contains(r.err, missing), r.err);
    BOOST_TEST(r.out.empty());
}

BOOST_AUTO_TEST_CASE(usage_errors_are_exit_2) {
    temp_dir tmp("ctl");
    const auto socket = tmp / "nothing.sock";
    const auto no_verb = run_to_end(tmp, {"ctl", "--control", socket});
    BOOST_TEST(no_verb.status == 2);
    BOOST_TEST(contains(no_verb.err, "give a verb"), no_verb.err);
    const auto typo = run_to_end(tmp, {"ctl", "--control", socket, "statsu"});
    BOOST_TEST(typo.status == 2);
    BOOST_TEST(contains(typo.err, "did you mean 'status'"), typo.err);
    const auto option = run_to_end(tmp, {"ctl", "--control", socket, "reset", "--devcie", "0"});
    BOOST_TEST(option.status == 2);
    BOOST_TEST(contains(option.err, "did you mean '--device'"), option.err);
    const auto missing = run_to_end(tmp, {"ctl", "--control", socket, "reset"});
    BOOST_TEST(missing.status == 2);
    BOOST_TEST(contains(missing.err, "--device is required"), missing.err);
}
