#include "neuron/sysfs/materializer.h"

#include "neuron/sysfs/tree_builder.h"

#include <fmt/format.h>

namespace neuron::sysfs {

materializer::materializer(const model::published_state& state, const layout& layout, const std::string& directory)
        : materializer(state, layout, served_tree{build_tree(layout), {}}, directory) {}

materializer::materializer(const model::published_state& state, const layout& layout, served_tree served,
                           const std::string& directory)
        : m_served(std::move(served)), m_generic(layout.instance().device_count),
          m_reader(layout, state, m_generic, &m_served.recorded), m_directory(directory) {
    create_nodes(m_served.tree.resolve(devices_path), "");
    m_written.assign(m_files.size(), "\x01 never written");
    m_failing.assign(m_files.size(), false);
    for (std::size_t i = 0; i < m_files.size(); ++i) rewrite_if_changed(i); // the first failure throws
    m_thread = std::thread([this] { run(); });
}

materializer::~materializer() { stop(); }

void materializer::create_nodes(node_id id, const std::string& relative) {
    for (const auto child : m_served.tree.at(id).children) {
        const auto& n = m_served.tree.at(child);
        const auto child_path = relative.empty() ? n.name : relative + "/" + n.name;
        switch (n.type) {
        case node_type::directory:
            m_directory.make_directory(child_path);
            create_nodes(child, child_path);
            break;
        case node_type::symlink: m_directory.make_symlink(child_path, n.target); break;
        case node_type::attribute: m_files.emplace_back(child, child_path); break;
        }
    }
}

bool materializer::rewrite_if_changed(std::size_t i) {
    const auto& [id, path] = m_files[i];
    auto value = m_reader.read(m_served.tree.at(id).attr);
    if (value.error != 0) value.text.clear(); // a file that fails to read is left empty
    if (value.text == m_written[i]) return false;
    m_directory.write_file(path, value.text, m_served.tree.at(id).mode);
    m_written[i] = std::move(value.text);
    return true;
}

std::size_t materializer::refresh() {
    std::lock_guard lock(m_refresh_mutex);
    std::size_t rewritten = 0;
    for (std::size_t i = 0; i < m_files.size(); ++i) {
        // One file that cannot be written (something planted in its way)
        // does not hold up the others; each failure is told once.
        try {
            if (rewrite_if_changed(i)) ++rewritten;
            m_failing[i] = false;
        } catch (const std::exception& e) {
            if (!m_failing[i])
                fmt::print(stderr, "neuron-emu: refreshing the materialized tree failed: {}\n", e.what());
            m_failing[i] = true;
        }
    }
    return rewritten;
}

void materializer::run() {
    std::unique_lock lock(m_mutex);
    while (!m_wake.wait_for(lock, refresh_period, [this] { return m_stopping; })) {
        lock.unlock();
        refresh();
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
