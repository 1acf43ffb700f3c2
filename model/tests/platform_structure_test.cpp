#define BOOST_TEST_MODULE platform_structure
#include "sim_helpers.h"

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <string>

using namespace neuron::model;
using namespace neuron::model::testing;

namespace {

struct shape {
    std::size_t devices, cores, engines, dma_engines, queues, channels;
    std::uint64_t channel_bytes;
    std::string first_core_name;
};

shape shape_of(simulation& sim) {
    return sim.call([](platform& p) {
        auto& device = p.device(0);
        auto& core = device.core(0);
        return shape{p.device_count(),
                     device.core_count(),
                     core.engines().size(),
                     core.dma().engine_count(),
                     core.dma().queue_count(),
                     device.memory_channels().size(),
                     device.memory_channels().front().bytes,
                     core.name()};
    });
}

constexpr std::uint64_t GiB = 1ull << 30;

} // namespace

BOOST_AUTO_TEST_CASE(inf1_cores_have_three_engines_and_three_dma_engines) {
    simulation sim(stepped("inf1.6xlarge"));
    const auto s = shape_of(sim);
    BOOST_TEST(s.devices == 4u);
    BOOST_TEST(s.cores == 4u);
    BOOST_TEST(s.engines == 3u);
    BOOST_TEST(s.dma_engines == 3u);
    BOOST_TEST(s.queues == 16u);
    BOOST_TEST(s.channels == 2u);
    BOOST_TEST(s.channel_bytes == 4 * GiB);
}

BOOST_AUTO_TEST_CASE(trn1_cores_have_five_engines_and_sixteen_dma_engines) {
    simulation sim(stepped("trn1.32xlarge"));
    const auto s = shape_of(sim);
    BOOST_TEST(s.devices == 16u);
    BOOST_TEST(s.cores == 2u);
    BOOST_TEST(s.engines == 5u);
    BOOST_TEST(s.dma_engines == 16u);
    BOOST_TEST(s.queues == 16u);
    BOOST_TEST(s.channels == 2u);
    BOOST_TEST(s.channel_bytes == 16 * GiB);
    BOOST_TEST(s.first_core_name == "instance.hardware.neuron0.neuron_core0");
    const auto kinds = sim.call([](platform& p) {
        std::string names;
        for (const auto& e : p.device(15).core(1).engines()) names += std::string(engine_name(e->type())) + " ";
        return names;
    });
    BOOST_TEST(kinds == "tensor vector scalar gpsimd sync ");
    const auto sbuf = sim.call([](platform& p) { return p.device(0).core(0).sram().sbuf_bytes; });
    BOOST_TEST(sbuf == 24u << 20);
}

BOOST_AUTO_TEST_CASE(trn2_devices_have_eight_cores_and_four_hbm_stacks) {
    simulation sim(stepped("trn2.48xlarge"));
    const auto s = shape_of(sim);
    BOOST_TEST(s.devices == 16u);
    BOOST_TEST(s.cores == 8u);
    BOOST_TEST(s.engines == 5u);
    BOOST_TEST(s.dma_engines == 16u);
    BOOST_TEST(s.channels == 4u);
    BOOST_TEST(s.channel_bytes == 24 * GiB);
    const auto tensor_clock = sim.call([](platform& p) { return p.device(0).core(7).engines().front()->clock_hz(); });
    BOOST_TEST(tensor_clock == 2'400'000'000u);
    const auto sram = sim.call([](platform& p) { return p.device(3).core(2).sram(); });
    BOOST_TEST(sram.sbuf_bytes == 28u << 20);
    BOOST_TEST(sram.psum_bytes == 2u << 20);
}

// Each HBM/DRAM channel serves a group of neighbouring cores: Trn2's 4
// stacks 2 cores each, Trn1's and Inf2's 2 channels 1 core each, Inf1's 2
// channels 2. One instance per case: SystemC allows one simulation a process.
BOOST_DATA_TEST_CASE(each_memory_channel_serves_a_group_of_neighbouring_cores,
                     boost::unit_test::data::make(std::vector<std::string>{"trn2.48xlarge", "trn1.2xlarge",
                                                                           "inf2.xlarge", "inf1.xlarge"}) ^
                         boost::unit_test::data::make(std::vector<std::string>{"00112233", "01", "01", "0011"}),
                     instance, expected) {
    simulation sim(stepped(instance));
    const auto channels = sim.call([](platform& p) {
        std::string of;
        for (std::uint32_t c = 0; c < p.device(0).core_count(); ++c) {
            of += std::to_string(p.device(0).core(c).memory_channel());
        }
        return of;
    });
    BOOST_TEST(channels == expected);
}

BOOST_DATA_TEST_CASE(every_catalogue_instance_elaborates_with_its_published_serials,
                     boost::unit_test::data::make(std::vector<std::string>{
                         "inf1.xlarge", "inf1.2xlarge", "inf1.6xlarge", "inf1.24xlarge", "inf2.xlarge", "inf2.8xlarge",
                         "inf2.24xlarge", "inf2.48xlarge", "trn1.2xlarge", "trn1.32xlarge", "trn1n.32xlarge",
                         "trn2.3xlarge", "trn2.48xlarge", "trn2u.48xlarge"}),
                     name) {
    auto config = stepped(name);
    config.seed = 11;
    config.serial_overrides[0] = 0x1234;
    simulation sim(config);
    const auto& type = find_instance_type(name);
    BOOST_TEST(sim.call([](platform& p) { return p.device_count(); }) == type.device_count);
    BOOST_TEST(sim.published().serial_number(0) == 0x1234u);
    for (std::uint32_t d = 1; d < type.device_count; ++d) {
        BOOST_TEST(sim.published().serial_number(d) == derive_serial(11, d));
    }
}
