#define BOOST_TEST_MODULE logical_cores
#include "neuron/model/spec/errors.h"
#include "neuron/model/spec/instance_catalogue.h"
#include "neuron/model/spec/logical_cores.h"

#include <boost/test/unit_test.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace neuron::model {
inline std::ostream& operator<<(std::ostream& os, const physical_core& p) {
    return os << "(" << p.device << ", " << p.core << ")";
}
} // namespace neuron::model

using namespace neuron;
using namespace neuron::model;

namespace {

const model::instance_type& instance(std::string_view name) { return model::find_instance_type(name); }

auto says(std::string text) {
    return [text = std::move(text)](const model::invalid_argument_error& e) {
        BOOST_TEST_INFO("message: " << e.what());
        return std::string(e.what()).find(text) != std::string::npos;
    };
}

} // namespace

BOOST_AUTO_TEST_CASE(lnc1_on_trn2_48xlarge_is_every_physical_core) {
    const logical_cores map(instance("trn2.48xlarge"), 1);
    BOOST_TEST(map.lnc() == 1u);
    BOOST_TEST(map.total() == 128u);
    for (std::uint32_t l = 0; l < 128; ++l) {
        const auto cores = map.physical(l);
        BOOST_TEST_REQUIRE(cores.size() == 1u);
        BOOST_TEST(cores[0] == (physical_core{l / 8, l % 8}));
    }
}

BOOST_AUTO_TEST_CASE(lnc2_on_trn2_48xlarge_pairs_neighbouring_cores) {
    const logical_cores map(instance("trn2.48xlarge"), 2);
    BOOST_TEST(map.lnc() == 2u);
    BOOST_TEST(map.total() == 64u);
    for (std::uint32_t l = 0; l < 64; ++l) {
        const auto cores = map.physical(l);
        BOOST_TEST_REQUIRE(cores.size() == 2u);
        // Logical L is global physical 2L and 2L+1: 4 logical cores per device.
        BOOST_TEST(cores[0] == (physical_core{(2 * l) / 8, (2 * l) % 8}));
        BOOST_TEST(cores[1] == (physical_core{(2 * l + 1) / 8, (2 * l + 1) % 8}));
        BOOST_TEST(cores[0].device == l / 4);
        BOOST_TEST(cores[1].device == cores[0].device); // a pair never straddles devices
        BOOST_TEST(map.first_physical(l) == cores[0]);
    }
    BOOST_TEST(map.physical(0) == std::vector<physical_core>({{0, 0}, {0, 1}}), boost::test_tools::per_element());
    BOOST_TEST(map.physical(3) == std::vector<physical_core>({{0, 6}, {0, 7}}), boost::test_tools::per_element());
    BOOST_TEST(map.physical(4) == std::vector<physical_core>({{1, 0}, {1, 1}}), boost::test_tools::per_element());
    BOOST_TEST(map.physical(63) == std::vector<physical_core>({{15, 6}, {15, 7}}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(lnc2_is_refused_where_the_generation_has_only_lnc1) {
    for (const auto* name : {"trn1.2xlarge", "trn1.32xlarge", "trn1n.32xlarge", "inf2.48xlarge", "inf1.24xlarge"}) {
        BOOST_TEST_CONTEXT(name) {
            BOOST_CHECK_EXCEPTION(logical_cores(instance(name), 2), model::invalid_argument_error,
                                  says("logical NeuronCore size 2 is not supported on " + std::string(name)));
            BOOST_CHECK_NO_THROW(logical_cores(instance(name), 1));
        }
    }
}

BOOST_AUTO_TEST_CASE(lnc_other_than_1_or_2_is_refused) {
    BOOST_CHECK_EXCEPTION(logical_cores(instance("trn2.48xlarge"), 0), model::invalid_argument_error,
                          says("use 1 or 2"));
    BOOST_CHECK_EXCEPTION(logical_cores(instance("trn2.48xlarge"), 3), model::invalid_argument_error, says("size 3"));
    BOOST_CHECK_EXCEPTION(logical_cores(instance("trn2.3xlarge"), 4), model::invalid_argument_error, says("size 4"));
}

BOOST_AUTO_TEST_CASE(a_logical_core_out_of_range_is_refused) {
    const logical_cores lnc2(instance("trn2.48xlarge"), 2);
    BOOST_CHECK_EXCEPTION(lnc2.physical(64), model::invalid_argument_error, says("logical NeuronCore 64 out of range"));
    BOOST_CHECK_EXCEPTION(lnc2.first_physical(64), model::invalid_argument_error, says("0..63"));
    BOOST_CHECK_THROW(lnc2.physical(UINT32_MAX), model::invalid_argument_error);
    const logical_cores lnc1(instance("trn2.48xlarge"), 1);
    BOOST_CHECK_EXCEPTION(lnc1.physical(128), model::invalid_argument_error, says("0..127"));
    const logical_cores trn1(instance("trn1.2xlarge"), 1);
    BOOST_TEST(trn1.total() == 2u);
    BOOST_CHECK_THROW(trn1.physical(2), model::invalid_argument_error);
}

BOOST_AUTO_TEST_CASE(logical_of_is_the_inverse_of_physical) {
    for (const auto* name : {"trn2.48xlarge", "trn2.3xlarge", "trn1.32xlarge", "inf1.6xlarge", "inf2.24xlarge"}) {
        for (std::uint32_t lnc = 1; lnc <= max_lnc(instance(name)); ++lnc) {
            const logical_cores map(instance(name), lnc);
            BOOST_TEST(map.total() == instance(name).total_cores() / lnc);
            for (std::uint32_t l = 0; l < map.total(); ++l) {
                for (const auto& p : map.physical(l)) {
                    BOOST_TEST_REQUIRE(map.logical_of(p) == l, name << " LNC=" << lnc << " core " << p);
                }
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(lnc_choices_per_generation) {
    for (const auto* name : {"trn2.3xlarge", "trn2.48xlarge", "trn2u.48xlarge"}) {
        BOOST_TEST(default_lnc(instance(name)) == 2u, name);
        BOOST_TEST(max_lnc(instance(name)) == 2u, name);
    }
    for (const auto* name : {"inf1.xlarge", "inf1.24xlarge", "inf2.xlarge", "inf2.48xlarge", "trn1.2xlarge",
                             "trn1.32xlarge", "trn1n.32xlarge"}) {
        BOOST_TEST(default_lnc(instance(name)) == 1u, name);
        BOOST_TEST(max_lnc(instance(name)) == 1u, name);
    }
    BOOST_TEST(logical_cores(instance("trn2.3xlarge"), default_lnc(instance("trn2.3xlarge"))).total() == 4u);
}
