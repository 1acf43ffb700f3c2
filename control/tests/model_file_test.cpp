#define BOOST_TEST_MODULE model_file
#include "neuron/common/yaml_fields.h"
#include "neuron/control/model_file.h"
#include "neuron/model/spec/device_spec.h"
#include "neuron/model/spec/errors.h"

#include <boost/test/unit_test.hpp>

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>

using namespace neuron;
using namespace neuron::control;
using namespace std::chrono_literals;
using neuron::common::yaml_error;
using neuron::model::mem_location;
using neuron::model::mem_type;
using protocol::output_rule;
using protocol::tensor_usage;

namespace {

// The shipped example model, runtime_shim/models/add.yaml.
std::string shipped_add_model() {
    std::ifstream in(std::string(NEURON_EXAMPLE_MODELS) + "/add.yaml");
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
const std::string add_yaml = shipped_add_model();

// A header and two float32 inputs for the error cases, in block style.
const std::string two_inputs = R"(neuron_emu_model: 1
name: m
inputs:
  - name: a
    dtype: float32
    shape: [2, 3]
  - name: b
    dtype: float32
    shape: [2, 3]
)";

// "model:LINE:COLUMN" of the start of `needle` (its `occurrence`-th match),
// plus `offset` characters, counted on the text itself.
std::string at(std::string_view text, std::string_view needle, std::size_t offset = 0, int occurrence = 1) {
    std::size_t found = std::string_view::npos;
    for (int i = 0; i < occurrence; ++i) {
        found = text.find(needle, found == std::string_view::npos ? 0 : found + 1);
        BOOST_TEST_REQUIRE(found != std::string_view::npos, "'" << needle << "' is not in the test text");
    }
    found += offset;
    std::size_t line = 1;
    std::size_t line_start = 0;
    for (std::size_t i = 0; i < found; ++i) {
        if (text[i] == '\n') {
            ++line;
            line_start = i + 1;
        }
    }
    return fmt::format("model:{}:{}", line, found - line_start + 1);
}

// The file is refused with "where: ..." and a message containing `what`.
void refused(const std::string& text, const std::string& where, const std::string& what) {
    try {
        (void)parse_model_file(text);
        BOOST_ERROR("accepted:\n" << text);
    } catch (const yaml_error& e) {
        const std::string message = e.what();
        BOOST_TEST(message.starts_with(where + ": "), "expected at " << where << ", got: " << message);
        BOOST_TEST(message.find(what) != std::string::npos, "expected '" << what << "' in: " << message);
    }
}

// The file is refused on `line` (any column) with a message containing `what`.
void refused_on_line(const std::string& text, int line, const std::string& what) {
    try {
        (void)parse_model_file(text);
        BOOST_ERROR("accepted:\n" << text);
    } catch (const yaml_error& e) {
        const std::string message = e.what();
        const auto prefix = fmt::format("model:{}:", line);
        BOOST_TEST(message.starts_with(prefix), "expected on line " << line << ", got: " << message);
        BOOST_TEST(message.find(what) != std::string::npos, "expected '" << what << "' in: " << message);
    }
}

const model::device_spec& spec(model::device_kind kind) { return model::spec_of(kind); }

} // namespace

BOOST_AUTO_TEST_CASE(the_example_model_parses) {
    const auto m = parse_model_file(add_yaml);
    BOOST_TEST(m.name == "add");
    BOOST_TEST_REQUIRE(m.tensors.size() == 3u);
    for (std::size_t i = 0; i < 3; ++i) {
        BOOST_TEST(m.tensors[i].dtype == 0xAu); // NRT_DTYPE_FLOAT32
        BOOST_TEST(m.tensors[i].shape == std::vector<std::uint64_t>({2, 3}), boost::test_tools::per_element());
        BOOST_TEST(m.tensors[i].size == 24u);
    }
    BOOST_TEST(m.tensors[0].name == "a");
    BOOST_TEST((m.tensors[0].usage == tensor_usage::input));
    BOOST_TEST((m.tensors[0].rule == output_rule::none));
    BOOST_TEST(m.tensors[1].name == "b");
    BOOST_TEST(m.tensors[2].name == "out");
    BOOST_TEST((m.tensors[2].usage == tensor_usage::output));
    BOOST_TEST((m.tensors[2].rule == output_rule::sum));
    BOOST_TEST(m.tensors[2].sources == std::vector<std::string>({"a", "b"}), boost::test_tools::per_element());

    BOOST_TEST_REQUIRE(m.memory.size() == 5u);
    BOOST_TEST((m.memory[0].where == mem_location::device));
    BOOST_TEST((m.memory[0].type == mem_type::code_device));
    BOOST_TEST(m.memory[0].bytes == 1048576u);
    BOOST_TEST((m.memory[1].type == mem_type::constants_device));
    BOOST_TEST(m.memory[1].bytes == 4194304u);
    BOOST_TEST((m.memory[2].type == mem_type::scratchpad_device));
    BOOST_TEST((m.memory[3].type == mem_type::misc_device));
    BOOST_TEST(m.memory[3].bytes == 65536u);
    BOOST_TEST((m.memory[4].where == mem_location::host));
    BOOST_TEST((m.memory[4].type == mem_type::code_host));
    BOOST_TEST(m.memory[4].bytes == 262144u);

    BOOST_TEST(m.engine_cycles[0] == 140000u);
    BOOST_TEST(m.engine_cycles[1] == 5600u);
    BOOST_TEST(m.engine_cycles[2] == 0u);
    BOOST_TEST(m.engine_cycles[3] == 0u);
    BOOST_TEST(m.engine_cycles[4] == 0u);
    BOOST_TEST(m.macs == 12u);
    BOOST_TEST(m.prints.empty());
    BOOST_TEST(m.faults.empty());
}

BOOST_AUTO_TEST_CASE(every_shipped_example_model_parses) {
    int count = 0;
    for (const auto& entry : std::filesystem::directory_iterator(NEURON_EXAMPLE_MODELS)) {
        if (entry.path().extension() != ".yaml") continue;
        BOOST_TEST_CONTEXT(entry.path()) {
            std::ifstream file(entry.path());
            const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
            BOOST_TEST(looks_like_model_file(text));
            BOOST_CHECK_NO_THROW(model::execution_duration(parse_model_file(text, entry.path().filename().string()),
                                                           spec(model::device_kind::trainium2)));
        }
        ++count;
    }
    BOOST_TEST(count >= 1);
}

BOOST_AUTO_TEST_CASE(sizes_are_the_product_of_the_shape_times_the_element_size) {
    const auto m = parse_model_file(R"(neuron_emu_model: 1
name: sizes
inputs:
  - {name: i8, dtype: int8, shape: [3, 5, 7]}
  - {name: bf, dtype: bfloat16, shape: [4, 4]}
  - {name: u64, dtype: uint64, shape: [1, 1, 1, 1, 1, 1, 1, 9]}
  - {name: f8, dtype: float8e5m2, shape: [1000]}
outputs:
  - {name: i32, dtype: int32, shape: [6], fill: -3}
  - {name: big, dtype: float32, shape: [1024, 1024, 1024]}
)");
    BOOST_TEST_REQUIRE(m.tensors.size() == 6u);
    BOOST_TEST(m.tensors[0].dtype == 0x2u);
    BOOST_TEST(m.tensors[0].size == 105u);
    BOOST_TEST(m.tensors[1].dtype == 0x6u);
    BOOST_TEST(m.tensors[1].size == 32u);
    BOOST_TEST(m.tensors[2].dtype == 0x1u);
    BOOST_TEST(m.tensors[2].size == 72u);
    BOOST_TEST(m.tensors[3].dtype == 0xFu);
    BOOST_TEST(m.tensors[3].size == 1000u);
    BOOST_TEST((m.tensors[4].rule == output_rule::fill));
    BOOST_TEST(m.tensors[4].fill_value == -3.0);
    BOOST_TEST(m.tensors[4].size == 24u);
    BOOST_TEST((m.tensors[5].rule == output_rule::none));
    BOOST_TEST(m.tensors[5].size == 4ull << 30);
}

BOOST_AUTO_TEST_CASE(copy_and_fill_rules_parse) {
    const auto m = parse_model_file(two_inputs + R"(outputs:
  - {name: c, dtype: float32, shape: [3, 2], copy: b}
  - {name: f, dtype: float32, shape: [1], fill: 1.5}
)");
    BOOST_TEST_REQUIRE(m.tensors.size() == 4u);
    BOOST_TEST((m.tensors[2].rule == output_rule::copy));
    BOOST_TEST(m.tensors[2].sources == std::vector<std::string>({"b"}), boost::test_tools::per_element());
    BOOST_TEST((m.tensors[3].rule == output_rule::fill));
    BOOST_TEST(m.tensors[3].fill_value == 1.5);
    BOOST_TEST(m.tensors[3].sources.empty());
}

BOOST_AUTO_TEST_CASE(every_memory_category_maps_to_its_mem_type) {
    const auto m = parse_model_file(R"(neuron_emu_model: 1
name: memory
memory:
  model_code: 4096
  tensors: 8192
  constants: 12288
  model_shared_scratchpad: 16384
  runtime_memory: 20480
  driver_memory: 24576
  collectives: 28672
  nonshared_scratchpad: 32768
  notifications: 36864
  dma_rings: 40960
  uncategorized: 45056
  host:
    dma_buffers: 1
    tensors: 2
    constants: 3
    application_memory: 4
    driver_memory: 5
    notifications: 6
    dma_rings: 7
    uncategorized: 8
)");
    const std::vector<mem_type> device{mem_type::code_device,         mem_type::tensors_device,
                                       mem_type::constants_device,    mem_type::scratchpad_device,
                                       mem_type::misc_device,         mem_type::ncdev_device,
                                       mem_type::collectives_device,  mem_type::scratchpad_nonshared_device,
                                       mem_type::notification_device, mem_type::dma_rings_device,
                                       mem_type::unknown_device};
    const std::vector<mem_type> host{mem_type::code_host,      mem_type::tensors_host, mem_type::constants_host,
                                     mem_type::misc_host,      mem_type::ncdev_host,   mem_type::notification_host,
                                     mem_type::dma_rings_host, mem_type::unknown_host};
    BOOST_TEST_REQUIRE(m.memory.size() == device.size() + host.size());
    for (std::size_t i = 0; i < device.size(); ++i) {
        BOOST_TEST_CONTEXT("device category " << i) {
            BOOST_TEST((m.memory[i].where == mem_location::device));
            BOOST_TEST(static_cast<std::uint32_t>(m.memory[i].type) == static_cast<std::uint32_t>(device[i]));
            BOOST_TEST(m.memory[i].bytes == 4096u * (i + 1));
        }
    }
    for (std::size_t i = 0; i < host.size(); ++i) {
        const auto& entry = m.memory[device.size() + i];
        BOOST_TEST_CONTEXT("host category " << i) {
            BOOST_TEST((entry.where == mem_location::host));
            BOOST_TEST(static_cast<std::uint32_t>(entry.type) == static_cast<std::uint32_t>(host[i]));
            BOOST_TEST(entry.bytes == i + 1);
        }
    }
}

BOOST_AUTO_TEST_CASE(zero_byte_memory_entries_hold_nothing) {
    const auto m =
        parse_model_file("neuron_emu_model: 1\nname: z\nmemory:\n  model_code: 0\n  host:\n    tensors: 0\n");
    BOOST_TEST(m.memory.empty());
}

BOOST_AUTO_TEST_CASE(work_on_every_engine_parses) {
    const auto m = parse_model_file(
        "neuron_emu_model: 1\nname: w\nwork: {tensor: 1, vector: 2, scalar: 3, gpsimd: 4, sync: 5, macs: 6}\n");
    for (std::size_t e = 0; e < model::engine_count; ++e) BOOST_TEST(m.engine_cycles[e] == e + 1);
    BOOST_TEST(m.macs == 6u);
}

BOOST_AUTO_TEST_CASE(prints_parse_with_their_defaults) {
    const auto m = parse_model_file(R"(neuron_emu_model: 1
name: p
prints:
  - prefix: first
  - prefix: second
    dtype: bfloat16
    shape: [2, 4]
    pipe: 1
    fill: execution
  - {prefix: third, dtype: int32, fill: -7}
  - {prefix: fourth, fill: iota, dtype: float8e4m3fn_x4}
)");
    BOOST_TEST_REQUIRE(m.prints.size() == 4u);
    BOOST_TEST(m.prints[0].prefix == "first");
    BOOST_TEST(m.prints[0].dtype == "float32");
    BOOST_TEST(m.prints[0].shape == std::vector<std::uint64_t>({1}), boost::test_tools::per_element());
    BOOST_TEST(m.prints[0].pipe == 0u);
    BOOST_TEST((m.prints[0].fill == print_fill::iota));
    BOOST_TEST(m.prints[1].dtype == "bfloat16");
    BOOST_TEST(m.prints[1].shape == std::vector<std::uint64_t>({2, 4}), boost::test_tools::per_element());
    BOOST_TEST(m.prints[1].pipe == 1u);
    BOOST_TEST((m.prints[1].fill == print_fill::execution));
    BOOST_TEST((m.prints[2].fill == print_fill::value));
    BOOST_TEST(m.prints[2].value == -7.0);
    BOOST_TEST((m.prints[3].fill == print_fill::iota));
    BOOST_TEST(m.prints[3].dtype == "float8e4m3fn_x4");
}

BOOST_AUTO_TEST_CASE(faults_parse_by_name_and_by_number) {
    const auto m = parse_model_file(R"(neuron_emu_model: 1
name: f
faults:
  - status: NRT_EXEC_OOB
    on_execution: 2
  - status: 1201
    after_executions: 0
  - status: NRT_TIMEOUT
    probability: 0.1
    seed: 7
    once: true
  - {status: 4, probability: 1, seed: 0, once: false}
)");
    BOOST_TEST_REQUIRE(m.faults.size() == 4u);
    BOOST_TEST(m.faults[0].status == 1006u);
    BOOST_TEST((m.faults[0].kind == trigger_kind::on_execution));
    BOOST_TEST(m.faults[0].n == 2u);
    BOOST_TEST(m.faults[0].once == false);
    BOOST_TEST(m.faults[1].status == 1201u);
    BOOST_TEST((m.faults[1].kind == trigger_kind::after_executions));
    BOOST_TEST(m.faults[1].n == 0u);
    BOOST_TEST(m.faults[2].status == 5u);
    BOOST_TEST((m.faults[2].kind == trigger_kind::probability));
    BOOST_TEST(m.faults[2].probability == 0.1);
    BOOST_TEST(m.faults[2].seed == 7u);
    BOOST_TEST(m.faults[2].once == true);
    BOOST_TEST(m.faults[3].status == 4u);
    BOOST_TEST(m.faults[3].probability == 1.0);
}

BOOST_AUTO_TEST_CASE(an_unknown_top_level_key_suggests_the_closest) {
    const std::string text = "neuron_emu_model: 1\nnmae: add\n";
    refused(text, at(text, "nmae"), "unknown key 'nmae' in the model file; did you mean 'name'?");
    const std::string unrelated = "neuron_emu_model: 1\nname: add\nfrobnicate: 1\n";
    refused(unrelated, at(unrelated, "frobnicate"), "unknown key 'frobnicate'");
}

BOOST_AUTO_TEST_CASE(the_marker_key_is_required) {
    const std::string text = "name: add\ninputs: []\n";
    refused(text, "model:1:1", "needs 'neuron_emu_model'");
}

BOOST_AUTO_TEST_CASE(only_format_version_1_is_accepted) {
    const std::string text = "neuron_emu_model: 2\nname: add\n";
    refused(text, at(text, "2"), "neuron_emu_model must be 1");
    const std::string fraction = "neuron_emu_model: 1.0\nname: add\n";
    refused(fraction, at(fraction, "1.0"), "neuron_emu_model");
}

BOOST_AUTO_TEST_CASE(the_source_name_is_the_prefix) {
    try {
        (void)parse_model_file("neuron_emu_model: 3\nname: x\n", "models/x.yaml");
        BOOST_ERROR("accepted");
    } catch (const yaml_error& e) {
        BOOST_TEST(std::string(e.what()).starts_with("models/x.yaml:1:19: "), e.what());
    }
}

BOOST_AUTO_TEST_CASE(an_unknown_dtype_is_refused_with_the_valid_ones) {
    const std::string text = "neuron_emu_model: 1\nname: m\ninputs:\n  - {name: a, dtype: float33, shape: [1]}\n";
    refused(text, at(text, "float33"), "unknown dtype 'float33'");
    refused(text, at(text, "float33"), "float32, float32r");
}

BOOST_AUTO_TEST_CASE(a_shape_needs_1_to_8_dimensions) {
    const std::string empty = "neuron_emu_model: 1\nname: m\ninputs:\n  - name: a\n    dtype: int8\n    shape: []\n";
    refused(empty, at(empty, "[]"), "a shape needs 1 to 8 dimensions");
    const std::string nine =
        "neuron_emu_model: 1\nname: m\ninputs:\n  - name: a\n    dtype: int8\n    shape: [1, 1, 1, 1, 1, 1, 1, 1, 1]\n";
    refused(nine, at(nine, "[1, 1"), "a shape needs 1 to 8 dimensions");
    const std::string scalar = "neuron_emu_model: 1\nname: m\ninputs:\n  - name: a\n    dtype: int8\n    shape: 4\n";
    refused(scalar, at(scalar, "4\n"), "a shape must be a list");
}

BOOST_AUTO_TEST_CASE(a_zero_dimension_is_refused) {
    const std::string text = "neuron_emu_model: 1\nname: m\ninputs:\n  - {name: a, dtype: int8, shape: [2, 0, 3]}\n";
    refused(text, at(text, "0, 3"), "a dimension must be at least 1");
}

BOOST_AUTO_TEST_CASE(bad_dimensions_are_refused) {
    const std::string negative = "neuron_emu_model: 1\nname: m\ninputs:\n  - {name: a, dtype: int8, shape: [-2]}\n";
    refused(negative, at(negative, "-2"), "a dimension must be a whole number of 0 or more, not '-2'");
    const std::string word = "neuron_emu_model: 1\nname: m\ninputs:\n  - {name: a, dtype: int8, shape: [two]}\n";
    refused(word, at(word, "two"), "not 'two'");
    const std::string huge =
        "neuron_emu_model: 1\nname: m\ninputs:\n  - {name: a, dtype: int64, shape: [65536, 65536, 2]}\n";
    refused(huge, at(huge, "[65536"), "larger than 4 GiB");
}

BOOST_AUTO_TEST_CASE(a_tensor_name_declared_twice_is_refused) {
    const std::string text = two_inputs + "  - name: a\n    dtype: int8\n    shape: [1]\n";
    refused(text, at(text, "a\n", 0, 2), "tensor 'a' is declared twice");
    const std::string output = two_inputs + "outputs:\n  - {name: b, dtype: float32, shape: [1]}\n";
    refused(output, at(output, "b, dtype"), "tensor 'b' is declared twice");
}

BOOST_AUTO_TEST_CASE(sum_over_a_non_arithmetic_dtype_is_refused) {
    const std::string text = R"(neuron_emu_model: 1
name: m
inputs:
  - {name: a, dtype: bfloat16, shape: [4]}
outputs:
  - {name: out, dtype: bfloat16, shape: [4], sum: [a]}
)";
    refused(text, at(text, "[a]"), "sum cannot compute with bfloat16");
    const std::string fill =
        "neuron_emu_model: 1\nname: m\noutputs:\n  - {name: o, dtype: float16, shape: [4], fill: 1}\n";
    refused(fill, at(fill, "1}"), "fill cannot compute with float16");
}

BOOST_AUTO_TEST_CASE(copy_from_a_missing_input_is_refused) {
    const std::string text = two_inputs + "outputs:\n  - {name: out, dtype: float32, shape: [2, 3], copy: zz}\n";
    refused(text, at(text, "zz"), "no input named 'zz'");
    const std::string from_output = two_inputs + "outputs:\n  - {name: o1, dtype: float32, shape: [2, 3]}\n"
                                                 "  - {name: o2, dtype: float32, shape: [2, 3], copy: o1}\n";
    refused(from_output, at(from_output, "o1}"), "no input named 'o1'");
    const std::string sum = two_inputs + "outputs:\n  - {name: out, dtype: float32, shape: [2, 3], sum: [a, c]}\n";
    refused(sum, at(sum, "c]"), "no input named 'c'");
}

BOOST_AUTO_TEST_CASE(copy_from_an_input_of_another_size_or_dtype_is_refused) {
    const std::string size = two_inputs + "outputs:\n  - {name: out, dtype: float32, shape: [3, 3], copy: a}\n";
    refused(size, at(size, "copy: a", 6), "input 'a' differs from output 'out' in dtype or size");
    const std::string dtype = two_inputs + "outputs:\n  - {name: out, dtype: int32, shape: [2, 3], copy: b}\n";
    refused(dtype, at(dtype, "copy: b", 6), "input 'b' differs from output 'out'");
    const std::string sum = two_inputs + "outputs:\n  - {name: out, dtype: float32, shape: [7], sum: [a, b]}\n";
    refused(sum, at(sum, "[a, b]", 1), "input 'a' differs from output 'out'");
}

BOOST_AUTO_TEST_CASE(two_rules_on_one_output_are_refused) {
    const std::string text = two_inputs + R"(outputs:
  - name: out
    dtype: float32
    shape: [2, 3]
    sum: [a, b]
    copy: a
)";
    refused(text, at(text, "name: out"), "an output takes at most one of sum, copy and fill");
}

BOOST_AUTO_TEST_CASE(rules_on_inputs_are_unknown_keys) {
    const std::string text = "neuron_emu_model: 1\nname: m\ninputs:\n  - {name: a, dtype: int8, shape: [1], fill: 1}\n";
    refused(text, at(text, "fill"), "unknown key 'fill' in an input");
}

BOOST_AUTO_TEST_CASE(an_unknown_memory_category_is_refused) {
    const std::string device = "neuron_emu_model: 1\nname: m\nmemory:\n  model_code: 10\n  tensorz: 10\n";
    refused(device, at(device, "tensorz"), "unknown key 'tensorz' in memory; did you mean 'tensors'?");
    const std::string host = "neuron_emu_model: 1\nname: m\nmemory:\n  host:\n    dma_buffers: 1\n    dma_bufers: 10\n";
    refused(host, at(host, "dma_bufers"), "unknown key 'dma_bufers' in memory.host; did you mean 'dma_buffers'?");
    // A device category is not a host one.
    const std::string wrong_side = "neuron_emu_model: 1\nname: m\nmemory:\n  host:\n    model_code: 10\n";
    refused(wrong_side, at(wrong_side, "model_code"), "unknown key 'model_code' in memory.host");
}

BOOST_AUTO_TEST_CASE(negative_and_non_numeric_numbers_are_refused) {
    const std::string memory = "neuron_emu_model: 1\nname: m\nmemory:\n  model_code: -5\n";
    refused(memory, at(memory, "-5"), "memory 'model_code' must be a whole number of 0 or more, not '-5'");
    const std::string work = "neuron_emu_model: 1\nname: m\nwork:\n  vector: 10\n  tensor: lots\n";
    refused(work, at(work, "lots"), "tensor cycles must be a whole number of 0 or more, not 'lots'");
    const std::string macs = "neuron_emu_model: 1\nname: m\nwork: {macs: 1.5}\n";
    refused(macs, at(macs, "1.5"), "macs must be a whole number");
    const std::string fill =
        "neuron_emu_model: 1\nname: m\noutputs:\n  - {name: o, dtype: float32, shape: [1], fill: abc}\n";
    refused(fill, at(fill, "abc"), "fill must be a number, not 'abc'");
    const std::string nan =
        "neuron_emu_model: 1\nname: m\noutputs:\n  - {name: o, dtype: float32, shape: [1], fill: nan}\n";
    refused(nan, at(nan, "nan}"), "fill must be a number");
    const std::string version = "neuron_emu_model: -1\nname: m\n";
    refused(version, at(version, "-1"), "must be a whole number");
}

BOOST_AUTO_TEST_CASE(a_fault_needs_exactly_one_kind) {
    const std::string two = R"(neuron_emu_model: 1
name: m
faults:
  - status: NRT_TIMEOUT
    on_execution: 1
    after_executions: 2
)";
    refused(two, at(two, "status"), "a fault needs exactly one of on_execution, after_executions and probability");
    const std::string none = "neuron_emu_model: 1\nname: m\nfaults:\n  - {status: NRT_TIMEOUT}\n";
    refused(none, at(none, "{status"), "a fault needs exactly one of");
    const std::string zero = "neuron_emu_model: 1\nname: m\nfaults:\n  - {status: 5, on_execution: 0}\n";
    refused(zero, at(zero, "0}"), "on_execution counts from 1");
}

BOOST_AUTO_TEST_CASE(a_probability_needs_a_seed_and_at_most_1) {
    const std::string unseeded = "neuron_emu_model: 1\nname: m\nfaults:\n  - status: 5\n    probability: 0.5\n";
    refused(unseeded, at(unseeded, "status"), "a fault with a probability needs a seed");
    const std::string above = "neuron_emu_model: 1\nname: m\nfaults:\n  - {status: 5, probability: 1.5, seed: 1}\n";
    refused(above, at(above, "1.5"), "probability must be between 0 and 1");
    const std::string below = "neuron_emu_model: 1\nname: m\nfaults:\n  - {status: 5, probability: -0.1, seed: 1}\n";
    refused(below, at(below, "-0.1"), "probability must be between 0 and 1");
}

BOOST_AUTO_TEST_CASE(a_fault_cannot_return_success) {
    const std::string named = "neuron_emu_model: 1\nname: m\nfaults:\n  - {status: NRT_SUCCESS, on_execution: 1}\n";
    refused(named, at(named, "NRT_SUCCESS"), "a fault's status cannot be NRT_SUCCESS");
    const std::string number = "neuron_emu_model: 1\nname: m\nfaults:\n  - {status: 0, on_execution: 1}\n";
    refused(number, at(number, "0,"), "cannot be NRT_SUCCESS");
}

BOOST_AUTO_TEST_CASE(an_unknown_status_name_is_refused) {
    const std::string text = "neuron_emu_model: 1\nname: m\nfaults:\n  - {status: NRT_BOGUS, on_execution: 1}\n";
    refused(text, at(text, "NRT_BOGUS"), "'NRT_BOGUS'");
    refused(text, at(text, "NRT_BOGUS"), "status (an NRT_STATUS name or number)");
}

BOOST_AUTO_TEST_CASE(bad_prints_are_refused) {
    const std::string dtype = "neuron_emu_model: 1\nname: m\nprints:\n  - {prefix: p, dtype: float64}\n";
    refused(dtype, at(dtype, "float64"), "'float64' is not a debug-stream dtype");
    const std::string prefix =
        fmt::format("neuron_emu_model: 1\nname: m\nprints:\n  - prefix: {}\n", std::string(512, 'x'));
    refused(prefix, at(prefix, "xxx"), "a prefix has at most 511 characters");
    const std::string pipe = "neuron_emu_model: 1\nname: m\nprints:\n  - {prefix: p, pipe: 2}\n";
    refused(pipe, at(pipe, "2}"), "pipe must be at most 1");
    const std::string big = "neuron_emu_model: 1\nname: m\nprints:\n  - {prefix: p, shape: [1024, 257]}\n";
    refused(big, at(big, "{prefix"), "a printed tensor has at most 1 MiB");
}

BOOST_AUTO_TEST_CASE(yaml_syntax_errors_report_line_and_column) {
    const std::string unclosed = "neuron_emu_model: 1\nname: m\ninputs: [\n  {name: a\n";
    try {
        (void)parse_model_file(unclosed);
        BOOST_ERROR("accepted");
    } catch (const yaml_error& e) {
        const std::string message = e.what();
        BOOST_TEST(message.starts_with("model:"), message);
        // model:LINE:COLUMN: with a line inside the document
        const auto first = message.find(':');
        const auto second = message.find(':', first + 1);
        const auto third = message.find(':', second + 1);
        BOOST_TEST_REQUIRE(third != std::string::npos, message);
        const int line = std::stoi(message.substr(first + 1, second - first - 1));
        const int column = std::stoi(message.substr(second + 1, third - second - 1));
        BOOST_TEST(line >= 3, message);
        BOOST_TEST(line <= 5, message);
        BOOST_TEST(column >= 1, message);
    }
    const std::string indent = "neuron_emu_model: 1\nname: m\n  bad: indent\n";
    try {
        (void)parse_model_file(indent);
        BOOST_ERROR("accepted");
    } catch (const yaml_error& e) {
        const std::string message = e.what();
        BOOST_TEST((message.starts_with("model:2:") || message.starts_with("model:3:")), message);
    }
}

BOOST_AUTO_TEST_CASE(a_model_file_that_is_not_a_map_is_refused) {
    refused("- neuron_emu_model: 1\n", "model:1:1", "the model file must be a map");
}

BOOST_AUTO_TEST_CASE(an_empty_file_is_refused_with_a_position) {
    // MODEL_FILE.md: a malformed file is refused with "model:LINE:COLUMN: what is wrong".
    refused("", "model:1:1", "the model file must be a map");
    refused("# only a comment\n", "model:1:1", "the model file must be a map");
}

BOOST_AUTO_TEST_CASE(an_empty_value_is_reported_on_its_own_line) {
    refused_on_line("neuron_emu_model: 1\nname:\n", 2, "name must be text, not nothing");
    refused_on_line("neuron_emu_model: 1\nname: m\ninputs:\n", 3, "inputs must be a list, not nothing");
}

BOOST_AUTO_TEST_CASE(a_key_given_twice_is_refused) {
    // YAML requires unique keys; taking one of the two silently is not strict.
    const std::string top = "neuron_emu_model: 1\nname: a\nname: b\n";
    refused(top, at(top, "name: b"), "name");
    const std::string tensor =
        "neuron_emu_model: 1\nname: m\ninputs:\n  - {name: a, dtype: int8, shape: [1], dtype: float32}\n";
    refused(tensor, at(tensor, "dtype: float32"), "dtype");
}

BOOST_AUTO_TEST_CASE(the_engines_run_in_parallel) {
    const auto add = parse_model_file(add_yaml);
    // Trainium: tensor 140000 / 2.8 GHz = 50 us; vector 5600 / 1.12 GHz = 5 us.
    BOOST_TEST(model::execution_duration(add, spec(model::device_kind::trainium)).count() == 50'000);
    // Trainium2: tensor at 2.4 GHz = 58333.3 ns, rounded up.
    BOOST_TEST(model::execution_duration(add, spec(model::device_kind::trainium2)).count() == 58'334);
    const auto vector_bound = parse_model_file(
        "neuron_emu_model: 1\nname: v\nwork: {tensor: 28000, vector: 112000, scalar: 14000, sync: 1400}\n");
    BOOST_TEST(model::execution_duration(vector_bound, spec(model::device_kind::trainium)).count() == 100'000);
    const auto idle = parse_model_file("neuron_emu_model: 1\nname: idle\n");
    BOOST_TEST(model::execution_duration(idle, spec(model::device_kind::trainium)).count() == 0);
}

BOOST_AUTO_TEST_CASE(an_engine_the_device_lacks_is_unsupported) {
    const auto m = parse_model_file("neuron_emu_model: 1\nname: pool\nwork: {tensor: 1000, gpsimd: 10}\n");
    BOOST_CHECK_EXCEPTION(model::execution_duration(m, spec(model::device_kind::inferentia)), model::unsupported_error,
                          [](const model::unsupported_error& e) {
                              const std::string message = e.what();
                              BOOST_TEST_INFO(message);
                              return message.find("gpsimd") != std::string::npos &&
                                     message.find("pool") != std::string::npos;
                          });
    BOOST_TEST(model::execution_duration(m, spec(model::device_kind::inferentia2)).count() == 358); // 1000 / 2.8 GHz
    const auto without = parse_model_file("neuron_emu_model: 1\nname: t\nwork: {tensor: 1000, gpsimd: 0}\n");
    BOOST_TEST(model::execution_duration(without, spec(model::device_kind::inferentia)).count() == 1000);
}

BOOST_AUTO_TEST_CASE(model_files_are_recognised_by_their_marker) {
    BOOST_TEST(looks_like_model_file(add_yaml));
    BOOST_TEST(looks_like_model_file("{neuron_emu_model: 1, name: x}"));
    BOOST_TEST(looks_like_model_file("neuron_emu_model: 2\n")); // the marker, even with a bad version
    std::string junk;
    for (int i = 0; i < 4096; ++i) junk.push_back(static_cast<char>((i * 131 + 7) % 256));
    BOOST_TEST(!looks_like_model_file(junk));
    const std::string neff_like("NEFF\0\0\0\x01\x1f\x8b\x08\0\xff\xfe", 14);
    BOOST_TEST(!looks_like_model_file(neff_like));
    BOOST_TEST(!looks_like_model_file("name: add\ninputs: []\n"));
    BOOST_TEST(!looks_like_model_file("- neuron_emu_model\n"));
    BOOST_TEST(!looks_like_model_file("neuron_emu_model"));
    BOOST_TEST(!looks_like_model_file(""));
    BOOST_TEST(!looks_like_model_file("{unclosed: [\n"));
}

BOOST_AUTO_TEST_CASE(a_self_referencing_alias_is_refused_not_followed) {
    // 40 bytes that recursed without end in the duplicate-key check.
    const std::string text = "neuron_emu_model: 1\nname: x\ninputs: &x [*x]";
    refused(text, at(text, "*x"), "alias *x is inside the node it names");
    BOOST_TEST(looks_like_model_file(text)); // recognised (then refused by the parser), at once
}

BOOST_AUTO_TEST_CASE(an_alias_bomb_is_refused_before_any_walk) {
    std::string text = "neuron_emu_model: 1\nname: x\nl0: &l0 [a, a, a, a, a, a, a, a, a, a]\n";
    for (int i = 1; i < 9; ++i) {
        text += fmt::format("l{}: &l{} [", i, i);
        for (int j = 0; j < 10; ++j) text += fmt::format("{}*l{}", j == 0 ? "" : ", ", i - 1);
        text += "]\n";
    }
    refused_on_line(text, 8, "more than 1000000 nodes"); // l5 holds 1111111 nodes
    BOOST_TEST(looks_like_model_file(text));
}

BOOST_AUTO_TEST_CASE(a_second_document_is_refused) {
    const std::string text = "neuron_emu_model: 1\nname: a\n---\nneuron_emu_model: 1\nname: b\n";
    refused(text, at(text, "---"), "a second document is not allowed");
}

BOOST_AUTO_TEST_CASE(a_model_needs_a_name) {
    const std::string empty = "neuron_emu_model: 1\nname: ''\n";
    refused(empty, at(empty, "''"), "a model's name needs 1 to 255 characters");
    const std::string longer = fmt::format("neuron_emu_model: 1\nname: {}\n", std::string(256, 'n'));
    refused(longer, at(longer, "nnn"), "a model's name needs 1 to 255 characters");
    BOOST_TEST(parse_model_file(fmt::format("neuron_emu_model: 1\nname: {}\n", std::string(255, 'n'))).name.size() ==
               255u);
}

BOOST_AUTO_TEST_CASE(a_dimension_of_2_to_the_32_or_more_is_refused) {
    // nrt_tensor_info_t's shape holds 32-bit dimensions.
    const std::string text =
        "neuron_emu_model: 1\nname: m\ninputs:\n  - {name: a, dtype: int8, shape: [4294967296, 1]}\n";
    refused(text, at(text, "4294967296"), "a dimension must be at most 4294967295");
    const std::string print = "neuron_emu_model: 1\nname: m\nprints:\n  - {prefix: p, shape: [1, 8589934593]}\n";
    refused(print, at(print, "8589934593"), "a dimension must be at most 4294967295");
}

namespace {

std::string with_fill(std::string_view dtype, std::string_view fill) {
    return fmt::format("neuron_emu_model: 1\nname: m\noutputs:\n  - {{name: o, dtype: {}, shape: [2], fill: {}}}\n",
                       dtype, fill);
}

std::string with_print_fill(std::string_view dtype, std::string_view fill) {
    return fmt::format("neuron_emu_model: 1\nname: m\nprints:\n  - {{prefix: p, dtype: {}, fill: {}}}\n", dtype, fill);
}

} // namespace

BOOST_AUTO_TEST_CASE(an_output_fill_must_fit_its_dtype) {
    const auto fill_refused = [](std::string_view dtype, std::string_view fill, const std::string& what) {
        const auto text = with_fill(dtype, fill);
        refused(text, at(text, fmt::format("fill: {}", fill), 6), what);
    };
    fill_refused("int8", "300", "a int8 fill must be from -128 to 127, not 300");
    fill_refused("int8", "-129", "from -128 to 127");
    fill_refused("uint8", "256", "a uint8 fill must be from 0 to 255");
    fill_refused("uint32", "-1", "a uint32 fill must be from 0 to 4294967295, not -1");
    fill_refused("int16", "32768", "from -32768 to 32767");
    fill_refused("uint16", "65536", "from 0 to 65535");
    fill_refused("int32", "2147483648", "from -2147483648 to 2147483647");
    fill_refused("uint64", "-1", "a uint64 fill must be from 0 to 9007199254740992");
    fill_refused("int64", "1e19", "from -9007199254740992 to 9007199254740992");
    fill_refused("int32", "1.5", "a int32 fill must be a whole number, not 1.5");
    fill_refused("float32", "1e39", "a float32 fill must be from -3.40282e+38 to 3.40282e+38, not 1e39");
    for (const auto& [dtype, fill] : {std::pair{"int8", "-128"},
                                      {"int8", "127"},
                                      {"uint8", "255"},
                                      {"uint32", "4294967295"},
                                      {"int64", "-9007199254740992"},
                                      {"int32", "1e3"},
                                      {"float32", "-3.4e38"},
                                      {"float32", "1.5"}}) {
        BOOST_TEST_CONTEXT(dtype << " " << fill) { BOOST_CHECK_NO_THROW(parse_model_file(with_fill(dtype, fill))); }
    }
}

BOOST_AUTO_TEST_CASE(a_print_fill_must_fit_its_dtype) {
    const auto fill_refused = [](std::string_view dtype, std::string_view fill, const std::string& what) {
        const auto text = with_print_fill(dtype, fill);
        refused(text, at(text, fmt::format("fill: {}", fill), 6), what);
    };
    fill_refused("float16", "65505", "a float16 fill must be from -65504 to 65504, not 65505");
    fill_refused("float16", "-1e5", "from -65504 to 65504");
    fill_refused("bfloat16", "1e39", "a bfloat16 fill must be from -3.38953e+38 to 3.38953e+38");
    fill_refused("float32", "-1e39", "a float32 fill must be from");
    fill_refused("int8", "200", "a int8 fill must be from -128 to 127");
    fill_refused("uint16", "0.5", "a uint16 fill must be a whole number");
    fill_refused("float8e4m3", "256", "a float8e4m3 fill is the byte each element holds, a whole number from 0 to 255");
    fill_refused("float8e5m2_x4", "1.5", "the byte each element holds");
    for (const auto& [dtype, fill] : {std::pair{"float16", "65504"},
                                      {"float16", "-0.5"},
                                      {"bfloat16", "3e38"},
                                      {"float8e4m3", "255"},
                                      {"uint8", "0"},
                                      {"int64", "-5"}}) {
        BOOST_TEST_CONTEXT(dtype << " " << fill) {
            BOOST_CHECK_NO_THROW(parse_model_file(with_print_fill(dtype, fill)));
        }
    }
}

BOOST_AUTO_TEST_CASE(a_fault_status_number_must_be_an_nrt_status) {
    for (const auto* number : {"8", "12", "999", "4294967295"}) {
        const auto text =
            fmt::format("neuron_emu_model: 1\nname: m\nfaults:\n  - {{status: {}, on_execution: 1}}\n", number);
        refused(text, at(text, number), fmt::format("{} is not an NRT_STATUS value", number));
    }
    const auto known = parse_model_file("neuron_emu_model: 1\nname: m\nfaults:\n  - {status: 1206, on_execution: 1}\n");
    BOOST_TEST(known.faults.at(0).status == 1206u);
}

BOOST_AUTO_TEST_CASE(a_seed_goes_only_with_a_probability) {
    const std::string text = "neuron_emu_model: 1\nname: m\nfaults:\n  - {status: 5, on_execution: 2, seed: 3}\n";
    refused(text, at(text, "3}"), "seed goes with probability");
    const std::string after = "neuron_emu_model: 1\nname: m\nfaults:\n  - {status: 5, after_executions: 2, seed: 3}\n";
    refused(after, at(after, "3}"), "seed goes with probability");
}

BOOST_AUTO_TEST_CASE(input_echoed_in_a_message_is_escaped) {
    const std::string text =
        "neuron_emu_model: 1\nname: m\ninputs:\n  - {name: a, dtype: \"\\e]0;pwned\\a\\nx\", shape: [1]}\n";
    try {
        (void)parse_model_file(text, "dir/m\n.yaml");
        BOOST_ERROR("accepted");
    } catch (const yaml_error& e) {
        const std::string message = e.what();
        BOOST_TEST(message.find('\n') == std::string::npos, message);
        BOOST_TEST(message.find('\x1b') == std::string::npos, message);
        BOOST_TEST(message.starts_with("dir/m\\n.yaml:4:"), message);
        BOOST_TEST(message.find("unknown dtype '\\x1b]0;pwned\\x07\\nx'") != std::string::npos, message);
    }
}

BOOST_AUTO_TEST_CASE(recognising_a_model_file_is_cheap_on_hostile_input) {
    // The server asks this of every file a client loads, before parsing it.
    BOOST_TEST(!looks_like_model_file(std::string(100'000, '[')));
    BOOST_TEST(!looks_like_model_file(std::string(100'000, '{')));
    BOOST_TEST(looks_like_model_file("neuron_emu_model: 1\nx: &x [*x]\n"));
    BOOST_TEST(looks_like_model_file("neuron_emu_model: 1\n---\nother: 2\n"));
}

BOOST_AUTO_TEST_CASE(a_model_file_over_the_size_limit_is_refused_before_parsing) {
    // Padding in a comment: the text would be a valid model at any size.
    const std::string head = "neuron_emu_model: 1\nname: m\n#";
    const auto padded = [&](std::size_t size) { return head + std::string(size - head.size(), 'x'); };
    BOOST_CHECK_NO_THROW(parse_model_file(padded(max_model_file_bytes)));
    refused(padded(max_model_file_bytes + 1), "model:1:1",
            fmt::format("a model file has at most {} bytes, not {}", max_model_file_bytes, max_model_file_bytes + 1));
}
