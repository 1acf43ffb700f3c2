#define BOOST_TEST_MODULE sysfs_server_resilience
#include <boost/test/unit_test.hpp>

#include "support/mounted_tree.h"

#include "neuron/sysfs/system_calls.h"

#include <atomic>
#include <poll.h>
#include <sys/mount.h>

using namespace neuron::sysfs;
using namespace neuron::sysfs::testing;

namespace {

std::atomic<int> read_calls{0};
std::atomic<int> interrupted_reads{0};
system_calls real = sys();

// Every other read of the serving loop is interrupted by a signal.
ssize_t interrupting_read(int fd, void* buffer, size_t size) {
    if (read_calls++ % 2 == 0) {
        ++interrupted_reads;
        errno = EINTR;
        return -1;
    }
    return real.read(fd, buffer, size);
}

struct injected_calls {
    injected_calls() { sys().read = interrupting_read; }
    ~injected_calls() { sys() = real; }
};

} // namespace

BOOST_AUTO_TEST_CASE(interrupted_system_calls_are_retried_and_the_tree_keeps_serving) {
    injected_calls injection; // before the serving thread starts
    {
        mounted_tree tree;
        for (int i = 0; i < 50; ++i) BOOST_TEST(tree.read("neuron0/core_count") == "2");
        BOOST_TEST(tree.write("neuron0/neuron_core0/stats/status/success/total", "0") == 1);
        BOOST_TEST(interrupted_reads.load() > 0);
    } // stop() still ends the loop and unmounts
}

BOOST_AUTO_TEST_CASE(an_unmount_from_outside_ends_serving_and_says_so) {
    mounted_tree tree;
    // tree.root() is also the mount point: detach it behind the server's back.
    BOOST_REQUIRE(::umount2(tree.root().c_str(), MNT_DETACH) == 0);
    struct pollfd p {
        tree.ended_fd(), POLLIN, 0
    };
    BOOST_TEST(::poll(&p, 1, 5000) == 1); // awaited: the server noticed the mount went away
}
