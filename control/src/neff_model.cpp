#include "neuron/control/neff_model.h"

#include "neuron/control/nrt_dtype.h"
#include "neuron/control/runtime_service.h"
#include "neuron/model/spec/nrt_status.h"

#include <fmt/format.h>

#include <algorithm>

namespace neuron::control {
namespace {

// The reader lists engines in the model's order.
static_assert(neff::engine_count == model::engine_count);

constexpr std::uint32_t page_step_mib = 512;
constexpr std::uint32_t page_limit_mib = 4096;
constexpr std::size_t max_name = 255;

void need(model_definition& m, model::mem_type type, std::uint64_t bytes, std::uint32_t core, bool shared = false) {
    if (bytes == 0) return;
    m.memory.push_back({model::mem_location::device, type, bytes, core, shared});
}

void add_tensors(model_definition& m, const std::vector<neff::tensor>& list, protocol::tensor_usage usage) {
    for (const auto& t : list) {
        protocol::model_tensor x;
        x.name = t.name;
        x.usage = usage;
        x.dtype = nrt_dtype_of(t.dtype);
        x.shape = t.shape;
        x.size = t.bytes;
        m.tensors.push_back(std::move(x));
    }
}

} // namespace

neff::scratchpad_layout scratchpad_layout_for(const model::instance_type& instance, std::uint32_t lnc,
                                              bool contiguous_off, std::uint32_t page_mib) {
    neff::scratchpad_layout layout;
    const bool supported = !(instance.kind == model::device_kind::trainium2 && lnc == 1);
    layout.contiguous = supported && !contiguous_off;
    if (layout.contiguous || page_mib == 0) return layout; // the page size does not apply, or is the default
    if (page_mib == protocol::unreadable_page_size) {
        throw request_error(model::nrt_status::invalid, "NEURON_SCRATCHPAD_PAGE_SIZE is not a whole number of MiB");
    }
    if (page_mib % page_step_mib != 0 || page_mib >= page_limit_mib) {
        throw request_error(
            model::nrt_status::invalid,
            fmt::format("NEURON_SCRATCHPAD_PAGE_SIZE={}: the page size is a multiple of {} MiB below {}", page_mib,
                        page_step_mib, page_limit_mib));
    }
    layout.page_bytes = std::uint64_t{page_mib} << 20;
    return layout;
}

std::uint32_t nrt_dtype_of(std::string_view neff_dtype) {
    std::string name(neff_dtype);
    if (name.starts_with("float8_")) name.erase(6, 1);
    const auto d = find_dtype(name);
    return d ? d->value : 0;
}

model_definition define_neff(const neff::neff_info& neff, const neff::scratchpad_layout& layout) {
    model_definition m;
    m.name = neff.name.empty() ? std::string("neff") : neff.name.substr(0, max_name);
    add_tensors(m, neff.inputs, protocol::tensor_usage::input);
    add_tensors(m, neff.outputs, protocol::tensor_usage::output);
    using model::mem_type;
    for (std::uint32_t core = 0; core < neff.cores.size(); ++core) {
        const auto& g = neff.cores[core];
        const auto c = neff::charge(g, layout);
        need(m, mem_type::code_device, c.model_code, core);
        need(m, mem_type::constants_device, c.constants, core);
        need(m, mem_type::scratchpad_device, c.scratchpad, core, true);
        need(m, mem_type::scratchpad_nonshared_device, c.nonshared_scratchpad, core);
        need(m, mem_type::dma_rings_device, c.dma_rings, core);
        for (std::size_t e = 0; e < neff::engine_count; ++e) {
            m.streams.instructions[e] = std::max(m.streams.instructions[e], g.instructions[e]);
        }
    }
    m.streams.macs = neff.macs;
    m.streams.traffic_bytes = neff.traffic_bytes;
    m.streams.cores = static_cast<std::uint32_t>(std::max<std::size_t>(1, neff.cores.size()));
    return m;
}

} // namespace neuron::control
