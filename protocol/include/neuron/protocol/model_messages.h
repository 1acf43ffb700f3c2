#pragma once

// The control channel's messages that load and unload models: emulated
// model files and NEFFs, the pieces a large NEFF travels in, and the
// tensors a loaded model shows (protocol/README.md documents them).

#include "neuron/protocol/message_codec.h"
#include "neuron/protocol/wire.h"

#include <cstdint>
#include <string>
#include <vector>

namespace neuron::protocol {

// The largest emulated model file (runtime_shim/MODEL_FILE.md); the server
// and check-model refuse larger ones alike. A NEFF may be far larger. A
// file larger than one message travels in model_piece messages of at most
// max_model_piece_bytes (what a socket's default send buffer takes in one
// message), then the load_model that ends it, up to max_neff_bytes in all.
inline constexpr std::size_t max_model_file_bytes = std::size_t{16} << 20;
inline constexpr std::size_t max_model_piece_bytes = 128 * 1024;
inline constexpr std::uint64_t max_neff_bytes = std::uint64_t{4} << 30;

// A piece of a model too large for one message. The piece at offset 0
// starts the file (dropping whatever another one had staged) and says how
// large the whole file is; each next piece continues where the last ended;
// the next load_model's bytes must end it exactly.
struct model_piece {
    std::uint64_t total_bytes = 0; // the whole file's
    std::uint64_t offset = 0;      // of this piece in it
    std::string bytes;
    static constexpr const char* wire_name = "model_piece";
    template <typename Self, typename Visit>
    static void fields(Self& m, Visit&& v) {
        v("total_bytes", m.total_bytes);
        v("offset", m.offset);
        v("bytes", m.bytes);
    }
    void validate() const {
        if (bytes.size() > max_model_piece_bytes) {
            throw protocol_error("model_piece: a piece of " + std::to_string(bytes.size()) + " bytes, more than " +
                                 std::to_string(max_model_piece_bytes));
        }
        if (offset > total_bytes || bytes.size() > total_bytes - offset) {
            throw protocol_error("model_piece: a piece at " + std::to_string(offset) + " of " +
                                 std::to_string(bytes.size()) + " bytes runs past the file's " +
                                 std::to_string(total_bytes));
        }
    }
};

inline constexpr std::uint32_t unreadable_page_size = UINT32_MAX;

struct load_model {
    std::int32_t logical_core = -1; // global index; -1: the session's first core
    std::string bytes;              // the emulated model file, or the end of the NEFF its pieces began
    // The process's NEURON_SCRATCHPAD_PAGE_SIZE in MiB (0: unset;
    // unreadable_page_size: not a number) and
    // NEURON_RT_CONTIGUOUS_SCRATCHPAD=0, for a NEFF's scratchpad.
    std::uint32_t scratchpad_page_mib = 0;
    bool contiguous_scratchpad_off = false;
    static constexpr const char* wire_name = "load_model";
    template <typename Self, typename Visit>
    static void fields(Self& m, Visit&& v) {
        v("logical_core", m.logical_core);
        v("bytes", m.bytes);
        v("scratchpad_page_mib", m.scratchpad_page_mib);
        v("contiguous_scratchpad_off", m.contiguous_scratchpad_off);
    }
};

enum class tensor_usage : std::uint8_t { input = 0, output = 1 };
constexpr enum_range<tensor_usage> wire_range(tensor_usage) {
    return {"usage", tensor_usage::input, tensor_usage::output};
}
// How an execution fills an output from the inputs, so data paths can be checked.
enum class output_rule : std::uint8_t { none = 0, copy = 1, sum = 2, fill = 3 };
constexpr enum_range<output_rule> wire_range(output_rule) {
    return {"output rule", output_rule::none, output_rule::fill};
}

struct model_tensor {
    std::string name;
    tensor_usage usage = tensor_usage::input;
    std::uint32_t dtype = 0; // nrt_dtype_t
    std::vector<std::uint64_t> shape;
    std::uint64_t size = 0; // bytes
    output_rule rule = output_rule::none;
    std::vector<std::string> sources; // inputs the rule reads
    double fill_value = 0;
    static constexpr const char* wire_name = "model_tensor";
    template <typename Self, typename Visit>
    static void fields(Self& m, Visit&& v) {
        v("name", m.name);
        v("usage", m.usage);
        v("dtype", m.dtype);
        v("shape", m.shape, max_count{8});
        v("size", m.size);
        v("rule", m.rule);
        v("sources", m.sources, max_count{64});
        v("fill_value", m.fill_value);
    }
};

struct model_loaded {
    std::uint32_t model_id = 0;
    std::uint32_t logical_core = 0; // global
    std::string name;
    std::vector<model_tensor> tensors;
    static constexpr const char* wire_name = "model_loaded";
    template <typename Self, typename Visit>
    static void fields(Self& m, Visit&& v) {
        v("model_id", m.model_id);
        v("logical_core", m.logical_core);
        v("name", m.name);
        v("tensors", m.tensors, max_count{4096});
    }
};

struct unload_model {
    std::uint32_t model_id = 0;
    static constexpr const char* wire_name = "unload_model";
    template <typename Self, typename Visit>
    static void fields(Self& m, Visit&& v) {
        v("model_id", m.model_id);
    }
};

} // namespace neuron::protocol
