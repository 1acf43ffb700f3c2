#pragma once

#include "neuron/profile/view_output.h"

#include <string>
#include <vector>

namespace neuron::profile {

// The executions of session files, in order, as the views read them: each
// pass reads the files again, one execution at a time, so that a view
// holds one execution (and its bytes) whatever the files hold. A file that cannot be read throws common::file_error; a
// damaged one session_error, "PATH: byte N: what is wrong".
class session_files final : public timeline_source {
public:
    explicit session_files(std::vector<std::string> paths) : m_paths(std::move(paths)) {}

    void each(const std::function<void(const core_timeline&)>& visit) const override;
    // Every execution at once, each moved from the file's decoding (the
    // Perfetto view needs them all).
    std::vector<core_timeline> all() const;

private:
    void each_decoded(const std::function<void(core_timeline&)>& visit) const;

    std::vector<std::string> m_paths;
};

} // namespace neuron::profile
