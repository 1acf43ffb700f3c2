#define BOOST_TEST_MODULE sysfs_vendor_poll_sample
#include <boost/test/unit_test.hpp>

#include "support/mounted_tree.h"

#include "neuron/common/line_reader.h"
#include "neuron/model/spec/mem_type.h"
#include "neuron/test_support/skip.h"
#include "neuron/test_support/spawned_process.h"

#include <fcntl.h>
#include <optional>
#include <stdlib.h>
#include <termios.h>

using namespace neuron;
using namespace neuron::sysfs::testing;
namespace support = neuron::test_support;

namespace {

// The sample program of the vendor's sysfs user guide, compiled unchanged
// from ../shared/seeds (see CMakeLists.txt); empty when the guide was missing.
constexpr const char* sample = VENDOR_POLL_SAMPLE;

// Runs the sample on a pseudo-terminal, so its printf output is line-buffered
// as in an interactive shell; reads its lines.
class sample_process {
public:
    explicit sample_process(const std::string& attribute) {
        BOOST_REQUIRE(m_master >= 0);
        BOOST_REQUIRE(::grantpt(m_master) == 0 && ::unlockpt(m_master) == 0);
        const std::string slave = ::ptsname(m_master);
        const int slave_fd = ::open(slave.c_str(), O_RDWR | O_NOCTTY);
        BOOST_REQUIRE(slave_fd >= 0);
        termios raw{};
        ::tcgetattr(slave_fd, &raw);
        ::cfmakeraw(&raw); // no "\r\n" translation
        ::tcsetattr(slave_fd, TCSANOW, &raw);
        try {
            m_process.emplace(support::spawn_options{.argv = {sample, attribute},
                                                     .output = support::stream_target::descriptor(slave_fd)});
        } catch (...) {
            ::close(slave_fd);
            throw;
        }
        ::close(slave_fd);
    }
    ~sample_process() {
        m_process.reset();
        ::close(m_master);
    }
    sample_process(const sample_process&) = delete;
    sample_process& operator=(const sample_process&) = delete;

    // The next line the sample prints, or nothing if none comes within the timeout.
    std::optional<std::string> next_line(int timeout_ms) { return m_lines.next(support::milliseconds(timeout_ms)); }

private:
    int m_master = ::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    neuron::common::line_reader m_lines{m_master};
    std::optional<support::spawned_process> m_process;
};

} // namespace

BOOST_AUTO_TEST_CASE(the_vendor_sample_prints_each_new_value_once) {
    if (std::string_view(sample).empty()) {
        support::skip("../shared/seeds/neuron-sysfs-user-guide.txt was not found at configure time");
    }
    mounted_tree tree;
    BOOST_REQUIRE(tree.write("neuron0/info/notify_delay", "0") == 1);
    const std::string counter = "neuron0/neuron_core0/stats/memory_usage/device_mem/total";
    sample_process program(tree.path(counter));
    BOOST_TEST(program.next_line(5000).value_or("<nothing>") == "0");
    const auto owner = tree.sim().call([](model::platform& p) { return p.owners().open("test"); });
    // No value printed twice: each line is the value of the change just made,
    // never the one before again. Every change is the fence of the one before
    // it (the sample prints in the order it reads), so no waiting for silence.
    for (int i = 1; i <= 6; ++i) {
        tree.sim().call([owner](model::platform& p) {
            p.owners().allocate(owner, 0, 0, model::mem_location::device,
                                static_cast<std::uint32_t>(model::mem_type::tensors_device), 4096);
        });
        BOOST_TEST(program.next_line(5000).value_or("<nothing>") == std::to_string(4096 * i));
    }
}
