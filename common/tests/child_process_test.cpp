#define BOOST_TEST_MODULE common_child_process
#include <boost/test/unit_test.hpp>

#include "neuron/common/child_process.h"
#include "neuron/test_support/temporary_directory.h"

#include <csignal>
#include <sys/wait.h>

using neuron::common::child_process;
using neuron::common::current_environment;
using neuron::common::milliseconds;

namespace {

constexpr milliseconds patience{10'000};

child_process shell(const std::string& script, const std::string& stderr_path) {
    return child_process({"/bin/sh", "-c", script}, current_environment(), stderr_path);
}

} // namespace

BOOST_AUTO_TEST_CASE(lines_come_back_in_order_then_the_unfinished_one_then_nothing) {
    neuron::test_support::temporary_directory dir{"neuron-child-process-test"};
    auto child = shell("printf 'one\\ntwo\\nrest'", dir.path() + "/err");
    BOOST_TEST(child.read_line(patience).value_or("?") == "one");
    BOOST_TEST(child.read_line(patience).value_or("?") == "two");
    BOOST_TEST(child.read_line(patience).value_or("?") == "rest");
    BOOST_TEST(!child.read_line(patience).has_value());
    const auto status = child.wait(patience);
    BOOST_TEST_REQUIRE(status.has_value());
    BOOST_TEST(WIFEXITED(*status));
}

BOOST_AUTO_TEST_CASE(input_is_answered_line_by_line) {
    neuron::test_support::temporary_directory dir{"neuron-child-process-test"};
    auto child = shell("while read line; do echo \"got $line\"; done", dir.path() + "/err");
    child.send_line("a");
    BOOST_TEST(child.read_line(patience).value_or("?") == "got a");
    BOOST_TEST(!child.output_waiting());
    child.send_line("b");
    BOOST_TEST(child.read_line(patience).value_or("?") == "got b");
}

BOOST_AUTO_TEST_CASE(a_running_child_is_still_running_after_a_short_wait_and_its_end_is_reaped) {
    neuron::test_support::temporary_directory dir{"neuron-child-process-test"};
    auto child = shell("echo ready; exec sleep 1000", dir.path() + "/err");
    BOOST_TEST(child.read_line(patience).value_or("?") == "ready");
    BOOST_TEST(!child.wait(milliseconds(0)).has_value());
    BOOST_TEST(child.running());
    child.signal(SIGTERM);
    const auto status = child.wait(patience);
    BOOST_TEST_REQUIRE(status.has_value());
    BOOST_TEST(WIFSIGNALED(*status));
    BOOST_TEST(WTERMSIG(*status) == SIGTERM);
    BOOST_TEST(!child.running());
}

BOOST_AUTO_TEST_CASE(what_it_writes_to_stderr_is_kept) {
    neuron::test_support::temporary_directory dir{"neuron-child-process-test"};
    auto child = shell("echo oops >&2", dir.path() + "/err");
    BOOST_TEST_REQUIRE(child.wait(patience).has_value());
    BOOST_TEST(child.err() == "oops\n");
}
