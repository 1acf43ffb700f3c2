#define BOOST_TEST_MODULE runtime_reports
#include "kernel_runs.h"
#include "neuron/model/runtime/api.h"
#include "neuron/model/spec/nrt_status.h"
#include "session_fixture.h"

#include <boost/test/unit_test.hpp>

// What the runtime tells its tools (neuron-monitor, neuron-top) before the
// driver sees anything: the models a session has loaded, with their memory
// and whether one runs, and what it accumulated on each core it holds
// (sysfs shows that only at release).

using namespace neuron::model;
using namespace neuron::model::testing;
using namespace std::chrono_literals;

namespace {

compiled_model work(std::uint64_t ns, std::uint64_t macs) {
    compiled_model m;
    m.name = "matmul.neff";
    m.engine_cycles[static_cast<std::size_t>(engine_kind::tensor)] = ns * 28 / 10; // trn1: 2.8 GHz
    m.macs = macs;
    m.memory.push_back({mem_location::device, mem_type::code_device, 5000});
    m.memory.push_back({mem_location::host, mem_type::tensors_host, 100});
    return m;
}

} // namespace

BOOST_AUTO_TEST_CASE(a_loaded_model_is_reported_with_its_memory_and_whether_it_runs) {
    instance i("trn1.32xlarge");
    const auto s = i.open(core_selection::range, 2, 2).owner;
    const auto placed = i.model.load(s, 3u, work(10'000, 0));
    auto models = i.model.who_holds_what().sessions.at(0).models;
    BOOST_TEST_REQUIRE(models.size() == 1u);
    BOOST_TEST(models[0].id == placed.model);
    BOOST_TEST(models[0].name == "matmul.neff");
    BOOST_TEST(models[0].logical_core == 3u);
    BOOST_TEST_REQUIRE(models[0].cores.size() == 1u);
    BOOST_TEST((models[0].cores[0] == physical_core{1, 1})); // logical 3 of trn1: device 1, core 1
    std::uint64_t device = 0;
    std::uint64_t host = 0;
    for (const auto& a : models[0].memory) (a.where == mem_location::device ? device : host) += a.bytes;
    BOOST_TEST(device == 8192u); // pages
    BOOST_TEST(host == 4096u);
    BOOST_TEST(!models[0].running);

    answers a;
    i.model.execute(s, placed.model, 2, a.record());
    BOOST_TEST(i.model.who_holds_what().sessions.at(0).models.at(0).running);
    i.model.advance(20'000ns);
    BOOST_TEST_REQUIRE(a.got.size() == 1u);
    BOOST_TEST(!i.model.who_holds_what().sessions.at(0).models.at(0).running);
}

BOOST_AUTO_TEST_CASE(what_a_session_accumulated_is_reported_before_release_on_every_core_it_holds) {
    instance i("trn1.32xlarge");
    const auto s = i.open(core_selection::range, 0, 2).owner;
    const auto m = i.model.load(s, 0u, work(50'000, 1'000'000)).model;
    answers a;
    i.model.execute(s, m, 1, a.record());
    i.model.advance(50'000ns);
    BOOST_TEST_REQUIRE(a.got.size() == 1u);
    const auto held = i.model.who_holds_what();
    const auto& owner = held.owners.at(0);
    BOOST_TEST(owner.cores.size() == 2u);
    const auto& acc = owner.accumulated.at({0, 0});
    BOOST_TEST(acc.inferences == 1u);
    BOOST_TEST(acc.macs == 1'000'000u);
    BOOST_TEST(acc.time_in_use_us == 50u);
    BOOST_TEST(i.core(0, 0, counter_kind::inference_count).total == 0u); // sysfs: not until release
}
