#include "neuron/profile/session_files.h"

#include "neuron/profile/session_file.h"

#include "neuron/common/printable.h"
#include "neuron/common/regular_file.h"

#include <fmt/format.h>

namespace neuron::profile {

void session_files::each_decoded(const std::function<void(core_timeline&)>& visit) const {
    for (const auto& path : m_paths) {
        common::input_file file(path, max_session_file_bytes);
        try {
            session_reader in(file);
            while (auto t = in.next()) visit(*t);
        } catch (const session_error& e) {
            throw session_error(fmt::format("{}: {}", common::printable(path), e.what()));
        }
    }
}

void session_files::each(const std::function<void(const core_timeline&)>& visit) const {
    each_decoded([&](core_timeline& t) { visit(t); });
}

std::vector<core_timeline> session_files::all() const {
    std::vector<core_timeline> out;
    each_decoded([&](core_timeline& t) { out.push_back(std::move(t)); });
    return out;
}

} // namespace neuron::profile
