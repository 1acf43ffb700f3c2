#include "support/floor_process.h"

#include "support/floor_fs.h"

#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <unistd.h>

namespace neuron::bench {
namespace {

std::string own_executable() {
    char buffer[4096];
    const auto n = ::readlink("/proc/self/exe", buffer, sizeof buffer - 1);
    return std::string(buffer, n > 0 ? static_cast<std::size_t>(n) : 0);
}

} // namespace

floor_process::floor_process(const std::string& directory)
        : m_directory(directory),
          m_process({own_executable(), "floor-fs", directory}, common::current_environment(), directory + ".stderr") {
    const auto line = m_process.read_line(std::chrono::seconds(20));
    const auto err = m_process.err();
    ::unlink((directory + ".stderr").c_str());
    if (!line || *line != "ready") {
        throw std::runtime_error("the floor filesystem did not come up at " + directory + ": " + err);
    }
}

floor_process::~floor_process() {
    try {
        m_process.send_line("quit");
    } catch (const std::exception&) {}
    (void)m_process.wait(std::chrono::seconds(10));
}

void floor_process::change_answered() {
    m_process.send_line("change-answered");
    const auto line = m_process.read_line(std::chrono::seconds(2));
    if (!line || *line != "changed") throw std::runtime_error("the floor filesystem did not answer a change");
}

int floor_fs_main(const char* directory) {
    try {
        floor_fs fs(directory);
        std::printf("ready\n");
        std::fflush(stdout);
        char line[64];
        while (std::fgets(line, sizeof line, stdin) != nullptr) {
            if (std::strncmp(line, "change-answered", 15) == 0) {
                fs.change();
                std::fputs("changed\n", stdout);
                std::fflush(stdout);
            } else if (std::strncmp(line, "change", 6) == 0) {
                fs.change();
            }
            if (std::strncmp(line, "quit", 4) == 0) break;
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "floor-fs: %s\n", e.what());
        return 1;
    }
    return 0;
}

} // namespace neuron::bench
