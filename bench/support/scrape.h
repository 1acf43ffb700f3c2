#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace neuron::bench {

struct scrape_result {
    std::uint64_t files = 0;  // regular files read
    std::uint64_t errors = 0; // files whose open or read failed
    std::uint64_t bytes = 0;
};

// Reads every regular file below `root` once, as a metrics agent does: a
// walk with readdir (symbolic links not followed), then open, read to the
// end, close. `on_file(path, text, error)` sees each read, if given.
scrape_result scrape(const std::string& root,
                     const std::function<void(const std::string&, const std::string&, int)>& on_file = {});

} // namespace neuron::bench
