#define BOOST_TEST_MODULE sysfs_concurrent_readers
#include <boost/test/unit_test.hpp>

#include "support/mounted_tree.h"

#include "neuron/model/spec/mem_type.h"
#include "neuron/model/state/ecc.h"

#include <atomic>
#include <chrono>
#include <map>
#include <regex>
#include <thread>

using namespace neuron;
using namespace neuron::sysfs::testing;

namespace {

constexpr auto run_for = std::chrono::seconds(10);
constexpr int reader_count = 4;

// Files whose value may only grow while the model runs below.
const std::vector<std::string> monotonic_files = {
    "neuron0/neuron_core0/stats/memory_usage/device_mem/total",
    "neuron0/neuron_core0/stats/memory_usage/device_mem/peak",
    "neuron0/neuron_core0/stats/memory_usage/device_mem/tensors/total",
    "neuron0/neuron_core1/stats/status/success/total",
    "neuron0/stats/hardware/sram_ecc_uncorrected",
};
const std::vector<std::string> formatted_files = {
    "neuron0/stats/power/utilization",
    "neuron0/neuron_core0/stats/tensor_engine/pe_cntrs",
    "neuron0/reset",
    "neuron0/neuron_core1/stats/memory_usage/device_mem/present",
};

bool is_counter_line(const std::string& text) {
    return text.size() >= 2 && text.back() == '\n' && text.find_first_not_of("0123456789") == text.size() - 1;
}

struct reader_result {
    std::uint64_t reads = 0;
    std::vector<std::string> problems;
};

void read_continuously(const mounted_tree& tree, const std::atomic<bool>& stop, reader_result& result) {
    static const std::regex utilization(R"(POWER_STATUS_(NO_DATA|VALID),\d+,\d+\.\d\d,\d+\.\d\d,\d+\.\d\d\n)");
    static const std::regex pe(R"(xrow_grp,mm_active,wl_active,idle\n(\d,\d+,\d+,\d+\n){4})");
    std::map<std::string, std::uint64_t> last;
    std::vector<std::unique_ptr<file>> open_files; // half the reads use pread on open files
    for (const auto& f : monotonic_files) open_files.push_back(std::make_unique<file>(tree.path(f), O_RDONLY));
    const auto problem = [&](std::string text) {
        if (result.problems.size() < 20) result.problems.push_back(std::move(text));
    };
    while (!stop.load()) {
        for (std::size_t i = 0; i < monotonic_files.size(); ++i) {
            const auto& name = monotonic_files[i];
            std::string text;
            try {
                text = result.reads % 2 == 0 ? tree.read(name) : open_files[i]->pread_all();
            } catch (const std::exception& e) {
                problem(e.what());
                continue;
            }
            ++result.reads;
            if (!is_counter_line(text)) {
                problem(fmt::format("{} read '{}'", name, text));
                continue;
            }
            const auto value = std::stoull(text);
            if (value < last[name]) problem(fmt::format("{} went back from {} to {}", name, last[name], value));
            last[name] = value;
        }
        for (const auto& name : formatted_files) {
            try {
                const auto text = tree.read(name);
                ++result.reads;
                const bool ok = name.ends_with("utilization") ? std::regex_match(text, utilization)
                                : name.ends_with("pe_cntrs")  ? std::regex_match(text, pe)
                                : name.ends_with("reset")     ? (text == "0\n" || text == "1\n")
                                                              : is_counter_line(text);
                if (!ok) problem(fmt::format("{} read '{}'", name, text));
            } catch (const std::exception& e) {
                problem(e.what());
            }
        }
    }
}

} // namespace

BOOST_AUTO_TEST_CASE(readers_see_whole_values_that_never_go_back_while_the_model_changes) {
    mounted_tree tree;
    BOOST_REQUIRE(tree.write("neuron0/info/notify_delay", "0") == 1); // exercise the notification path too
    std::atomic<bool> stop{false};
    std::vector<reader_result> results(reader_count);
    std::vector<std::thread> readers;
    for (auto& r : results) readers.emplace_back([&] { read_continuously(tree, stop, r); });

    std::uint64_t changes = 0;
    const auto deadline = std::chrono::steady_clock::now() + run_for;
    const auto owner = tree.sim().call([](model::platform& p) { return p.owners().open("load"); });
    while (std::chrono::steady_clock::now() < deadline) {
        tree.sim().call([&](model::platform& p) {
            p.owners().allocate(owner, 0, 0, model::mem_location::device,
                                static_cast<std::uint32_t>(model::mem_type::tensors_device), 4096);
            p.owners().allocate(owner, 0, 1, model::mem_location::device,
                                static_cast<std::uint32_t>(model::mem_type::code_device), 4096);
            if (changes % 16 == 0) p.device(0).ecc().inject(model::ecc_kind::sram, 1);
            if (changes % 64 == 0) {
                const auto session = p.owners().open("short");
                p.owners().record(session, 0, 1, model::counter_kind::success, 1);
                p.owners().release(session);
            }
        });
        tree.sim().advance(std::chrono::microseconds(500));
        if (changes % 128 == 0) tree.write("neuron0/reset", "1"); // device not open: resets run
        ++changes;
    }
    stop = true;
    for (auto& t : readers) t.join();

    std::uint64_t reads = 0;
    for (const auto& r : results) {
        reads += r.reads;
        for (const auto& p : r.problems) BOOST_TEST_MESSAGE(p);
        BOOST_TEST(r.problems.empty());
        BOOST_TEST(r.reads > 0u);
    }
    BOOST_TEST_MESSAGE(fmt::format("{} reads by {} threads ({:.0f}/s) during {} model changes", reads, reader_count,
                                   static_cast<double>(reads) / 10.0, changes));
}
