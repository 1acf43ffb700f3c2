#define BOOST_TEST_MODULE layout
#include <boost/test/unit_test.hpp>

#include "neuron/model/spec/counter.h"
#include "neuron/model/spec/instance_catalogue.h"
#include "neuron/sysfs/driver_release.h"
#include "neuron/sysfs/errors.h"
#include "neuron/sysfs/kernfs_order.h"
#include "neuron/sysfs/layout.h"
#include "neuron/sysfs/sysfs_tree.h"
#include "neuron/sysfs/tree_builder.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

using namespace neuron::sysfs;
using neuron::model::counter_field;
using neuron::model::counter_kind;
using neuron::model::counter_ref;
using neuron::model::find_instance_type;

namespace {

constexpr std::uint32_t major = 239;

layout make(std::string_view instance, std::string_view release) {
    return layout(find_instance_type(instance), find_release(release), major);
}

// The directory a counter has, or "-" when the release hides it.
std::string dir(const layout& l, counter_kind kind) {
    const auto name = l.counter_directory(kind);
    return name ? std::string(*name) : std::string("-");
}

std::string dir(std::string_view release, counter_kind kind) { return dir(make("trn1.2xlarge", release), kind); }

const std::string dev0 = "devices/virtual/neuron_device/neuron0";

// A node of the tree, for checks that name their path.
struct found {
    const sysfs_tree& tree;
    node_id id;
    bool exists() const { return id != no_node; }
    node_type type() const { return tree.at(id).type; }
    std::uint32_t mode() const { return tree.at(id).mode; }
};

found at(const sysfs_tree& tree, const std::string& path) { return {tree, tree.resolve(path)}; }

bool is_attribute(const sysfs_tree& tree, const std::string& path, std::uint32_t mode) {
    const auto n = at(tree, path);
    return n.exists() && n.type() == node_type::attribute && n.mode() == mode;
}

bool is_directory(const sysfs_tree& tree, const std::string& path) {
    const auto n = at(tree, path);
    return n.exists() && n.type() == node_type::directory && n.mode() == 0755;
}

bool is_symlink_to(const sysfs_tree& tree, const std::string& path, std::string_view target) {
    const auto n = at(tree, path);
    return n.exists() && n.type() == node_type::symlink && tree.at(n.id).target == target;
}

bool absent(const sysfs_tree& tree, const std::string& path) { return tree.resolve(path) == no_node; }

} // namespace

// --- refused combinations ---------------------------------------------------

BOOST_AUTO_TEST_CASE(trainium2_needs_2_16) {
    BOOST_CHECK_THROW(make("trn2.48xlarge", "2.15"), unsupported_combination_error);
    BOOST_CHECK_THROW(make("trn2.3xlarge", "2.7"), unsupported_combination_error);
    BOOST_CHECK_NO_THROW(make("trn2.48xlarge", "2.16"));
    BOOST_CHECK_NO_THROW(make("trn2u.48xlarge", "2.25"));
}

BOOST_AUTO_TEST_CASE(inferentia1_ends_at_2_24) {
    BOOST_CHECK_THROW(make("inf1.xlarge", "2.25"), unsupported_combination_error);
    BOOST_CHECK_THROW(make("inf1.24xlarge", "2.25.4.0"), unsupported_combination_error);
    BOOST_CHECK_NO_THROW(make("inf1.24xlarge", "2.24"));
    BOOST_CHECK_NO_THROW(make("inf1.xlarge", "2.7"));
}

BOOST_AUTO_TEST_CASE(refusal_is_an_invalid_argument_naming_the_release) {
    try {
        make("trn2.48xlarge", "2.15");
        BOOST_FAIL("accepted");
    } catch (const neuron::model::invalid_argument_error& e) {
        const std::string message = e.what();
        BOOST_TEST(message.find("2.15.9.0") != std::string::npos, message);
        BOOST_TEST(message.find("trn2.48xlarge") != std::string::npos, message);
    }
}

BOOST_AUTO_TEST_CASE(layout_keeps_what_it_was_built_from) {
    const auto l = make("trn1.32xlarge", "2.21");
    BOOST_TEST(l.instance().name == "trn1.32xlarge");
    BOOST_TEST(l.release().tag == "2.21.37.0");
    BOOST_TEST(l.char_major() == major);
    BOOST_TEST(l.dhal_version() == 2);
    BOOST_TEST(make("inf1.xlarge", "2.24").dhal_version() == 1);
    BOOST_TEST(make("trn2.3xlarge", "2.24").dhal_version() == 3);
}

// --- counter directories ----------------------------------------------------

BOOST_AUTO_TEST_CASE(release_2_7_uses_infer_names_and_one_reset_count) {
    BOOST_TEST(dir("2.7", counter_kind::execute_completed_with_error) == "infer_completed_with_error");
    BOOST_TEST(dir("2.7", counter_kind::execute_completed_with_num_error) == "infer_completed_with_num_error");
    BOOST_TEST(dir("2.7", counter_kind::execute_failed_to_queue) == "infer_failed_to_queue");
    // 2.7's one reset_count counts differently from 2.8's reset_req_count (§3).
    BOOST_TEST(dir("2.7", counter_kind::reset_count) == "reset_count");
    BOOST_TEST(dir("2.7", counter_kind::reset_req_count) == "-");
    BOOST_TEST(dir("2.7", counter_kind::reset_fail_count) == "-");
    BOOST_TEST(dir("2.8", counter_kind::reset_count) == "-");
    BOOST_TEST(dir("2.7", counter_kind::success) == "success");
    BOOST_TEST(dir("2.7", counter_kind::model_load_count) == "model_load_count");
    BOOST_TEST(dir("2.7", counter_kind::inference_count) == "inference_count");
    BOOST_TEST(dir("2.7", counter_kind::host_mem) == "host_mem");
    BOOST_TEST(dir("2.7", counter_kind::device_mem) == "device_mem");
}

BOOST_AUTO_TEST_CASE(release_2_8_renames_to_execute_and_splits_reset_counts) {
    BOOST_TEST(dir("2.8", counter_kind::execute_completed_with_error) == "execute_completed_with_error");
    BOOST_TEST(dir("2.8", counter_kind::execute_completed_with_num_error) == "execute_completed_with_num_error");
    BOOST_TEST(dir("2.8", counter_kind::execute_failed_to_queue) == "execute_failed_to_queue");
    BOOST_TEST(dir("2.8", counter_kind::reset_req_count) == "reset_req_count");
    BOOST_TEST(dir("2.8", counter_kind::reset_fail_count) == "reset_fail_count");
}

BOOST_AUTO_TEST_CASE(status_counters_appear_with_their_release) {
    BOOST_TEST(dir("2.15", counter_kind::oob_error) == "-");
    BOOST_TEST(dir("2.16", counter_kind::oob_error) == "oob_error");
    for (const auto kind : {counter_kind::hw_collectives_error, counter_kind::hw_hbm_ue_error,
                            counter_kind::hw_nc_ue_error, counter_kind::hw_dma_abort_error}) {
        BOOST_TEST(dir("2.18", kind) == "-");
        BOOST_TEST(dir("2.19", kind) == std::string(neuron::model::info_of(kind).name));
    }
    BOOST_TEST(dir("2.19", counter_kind::execute_sw_nq_overflow) == "-");
    BOOST_TEST(dir("2.20", counter_kind::execute_sw_nq_overflow) == "execute_sw_nq_overflow");
    for (const auto kind : {counter_kind::execute_sw_semaphore_error, counter_kind::execute_sw_event_error,
                            counter_kind::execute_sw_psum_collision, counter_kind::execute_sw_sequencer_fatal,
                            counter_kind::nc_time_in_use}) {
        BOOST_TEST(dir("2.20", kind) == "-");
        BOOST_TEST(dir("2.21", kind) == std::string(neuron::model::info_of(kind).name));
    }
    BOOST_TEST(dir("2.21", counter_kind::hw_repairable_hbm_ue_error) == "-");
    BOOST_TEST(dir("2.23", counter_kind::hw_repairable_hbm_ue_error) == "hw_repairable_hbm_ue_error");
}

BOOST_AUTO_TEST_CASE(flop_count_from_2_12) {
    BOOST_TEST(dir("2.10", counter_kind::flop_count) == "-");
    BOOST_TEST(dir("2.12", counter_kind::flop_count) == "flop_count");
}

BOOST_AUTO_TEST_CASE(memory_categories_follow_the_version_table) {
    // 2.10: the first breakdown.
    for (const auto kind :
         {counter_kind::device_model_code, counter_kind::device_tensors, counter_kind::device_constants,
          counter_kind::device_model_shared_scratchpad, counter_kind::device_runtime_memory,
          counter_kind::host_dma_buffers, counter_kind::host_tensors, counter_kind::host_constants,
          counter_kind::host_application_memory}) {
        BOOST_TEST(dir("2.9", kind) == "-");
        BOOST_TEST(dir("2.10", kind) == std::string(neuron::model::info_of(kind).name));
    }
    // 2.17: the driver mempool categories.
    for (const auto kind : {counter_kind::device_driver_memory, counter_kind::device_collectives,
                            counter_kind::device_nonshared_scratchpad, counter_kind::device_notifications,
                            counter_kind::device_uncategorized, counter_kind::host_driver_memory,
                            counter_kind::host_notifications, counter_kind::host_uncategorized}) {
        BOOST_TEST(dir("2.16", kind) == "-");
        BOOST_TEST(dir("2.17", kind) == std::string(neuron::model::info_of(kind).name));
    }
    // 2.18: dma_rings.
    for (const auto kind : {counter_kind::device_dma_rings, counter_kind::host_dma_rings}) {
        BOOST_TEST(dir("2.17", kind) == "-");
        BOOST_TEST(dir("2.18", kind) == "dma_rings");
    }
    BOOST_TEST(dir("2.10", counter_kind::host_dma_buffers) == "dma_buffers");
    BOOST_TEST(dir("2.10", counter_kind::device_model_code) == "model_code");
}

BOOST_AUTO_TEST_CASE(current_release_shows_every_counter_under_its_own_name) {
    const auto l = make("trn2.48xlarge", "2.24");
    for (const auto& info : neuron::model::all_counters()) {
        if (info.kind == counter_kind::reset_count) continue; // 2.7's, gone since 2.8
        BOOST_TEST(dir(l, info.kind) == std::string(info.name), info.name);
    }
}

BOOST_AUTO_TEST_CASE(peak_only_on_memory_counters_from_2_8) {
    const auto v27 = make("trn1.2xlarge", "2.7");
    const auto v28 = make("trn1.2xlarge", "2.8");
    const auto v24 = make("trn1.2xlarge", "2.24");
    for (const auto kind : {counter_kind::host_mem, counter_kind::device_mem}) {
        BOOST_TEST(!v27.shows_peak(kind));
        BOOST_TEST(v28.shows_peak(kind));
    }
    BOOST_TEST(v24.shows_peak(counter_kind::device_tensors));
    BOOST_TEST(v24.shows_peak(counter_kind::host_dma_buffers));
    for (const auto kind : {counter_kind::success, counter_kind::oob_error, counter_kind::model_load_count,
                            counter_kind::reset_req_count, counter_kind::nc_time_in_use}) {
        BOOST_TEST(!v24.shows_peak(kind));
        BOOST_TEST(!v27.shows_peak(kind));
    }
}

// --- modes, capabilities, identity strings ----------------------------------

BOOST_AUTO_TEST_CASE(metric_mode_is_0600_before_2_15) {
    BOOST_TEST(make("trn1.2xlarge", "2.7").metric_mode() == 0600u);
    BOOST_TEST(make("trn1.2xlarge", "2.14").metric_mode() == 0600u);
    BOOST_TEST(make("trn1.2xlarge", "2.15").metric_mode() == 0644u);
    BOOST_TEST(make("trn1.2xlarge", "2.24").metric_mode() == 0644u);
}

BOOST_AUTO_TEST_CASE(hardware_ecc_on_v2_and_v3_from_2_14) {
    BOOST_TEST(!make("trn1.2xlarge", "2.13").has_hardware_ecc());
    BOOST_TEST(make("trn1.2xlarge", "2.14").has_hardware_ecc());
    BOOST_TEST(make("inf2.xlarge", "2.14").has_hardware_ecc());
    BOOST_TEST(make("trn2.48xlarge", "2.16").has_hardware_ecc());
    BOOST_TEST(!make("inf1.xlarge", "2.14").has_hardware_ecc());
    BOOST_TEST(!make("inf1.24xlarge", "2.24").has_hardware_ecc());
}

BOOST_AUTO_TEST_CASE(serial_number_on_v2_and_v3_from_2_15) {
    BOOST_TEST(!make("trn1.2xlarge", "2.14").has_serial_number());
    BOOST_TEST(make("trn1.2xlarge", "2.15").has_serial_number());
    BOOST_TEST(make("inf2.48xlarge", "2.24").has_serial_number());
    BOOST_TEST(make("trn2.3xlarge", "2.16").has_serial_number());
    BOOST_TEST(!make("inf1.xlarge", "2.15").has_serial_number());
    BOOST_TEST(!make("inf1.xlarge", "2.24").has_serial_number());
}

BOOST_AUTO_TEST_CASE(pe_counters_on_v2_and_v3_from_2_23) {
    BOOST_TEST(!make("trn1.2xlarge", "2.21").has_pe_counters());
    BOOST_TEST(make("trn1.2xlarge", "2.23").has_pe_counters());
    BOOST_TEST(make("inf2.xlarge", "2.24").has_pe_counters());
    BOOST_TEST(make("trn2.48xlarge", "2.25").has_pe_counters());
    BOOST_TEST(!make("inf1.xlarge", "2.23").has_pe_counters());
    BOOST_TEST(!make("inf1.xlarge", "2.24").has_pe_counters());
}

BOOST_AUTO_TEST_CASE(device_arch_types) {
    BOOST_TEST(make("inf1.xlarge", "2.24").device_arch_type() == "NDv1\n");
    BOOST_TEST(make("trn1.2xlarge", "2.24").device_arch_type() == "NDv2\n");
    BOOST_TEST(make("trn1n.32xlarge", "2.24").device_arch_type() == "NDv2\n");
    BOOST_TEST(make("inf2.xlarge", "2.24").device_arch_type() == "NDv3\n");
    BOOST_TEST(make("inf2.xlarge", "2.14").device_arch_type() == "NDv3\n");
    BOOST_TEST(make("trn2.48xlarge", "2.24").device_arch_type() == "NDv3\n");
}

BOOST_AUTO_TEST_CASE(core_arch_types) {
    BOOST_TEST(make("inf1.xlarge", "2.24").core_arch_type() == "NCv1\n");
    BOOST_TEST(make("trn1.2xlarge", "2.24").core_arch_type() == "NCv2\n");
    BOOST_TEST(make("trn1.2xlarge", "2.8").core_arch_type() == "NCv2\n");
    BOOST_TEST(make("trn2.48xlarge", "2.24").core_arch_type() == "NCv3\n");
}

BOOST_AUTO_TEST_CASE(inferentia2_core_read_ncv3_before_2_15) {
    BOOST_TEST(make("inf2.xlarge", "2.8").core_arch_type() == "NCv3\n");
    BOOST_TEST(make("inf2.24xlarge", "2.14").core_arch_type() == "NCv3\n");
    BOOST_TEST(make("inf2.24xlarge", "2.15").core_arch_type() == "NCv2\n");
    BOOST_TEST(make("inf2.48xlarge", "2.24").core_arch_type() == "NCv2\n");
}

BOOST_AUTO_TEST_CASE(release_2_7_arch_type_is_bare) {
    BOOST_TEST(make("inf1.xlarge", "2.7").bare_arch_type() == "v1\n");
    BOOST_TEST(make("trn1.2xlarge", "2.7").bare_arch_type() == "v2\n");
    BOOST_TEST(make("inf2.xlarge", "2.7").bare_arch_type() == "v3\n");
}

// --- the built tree ---------------------------------------------------------

BOOST_AUTO_TEST_CASE(device_attributes_have_the_driver_modes) {
    const auto l = make("trn1.2xlarge", "2.24");
    const auto tree = build_tree(l);
    BOOST_TEST(is_directory(tree, dev0));
    BOOST_TEST(is_attribute(tree, dev0 + "/core_count", 0400));
    BOOST_TEST(is_attribute(tree, dev0 + "/reset", 0600));
    BOOST_TEST(is_attribute(tree, dev0 + "/connected_devices", 0400));
    BOOST_TEST((tree.at(tree.resolve(dev0 + "/core_count")).attr.kind == attribute_kind::core_count));
    BOOST_TEST((tree.at(tree.resolve(dev0 + "/reset")).attr.kind == attribute_kind::reset));
}

BOOST_AUTO_TEST_CASE(connected_devices_from_2_13) {
    BOOST_TEST(absent(build_tree(make("trn1.32xlarge", "2.12")), dev0 + "/connected_devices"));
    BOOST_TEST(is_attribute(build_tree(make("trn1.32xlarge", "2.13")), dev0 + "/connected_devices", 0400));
}

BOOST_AUTO_TEST_CASE(generic_device_entries) {
    const auto tree = build_tree(make("trn1.2xlarge", "2.24"));
    BOOST_TEST(is_attribute(tree, dev0 + "/dev", 0444));
    BOOST_TEST(is_attribute(tree, dev0 + "/uevent", 0644));
    BOOST_TEST(is_symlink_to(tree, dev0 + "/subsystem", "../../../../class/neuron_device"));
    BOOST_TEST(is_directory(tree, dev0 + "/power"));
    BOOST_TEST(is_attribute(tree, dev0 + "/power/control", 0644));
    BOOST_TEST(is_attribute(tree, dev0 + "/power/async", 0644));
    BOOST_TEST(is_attribute(tree, dev0 + "/power/autosuspend_delay_ms", 0644));
    BOOST_TEST(is_attribute(tree, dev0 + "/power/runtime_status", 0444));
    BOOST_TEST(is_attribute(tree, dev0 + "/power/runtime_active_time", 0444));
    BOOST_TEST(is_attribute(tree, dev0 + "/power/runtime_suspended_time", 0444));
}

BOOST_AUTO_TEST_CASE(metric_files_of_the_current_release) {
    const auto tree = build_tree(make("trn1.2xlarge", "2.24"));
    BOOST_TEST(is_attribute(tree, dev0 + "/info/notify_delay", 0644));
    BOOST_TEST(is_attribute(tree, dev0 + "/info/serial_number", 0644));
    BOOST_TEST(is_attribute(tree, dev0 + "/info/architecture/arch_type", 0644));
    BOOST_TEST(is_attribute(tree, dev0 + "/info/architecture/instance_type", 0644));
    BOOST_TEST(is_attribute(tree, dev0 + "/info/architecture/device_name", 0644));
    BOOST_TEST(is_attribute(tree, dev0 + "/stats/hardware/sram_ecc_uncorrected", 0644));
    BOOST_TEST(is_attribute(tree, dev0 + "/stats/hardware/mem_ecc_uncorrected", 0644));
    BOOST_TEST(is_attribute(tree, dev0 + "/stats/hardware/mem_ecc_repairable_uncorrected", 0644));
    BOOST_TEST(is_attribute(tree, dev0 + "/stats/power/utilization", 0644));
    BOOST_TEST(is_directory(tree, dev0 + "/stats/memory_usage/host_mem"));
    BOOST_TEST(absent(tree, dev0 + "/stats/memory_usage/host_mem/total"));
    BOOST_TEST(is_attribute(tree, dev0 + "/stats/memory_usage/host_mem/dma_buffers/peak", 0644));
    BOOST_TEST(is_attribute(tree, dev0 + "/stats/memory_usage/host_mem/dma_rings/total", 0644));
    BOOST_TEST(is_attribute(tree, dev0 + "/neuron_core1/info/architecture/arch_type", 0644));
    BOOST_TEST(is_attribute(tree, dev0 + "/neuron_core1/stats/tensor_engine/pe_cntrs", 0644));
    BOOST_TEST(absent(tree, dev0 + "/neuron_core2"));
}

BOOST_AUTO_TEST_CASE(core_counter_files_of_the_current_release) {
    const auto tree = build_tree(make("trn1.2xlarge", "2.24"));
    const auto core = dev0 + "/neuron_core0/stats";
    BOOST_TEST(is_attribute(tree, core + "/status/success/total", 0644));
    BOOST_TEST(is_attribute(tree, core + "/status/success/present", 0644));
    BOOST_TEST(absent(tree, core + "/status/success/peak"));
    BOOST_TEST(is_attribute(tree, core + "/status/hw_repairable_hbm_ue_error/present", 0644));
    BOOST_TEST(is_attribute(tree, core + "/other_info/reset_fail_count/total", 0644));
    BOOST_TEST(absent(tree, core + "/other_info/reset_count"));
    BOOST_TEST(is_attribute(tree, core + "/memory_usage/host_mem/peak", 0644));
    BOOST_TEST(is_attribute(tree, core + "/memory_usage/device_mem/peak", 0644));
    BOOST_TEST(is_attribute(tree, core + "/memory_usage/device_mem/model_code/peak", 0644));
    BOOST_TEST(is_attribute(tree, core + "/memory_usage/device_mem/dma_rings/total", 0644));
    BOOST_TEST(absent(tree, core + "/memory_usage/host_mem/tensors"));
    std::uint32_t status_dirs = 0;
    for (const auto id : tree.at(tree.resolve(core + "/status")).children) {
        status_dirs += tree.at(id).type == node_type::directory ? 1 : 0;
    }
    BOOST_TEST(status_dirs == 24u);
    BOOST_TEST(tree.at(tree.resolve(core + "/other_info")).children.size() == 6u);
    BOOST_TEST(tree.at(tree.resolve(core + "/memory_usage/device_mem")).subdirectories == 11u);
    BOOST_TEST(tree.at(tree.resolve(dev0 + "/stats/memory_usage/host_mem")).subdirectories == 8u);
}

BOOST_AUTO_TEST_CASE(release_2_14_files_are_owner_only) {
    const auto tree = build_tree(make("trn1.2xlarge", "2.14"));
    BOOST_TEST(is_attribute(tree, dev0 + "/info/notify_delay", 0600));
    BOOST_TEST(is_attribute(tree, dev0 + "/neuron_core0/stats/status/success/total", 0600));
    BOOST_TEST(is_attribute(tree, dev0 + "/stats/hardware/mem_ecc_uncorrected", 0600));
    BOOST_TEST(absent(tree, dev0 + "/stats/hardware/mem_ecc_repairable_uncorrected"));
    BOOST_TEST(absent(tree, dev0 + "/info/serial_number"));
    BOOST_TEST(absent(tree, dev0 + "/stats/power"));
    BOOST_TEST(absent(tree, dev0 + "/neuron_core0/stats/tensor_engine"));
    BOOST_TEST(is_attribute(tree, dev0 + "/reset", 0600));
    BOOST_TEST(is_attribute(tree, dev0 + "/core_count", 0400));
}

BOOST_AUTO_TEST_CASE(release_2_7_keeps_everything_under_metrics) {
    const auto tree = build_tree(make("trn1.2xlarge", "2.7"));
    const auto metrics = dev0 + "/metrics";
    BOOST_TEST(is_directory(tree, metrics));
    BOOST_TEST(is_attribute(tree, metrics + "/arch_type", 0600));
    BOOST_TEST((tree.at(tree.resolve(metrics + "/arch_type")).attr.kind == attribute_kind::bare_arch_type));
    BOOST_TEST(is_attribute(tree, metrics + "/refresh_rate", 0600));
    BOOST_TEST(is_attribute(tree, metrics + "/neuron_core0/status/infer_failed_to_queue/total", 0600));
    BOOST_TEST(absent(tree, metrics + "/neuron_core0/status/execute_failed_to_queue"));
    BOOST_TEST(absent(tree, metrics + "/neuron_core0/status/oob_error"));
    BOOST_TEST(is_attribute(tree, metrics + "/neuron_core0/other_info/reset_count/total", 0600));
    BOOST_TEST(absent(tree, metrics + "/neuron_core0/other_info/reset_fail_count"));
    BOOST_TEST(absent(tree, metrics + "/neuron_core0/other_info/reset_req_count"));
    BOOST_TEST(absent(tree, metrics + "/neuron_core0/other_info/flop_count"));
    BOOST_TEST(is_attribute(tree, metrics + "/neuron_core1/memory_usage/host_mem/present", 0600));
    BOOST_TEST(absent(tree, metrics + "/neuron_core1/memory_usage/host_mem/peak"));
    BOOST_TEST(absent(tree, metrics + "/neuron_core0/stats"));
    BOOST_TEST(absent(tree, dev0 + "/info"));
    BOOST_TEST(absent(tree, dev0 + "/neuron_core0"));
    BOOST_TEST(absent(tree, dev0 + "/connected_devices"));
    BOOST_TEST(is_attribute(tree, dev0 + "/reset", 0600));
    BOOST_TEST(is_attribute(tree, dev0 + "/core_count", 0400));
}

BOOST_AUTO_TEST_CASE(release_2_7_dynamic_metrics_is_an_empty_directory) {
    const auto tree = build_tree(make("trn1.2xlarge", "2.7"));
    const auto path = dev0 + "/metrics/neuron_core0/dynamic_metrics";
    BOOST_TEST_REQUIRE(is_directory(tree, path));
    BOOST_TEST(tree.at(tree.resolve(path)).children.empty());
    BOOST_TEST(is_directory(tree, dev0 + "/metrics/neuron_core1/dynamic_metrics"));
}

BOOST_AUTO_TEST_CASE(release_2_8_has_stats_and_no_metrics_level) {
    const auto tree = build_tree(make("trn1.2xlarge", "2.8"));
    BOOST_TEST(absent(tree, dev0 + "/metrics"));
    BOOST_TEST(absent(tree, dev0 + "/info/notify_delay"));
    BOOST_TEST(is_attribute(tree, dev0 + "/info/architecture/arch_type", 0600));
    BOOST_TEST(is_attribute(tree, dev0 + "/neuron_core0/stats/status/execute_failed_to_queue/total", 0600));
    BOOST_TEST(is_attribute(tree, dev0 + "/neuron_core0/stats/other_info/reset_req_count/total", 0600));
    BOOST_TEST(is_attribute(tree, dev0 + "/neuron_core0/stats/memory_usage/host_mem/peak", 0600));
    BOOST_TEST(absent(tree, dev0 + "/neuron_core0/dynamic_metrics"));
}

BOOST_AUTO_TEST_CASE(inferentia1_has_no_v2_files) {
    const auto tree = build_tree(make("inf1.6xlarge", "2.24"));
    BOOST_TEST(is_directory(tree, "devices/virtual/neuron_device/neuron3"));
    BOOST_TEST(absent(tree, "devices/virtual/neuron_device/neuron4"));
    BOOST_TEST(is_directory(tree, dev0 + "/neuron_core3"));
    BOOST_TEST(absent(tree, dev0 + "/neuron_core4"));
    BOOST_TEST(is_attribute(tree, dev0 + "/info/notify_delay", 0644));
    BOOST_TEST(absent(tree, dev0 + "/info/serial_number"));
    BOOST_TEST(absent(tree, dev0 + "/stats/hardware"));
    BOOST_TEST(absent(tree, dev0 + "/neuron_core0/stats/tensor_engine"));
    BOOST_TEST(is_attribute(tree, dev0 + "/stats/power/utilization", 0644));
}

BOOST_AUTO_TEST_CASE(trainium2_shows_eight_cores) {
    const auto tree = build_tree(make("trn2.48xlarge", "2.24"));
    BOOST_TEST(is_directory(tree, "devices/virtual/neuron_device/neuron15/neuron_core7"));
    BOOST_TEST(absent(tree, "devices/virtual/neuron_device/neuron15/neuron_core8"));
    BOOST_TEST(absent(tree, "devices/virtual/neuron_device/neuron16"));
}

BOOST_AUTO_TEST_CASE(class_directory_links_every_device) {
    const auto tree = build_tree(make("trn1.32xlarge", "2.24"));
    BOOST_TEST(is_directory(tree, "class/neuron_device"));
    BOOST_TEST(is_symlink_to(tree, "class/neuron_device/neuron3", "../../devices/virtual/neuron_device/neuron3"));
    BOOST_TEST(is_symlink_to(tree, "class/neuron_device/neuron15", "../../devices/virtual/neuron_device/neuron15"));
    BOOST_TEST(absent(tree, "class/neuron_device/neuron16"));
    BOOST_TEST(
        is_symlink_to(tree, "devices/virtual/neuron_device/neuron15/subsystem", "../../../../class/neuron_device"));
}

BOOST_AUTO_TEST_CASE(class_attributes_from_2_23) {
    const auto tree = build_tree(make("trn1.2xlarge", "2.23"));
    for (const auto* name : {"node_id_2", "node_id_4", "server_id_2", "server_id_4", "ultraserver_mode"}) {
        BOOST_TEST(is_attribute(tree, std::string("class/neuron_device/") + name, 0444), name);
    }
    BOOST_TEST((tree.at(tree.resolve("class/neuron_device/node_id_4")).attr.kind == attribute_kind::class_node_id));
    BOOST_TEST((tree.at(tree.resolve("class/neuron_device/server_id_2")).attr.kind == attribute_kind::class_server_id));
    BOOST_TEST((tree.at(tree.resolve("class/neuron_device/ultraserver_mode")).attr.kind ==
                attribute_kind::class_ultraserver_mode));

    const auto older = build_tree(make("trn1.2xlarge", "2.21"));
    BOOST_TEST(is_symlink_to(older, "class/neuron_device/neuron0", "../../devices/virtual/neuron_device/neuron0"));
    BOOST_TEST(absent(older, "class/neuron_device/node_id_2"));
    BOOST_TEST(absent(older, "class/neuron_device/ultraserver_mode"));
}

BOOST_AUTO_TEST_CASE(every_directory_lists_in_kernfs_order) {
    for (const auto& [instance, release] : {std::pair{"trn1.32xlarge", "2.24"}, std::pair{"inf1.6xlarge", "2.7"},
                                            std::pair{"inf2.48xlarge", "2.14"}, std::pair{"trn2.48xlarge", "2.25"}}) {
        const auto tree = build_tree(make(instance, release));
        for (node_id id = root_node; id <= tree.size(); ++id) {
            const auto& n = tree.at(id);
            for (std::size_t i = 1; i < n.children.size(); ++i) {
                const auto& a = tree.at(n.children[i - 1]).name;
                const auto& b = tree.at(n.children[i]).name;
                BOOST_TEST_REQUIRE(kernfs_before(a, b), instance << ' ' << release << ' ' << tree.path_of(id) << ": "
                                                                 << a << " before " << b);
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(children_know_their_parent_and_hash) {
    const auto tree = build_tree(make("trn1.2xlarge", "2.24"));
    for (node_id id = root_node; id <= tree.size(); ++id) {
        const auto& n = tree.at(id);
        BOOST_TEST_REQUIRE(n.id == id);
        for (const auto c : n.children) {
            BOOST_TEST_REQUIRE(tree.at(c).parent == id);
            BOOST_TEST_REQUIRE(tree.at(c).name_hash == kernfs_name_hash(tree.at(c).name));
            BOOST_TEST_REQUIRE(tree.child(id, tree.at(c).name) == c);
        }
    }
}

BOOST_AUTO_TEST_CASE(counter_node_finds_the_file_of_a_field) {
    const auto tree = build_tree(make("trn1.2xlarge", "2.24"));
    const auto ref = counter_ref::of_core(0, 1, counter_kind::success);
    const auto id = tree.counter_node(ref, counter_field::present);
    BOOST_TEST_REQUIRE(id != no_node);
    BOOST_TEST(tree.path_of(id) == dev0 + "/neuron_core1/stats/status/success/present");
    const auto& attr = tree.at(id).attr;
    BOOST_TEST((attr.kind == attribute_kind::counter_field));
    BOOST_TEST(attr.device == 0u);
    BOOST_TEST(attr.core == 1);
    BOOST_TEST((attr.counter == counter_kind::success));
    BOOST_TEST((attr.field == counter_field::present));

    const auto host = tree.counter_node(counter_ref::of_device(0, counter_kind::host_dma_buffers), counter_field::peak);
    BOOST_TEST_REQUIRE(host != no_node);
    BOOST_TEST(tree.path_of(host) == dev0 + "/stats/memory_usage/host_mem/dma_buffers/peak");

    const auto device_mem =
        tree.counter_node(counter_ref::of_core(0, 0, counter_kind::device_mem), counter_field::total);
    BOOST_TEST_REQUIRE(device_mem != no_node);
    BOOST_TEST(tree.path_of(device_mem) == dev0 + "/neuron_core0/stats/memory_usage/device_mem/total");
}

BOOST_AUTO_TEST_CASE(counter_node_tells_devices_apart) {
    const auto tree = build_tree(make("trn1.32xlarge", "2.24"));
    const auto id = tree.counter_node(counter_ref::of_core(12, 1, counter_kind::flop_count), counter_field::total);
    BOOST_TEST_REQUIRE(id != no_node);
    BOOST_TEST(tree.path_of(id) ==
               "devices/virtual/neuron_device/neuron12/neuron_core1/stats/other_info/flop_count/total");
}

BOOST_AUTO_TEST_CASE(counter_node_is_no_node_for_hidden_counters) {
    const auto tree = build_tree(make("trn1.2xlarge", "2.24"));
    // Fields a counter does not show.
    BOOST_TEST(tree.counter_node(counter_ref::of_core(0, 0, counter_kind::success), counter_field::peak) == no_node);
    // Counters the driver keeps but shows no file for.
    BOOST_TEST(tree.counter_node(counter_ref::of_device(0, counter_kind::success), counter_field::total) == no_node);
    BOOST_TEST(tree.counter_node(counter_ref::of_core(0, 0, counter_kind::host_tensors), counter_field::total) ==
               no_node);
    // Cores and devices that do not exist.
    BOOST_TEST(tree.counter_node(counter_ref::of_core(0, 2, counter_kind::success), counter_field::total) == no_node);
    BOOST_TEST(tree.counter_node(counter_ref::of_core(1, 0, counter_kind::success), counter_field::total) == no_node);

    const auto old = build_tree(make("trn1.2xlarge", "2.15"));
    BOOST_TEST(old.counter_node(counter_ref::of_core(0, 0, counter_kind::oob_error), counter_field::total) == no_node);
    BOOST_TEST(old.counter_node(counter_ref::of_core(0, 0, counter_kind::success), counter_field::total) != no_node);
}

BOOST_AUTO_TEST_CASE(counter_node_in_2_7_follows_the_renames) {
    const auto tree = build_tree(make("trn1.2xlarge", "2.7"));
    const auto reset = tree.counter_node(counter_ref::of_core(0, 0, counter_kind::reset_count), counter_field::total);
    BOOST_TEST_REQUIRE(reset != no_node);
    BOOST_TEST(tree.path_of(reset) == dev0 + "/metrics/neuron_core0/other_info/reset_count/total");
    BOOST_TEST(tree.counter_node(counter_ref::of_core(0, 0, counter_kind::reset_fail_count), counter_field::total) ==
               no_node);
    BOOST_TEST(tree.counter_node(counter_ref::of_core(0, 0, counter_kind::host_mem), counter_field::peak) == no_node);
}

BOOST_AUTO_TEST_CASE(resolve_handles_dots_and_missing_parts) {
    const auto tree = build_tree(make("trn1.2xlarge", "2.24"));
    BOOST_TEST(tree.resolve("") == root_node);
    BOOST_TEST(tree.resolve(dev0 + "/./info/../reset") == tree.resolve(dev0 + "/reset"));
    BOOST_TEST(tree.resolve("../class") == tree.resolve("class"));
    BOOST_TEST(tree.resolve("nosuch/dir") == no_node);
    // Symlinks are not followed.
    BOOST_TEST(tree.resolve("class/neuron_device/neuron0/reset") == no_node);
}

BOOST_AUTO_TEST_CASE(ecc_reading_follows_the_release) {
    const auto of = [](std::string_view release) { return make("trn2.3xlarge", release).ecc_reading(); };
    BOOST_TEST(of("2.18").channels == 2u);
    BOOST_TEST(!of("2.18").repair_split);
    BOOST_TEST(of("2.19").channels == UINT32_MAX);
    BOOST_TEST(!of("2.22").repair_split);
    BOOST_TEST(of("2.23").repair_split);
}
