#define BOOST_TEST_MODULE replay_plan
// How a recording becomes a tree to serve: the nearest catalogued layout,
// the model's files where the layout has them (counters seeded from the
// recording and its samples), everything else as recorded, and refusals.

#include "neuron/model/spec/errors.h"
#include "neuron/recording/replay_plan.h"
#include "neuron/sysfs/errors.h"
#include "neuron/sysfs/tree_builder.h"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cerrno>

using namespace neuron::recording;
using neuron::model::counter_field;
using neuron::model::counter_kind;
using neuron::model::counter_ref;
using neuron::sysfs::attribute_kind;

namespace {

struct recording_builder {
    tree_recording r;
    explicit recording_builder(std::string release, std::uint32_t devices = 1) {
        r.root = "/sys/devices/virtual/neuron_device";
        r.driver_release = std::move(release);
        r.device_count = devices;
    }
    static tree_entry entry(std::string path, entry_type type, std::uint32_t mode) {
        tree_entry e;
        e.path = std::move(path);
        e.type = type;
        e.mode = mode;
        return e;
    }
    recording_builder& dir(std::string path) {
        r.entries.push_back(entry(std::move(path), entry_type::directory, 0755));
        return *this;
    }
    recording_builder& file(std::string path, std::string value, std::uint32_t mode = 0444) {
        auto e = entry(std::move(path), entry_type::file, mode);
        e.value = std::move(value);
        e.counter = is_counter(e.path);
        r.entries.push_back(std::move(e));
        return *this;
    }
    recording_builder& failing(std::string path, int error) {
        auto e = entry(std::move(path), entry_type::file, 0200);
        e.read_error = error;
        r.entries.push_back(std::move(e));
        return *this;
    }
    tree_recording done() {
        std::sort(r.entries.begin(), r.entries.end(),
                  [](const auto& a, const auto& b) { return path_less(a.path, b.path); });
        return r;
    }
};

// 2.7's tree of an Inf1 with one device, as a host would show it: the
// counters below metrics/, a vendor file the catalogue does not know.
tree_recording inf1_at_2_7() {
    recording_builder b("2.7.33.0");
    b.dir("neuron0")
        .file("neuron0/core_count", "4")
        .dir("neuron0/metrics")
        .file("neuron0/metrics/arch_type", "v1\n", 0600);
    for (int core = 0; core < 4; ++core) {
        const auto base = "neuron0/metrics/neuron_core" + std::to_string(core);
        b.dir(base).dir(base + "/status").dir(base + "/status/success");
        b.file(base + "/status/success/total", core == 0 ? "7\n" : "0\n", 0600);
        b.file(base + "/status/success/present", core == 0 ? "2\n" : "0\n", 0600);
    }
    b.file("neuron0/metrics/vendor_extra", "x\n");
    return b.done();
}

tree_entry rec_link(std::string path, std::string target) {
    tree_entry e;
    e.path = std::move(path);
    e.type = entry_type::link;
    e.mode = 0777;
    e.target = std::move(target);
    return e;
}

const neuron::sysfs::node& served_node(const replay_plan& plan, const std::string& path) {
    const auto id = plan.served.tree.resolve(std::string(neuron::sysfs::devices_path) + "/" + path);
    BOOST_TEST_REQUIRE(id != neuron::sysfs::no_node, path);
    return plan.served.tree.at(id);
}

} // namespace

BOOST_AUTO_TEST_CASE(counters_are_files_below_stats_or_2_7s_metrics_cores) {
    BOOST_TEST(is_counter("neuron0/neuron_core0/stats/status/success/total"));
    BOOST_TEST(is_counter("neuron0/stats/hardware/mem_ecc_uncorrected"));
    BOOST_TEST(is_counter("neuron0/metrics/neuron_core1/status/success/total"));
    BOOST_TEST(!is_counter("neuron0/metrics/arch_type"));
    BOOST_TEST(!is_counter("neuron0/info/serial_number"));
}

BOOST_AUTO_TEST_CASE(a_hand_made_2_7_recording_gets_its_layout_and_the_models_counters) {
    const auto plan = plan_replay(inf1_at_2_7(), {});
    BOOST_TEST(plan.instance == "inf1.xlarge"); // the first of the catalogue's identical trees
    BOOST_TEST(plan.release->tag == "2.7.15.0");
    const auto& total = served_node(plan, "neuron0/metrics/neuron_core0/status/success/total");
    BOOST_TEST((total.attr.kind == attribute_kind::counter_field));
    BOOST_TEST(total.mode == 0600u);
    const auto success = counter_ref::of_core(0, 0, counter_kind::success);
    const neuron::model::scripted_counter_value seven{0, success, counter_field::total, 7};
    const neuron::model::scripted_counter_value two{0, success, counter_field::present, 2};
    BOOST_TEST((std::find(plan.counter_script.begin(), plan.counter_script.end(), seven) != plan.counter_script.end()));
    BOOST_TEST((std::find(plan.counter_script.begin(), plan.counter_script.end(), two) != plan.counter_script.end()));
    BOOST_TEST(plan.counter_script.size() == 8u); // two fields of four cores
    // What the model does not move is served as recorded, known or not.
    const auto& arch = served_node(plan, "neuron0/metrics/arch_type");
    BOOST_TEST((arch.attr.kind == attribute_kind::recorded));
    BOOST_TEST(plan.served.recorded.read(arch.attr.recorded, 0).second == "v1\n");
    const auto& extra = served_node(plan, "neuron0/metrics/vendor_extra");
    BOOST_TEST(plan.served.recorded.read(extra.attr.recorded, 0).second == "x\n");
    BOOST_TEST(plan.counts.modelled == 8u);
    BOOST_TEST(plan.counts.as_recorded == 3u);
    BOOST_TEST(plan.counts.host_only == 1u);
    BOOST_TEST(plan.counts.layout_only > 0u); // the layout's other counters, dev, uevent, power/ ...
    // The layout's own files the host did not show are not served.
    BOOST_TEST(plan.served.tree.resolve(std::string(neuron::sysfs::devices_path) + "/neuron0/uevent") ==
               neuron::sysfs::no_node);
    // The class half comes from the layout.
    BOOST_TEST(plan.served.tree.resolve("class/neuron_device") != neuron::sysfs::no_node);
}

BOOST_AUTO_TEST_CASE(samples_replay_as_changes_one_interval_after_the_walk) {
    auto r = inf1_at_2_7();
    r.interval_ns = 1'000'000'000;
    std::vector<std::string> still(8, "0\n");
    // Counter entries in path order: core0 present, core0 total, core1 ...
    auto first = still;
    first[0] = "2\n";
    first[1] = "7\n";
    auto second = first;
    second[1] = "9\n";
    r.samples = {{0, first}, {1'000'000'000, second}};
    const auto plan = plan_replay(r, {});
    BOOST_TEST(sample_time_ns(r, 0) == 1'000'000'000u);
    const auto success = counter_ref::of_core(0, 0, counter_kind::success);
    std::vector<neuron::model::scripted_counter_value> later;
    for (const auto& v : plan.counter_script) {
        if (v.at_ns > 0) later.push_back(v);
    }
    // Sample 0 repeats the walk: nothing to replay; sample 1 moves one field.
    BOOST_TEST_REQUIRE(later.size() == 1u);
    BOOST_TEST((later[0] == neuron::model::scripted_counter_value{2'000'000'000, success, counter_field::total, 2,
                                                                  neuron::model::script_action::add}));
}

// The model plays the script in time order: the plan makes it so, so that
// the model takes it as it is rather than sorting a copy of millions.
BOOST_AUTO_TEST_CASE(the_script_comes_in_time_order) {
    auto r = inf1_at_2_7();
    r.interval_ns = 1'000'000'000;
    for (std::size_t n = 0; n < 5; ++n) {
        r.samples.push_back({n * 1'000'000, std::vector<std::string>(8, std::to_string(n + 1) + "\n")});
    }
    const auto plan = plan_replay(r, {});
    BOOST_TEST(plan.counter_script.size() > 8u * 5u);
    BOOST_TEST(std::is_sorted(plan.counter_script.begin(), plan.counter_script.end(),
                              [](const auto& a, const auto& b) { return a.at_ns < b.at_ns; }));
}

BOOST_AUTO_TEST_CASE(identity_is_served_as_recorded) {
    recording_builder b("2.24.7.0");
    b.dir("neuron0").dir("neuron0/info").file("neuron0/info/serial_number", "0123456789abcdef\n", 0644);
    b.file("neuron0/core_count", "2", 0400).failing("neuron0/reset", EIO);
    b.dir("neuron0/neuron_core0").dir("neuron0/neuron_core0/stats").dir("neuron0/neuron_core0/stats/status");
    b.dir("neuron0/neuron_core0/stats/status/success");
    b.file("neuron0/neuron_core0/stats/status/success/total", "not a number\n", 0644);
    const auto plan = plan_replay(b.done(), {"trn1.2xlarge", "", 0});
    BOOST_TEST(plan.instance == "trn1.2xlarge");
    const auto& serial = served_node(plan, "neuron0/info/serial_number");
    BOOST_TEST((serial.attr.kind == attribute_kind::recorded));
    BOOST_TEST(plan.served.recorded.read(serial.attr.recorded, 0).second == "0123456789abcdef\n");
    // reset acts on the model; its read is the model's.
    BOOST_TEST((served_node(plan, "neuron0/reset").attr.kind == attribute_kind::reset));
    // A counter that does not read as one is shown as it was.
    const auto& odd = served_node(plan, "neuron0/neuron_core0/stats/status/success/total");
    BOOST_TEST((odd.attr.kind == attribute_kind::recorded));
    BOOST_TEST(plan.counter_script.empty());
}

BOOST_AUTO_TEST_CASE(a_recorded_read_error_is_served_and_a_missing_parent_is_made) {
    recording_builder b("2.24.7.0");
    b.failing("neuron0/vendor/broken", EACCES).file("neuron0/vendor/ok", "1\n");
    b.failing("neuron0/vendor/unsupported", 524).failing("neuron0/vendor/internal", 600);
    const auto plan = plan_replay(b.done(), {"trn1.2xlarge", "", 0});
    const auto error_of = [&](const std::string& path) {
        return plan.served.recorded.read(served_node(plan, path).attr.recorded, 0).first;
    };
    BOOST_TEST(error_of("neuron0/vendor/broken") == EACCES);
    // FUSE carries errnos below 512 only: sysfs's ENOTSUPP reads as EOPNOTSUPP, others as EIO.
    BOOST_TEST(error_of("neuron0/vendor/unsupported") == EOPNOTSUPP);
    BOOST_TEST(error_of("neuron0/vendor/internal") == EIO);
    BOOST_TEST(served_node(plan, "neuron0/vendor").mode == 0755u);
}

BOOST_AUTO_TEST_CASE(a_host_only_counter_shows_its_samples_on_the_clock) {
    recording_builder b("2.24.7.0");
    b.dir("neuron0").dir("neuron0/stats").file("neuron0/stats/vendor_count", "1\n");
    auto r = b.done();
    r.interval_ns = 500;
    r.samples = {{0, {"1\n"}}, {1000, {"4\n"}}};
    const auto plan = plan_replay(r, {"trn1.2xlarge", "", 0});
    const auto index = served_node(plan, "neuron0/stats/vendor_count").attr.recorded;
    BOOST_TEST(plan.served.recorded.read(index, 1499).second == "1\n");
    BOOST_TEST(plan.served.recorded.read(index, 1500).second == "4\n");
}

BOOST_AUTO_TEST_CASE(bad_requests_and_trees_are_refused) {
    recording_builder b("2.24.7.0");
    b.dir("neuron0").file("neuron0/core_count", "2").file("neuron0/core_count/below", "x\n");
    BOOST_CHECK_THROW(plan_replay(b.done(), {}), recording_error);
    recording_builder linked("2.24.7.0");
    linked.dir("neuron0").file("neuron0/x/y", "1\n");
    auto below_link = linked.done();
    below_link.entries.insert(below_link.entries.begin() + 1, rec_link("neuron0/x", "../neuron1"));
    BOOST_CHECK_THROW(plan_replay(below_link, {}), recording_error);
    const auto good = inf1_at_2_7();
    BOOST_CHECK_THROW(plan_replay(good, {"no.such", "", 0}), neuron::model::unknown_instance_error);
    BOOST_CHECK_THROW(plan_replay(good, {"trn2.3xlarge", "", 0}), neuron::sysfs::unsupported_combination_error);
    BOOST_CHECK_THROW(plan_replay(good, {"", "1.0", 0}), neuron::sysfs::unknown_driver_version_error);
    // A sample the model's clock never reaches.
    auto late = inf1_at_2_7();
    late.interval_ns = UINT64_MAX;
    late.samples = {{0, std::vector<std::string>(8, "0\n")}};
    BOOST_CHECK_THROW(plan_replay(late, {}), recording_error);
}
