#define BOOST_TEST_MODULE confined_directory
// Writes below a materialized tree never follow a link planted there: what
// lies outside the directory is compared, byte for byte and mode for mode,
// before and after.
#include <boost/test/unit_test.hpp>

#include "neuron/sysfs/confined_directory.h"
#include "neuron/sysfs/errors.h"
#include "neuron/test_support/slurp.h"
#include "neuron/test_support/temporary_directory.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

using namespace neuron::sysfs;
using neuron::test_support::slurp;
namespace fs = std::filesystem;

namespace {

class scratch {
public:
    scratch() {
        fs::create_directory(inside());
        fs::create_directory(outside());
        fs::create_directory(outside() / "dir");
        write(outside() / "dir" / "sentinel", "outside\n");
        write(outside() / "victim", "precious\n");
        fs::permissions(outside() / "victim", fs::perms(0640));
    }
    fs::path inside() const { return m_root / "tree"; }
    fs::path outside() const { return m_root / "outside"; }

    static void write(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

private:
    neuron::test_support::temporary_directory m_root{"neuron-confined"};
};

// Everything below `dir`: type, mode, content or link target, inode (not the
// link count: removing a hard link planted in the tree lowers it).
std::map<std::string, std::string> snapshot(const fs::path& dir) {
    std::map<std::string, std::string> out;
    for (const auto& entry : fs::recursive_directory_iterator(dir)) {
        struct stat st {};
        BOOST_TEST_REQUIRE(::lstat(entry.path().c_str(), &st) == 0);
        std::ostringstream line;
        line << std::oct << st.st_mode << std::dec << " ino " << st.st_ino;
        if (S_ISREG(st.st_mode)) line << " '" << slurp(entry.path()) << "'";
        if (S_ISLNK(st.st_mode)) line << " -> " << fs::read_symlink(entry.path()).string();
        out[entry.path().string()] = line.str();
    }
    return out;
}

bool message_has(const mount_error& e, const std::string& part) {
    return std::string(e.what()).find(part) != std::string::npos;
}

} // namespace

BOOST_AUTO_TEST_CASE(links_planted_where_the_tree_writes_are_replaced_not_followed) {
    scratch s;
    const auto in = s.inside();
    fs::create_directory_symlink(s.outside() / "dir", in / "linked-dir"); // where a directory goes
    fs::create_directory(in / "d");
    fs::create_symlink(s.outside() / "victim", in / "d" / "f");                  // where a file goes
    fs::create_symlink(s.outside() / "victim", in / "d" / "g.neuron-emu-tmp");   // at the temporary name
    fs::create_hard_link(s.outside() / "victim", in / "d" / "h.neuron-emu-tmp"); // a hard link there too
    fs::create_symlink(s.outside() / "dir", in / "d" / "l.neuron-emu-tmp");      // and for a link
    const auto before = snapshot(s.outside());

    confined_directory tree(in.string());
    tree.make_directory("linked-dir");
    tree.write_file("linked-dir/core_count", "2", 0444);
    tree.write_file("d/f", "f\n", 0644);
    tree.write_file("d/g", "g\n", 0600);
    tree.write_file("d/h", "h\n", 0444);
    tree.make_symlink("d/l", "../linked-dir");

    BOOST_TEST(snapshot(s.outside()) == before, "something outside the tree changed");
    BOOST_TEST(fs::is_directory(fs::symlink_status(in / "linked-dir")));
    BOOST_TEST(slurp(in / "linked-dir" / "core_count") == "2");
    BOOST_TEST(fs::is_regular_file(fs::symlink_status(in / "d" / "f")));
    BOOST_TEST(slurp(in / "d" / "f") == "f\n");
    BOOST_TEST(slurp(in / "d" / "g") == "g\n");
    BOOST_TEST(slurp(in / "d" / "h") == "h\n");
    BOOST_TEST((fs::status(in / "d" / "h").permissions() == fs::perms(0444)));
    BOOST_TEST(fs::read_symlink(in / "d" / "l") == "../linked-dir");
    for (const auto* temporary : {"f", "g", "h", "l"}) {
        BOOST_TEST(!fs::exists(fs::symlink_status(in / "d" / (std::string(temporary) + ".neuron-emu-tmp"))));
    }
}

BOOST_AUTO_TEST_CASE(a_link_planted_in_place_of_a_written_directory_stops_writes_below_it) {
    scratch s;
    const auto in = s.inside();
    confined_directory tree(in.string());
    tree.make_directory("neuron0");
    tree.write_file("neuron0/core_count", "2", 0444);
    fs::remove_all(in / "neuron0");
    fs::create_directory_symlink(s.outside() / "dir", in / "neuron0");
    const auto before = snapshot(s.outside());

    BOOST_CHECK_EXCEPTION(tree.write_file("neuron0/core_count", "3", 0444), mount_error, [&](const mount_error& e) {
        return message_has(e, (in / "neuron0").string()) && message_has(e, "a symlink is there");
    });
    BOOST_TEST(snapshot(s.outside()) == before, "something outside the tree changed");
}

BOOST_AUTO_TEST_CASE(data_in_the_way_of_the_tree_is_refused_and_kept) {
    scratch s;
    const auto in = s.inside();
    scratch::write(in / "info", "the user's notes\n");
    fs::create_directory(in / "core_count");
    scratch::write(in / "core_count" / "kept", "kept\n");
    confined_directory tree(in.string());

    BOOST_CHECK_EXCEPTION(tree.make_directory("info"), mount_error, [&](const mount_error& e) {
        return message_has(e, (in / "info").string()) && message_has(e, "a regular file is there") &&
               message_has(e, "a directory");
    });
    BOOST_CHECK_EXCEPTION(tree.write_file("info/notify_delay", "0\n", 0644), mount_error, [&](const mount_error& e) {
        return message_has(e, (in / "info").string()) && message_has(e, "a regular file is there");
    });
    BOOST_CHECK_EXCEPTION(tree.write_file("core_count", "2", 0444), mount_error, [&](const mount_error& e) {
        return message_has(e, (in / "core_count").string()) && message_has(e, "a directory is there");
    });
    BOOST_TEST(slurp(in / "info") == "the user's notes\n");
    BOOST_TEST(slurp(in / "core_count" / "kept") == "kept\n");
    BOOST_TEST(!fs::exists(fs::symlink_status(in / "core_count.neuron-emu-tmp")));
}

BOOST_AUTO_TEST_CASE(the_directory_itself_is_created_and_may_be_a_link_its_user_named) {
    scratch s;
    fs::create_directory_symlink(s.outside() / "dir", s.inside() / "named");
    confined_directory tree((s.inside() / "named").string() + "//");
    BOOST_TEST(tree.path() == (s.inside() / "named").string());
    tree.write_file("x", "x\n", 0644);
    BOOST_TEST(slurp(s.outside() / "dir" / "x") == "x\n");

    confined_directory fresh((s.inside() / "fresh").string());
    BOOST_TEST(fs::is_directory(s.inside() / "fresh"));
}
