#define BOOST_TEST_MODULE ecc
#include "bare_model.h"
#include "neuron/model/spec/errors.h"
#include "neuron/model/state/ecc.h"

#include <boost/test/unit_test.hpp>

using namespace neuron::model;
using neuron::model::testing::bare_model;

namespace {

ecc_readout readout(std::uint32_t sram, std::uint32_t mem, std::uint32_t repairable, std::uint32_t sram_corrected = 0,
                    std::uint32_t mem_corrected = 0) {
    return {sram, mem, repairable, sram_corrected, mem_corrected};
}

} // namespace

namespace neuron::model {
std::ostream& operator<<(std::ostream& os, const ecc_readout& r) {
    return os << "{sram " << r.sram_ecc_uncorrected << ", mem " << r.mem_ecc_uncorrected << ", repairable "
              << r.mem_ecc_repairable_uncorrected << ", corrected sram " << r.sram_ecc_corrected << ", corrected mem "
              << r.mem_ecc_corrected << "}";
}
} // namespace neuron::model

BOOST_AUTO_TEST_CASE(register_layout_matches_the_firmware_misc_ram) {
    BOOST_TEST(misc_ram_offset(ecc_register::sram) == 0x40u);
    BOOST_TEST(misc_ram_offset(ecc_register::hbm0) == 0x44u);
    BOOST_TEST(misc_ram_offset(ecc_register::hbm3) == 0x50u);
    BOOST_TEST(misc_ram_offset(ecc_register::hbm_repair_state) == 0x64u);
}

BOOST_AUTO_TEST_CASE(kind_names_parse) {
    BOOST_TEST((parse_ecc_kind("hbm-repairable") == ecc_kind::hbm_repairable));
    BOOST_TEST((parse_ecc_kind("sram") == ecc_kind::sram));
    BOOST_CHECK_EXCEPTION(parse_ecc_kind("dram"), invalid_argument_error, [](const auto& e) {
        return std::string(e.what()) ==
               "unknown ECC error kind 'dram'; valid kinds: sram, hbm, hbm-repairable, sram-corrected, hbm-corrected";
    });
}

BOOST_AUTO_TEST_CASE(inf1_has_no_ecc_reporting) {
    bare_model m("inf1.6xlarge");
    ecc_unit ecc(m.state, 0);
    BOOST_CHECK_THROW(ecc.inject(ecc_kind::sram, 1), unsupported_error);
    BOOST_CHECK_THROW(ecc.inject(ecc_kind::hbm, 1), unsupported_error);
    BOOST_TEST(read_ecc(m.state, 0) == readout(0, 0, 0));
}

BOOST_AUTO_TEST_CASE(trn1_reports_sram_and_sums_its_two_channels) {
    bare_model m("trn1.32xlarge");
    ecc_unit ecc(m.state, 5);
    ecc.inject(ecc_kind::sram, 2);
    ecc.inject(ecc_kind::hbm, 3, 0);
    ecc.inject(ecc_kind::hbm, 4, 1);
    BOOST_TEST(read_ecc(m.state, 5) == readout(2, 7, 0));
    BOOST_TEST(read_ecc(m.state, 4) == readout(0, 0, 0));
    BOOST_TEST(m.state.ecc_word(5, ecc_register::hbm1) == 4u);
}

BOOST_AUTO_TEST_CASE(v2_never_reports_repairable_errors) {
    bare_model m("inf2.xlarge");
    ecc_unit ecc(m.state, 0);
    BOOST_CHECK_THROW(ecc.inject(ecc_kind::hbm_repairable, 1), unsupported_error);
    BOOST_CHECK_THROW(ecc.set_repair_state(hbm_repair_state::pending_repair), unsupported_error);
    ecc.write_register(ecc_register::hbm_repair_state, 1); // even if the word were set
    ecc.inject(ecc_kind::hbm, 1);
    BOOST_TEST(read_ecc(m.state, 0) == readout(0, 1, 0));
}

BOOST_AUTO_TEST_CASE(trn2_sums_four_channels) {
    bare_model m("trn2.48xlarge");
    ecc_unit ecc(m.state, 0);
    for (std::uint32_t ch = 0; ch < 4; ++ch) ecc.inject(ecc_kind::hbm, ch + 1, ch);
    BOOST_TEST(read_ecc(m.state, 0) == readout(0, 10, 0));
}

BOOST_AUTO_TEST_CASE(trn2_repair_state_none_counts_as_unrepairable) {
    bare_model m("trn2.3xlarge");
    ecc_unit ecc(m.state, 0);
    ecc.inject(ecc_kind::hbm, 2, 3);
    BOOST_TEST(read_ecc(m.state, 0) == readout(0, 2, 0));
}

BOOST_AUTO_TEST_CASE(trn2_pending_repair_moves_the_count_to_repairable) {
    bare_model m("trn2.3xlarge");
    ecc_unit ecc(m.state, 0);
    ecc.inject(ecc_kind::hbm, 2, 0);
    ecc.inject(ecc_kind::hbm_repairable, 1, 1);
    BOOST_TEST(m.state.ecc_word(0, ecc_register::hbm_repair_state) == 1u);
    BOOST_TEST(read_ecc(m.state, 0) == readout(0, 0, 3));
}

BOOST_AUTO_TEST_CASE(trn2_failed_repair_counts_as_unrepairable) {
    bare_model m("trn2.3xlarge");
    ecc_unit ecc(m.state, 0);
    ecc.inject(ecc_kind::hbm_repairable, 5);
    ecc.set_repair_state(hbm_repair_state::repair_failed);
    BOOST_TEST(read_ecc(m.state, 0) == readout(0, 5, 0));
}

BOOST_AUTO_TEST_CASE(trn2_repair_state_without_errors_reads_zero) {
    for (auto state : {hbm_repair_state::pending_repair, hbm_repair_state::repair_failed}) {
        bare_model m("trn2.3xlarge");
        ecc_unit ecc(m.state, 0);
        ecc.set_repair_state(state);
        BOOST_TEST(read_ecc(m.state, 0) == readout(0, 0, 0));
    }
}

BOOST_AUTO_TEST_CASE(trn2_undefined_repair_state_3_shows_neither) {
    bare_model m("trn2.3xlarge");
    ecc_unit ecc(m.state, 0);
    ecc.inject(ecc_kind::hbm, 1);
    ecc.write_register(ecc_register::hbm_repair_state, 3);
    BOOST_TEST(read_ecc(m.state, 0) == readout(0, 0, 0));
}

BOOST_AUTO_TEST_CASE(failed_register_reads_count_as_zero_and_are_skipped) {
    bare_model m("trn1.2xlarge");
    ecc_unit ecc(m.state, 0);
    ecc.write_register(ecc_register::sram, register_read_failure);
    ecc.write_register(ecc_register::hbm0, register_read_failure);
    ecc.inject(ecc_kind::hbm, 6, 1);
    BOOST_TEST(read_ecc(m.state, 0) == readout(0, 6, 0));
}

// The driver's files show the uncorrected halves only; the corrected counts
// reach the runtime's tools (neuron-monitor's neuron_hw_counters).
BOOST_AUTO_TEST_CASE(corrected_errors_live_in_the_high_half_apart_from_the_uncorrected) {
    bare_model m("trn1.2xlarge");
    ecc_unit ecc(m.state, 0);
    ecc.inject(ecc_kind::sram_corrected, 3);
    ecc.inject(ecc_kind::hbm_corrected, 2, 1);
    ecc.inject(ecc_kind::hbm_corrected, 4, 0);
    ecc.inject(ecc_kind::sram, 1);
    BOOST_TEST(m.state.ecc_word(0, ecc_register::sram) == 0x00030001u);
    BOOST_TEST(m.state.ecc_word(0, ecc_register::hbm1) == 0x00020000u);
    BOOST_TEST(read_ecc(m.state, 0) == readout(1, 0, 0, 3, 6));
}

BOOST_AUTO_TEST_CASE(sixteen_bit_counts_saturate) {
    bare_model m("trn1.2xlarge");
    ecc_unit ecc(m.state, 0);
    ecc.inject(ecc_kind::sram_corrected, 7);
    ecc.inject(ecc_kind::sram, 0xfff0);
    ecc.inject(ecc_kind::sram, 0x100);
    BOOST_TEST(m.state.ecc_word(0, ecc_register::sram) == 0x0007ffffu);
    ecc.inject(ecc_kind::sram_corrected, 0xffffffffu);
    BOOST_TEST(m.state.ecc_word(0, ecc_register::sram) == 0xffffffffu);
}

BOOST_AUTO_TEST_CASE(bad_injections_are_refused_and_change_nothing) {
    bare_model m("trn1.2xlarge");
    ecc_unit ecc(m.state, 0);
    BOOST_CHECK_THROW(ecc.inject(ecc_kind::hbm, 0), invalid_argument_error);
    BOOST_CHECK_EXCEPTION(ecc.inject(ecc_kind::hbm, -1), invalid_argument_error, [](const auto& e) {
        return std::string(e.what()) == "ECC error count -1 invalid: must be 1..4294967295";
    });
    BOOST_CHECK_THROW(ecc.inject(ecc_kind::sram, std::int64_t{1} << 32), invalid_argument_error);
    BOOST_CHECK_EXCEPTION(ecc.inject(ecc_kind::hbm, 1, 2), invalid_argument_error,
                          [](const auto& e) { return std::string(e.what()).find("channel 2") != std::string::npos; });
    BOOST_CHECK_THROW(ecc.inject(ecc_kind::sram, 1, 0), invalid_argument_error);
    BOOST_CHECK_THROW(ecc.write_register(ecc_register::hbm2, 1), invalid_argument_error);
    BOOST_TEST(read_ecc(m.state, 0) == readout(0, 0, 0));
    BOOST_CHECK_THROW(ecc_unit(m.state, 1), invalid_argument_error);
}

BOOST_AUTO_TEST_CASE(older_drivers_read_two_channels_and_no_repair_split) {
    bare_model m("trn2.3xlarge");
    ecc_unit ecc(m.state, 0);
    ecc.inject(ecc_kind::hbm, 1, 0);
    ecc.inject(ecc_kind::hbm, 2, 1);
    ecc.inject(ecc_kind::hbm, 4, 3);
    ecc.set_repair_state(hbm_repair_state::pending_repair);
    // 2.23 on: every channel, split by the repair state.
    BOOST_TEST(read_ecc(m.state, 0) == readout(0, 0, 7));
    // 2.19 to 2.22: every channel, one plain sum.
    BOOST_TEST(read_ecc(m.state, 0, {UINT32_MAX, false}) == readout(0, 7, 0));
    // Before 2.19: the first two channels.
    BOOST_TEST(read_ecc(m.state, 0, {2, false}) == readout(0, 3, 0));
}
