#pragma once

// How the NEFF refusal tests judge read_neff: refused with a neff_error
// (and what it says), or read; anything else is a test error. And the
// synthetic matmul NEFF with a member changed.

#include "neff_builder.h"
#include "neuron/neff/neff_file.h"

#include <boost/test/unit_test.hpp>

#include <exception>
#include <string>
#include <vector>

namespace neuron::neff::testing {

// The message read_neff refuses `bytes` with; a test error when it reads
// them, or throws anything but a neff_error.
inline std::string refusal(const std::string& bytes) {
    try {
        (void)read_neff(bytes);
        BOOST_ERROR("read_neff accepted the file");
    } catch (const neff_error& e) {
        return e.what();
    } catch (const std::exception& e) {
        BOOST_ERROR("read_neff threw something else than a neff_error: " << e.what());
    } catch (...) {
        BOOST_ERROR("read_neff threw something else than a std::exception");
    }
    return {};
}

// Refused, with a message holding each of `parts`.
inline void check_refused(const std::string& bytes, const std::vector<std::string>& parts) {
    const auto message = refusal(bytes);
    for (const auto& part : parts) {
        BOOST_TEST(message.find(part) != std::string::npos, "'" << message << "' names '" << part << "'");
    }
}

// The matmul NEFF with one member replaced (or, with no contents, removed).
inline std::string matmul_with(const std::string& name, const std::string* contents) {
    auto b = neff_builder::two_core_matmul();
    if (contents == nullptr) {
        b.members.erase(name);
    } else {
        b.members[name] = *contents;
    }
    return b.bytes();
}
inline std::string matmul_with(const std::string& name, const std::string& contents) {
    return matmul_with(name, &contents);
}
inline std::string matmul_without(const std::string& name) { return matmul_with(name, nullptr); }

// The matmul tar with `extra` added before its end blocks, gzipped and wrapped.
inline std::string matmul_plus(const std::string& extra) {
    auto tar = neff_builder::two_core_matmul().tar();
    tar.resize(tar.size() - 2 * tar_block);
    return wrap(gzip(tar + extra + tar_end()));
}

// Reads or refuses with neff_error; anything else is a test error.
// Returns whether it read.
inline bool reads_or_refuses(const std::string& bytes, const std::string& what) {
    try {
        (void)read_neff(bytes);
        return true;
    } catch (const neff_error&) {
        return false;
    } catch (const std::exception& e) {
        BOOST_ERROR(what << ": read_neff threw something else than a neff_error: " << e.what());
    } catch (...) {
        BOOST_ERROR(what << ": read_neff threw something else than a std::exception");
    }
    return false;
}

} // namespace neuron::neff::testing
