#define BOOST_TEST_MODULE recording
// Recordings of a sysfs tree: walking a tree built here, the YAML file
// round trip and its refusals, and what diff finds and how it says it.

#include "neuron/common/yaml_fields.h"
#include "neuron/recording/recording_file.h"
#include "neuron/recording/tree_diff.h"
#include "neuron/test_support/temporary_directory.h"

#include <boost/test/unit_test.hpp>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>

using namespace neuron::recording;
namespace fs = std::filesystem;

namespace {

// A small Neuron-like tree: a device with a core, a counter, an identity
// value, a link and a binary value.
struct small_tree {
    neuron::test_support::temporary_directory dir{"neuron-recording-test"};
    std::string root = dir.path() + "/neuron_device";

    small_tree() {
        fs::create_directories(root + "/neuron0/neuron_core0/stats/status/success");
        fs::create_directories(root + "/neuron0/info/architecture");
        write("neuron0/core_count", "1\n");
        write("neuron0/info/architecture/instance_type", "trn1.2xlarge\n");
        write("neuron0/neuron_core0/stats/status/success/total", "17\n");
        write("neuron0/binary", std::string("\x01\xff", 2));
        fs::create_symlink("../neuron0", root + "/neuron0/neuron_core0/device");
        fs::permissions(root + "/neuron0/core_count",
                        fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
        std::ofstream(dir.path() + "/version") << "2.24.7.0\n";
        // The machine's identity beside the driver's directory, as in /sys/devices/virtual.
        fs::create_directories(dir.path() + "/dmi/id/power");
        std::ofstream(dir.path() + "/dmi/id/product_name") << "trn1.2xlarge\n";
        std::ofstream(dir.path() + "/dmi/id/board_asset_tag") << "i-0123456789abcdef0\n";
        fs::permissions(dir.path() + "/dmi/id/board_asset_tag", fs::perms::owner_read);
        fs::create_symlink("../../../../class/dmi", dir.path() + "/dmi/id/subsystem");
    }
    void write(const std::string& relative, const std::string& text) const {
        std::ofstream(root + "/" + relative, std::ios::binary) << text;
    }
    tree_recording record(std::uint32_t samples = 0) const {
        record_options o;
        o.root = root;
        o.module_version = dir.path() + "/version";
        o.samples = samples;
        o.interval = std::chrono::nanoseconds(0);
        return record_tree(o);
    }
};

const tree_entry& entry(const tree_recording& r, const std::string& path) {
    for (const auto& e : r.entries) {
        if (e.path == path) return e;
    }
    BOOST_FAIL("no entry " << path);
    return r.entries.front();
}

std::string refusal(const std::string& text) {
    try {
        read_recording(text, "host.yaml");
    } catch (const neuron::common::yaml_error& e) {
        return e.what();
    }
    return "(accepted)";
}

const std::string header = "neuron_tree_recording: 1\nroot: /r\ndevice_count: 1\n";

void refused(const std::string& text, const std::string& prefix) {
    const auto said = refusal(text);
    BOOST_TEST(said.starts_with(prefix), said);
}

} // namespace

BOOST_AUTO_TEST_CASE(a_walk_keeps_structure_modes_links_values_and_identity) {
    const small_tree t;
    const auto r = t.record();
    BOOST_TEST(r.device_count == 1u);
    BOOST_TEST(r.driver_release == "2.24.7.0");
    BOOST_TEST(r.instance_type == "trn1.2xlarge");
    BOOST_TEST(std::is_sorted(r.entries.begin(), r.entries.end(),
                              [](const tree_entry& a, const tree_entry& b) { return a.path < b.path; }));
    BOOST_TEST((entry(r, "neuron0").type == entry_type::directory));
    BOOST_TEST(entry(r, "neuron0/core_count").value == "1\n");
    BOOST_TEST(entry(r, "neuron0/core_count").mode == 0444u);
    BOOST_TEST(!entry(r, "neuron0/core_count").counter);
    BOOST_TEST(entry(r, "neuron0/neuron_core0/stats/status/success/total").counter);
    BOOST_TEST((entry(r, "neuron0/neuron_core0/device").type == entry_type::link));
    BOOST_TEST(entry(r, "neuron0/neuron_core0/device").target == "../neuron0");
    BOOST_TEST(entry(r, "neuron0/binary").value == std::string("\x01\xff", 2));
}

BOOST_AUTO_TEST_CASE(the_machines_identity_beside_the_root_is_recorded_by_name) {
    const small_tree t;
    const auto r = t.record();
    BOOST_TEST_REQUIRE(r.identity.size() == 2u, "only the files: not power/ or the link");
    BOOST_TEST(r.identity[0].path == "board_asset_tag");
    BOOST_TEST(r.identity[0].value == "i-0123456789abcdef0\n");
    BOOST_TEST(r.identity[0].mode == 0400u);
    BOOST_TEST(r.identity[1].path == "product_name");
    BOOST_TEST(r.identity[1].value == "trn1.2xlarge\n");
    BOOST_TEST((read_recording(write_recording(r), "x.yaml") == r));

    record_options elsewhere;
    elsewhere.root = t.root;
    elsewhere.identity_root = t.dir.path() + "/absent";
    BOOST_TEST(record_tree(elsewhere).identity.empty(), "a machine without DMI has no identity");
}

BOOST_AUTO_TEST_CASE(identity_files_are_files_by_name_within_bounds) {
    const auto with = [](const std::string& files) { return header + "entries: []\nidentity:\n" + files; };
    BOOST_TEST(refusal(with("  - {path: product_name, type: file, mode: \"0444\", value: \"x\\n\"}\n")) ==
               "(accepted)");
    refused(with("  - {path: power, type: directory, mode: \"0755\"}\n"),
            "host.yaml:6:12: an identity entry is a file");
    refused(with("  - {path: a/b, type: file, mode: \"0444\"}\n"), "host.yaml:6:12: an identity file is named without");
    refused(with("  - {path: b, type: file, mode: \"0444\"}\n  - {path: a, type: file, mode: \"0444\"}\n"),
            "host.yaml:7:12: 'a' comes after 'b'");
    refused(with("  - {path: a, type: file, mode: \"0444\", counter: true}\n"),
            "host.yaml:6:50: an identity file is not");
    refused(with("  - {path: a, type: file, mode: \"0444\", value: \"" + std::string(4097, 'x') + "\"}\n"),
            "host.yaml:6:12: an identity file's value is at most 4096 bytes");
    std::string many;
    for (std::size_t i = 0; i <= max_identity_files; ++i) {
        many += "  - {path: f" + std::to_string(1000 + i) + ", type: file, mode: \"0444\"}\n";
    }
    refused(with(many), "host.yaml:70:5: more than 64 identity files");
    refused(header + "entries: []\nidentity: x\n", "host.yaml:5:11: identity must be a list");
}

BOOST_AUTO_TEST_CASE(a_root_that_is_not_a_neuron_tree_is_refused) {
    const neuron::test_support::temporary_directory dir;
    record_options o;
    o.root = dir.path();
    BOOST_CHECK_EXCEPTION(record_tree(o), recording_error, [](const recording_error& e) {
        return std::string(e.what()).find("is not a Neuron driver's tree: it holds no neuronN device directory") !=
               std::string::npos;
    });
    o.root = dir.path() + "/absent";
    BOOST_CHECK_EXCEPTION(record_tree(o), recording_error, [](const recording_error& e) {
        return std::string(e.what()).find("cannot list") != std::string::npos;
    });
}

BOOST_AUTO_TEST_CASE(samples_take_the_counters_at_their_planned_times) {
    const small_tree t;
    auto o = record_options{};
    o.root = t.root;
    o.samples = 3;
    o.interval = std::chrono::nanoseconds(0);
    o.interval = std::chrono::nanoseconds(1000);
    const auto r = record_tree(o);
    BOOST_TEST_REQUIRE(r.samples.size() == 3u);
    BOOST_TEST(r.samples[0].values.to_vector() == std::vector<std::string>{"17\n"});
    BOOST_TEST(r.samples[1].at_ns == 1000u);
    BOOST_TEST(r.samples[2].at_ns == 2000u);
    BOOST_TEST((read_recording(write_recording(r), "samples.yaml") == r));
    o.interval = std::chrono::nanoseconds(0); // all at once: still a recording
    const auto burst = record_tree(o);
    BOOST_TEST((read_recording(write_recording(burst), "burst.yaml") == burst));
    o.samples = max_samples + 1;
    BOOST_CHECK_THROW(record_tree(o), recording_error);
}

// What a real host can hold that no recording may lose or refuse: names
// that are not ASCII, an errno without a name, a pipe (never opened),
// names that sort differently component by component.
BOOST_AUTO_TEST_CASE(odd_trees_record_into_recordings_that_read_back) {
    const small_tree t;
    t.write("neuron0/caf\xc3\xa9", "x\n");
    t.write("neuron0/info-x", "1\n");
    ::mkfifo((t.root + "/neuron0/pipe").c_str(), 0600);
    auto r = t.record();
    BOOST_TEST(
        std::none_of(r.entries.begin(), r.entries.end(), [](const tree_entry& e) { return e.path == "neuron0/pipe"; }));
    BOOST_TEST(entry(r, "neuron0/caf\\xc3\\xa9").value == "x\n");
    BOOST_TEST(std::is_sorted(r.entries.begin(), r.entries.end(),
                              [](const tree_entry& a, const tree_entry& b) { return path_less(a.path, b.path); }));
    BOOST_TEST(path_less("neuron0/info/architecture", "neuron0/info-x"), "a directory's entries come right after it");
    for (auto& e : r.entries) {
        if (e.path == "neuron0/binary") e.read_error = 524, e.value.clear(); // ENOTSUPP: no name in the table
    }
    const auto text = write_recording(r);
    BOOST_TEST(text.find("error: errno 524") != std::string::npos, text);
    BOOST_TEST((read_recording(text, "odd.yaml") == r));
}

BOOST_AUTO_TEST_CASE(a_recording_reads_back_as_written) {
    const small_tree t;
    auto r = t.record();
    auto& failed = r.entries.front();
    r.entries.insert(r.entries.begin(), tree_entry{"a_reset", entry_type::file, 0200, "", "", EACCES, false});
    (void)failed;
    r.interval_ns = 1'000'000'000;
    r.samples = {{0, {"17\n"}}, {1'000'000'000, {"18\n"}}};
    const auto text = write_recording(r);
    BOOST_TEST(text.find("error: EACCES") != std::string::npos, text);
    BOOST_TEST(text.find("value_hex: \"01ff\"") != std::string::npos, text);
    BOOST_TEST((read_recording(text, "x.yaml") == r));
}

BOOST_AUTO_TEST_CASE(a_bad_recording_says_where) {
    BOOST_TEST(refusal("neuron_tree_recording: 2\nroot: /r\ndevice_count: 1\nentries: []\n") ==
               "host.yaml:1:24: a recording of format 2 (this reads format 1)");
    refused(header + "entries:\n  - {path: b, type: file, mode: \"0444\"}\n  - {path: a, type: file, mode: \"0444\"}\n",
            "host.yaml:6:12: 'a' comes after 'b'");
    BOOST_TEST(refusal(header + "entries:\n  - {path: a, type: pipe, mode: \"0444\"}\n") ==
               "host.yaml:5:21: type is directory, file or link");
    refused(header + "entries:\n  - {path: a, type: file, mode: \"9\"}\n", "host.yaml:5:33: mode is octal");
    // Paths a tree can hold, and nothing else: no '.', '..' or empty names, no name past 255 bytes.
    const std::vector<std::string> bad_paths{
        "../x", "a/..", "./a", "a/./b", "a//b", "a/", "/a", std::string(256, 'n'), "a/" + std::string(4095, 'n')};
    for (const auto& bad : bad_paths) {
        refused(header + "entries:\n  - {path: \"" + bad + "\", type: file, mode: \"0444\"}\n",
                "host.yaml:5:12: a path");
    }
    BOOST_TEST(refusal(header + "entries:\n  - {path: a..b/.c, type: file, mode: \"0444\"}\n") == "(accepted)");
    refused(header + "entries:\n  - {path: a, type: file, mode: \"0444\", error: ENOPE}\n",
            "host.yaml:5:48: error is an errno name");
    refused(header + "entries:\n  - {path: a, type: directory, mode: \"0755\", value: x}\n",
            "host.yaml:5:53: a directory has no value");
    refused(header + "entries:\n  - {path: a, type: file, mode: \"0444\", counter: true}\n"
                     "samples: {interval_ns: 1, taken: [{at_ns: 0, values: []}]}\n",
            "host.yaml:6:54: 0 values; the recording has 1 counters");
    refused(header + "entries: [\n", "host.yaml:");
    BOOST_TEST(refusal("root: /r\n").starts_with("host.yaml:1:1: a recording needs"), refusal("root: /r\n"));
    // Truncated at every line: refused with a position, or read (a shorter, valid recording), never a crash.
    const small_tree t;
    const auto text = write_recording(t.record());
    for (auto at = text.find('\n'); at != std::string::npos; at = text.find('\n', at + 1)) {
        const auto outcome = refusal(text.substr(0, at));
        BOOST_TEST((outcome == "(accepted)" || outcome.starts_with("host.yaml:")), outcome);
    }
}

BOOST_AUTO_TEST_CASE(diff_finds_each_kind_of_difference_and_ignores_counter_values) {
    const small_tree t;
    const auto a = t.record();
    BOOST_TEST(diff_recordings(a, a).empty());
    auto b = a;
    b.driver_release = "2.25.0.0";
    std::erase_if(b.entries, [](const tree_entry& e) { return e.path == "neuron0/info/architecture/instance_type"; });
    for (auto& e : b.entries) {
        if (e.path == "neuron0/core_count") e.mode = 0644, e.value = "2\n";
        if (e.path == "neuron0/neuron_core0/device") e.target = "../..";
        if (e.path == "neuron0/neuron_core0/stats/status/success/total") e.value = "18\n";
        if (e.path == "neuron0/binary") e.read_error = EIO, e.value.clear();
    }
    const auto d = diff_recordings(a, b);
    std::map<std::string, int> by_group;
    for (const auto& x : d) ++by_group[x.group];
    BOOST_TEST(by_group["identity"] == 1);
    BOOST_TEST(by_group["structure"] == 1);
    BOOST_TEST(by_group["modes"] == 1);
    BOOST_TEST(by_group["links"] == 1);
    BOOST_TEST(by_group["reads"] == 1);
    BOOST_TEST(by_group["values"] == 1, "the counter's value is not compared");
    BOOST_TEST(diff_recordings(a, b, {true}).size() == d.size() + 1, "--values compares it");
    for (auto& e : b.entries) {
        if (e.path == "neuron0/neuron_core0/stats/status/success/total") e.value = "18 events\n";
    }
    const auto formats = diff_recordings(a, b);
    BOOST_TEST(
        std::count_if(formats.begin(), formats.end(), [](const difference& x) { return x.group == "formats"; }) == 1);
    const auto text = format_differences(d);
    BOOST_TEST(text.find("identity: 1 difference\n  driver release: A 2.24.7.0 | B 2.25.0.0\n") != std::string::npos,
               text);
    BOOST_TEST(text.find("structure: 1 difference\n  neuron*/info/architecture/instance_type: A file | B absent\n") !=
                   std::string::npos,
               text);
    // A directory one side lacks counts what lies below it, on one line.
    std::erase_if(b.entries, [](const tree_entry& e) { return e.path.starts_with("neuron0/info"); });
    const auto folded = diff_recordings(a, b);
    const auto info =
        std::find_if(folded.begin(), folded.end(), [](const difference& x) { return x.path == "neuron0/info"; });
    BOOST_TEST_REQUIRE((info != folded.end()));
    BOOST_TEST(info->a == "directory with 2 entries below");
    BOOST_TEST(
        std::count_if(folded.begin(), folded.end(), [](const difference& x) { return x.group == "structure"; }) == 1);
}

BOOST_AUTO_TEST_CASE(diff_compares_identity_files_when_both_recorded_them_ids_by_shape) {
    const small_tree t;
    auto a = t.record();
    BOOST_TEST_REQUIRE(a.identity.size() == 2u);
    auto b = a;
    b.identity[0].value = "i-0fedcba98765432100\n"; // board_asset_tag: another machine, one digit more
    auto same_shape = a;
    same_shape.identity[0].value = "i-0fedcba9876543210\n";
    BOOST_TEST(diff_recordings(a, same_shape).empty(), "another machine's id of the same shape");
    BOOST_TEST(diff_recordings(a, same_shape, {.values = true}).size() == 1u);
    const auto ids = diff_recordings(a, b);
    BOOST_TEST_REQUIRE(ids.size() == 1u);
    BOOST_TEST(ids[0].group == "values");
    BOOST_TEST(ids[0].path == "dmi/id/board_asset_tag");
    b = a;
    b.identity[1].value = "trn2.48xlarge\n";
    tree_entry vendor;
    vendor.path = "sys_vendor";
    vendor.mode = 0444;
    vendor.value = "Amazon EC2\n";
    b.identity.push_back(vendor);
    const auto d = diff_recordings(a, b);
    BOOST_TEST_REQUIRE(d.size() == 2u);
    BOOST_TEST((d[0].group == "values" && d[0].path == "dmi/id/product_name"));
    BOOST_TEST((d[1].group == "structure" && d[1].path == "dmi/id/sys_vendor" && d[1].a == "absent"));
    b.identity.clear();
    BOOST_TEST(diff_recordings(a, b).empty(), "a recording without identity files did not record them");
}

BOOST_AUTO_TEST_CASE(differences_of_many_devices_are_counted_by_pattern) {
    std::vector<difference> d;
    for (int i = 0; i < 16; ++i)
        d.push_back({"structure", "neuron" + std::to_string(i) + "/metrics", "absent", "directory"});
    BOOST_TEST(format_differences(d) ==
               "structure: 16 differences\n  neuron*/metrics: A absent | B directory (16 paths)\n");
    BOOST_TEST(number_shape("12 34\n") == "N N\n");
    const std::vector<difference> cores{{"modes", "neuron12/neuron_core3/stats/neuronx7", "0444", "0644"},
                                        {"modes", "neuron1/neuron_core0/stats/neuronx7", "0444", "0644"}};
    BOOST_TEST(format_differences(cores) ==
               "modes: 2 differences\n  neuron*/neuron_core*/stats/neuronx7: A 0444 | B 0644 (2 paths)\n");
}
