#define BOOST_TEST_MODULE attribute_reader
#include <boost/test/unit_test.hpp>

#include "neuron/model/state/activity.h"
#include "neuron/model/state/make_published_state.h"
#include "neuron/model/state/published_state.h"
#include "neuron/sysfs/attribute_reader.h"
#include "neuron/sysfs/driver_release.h"
#include "neuron/sysfs/generic_device_state.h"
#include "neuron/sysfs/layout.h"

#include <cerrno>
#include <cstdint>
#include <limits>
#include <memory>
#include <regex>
#include <string>
#include <string_view>

using namespace neuron::sysfs;
using neuron::model::counter_field;
using neuron::model::counter_kind;
using neuron::model::counter_ref;
using neuron::model::device_state;
using neuron::model::ecc_register;
using neuron::model::pe_timeline;
using neuron::model::platform_config;

namespace {

constexpr std::uint32_t major = 239;

platform_config config_for(std::string_view instance) {
    platform_config config;
    config.instance = std::string(instance);
    config.start_epoch_ns = 1'700'000'000'000'000'000;
    return config;
}

// One host: the published store of a model that never ran, and a reader over it.
struct host {
    explicit host(std::string_view instance, std::string_view release = "2.24") : host(config_for(instance), release) {}
    host(const platform_config& config, std::string_view release)
            : state(neuron::model::make_published_state(config)),
              layout_(neuron::model::find_instance_type(config.instance), find_release(release), major),
              generic(state->device_count()), reader(layout_, *state, generic) {}

    std::string text(const attribute& attr) const {
        const auto result = reader.read(attr);
        BOOST_TEST(result.error == 0);
        return result.text;
    }

    std::unique_ptr<neuron::model::published_state> state;
    layout layout_;
    generic_device_state generic;
    attribute_reader reader;
};

attribute of(attribute_kind kind, std::uint32_t device = 0, std::int32_t core = counter_ref::device_level) {
    return attribute::of(kind, device, core);
}

attribute field_of(counter_ref ref, counter_field field) { return attribute::of_counter(ref, field); }

} // namespace

// --- counters ---------------------------------------------------------------

BOOST_AUTO_TEST_CASE(counter_fields_read_as_decimal_lines) {
    host h("trn1.2xlarge");
    const auto ref = counter_ref::of_core(0, 1, counter_kind::success);
    BOOST_TEST(h.text(field_of(ref, counter_field::total)) == "0\n");
    h.state->counter_word(ref, counter_field::total).store(12345);
    h.state->counter_word(ref, counter_field::present).store(7);
    BOOST_TEST(h.text(field_of(ref, counter_field::total)) == "12345\n");
    BOOST_TEST(h.text(field_of(ref, counter_field::present)) == "7\n");
    // The same counter on the other core is a different word.
    BOOST_TEST(h.text(field_of(counter_ref::of_core(0, 0, counter_kind::success), counter_field::total)) == "0\n");
}

BOOST_AUTO_TEST_CASE(counter_fields_are_unsigned_64_bit) {
    host h("trn1.2xlarge");
    const auto ref = counter_ref::of_core(0, 0, counter_kind::device_mem);
    h.state->counter_word(ref, counter_field::peak).store(std::numeric_limits<std::uint64_t>::max());
    BOOST_TEST(h.text(field_of(ref, counter_field::peak)) == "18446744073709551615\n");
}

BOOST_AUTO_TEST_CASE(device_level_counters_read_their_own_word) {
    host h("trn1.32xlarge");
    const auto ref = counter_ref::of_device(5, counter_kind::host_dma_buffers);
    h.state->counter_word(ref, counter_field::present).store(4096);
    BOOST_TEST(h.text(field_of(ref, counter_field::present)) == "4096\n");
    BOOST_TEST(h.text(field_of(counter_ref::of_device(4, counter_kind::host_dma_buffers), counter_field::present)) ==
               "0\n");
}

// --- cdev attributes --------------------------------------------------------

BOOST_AUTO_TEST_CASE(core_count_has_no_newline) {
    BOOST_TEST(host("trn1.2xlarge").text(of(attribute_kind::core_count)) == "2");
    BOOST_TEST(host("inf1.xlarge").text(of(attribute_kind::core_count)) == "4");
    BOOST_TEST(host("trn2.48xlarge").text(of(attribute_kind::core_count, 15)) == "8");
}

BOOST_AUTO_TEST_CASE(connected_devices_on_a_trn1_32xlarge) {
    host h("trn1.32xlarge");
    BOOST_TEST(h.text(of(attribute_kind::connected_devices, 0)) == "12, 3, 4, 1\n");
    BOOST_TEST(h.text(of(attribute_kind::connected_devices, 5)) == "1, 4, 9, 6\n");
    BOOST_TEST(h.text(of(attribute_kind::connected_devices, 15)) == "11, 14, 3, 12\n");
}

BOOST_AUTO_TEST_CASE(connected_devices_without_neighbours_is_a_newline) {
    BOOST_TEST(host("trn1.2xlarge").text(of(attribute_kind::connected_devices)) == "\n");
    BOOST_TEST(host("inf2.xlarge").text(of(attribute_kind::connected_devices)) == "\n");
}

BOOST_AUTO_TEST_CASE(connected_devices_on_inferentia2) {
    BOOST_TEST(host("inf2.48xlarge").text(of(attribute_kind::connected_devices, 0)) == "11, 1\n");
    host chain("inf2.24xlarge");
    BOOST_TEST(chain.text(of(attribute_kind::connected_devices, 0)) == "1\n");
    BOOST_TEST(chain.text(of(attribute_kind::connected_devices, 3)) == "2, 4\n");
    BOOST_TEST(chain.text(of(attribute_kind::connected_devices, 5)) == "4\n");
}

BOOST_AUTO_TEST_CASE(reset_reads_the_device_state) {
    host h("trn1.32xlarge");
    BOOST_TEST(h.text(of(attribute_kind::reset, 3)) == "1\n");
    h.state->set_reset_state(3, device_state::resetting);
    BOOST_TEST(h.text(of(attribute_kind::reset, 3)) == "0\n");
    h.state->set_reset_state(3, device_state::invalid);
    BOOST_TEST(h.text(of(attribute_kind::reset, 3)) == "2\n");
    BOOST_TEST(h.text(of(attribute_kind::reset, 2)) == "1\n");
}

// --- info/ ------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(serial_number_is_16_lowercase_hex_digits) {
    host h("trn1.32xlarge");
    static const std::regex pattern("[0-9a-f]{16}\n");
    for (std::uint32_t d = 0; d < 16; ++d) {
        const auto text = h.text(of(attribute_kind::serial_number, d));
        BOOST_TEST(std::regex_match(text, pattern), text);
    }
    BOOST_TEST(h.text(of(attribute_kind::serial_number, 0)) != h.text(of(attribute_kind::serial_number, 1)));
}

BOOST_AUTO_TEST_CASE(serial_number_keeps_leading_zeros) {
    auto config = config_for("trn1.2xlarge");
    config.serial_overrides[0] = 0x00000abc12345678ull;
    host h(config, "2.24");
    BOOST_TEST(h.text(of(attribute_kind::serial_number)) == "00000abc12345678\n");
}

BOOST_AUTO_TEST_CASE(notify_delay_shows_the_global_switch) {
    host h("trn1.2xlarge");
    BOOST_TEST(h.text(of(attribute_kind::notify_delay)) == "-1\n");
    h.state->set_notifications(true);
    BOOST_TEST(h.text(of(attribute_kind::notify_delay)) == "0\n");
    h.state->set_notifications(false);
    BOOST_TEST(h.text(of(attribute_kind::notify_delay)) == "-1\n");
}

BOOST_AUTO_TEST_CASE(identity_strings) {
    host h("trn1.2xlarge");
    BOOST_TEST(h.text(of(attribute_kind::arch_type)) == "NDv2\n");
    BOOST_TEST(h.text(of(attribute_kind::arch_type, 0, 1)) == "NCv2\n");
    BOOST_TEST(h.text(of(attribute_kind::instance_type)) == "Trn1\n");
    BOOST_TEST(h.text(of(attribute_kind::device_name)) == "Trainium1\n");
    host inf2("inf2.xlarge", "2.14");
    BOOST_TEST(inf2.text(of(attribute_kind::arch_type)) == "NDv3\n");
    BOOST_TEST(inf2.text(of(attribute_kind::arch_type, 0, 0)) == "NCv3\n");
    BOOST_TEST(inf2.text(of(attribute_kind::device_name)) == "Inferentia2\n");
    host inf1("inf1.xlarge");
    BOOST_TEST(inf1.text(of(attribute_kind::instance_type)) == "Inf1\n");
    BOOST_TEST(inf1.text(of(attribute_kind::device_name)) == "Inferentia\n");
}

BOOST_AUTO_TEST_CASE(release_2_7_metrics_files) {
    host h("trn1.2xlarge", "2.7");
    BOOST_TEST(h.text(of(attribute_kind::bare_arch_type)) == "v2\n");
    BOOST_TEST(h.text(of(attribute_kind::refresh_rate)) == "150000\n");
    h.generic.set_refresh_rate_ms(2000);
    BOOST_TEST(h.text(of(attribute_kind::refresh_rate)) == "2000\n");
}

// --- stats/ -----------------------------------------------------------------

BOOST_AUTO_TEST_CASE(ecc_files_read_the_registers) {
    host h("trn1.2xlarge");
    BOOST_TEST(h.text(of(attribute_kind::sram_ecc_uncorrected)) == "0\n");
    BOOST_TEST(h.text(of(attribute_kind::mem_ecc_uncorrected)) == "0\n");
    h.state->set_ecc_word(0, ecc_register::sram, 0x00050003);
    h.state->set_ecc_word(0, ecc_register::hbm0, 0x00010002);
    h.state->set_ecc_word(0, ecc_register::hbm1, 0x00000004);
    BOOST_TEST(h.text(of(attribute_kind::sram_ecc_uncorrected)) == "3\n");
    BOOST_TEST(h.text(of(attribute_kind::mem_ecc_uncorrected)) == "6\n");
    BOOST_TEST(h.text(of(attribute_kind::mem_ecc_repairable_uncorrected)) == "0\n");
}

BOOST_AUTO_TEST_CASE(utilization_has_no_data_at_time_zero) {
    host h("trn1.2xlarge");
    BOOST_TEST(h.text(of(attribute_kind::power_utilization)) == "POWER_STATUS_NO_DATA,0,0.00,0.00,0.00\n");
}

BOOST_AUTO_TEST_CASE(utilization_after_the_first_sample) {
    host h("trn1.2xlarge");
    h.state->clock().publish(120'000'000); // 120 ms: the sample of 100 ms is the latest
    BOOST_TEST(h.text(of(attribute_kind::power_utilization)) == "POWER_STATUS_VALID,1700000000,0.00,0.00,0.00\n");
}

BOOST_AUTO_TEST_CASE(pe_counters_start_with_the_header_line) {
    host h("trn1.2xlarge");
    BOOST_TEST(h.text(of(attribute_kind::pe_counters, 0, 1)) ==
               "xrow_grp,mm_active,wl_active,idle\n0,0,0,0\n1,0,0,0\n2,0,0,0\n3,0,0,0\n");
}

BOOST_AUTO_TEST_CASE(pe_counters_count_idle_cycles_since_start) {
    host h("trn1.2xlarge");
    h.state->clock().publish(1'000'000); // 1 ms at 1.4 GHz
    pe_timeline t;
    t.matmul_ps[1] = 1'000'000; // 1 us: 1400 cycles
    t.weight_load_ps[1] = 500'000;
    h.state->publish(0, 0, t);
    BOOST_TEST(h.text(of(attribute_kind::pe_counters, 0, 0)) ==
               "xrow_grp,mm_active,wl_active,idle\n0,0,0,1400000\n1,1400,700,1398600\n2,0,0,1400000\n3,0,0,1400000\n");
}

// --- class attributes -------------------------------------------------------

BOOST_AUTO_TEST_CASE(class_attributes_outside_an_ultraserver) {
    host h("trn1.32xlarge");
    BOOST_TEST(h.text(of(attribute_kind::class_node_id)) == "-1\n");
    BOOST_TEST(h.text(of(attribute_kind::class_server_id)) == "0000000000000000\n");
    BOOST_TEST(h.text(of(attribute_kind::class_ultraserver_mode)) == "\n");
}

// --- the kernel's generic device files --------------------------------------

BOOST_AUTO_TEST_CASE(dev_is_major_colon_minor) {
    host h("trn1.32xlarge");
    BOOST_TEST(h.text(of(attribute_kind::device_numbers, 0)) == "239:0\n");
    BOOST_TEST(h.text(of(attribute_kind::device_numbers, 12)) == "239:12\n");
}

BOOST_AUTO_TEST_CASE(uevent_names_the_device_node) {
    host h("trn1.32xlarge");
    BOOST_TEST(h.text(of(attribute_kind::uevent, 3)) == "MAJOR=239\nMINOR=3\nDEVNAME=neuron3\n");
    BOOST_TEST(h.text(of(attribute_kind::uevent, 0)) == "MAJOR=239\nMINOR=0\nDEVNAME=neuron0\n");
}

BOOST_AUTO_TEST_CASE(runtime_pm_files_of_a_device_without_runtime_pm) {
    host h("trn1.2xlarge");
    BOOST_TEST(h.text(of(attribute_kind::pm_control)) == "auto\n");
    BOOST_TEST(h.text(of(attribute_kind::pm_runtime_status)) == "unsupported\n");
    BOOST_TEST(h.text(of(attribute_kind::pm_runtime_enabled)) == "disabled\n");
    BOOST_TEST(h.text(of(attribute_kind::pm_async)) == "disabled\n");
    BOOST_TEST(h.text(of(attribute_kind::pm_runtime_usage)) == "0\n");
    BOOST_TEST(h.text(of(attribute_kind::pm_runtime_active_kids)) == "0\n");
    BOOST_TEST(h.text(of(attribute_kind::pm_runtime_active_time)) == "0\n");
    BOOST_TEST(h.text(of(attribute_kind::pm_runtime_suspended_time)) == "0\n");
}

BOOST_AUTO_TEST_CASE(forbidding_runtime_pm_changes_three_files) {
    host h("trn1.32xlarge");
    h.generic.set_runtime_pm_allowed(2, false);
    BOOST_TEST(h.text(of(attribute_kind::pm_control, 2)) == "on\n");
    BOOST_TEST(h.text(of(attribute_kind::pm_runtime_enabled, 2)) == "disabled & forbidden\n");
    BOOST_TEST(h.text(of(attribute_kind::pm_runtime_usage, 2)) == "1\n");
    BOOST_TEST(h.text(of(attribute_kind::pm_runtime_status, 2)) == "unsupported\n");
    // Other devices keep theirs.
    BOOST_TEST(h.text(of(attribute_kind::pm_control, 1)) == "auto\n");
    h.generic.set_runtime_pm_allowed(2, true);
    BOOST_TEST(h.text(of(attribute_kind::pm_control, 2)) == "auto\n");
    BOOST_TEST(h.text(of(attribute_kind::pm_runtime_usage, 2)) == "0\n");
}

BOOST_AUTO_TEST_CASE(async_follows_the_generic_state) {
    host h("trn1.2xlarge");
    h.generic.set_async_suspend(0, true);
    BOOST_TEST(h.text(of(attribute_kind::pm_async)) == "enabled\n");
}

BOOST_AUTO_TEST_CASE(autosuspend_delay_read_fails_with_eio) {
    host h("trn1.2xlarge");
    const auto result = h.reader.read(of(attribute_kind::pm_autosuspend_delay_ms));
    BOOST_TEST(result.error == EIO);
    BOOST_TEST(result.text.empty());
}
