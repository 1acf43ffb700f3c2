#define BOOST_TEST_MODULE perfetto_view
#include "timeline_fixture.h"

#include "neuron/profile/perfetto_lint.h"
#include "neuron/profile/perfetto_view.h"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <map>
#include <set>

// The Perfetto view: tracks named as neuron-profile names them, slices on
// rows that never overlap, counters at the times they changed, flows only
// when asked, faults as instants; a trace the lint finds clean.

using namespace neuron::profile;
using namespace neuron::profile::testing;
using neuron::profile::perfetto::decoded_trace;

namespace {

decoded_trace decoded(const std::vector<core_timeline>& timelines, bool flows = false) {
    const auto bytes = perfetto_trace(timelines, flows);
    const auto problems = perfetto::lint(bytes);
    BOOST_TEST(problems.empty(), "lint: " << (problems.empty() ? "" : problems.front()));
    return perfetto::decode(bytes);
}

std::map<perfetto::uuid, std::string> names_of(const decoded_trace& d) {
    std::map<perfetto::uuid, std::string> names;
    for (const auto& t : d.tracks) names[t.id] = t.name.empty() ? t.process_name : t.name;
    return names;
}

// (ts, value) of a counter track, from its own events and those slices carry.
std::vector<std::pair<std::uint64_t, double>> counter_values(const decoded_trace& d, const std::string& name) {
    const auto names = names_of(d);
    std::vector<std::pair<std::uint64_t, double>> out;
    for (const auto& e : d.events) {
        if (e.type == perfetto::counter_event && names.at(e.track) == name) out.push_back({e.ts, e.counter_value});
        for (const auto& [track, value] : e.extra_counters) {
            if (names.at(track) == name) out.push_back({e.ts, value});
        }
    }
    return out;
}

// Slices on a track: (begin ts, end ts, name).
std::vector<std::tuple<std::uint64_t, std::uint64_t, std::string>> slices_on(const decoded_trace& d,
                                                                             const std::string& name) {
    const auto names = names_of(d);
    std::vector<std::tuple<std::uint64_t, std::uint64_t, std::string>> out;
    std::vector<std::size_t> open;
    for (const auto& e : d.events) {
        if (names.at(e.track) != name) continue;
        if (e.type == perfetto::slice_begin) {
            open.push_back(out.size());
            out.push_back({e.ts, 0, e.name});
        } else if (e.type == perfetto::slice_end) {
            std::get<1>(out[open.back()]) = e.ts;
            open.pop_back();
        }
    }
    return out;
}

using values = std::vector<std::pair<std::uint64_t, double>>;

} // namespace

BOOST_AUTO_TEST_CASE(tracks_are_named_as_neuron_profile_names_them) {
    const auto d = decoded({small_timeline()});
    std::set<std::string> names;
    for (const auto& [id, name] : names_of(d)) names.insert(name);
    const std::set<std::string> expected{"Instructions [0]",      "TensorMatrix Engine - Row 0",
                                         "Vector Engine - Row 0", "Scalar Engine - Row 0",
                                         "Sync Engine - Row 0",   "qSyncIO0 - Row 0",
                                         "qSyncIO0 - Row 1",      "S[0] (qSyncIO0)",
                                         "S[1] (TensorMatrix)",   "S[2] (Scalar)",
                                         "DMA Throughput",        "Pending DMA Count"};
    BOOST_TEST(names == expected, boost::test_tools::per_element());
    const auto process =
        std::find_if(d.tracks.begin(), d.tracks.end(), [](const auto& t) { return t.pid.has_value(); });
    BOOST_TEST_REQUIRE((process != d.tracks.end()));
    for (const auto& t : d.tracks) {
        if (!t.pid) BOOST_TEST(t.parent == process->id); // every track under the core's process
    }
}

BOOST_AUTO_TEST_CASE(instructions_are_slices_named_by_opcode_with_their_source) {
    const auto d = decoded({small_timeline()});
    using slice = std::tuple<std::uint64_t, std::uint64_t, std::string>;
    BOOST_TEST((slices_on(d, "TensorMatrix Engine - Row 0") ==
                std::vector<slice>{{4000, 5000, "MATMUL"}, {5000, 6000, "MATMUL"}}));
    BOOST_TEST((slices_on(d, "Scalar Engine - Row 0") == std::vector<slice>{{5200, 5700, "ACTIVATE"}}));
    BOOST_TEST((slices_on(d, "Sync Engine - Row 0") ==
                std::vector<slice>{{1000, 1600, "DMA_COPY"}, {1600, 2200, "DMA_COPY"}}));
    const auto first = std::find_if(d.events.begin(), d.events.end(), [](const auto& e) { return e.name == "MATMUL"; });
    BOOST_TEST_REQUIRE((first != d.events.end()));
    BOOST_TEST((first->args == std::vector<std::pair<std::string, std::string>>{{"nki_source_location", "k.py:1"}}));
}

BOOST_AUTO_TEST_CASE(overlapping_dma_runs_go_on_sibling_rows) {
    const auto d = decoded({small_timeline()});
    using slice = std::tuple<std::uint64_t, std::uint64_t, std::string>;
    BOOST_TEST((slices_on(d, "qSyncIO0 - Row 0") == std::vector<slice>{{2300, 3300, "hbm->sbuf"}}));
    BOOST_TEST((slices_on(d, "qSyncIO0 - Row 1") == std::vector<slice>{{2900, 3900, "hbm->sbuf"}}));
}

BOOST_AUTO_TEST_CASE(counters_change_when_the_model_changed_them) {
    const auto d = decoded({small_timeline()});
    BOOST_TEST((counter_values(d, "S[0] (qSyncIO0)") == values{{1000, 0}, {3300, 16}, {3900, 32}}));
    BOOST_TEST((counter_values(d, "S[1] (TensorMatrix)") == values{{1000, 0}, {5000, 1}}));
    BOOST_TEST(
        (counter_values(d, "Pending DMA Count") == values{{1000, 0}, {1600, 1}, {2200, 2}, {3300, 1}, {3900, 0}}));
    // 131072 bytes in 1000 ns: 131072 MB/s per run.
    BOOST_TEST((counter_values(d, "DMA Throughput") ==
                values{{1000, 0}, {2300, 131072}, {2900, 262144}, {3300, 131072}, {3900, 0}}));
}

// The matmuls (4000-6000 ns) under trn2's limit: 38% of full speed, then
// ramping; the track shows each stretch's mean and 100 around them.
BOOST_AUTO_TEST_CASE(the_throttling_track_shows_the_limit_where_it_held) {
    auto t = small_timeline();
    BOOST_TEST(counter_values(decoded({t}), "Throttling").empty()); // no limit, no track
    t.throttled = {{4'000'000, 5'000'000, 380'000}, {5'000'000, 5'500'000, 300'000}};
    const auto d = decoded({t});
    BOOST_TEST((counter_values(d, "Throttling") == values{{1000, 100}, {4000, 38}, {5000, 60}, {5500, 100}}));
}

BOOST_AUTO_TEST_CASE(flows_link_each_wait_to_the_add_that_ended_it_only_when_asked) {
    const auto without = decoded({small_timeline()}, false);
    BOOST_TEST(std::none_of(without.events.begin(), without.events.end(),
                            [](const auto& e) { return !e.flows.empty() || !e.terminating_flows.empty(); }));
    const auto d = decoded({small_timeline()}, true);
    const auto names = names_of(d);
    std::map<std::uint64_t, std::string> from; // flow -> where it starts
    std::map<std::uint64_t, std::string> to;
    for (const auto& e : d.events) {
        for (const auto f : e.flows) from[f] = names.at(e.track) + "@" + std::to_string(e.ts);
        for (const auto f : e.terminating_flows) to[f] = names.at(e.track) + "@" + std::to_string(e.ts);
    }
    std::set<std::pair<std::string, std::string>> links;
    for (const auto& [id, start] : from) links.insert({start, to.at(id)});
    // The matmul waited for the second run's adds; the activation for the first matmul.
    const std::set<std::pair<std::string, std::string>> expected{
        {"qSyncIO0 - Row 1@2900", "TensorMatrix Engine - Row 0@5000"},
        {"TensorMatrix Engine - Row 0@4000", "Scalar Engine - Row 0@5700"}};
    BOOST_TEST((links == expected));
}

BOOST_AUTO_TEST_CASE(a_fault_is_an_instant_on_the_notification_track) {
    const auto d = decoded({aborted_timeline()});
    const auto names = names_of(d);
    const auto fault =
        std::find_if(d.events.begin(), d.events.end(), [](const auto& e) { return e.type == perfetto::instant_event; });
    BOOST_TEST_REQUIRE((fault != d.events.end()));
    BOOST_TEST(names.at(fault->track) == "Notifications");
    BOOST_TEST(fault->name == "dma_abort");
    BOOST_TEST(fault->ts == 6000u);
    BOOST_TEST(
        (fault->args == std::vector<std::pair<std::string, std::string>>{{"status", "1203"}, {"dma_engine", "3"}}));
}

BOOST_AUTO_TEST_CASE(each_core_is_a_process_and_the_trace_is_deterministic) {
    auto other = small_timeline();
    other.core = 1;
    const std::vector<core_timeline> both{small_timeline(), other};
    const auto d = decoded(both);
    std::set<std::string> processes;
    for (const auto& t : d.tracks) {
        if (t.pid) processes.insert(t.process_name);
    }
    BOOST_TEST((processes == std::set<std::string>{"Instructions [0]", "Instructions [1]"}));
    BOOST_TEST(perfetto_trace(both, true) == perfetto_trace(both, true));
}

BOOST_AUTO_TEST_CASE(an_empty_execution_still_makes_a_clean_trace) {
    core_timeline t;
    t.figures.cores_per_device = 2;
    const auto d = decoded({t});
    BOOST_TEST(d.tracks.size() == 3u); // the process and its two DMA counters
}
