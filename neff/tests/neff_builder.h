#pragma once

// Test support: a synthetic NEFF made in memory from the documented layout
// (reference/neff.md): the 1024-byte header, then a gzip-compressed tar
// whose members are the JSON and binary files a compiler writes. Nothing in
// here is copied from a real NEFF; the members say what a small matmul
// compiled for two NeuronCores would say, with values the tests check.
//
// Header-only, needs zlib. Used by the tests in this folder and by
// fuzz/neff_fuzzer.cpp.

#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace neuron::neff::testing {

inline constexpr std::size_t tar_block = 512;

// --- the pieces: tar headers and records, gzip, the NEFF header ---------

// `value` as `digits` octal digits, zero-padded.
inline std::string octal_field(std::uint64_t value, std::size_t digits) {
    std::string s(digits, '0');
    for (std::size_t i = digits; i-- > 0 && value != 0; value >>= 3) s[i] = static_cast<char>('0' + (value & 7));
    if (value != 0) throw std::invalid_argument("octal_field: value too large");
    return s;
}

// One 512-byte ustar header. `name` up to 100 bytes (a longer one needs a
// pax record, a GNU 'L' record or `prefix`). The checksum is right unless
// `checksum_delta` moves it.
inline std::string tar_header(std::string_view name, std::uint64_t size, char type = '0',
                              std::string_view linkname = {}, std::string_view prefix = {}, int checksum_delta = 0) {
    if (name.size() > 100 || linkname.size() > 100 || prefix.size() > 155) {
        throw std::invalid_argument("tar_header: a field too long");
    }
    std::string h(tar_block, '\0');
    const auto put = [&h](std::size_t at, std::string_view text) { h.replace(at, text.size(), text); };
    put(0, name);
    put(100, type == '5' ? "0000755" : "0000644"); // mode
    put(108, "0001750");                           // uid
    put(116, "0001750");                           // gid
    put(124, octal_field(size, 11));
    put(136, octal_field(1700000000, 11)); // mtime
    h[156] = type;
    put(157, linkname);
    put(257, std::string_view("ustar\0"
                              "00",
                              8));
    put(265, "neuron");
    put(297, "neuron");
    put(329, "0000000");
    put(337, "0000000");
    put(345, prefix);
    put(148, "        ");
    std::int64_t sum = 0;
    for (const char c : h) sum += static_cast<unsigned char>(c);
    sum += checksum_delta;
    put(148, octal_field(static_cast<std::uint64_t>(sum), 6));
    h[154] = '\0';
    h[155] = ' ';
    return h;
}

// `data` followed by NULs to the next whole block.
inline std::string tar_padded(std::string_view data) {
    std::string s(data);
    s.append((tar_block - s.size() % tar_block) % tar_block, '\0');
    return s;
}

// A header and its data, padded.
inline std::string tar_member(std::string_view name, std::string_view data, char type = '0') {
    return tar_header(name, data.size(), type) + tar_padded(data);
}

// One pax record: "LEN key=value\n", LEN counting itself.
inline std::string pax_record(std::string_view key, std::string_view value) {
    const auto body = " " + std::string(key) + "=" + std::string(value) + "\n";
    auto length = body.size() + 1;
    while (std::to_string(length).size() + body.size() != length) ++length;
    return std::to_string(length) + body;
}

// A pax extended header ('x') holding `records`, for the member after it.
inline std::string pax_header(std::string_view records) {
    return tar_header("PaxHeaders/member", records.size(), 'x') + tar_padded(records);
}

// A GNU long-name record ('L'), naming the member after it.
inline std::string gnu_long_name(std::string_view name) {
    std::string data(name);
    data.push_back('\0');
    return tar_header("././@LongLink", data.size(), 'L') + tar_padded(data);
}

// The end of a tar: two zero blocks.
inline std::string tar_end() { return std::string(2 * tar_block, '\0'); }

// gzip (RFC 1952) of `data`, by zlib.
inline std::string gzip(std::string_view data, int level = Z_DEFAULT_COMPRESSION) {
    z_stream z{};
    if (deflateInit2(&z, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        throw std::runtime_error("gzip: deflateInit2 failed");
    }
    std::string out;
    std::string chunk(1 << 16, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    z.avail_in = static_cast<uInt>(data.size());
    int r = Z_OK;
    while (r != Z_STREAM_END) {
        z.next_out = reinterpret_cast<Bytef*>(chunk.data());
        z.avail_out = static_cast<uInt>(chunk.size());
        r = deflate(&z, Z_FINISH);
        if (r != Z_OK && r != Z_STREAM_END && r != Z_BUF_ERROR) {
            deflateEnd(&z);
            throw std::runtime_error("gzip: deflate failed");
        }
        out.append(chunk.data(), chunk.size() - z.avail_out);
    }
    deflateEnd(&z);
    return out;
}

// A part of zeros_gzip()'s stream: `text`, then `zeros` zero bytes (a
// whole number of MiB).
struct gzip_part {
    std::string text;
    std::uint64_t zeros = 0;
};

// gzip of the parts one after the other, made in time proportional to its
// compressed size, however many gigabytes of zeros it inflates to: after a
// full flush, deflate writes the same bytes for every MiB of zeros, so they
// are made once and repeated.
inline std::string zeros_gzip(const std::vector<gzip_part>& parts) {
    constexpr std::size_t mib = std::size_t{1} << 20;
    z_stream z{};
    if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        throw std::runtime_error("zeros_gzip: deflateInit2 failed");
    }
    const auto deflated = [&z](std::string_view in, int flush) {
        std::string out;
        std::string chunk(1 << 16, '\0');
        z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
        z.avail_in = static_cast<uInt>(in.size());
        for (;;) {
            z.next_out = reinterpret_cast<Bytef*>(chunk.data());
            z.avail_out = static_cast<uInt>(chunk.size());
            const int r = deflate(&z, flush);
            out.append(chunk.data(), chunk.size() - z.avail_out);
            if (r == Z_STREAM_END || (flush != Z_FINISH && z.avail_in == 0 && z.avail_out != 0)) return out;
            if (r != Z_OK && r != Z_BUF_ERROR) throw std::runtime_error("zeros_gzip: deflate failed");
        }
    };
    const std::string zeros(mib, '\0');
    const auto zeros_crc = crc32(0, reinterpret_cast<const Bytef*>(zeros.data()), static_cast<uInt>(mib));
    std::string out("\x1f\x8b\x08\0\0\0\0\0\0\xff", 10); // gzip, deflate, no name, unknown OS
    std::string repeated;
    uLong crc = crc32(0, nullptr, 0);
    std::uint64_t length = 0;
    for (const auto& part : parts) {
        if (part.zeros % mib != 0) throw std::invalid_argument("zeros_gzip: zeros in whole MiB");
        out += deflated(part.text, Z_FULL_FLUSH);
        crc = crc32(crc, reinterpret_cast<const Bytef*>(part.text.data()), static_cast<uInt>(part.text.size()));
        for (std::uint64_t n = 0; n < part.zeros / mib; ++n) {
            if (repeated.empty()) {
                const auto first = deflated(zeros, Z_FULL_FLUSH);
                repeated = deflated(zeros, Z_FULL_FLUSH);
                if (first != repeated) throw std::logic_error("zeros_gzip: deflate is not repeatable");
                out += first;
                crc = crc32_combine(crc, zeros_crc, static_cast<z_off_t>(mib));
                ++n;
                if (n == part.zeros / mib) break;
            }
            out += repeated;
            crc = crc32_combine(crc, zeros_crc, static_cast<z_off_t>(mib));
        }
        length += part.text.size() + part.zeros;
    }
    out += deflated({}, Z_FINISH);
    deflateEnd(&z);
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((crc >> (8 * i)) & 0xff));
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((length >> (8 * i)) & 0xff));
    return out;
}

inline void put_u64_le(std::string& s, std::size_t at, std::uint64_t v) {
    for (std::size_t i = 0; i < 8; ++i) s[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
}

// The 1024-byte NEFF header: version, header length, payload length
// (little-endian u64 at 0, 8, 16), then a u32 1 at 0xa8 and the file name
// at 0xdc. The digest at 0xac is left zero: the reader does not check it.
inline std::string neff_header(std::uint64_t payload_bytes, std::uint64_t version = 2,
                               std::uint64_t header_length = 1024) {
    std::string h(1024, '\0');
    put_u64_le(h, 0, version);
    put_u64_le(h, 8, header_length);
    put_u64_le(h, 16, payload_bytes);
    h[0xa8] = 1;
    const std::string_view name = "file.neff";
    h.replace(0xdc, name.size(), name);
    return h;
}

// A NEFF file around `payload` (the gzip bytes), its header's payload length right.
inline std::string wrap(std::string_view payload) { return neff_header(payload.size()) + std::string(payload); }

// --- a whole NEFF --------------------------------------------------------

struct neff_builder {
    // How tar() writes the names and folders.
    struct tar_style {
        bool pax_paths = false;      // every name in a pax 'x' header (the ustar name a stand-in)
        bool gnu_long_names = false; // every name in a GNU 'L' record (the ustar name a stand-in)
        bool dot_slash = false;      // "./" before every name
        bool directories = false;    // a directory entry ("sg00/") before each folder's first member
    };

    // Where one member stands in tar(): from its first header (pax or 'L'
    // records included) to the end of its padded data.
    struct span {
        std::string name;
        std::size_t begin = 0;
        std::size_t end = 0;
    };

    std::map<std::string, std::string> members; // name -> contents, written in name order
    tar_style style;

    // The uncompressed tar, ended by two zero blocks; `spans` (when given)
    // receives where each regular member stands.
    std::string tar(std::vector<span>* spans = nullptr) const {
        std::string out;
        std::map<std::string, bool> folders_written;
        for (const auto& [name, data] : members) {
            if (style.directories) {
                for (auto slash = name.find('/'); slash != std::string::npos; slash = name.find('/', slash + 1)) {
                    const auto folder = name.substr(0, slash + 1);
                    if (folders_written[folder]) continue;
                    folders_written[folder] = true;
                    out += entry(folder, {}, '5');
                }
            }
            const auto begin = out.size();
            out += entry(name, data, '0');
            if (spans != nullptr) spans->push_back({name, begin, out.size()});
        }
        return out + tar_end();
    }
    std::string payload(int level = Z_DEFAULT_COMPRESSION) const { return gzip(tar(), level); }
    std::string bytes() const { return wrap(payload()); }

    // One entry in this builder's style: its name records, header, padded data.
    std::string entry(const std::string& raw_name, std::string_view data, char type) const {
        const auto name = (style.dot_slash ? "./" : "") + raw_name;
        std::string out;
        std::string header_name = name;
        if (style.pax_paths || style.gnu_long_names || name.size() > 100) {
            // A stand-in the reader must not use: the real name comes before it.
            header_name = "stand-in-" + std::to_string(name.size()) + (type == '5' ? "/" : "");
            if (style.gnu_long_names && !style.pax_paths) {
                out += gnu_long_name(name);
            } else {
                out += pax_header(pax_record("path", name) + pax_record("mtime", "1700000000.5"));
            }
        }
        return out + tar_header(header_name, data.size(), type) + tar_padded(data);
    }

    // Bytes standing for an engine's instruction stream: `count` 64-byte
    // records with a made-up opcode and a counter (compressible on purpose,
    // so the NEFF stays a few KiB).
    static std::string instructions(std::size_t count, unsigned char engine) {
        std::string s(count * 64, '\0');
        for (std::size_t i = 0; i < count; ++i) {
            s[i * 64] = static_cast<char>(engine);
            s[i * 64 + 1] = static_cast<char>(i & 0xff);
            s[i * 64 + 8] = static_cast<char>(0x40 + (i % 7));
        }
        return s;
    }
    static std::string filler(std::size_t n, unsigned char seed) {
        std::string s(n, '\0');
        for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i % 61 == 0) ? seed + i / 61 : 0);
        return s;
    }

    // Expected values of two_core_matmul(), per core (sg00, sg01).
    struct core_expectation {
        const char* name;
        std::uint64_t code_bytes;
        std::uint64_t constant_bytes;
        std::uint64_t scratchpad_bytes;
        std::uint64_t dma_transfers;
        std::uint64_t instructions[5]; // PE, DVE, Activation, Pool, SP
    };
    static constexpr core_expectation matmul_cores[2] = {
        // 768+128+320+448+192 = 1856 of engine code, + 1024+960+96 tables
        {"sg00", 3936, 32768 + 512, 65536 + 8192, 2, {12, 2, 5, 7, 3}},
        // 1024+192+320+512+256 = 2304 of engine code, + the same tables
        {"sg01", 4384, 32768 + 512, 131072 + 4096, 3, {16, 3, 5, 8, 4}},
    };

    // A matmul x[128,256] @ y[256,128] -> output0[128,128] (float16),
    // compiled for a logical core of two physical NeuronCores.
    static neff_builder two_core_matmul() {
        neff_builder b;
        auto& m = b.members;
        std::string per_node;
        for (int i = 0; i < 64; ++i) per_node += (i == 0 ? "1" : ", 0");
        m["info.json"] = "{\n  \"tool_version\": \"2.99.0.0+synthetic\",\n  \"kelp_version\": \"Dynamic\",\n"
                         "  \"name\": \"matmul.neff\",\n  \"num_tpb\": 1,\n  \"num_tpb_per_node\": [" +
                         per_node + "]\n}\n";
        m["kelf-0.json"] = R"({
    "graphs": [
        {"definition": "sg00/def.json", "name": "sg00"},
        {"definition": "sg01/def.json", "name": "sg01"}
    ],
    "version": "0.5",
    "target": "cayman"
}
)";
        m["neff.json"] = R"({"nodes": [{"op": "null", "name": "x", "inputs": []},
  {"op": "null", "name": "y", "inputs": []},
  {"op": "tvm_op", "name": "matmul", "attrs": {"func_name": "__kelf"}, "inputs": [[0, 0, 0], [1, 0, 0]]}],
 "arg_nodes": [0, 1], "heads": [[2, 0, 0]]}
)";
        m["hlo_stats.json"] = R"({
   "ArithmeticIntensity" : 32.0,
   "ConstantSize" : 0,
   "HloInputCount" : -1,
   "HloMacCount" : 4194304,
   "Traffic" : 262144
}
)";
        m["debug_info/debug_info_hlo.dbg_sg000000"] = filler(300, 0x11);
        m["debug_info/debug_info_stack_frame_index.dbg"] = filler(40, 0x12);

        const std::size_t counts[2][5] = {{12, 2, 5, 7, 3}, {16, 3, 5, 8, 4}};
        const char* engines[5] = {"PE", "DVE", "Activation", "Pool", "SP"};
        for (int core = 0; core < 2; ++core) {
            const std::string sg = core == 0 ? "sg00" : "sg01";
            const auto f = sg + "/";
            const auto scratch_b =
                core == 0
                    ? R"("scratch_b": {"type": "virtual", "size": 8192, "backing_variable_off": 65536, "var_id": 7},)"
                    : R"("scratch_b": {"type": "virtual", "size": 4096, "backing_variable_off": 131072, "var_id": 7},)";
            m[f + "def.json"] = R"({
    "name": ")" + sg + R"(",
    "version": "1.0",
    "var": {
        "SB": {"type": "state-buffer", "var_id": 0},
        "x": {"ops": [], "size": 65536, "type": "input", "var_id": 1},
        "y": {"ops": [], "size": 65536, "type": "input", "var_id": 2},
        "output0": {"ops": [], "size": 32768, "type": "output", "var_id": 3},
        "w_const": {"alignment": 32768, "file_name": "value_w_const.npy", "size": 32768, "type": "file", "var_id": 4},
        "bias_const": {"alignment": 64, "file_name": "value_bias_const.npy", "size": 512, "type": "file", "var_id": 5},
        "scratch_a": {"type": "virtual", "size": 4096, "backing_variable_off": 0, "var_id": 6},
        )" + scratch_b + R"(
        "scratch_c": {"type": "virtual", "size": 1000, "backing_variable_off": 4096, "var_id": 8},
        "DGETable0": {"list": [1, 2, 3], "type": "dge-table", "var_id": 9}
    },
    "dma_queue": {"qPoolIO": {"num_queues": 16, "owner": "pool", "semaphore_set": 0, "type": "dynamic"}},
    "runtime_semaphore_count": 16,
    "runtime_event_count": 8,
    "runtime_statebuffer_reservation": 0
}
)";
            m[f + "tensor_map.json"] = R"({
    "output0": {"dtype": "float16", "is_const": false, "kind": "output", "tf_format": "NC",
                "sim_shape": [128, 128], "tf_shape": [128, 128]},
    "w_const": {"dtype": "float32", "is_const": true, "tf_format": "CRSM",
                "sim_shape": [1, 1, 1, 8192], "tf_shape": [1, 1, 1, 8192]},
    "x": {"dtype": "float16", "is_const": false, "kind": "input", "tf_format": "NC",
          "sim_shape": [128, 256], "tf_shape": [128, 256]},
    "y": {"dtype": "float16", "is_const": false, "kind": "input", "tf_format": "NC",
          "sim_shape": [256, 128], "tf_shape": [256, 128]}
}
)";
            for (int e = 0; e < 5; ++e) {
                const std::string engine = engines[e];
                m[f + engine + ".bin"] = instructions(counts[core][e], static_cast<unsigned char>(0x10 * (e + 1)));
                std::string dma = "[]";
                if (engine == "SP") {
                    dma = R"([{"queue": "qSPIO0", "desc_count": 4, "src": "x", "dst": "SB"},
                              {"queue": "qSPIO1", "desc_count": 2, "src": "SB", "dst": "output0"}])";
                }
                if (engine == "Pool" && core == 1) dma = R"([{"queue": "qPoolIO", "desc_count": 1}])";
                std::string extra;
                if (engine == "DVE") extra = R"("dve_tables": [{"opcode_table": "default_opcode_table.bin"}], )";
                if (engine == "Activation")
                    extra = R"("act_info": "act_info.json", "activation_function_sets": ["exp_and_others"], )";
                m[f + engine + ".json"] = "{\"dma\": " + dma + ", " + extra + "\"instr\": \"" + engine +
                                          ".bin\", \"name\": \"" + engine + ".json\"}";
                m[f + "debug_info_asm_" + engine + ".dbg"] = filler(100 + 10 * static_cast<std::size_t>(e), 0x20);
            }
            m[f + "default_opcode_table.bin"] = filler(1024, 0x30);
            m[f + "exp_and_others_bkt.bin"] = filler(960, 0x31);
            m[f + "exp_and_others_ctrl.bin"] = filler(96, 0x32);
            m[f + "act_info.json"] =
                R"({"exp_and_others": {"bkt": "exp_and_others_bkt.bin", "ctrl": "exp_and_others_ctrl.bin"}})";
            m[f + "value_w_const.npy"] = "\x93NUMPY\x01\x00" + std::string("v\0", 2) + filler(118, 0x33);
            m[f + "value_bias_const.npy"] = "\x93NUMPY\x01\x00" + std::string("v\0", 2) + filler(54, 0x34);
        }
        return b;
    }

    // The least a reader accepts: one core, one engine, no hlo_stats.json.
    static neff_builder one_core_minimal() {
        neff_builder b;
        auto& m = b.members;
        m["info.json"] = R"({"name": "tiny.neff", "tool_version": "2.99.0.0+synthetic"})";
        m["kelf-0.json"] = R"({"graphs": [{"definition": "sg00/def.json", "name": "sg00"}]})";
        m["sg00/def.json"] =
            R"({"var": {"a": {"type": "input", "size": 8}, "t": {"type": "virtual", "size": 64, "backing_variable_off": 64}}})";
        m["sg00/tensor_map.json"] =
            R"({"a": {"dtype": "float32", "kind": "input", "tf_shape": [2]}, "b": {"dtype": "float32", "kind": "output", "tf_shape": [2]}})";
        m["sg00/PE.bin"] = instructions(1, 0x10);
        m["sg00/PE.json"] = R"({"dma": [{"queue": "q"}], "instr": "PE.bin", "name": "PE.json"})";
        return b;
    }
};

} // namespace neuron::neff::testing
