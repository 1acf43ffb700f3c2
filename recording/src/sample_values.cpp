#include "neuron/recording/tree_recording.h"

#include <fmt/format.h>

#include <limits>
#include <stdexcept>

namespace neuron::recording {

sample_values::sample_values(std::initializer_list<std::string_view> values) {
    for (const auto v : values) push_back(v);
}

sample_values::sample_values(const std::vector<std::string>& values) {
    for (const auto& v : values) push_back(v);
}

void sample_values::push_back(std::string_view value) {
    constexpr std::size_t most = std::numeric_limits<std::uint32_t>::max();
    if (value.size() > most - m_text.size()) {
        throw recording_error(fmt::format("a sample's values take more than {} bytes together", most));
    }
    m_text.append(value);
    m_ends.push_back(static_cast<std::uint32_t>(m_text.size()));
}

std::string_view sample_values::at(std::size_t i) const {
    if (i >= size()) throw std::out_of_range(fmt::format("sample value {} of {}", i, size()));
    return (*this)[i];
}

std::vector<std::string> sample_values::to_vector() const {
    std::vector<std::string> out;
    out.reserve(size());
    for (std::size_t i = 0; i < size(); ++i) out.emplace_back((*this)[i]);
    return out;
}

} // namespace neuron::recording
