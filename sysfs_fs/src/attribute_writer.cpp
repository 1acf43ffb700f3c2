#include "neuron/sysfs/attribute_writer.h"

#include "neuron/model/state/published_state.h"
#include "neuron/sysfs/kernel_parse.h"

#include <fmt/format.h>

#include <cerrno>

namespace neuron::sysfs {
namespace {

std::string printable(std::string_view text) {
    std::string out;
    for (const char c : text.substr(0, 64)) {
        out += (c >= 0x20 && c < 0x7f) ? std::string(1, c) : fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
    }
    return out;
}

} // namespace

attribute_writer::attribute_writer(const model::published_state& state, generic_device_state& generic,
                                   model_port& model, driver_log log)
        : m_state(state), m_generic(generic), m_model(model), m_log(std::move(log)) {}

store_result attribute_writer::store(const attribute& attr, std::string_view written) {
    // kernfs hands a store at most one page and ignores the file position;
    // an empty write never reaches the store.
    const std::size_t count = std::min(written.size(), sysfs_page_size);
    if (count == 0) return {};
    const auto text = store_text(written);
    if (traits_of(attr.kind).metric) return store_metric(attr, text, count);
    return store_generic(attr, written.substr(0, count), text);
}

store_result attribute_writer::store_metric(const attribute& attr, std::string_view text, std::size_t count) {
    switch (attr.kind) {
    case attribute_kind::counter_field:
        // Whatever was written clears exactly this field; the model notifies it.
        m_model.clear_counter(attr.counter_ref(), attr.field);
        return {0, count, false};
    case attribute_kind::notify_delay: {
        const auto value = parse_kstrtoll(text);
        if (value == 0 || value == -1) {
            m_model.set_notifications(*value == 0);
        } else {
            // The driver logs and still reports the write as a success.
            m_log(fmt::format("received invalid notify delay '{}'", printable(text)));
        }
        break;
    }
    case attribute_kind::refresh_rate: {
        // 2.7 takes refresh rates of 1000 ms and more; anything else is
        // logged and ignored, and the write still succeeds, as the other
        // stores do.
        const auto value = parse_kstrtoull(text);
        if (!value || *value < generic_device_state::minimum_refresh_rate_ms || *value > UINT32_MAX) {
            m_log(fmt::format("received invalid refresh rate '{}'", printable(text)));
            return {0, count, false};
        }
        m_generic.set_refresh_rate_ms(static_cast<std::uint32_t>(*value));
        return {0, count, false};
    }
    default: m_log(fmt::format("cannot set sysfs metrics for this attribute (wrote '{}')", printable(text))); break;
    }
    return {0, count, m_state.notifications_enabled()};
}

store_result attribute_writer::store_generic(const attribute& attr, std::string_view raw, std::string_view text) {
    const std::size_t count = raw.size();
    switch (attr.kind) {
    case attribute_kind::reset:
        // Content ignored; refused silently while the device is open.
        m_model.request_device_reset(attr.device);
        return {0, count, false};
    case attribute_kind::uevent:
    case attribute_kind::dmi_uevent:
        // A valid action would make the kernel send a synthetic uevent;
        // there is no netlink listener to send it to.
        return valid_synthetic_uevent(raw) ? store_result{0, count, false} : store_result{EINVAL, 0, false};
    case attribute_kind::pm_control:
        if (sysfs_streq(text, "auto")) {
            m_generic.set_runtime_pm_allowed(attr.device, true);
        } else if (sysfs_streq(text, "on")) {
            m_generic.set_runtime_pm_allowed(attr.device, false);
        } else {
            return {EINVAL, 0, false};
        }
        return {0, count, false};
    case attribute_kind::pm_async:
        if (sysfs_streq(text, "enabled")) {
            m_generic.set_async_suspend(attr.device, true);
        } else if (sysfs_streq(text, "disabled")) {
            m_generic.set_async_suspend(attr.device, false);
        } else {
            return {EINVAL, 0, false};
        }
        return {0, count, false};
    case attribute_kind::pm_autosuspend_delay_ms: return {EIO, 0, false};
    default: return {EACCES, 0, false};
    }
}

} // namespace neuron::sysfs
