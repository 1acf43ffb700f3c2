#define BOOST_TEST_MODULE sysfs_notify
#include <boost/test/unit_test.hpp>

#include "support/mounted_tree.h"

#include "neuron/model/spec/mem_type.h"
#include "neuron/model/state/ecc.h"

#include <poll.h>

using namespace neuron;
using namespace neuron::sysfs;
using namespace neuron::sysfs::testing;

namespace {

// A change wakes a poller within this (generous: it is awaited, not slept).
constexpr int wake_timeout_ms = 5000;

const std::string mem = "neuron0/neuron_core0/stats/memory_usage/device_mem/model_code/";

// poll() for POLLPRI|POLLERR as the vendor's sample does; true when it fired.
bool woken(const file& f, int timeout_ms) {
    struct pollfd p {
        f.fd(), POLLPRI | POLLERR, 0
    };
    const int ready = ::poll(&p, 1, timeout_ms);
    return ready == 1 && (p.revents & (POLLPRI | POLLERR)) != 0;
}

// Opens and reads once, as a watcher does before it starts polling.
struct watcher {
    watcher(const mounted_tree& tree, const std::string& relative) : f(tree.path(relative), O_RDONLY) { f.pread_all(); }
    bool wakes() const { return woken(f, wake_timeout_ms); }
    // Without waiting: asked after a fence (below).
    bool has_woken() const { return woken(f, 0); }
    std::string reread() const { return f.pread_all(); }
    file f;
};

void notifications_on(mounted_tree& tree, std::uint32_t device = 0) {
    BOOST_REQUIRE(tree.write(fmt::format("neuron{}/info/notify_delay", device), "0") == 1);
}

model::allocation_id allocate(mounted_tree& tree, model::owner_id owner, std::uint64_t bytes) {
    return tree.sim().call([=](model::platform& p) {
        return p.owners().allocate(owner, 0, 0, model::mem_location::device,
                                   static_cast<std::uint32_t>(model::mem_type::code_device), bytes);
    });
}

model::owner_id session(mounted_tree& tree) {
    return tree.sim().call([](model::platform& p) { return p.owners().open("test"); });
}

// "Never notifies" is proven with a fence rather than by watching for a
// while: after the change under test, a change that notifies another file;
// once that file has woken, the watched file must not have. Sound because
// notifications are made in the order of the changes (the model calls its
// listeners synchronously on its kernel thread; a write notifies its own file
// before it returns), and change_hub counts a file's event, which poll()
// reports at once, before it sends any wake-up.

// With notifications on: clears a counter that no case here changes otherwise,
// which notifies that file alone, and waits for its wake-up.
void fence(mounted_tree& tree) {
    watcher fence_file(tree, "neuron0/neuron_core1/stats/memory_usage/device_mem/model_code/total");
    tree.sim().call([](model::platform& p) {
        p.counters().clear({0, 1, model::counter_kind::device_model_code}, model::counter_field::total);
    });
    BOOST_TEST_REQUIRE(fence_file.wakes(), "the fence file did not wake");
}

// With notifications off: turns them on, which notifies notify_delay itself,
// and waits for its wake-up.
void fence_turning_notifications_on(mounted_tree& tree) {
    watcher notify_delay(tree, "neuron0/info/notify_delay");
    notifications_on(tree);
    BOOST_TEST_REQUIRE(notify_delay.wakes(), "notify_delay did not wake");
}

} // namespace

BOOST_AUTO_TEST_CASE(notifications_are_off_until_notify_delay_is_0) {
    mounted_tree tree;
    watcher w(tree, mem + "total");
    allocate(tree, session(tree), 4096);
    fence_turning_notifications_on(tree);
    BOOST_TEST(!w.has_woken());
    BOOST_TEST(w.reread() == "4096\n"); // the value did change
}

BOOST_AUTO_TEST_CASE(a_change_wakes_a_poller_with_pri_and_err) {
    mounted_tree tree;
    notifications_on(tree);
    watcher w(tree, mem + "total");
    allocate(tree, session(tree), 4096);
    struct pollfd p {
        w.f.fd(), POLLIN | POLLPRI | POLLERR, 0
    };
    BOOST_TEST(::poll(&p, 1, wake_timeout_ms) == 1);
    BOOST_TEST((p.revents & POLLPRI) != 0);
    BOOST_TEST((p.revents & POLLERR) != 0);
    BOOST_TEST((p.revents & POLLIN) != 0);
    BOOST_TEST(w.reread() == "4096\n");
}

BOOST_AUTO_TEST_CASE(the_switch_is_global_across_devices) {
    mounted_tree tree({"trn1.32xlarge"});
    notifications_on(tree, 9);
    watcher w(tree, mem + "total");
    allocate(tree, session(tree), 4096);
    BOOST_TEST(w.wakes());
    BOOST_TEST(tree.write("neuron4/info/notify_delay", "-1") == 2);
    w.reread();
    allocate(tree, session(tree), 4096);
    fence_turning_notifications_on(tree);
    BOOST_TEST(!w.has_woken());
}

BOOST_AUTO_TEST_CASE(several_changes_before_a_read_wake_once_and_a_read_at_0_rearms) {
    mounted_tree tree;
    notifications_on(tree);
    watcher w(tree, mem + "total");
    const auto owner = session(tree);
    for (int i = 0; i < 5; ++i) allocate(tree, owner, 4096);
    BOOST_TEST(w.wakes());
    BOOST_TEST(w.wakes());                // still pending: nothing re-armed it
    BOOST_TEST(w.f.pread_all(1) == "\n"); // continuing the old snapshot ("0\n") does not re-arm ...
    BOOST_TEST(w.wakes());
    BOOST_TEST(w.reread() == "20480\n"); // ... a read at offset 0 does
    fence(tree);
    BOOST_TEST(!w.has_woken());
    allocate(tree, owner, 4096);
    BOOST_TEST(w.wakes());
}

BOOST_AUTO_TEST_CASE(seek_to_0_and_read_rearms_as_the_vendor_sample_does) {
    mounted_tree tree;
    notifications_on(tree);
    file f(tree.path(mem + "total"), O_RDONLY);
    char buffer[64];
    BOOST_TEST(::read(f.fd(), buffer, sizeof(buffer)) == 2);
    allocate(tree, session(tree), 4096);
    BOOST_TEST(woken(f, wake_timeout_ms));
    BOOST_TEST(::lseek(f.fd(), 0, SEEK_SET) == 0);
    BOOST_TEST(::read(f.fd(), buffer, sizeof(buffer)) == 5);
    fence(tree);
    BOOST_TEST(!woken(f, 0));
}

BOOST_AUTO_TEST_CASE(a_write_notifies_the_written_file_only_when_notifications_are_on) {
    mounted_tree tree;
    allocate(tree, session(tree), 4096);
    {
        watcher w(tree, mem + "total");
        BOOST_TEST(tree.write(mem + "total", "0") == 1);
        fence_turning_notifications_on(tree);
        BOOST_TEST(!w.has_woken());
    }
    watcher total(tree, mem + "total");
    watcher present(tree, mem + "present");
    watcher arch(tree, "neuron0/info/architecture/arch_type");
    BOOST_TEST(tree.write(mem + "total", "0") == 1);
    BOOST_TEST(total.wakes());
    fence(tree);
    BOOST_TEST(!present.has_woken());
    BOOST_TEST(tree.write("neuron0/info/architecture/arch_type", "x") == 1); // "succeeds", changes nothing
    BOOST_TEST(arch.wakes());
}

BOOST_AUTO_TEST_CASE(turning_notifications_on_notifies_notify_delay_itself) {
    mounted_tree tree({"trn1.32xlarge"});
    watcher own(tree, "neuron0/info/notify_delay");
    watcher other(tree, "neuron1/info/notify_delay");
    notifications_on(tree);
    BOOST_TEST(own.wakes());
    fence(tree);
    BOOST_TEST(!other.has_woken()); // its value changed, but only the written file is notified
    BOOST_TEST(other.reread() == "0\n");
}

BOOST_AUTO_TEST_CASE(peak_is_notified_only_when_it_rises) {
    mounted_tree tree;
    notifications_on(tree);
    const auto owner = session(tree);
    const auto first = allocate(tree, owner, 2 * 4096);
    watcher total(tree, mem + "total");
    watcher present(tree, mem + "present");
    watcher peak(tree, mem + "peak");
    tree.sim().call([&](model::platform& p) { p.owners().free(owner, first); });
    BOOST_TEST(total.wakes());
    BOOST_TEST(present.wakes());
    fence(tree);
    BOOST_TEST(!peak.has_woken());
    total.reread();
    present.reread();
    allocate(tree, owner, 4096); // total 4096, below the peak of 8192
    BOOST_TEST(total.wakes());
    fence(tree);
    BOOST_TEST(!peak.has_woken());
    allocate(tree, owner, 2 * 4096); // total 12288: a new peak
    BOOST_TEST(peak.wakes());
    BOOST_TEST(peak.reread() == "12288\n");
}

BOOST_AUTO_TEST_CASE(status_counters_notify_when_a_session_ends) {
    mounted_tree tree;
    notifications_on(tree);
    watcher success(tree, "neuron0/neuron_core1/stats/status/success/total");
    const auto owner = session(tree);
    tree.sim().call([&](model::platform& p) { p.owners().record(owner, 0, 1, model::counter_kind::success, 3); });
    fence(tree);
    BOOST_TEST(!success.has_woken()); // accumulated in the session, not yet in sysfs
    tree.sim().call([&](model::platform& p) { p.owners().release(owner); });
    BOOST_TEST(success.wakes());
    BOOST_TEST(success.reread() == "3\n");
}

BOOST_AUTO_TEST_CASE(computed_and_device_files_never_notify) {
    mounted_tree tree;
    notifications_on(tree);
    watcher sram(tree, "neuron0/stats/hardware/sram_ecc_uncorrected");
    watcher reset(tree, "neuron0/reset");
    watcher cores(tree, "neuron0/core_count");
    tree.sim().call([](model::platform& p) { p.device(0).ecc().inject(model::ecc_kind::sram, 2); });
    BOOST_TEST(tree.write("neuron0/reset", "1") == 1);
    fence(tree);
    BOOST_TEST(!sram.has_woken());
    BOOST_TEST(!reset.has_woken());
    BOOST_TEST(!cores.has_woken());
    BOOST_TEST(sram.reread() == "2\n");
    BOOST_TEST(reset.reread() == "0\n");
}

BOOST_AUTO_TEST_CASE(every_poller_of_a_file_wakes) {
    mounted_tree tree;
    notifications_on(tree);
    watcher a(tree, mem + "total");
    watcher b(tree, mem + "total");
    watcher other(tree, mem + "peak");
    other.f.pread_all();
    tree.sim().call([](model::platform& p) {
        p.counters().clear({0, 0, model::counter_kind::device_model_code}, model::counter_field::total);
    });
    BOOST_TEST(a.wakes());
    BOOST_TEST(b.wakes());
    fence(tree);
    BOOST_TEST(!other.has_woken());
}
