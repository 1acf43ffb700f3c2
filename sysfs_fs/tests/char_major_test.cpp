#define BOOST_TEST_MODULE char_major
#include <boost/test/unit_test.hpp>

#include "neuron/model/spec/errors.h"
#include "neuron/sysfs/char_major.h"

#include <fmt/format.h>

#include <cstdint>
#include <string>

using namespace neuron::sysfs;

namespace {

// /proc/devices as this machine printed it.
const std::string sample = "Character devices:\n"
                           "  1 mem\n"
                           "  4 /dev/vc/0\n"
                           "  4 tty\n"
                           "  4 ttyS\n"
                           "  5 /dev/tty\n"
                           "  5 /dev/console\n"
                           "  5 /dev/ptmx\n"
                           "  7 vcs\n"
                           " 10 misc\n"
                           " 13 input\n"
                           "128 ptm\n"
                           "136 pts\n"
                           "203 cpu/cpuid\n"
                           "245 hidraw\n"
                           "246 macvtap\n"
                           "247 mei\n"
                           "248 bsg\n"
                           "249 watchdog\n"
                           "250 ptp\n"
                           "251 pps\n"
                           "252 dax\n"
                           "253 dimmctl\n"
                           "254 ndctl\n"
                           "\n"
                           "Block devices:\n"
                           "  7 loop\n"
                           "253 zram\n"
                           "254 virtblk\n"
                           "259 blkext\n";

// A character section holding `first`..`last`, then a block section.
std::string with_char_range(std::uint32_t first, std::uint32_t last, const std::string& extra = {}) {
    std::string text = "Character devices:\n  1 mem\n";
    for (std::uint32_t m = first; m <= last; ++m) text += fmt::format("{:3} dyn{}\n", m, m);
    text += extra;
    text += "\nBlock devices:\n  8 sd\n";
    return text;
}

} // namespace

// --- dynamic_char_major -----------------------------------------------------

BOOST_AUTO_TEST_CASE(empty_dynamic_range_gives_254) {
    BOOST_TEST(dynamic_char_major("Character devices:\n  1 mem\n 10 misc\n\nBlock devices:\n  7 loop\n") == 254u);
}

BOOST_AUTO_TEST_CASE(takes_the_highest_free_major_below_the_used_ones) {
    BOOST_TEST(dynamic_char_major(sample) == 244u);
}

BOOST_AUTO_TEST_CASE(takes_a_hole_above_lower_used_majors) {
    const std::string text = "Character devices:\n"
                             "  1 mem\n"
                             "240 a\n"
                             "241 b\n"
                             "254 c\n"
                             "\n"
                             "Block devices:\n";
    BOOST_TEST(dynamic_char_major(text) == 253u);
}

BOOST_AUTO_TEST_CASE(block_majors_do_not_count) {
    const std::string text = "Character devices:\n"
                             "  1 mem\n"
                             "\n"
                             "Block devices:\n"
                             "254 virtblk\n"
                             "253 zram\n"
                             "259 blkext\n";
    BOOST_TEST(dynamic_char_major(text) == 254u);
}

BOOST_AUTO_TEST_CASE(a_major_used_twice_counts_once) {
    BOOST_TEST(dynamic_char_major(with_char_range(253, 254, "254 again\n")) == 252u);
}

BOOST_AUTO_TEST_CASE(lowest_first_range_major_is_234) {
    BOOST_TEST(dynamic_char_major(with_char_range(235, 254)) == 234u);
}

BOOST_AUTO_TEST_CASE(full_first_range_moves_to_511) {
    BOOST_TEST(dynamic_char_major(with_char_range(234, 254)) == 511u);
}

BOOST_AUTO_TEST_CASE(second_range_counts_down_from_511) {
    BOOST_TEST(dynamic_char_major(with_char_range(234, 254, "510 x\n511 y\n")) == 509u);
}

BOOST_AUTO_TEST_CASE(majors_below_234_never_get_picked) {
    // With 234..254 and 384..511 all taken the kernel fails with EBUSY; it
    // never falls back to a free static major such as 233 or 300.
    std::string extra;
    for (std::uint32_t m = 384; m <= 511; ++m) extra += fmt::format("{} e{}\n", m, m);
    BOOST_CHECK_THROW(dynamic_char_major(with_char_range(234, 254, extra)), neuron::model::model_error);
}

BOOST_AUTO_TEST_CASE(no_character_section_means_nothing_is_used) {
    BOOST_TEST(dynamic_char_major("") == 254u);
    BOOST_TEST(dynamic_char_major("Block devices:\n254 virtblk\n") == 254u);
}

BOOST_AUTO_TEST_CASE(an_extended_major_occupies_its_hash_slot) {
    // fs/char_dev.c find_dynamic_major: the first loop takes a slot of the
    // 255-entry chrdevs[] hash only when the slot is empty, and major 509
    // lives in slot 509 % 255 = 254. So with 509 registered and 254 free the
    // kernel hands out 253, not 254.
    const std::string text = "Character devices:\n"
                             "  1 mem\n"
                             "509 late\n"
                             "\n"
                             "Block devices:\n";
    BOOST_TEST(dynamic_char_major(text) == 253u);
}

BOOST_AUTO_TEST_CASE(the_real_proc_devices_gives_a_major_in_a_dynamic_range) {
    const auto major = dynamic_char_major(read_proc_devices());
    BOOST_TEST(((major >= 234 && major <= 254) || (major >= 384 && major <= 511)));
}

// --- proc_devices_with_neuron -----------------------------------------------

BOOST_AUTO_TEST_CASE(neuron_line_goes_in_major_order_inside_the_character_section) {
    const auto out = proc_devices_with_neuron(sample, 244);
    const auto expected = "Character devices:\n"
                          "  1 mem\n"
                          "  4 /dev/vc/0\n"
                          "  4 tty\n"
                          "  4 ttyS\n"
                          "  5 /dev/tty\n"
                          "  5 /dev/console\n"
                          "  5 /dev/ptmx\n"
                          "  7 vcs\n"
                          " 10 misc\n"
                          " 13 input\n"
                          "128 ptm\n"
                          "136 pts\n"
                          "203 cpu/cpuid\n"
                          "244 neuron\n"
                          "245 hidraw\n"
                          "246 macvtap\n"
                          "247 mei\n"
                          "248 bsg\n"
                          "249 watchdog\n"
                          "250 ptp\n"
                          "251 pps\n"
                          "252 dax\n"
                          "253 dimmctl\n"
                          "254 ndctl\n"
                          "\n"
                          "Block devices:\n"
                          "  7 loop\n"
                          "253 zram\n"
                          "254 virtblk\n"
                          "259 blkext\n";
    BOOST_TEST(out == expected);
}

BOOST_AUTO_TEST_CASE(neuron_line_is_padded_to_three_columns) {
    const std::string text = "Character devices:\n  1 mem\n 10 misc\n\nBlock devices:\n  7 loop\n";
    BOOST_TEST(proc_devices_with_neuron(text, 5) ==
               "Character devices:\n  1 mem\n  5 neuron\n 10 misc\n\nBlock devices:\n  7 loop\n");
    BOOST_TEST(proc_devices_with_neuron(text, 11) ==
               "Character devices:\n  1 mem\n 10 misc\n 11 neuron\n\nBlock devices:\n  7 loop\n");
}

BOOST_AUTO_TEST_CASE(highest_major_goes_last_before_the_blank_line) {
    const std::string text = "Character devices:\n  1 mem\n254 ndctl\n\nBlock devices:\n254 virtblk\n259 blkext\n";
    BOOST_TEST(proc_devices_with_neuron(text, 511) ==
               "Character devices:\n  1 mem\n254 ndctl\n511 neuron\n\nBlock devices:\n254 virtblk\n259 blkext\n");
}

BOOST_AUTO_TEST_CASE(block_section_is_left_untouched) {
    // 250 sorts before the block device 253: the line must still go into the
    // character section, and nothing is added below "Block devices:".
    const std::string text = "Character devices:\n  1 mem\n\nBlock devices:\n  7 loop\n253 zram\n";
    const auto out = proc_devices_with_neuron(text, 250);
    BOOST_TEST(out == "Character devices:\n  1 mem\n250 neuron\n\nBlock devices:\n  7 loop\n253 zram\n");
}

BOOST_AUTO_TEST_CASE(chosen_major_round_trips_through_dynamic_char_major) {
    // Once the neuron line is in, the next dynamic major is a different one.
    const auto major = dynamic_char_major(sample);
    const auto loaded = proc_devices_with_neuron(sample, major);
    BOOST_TEST(loaded.find(fmt::format("{} neuron\n", major)) != std::string::npos);
    BOOST_TEST(dynamic_char_major(loaded) == major - 1);
}
