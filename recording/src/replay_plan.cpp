#include "neuron/recording/replay_plan.h"

#include "layout_match.h"

#include "neuron/sysfs/dmi_identity.h"
#include "neuron/sysfs/driver_format.h"
#include "neuron/sysfs/tree_builder.h"

#include <fmt/format.h>

#include <charconv>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace neuron::recording {
namespace {

using model::script_action;
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

// A count as the driver shows it ("%llu\n"), or nothing when the text is not one.
std::optional<std::uint64_t> counter_of(std::string_view text) {
    std::uint64_t v = 0;
    const auto [stop, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || sysfs::format_counter(v) != text) return std::nullopt;
    return v;
}

// How a field's sample moves it from the host's previous value: the total by
// the difference, the peak only up, present (the last change) to the value.
std::optional<std::pair<script_action, std::uint64_t>> change(model::counter_field field, std::uint64_t before,
                                                              std::uint64_t after) {
    if (after == before) return std::nullopt;
    switch (field) {
    case model::counter_field::total: return std::pair{script_action::add, after - before};
    case model::counter_field::peak:
        if (after < before) return std::nullopt;
        return std::pair{script_action::add, after - before};
    case model::counter_field::present: return std::pair{script_action::set, after};
    }
    return std::nullopt;
}

class overlay {
public:
    overlay(const tree_recording& r, const sysfs::sysfs_tree& layout_tree, replay_plan& plan)
            : m_recording(r), m_layout_tree(layout_tree), m_plan(plan) {}

    void build() {
        copy_outside_devices(sysfs::root_node, sysfs::root_node);
        std::size_t counter_index = 0;
        for (const auto& e : m_recording.entries) add(e, e.counter ? counter_index++ : no_counter);
        script_samples();
        m_plan.served.tree.finish();
        std::size_t layout_files = 0;
        for_each_below(m_layout_tree, m_layout_devices, [&](const std::string&, node_id id) {
            if (m_layout_tree.at(id).type != node_type::directory) ++layout_files;
        });
        m_plan.counts.layout_only = layout_files - m_matched.size();
    }

private:
    static constexpr std::size_t no_counter = SIZE_MAX;

    struct placed {
        node_id id = sysfs::no_node;
        bool directory = false;
    };

    // A counter field the model serves, seeded with its recorded value.
    struct modelled_counter {
        std::size_t index; // among the recording's counters: its place in each sample
        model::counter_ref counter;
        model::counter_field field;
        std::uint64_t last; // the host's value so far
    };

    // The layout's tree but the devices' half, which the recording gives.
    void copy_outside_devices(node_id from, node_id to) {
        auto& tree = m_plan.served.tree;
        for (const auto child : m_layout_tree.at(from).children) {
            const auto& n = m_layout_tree.at(child);
            switch (n.type) {
            case node_type::directory: {
                const auto dir = tree.directory(to, n.name, n.mode);
                const auto path = m_layout_tree.path_of(child);
                if (path == sysfs::devices_path) {
                    m_devices = dir;
                    m_layout_devices = child;
                } else if (path == sysfs::dmi_path && !m_recording.identity.empty()) {
                    add_recorded_identity(child, dir);
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

    // The host's identity as it showed it, with the layout's links beside it.
    void add_recorded_identity(node_id layout_dir, node_id dir) {
        auto& tree = m_plan.served.tree;
        for (const auto& e : m_recording.identity) {
            sysfs::recorded_files::file f;
            f.error = e.read_error;
            if (f.error == 0) f.texts.push_back({0, e.value});
            const auto index = m_plan.served.recorded.add(std::move(f));
            tree.add_attribute(dir, e.path, e.mode, sysfs::attribute::of_recorded(index));
        }
        for (const auto child : m_layout_tree.at(layout_dir).children) {
            const auto& n = m_layout_tree.at(child);
            if (n.type == node_type::symlink && tree.child(dir, n.name) == sysfs::no_node) {
                tree.add_symlink(dir, n.name, n.target);
            }
        }
    }

    static std::string key(node_id parent, std::string_view name) { return fmt::format("{}/{}", parent, name); }

    // The directory an entry goes in, walking its path from the devices'
    // root: a directory the recording left out is made as the kernel would.
    node_id parent_of(const std::string& path) {
        node_id current = m_devices;
        std::size_t start = 0;
        for (auto slash = path.find('/'); slash != std::string::npos; slash = path.find('/', start)) {
            const auto name = std::string_view(path).substr(start, slash - start);
            const auto [it, made] = m_placed.try_emplace(key(current, name));
            if (made) it->second = {m_plan.served.tree.directory(current, name), true};
            if (!it->second.directory) {
                throw recording_error(
                    fmt::format("entry '{}' lies below '{}', which is not a directory", path, path.substr(0, slash)));
            }
            current = it->second.id;
            start = slash + 1;
        }
        return current;
    }

    void add(const tree_entry& e, std::size_t counter_index) {
        auto& tree = m_plan.served.tree;
        const auto parent = parent_of(e.path);
        const auto name = e.path.substr(e.path.rfind('/') + 1);
        const auto in_layout = m_layout_tree.resolve(e.path, m_layout_devices);
        const bool layout_has =
            in_layout != sysfs::no_node && entry_type_of(m_layout_tree.at(in_layout).type) == e.type;
        if (layout_has && e.type != entry_type::directory) m_matched.insert(in_layout);
        auto& place = m_placed[key(parent, name)];
        switch (e.type) {
        case entry_type::directory: place = {tree.directory(parent, name, e.mode), true}; return;
        case entry_type::link: place = {tree.add_symlink(parent, name, e.target), false}; return;
        case entry_type::file: break;
        }
        if (layout_has && serve_by_model(e, m_layout_tree.at(in_layout).attr, counter_index)) {
            place = {tree.add_attribute(parent, name, e.mode, m_layout_tree.at(in_layout).attr), false};
            ++m_plan.counts.modelled;
            return;
        }
        sysfs::recorded_files::file f;
        f.error = e.read_error;
        if (f.error == 0) {
            f.texts.push_back({0, e.value});
            for_each_sample(counter_index, [&](std::uint64_t at, std::string_view text) {
                if (text == f.texts.back().text) return false;
                f.texts.push_back({at, std::string(text)});
                return true;
            });
        }
        const auto index = m_plan.served.recorded.add(std::move(f));
        place = {tree.add_attribute(parent, name, e.mode, sysfs::attribute::of_recorded(index)), false};
        ++m_plan.counts.as_recorded;
        if (!layout_has) ++m_plan.counts.host_only;
    }

    bool serve_by_model(const tree_entry& e, const sysfs::attribute& attr, std::size_t counter_index) {
        if (!modelled(attr.kind)) return false;
        if (attr.kind != attribute_kind::counter_field) return true;
        const auto start = e.read_error == 0 ? counter_of(e.value) : std::nullopt;
        if (!start) return false; // not a count the model can hold: shown as recorded
        m_plan.counter_script.push_back({0, attr.counter_ref(), attr.field, *start});
        if (counter_index != no_counter) m_modelled.push_back({counter_index, attr.counter_ref(), attr.field, *start});
        return true;
    }

    // The samples' changes to the counters the model serves, sample by
    // sample, so that the script comes out in time order; counted first, so
    // that it takes the memory it needs and a recording past the limit none.
    void script_samples() {
        std::size_t changes = 0;
        sampled_changes(m_modelled, [&](const model::scripted_counter_value&) {
            count_change();
            ++changes;
        });
        auto& script = m_plan.counter_script;
        script.reserve(script.size() + changes);
        sampled_changes(m_modelled, [&](const model::scripted_counter_value& v) { script.push_back(v); });
    }

    template <typename Emit>
    void sampled_changes(std::vector<modelled_counter> counters, Emit&& emit) const {
        for (std::size_t n = 0; n < m_recording.samples.size(); ++n) {
            const auto at = sample_time_ns(m_recording, n);
            const auto& values = m_recording.samples[n].values;
            for (auto& c : counters) {
                const auto v = counter_of(values.at(c.index));
                if (!v) continue;
                const auto moved = change(c.field, c.last, *v);
                c.last = *v;
                if (moved) emit(model::scripted_counter_value{at, c.counter, c.field, moved->second, moved->first});
            }
        }
    }

    template <typename Visit>
    void for_each_sample(std::size_t counter_index, Visit&& visit) {
        if (counter_index == no_counter) return;
        for (std::size_t n = 0; n < m_recording.samples.size(); ++n) {
            if (visit(sample_time_ns(m_recording, n), m_recording.samples[n].values.at(counter_index))) count_change();
        }
    }

    void count_change() {
        if (++m_changes > max_replayed_changes) {
            throw recording_error(fmt::format(
                "the samples change more than {} counter values; a replay holds at most that", max_replayed_changes));
        }
    }

    const tree_recording& m_recording;
    const sysfs::sysfs_tree& m_layout_tree;
    replay_plan& m_plan;
    node_id m_devices = sysfs::no_node;               // in the served tree
    node_id m_layout_devices = sysfs::no_node;        // in the layout's
    std::unordered_map<std::string, placed> m_placed; // "parent id/name" below the devices' root
    std::unordered_set<node_id> m_matched;            // the layout's files and links the host has
    std::vector<modelled_counter> m_modelled;
    std::size_t m_changes = 0;
};

} // namespace

std::uint64_t sample_time_ns(const tree_recording& r, std::size_t n) { return r.interval_ns + r.samples.at(n).at_ns; }

replay_plan plan_replay(const tree_recording& r, const replay_request& request) {
    if (!r.samples.empty() && (r.samples.back().at_ns > model::max_scripted_at_ns ||
                               r.interval_ns > model::max_scripted_at_ns - r.samples.back().at_ns)) {
        throw recording_error(
            fmt::format("the last sample would replay after {} ns, beyond the {} ns the model's clock reaches",
                        r.samples.back().at_ns, model::max_scripted_at_ns));
    }
    const auto choice = nearest_layout(r, request);
    replay_plan plan;
    plan.instance = std::string(choice.instance->name);
    plan.release = choice.release;
    overlay(r, choice.tree, plan).build();
    return plan;
}

} // namespace neuron::recording
