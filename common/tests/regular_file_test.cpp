#define BOOST_TEST_MODULE regular_file
#include "neuron/common/regular_file.h"
#include "neuron/test_support/temporary_directory.h"

#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

using neuron::common::file_error;
using neuron::common::read_regular_file;
namespace fs = std::filesystem;

namespace {

struct temp_dir {
    neuron::test_support::temporary_directory directory{"neuron-regular-file-test"};
    fs::path path{directory.path()};
};

void write(const fs::path& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// The message read_regular_file refuses `path` with ("" when it reads it).
std::string refusal(const std::string& path, std::size_t max_bytes) {
    try {
        (void)read_regular_file(path, max_bytes);
        return "";
    } catch (const file_error& e) {
        return e.what();
    }
}

} // namespace

BOOST_AUTO_TEST_CASE(a_regular_file_up_to_the_limit_is_read_whole) {
    temp_dir dir;
    write(dir.path / "f", std::string("a\0b", 3));
    BOOST_TEST(read_regular_file((dir.path / "f").string(), 3) == std::string("a\0b", 3));
    write(dir.path / "empty", "");
    BOOST_TEST(read_regular_file((dir.path / "empty").string(), 3).empty());
}

BOOST_AUTO_TEST_CASE(a_larger_file_is_refused) {
    temp_dir dir;
    write(dir.path / "f", "abcd");
    BOOST_TEST(refusal((dir.path / "f").string(), 3) ==
               (dir.path / "f").string() + ": larger than 3 bytes, the most allowed");
}

BOOST_AUTO_TEST_CASE(a_device_that_never_ends_is_refused_without_reading) {
    BOOST_TEST(refusal("/dev/zero", 100) == "/dev/zero: a character device, not a regular file");
}

BOOST_AUTO_TEST_CASE(a_fifo_is_refused_without_blocking) {
    temp_dir dir;
    const auto fifo = dir.path / "fifo";
    BOOST_TEST_REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    // No writer: a blocking open would wait for one forever.
    BOOST_TEST(refusal(fifo.string(), 100) == fifo.string() + ": a FIFO, not a regular file");
}

BOOST_AUTO_TEST_CASE(a_directory_is_refused) {
    temp_dir dir;
    BOOST_TEST(refusal(dir.path.string(), 100) == dir.path.string() + ": a directory, not a regular file");
}

BOOST_AUTO_TEST_CASE(a_missing_file_says_why) {
    temp_dir dir;
    BOOST_TEST(refusal((dir.path / "nothing").string(), 100) ==
               (dir.path / "nothing").string() + ": cannot open it: No such file or directory");
}

BOOST_AUTO_TEST_CASE(the_path_in_a_message_is_escaped) {
    temp_dir dir;
    const auto odd = dir.path / "a\nb\x1b";
    BOOST_TEST(refusal(odd.string(), 1) ==
               dir.path.string() + "/a\\nb\\x1b: cannot open it: No such file or directory");
}

BOOST_AUTO_TEST_CASE(an_input_file_is_read_in_pieces_to_its_end) {
    temp_dir dir;
    write(dir.path / "f", "abcdefg");
    neuron::common::input_file file((dir.path / "f").string(), 7);
    BOOST_TEST(file.size() == 7u);
    std::string piece(3, '\0');
    BOOST_TEST(file.read(piece.data(), 3) == 3u);
    BOOST_TEST(piece == "abc");
    BOOST_TEST(file.read(piece.data(), 3) == 3u);
    BOOST_TEST(piece == "def");
    BOOST_TEST(file.read(piece.data(), 3) == 1u);
    BOOST_TEST(piece[0] == 'g');
    BOOST_TEST(file.read(piece.data(), 3) == 0u);
}

BOOST_AUTO_TEST_CASE(an_input_file_is_refused_as_read_regular_file_refuses_it) {
    temp_dir dir;
    write(dir.path / "f", "abcdefg");
    const auto open = [](const fs::path& path, std::size_t most) {
        try {
            neuron::common::input_file file(path.string(), most);
            return std::string();
        } catch (const file_error& e) {
            return std::string(e.what());
        }
    };
    BOOST_TEST(open(dir.path / "f", 6) == refusal((dir.path / "f").string(), 6));
    BOOST_TEST(open(dir.path, 6) == refusal(dir.path.string(), 6));
    BOOST_TEST(open("/dev/zero", 6) == "/dev/zero: a character device, not a regular file");
}

BOOST_AUTO_TEST_CASE(an_output_file_is_written_in_pieces) {
    temp_dir dir;
    const auto path = (dir.path / "out").string();
    write(path, "an older and longer content");
    neuron::common::output_file file(path);
    file.write("one ");
    file.write("two");
    file.close();
    BOOST_TEST(read_regular_file(path, 100) == "one two");
}

BOOST_AUTO_TEST_CASE(an_output_file_that_cannot_be_created_says_why) {
    temp_dir dir;
    BOOST_CHECK_EXCEPTION(
        neuron::common::output_file((dir.path / "none" / "out").string()), file_error, [](const file_error& e) {
            return std::string(e.what()).find("cannot open 'none' on the way: No such file or directory") !=
                   std::string::npos;
        });
}
