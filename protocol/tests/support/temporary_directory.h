#pragma once

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace neuron::protocol::testing {

// A private directory under /tmp for a test's sockets, removed with its contents.
class temporary_directory {
public:
    explicit temporary_directory(const std::string& prefix = "neuron-test") {
        std::string name = "/tmp/" + prefix + ".XXXXXX";
        if (::mkdtemp(name.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
        m_path = name;
    }
    ~temporary_directory() {
        std::error_code ignored;
        std::filesystem::remove_all(m_path, ignored);
    }
    temporary_directory(const temporary_directory&) = delete;
    temporary_directory& operator=(const temporary_directory&) = delete;
    const std::string& path() const { return m_path; }

private:
    std::string m_path;
};

} // namespace neuron::protocol::testing
