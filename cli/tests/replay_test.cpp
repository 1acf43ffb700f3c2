#define BOOST_TEST_MODULE replay
// `serve --from` and `run --from`: a replayed host shows what was recorded
// and keeps the model's semantics (counters start at the recorded values,
// writes and notifications, samples on the model's clock, injections,
// resets); a hand-made recording of 2.7's metrics/ layout replays; bad
// recordings and requests are refused.

#include "support/process_harness.h"
#include "support/served_tree.h"

#include "neuron/recording/recording_file.h"
#include "neuron/recording/tree_diff.h"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <csignal>
#include <fcntl.h>
#include <fstream>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace neuron::cli::testing;
namespace rec = neuron::recording;

namespace {

const std::string success_total = "neuron0/neuron_core0/stats/status/success/total";
const std::string serial = "neuron0/info/serial_number";

rec::tree_entry& entry(rec::tree_recording& r, const std::string& path) {
    const auto it = std::find_if(r.entries.begin(), r.entries.end(), [&](const auto& e) { return e.path == path; });
    BOOST_TEST_REQUIRE((it != r.entries.end()), path);
    return *it;
}

std::size_t counter_index(const rec::tree_recording& r, const std::string& path) {
    std::size_t n = 0;
    for (const auto& e : r.entries) {
        if (e.path == path) return n;
        if (e.counter) ++n;
    }
    BOOST_FAIL(path << " is not a counter of the recording");
    return 0;
}

// A trn1.2xlarge host at 2.24 as recorded: one execution's worth of success
// counts, its own serial, a file of its own, and one sample in which the
// success count has grown.
std::string host_recording(const temp_dir& tmp) {
    rec::tree_recording r;
    {
        const served original(tmp, "trn1.2xlarge", "2.24.7.0", "original");
        r = live(original.mount, "2.24.7.0");
    }
    entry(r, success_total).value = "41\n";
    entry(r, serial).value = "0123456789abcdef\n";
    rec::tree_entry vendor;
    vendor.path = "neuron0/info/vendor_thing";
    vendor.mode = 0444;
    vendor.value = "hello\n";
    r.entries.insert(std::find_if(r.entries.begin(), r.entries.end(),
                                  [&](const auto& e) { return rec::path_less(vendor.path, e.path); }),
                     vendor);
    r.interval_ns = 1'000'000'000;
    std::vector<std::string> values;
    for (const auto& e : r.entries) {
        if (e.counter) values.push_back(e.value);
    }
    values[counter_index(r, success_total)] = "43\n";
    r.samples.push_back({0, values});
    const auto file = tmp / "host.yaml";
    std::ofstream(file) << rec::write_recording(r);
    return file;
}

std::string text_at(const std::string& mount, const std::string& path) { return slurp(mount + "/" + path); }

void write_text(const std::string& path, const std::string& text) {
    const int fd = ::open(path.c_str(), O_WRONLY);
    BOOST_TEST_REQUIRE(fd >= 0, path);
    BOOST_TEST(::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()), path);
    ::close(fd);
}

void ctl(const temp_dir& tmp, const std::string& socket, std::vector<std::string> args) {
    args.insert(args.begin(), {"ctl", "--control", socket});
    const auto r = run_to_end(tmp, args);
    BOOST_TEST_REQUIRE(r.status == 0, r.err);
}

// 2.7's tree of a one-device Inf1 as someone wrote it by hand: the counters
// below metrics/, only success and reset_count of each core, and a file of
// the host's own.
std::string hand_made_2_7(const temp_dir& tmp) {
    std::string text = "neuron_tree_recording: 1\nroot: /sys/devices/virtual/neuron_device\ndriver_release: 2.7.33.0\n"
                       "device_count: 1\nentries:\n"
                       "  - {path: neuron0, type: directory, mode: '0755'}\n"
                       "  - {path: neuron0/core_count, type: file, mode: '0400', value: '4'}\n"
                       "  - {path: neuron0/metrics, type: directory, mode: '0755'}\n"
                       "  - {path: neuron0/metrics/arch_type, type: file, mode: '0600', value: \"v1\\n\"}\n";
    for (int core = 0; core < 4; ++core) {
        const auto dir = "neuron0/metrics/neuron_core" + std::to_string(core);
        text += "  - {path: " + dir + ", type: directory, mode: '0755'}\n";
        for (const auto* group : {"other_info", "status"}) {
            const std::string counter = std::string(group) == "status" ? "success" : "reset_count";
            const auto base = dir + "/" + group;
            text += "  - {path: " + base + ", type: directory, mode: '0755'}\n";
            text += "  - {path: " + base + "/" + counter + ", type: directory, mode: '0755'}\n";
            for (const auto* field : {"present", "total"}) {
                const auto value = core == 0 && counter == "success" ? "7" : core == 0 ? "3" : "0";
                text += "  - {path: " + base + "/" + counter + "/" + field + ", type: file, mode: '0600', value: \"" +
                        value + "\\n\", counter: true}\n";
            }
        }
    }
    text += "  - {path: neuron0/metrics/vendor_extra, type: file, mode: '0444', value: \"x\\n\"}\n";
    const auto file = tmp / "hand-made.yaml";
    std::ofstream(file) << text;
    return file;
}

} // namespace

BOOST_AUTO_TEST_CASE(a_replayed_host_shows_its_recording_and_keeps_the_models_semantics) {
    require_mount();
    temp_dir tmp("replay");
    const auto file = host_recording(tmp);
    const auto socket = tmp / "control.sock";
    const served host(tmp, {"--from", file, "--control", socket}, "host");
    BOOST_TEST(contains(host.process.err(), "files served by the model"), host.process.err());
    // What the host showed: its counts, identity and its own files.
    BOOST_TEST(text_at(host.mount, success_total) == "41\n");
    BOOST_TEST(text_at(host.mount, serial) == "0123456789abcdef\n");
    BOOST_TEST(text_at(host.mount, "neuron0/info/vendor_thing") == "hello\n");
    // A store clears the count and notifies the file, as the driver does.
    write_text(host.mount + "/neuron0/info/notify_delay", "0");
    const int watched = ::open((host.mount + "/" + success_total).c_str(), O_RDONLY);
    BOOST_TEST_REQUIRE(watched >= 0);
    char buffer[64];
    BOOST_TEST(::read(watched, buffer, sizeof buffer) == 3);
    write_text(host.mount + "/" + success_total, "0");
    pollfd p{watched, POLLPRI, 0};
    BOOST_TEST(::poll(&p, 1, 10'000) == 1);
    BOOST_TEST((p.revents & POLLPRI) != 0);
    ::close(watched);
    BOOST_TEST(text_at(host.mount, success_total) == "0\n");
    // The sample comes one interval after the walk, on the model's clock,
    // and adds the host's two executions to what the model has since.
    ctl(tmp, socket, {"advance", "--ns", "999999999"});
    BOOST_TEST(text_at(host.mount, success_total) == "0\n");
    ctl(tmp, socket, {"advance", "--ns", "1"});
    BOOST_TEST(text_at(host.mount, success_total) == "2\n");
    // Injections and resets act on the model under the recorded tree.
    ctl(tmp, socket, {"inject-ecc", "--device", "0", "--kind", "sram", "--count", "2"});
    BOOST_TEST(text_at(host.mount, "neuron0/stats/hardware/sram_ecc_uncorrected") == "2\n");
    const auto resets_before = text_at(host.mount, "neuron0/neuron_core0/stats/other_info/reset_req_count/total");
    ctl(tmp, socket, {"reset", "--device", "0"});
    ctl(tmp, socket, {"advance", "--ns", "2000000000"});
    BOOST_TEST(text_at(host.mount, "neuron0/neuron_core0/stats/other_info/reset_req_count/total") != resets_before);
}

BOOST_AUTO_TEST_CASE(run_from_shows_the_recorded_host_to_the_command) {
    require_mount();
    temp_dir tmp("replay");
    const auto file = host_recording(tmp);
    const auto r = run_to_end(tmp, {"run", "--from", file, "--", "cat",
                                    "/sys/devices/virtual/neuron_device/neuron0/info/serial_number",
                                    "/sys/class/neuron_device/neuron0/info/vendor_thing"});
    BOOST_TEST_REQUIRE(r.status == 0, r.err);
    BOOST_TEST(r.out == "0123456789abcdef\nhello\n");
}

// record takes the machine's identity beside the driver's tree and serve
// --from shows it again, not the model's own (which follows the seed).
BOOST_AUTO_TEST_CASE(the_machines_identity_is_recorded_and_replayed) {
    require_mount();
    temp_dir tmp("replay");
    const std::string dmi = "devices/virtual/dmi/id";
    std::string recorded_id;
    const auto file = tmp / "host.yaml";
    {
        const served host(tmp, {"--instance", "trn1.2xlarge", "--seed", "5", "--whole-tree"}, "host");
        recorded_id = text_at(host.mount, dmi + "/board_asset_tag");
        const auto r =
            run_to_end(tmp, {"record", "--sysfs-root", host.mount + "/devices/virtual/neuron_device", "-o", file});
        BOOST_TEST_REQUIRE(r.status == 0, r.err);
    }
    const auto recording = rec::read_recording(slurp(file), file);
    const auto named = [&](const std::string& name) {
        const auto it = std::find_if(recording.identity.begin(), recording.identity.end(),
                                     [&](const auto& e) { return e.path == name; });
        BOOST_TEST_REQUIRE((it != recording.identity.end()), name);
        return *it;
    };
    BOOST_TEST(named("product_name").value == "trn1.2xlarge\n");
    BOOST_TEST(named("board_asset_tag").value == recorded_id);
    BOOST_TEST(named("product_uuid").mode == 0400u);

    const served model(tmp, {"--instance", "trn1.2xlarge", "--whole-tree"}, "model");
    const served replay(tmp, {"--from", file, "--whole-tree"}, "replay");
    BOOST_TEST(text_at(model.mount, dmi + "/board_asset_tag") != recorded_id, "the default seed's id differs");
    BOOST_TEST(text_at(replay.mount, dmi + "/board_asset_tag") == recorded_id);
    BOOST_TEST(text_at(replay.mount, dmi + "/product_name") == "trn1.2xlarge\n");
    struct stat st {};
    BOOST_TEST_REQUIRE(::stat((replay.mount + "/" + dmi + "/product_uuid").c_str(), &st) == 0);
    BOOST_TEST((st.st_mode & 07777) == 0400u);
    BOOST_TEST(text_at(replay.mount, "class/dmi/id/product_name") == "trn1.2xlarge\n");
}

BOOST_AUTO_TEST_CASE(materialize_writes_the_recorded_host) {
    require_mount(); // the recording comes from a served tree
    temp_dir tmp("replay");
    const auto file = host_recording(tmp);
    const auto dir = tmp / "plain";
    emulator host({"serve", "--from", file, "--materialize", dir, "--control", "none", "--time", "stepped"},
                  {.stderr_path = tmp / "plain.stderr"});
    host.require_ready();
    BOOST_TEST(slurp(dir + "/" + success_total) == "41\n");
    BOOST_TEST(slurp(dir + "/neuron0/info/vendor_thing") == "hello\n");
    host.signal(SIGTERM);
    host.require_exit(0);
}

BOOST_AUTO_TEST_CASE(a_hand_made_recording_of_2_7s_metrics_layout_replays) {
    require_mount();
    temp_dir tmp("replay");
    const auto file = hand_made_2_7(tmp);
    const auto socket = tmp / "control.sock";
    const served host(tmp, {"--from", file, "--control", socket}, "host");
    BOOST_TEST(contains(host.process.err(),
                        "16 files served by the model, 3 as recorded (1 of them not in the catalogued layout)"),
               host.process.err());
    const auto recorded = rec::read_recording(slurp(file), file);
    const auto d = rec::diff_recordings(recorded, live(host.mount, "2.7.33.0"), {.values = true});
    BOOST_TEST(d.empty(), rec::format_differences(d));
    BOOST_TEST(text_at(host.mount, "neuron0/metrics/neuron_core0/status/success/total") == "7\n");
    // 2.7 counts a reset on every core of the device, from the host's count.
    ctl(tmp, socket, {"reset", "--device", "0"});
    ctl(tmp, socket, {"advance", "--ns", "2000000000"});
    BOOST_TEST(text_at(host.mount, "neuron0/metrics/neuron_core0/other_info/reset_count/total") == "4\n");
    BOOST_TEST(text_at(host.mount, "neuron0/metrics/neuron_core1/other_info/reset_count/total") == "1\n");
}

BOOST_AUTO_TEST_CASE(bad_recordings_and_requests_are_refused) {
    temp_dir tmp("replay");
    const auto mount = tmp / "mnt";
    const auto serve = [&](std::vector<std::string> how) {
        std::vector<std::string> args{"serve"};
        args.insert(args.end(), how.begin(), how.end());
        for (const auto* a : {"--mount", mount.c_str(), "--control", "none", "--time", "stepped"}) args.emplace_back(a);
        return run_to_end(tmp, args);
    };
    auto r = serve({"--from", tmp / "absent.yaml"});
    BOOST_TEST(r.status == 2);
    BOOST_TEST(contains(r.err, "absent.yaml"), r.err);
    std::ofstream(tmp / "cut.yaml")
        << "neuron_tree_recording: 1\nroot: /r\ndevice_count: 1\nentries:\n  - {path: a, type: fil";
    r = serve({"--from", tmp / "cut.yaml"});
    BOOST_TEST(r.status == 2);
    BOOST_TEST(contains(r.err, tmp / "cut.yaml:5:"), r.err);
    const auto file = hand_made_2_7(tmp);
    r = serve({"--from", file, "--instance", "trn2.3xlarge"});
    BOOST_TEST(r.status == 2);
    BOOST_TEST(contains(r.err, "2.7"), r.err);
    r = serve({"--from", file, "--instance", "no.such"});
    BOOST_TEST(r.status == 2);
    BOOST_TEST(contains(r.err, "no.such"), r.err);
}
