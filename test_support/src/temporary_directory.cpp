#include "neuron/test_support/temporary_directory.h"

#include <fmt/format.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace neuron::test_support {

temporary_directory::temporary_directory(std::string_view stem) {
    auto pattern = fmt::format("/tmp/{}.XXXXXX", stem);
    if (::mkdtemp(pattern.data()) == nullptr) {
        throw std::runtime_error(fmt::format("mkdtemp {}: {}", pattern, std::strerror(errno)));
    }
    char resolved[PATH_MAX];
    m_path = ::realpath(pattern.c_str(), resolved) != nullptr ? resolved : pattern;
}

temporary_directory::~temporary_directory() {
    std::error_code ignored;
    std::filesystem::remove_all(m_path, ignored);
}

std::string temporary_directory::operator/(std::string_view relative) const {
    return fmt::format("{}/{}", m_path, relative);
}

std::string temporary_directory::write(std::string_view relative, std::string_view bytes) const {
    const std::filesystem::path file = *this / relative;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream out(file, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out.flush()) throw std::runtime_error(fmt::format("cannot write {}", file.string()));
    return file.string();
}

} // namespace neuron::test_support
