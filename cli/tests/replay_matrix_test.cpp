#define BOOST_TEST_MODULE replay_matrix
// `serve --from` on every catalogued instance and release: the tree served
// from a recording of a served tree is that tree, values included, with the
// recording's own counts and serial numbers in place of the model's.

#include "support/process_harness.h"
#include "support/served_tree.h"

#include "neuron/model/spec/instance_catalogue.h"
#include "neuron/recording/recording_file.h"
#include "neuron/recording/tree_diff.h"
#include "neuron/sysfs/driver_release.h"
#include "neuron/sysfs/errors.h"
#include "neuron/sysfs/layout.h"

#include <boost/test/unit_test.hpp>

#include <fstream>
#include <string_view>

using namespace neuron::cli::testing;
namespace rec = neuron::recording;

namespace {

bool supported(std::string_view instance, const neuron::sysfs::driver_release& release) {
    try {
        neuron::sysfs::layout(neuron::model::find_instance_type(instance), release, 0);
        return true;
    } catch (const neuron::sysfs::unsupported_combination_error&) {
        return false; // serve refuses it, as the driver does
    }
}

// What a host that ran would show and a fresh model does not: counts of 7
// and serial numbers of its own.
void host_values(rec::tree_recording& r) {
    for (auto& e : r.entries) {
        if (e.counter && e.path.ends_with("/total") && e.value == "0\n") e.value = "7\n";
        if (e.path.ends_with("/serial_number") && e.read_error == 0) e.value = "0123456789abcdef\n";
    }
}

// For every release of every instance of a generation: the tree served from
// a recording of the served tree is that tree.
void every_release_replays(std::string_view generation) {
    require_mount();
    temp_dir tmp("replay");
    const auto file = tmp / "tree.yaml";
    for (const auto& instance : neuron::model::instance_catalogue()) {
        if (instance.spec().instance_type != generation) continue;
        for (const auto& release : neuron::sysfs::known_releases()) {
            if (!supported(instance.name, release)) continue;
            const std::string tag(release.tag);
            BOOST_TEST_CONTEXT(instance.name << " " << tag) {
                rec::tree_recording recorded;
                {
                    const served original(tmp, std::string(instance.name), tag, "original");
                    recorded = live(original.mount, tag);
                    host_values(recorded);
                    std::ofstream(file) << rec::write_recording(recorded);
                }
                const served replay(tmp, {"--from", file}, "replay");
                const auto d = rec::diff_recordings(recorded, live(replay.mount, tag), {.values = true});
                BOOST_TEST(d.empty(), "replay: " << rec::format_differences(d));
            }
        }
    }
}

} // namespace

BOOST_AUTO_TEST_CASE(inf1_trees_replay_for_every_release) { every_release_replays("Inf1"); }
BOOST_AUTO_TEST_CASE(inf2_trees_replay_for_every_release) { every_release_replays("Inf2"); }
BOOST_AUTO_TEST_CASE(trn1_trees_replay_for_every_release) { every_release_replays("Trn1"); }
BOOST_AUTO_TEST_CASE(trn2_trees_replay_for_every_release) { every_release_replays("Trn2"); }
