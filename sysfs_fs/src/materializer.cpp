#include "neuron/sysfs/materializer.h"

#include "neuron/sysfs/errors.h"
#include "neuron/sysfs/tree_builder.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace neuron::sysfs {
namespace {

[[noreturn]] void fail(std::string_view what, const std::string& path) {
    throw mount_error(fmt::format("cannot {} {}: {}", what, path, std::strerror(errno)));
}

void make_directory(const std::string& path) {
    if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) fail("create directory", path);
}

void write_file_atomically(const std::string& path, const std::string& content, std::uint32_t mode) {
    const auto temporary = path + ".neuron-emu-tmp";
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) fail("write", temporary);
    std::size_t done = 0;
    while (done < content.size()) {
        const auto n = ::write(fd, content.data() + done, content.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            ::close(fd);
            fail("write", temporary);
        }
        done += static_cast<std::size_t>(n);
    }
    if (::fchmod(fd, mode) != 0 || ::close(fd) != 0) fail("write", temporary);
    if (::rename(temporary.c_str(), path.c_str()) != 0) fail("replace", path);
}

} // namespace

materializer::materializer(const model::published_state& state, const layout& layout, std::string directory)
    : m_tree(build_tree(layout)), m_generic(layout.instance().device_count),
      m_reader(layout, state, m_generic), m_directory(std::move(directory)) {
    while (m_directory.size() > 1 && m_directory.back() == '/') m_directory.pop_back();
    make_directory(m_directory);
    create_nodes(m_tree.resolve(devices_path), m_directory);
    m_written.resize(m_files.size());
    for (std::size_t i = 0; i < m_files.size(); ++i) m_written[i] = "\x01 never written";
    refresh();
    m_thread = std::thread([this] { run(); });
}

materializer::~materializer() { stop(); }

void materializer::create_nodes(node_id id, const std::string& path) {
    for (const auto child : m_tree.at(id).children) {
        const auto& n = m_tree.at(child);
        const auto child_path = path + "/" + n.name;
        switch (n.type) {
        case node_type::directory:
            make_directory(child_path);
            create_nodes(child, child_path);
            break;
        case node_type::symlink:
            ::unlink(child_path.c_str());
            if (::symlink(n.target.c_str(), child_path.c_str()) != 0) fail("create symlink", child_path);
            break;
        case node_type::attribute: m_files.emplace_back(child, child_path); break;
        }
    }
}

std::size_t materializer::refresh() {
    std::lock_guard lock(m_refresh_mutex);
    std::size_t rewritten = 0;
    for (std::size_t i = 0; i < m_files.size(); ++i) {
        const auto& [id, path] = m_files[i];
        auto value = m_reader.read(m_tree.at(id).attr);
        if (value.error != 0) value.text.clear(); // a file that fails to read is left empty
        if (value.text == m_written[i]) continue;
        write_file_atomically(path, value.text, m_tree.at(id).mode);
        m_written[i] = std::move(value.text);
        ++rewritten;
    }
    return rewritten;
}

void materializer::run() {
    std::unique_lock lock(m_mutex);
    while (!m_wake.wait_for(lock, refresh_period, [this] { return m_stopping; })) {
        lock.unlock();
        try {
            refresh();
        } catch (const std::exception& e) {
            fmt::print(stderr, "neuron-emu: refreshing the materialized tree failed: {}\n", e.what());
        }
        lock.lock();
    }
}

void materializer::stop() {
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_all();
    if (m_thread.joinable()) m_thread.join();
}

} // namespace neuron::sysfs
