#pragma once

// What the neuron-emu command tests share: a private directory where the
// command runs (removed at the end), its outcome, the shipped models, a
// session file decoded, and a refusal checked.

#include "support/process_harness.h"

#include "neuron/profile/session_file.h"

#include <boost/test/unit_test.hpp>

#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <set>
#include <spawn.h>
#include <string>
#include <sys/wait.h>
#include <vector>

extern char** environ;

namespace neuron::cli::testing {

namespace fs = std::filesystem;

// A command run in a scratch_dir: unlike process_harness's run_to_end, its
// working directory is the scratch directory, stdout is kept byte for byte
// (a session file may go there), and a signal that ended it is kept.
struct command_outcome {
    int status; // the exit status; -1 when a signal ended it
    int signal;
    std::string out;
    std::string err;
};

// A private directory, removed at the end: `path` is where the commands run
// and write; their stdout and stderr go beside it.
struct scratch_dir {
    fs::path root, path;
    scratch_dir() {
        std::string pattern = (fs::temp_directory_path() / "neuron-emu-profile.XXXXXX").string();
        BOOST_TEST_REQUIRE(::mkdtemp(pattern.data()) != nullptr);
        root = pattern;
        path = root / "w";
        fs::create_directory(path);
    }
    ~scratch_dir() { fs::remove_all(root); }
    std::string operator/(const std::string& name) const { return (path / name).string(); }
    std::string write(const std::string& name, const std::string& bytes) const {
        std::ofstream(path / name, std::ios::binary) << bytes;
        return (path / name).string();
    }
    // What the commands left in `path`, relative to it.
    std::set<std::string> files() const {
        std::set<std::string> names;
        for (const auto& e : fs::recursive_directory_iterator(path)) names.insert(fs::relative(e.path(), path).string());
        return names;
    }
    std::string listing() const {
        std::string out;
        for (const auto& f : files()) out += f + " ";
        return out;
    }
    // neuron-emu ARGS, run in `path` with stdin from /dev/null.
    command_outcome run(const std::vector<std::string>& args) const {
        const auto out = (root / "stdout").string(), err = (root / "stderr").string();
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        posix_spawn_file_actions_addchdir_np(&actions, path.c_str());
        std::vector<std::string> words{NEURON_EMU_BINARY};
        words.insert(words.end(), args.begin(), args.end());
        std::vector<char*> argv;
        for (auto& w : words) argv.push_back(w.data());
        argv.push_back(nullptr);
        pid_t pid = 0;
        const int spawned = ::posix_spawn(&pid, NEURON_EMU_BINARY, &actions, nullptr, argv.data(), environ);
        posix_spawn_file_actions_destroy(&actions);
        BOOST_TEST_REQUIRE(spawned == 0);
        int raw = 0;
        BOOST_TEST_REQUIRE(::waitpid(pid, &raw, 0) == pid);
        return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, WIFSIGNALED(raw) ? WTERMSIG(raw) : 0, slurp(out), slurp(err)};
    }
};

inline std::string model(const std::string& name) { return std::string(NEURON_MODELS_DIR) + "/" + name + ".yaml"; }

inline std::vector<neuron::profile::core_timeline> decoded(const std::string& path) {
    return neuron::profile::decode_session(slurp(path));
}

// Exit status 2, one line on stderr containing every part, nothing on stdout
// and nothing written.
inline void refused(const scratch_dir& dir, const std::vector<std::string>& args, const std::vector<std::string>& parts) {
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
