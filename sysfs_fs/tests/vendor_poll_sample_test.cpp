#define BOOST_TEST_MODULE sysfs_vendor_poll_sample
#include <boost/test/unit_test.hpp>

#include "support/mounted_tree.h"

#include "neuron/model/mem_type.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <termios.h>

extern char** environ;

using namespace neuron;
using namespace neuron::sysfs::testing;

namespace {

// The sample program of the vendor's sysfs user guide, compiled unchanged
// from ../shared/seeds (see CMakeLists.txt); empty when the guide was missing.
constexpr const char* sample = VENDOR_POLL_SAMPLE;

// Runs the sample on a pseudo-terminal, so its printf output is line-buffered
// as in an interactive shell; reads its lines.
class sample_process {
public:
    explicit sample_process(const std::string& attribute) {
        m_master = ::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
        BOOST_REQUIRE(m_master >= 0);
        BOOST_REQUIRE(::grantpt(m_master) == 0 && ::unlockpt(m_master) == 0);
        const std::string slave = ::ptsname(m_master);
        const int slave_fd = ::open(slave.c_str(), O_RDWR | O_NOCTTY);
        BOOST_REQUIRE(slave_fd >= 0);
        termios raw{};
        ::tcgetattr(slave_fd, &raw);
        ::cfmakeraw(&raw); // no "\r\n" translation
        ::tcsetattr(slave_fd, TCSANOW, &raw);
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_adddup2(&actions, slave_fd, STDOUT_FILENO);
        const char* argv[] = {sample, attribute.c_str(), nullptr};
        const int error = ::posix_spawn(&m_pid, sample, &actions, nullptr, const_cast<char**>(argv), environ);
        posix_spawn_file_actions_destroy(&actions);
        ::close(slave_fd);
        BOOST_REQUIRE_MESSAGE(error == 0, "cannot start " << sample);
    }
    ~sample_process() {
        ::kill(m_pid, SIGKILL);
        ::waitpid(m_pid, nullptr, 0);
        ::close(m_master);
    }

    // The next line the sample prints, or nothing if none comes within the timeout.
    std::optional<std::string> next_line(int timeout_ms) {
        for (;;) {
            if (const auto eol = m_pending.find('\n'); eol != std::string::npos) {
                auto line = m_pending.substr(0, eol);
                m_pending.erase(0, eol + 1);
                return line;
            }
            struct pollfd p {m_master, POLLIN, 0};
            if (::poll(&p, 1, timeout_ms) != 1) return std::nullopt;
            char buffer[256];
            const auto n = ::read(m_master, buffer, sizeof(buffer));
            if (n <= 0) return std::nullopt;
            m_pending.append(buffer, static_cast<std::size_t>(n));
        }
    }

private:
    int m_master = -1;
    pid_t m_pid = -1;
    std::string m_pending;
};

} // namespace

BOOST_AUTO_TEST_CASE(the_vendor_sample_prints_each_new_value_once) {
    if (std::string_view(sample).empty()) {
        std::fprintf(stderr, "SKIP: ../shared/seeds/neuron-sysfs-user-guide.txt was not found at configure time\n");
        std::exit(77);
    }
    mounted_tree tree;
    BOOST_REQUIRE(tree.write("neuron0/info/notify_delay", "0") == 1);
    const std::string counter = "neuron0/neuron_core0/stats/memory_usage/device_mem/total";
    sample_process program(tree.path(counter));
    BOOST_TEST(program.next_line(5000).value_or("<nothing>") == "0");
    const auto owner = tree.sim().call([](model::platform& p) { return p.owners().open("test"); });
    for (int i = 1; i <= 5; ++i) {
        tree.sim().call([owner](model::platform& p) {
            p.owners().allocate(owner, 0, 0, model::mem_location::device,
                                static_cast<std::uint32_t>(model::mem_type::tensors_device), 4096);
        });
        BOOST_TEST(program.next_line(5000).value_or("<nothing>") == std::to_string(4096 * i));
    }
    BOOST_TEST(!program.next_line(400).has_value()); // no value printed twice
}
