#include "neuron/model/spec/topology.h"

#include <array>

namespace neuron::model {
namespace {

using neighbours = std::array<std::uint32_t, 4>;

// Trn1: 4x4 2D torus, [up, left, down, right] (driver's trn1_32xl_neigbor_ids).
constexpr std::array<neighbours, 16> trn1_torus{{
    {12, 3, 4, 1},
    {13, 0, 5, 2},
    {14, 1, 6, 3},
    {15, 2, 7, 0},
    {0, 7, 8, 5},
    {1, 4, 9, 6},
    {2, 5, 10, 7},
    {3, 6, 11, 4},
    {4, 11, 12, 9},
    {5, 8, 13, 10},
    {6, 9, 14, 11},
    {7, 10, 15, 8},
    {8, 15, 0, 13},
    {9, 12, 1, 14},
    {10, 13, 2, 15},
    {11, 14, 3, 12},
}};

// Trn2: 4x4 2D torus, columns indexed by SENG (driver's trn2_32xl_neigbor_ids).
constexpr std::array<neighbours, 16> trn2_torus{{
    {12, 1, 3, 4},
    {0, 13, 5, 2},
    {14, 3, 1, 6},
    {2, 15, 7, 0},
    {8, 5, 7, 0},
    {4, 9, 1, 6},
    {10, 7, 5, 2},
    {6, 11, 3, 4},
    {4, 9, 11, 12},
    {8, 5, 13, 10},
    {6, 11, 9, 14},
    {10, 7, 15, 8},
    {0, 13, 15, 8},
    {12, 1, 9, 14},
    {2, 15, 13, 10},
    {14, 3, 11, 12},
}};

// Only used when the device count is a multiple of 16; every id is OR-ed
// with the 0x10 bit of the device's own index.
std::vector<std::uint32_t> torus(const std::array<neighbours, 16>& table, std::uint32_t count, std::uint32_t index) {
    if (count % 16 != 0) return {};
    std::vector<std::uint32_t> ids;
    for (auto id : table[index % 16]) ids.push_back(id | (index & 0x10));
    return ids;
}

// Inf1 reports hardware links east then west; its instances are chains.
std::vector<std::uint32_t> inf1_chain(std::uint32_t count, std::uint32_t index) {
    std::vector<std::uint32_t> ids;
    if (index + 1 < count) ids.push_back(index + 1);
    if (index > 0) ids.push_back(index - 1);
    return ids;
}

std::vector<std::uint32_t> inf2_links(std::uint32_t count, std::uint32_t index) {
    if (count == 12) return {(index + 11) % 12, (index + 1) % 12};
    if (count == 6) {
        std::vector<std::uint32_t> ids;
        if (index > 0) ids.push_back(index - 1);
        if (index + 1 < count) ids.push_back(index + 1);
        return ids;
    }
    return {};
}

} // namespace

std::vector<std::uint32_t> connected_devices(device_kind kind, std::uint32_t device_count, std::uint32_t device_index) {
    switch (kind) {
    case device_kind::inferentia: return inf1_chain(device_count, device_index);
    case device_kind::inferentia2: return inf2_links(device_count, device_index);
    case device_kind::trainium: return torus(trn1_torus, device_count, device_index);
    case device_kind::trainium2: return torus(trn2_torus, device_count, device_index);
    }
    return {};
}

} // namespace neuron::model
