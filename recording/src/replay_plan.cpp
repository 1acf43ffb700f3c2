#include "neuron/recording/replay_plan.h"

#include "layout_match.h"

#include "neuron/sysfs/driver_format.h"
#include "neuron/sysfs/tree_builder.h"

#include <fmt/format.h>

#include <charconv>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace neuron::recording {
namespace {

using sysfs::attribute_kind;
using sysfs::node_id;
using sysfs::node_type;

// Values that change over the samples, all files together: beyond this a
// recording is refused rather than served from gigabytes of script.
constexpr std::size_t max_replayed_changes = 4'000'000;

// Files whose contents the model keeps moving or that a write acts on:
// served by the model wherever the layout has them. Everything else the
// layout shows (identity, serials, topology, device numbers) is served as
// the host showed it.
bool modelled(attribute_kind kind) {
    switch (kind) {
    case attribute_kind::counter_field:
    case attribute_kind::notify_delay:
    case attribute_kind::reset:
    case attribute_kind::sram_ecc_uncorrected:
    case attribute_kind::mem_ecc_uncorrected:
    case attribute_kind::mem_ecc_repairable_uncorrected:
    case attribute_kind::power_utilization:
    case attribute_kind::pe_counters:
    case attribute_kind::refresh_rate:
    case attribute_kind::pm_async:
    case attribute_kind::pm_control:
    case attribute_kind::pm_autosuspend_delay_ms: return true;
    default: return false;
    }
}

// A value as the driver shows it, or nothing when the text is not one.
template <typename Format>
std::optional<std::uint64_t> parsed(const std::string& text, int base, Format format) {
    std::uint64_t v = 0;
    const auto end = text.data() + text.size();
    const auto [stop, ec] = std::from_chars(text.data(), end, v, base);
    if (ec != std::errc() || format(v) != text) return std::nullopt;
    return v;
}

std::optional<std::uint64_t> counter_of(const std::string& text) { return parsed(text, 10, sysfs::format_counter); }

class overlay {
public:
    overlay(const tree_recording& r, const sysfs::layout& layout, replay_plan& plan)
        : m_recording(r), m_layout_tree(sysfs::build_tree(layout)), m_plan(plan) {}

    void build() {
        auto& tree = m_plan.served.tree;
        copy_outside_devices(sysfs::root_node, sysfs::root_node);
        m_directories.emplace("", m_devices);
        std::size_t counter_index = 0;
        for (const auto& e : m_recording.entries) {
            add(e, e.counter ? counter_index++ : no_counter);
        }
        tree.finish();
        std::size_t layout_files = 0;
        const auto count = [&](auto&& self, node_id id) -> void {
            for (const auto child : m_layout_tree.at(id).children) {
                const auto& n = m_layout_tree.at(child);
                if (n.type == node_type::directory) {
                    self(self, child);
                } else {
                    ++layout_files;
                }
            }
        };
        count(count, m_layout_devices);
        m_plan.counts.layout_only = layout_files - m_matched;
    }

private:
    static constexpr std::size_t no_counter = SIZE_MAX;

    // The layout's tree but the devices' half, which the recording gives.
    void copy_outside_devices(node_id from, node_id to) {
        auto& tree = m_plan.served.tree;
        for (const auto child : m_layout_tree.at(from).children) {
            const auto& n = m_layout_tree.at(child);
            switch (n.type) {
            case node_type::directory: {
                const auto dir = tree.directory(to, n.name, n.mode);
                if (m_layout_tree.path_of(child) == sysfs::devices_path) {
                    m_devices = dir;
                    m_layout_devices = child;
                } else {
                    copy_outside_devices(child, dir);
                }
                break;
            }
            case node_type::attribute: tree.add_attribute(to, n.name, n.mode, n.attr); break;
            case node_type::symlink: tree.add_symlink(to, n.name, n.target); break;
            }
        }
    }

    node_id parent_of(const std::string& path) {
        const auto slash = path.rfind('/');
        const auto parent = slash == std::string::npos ? std::string() : path.substr(0, slash);
        if (const auto it = m_directories.find(parent); it != m_directories.end()) return it->second;
        if (m_not_directories.contains(parent)) {
            throw recording_error(fmt::format("entry '{}' lies below '{}', which is not a directory", path, parent));
        }
        // A directory the recording left out: made as the kernel would.
        const auto id = m_plan.served.tree.directory(parent_of(parent), parent.substr(parent.rfind('/') + 1));
        m_directories.emplace(parent, id);
        return id;
    }

    void add(const tree_entry& e, std::size_t counter_index) {
        auto& tree = m_plan.served.tree;
        const auto parent = parent_of(e.path);
        const auto name = e.path.substr(e.path.rfind('/') + 1);
        const auto in_layout = m_layout_tree.resolve(e.path, m_layout_devices);
        const bool layout_has = in_layout != sysfs::no_node && entry_type_of(m_layout_tree.at(in_layout).type) == e.type;
        if (layout_has && e.type != entry_type::directory) ++m_matched;
        switch (e.type) {
        case entry_type::directory: m_directories.emplace(e.path, tree.directory(parent, name, e.mode)); return;
        case entry_type::link:
            m_not_directories.insert(e.path);
            tree.add_symlink(parent, name, e.target);
            return;
        case entry_type::file: break;
        }
        m_not_directories.insert(e.path);
        if (layout_has && serve_by_model(e, m_layout_tree.at(in_layout).attr, counter_index)) {
            tree.add_attribute(parent, name, e.mode, m_layout_tree.at(in_layout).attr);
            ++m_plan.counts.modelled;
            return;
        }
        if (layout_has) note_identity(e, m_layout_tree.at(in_layout).attr);
        sysfs::recorded_files::file f;
        f.error = e.read_error;
        if (f.error == 0) {
            f.texts.push_back({0, e.value});
            for_each_sample(counter_index, [&](std::uint64_t at, const std::string& text) {
                if (text == f.texts.back().text) return false;
                f.texts.push_back({at, text});
                return true;
            });
        }
        tree.add_attribute(parent, name, e.mode, sysfs::attribute::of_recorded(m_plan.served.recorded.add(std::move(f))));
        ++m_plan.counts.as_recorded;
        if (!layout_has) ++m_plan.counts.host_only;
    }

    bool serve_by_model(const tree_entry& e, const sysfs::attribute& attr, std::size_t counter_index) {
        if (!modelled(attr.kind)) return false;
        if (attr.kind != attribute_kind::counter_field) return true;
        const auto start = e.read_error == 0 ? counter_of(e.value) : std::nullopt;
        if (!start) return false; // not a count the model can hold: shown as recorded
        auto& script = m_plan.counter_script;
        script.push_back({0, attr.counter_ref(), attr.field, *start});
        auto last = *start;
        for_each_sample(counter_index, [&](std::uint64_t at, const std::string& text) {
            const auto v = counter_of(text);
            if (!v || *v == last) return false;
            script.push_back({at, attr.counter_ref(), attr.field, *v});
            last = *v;
            return true;
        });
        return true;
    }

    // The serial the model should report for its device, when the host's reads as one.
    void note_identity(const tree_entry& e, const sysfs::attribute& attr) {
        if (attr.kind != attribute_kind::serial_number || e.read_error != 0) return;
        if (const auto serial = parsed(e.value, 16, sysfs::format_serial_number)) m_plan.serials[attr.device] = *serial;
    }

    template <typename Visit>
    void for_each_sample(std::size_t counter_index, Visit&& visit) {
        if (counter_index == no_counter) return;
        for (std::size_t n = 0; n < m_recording.samples.size(); ++n) {
            if (visit(sample_time_ns(m_recording, n), m_recording.samples[n].values.at(counter_index))) ++m_changes;
        }
        if (m_changes > max_replayed_changes) {
            throw recording_error(fmt::format("the samples change more than {} counter values; a replay holds at most that",
                                              max_replayed_changes));
        }
    }

    const tree_recording& m_recording;
    sysfs::sysfs_tree m_layout_tree;
    replay_plan& m_plan;
    node_id m_devices = sysfs::no_node;        // in the served tree
    node_id m_layout_devices = sysfs::no_node; // in the layout's
    std::unordered_map<std::string, node_id> m_directories; // below the devices' root
    std::unordered_set<std::string> m_not_directories;
    std::size_t m_matched = 0;
    std::size_t m_changes = 0;
};

} // namespace

std::uint64_t sample_time_ns(const tree_recording& r, std::size_t n) { return r.interval_ns + r.samples.at(n).at_ns; }

replay_plan plan_replay(const tree_recording& r, const replay_request& request) {
    if (!r.samples.empty() && (r.samples.back().at_ns > model::max_scripted_at_ns ||
                               r.interval_ns > model::max_scripted_at_ns - r.samples.back().at_ns)) {
        throw recording_error(fmt::format("the last sample would replay after {} ns, beyond the {} ns the model's clock reaches",
                                          r.samples.back().at_ns, model::max_scripted_at_ns));
    }
    const auto choice = nearest_layout(r, request);
    replay_plan plan;
    plan.instance = std::string(choice.instance->name);
    plan.release = choice.release;
    const sysfs::layout layout(*choice.instance, *choice.release, request.char_major);
    overlay(r, layout, plan).build();
    return plan;
}

} // namespace neuron::recording
