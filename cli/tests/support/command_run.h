#pragma once

// What the neuron-emu command tests share: a private directory where the
// command runs (removed at the end), its outcome, the shipped models, a
// session file decoded, and a refusal checked.

#include "support/process_harness.h"

#include "neuron/profile/session_file.h"

#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

namespace neuron::cli::testing {

namespace fs = std::filesystem;

// A command run in a scratch_dir: unlike process_harness's run_to_end, its
// working directory is the scratch directory and stdin is /dev/null.
using command_outcome = test_support::run_result;

// A private directory, removed at the end: `path` is where the commands run
// and write; their stdout and stderr go beside it.
struct scratch_dir {
    test_support::temporary_directory tmp{"neuron-emu-profile"};
    fs::path path = fs::path(tmp.path()) / "w";
    scratch_dir() { fs::create_directory(path); }
    std::string operator/(const std::string& name) const { return (path / name).string(); }
    std::string write(const std::string& name, const std::string& bytes) const { return tmp.write("w/" + name, bytes); }
    // What the commands left in `path`, relative to it.
    std::set<std::string> files() const {
        std::set<std::string> names;
        for (const auto& e : fs::recursive_directory_iterator(path))
            names.insert(fs::relative(e.path(), path).string());
        return names;
    }
    std::string listing() const {
        std::string out;
        for (const auto& f : files()) out += f + " ";
        return out;
    }
    // neuron-emu ARGS, run in `path` with stdin from /dev/null.
    command_outcome run(const std::vector<std::string>& args) const {
        std::vector<std::string> argv{NEURON_EMU_BINARY};
        argv.insert(argv.end(), args.begin(), args.end());
        return test_support::run_to_end({.argv = std::move(argv),
                                         .input = test_support::stream_target::file("/dev/null"),
                                         .working_directory = path.string()},
                                        tmp.path(), run_timeout);
    }
};

inline std::string model(const std::string& name) { return std::string(NEURON_MODELS_DIR) + "/" + name + ".yaml"; }

inline std::vector<neuron::profile::core_timeline> decoded(const std::string& path) {
    return neuron::profile::decode_session(slurp(path));
}

// Exit status 2, one line on stderr containing every part, nothing on stdout
// and nothing written.
inline void refused(const scratch_dir& dir, const std::vector<std::string>& args,
                    const std::vector<std::string>& parts) {
    const auto before = dir.files();
    const auto r = dir.run(args);
    std::string shown;
    for (const auto& a : args) shown += a + " ";
    BOOST_TEST(r.signal == 0, shown << ": killed by signal " << r.signal);
    BOOST_TEST(r.status == 2, shown << ": exit " << r.status << ": " << r.err);
    BOOST_TEST(std::count(r.err.begin(), r.err.end(), '\n') == 1, shown << ": " << r.err);
    BOOST_TEST(r.err.ends_with("\n"), shown << ": " << r.err);
    for (const auto& p : parts) BOOST_TEST(contains(r.err, p), shown << ": no '" << p << "' in: " << r.err);
    BOOST_TEST(r.out.empty(), shown << ": " << r.out);
    BOOST_TEST((dir.files() == before), shown << ": wrote a file");
}

} // namespace neuron::cli::testing
