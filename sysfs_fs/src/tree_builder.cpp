#include "neuron/sysfs/tree_builder.h"

#include "neuron/sysfs/dmi_identity.h"

#include <fmt/format.h>

namespace neuron::sysfs {
namespace {

using model::counter_field;
using model::counter_group;
using model::counter_kind;
using model::counter_ref;

constexpr std::uint32_t read_only_root = 0400;
constexpr std::uint32_t read_write_root = 0600;
constexpr std::uint32_t world_readable = 0444;
constexpr std::uint32_t owner_writable = 0644;

class builder {
public:
    builder(const layout& l, sysfs_tree& tree) : m_layout(l), m_tree(tree) {}

    void build() {
        const node_id dir = directories(devices_path);
        const node_id class_dir = directories(class_path);
        for (std::uint32_t d = 0; d < m_layout.instance().device_count; ++d) {
            const auto name = fmt::format("neuron{}", d);
            add_device(m_tree.directory(dir, name), d);
            m_tree.add_symlink(class_dir, name, fmt::format("../../{}/{}", devices_path, name));
        }
        if (m_layout.has(layout_feature::class_attributes)) add_class_attributes(class_dir);
        add_dmi_identity();
    }

private:
    void file(node_id dir, std::string_view name, std::uint32_t mode, attribute attr) {
        m_tree.add_attribute(dir, name, mode, attr);
    }
    void metric(node_id dir, std::string_view name, attribute attr) { file(dir, name, m_layout.metric_mode(), attr); }
    static attribute of(attribute_kind kind, std::uint32_t device, std::int32_t core = counter_ref::device_level) {
        return attribute::of(kind, device, core);
    }

    void add_device(node_id dev, std::uint32_t d) {
        add_generic_device_entries(dev, d);
        file(dev, "reset", read_write_root, of(attribute_kind::reset, d));
        file(dev, "core_count", read_only_root, of(attribute_kind::core_count, d));
        if (m_layout.has(layout_feature::connected_devices)) {
            file(dev, "connected_devices", read_only_root, of(attribute_kind::connected_devices, d));
        }
        if (m_layout.has(layout_feature::metrics_directory)) {
            add_metrics_directory(m_tree.directory(dev, "metrics"), d);
            return;
        }
        add_device_info(dev, d);
        add_device_stats(dev, d);
        for (std::uint32_t c = 0; c < m_layout.instance().cores_per_device(); ++c) {
            add_core(m_tree.directory(dev, fmt::format("neuron_core{}", c)), d, static_cast<std::int32_t>(c));
        }
    }

    // The device model's own entries (drivers/base/core.c, power/sysfs.c).
    void add_generic_device_entries(node_id dev, std::uint32_t d) {
        file(dev, "dev", world_readable, of(attribute_kind::device_numbers, d));
        file(dev, "uevent", owner_writable, of(attribute_kind::uevent, d));
        m_tree.add_symlink(dev, "subsystem", "../../../../class/neuron_device");
        const auto power = m_tree.directory(dev, "power");
        file(power, "async", owner_writable, of(attribute_kind::pm_async, d));
        file(power, "autosuspend_delay_ms", owner_writable, of(attribute_kind::pm_autosuspend_delay_ms, d));
        file(power, "control", owner_writable, of(attribute_kind::pm_control, d));
        file(power, "runtime_active_kids", world_readable, of(attribute_kind::pm_runtime_active_kids, d));
        file(power, "runtime_active_time", world_readable, of(attribute_kind::pm_runtime_active_time, d));
        file(power, "runtime_enabled", world_readable, of(attribute_kind::pm_runtime_enabled, d));
        file(power, "runtime_status", world_readable, of(attribute_kind::pm_runtime_status, d));
        file(power, "runtime_suspended_time", world_readable, of(attribute_kind::pm_runtime_suspended_time, d));
        file(power, "runtime_usage", world_readable, of(attribute_kind::pm_runtime_usage, d));
    }

    void add_device_info(node_id dev, std::uint32_t d) {
        const auto info = m_tree.directory(dev, "info");
        if (m_layout.has(layout_feature::notify_delay))
            metric(info, "notify_delay", of(attribute_kind::notify_delay, d));
        if (m_layout.has_serial_number()) metric(info, "serial_number", of(attribute_kind::serial_number, d));
        const auto arch = m_tree.directory(info, "architecture");
        metric(arch, "arch_type", of(attribute_kind::arch_type, d));
        metric(arch, "instance_type", of(attribute_kind::instance_type, d));
        metric(arch, "device_name", of(attribute_kind::device_name, d));
    }

    void add_device_stats(node_id dev, std::uint32_t d) {
        if (m_layout.has(layout_feature::memory_breakdown)) {
            const auto host_mem =
                m_tree.directory(m_tree.directory(m_tree.directory(dev, "stats"), "memory_usage"), "host_mem");
            add_counters(host_mem, d, counter_ref::device_level, counter_group::host_category);
        }
        if (m_layout.has_hardware_ecc()) {
            const auto hw = m_tree.directory(m_tree.directory(dev, "stats"), "hardware");
            metric(hw, "sram_ecc_uncorrected", of(attribute_kind::sram_ecc_uncorrected, d));
            metric(hw, "mem_ecc_uncorrected", of(attribute_kind::mem_ecc_uncorrected, d));
            if (m_layout.has(layout_feature::repairable_hbm)) {
                metric(hw, "mem_ecc_repairable_uncorrected", of(attribute_kind::mem_ecc_repairable_uncorrected, d));
            }
        }
        if (m_layout.has(layout_feature::power_utilization)) {
            const auto power = m_tree.directory(m_tree.directory(dev, "stats"), "power");
            metric(power, "utilization", of(attribute_kind::power_utilization, d));
        }
    }

    void add_core(node_id core_dir, std::uint32_t d, std::int32_t c) {
        const auto arch = m_tree.directory(m_tree.directory(core_dir, "info"), "architecture");
        metric(arch, "arch_type", of(attribute_kind::arch_type, d, c));
        const auto stats = m_tree.directory(core_dir, "stats");
        add_core_counters(stats, d, c);
        if (m_layout.has_pe_counters()) {
            metric(m_tree.directory(stats, "tensor_engine"), "pe_cntrs", of(attribute_kind::pe_counters, d, c));
        }
    }

    // status/, memory_usage/ and other_info/ of one core, below `parent`.
    void add_core_counters(node_id parent, std::uint32_t d, std::int32_t c) {
        add_counters(m_tree.directory(parent, "status"), d, c, counter_group::status);
        const auto memory = m_tree.directory(parent, "memory_usage");
        add_counter(memory, d, c, counter_kind::host_mem);
        const auto device_mem = add_counter(memory, d, c, counter_kind::device_mem);
        add_counters(device_mem, d, c, counter_group::device_category);
        add_counters(m_tree.directory(parent, "other_info"), d, c, counter_group::other_info);
    }

    void add_counters(node_id dir, std::uint32_t d, std::int32_t c, counter_group group) {
        for (const auto& info : model::counters_in(group)) add_counter(dir, d, c, info.kind);
    }

    // The counter's directory with its field files; nothing when the release hides it.
    node_id add_counter(node_id parent, std::uint32_t d, std::int32_t c, counter_kind kind) {
        const auto name = m_layout.counter_directory(kind);
        if (!name) return no_node;
        const auto dir = m_tree.directory(parent, *name);
        for (auto field : {counter_field::total, counter_field::present, counter_field::peak}) {
            if (field == counter_field::peak && !m_layout.shows_peak(kind)) continue;
            metric(dir, model::field_name(field), attribute::of_counter({d, c, kind}, field));
        }
        return dir;
    }

    // 2.7: everything below neuronN/metrics/, cores without a stats/ level.
    void add_metrics_directory(node_id metrics, std::uint32_t d) {
        metric(metrics, "arch_type", of(attribute_kind::bare_arch_type, d));
        metric(metrics, "refresh_rate", of(attribute_kind::refresh_rate, d));
        for (std::uint32_t c = 0; c < m_layout.instance().cores_per_device(); ++c) {
            const auto core_dir = m_tree.directory(metrics, fmt::format("neuron_core{}", c));
            add_core_counters(core_dir, d, static_cast<std::int32_t>(c));
            m_tree.directory(core_dir, "dynamic_metrics"); // created empty by that release
        }
    }

    void add_class_attributes(node_id class_dir) {
        for (const auto name : {"node_id_2", "node_id_4"})
            file(class_dir, name, world_readable, of(attribute_kind::class_node_id, 0));
        for (const auto name : {"server_id_2", "server_id_4"})
            file(class_dir, name, world_readable, of(attribute_kind::class_server_id, 0));
        file(class_dir, "ultraserver_mode", world_readable, of(attribute_kind::class_ultraserver_mode, 0));
    }

    // Each directory of a '/'-separated path from the root; the last one's id.
    node_id directories(std::string_view path) {
        node_id dir = root_node;
        for (std::size_t start = 0; start < path.size();) {
            const auto slash = std::min(path.find('/', start), path.size());
            dir = m_tree.directory(dir, path.substr(start, slash - start));
            start = slash + 1;
        }
        return dir;
    }

    // The machine's, beside the driver's devices; a mount of the whole tree shows it.
    void add_dmi_identity() {
        const auto id = directories(dmi_path);
        for (std::uint32_t i = 0; i < dmi_files().size(); ++i) {
            const auto& f = dmi_files()[i];
            const auto kind = f.source == dmi_source::uevent ? attribute_kind::dmi_uevent : attribute_kind::dmi_field;
            file(id, f.name, f.mode, attribute::of_dmi(kind, i));
        }
        m_tree.add_symlink(id, "subsystem", "../../../../class/dmi");
        m_tree.add_symlink(directories(dmi_class_path), "id", "../../devices/virtual/dmi/id");
    }

    const layout& m_layout;
    sysfs_tree& m_tree;
};

} // namespace

sysfs_tree build_tree(const layout& layout) {
    sysfs_tree tree;
    builder(layout, tree).build();
    tree.finish();
    return tree;
}

} // namespace neuron::sysfs
