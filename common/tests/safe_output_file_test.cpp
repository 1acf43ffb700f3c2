#define BOOST_TEST_MODULE safe_output_file
#include "neuron/common/safe_output_file.h"
#include "neuron/test_support/slurp.h"
#include "neuron/test_support/temporary_directory.h"

#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

using neuron::common::file_error;
using neuron::test_support::slurp;
namespace common = neuron::common;
namespace fs = std::filesystem;

namespace {

// A private directory holding `victim`, a file that stands for one only root
// may write (/etc/shadow), and `shared`, a directory every user may write (a
// shared output directory, /tmp) where another user plants links.
struct directories {
    neuron::test_support::temporary_directory directory{"neuron-safe-output-test"};
    std::string victim = directory.write("victim", "precious\n");
    std::string shared = directory / "shared";
    std::string own = directory / "own";

    directories() {
        fs::create_directory(shared);
        ::chmod(shared.c_str(), 01777);
        fs::create_directory(own);
    }
};

// The message the call is refused with ("" when it is not).
template <typename Call>
std::string refusal(Call&& call) {
    try {
        call();
        return "";
    } catch (const file_error& e) {
        return e.what();
    }
}

bool root() { return ::geteuid() == 0; }

} // namespace

BOOST_AUTO_TEST_CASE(a_new_file_is_created_with_the_bytes) {
    directories d;
    common::write_output_file(d.own + "/out", "bytes");
    BOOST_TEST(slurp(d.own + "/out") == "bytes");
    common::write_output_file(d.shared + "/out", "shared bytes");
    BOOST_TEST(slurp(d.shared + "/out") == "shared bytes");
}

BOOST_AUTO_TEST_CASE(a_regular_file_of_the_callers_is_overwritten_and_truncated) {
    directories d;
    for (const auto& dir : {d.own, d.shared}) {
        common::write_output_file(dir + "/out", "a longer first text");
        common::write_output_file(dir + "/out", "short");
        BOOST_TEST(slurp(dir + "/out") == "short");
    }
}

BOOST_AUTO_TEST_CASE(a_symbolic_link_where_the_file_goes_is_refused_and_its_target_unchanged) {
    directories d;
    for (const auto& dir : {d.own, d.shared}) {
        fs::create_symlink(d.victim, dir + "/out");
        const auto message = refusal([&] { common::write_output_file(dir + "/out", "overwritten"); });
        BOOST_TEST(message == dir + "/out: a symbolic link: refusing to write through it");
        BOOST_TEST(refusal([&] { common::replace_output_file(dir + "/out", "overwritten"); }) == message);
        BOOST_TEST(refusal([&] { ::close(common::open_output_file(dir + "/out")); }) == message);
        BOOST_TEST(slurp(d.victim) == "precious\n");
        BOOST_TEST(fs::is_symlink(dir + "/out"));
    }
}

BOOST_AUTO_TEST_CASE(a_dangling_symbolic_link_is_refused_and_creates_nothing) {
    directories d;
    fs::create_symlink(d.directory / "created", d.shared + "/out");
    BOOST_TEST(refusal([&] { common::write_output_file(d.shared + "/out", "x"); }) != "");
    BOOST_TEST(!fs::exists(d.directory / "created"));
}

BOOST_AUTO_TEST_CASE(a_link_on_the_way_in_a_directory_others_can_write_is_refused) {
    directories d;
    fs::create_symlink(d.directory.path(), d.shared + "/dir");
    const auto path = d.shared + "/dir/victim";
    BOOST_TEST(refusal([&] { common::write_output_file(path, "overwritten"); }) ==
               path + ": 'dir' on the way is a symbolic link in a directory others can write: refusing to follow it");
    BOOST_TEST(refusal([&] { common::replace_output_file(path, "overwritten"); }) != "");
    BOOST_TEST(refusal([&] { ::close(common::make_output_directories(d.shared + "/dir/made")); }) != "");
    BOOST_TEST(slurp(d.victim) == "precious\n");
    BOOST_TEST(!fs::exists(d.directory / "made"));
}

BOOST_AUTO_TEST_CASE(a_link_on_the_way_in_a_directory_of_the_callers_is_followed) {
    directories d;
    fs::create_symlink("../shared", d.own + "/relative");
    fs::create_symlink(d.shared, d.own + "/absolute");
    common::write_output_file(d.own + "/relative/a", "a");
    common::replace_output_file(d.own + "/absolute/b", "b");
    BOOST_TEST(slurp(d.shared + "/a") == "a");
    BOOST_TEST(slurp(d.shared + "/b") == "b");
}

BOOST_AUTO_TEST_CASE(a_hard_link_in_a_directory_others_can_write_is_not_written) {
    directories d;
    fs::create_hard_link(d.victim, d.shared + "/out");
    BOOST_TEST(refusal([&] { common::write_output_file(d.shared + "/out", "overwritten"); }) ==
               d.shared + "/out: has other names (hard links), in a directory others can write: refusing to write it");
    BOOST_TEST(slurp(d.victim) == "precious\n");
}

BOOST_AUTO_TEST_CASE(another_users_file_in_a_directory_others_can_write_is_not_replaced,
                     *boost::unit_test::precondition([](auto) { return root(); })) {
    directories d;
    const auto path = d.directory.write("shared/out", "theirs\n");
    BOOST_TEST_REQUIRE(::chown(path.c_str(), 12345, 12345) == 0);
    const auto expected = path + ": another user's file, in a directory others can write: refusing to replace it";
    BOOST_TEST(refusal([&] { common::write_output_file(path, "mine"); }) == expected);
    BOOST_TEST(refusal([&] { common::replace_output_file(path, "mine"); }) == expected);
    BOOST_TEST(slurp(path) == "theirs\n");
}

BOOST_AUTO_TEST_CASE(a_fifo_or_a_directory_is_refused_without_blocking) {
    directories d;
    BOOST_TEST_REQUIRE(::mkfifo((d.own + "/fifo").c_str(), 0600) == 0);
    BOOST_TEST(refusal([&] { common::write_output_file(d.own + "/fifo", "x"); }) ==
               d.own + "/fifo: a FIFO, not a regular file");
    BOOST_TEST(refusal([&] { common::replace_output_file(d.own + "/fifo", "x"); }) ==
               d.own + "/fifo: a FIFO, not a regular file");
    BOOST_TEST(refusal([&] { common::write_output_file(d.shared, "x"); }) ==
               d.shared + ": a directory, not a regular file");
    BOOST_TEST(refusal([&] { common::write_output_file(d.own + "/", "x"); }) ==
               d.own + "/: names a directory, not a file");
}

BOOST_AUTO_TEST_CASE(a_character_device_in_a_directory_of_the_callers_is_written) {
    common::write_output_file("/dev/null", "discarded");
}

BOOST_AUTO_TEST_CASE(a_replacement_is_whole_and_leaves_nothing_beside_it) {
    directories d;
    common::write_output_file(d.own + "/out", "old");
    const auto hard = d.directory / "hard";
    fs::create_hard_link(d.own + "/out", hard);
    common::replace_output_file(d.own + "/out", "new");
    BOOST_TEST(slurp(d.own + "/out") == "new");
    BOOST_TEST(slurp(hard) == "old"); // replaced, not written through
    std::size_t entries = 0;
    for (const auto& e : fs::directory_iterator(d.own)) entries += e.exists() ? 1 : 0;
    BOOST_TEST(entries == 1u);
}

BOOST_AUTO_TEST_CASE(a_refused_or_failed_write_says_which_path_on_one_line) {
    directories d;
    const auto path = d.own + "/missing/out\n";
    const auto message = refusal([&] { common::write_output_file(path, "x"); });
    BOOST_TEST(message == d.own + "/missing/out\\n: cannot open 'missing' on the way: No such file or directory");
    BOOST_TEST(refusal([&] { common::write_output_file("", "x"); }) == "an empty path names no file");
}

BOOST_AUTO_TEST_CASE(directories_are_made_as_mkdir_p_does) {
    directories d;
    const auto path = d.own + "/a/b/./c";
    ::close(common::make_output_directories(path));
    BOOST_TEST(fs::is_directory(d.own + "/a/b/c"));
    ::close(common::make_output_directories(path)); // again: they exist
    common::write_output_file(path + "/f", "f");
    BOOST_TEST(slurp(d.own + "/a/b/c/f") == "f");
    d.directory.write("own/file", "");
    BOOST_TEST(refusal([&] { ::close(common::make_output_directories(d.own + "/file/sub")); }) ==
               d.own + "/file/sub: 'file' on the way is not a directory");
}
