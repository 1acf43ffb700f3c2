#define BOOST_TEST_MODULE sysfs_file_semantics
#include <boost/test/unit_test.hpp>

#include "support/mounted_tree.h"

#include "neuron/model/spec/mem_type.h"
#include "neuron/model/state/ecc.h"

#include <cerrno>
#include <chrono>
#include <sys/stat.h>
#include <sys/wait.h>

using namespace neuron;
using namespace neuron::sysfs;
using namespace neuron::sysfs::testing;
using model::counter_field;
using model::counter_kind;
using model::counter_ref;

namespace {

constexpr std::string_view core0 = "neuron0/neuron_core0";
constexpr std::string_view success_total = "neuron0/neuron_core0/stats/status/success/total";
constexpr std::string_view device_mem = "neuron0/neuron_core0/stats/memory_usage/device_mem";

int open_errno(const std::string& path, int flags) {
    const int fd = ::open(path.c_str(), flags);
    if (fd >= 0) {
        ::close(fd);
        return 0;
    }
    return errno;
}

// Runs `check` in a child process as `nobody`; returns its exit status.
template <typename F>
int as_nobody(F&& check) {
    const pid_t child = ::fork();
    if (child == 0) {
        if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(100);
        ::_exit(check());
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 200;
}

// Allocates `bytes` of device memory on neuron0/core0 for a new session.
model::owner_id allocate(mounted_tree& tree, std::uint64_t bytes) {
    return tree.sim().call([bytes](model::platform& p) {
        const auto owner = p.owners().open("test");
        p.owners().allocate(owner, 0, 0, model::mem_location::device,
                            static_cast<std::uint32_t>(model::mem_type::code_device), bytes);
        return owner;
    });
}

} // namespace

BOOST_AUTO_TEST_SUITE(attributes)

BOOST_AUTO_TEST_CASE(every_attribute_reports_size_4096_and_links_size_0) {
    mounted_tree tree;
    struct stat st {};
    BOOST_TEST(::stat(tree.path(success_total).c_str(), &st) == 0);
    BOOST_TEST(st.st_size == 4096);
    BOOST_TEST(st.st_nlink == 1u);
    BOOST_TEST(::stat(tree.path("neuron0/core_count").c_str(), &st) == 0);
    BOOST_TEST(st.st_size == 4096);
    BOOST_TEST(::lstat(tree.path("neuron0/subsystem").c_str(), &st) == 0);
    BOOST_TEST(S_ISLNK(st.st_mode));
    BOOST_TEST(st.st_size == 0);
    BOOST_TEST(::stat(tree.path("neuron0").c_str(), &st) == 0);
    BOOST_TEST(st.st_size == 0);
    BOOST_TEST(st.st_nlink == 2u + 5u); // as kernfs: 2 + subdirectories (info, stats, power, two cores)
}

BOOST_AUTO_TEST_CASE(read_formats_are_the_drivers_bytes) {
    mounted_tree tree({"trn1.32xlarge"});
    BOOST_TEST(tree.read("neuron0/core_count") == "2");
    BOOST_TEST(tree.read("neuron0/connected_devices") == "12, 3, 4, 1\n");
    BOOST_TEST(tree.read("neuron5/connected_devices") == "1, 4, 9, 6\n");
    BOOST_TEST(tree.read("neuron0/info/architecture/arch_type") == "NDv2\n");
    BOOST_TEST(tree.read("neuron0/neuron_core1/info/architecture/arch_type") == "NCv2\n");
    BOOST_TEST(tree.read("neuron0/info/architecture/instance_type") == "Trn1\n");
    BOOST_TEST(tree.read("neuron0/info/architecture/device_name") == "Trainium1\n");
    BOOST_TEST(tree.read("neuron0/info/notify_delay") == "-1\n");
    BOOST_TEST(tree.read("neuron0/reset") == "1\n");
    BOOST_TEST(tree.read(fmt::format("{}/stats/other_info/reset_req_count/total", core0)) == "1\n");
    BOOST_TEST(tree.read(std::string(success_total)) == "0\n");
    BOOST_TEST(tree.read("neuron0/stats/hardware/mem_ecc_uncorrected") == "0\n");
    BOOST_TEST(tree.read("neuron0/stats/power/utilization") == "POWER_STATUS_NO_DATA,0,0.00,0.00,0.00\n");
    const auto serial = tree.read("neuron3/info/serial_number");
    BOOST_TEST(serial.size() == 17u);
    BOOST_TEST(serial.find_first_not_of("0123456789abcdef") == 16u);
    BOOST_TEST(serial.back() == '\n');
    const auto pe = tree.read("neuron0/neuron_core0/stats/tensor_engine/pe_cntrs");
    BOOST_TEST(pe == "xrow_grp,mm_active,wl_active,idle\n0,0,0,0\n1,0,0,0\n2,0,0,0\n3,0,0,0\n");
    const auto major = tree.tree_layout().char_major();
    BOOST_TEST(tree.read("neuron7/dev") == fmt::format("{}:7\n", major));
    BOOST_TEST(tree.read("neuron7/uevent") == fmt::format("MAJOR={}\nMINOR=7\nDEVNAME=neuron7\n", major));
    BOOST_TEST(tree.read("neuron0/power/runtime_status") == "unsupported\n");
}

BOOST_AUTO_TEST_CASE(single_device_reads_a_lone_newline_for_connected_devices) {
    mounted_tree tree({"trn1.2xlarge"});
    BOOST_TEST(tree.read("neuron0/connected_devices") == "\n");
}

BOOST_AUTO_TEST_CASE(values_follow_the_model_and_time) {
    mounted_tree tree;
    allocate(tree, 5000);
    BOOST_TEST(tree.read(fmt::format("{}/total", device_mem)) == "8192\n"); // rounded up to a page
    BOOST_TEST(tree.read(fmt::format("{}/model_code/present", device_mem)) == "8192\n");
    tree.sim().call([](model::platform& p) { p.device(0).ecc().inject(model::ecc_kind::hbm, 3, 1); });
    BOOST_TEST(tree.read("neuron0/stats/hardware/mem_ecc_uncorrected") == "3\n");
    tree.sim().advance(std::chrono::milliseconds(120));
    BOOST_TEST(tree.read("neuron0/stats/power/utilization") == "POWER_STATUS_VALID,1700000000,0.00,0.00,0.00\n");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(snapshots)

BOOST_AUTO_TEST_CASE(a_partial_read_continues_from_the_snapshot_taken_at_offset_0) {
    mounted_tree tree;
    allocate(tree, 123 * 4096); // total 503808
    file f(tree.path(fmt::format("{}/total", device_mem)), O_RDONLY);
    char head[3];
    BOOST_TEST(::read(f.fd(), head, sizeof(head)) == 3);
    BOOST_TEST(std::string(head, 3) == "503");
    allocate(tree, 4096); // the value changes between the two reads
    char rest[16];
    const auto n = ::read(f.fd(), rest, sizeof(rest));
    BOOST_TEST(std::string(rest, static_cast<std::size_t>(n)) == "808\n");
    BOOST_TEST(::read(f.fd(), rest, sizeof(rest)) == 0);
    BOOST_TEST(::lseek(f.fd(), 0, SEEK_SET) == 0);
    const auto m = ::read(f.fd(), rest, sizeof(rest));
    BOOST_TEST(std::string(rest, static_cast<std::size_t>(m)) == "507904\n");
}

BOOST_AUTO_TEST_CASE(pread_at_offset_0_on_an_open_file_sees_the_current_value) {
    mounted_tree tree;
    file f(tree.path(fmt::format("{}/total", device_mem)), O_RDONLY);
    BOOST_TEST(f.pread_all() == "0\n");
    allocate(tree, 4096);
    BOOST_TEST(f.pread_all() == "4096\n"); // direct I/O: no stale page cache
    BOOST_TEST(f.pread_all(3) == "6\n");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(writes)

BOOST_AUTO_TEST_CASE(writing_a_counter_field_clears_only_that_field) {
    mounted_tree tree;
    allocate(tree, 3 * 4096);
    const auto dir = fmt::format("{}/model_code/", device_mem);
    BOOST_TEST(tree.write(dir + "present", "anything at all") == 15);
    BOOST_TEST(tree.read(dir + "present") == "0\n");
    BOOST_TEST(tree.read(dir + "total") == "12288\n");
    BOOST_TEST(tree.read(dir + "peak") == "12288\n");
    BOOST_TEST(tree.write(dir + "peak", "0") == 1);
    BOOST_TEST(tree.read(dir + "peak") == "0\n");
    BOOST_TEST(tree.read(dir + "total") == "12288\n");
    BOOST_TEST(tree.write(dir + "total", "\x01\x02 binary") == 9);
    BOOST_TEST(tree.read(dir + "total") == "0\n");
    BOOST_TEST(tree.read(dir + "present") == "0\n");
    BOOST_TEST(tree.read(dir + "peak") == "0\n");
}

BOOST_AUTO_TEST_CASE(freeing_after_clearing_total_wraps_the_u64) {
    mounted_tree tree;
    const auto owner = allocate(tree, 4096);
    const auto total = fmt::format("{}/model_code/total", device_mem);
    BOOST_TEST(tree.write(total, "0\n") == 2);
    tree.sim().call([owner](model::platform& p) { p.owners().release(owner); });
    BOOST_TEST(tree.read(total) == "18446744073709547520\n"); // 0 - 4096
}

BOOST_AUTO_TEST_CASE(a_write_larger_than_a_page_is_cut_to_one_page) {
    mounted_tree tree;
    const std::string big(5000, '7');
    BOOST_TEST(tree.write(success_total, big) == 4096);
}

BOOST_AUTO_TEST_CASE(the_file_position_is_ignored_as_by_kernfs) {
    mounted_tree tree;
    allocate(tree, 4096);
    file f(tree.path(fmt::format("{}/total", device_mem)), O_WRONLY);
    BOOST_TEST(::pwrite(f.fd(), "1", 1, 7) == 1);
    BOOST_TEST(tree.read(fmt::format("{}/total", device_mem)) == "0\n");
}

BOOST_AUTO_TEST_CASE(notify_delay_accepts_only_0_and_minus_1_and_still_reports_success) {
    mounted_tree tree({"trn1.32xlarge"});
    BOOST_TEST(tree.write("neuron0/info/notify_delay", "5") == 1);
    BOOST_TEST(tree.read("neuron0/info/notify_delay") == "-1\n");
    BOOST_TEST(tree.write("neuron0/info/notify_delay", std::string("\xff\x00garbage", 9)) == 9);
    BOOST_TEST(tree.read("neuron0/info/notify_delay") == "-1\n");
    BOOST_TEST(tree.driver_log().size() == 2u);
    BOOST_TEST(tree.write("neuron3/info/notify_delay", "0\n") == 2);
    BOOST_TEST(tree.read("neuron0/info/notify_delay") == "0\n"); // one switch for every device
    BOOST_TEST(tree.read("neuron15/info/notify_delay") == "0\n");
    BOOST_TEST(tree.write("neuron0/info/notify_delay", "-1") == 2);
    BOOST_TEST(tree.read("neuron3/info/notify_delay") == "-1\n");
}

BOOST_AUTO_TEST_CASE(other_metric_files_accept_a_write_and_change_nothing) {
    mounted_tree tree;
    BOOST_TEST(tree.write("neuron0/info/architecture/arch_type", "NDv9\n") == 5);
    BOOST_TEST(tree.read("neuron0/info/architecture/arch_type") == "NDv2\n");
    BOOST_TEST(tree.write("neuron0/stats/hardware/sram_ecc_uncorrected", "9") == 1);
    BOOST_TEST(tree.read("neuron0/stats/hardware/sram_ecc_uncorrected") == "0\n");
}

BOOST_AUTO_TEST_CASE(reset_goes_through_state_0_to_1_in_simulated_time) {
    mounted_tree tree({"trn1.32xlarge"});
    BOOST_TEST(tree.write("neuron2/reset", "whatever") == 8);
    BOOST_TEST(tree.read("neuron2/reset") == "0\n");
    BOOST_TEST(tree.read("neuron2/neuron_core1/stats/other_info/reset_req_count/total") == "2\n");
    BOOST_TEST(tree.read("neuron3/neuron_core1/stats/other_info/reset_req_count/total") == "1\n");
    tree.sim().advance(std::chrono::milliseconds(999));
    BOOST_TEST(tree.read("neuron2/reset") == "0\n");
    tree.sim().advance(std::chrono::milliseconds(1));
    BOOST_TEST(tree.read("neuron2/reset") == "1\n");
}

BOOST_AUTO_TEST_CASE(a_failing_reset_reads_2_and_counts_on_every_core) {
    mounted_tree tree({"trn2.3xlarge"});
    tree.sim().call([](model::platform& p) { p.device(0).resets().fail_next_resets(1); });
    BOOST_TEST(tree.write("neuron0/reset", "1") == 1);
    tree.sim().advance(std::chrono::seconds(1));
    BOOST_TEST(tree.read("neuron0/reset") == "2\n");
    for (int c = 0; c < 8; ++c) {
        BOOST_TEST(tree.read(fmt::format("neuron0/neuron_core{}/stats/other_info/reset_fail_count/total", c)) == "1\n");
    }
}

BOOST_AUTO_TEST_CASE(reset_of_a_device_in_use_succeeds_and_does_nothing) {
    mounted_tree tree;
    tree.sim().call([](model::platform& p) { p.owners().attach(p.owners().open("runtime"), 0); });
    BOOST_TEST(tree.write("neuron0/reset", "1") == 1);
    BOOST_TEST(tree.read("neuron0/reset") == "1\n");
    BOOST_TEST(tree.read("neuron0/neuron_core0/stats/other_info/reset_req_count/total") == "1\n");
}

BOOST_AUTO_TEST_CASE(power_control_takes_on_and_auto_and_refuses_the_rest) {
    mounted_tree tree;
    BOOST_TEST(tree.write("neuron0/power/control", "on\n") == 3);
    BOOST_TEST(tree.read("neuron0/power/control") == "on\n");
    BOOST_TEST(tree.read("neuron0/power/runtime_enabled") == "disabled & forbidden\n");
    BOOST_TEST(tree.write("neuron0/power/control", "sometimes") == -EINVAL);
    BOOST_TEST(tree.write("neuron0/power/control", "auto") == 4);
    BOOST_TEST(tree.read("neuron0/power/control") == "auto\n");
    BOOST_TEST(tree.write("neuron0/uevent", "change\n") == 7);
    BOOST_TEST(tree.write("neuron0/uevent", "explode") == -EINVAL);
    BOOST_TEST(open_errno(tree.path("neuron0/power/autosuspend_delay_ms"), O_RDONLY) == 0);
    BOOST_CHECK_THROW(tree.read("neuron0/power/autosuspend_delay_ms"), std::runtime_error); // EIO, as the kernel
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(permissions)

BOOST_AUTO_TEST_CASE(files_without_a_store_refuse_writing_even_to_root) {
    mounted_tree tree({"trn1.32xlarge", "2.24", "", true});
    const std::string dev = "devices/virtual/neuron_device/neuron0/";
    for (const auto* name : {"core_count", "connected_devices", "dev", "power/runtime_status"}) {
        BOOST_TEST_CONTEXT(name) {
            BOOST_TEST(open_errno(tree.path(dev + name), O_WRONLY) == EACCES);
            BOOST_TEST(open_errno(tree.path(dev + name), O_RDWR) == EACCES);
        }
    }
    BOOST_TEST(open_errno(tree.path("class/neuron_device/node_id_2"), O_WRONLY) == EACCES);
    BOOST_TEST(open_errno(tree.path(dev + "reset"), O_WRONLY) == 0);
    BOOST_TEST(open_errno(tree.path(dev + "neuron_core0/stats/status/success/total"), O_RDWR) == 0);
}

BOOST_AUTO_TEST_CASE(other_users_get_the_kernels_mode_checks) {
    mounted_tree tree;
    const auto core_count = tree.path("neuron0/core_count");
    const auto total = tree.path(std::string(success_total));
    const auto reset = tree.path("neuron0/reset");
    BOOST_TEST(as_nobody([&] { return open_errno(core_count, O_RDONLY); }) == EACCES);
    BOOST_TEST(as_nobody([&] { return open_errno(reset, O_RDONLY); }) == EACCES);
    BOOST_TEST(as_nobody([&] { return open_errno(total, O_RDONLY); }) == 0);
    BOOST_TEST(as_nobody([&] { return open_errno(total, O_WRONLY); }) == EACCES);
}

BOOST_AUTO_TEST_CASE(metric_files_are_root_only_before_driver_2_15) {
    mounted_tree tree({"trn1.2xlarge", "2.14"});
    const auto total = tree.path(std::string(success_total));
    BOOST_TEST(as_nobody([&] { return open_errno(total, O_RDONLY); }) == EACCES);
    BOOST_TEST(open_errno(total, O_RDONLY) == 0);
}

BOOST_AUTO_TEST_CASE(the_tree_cannot_be_reshaped) {
    mounted_tree tree;
    BOOST_TEST(open_errno(tree.path("neuron0/nonexistent"), O_RDONLY) == ENOENT);
    BOOST_TEST(open_errno(tree.path("neuron0"), O_WRONLY) == EISDIR);
    BOOST_TEST(open_errno(tree.path("neuron0/newfile"), O_WRONLY | O_CREAT) == EACCES);
    BOOST_TEST(::mkdir(tree.path("neuron0/newdir").c_str(), 0755) == -1);
    BOOST_TEST(errno == EPERM);
    BOOST_TEST(::unlink(tree.path("neuron0/core_count").c_str()) == -1);
    BOOST_TEST(errno == EPERM);
    BOOST_TEST(::rename(tree.path("neuron0/reset").c_str(), tree.path("neuron0/reset2").c_str()) == -1);
    BOOST_TEST(errno == EPERM);
    BOOST_TEST(::symlink("x", tree.path("neuron0/link").c_str()) == -1);
    BOOST_TEST(errno == EPERM);
    BOOST_TEST(tree.read("neuron0/core_count") == "2"); // and it keeps serving
}

BOOST_AUTO_TEST_CASE(chmod_changes_the_mode_as_on_sysfs) {
    mounted_tree tree;
    const auto path = tree.path("neuron0/core_count");
    BOOST_TEST(::chmod(path.c_str(), 0444) == 0);
    struct stat st {};
    BOOST_TEST(::stat(path.c_str(), &st) == 0);
    BOOST_TEST((st.st_mode & 07777) == 0444u);
    BOOST_TEST(as_nobody([&] { return open_errno(path, O_RDONLY); }) == 0);
    BOOST_TEST(::truncate(tree.path(std::string(success_total)).c_str(), 0) == 0);
}

BOOST_AUTO_TEST_SUITE_END()
