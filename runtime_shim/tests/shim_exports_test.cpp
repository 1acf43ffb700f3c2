#define BOOST_TEST_MODULE shim_exports
// Coverage of the runtime's public API: every function the project's headers
// declare is exported from libnrt.so.1 at NRT_2.0.0, every export is
// declared, the eight functions of the 3.0 asynchronous API are also at
// NRT_3.0.0, and every runtime function the reference lists
// (nrt-api-surface.md §1 and §13, without nec.h and nds/) is declared.

#include "neuron/test_support/skip.h"
#include "neuron/test_support/slurp.h"

#include <boost/test/unit_test.hpp>

#include <dlfcn.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace {

using neuron::test_support::slurp;

std::string without_comments(const std::string& text) {
    static const std::regex comments(R"(/\*[\s\S]*?\*/|//[^\n]*)");
    return std::regex_replace(text, comments, " ");
}

// nrt_* and nrta_* names followed by an argument list in the headers.
std::set<std::string> declared_functions() {
    static const std::regex declaration(R"(\b(nrta?_[a-z0-9_]+)\s*\()");
    std::set<std::string> out;
    for (const auto& entry : std::filesystem::directory_iterator(NRT_INCLUDE_DIR "/nrt")) {
        const auto text = without_comments(slurp(entry.path()));
        for (std::sregex_iterator it(text.begin(), text.end(), declaration), end; it != end; ++it) out.insert((*it)[1]);
    }
    return out;
}

// "name@@VERSION" / "name@VERSION" of the library's defined dynamic symbols.
std::set<std::string> exported_symbols() {
    std::set<std::string> out;
    const std::string command = "nm -D --defined-only '" NRT_LIBRARY "'";
    FILE* pipe = ::popen(command.c_str(), "r");
    BOOST_TEST_REQUIRE(pipe != nullptr);
    char line[512];
    while (std::fgets(line, sizeof(line), pipe) != nullptr) {
        std::istringstream fields(line);
        std::string address, type, name;
        if (fields >> address >> type >> name && type == "T") out.insert(name);
    }
    BOOST_TEST_REQUIRE(::pclose(pipe) == 0, command << " failed");
    return out;
}

const std::set<std::string> async_3_0 = {"nrta_tensor_write",     "nrta_tensor_read", "nrta_tensor_copy",
                                         "nrta_execute_schedule", "nrta_cc_prepare",  "nrta_cc_schedule",
                                         "nrta_is_completed",     "nrta_get_sequence"};

} // namespace

BOOST_AUTO_TEST_CASE(every_declared_function_is_exported_at_nrt_2_0_0) {
    const auto declared = declared_functions();
    BOOST_TEST(declared.size() >= 126u, "the headers declare only " << declared.size() << " functions");
    void* library = ::dlopen(NRT_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    BOOST_TEST_REQUIRE(library != nullptr, ::dlerror());
    for (const auto& name : declared) {
        BOOST_TEST(::dlvsym(library, name.c_str(), "NRT_2.0.0") != nullptr, name << " is not exported at NRT_2.0.0");
    }
    for (const auto& name : async_3_0) {
        BOOST_TEST(::dlvsym(library, name.c_str(), "NRT_3.0.0") != nullptr, name << " is not exported at NRT_3.0.0");
        BOOST_TEST(::dlvsym(library, name.c_str(), "NRT_3.0.0") != ::dlvsym(library, name.c_str(), "NRT_2.0.0"),
                   name << ": both versions are the same function");
    }
    ::dlclose(library);
}

// Nothing leaks out undeclared, and NRT_2.0.0 is every name's default version.
BOOST_AUTO_TEST_CASE(every_export_is_declared) {
    const auto declared = declared_functions();
    for (const auto& symbol : exported_symbols()) {
        const auto at = symbol.find('@');
        const auto name = symbol.substr(0, at);
        const auto version = at == std::string::npos ? "" : symbol.substr(at);
        BOOST_TEST(declared.contains(name), symbol << " is exported but no header declares it");
        if (version == "@NRT_3.0.0") {
            BOOST_TEST(async_3_0.contains(name), symbol);
        } else {
            BOOST_TEST(version == "@@NRT_2.0.0", symbol << " has another version than NRT_2.0.0");
        }
    }
}

BOOST_AUTO_TEST_CASE(every_runtime_function_of_the_reference_is_declared) {
    const std::filesystem::path reference = NEURON_SHARED_DIR "/reference/nrt-api-surface.md";
    if (!std::filesystem::exists(reference)) {
        neuron::test_support::skip(reference.string() + " is absent (the shared/ folder is beside the checkout in CI)");
    }
    const auto text = slurp(reference);
    // §1's list of every declared function (one name per line in a code
    // block), and the undeclared exports of §13's table.
    const auto listing_start = text.find("All declared functions, in header order");
    const auto block_start = text.find("```\n", listing_start);
    const auto block_end = text.find("```", block_start + 4);
    BOOST_TEST_REQUIRE(block_end != std::string::npos);
    std::set<std::string> wanted;
    std::istringstream lines(text.substr(block_start + 4, block_end - block_start - 4));
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind("nrt_", 0) == 0 || line.rfind("nrta_", 0) == 0) wanted.insert(line);
    }
    static const std::regex extra(R"(\| `(?:NRT_STATUS )?(nrt_[a-z_]+)\()");
    const auto section13 = text.substr(text.find("## 13."));
    for (std::sregex_iterator it(section13.begin(), section13.end(), extra), end; it != end; ++it)
        wanted.insert((*it)[1]);
    // Removed from the ABI in 2.32 with its signature unpublished; its
    // _string sibling stays.
    wanted.erase("nrt_inspect_config_set_capture_enabled_for_event_type");
    BOOST_TEST(wanted.size() >= 126u + 7u, "read only " << wanted.size() << " names from the reference");
    const auto declared = declared_functions();
    for (const auto& name : wanted)
        BOOST_TEST(declared.contains(name), name << " is not declared in runtime_shim/include");
}
