#define BOOST_TEST_MODULE attribute_writer
#include <boost/test/unit_test.hpp>

#include "neuron/model/state/make_published_state.h"
#include "neuron/model/state/published_state.h"
#include "neuron/sysfs/attribute_writer.h"
#include "neuron/sysfs/generic_device_state.h"
#include "neuron/sysfs/model_port.h"

#include <cerrno>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

using namespace neuron::sysfs;
using namespace std::string_view_literals;
using neuron::model::counter_field;
using neuron::model::counter_kind;
using neuron::model::counter_ref;

namespace {

// Records what a store asked of the model.
class fake_port : public model_port {
public:
    struct cleared {
        counter_ref counter;
        counter_field field;
    };
    void clear_counter(const counter_ref& counter, counter_field field) override { clears.push_back({counter, field}); }
    void set_notifications(bool enabled) override { notifications.push_back(enabled); }
    void request_device_reset(std::uint32_t device) override { resets.push_back(device); }

    std::size_t calls() const { return clears.size() + notifications.size() + resets.size(); }

    std::vector<cleared> clears;
    std::vector<bool> notifications;
    std::vector<std::uint32_t> resets;
};

struct host {
    explicit host(std::string_view instance = "trn1.2xlarge")
            : state(make_state(instance)), generic(state->device_count()),
              writer(*state, generic, port, [this](std::string_view message) { log.emplace_back(message); }) {}

    static std::unique_ptr<neuron::model::published_state> make_state(std::string_view instance) {
        neuron::model::platform_config config;
        config.instance = std::string(instance);
        return neuron::model::make_published_state(config);
    }

    store_result store(const attribute& attr, std::string_view written) { return writer.store(attr, written); }

    std::unique_ptr<neuron::model::published_state> state;
    generic_device_state generic;
    fake_port port;
    std::vector<std::string> log;
    attribute_writer writer;
};

attribute of(attribute_kind kind, std::uint32_t device = 0, std::int32_t core = counter_ref::device_level) {
    return attribute::of(kind, device, core);
}

attribute field_of(counter_ref ref, counter_field field) { return attribute::of_counter(ref, field); }

std::string shown(std::string_view s) {
    std::string out;
    for (const char c : s) out += c == '\n' ? std::string("\\n") : c == '\0' ? std::string("\\0") : std::string(1, c);
    return '"' + out + '"';
}

// A write the store accepts: no error, every byte reported as written.
bool accepted_whole(const store_result& r, std::string_view written) {
    return r.error == 0 && r.accepted == written.size();
}

bool refused(const store_result& r, int error) { return r.error == error && r.accepted == 0; }

const auto core1_success = counter_ref::of_core(0, 1, counter_kind::success);

} // namespace

// --- counter fields ---------------------------------------------------------

BOOST_AUTO_TEST_CASE(counter_write_clears_exactly_that_field_whatever_the_content) {
    for (const auto content : {"0"sv, "0\n"sv, "12345\n"sv, "garbage"sv, "\n"sv, " "sv, "-1"sv, "\0"sv, "x\0y"sv}) {
        for (const auto field : {counter_field::total, counter_field::present, counter_field::peak}) {
            host h;
            const auto r = h.store(field_of(core1_success, field), content);
            BOOST_TEST(accepted_whole(r, content), shown(content));
            BOOST_TEST(!r.notify_self);
            BOOST_TEST_REQUIRE(h.port.clears.size() == 1u);
            BOOST_TEST((h.port.clears[0].counter == core1_success));
            BOOST_TEST((h.port.clears[0].field == field));
            BOOST_TEST(h.port.calls() == 1u);
            BOOST_TEST(h.log.empty());
        }
    }
}

BOOST_AUTO_TEST_CASE(device_level_counter_write_clears_the_device_counter) {
    host h("trn1.32xlarge");
    const auto ref = counter_ref::of_device(9, counter_kind::host_tensors);
    BOOST_TEST(accepted_whole(h.store(field_of(ref, counter_field::peak), "0\n"), "0\n"));
    BOOST_TEST_REQUIRE(h.port.clears.size() == 1u);
    BOOST_TEST((h.port.clears[0].counter == ref));
    BOOST_TEST((h.port.clears[0].field == counter_field::peak));
}

BOOST_AUTO_TEST_CASE(counter_write_never_notifies_itself) {
    // The model notifies the cleared field; the store must not add a second one.
    host h;
    h.state->set_notifications(true);
    const auto r = h.store(field_of(core1_success, counter_field::total), "0");
    BOOST_TEST(accepted_whole(r, "0"));
    BOOST_TEST(!r.notify_self);
}

BOOST_AUTO_TEST_CASE(write_longer_than_a_page_reports_a_page) {
    host h;
    const std::string big(5000, '0');
    const auto r = h.store(field_of(core1_success, counter_field::total), big);
    BOOST_TEST(r.error == 0);
    BOOST_TEST(r.accepted == 4096u);
    BOOST_TEST(h.port.clears.size() == 1u);
}

BOOST_AUTO_TEST_CASE(empty_write_does_nothing) {
    for (const auto kind :
         {attribute_kind::counter_field, attribute_kind::notify_delay, attribute_kind::arch_type, attribute_kind::reset,
          attribute_kind::uevent, attribute_kind::pm_control, attribute_kind::pm_async,
          attribute_kind::pm_autosuspend_delay_ms, attribute_kind::refresh_rate}) {
        host h;
        const auto r = h.store(of(kind, 0, kind == attribute_kind::counter_field ? 0 : -1), "");
        BOOST_TEST(r.error == 0);
        BOOST_TEST(r.accepted == 0u);
        BOOST_TEST(!r.notify_self);
        BOOST_TEST(h.port.calls() == 0u);
        BOOST_TEST(h.log.empty());
    }
}

// --- notify_delay -----------------------------------------------------------

BOOST_AUTO_TEST_CASE(notify_delay_zero_turns_notifications_on) {
    for (const auto text : {"0"sv, "0\n"sv, "+0"sv, "-0"sv, "00"sv, "0\0junk"sv}) {
        host h;
        const auto r = h.store(of(attribute_kind::notify_delay), text);
        BOOST_TEST(accepted_whole(r, text), shown(text));
        BOOST_TEST_REQUIRE(h.port.notifications.size() == 1u, shown(text));
        BOOST_TEST(bool(h.port.notifications[0]));
        BOOST_TEST(h.port.calls() == 1u);
        BOOST_TEST(h.log.empty());
    }
}

BOOST_AUTO_TEST_CASE(notify_delay_minus_one_turns_notifications_off) {
    for (const auto text : {"-1"sv, "-1\n"sv}) {
        host h;
        const auto r = h.store(of(attribute_kind::notify_delay), text);
        BOOST_TEST(accepted_whole(r, text), shown(text));
        BOOST_TEST_REQUIRE(h.port.notifications.size() == 1u);
        BOOST_TEST(!bool(h.port.notifications[0]));
        BOOST_TEST(h.log.empty());
    }
}

BOOST_AUTO_TEST_CASE(invalid_notify_delay_is_logged_and_still_succeeds) {
    for (const auto text : {"5"sv, "1"sv, "-2"sv, "abc"sv, "0 "sv, " 0"sv, "0\n\n"sv, "0x0"sv, "\n"sv, "\0"sv,
                            "99999999999999999999"sv}) {
        host h;
        const auto r = h.store(of(attribute_kind::notify_delay), text);
        BOOST_TEST(accepted_whole(r, text), shown(text));
        BOOST_TEST(h.port.calls() == 0u, shown(text));
        BOOST_TEST(h.log.size() == 1u, shown(text));
    }
}

BOOST_AUTO_TEST_CASE(invalid_notify_delay_log_names_the_problem) {
    host h;
    h.store(of(attribute_kind::notify_delay), "5\n");
    BOOST_TEST_REQUIRE(h.log.size() == 1u);
    BOOST_TEST(h.log[0].find("notify delay") != std::string::npos, h.log[0]);
}

BOOST_AUTO_TEST_CASE(notify_delay_parses_only_the_first_page) {
    host h;
    std::string text = "0";
    text += std::string(5000, ' ');
    const auto r = h.store(of(attribute_kind::notify_delay), text);
    BOOST_TEST(r.error == 0);
    BOOST_TEST(r.accepted == 4096u);
    BOOST_TEST(h.port.calls() == 0u);
    BOOST_TEST(h.log.size() == 1u);
}

BOOST_AUTO_TEST_CASE(metric_write_notifies_itself_only_when_notifications_are_on) {
    for (const auto kind : {attribute_kind::notify_delay, attribute_kind::arch_type, attribute_kind::serial_number}) {
        host off;
        BOOST_TEST(!off.store(of(kind), "5").notify_self);
        host on;
        on.state->set_notifications(true);
        BOOST_TEST(on.store(of(kind), "5").notify_self);
    }
}

// --- other metric files -----------------------------------------------------

BOOST_AUTO_TEST_CASE(other_metric_files_accept_change_nothing_and_log) {
    for (const auto kind :
         {attribute_kind::arch_type, attribute_kind::bare_arch_type, attribute_kind::serial_number,
          attribute_kind::instance_type, attribute_kind::device_name, attribute_kind::sram_ecc_uncorrected,
          attribute_kind::mem_ecc_uncorrected, attribute_kind::mem_ecc_repairable_uncorrected,
          attribute_kind::power_utilization, attribute_kind::pe_counters}) {
        host h;
        const auto r = h.store(of(kind, 0, kind == attribute_kind::pe_counters ? 0 : -1), "NDv9\n");
        BOOST_TEST(accepted_whole(r, "NDv9\n"));
        BOOST_TEST(h.port.calls() == 0u);
        BOOST_TEST(h.log.size() == 1u);
        BOOST_TEST(h.generic.runtime_pm_allowed(0));
    }
}

// --- reset ------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(reset_requests_a_device_reset_whatever_the_content) {
    for (const auto text : {"1"sv, "1\n"sv, "0"sv, "anything"sv}) {
        host h("trn1.32xlarge");
        const auto r = h.store(of(attribute_kind::reset, 7), text);
        BOOST_TEST(accepted_whole(r, text), shown(text));
        BOOST_TEST(!r.notify_self);
        BOOST_TEST_REQUIRE(h.port.resets.size() == 1u);
        BOOST_TEST(h.port.resets[0] == 7u);
        BOOST_TEST(h.port.calls() == 1u);
        BOOST_TEST(h.log.empty());
    }
}

BOOST_AUTO_TEST_CASE(reset_never_notifies_even_with_notifications_on) {
    host h;
    h.state->set_notifications(true);
    BOOST_TEST(!h.store(of(attribute_kind::reset), "1").notify_self);
}

// --- uevent -----------------------------------------------------------------

BOOST_AUTO_TEST_CASE(uevent_accepts_kobject_actions) {
    for (const auto text : {"change"sv, "change\n"sv, "add\n"sv, "add"sv, "remove"sv, "move"sv, "online"sv,
                            "offline\n"sv, "bind"sv, "unbind"sv}) {
        host h;
        const auto r = h.store(of(attribute_kind::uevent), text);
        BOOST_TEST(accepted_whole(r, text), shown(text));
        BOOST_TEST(h.port.calls() == 0u);
    }
}

BOOST_AUTO_TEST_CASE(uevent_accepts_a_uuid_and_key_value_arguments) {
    // lib/kobject_uevent.c kobject_action_args: a UUID, then " KEY=value" pairs.
    for (const auto text :
         {"change 01234567-89ab-cdef-0123-456789abcdef"sv, "add 01234567-89ab-cdef-0123-456789abcdef\n"sv,
          "change 01234567-89ab-cdef-0123-456789abcdef A=1 B=two"sv}) {
        host h;
        BOOST_TEST(accepted_whole(h.store(of(attribute_kind::uevent), text), text), shown(text));
    }
}

BOOST_AUTO_TEST_CASE(uevent_rejects_unknown_actions_with_einval) {
    for (const auto text : {"bogus"sv, "Change"sv, "chang"sv, "changed"sv, "\n"sv, " change"sv, "\0"sv}) {
        host h;
        BOOST_TEST(refused(h.store(of(attribute_kind::uevent), text), EINVAL), shown(text));
    }
}

BOOST_AUTO_TEST_CASE(uevent_rejects_arguments_that_are_not_a_uuid) {
    // kobject_synth_uevent: once there is a space after the action, what
    // follows must start with a 36-character UUID (kobject_action_args), or
    // the store fails with EINVAL ("incorrect uevent action arguments").
    for (const auto text : {"change extra"sv, "change extra\n"sv, "change "sv, "add x"sv,
                            "change 01234567-89ab-cdef-0123-456789abcdef A"sv}) {
        host h;
        BOOST_TEST(refused(h.store(of(attribute_kind::uevent), text), EINVAL), shown(text));
    }
}

// --- power/ -----------------------------------------------------------------

BOOST_AUTO_TEST_CASE(control_on_forbids_and_auto_allows_runtime_pm) {
    host h("trn1.32xlarge");
    for (const auto text : {"on"sv, "on\n"sv}) {
        h.generic.set_runtime_pm_allowed(4, true);
        BOOST_TEST(accepted_whole(h.store(of(attribute_kind::pm_control, 4), text), text), shown(text));
        BOOST_TEST(!h.generic.runtime_pm_allowed(4));
    }
    for (const auto text : {"auto"sv, "auto\n"sv}) {
        h.generic.set_runtime_pm_allowed(4, false);
        BOOST_TEST(accepted_whole(h.store(of(attribute_kind::pm_control, 4), text), text), shown(text));
        BOOST_TEST(h.generic.runtime_pm_allowed(4));
    }
    BOOST_TEST(h.generic.runtime_pm_allowed(3));
    BOOST_TEST(h.port.calls() == 0u);
}

BOOST_AUTO_TEST_CASE(control_rejects_other_values_and_keeps_the_state) {
    for (const auto text : {"off"sv, "ON"sv, "on \n"sv, " on"sv, "auto\n\n"sv, "enabled"sv, "\n"sv}) {
        host h;
        h.generic.set_runtime_pm_allowed(0, false);
        BOOST_TEST(refused(h.store(of(attribute_kind::pm_control), text), EINVAL), shown(text));
        BOOST_TEST(!h.generic.runtime_pm_allowed(0));
    }
}

BOOST_AUTO_TEST_CASE(async_takes_enabled_and_disabled) {
    host h;
    BOOST_TEST(accepted_whole(h.store(of(attribute_kind::pm_async), "enabled\n"), "enabled\n"));
    BOOST_TEST(h.generic.async_suspend(0));
    BOOST_TEST(accepted_whole(h.store(of(attribute_kind::pm_async), "disabled"), "disabled"));
    BOOST_TEST(!h.generic.async_suspend(0));
    BOOST_TEST(accepted_whole(h.store(of(attribute_kind::pm_async), "enabled"), "enabled"));
    BOOST_TEST(refused(h.store(of(attribute_kind::pm_async), "on"), EINVAL));
    BOOST_TEST(refused(h.store(of(attribute_kind::pm_async), "disable"), EINVAL));
    BOOST_TEST(h.generic.async_suspend(0));
}

BOOST_AUTO_TEST_CASE(autosuspend_delay_write_fails_with_eio) {
    for (const auto text : {"100"sv, "-1\n"sv, "junk"sv}) {
        host h;
        BOOST_TEST(refused(h.store(of(attribute_kind::pm_autosuspend_delay_ms), text), EIO), shown(text));
    }
}

// --- refresh_rate (2.7) -----------------------------------------------------

BOOST_AUTO_TEST_CASE(refresh_rate_accepts_1000_ms_and_more) {
    host h;
    for (const auto& [text, value] :
         {std::pair{"1000"sv, 1000u}, std::pair{"150000\n"sv, 150000u}, std::pair{"+2000"sv, 2000u}}) {
        const auto r = h.store(of(attribute_kind::refresh_rate), text);
        BOOST_TEST(accepted_whole(r, text), shown(text));
        BOOST_TEST(!r.notify_self);
        BOOST_TEST(h.generic.refresh_rate_ms() == value);
    }
    BOOST_TEST(h.port.calls() == 0u);
}

BOOST_AUTO_TEST_CASE(refresh_rate_ignores_small_and_garbage_values_and_still_succeeds) {
    for (const auto text : {"999"sv, "0"sv, "-1000"sv, "abc"sv, "1000 "sv, "1e3"sv, "\n"sv, "4294967296"sv}) {
        host h;
        BOOST_TEST(accepted_whole(h.store(of(attribute_kind::refresh_rate), text), text), shown(text));
        BOOST_TEST(h.generic.refresh_rate_ms() == generic_device_state::default_refresh_rate_ms);
        BOOST_TEST(h.log.size() == 1u, shown(text));
    }
}
