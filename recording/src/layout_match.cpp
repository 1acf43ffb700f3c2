#include "layout_match.h"

#include "neuron/recording/tree_recording.h"
#include "neuron/sysfs/errors.h"
#include "neuron/sysfs/tree_builder.h"

#include <fmt/format.h>

#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

namespace neuron::recording {
namespace {

std::string key(std::string_view path, entry_type type) { return fmt::format("{}\t{}", path, static_cast<int>(type)); }

// How far a layout's device half is from the recording: first the recorded
// paths it lacks (a hand-made recording may hold only part of a tree), then
// the paths only it has.
std::pair<std::size_t, std::size_t> distance(const sysfs::sysfs_tree& tree,
                                             const std::unordered_set<std::string>& recorded) {
    std::size_t shared = 0;
    std::size_t layout_only = 0;
    for_each_below(tree, tree.resolve(sysfs::devices_path), [&](const std::string& path, sysfs::node_id id) {
        (recorded.contains(key(path, entry_type_of(tree.at(id).type))) ? shared : layout_only) += 1;
    });
    return {recorded.size() - shared, layout_only};
}

std::vector<const model::instance_type*> candidate_instances(const tree_recording& r, const replay_request& request) {
    if (!request.instance.empty()) return {&model::find_instance_type(request.instance)};
    std::vector<const model::instance_type*> all;
    std::vector<const model::instance_type*> alike;
    for (const auto& type : model::instance_catalogue()) {
        all.push_back(&type);
        const bool same_label = r.instance_type.empty() || r.instance_type == type.spec().instance_type;
        if (type.device_count == r.device_count && same_label) alike.push_back(&type);
    }
    return alike.empty() ? all : alike;
}

std::vector<const sysfs::driver_release*> candidate_releases(const tree_recording& r, const replay_request& request) {
    if (!request.driver_version.empty()) return {&sysfs::find_release(request.driver_version)};
    if (!r.driver_release.empty()) {
        try {
            return {&sysfs::find_release(r.driver_release)};
        } catch (const sysfs::unknown_driver_version_error&) {
            // A release the catalogue does not know: the nearest tree decides.
        }
    }
    std::vector<const sysfs::driver_release*> all;
    const auto releases = sysfs::known_releases();
    for (auto it = releases.rbegin(); it != releases.rend(); ++it) all.push_back(&*it);
    return all;
}

} // namespace

entry_type entry_type_of(sysfs::node_type t) {
    switch (t) {
    case sysfs::node_type::directory: return entry_type::directory;
    case sysfs::node_type::symlink: return entry_type::link;
    case sysfs::node_type::attribute: return entry_type::file;
    }
    return entry_type::file;
}

layout_choice nearest_layout(const tree_recording& r, const replay_request& request) {
    std::unordered_set<std::string> recorded;
    for (const auto& e : r.entries) recorded.insert(key(e.path, e.type));
    const auto instances = candidate_instances(r, request);
    const auto releases = candidate_releases(r, request);
    const bool one = instances.size() == 1 && releases.size() == 1;
    layout_choice best;
    std::pair<std::size_t, std::size_t> best_distance{SIZE_MAX, SIZE_MAX};
    for (const auto* instance : instances) {
        for (const auto* release : releases) {
            std::optional<sysfs::layout> layout;
            try {
                layout.emplace(*instance, *release, request.char_major);
            } catch (const sysfs::unsupported_combination_error&) {
                if (one) throw; // the only combination does not exist
                continue;       // a release that did not support this instance
            }
            auto tree = sysfs::build_tree(*layout);
            const auto d = one ? std::pair<std::size_t, std::size_t>{} : distance(tree, recorded);
            if (d < best_distance) {
                best = {instance, release, std::move(tree)};
                best_distance = d;
            }
        }
    }
    if (best.instance == nullptr)
        throw recording_error(fmt::format("no driver release supports {}", instances.front()->name));
    return best;
}

} // namespace neuron::recording
