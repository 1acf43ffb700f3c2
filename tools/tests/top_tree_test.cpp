#define BOOST_TEST_MODULE top_tree
#include "neuron/tools/top_screen.h"

#include "support/top_samples.h"

#include <boost/test/unit_test.hpp>

#include <sstream>
#include <string>
#include <vector>

using namespace neuron::tools;
using namespace neuron::tools::testing;

namespace {

std::vector<std::string> lines_of(const std::string& frame) {
    std::vector<std::string> lines;
    std::istringstream in(frame);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

// The tree's rows of an 80-column frame: after the column titles, before the tab bar.
std::vector<std::string> tree_rows(const host_sample& h, const top_state& state) {
    const auto lines = lines_of(top_frame(h, later(h), state, 80, 0));
    std::vector<std::string> rows;
    bool in_tree = false;
    for (const auto& line : lines) {
        if (line.rfind("Neuron Apps", 0) == 0) break;
        if (in_tree) rows.push_back(line);
        if (line.find("Model ID") != std::string::npos) in_tree = true;
    }
    return rows;
}

// A row as the frame lays it out at 80 columns: the name in 43, the model's
// id in 10, the device memory in 15.
std::string row(const std::string& name, const std::string& id, const std::string& device, const std::string& host) {
    return top_pad(name, 43) + top_pad(id, 10) + top_pad(device, 15) + host;
}

void press(top_state& state, const host_sample& h, top_key_code code) { top_handle_key(state, {code, 0}, h); }
void press(top_state& state, const host_sample& h, char c) { top_handle_key(state, {top_key_code::character, c}, h); }

// trn2.3xlarge (LNC 2: NC 0-3 of 2 physical cores each), runtime 100 on all
// of them, one model on NC 0.
host_sample with_model() {
    auto h = instance_sample("trn2.3xlarge");
    add_runtime(h, 100, 0, 4);
    h.devices[0].cores[0].device_mem = {{"tensors", 2 * 34'078'720}, {"constants", 155'189'248}};
    h.devices[0].cores[1].device_mem = {{"model_code", 205'625'753}, {"runtime_memory", 202'752}};
    h.devices[0].cores[2].device_mem = {{"model_shared_scratchpad", 68'157'440}};
    add_model(h, 100, 10027, "nccom_neff_redsct_x20_8388608_fp32_r64_lnc2", 0, {{"tensors", 34'078'720}},
              {{"tensors", 2048}});
    return h;
}

} // namespace

BOOST_AUTO_TEST_CASE(the_tree_starts_collapsed_with_the_first_row_selected) {
    const auto h = with_model();
    BOOST_TEST(tree_rows(h, {}) == std::vector<std::string>{row(">[+] ND 0", "", "474.3MB", "2.0KB")});
}

BOOST_AUTO_TEST_CASE(enter_and_arrows_open_the_tree_down_to_a_models_categories) {
    const auto h = with_model();
    top_state state;
    press(state, h, top_key_code::enter);
    press(state, h, top_key_code::down);
    press(state, h, top_key_code::enter);
    press(state, h, top_key_code::down);
    press(state, h, top_key_code::right);
    const std::vector<std::string> expected{
        row(" [-] ND 0", "", "474.3MB", "2.0KB"),
        row("     [-] NC 0", "", "409.3MB", "2.0KB"),
        row(">        [-] nccom_neff_redsct_x20_8388608", "10027", "32.5MB", "2.0KB"),
        row("             Tensors", "", "32.5MB", "2.0KB"),
        row("             Constants", "", "0.0B", "0.0B"),
        row("             Model Code", "", "0.0B", "0.0B"),
        row("             Runtime Memory", "", "0.0B", "0.0B"),
        row("             Model Scratchpad", "", "0.0B", "0.0B"),
        // What the model was not charged stays with its core.
        row("         Tensors", "", "32.5MB", "0.0B"),
        row("         Constants", "", "148.0MB", "0.0B"),
        row("         Model Code", "", "196.1MB", "0.0B"),
        row("         Runtime Memory", "", "198.0KB", "0.0B"),
        row("         Model Scratchpad", "", "0.0B", "0.0B"),
        row("     [+] NC 1", "", "65.0MB", "0.0B"),
        row("     [+] NC 2", "", "0.0B", "0.0B"),
        row("     [+] NC 3", "", "0.0B", "0.0B"),
    };
    BOOST_TEST(tree_rows(h, state) == expected, boost::test_tools::per_element());

    press(state, h, top_key_code::left); // closes the model
    press(state, h, top_key_code::left); // then goes to its core
    BOOST_TEST(state.selected == "nd0/nc0");
    press(state, h, top_key_code::enter);
    BOOST_TEST(tree_rows(h, state) == (std::vector<std::string>{row(" [-] ND 0", "", "474.3MB", "2.0KB"),
                                                                row(">    [+] NC 0", "", "409.3MB", "2.0KB"),
                                                                row("     [+] NC 1", "", "65.0MB", "0.0B"),
                                                                row("     [+] NC 2", "", "0.0B", "0.0B"),
                                                                row("     [+] NC 3", "", "0.0B", "0.0B")}),
               boost::test_tools::per_element());
    press(state, h, top_key_code::up);
    press(state, h, top_key_code::up); // already at the top
    BOOST_TEST(state.selected == "nd0");
}

BOOST_AUTO_TEST_CASE(x_opens_then_closes_the_whole_tree) {
    const auto h = with_model();
    top_state state;
    press(state, h, 'x');
    // ND 0, 4 cores with 5 categories each, the model with its 5.
    BOOST_TEST(tree_rows(h, state).size() == 1u + 4 * 6 + 6);
    for (int i = 0; i < 3; ++i) press(state, h, top_key_code::down);
    BOOST_TEST(state.selected == "nd0/nc0/m100:10027/tensors");
    press(state, h, 'x');
    BOOST_TEST(tree_rows(h, state) == std::vector<std::string>{row(">[+] ND 0", "", "474.3MB", "2.0KB")});
    BOOST_TEST(state.selected == "nd0");
}

BOOST_AUTO_TEST_CASE(a_runtimes_tab_shows_only_the_cores_it_holds) {
    auto h = instance_sample("trn1.32xlarge");
    add_runtime(h, 10, 0, 2);
    add_runtime(h, 20, 6, 3); // device 3 and device 4's first core
    top_state state;
    press(state, h, '3');
    BOOST_TEST(state.tab_pid == 20u);
    press(state, h, 'x');
    BOOST_TEST(tree_rows(h, state) == (std::vector<std::string>{
                                          row(">[-] ND 3", "", "0.0B", "0.0B"),
                                          row("     [-] NC 0", "", "0.0B", "0.0B"),
                                          row("         Tensors", "", "0.0B", "0.0B"),
                                          row("         Constants", "", "0.0B", "0.0B"),
                                          row("         Model Code", "", "0.0B", "0.0B"),
                                          row("         Runtime Memory", "", "0.0B", "0.0B"),
                                          row("         Model Scratchpad", "", "0.0B", "0.0B"),
                                          row("     [-] NC 1", "", "0.0B", "0.0B"),
                                          row("         Tensors", "", "0.0B", "0.0B"),
                                          row("         Constants", "", "0.0B", "0.0B"),
                                          row("         Model Code", "", "0.0B", "0.0B"),
                                          row("         Runtime Memory", "", "0.0B", "0.0B"),
                                          row("         Model Scratchpad", "", "0.0B", "0.0B"),
                                          row(" [-] ND 4", "", "0.0B", "0.0B"),
                                          row("     [-] NC 0", "", "0.0B", "0.0B"),
                                          row("         Tensors", "", "0.0B", "0.0B"),
                                          row("         Constants", "", "0.0B", "0.0B"),
                                          row("         Model Code", "", "0.0B", "0.0B"),
                                          row("         Runtime Memory", "", "0.0B", "0.0B"),
                                          row("         Model Scratchpad", "", "0.0B", "0.0B"),
                                      }),
               boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_narrow_screen_cuts_every_line) {
    auto h = with_model();
    const auto lines = lines_of(top_frame(h, later(h), {}, 30, 0));
    for (const auto& line : lines) BOOST_TEST(line.size() <= 30u, line);
    BOOST_TEST(lines.at(0) == "neuron-top 2.0.9646.0 running");
    BOOST_TEST(lines.back() == " q: quit  arrows: move tree se");
}

BOOST_AUTO_TEST_CASE(a_screen_height_puts_the_tab_bar_and_help_at_the_bottom) {
    const auto h = with_model();
    const auto lines = lines_of(top_frame(h, later(h), {}, 80, 30));
    BOOST_TEST(lines.size() == 30u);
    // 15 lines above the tree and one per device.
    BOOST_TEST(lines.at(16) == row(">[+] ND 0", "", "474.3MB", "2.0KB"));
    BOOST_TEST(lines.at(17) == "");
    BOOST_TEST(lines.at(28) == "Neuron Apps  >[1]:all<  [2]:100");
    BOOST_TEST(lines.at(29).rfind(" q: quit", 0) == 0);

    const auto short_frame = lines_of(top_frame(h, later(h), {}, 80, 5));
    BOOST_TEST(short_frame.size() == 5u);
    BOOST_TEST(short_frame.at(2) == "NeuronCore v3d Utilization (Avg: 0.00%)");
    BOOST_TEST(short_frame.at(3) == "Neuron Apps  >[1]:all<  [2]:100");
}

BOOST_AUTO_TEST_CASE(the_tree_scrolls_to_keep_the_selection_shown) {
    auto h = instance_sample("trn2.48xlarge");
    top_state state;
    state.selected = "nd10";
    // 15 + 16 lines above the tree, 2 below: room for 5 rows.
    const auto lines = lines_of(top_frame(h, later(h), state, 80, 31 + 5 + 2));
    BOOST_TEST(lines.at(31).substr(0, 9) == " [+] ND 6");
    BOOST_TEST(lines.at(35).substr(0, 9) == ">[+] ND10");
    BOOST_TEST(lines.at(36).substr(0, 11) == "Neuron Apps");
}
