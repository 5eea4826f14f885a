#include "frontend/reach/address_scope.h"

#include <array>
#include <cstdint>

namespace framelock::frontend {
namespace {

// The address as a 32-bit number, or false when it is not a dotted quad.
bool parse_ipv4(std::string_view text, std::uint32_t& out) {
    std::uint32_t value = 0;
    int parts = 0;
    std::size_t i = 0;
    while (parts < 4) {
        if (i >= text.size() || text[i] < '0' || text[i] > '9') return false;
        unsigned part = 0;
        std::size_t digits = 0;
        while (i < text.size() && text[i] >= '0' && text[i] <= '9' && digits < 4) {
            part = part * 10 + static_cast<unsigned>(text[i] - '0');
            ++i;
            ++digits;
        }
        if (digits > 3 || part > 255) return false;
        value = (value << 8) | part;
        ++parts;
        if (parts < 4) {
            if (i >= text.size() || text[i] != '.') return false;
            ++i;
        }
    }
    if (i != text.size()) return false;
    out = value;
    return true;
}

struct Block {
    std::uint32_t base;
    int prefix;
};

constexpr std::uint32_t ip(unsigned a, unsigned b, unsigned c, unsigned d) {
    return (a << 24) | (b << 16) | (c << 8) | d;
}

// Behind a NAT (or not an internet address at all): a mapping there reaches no one outside.
constexpr std::array kPrivateBlocks = {
    Block{ip(10, 0, 0, 0), 8},    Block{ip(172, 16, 0, 0), 12}, Block{ip(192, 168, 0, 0), 16},
    Block{ip(100, 64, 0, 0), 10}, Block{ip(127, 0, 0, 0), 8},   Block{ip(169, 254, 0, 0), 16},
    Block{ip(0, 0, 0, 0), 8},
};

}  // namespace

AddressScope address_scope(std::string_view ipv4) {
    std::uint32_t value = 0;
    if (!parse_ipv4(ipv4, value)) return AddressScope::kInvalid;
    for (const Block& block : kPrivateBlocks) {
        const std::uint32_t mask = ~std::uint32_t{0} << (32 - block.prefix);
        if ((value & mask) == block.base) return AddressScope::kPrivate;
    }
    return AddressScope::kPublic;
}

}  // namespace framelock::frontend
