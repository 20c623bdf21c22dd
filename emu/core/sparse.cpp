// Sparse A: metadata, selection and the dense datapath over the selected products (sparse.hpp).
#include "tcnum/core/sparse.hpp"

#include <stdexcept>

#include "tcnum/core/dot.hpp"
#include "tcnum/core/format.hpp"

namespace tcnum {
namespace {

void require_sparse(const Instruction& in) {
  if (!in.sparse) throw std::invalid_argument(in.name + ": not a sparse instruction (no metadata)");
}

// Logical elements one metadata index selects: 2 for s4/u4 (the PTX ISA's "four non-zero elements
// from a 8-wide chunk", two indices of pairs), 1 otherwise.
int sparse_unit(const Instruction& in) { return in.a_type == Format::s4 || in.a_type == Format::u4 ? 2 : 1; }

// The positions inside its group that a valid value selects: (i0, i1) for 2:4, (i) for tf32, the
// pairs (2·i0, 2·i0 + 1, 2·i1, 2·i1 + 1) for 4:8 in pairs.
int selected_in_group(const Instruction& in, std::uint32_t v, int* out) {
  if (sparse_group(in) == 2) {
    out[0] = v == 0x4 ? 0 : 1;
    return 1;
  }
  const int u = sparse_unit(in), idx[2] = {static_cast<int>(v & 3u), static_cast<int>(v >> 2)};
  int n = 0;
  for (int i : idx)
    for (int e = 0; e < u; ++e) out[n++] = i * u + e;
  return n;
}

std::string pattern_name(const Instruction& in) {
  const int g = sparse_group(in);
  return g == 2 ? "1:2 (tf32)" : g == 8 ? "4:8 in pairs (s4/u4)" : "2:4";
}

}  // namespace

int sparse_group(const Instruction& in) {
  require_sparse(in);
  return in.a_type == Format::tf32 ? 2 : 4 * sparse_unit(in);
}

int sparse_meta_count(const Instruction& in) { return in.k / sparse_group(in); }

bool valid_sparse_meta(const Instruction& in, std::uint32_t v) {
  if (sparse_group(in) == 2) return v == 0x4 || v == 0xe;
  return v <= 0xf && (v & 3u) < (v >> 2);  // i0 < i1: 0x4, 0x8, 0x9, 0xc, 0xd, 0xe
}

std::string invalid_sparse_meta_message(const Instruction& in, std::uint32_t v, int group) {
  const char* hex = "0123456789abcdef";
  return "metadata value " + (v <= 15 ? std::string(1, hex[v]) : std::to_string(v)) + " (group " + std::to_string(group) +
         ") is not a valid " + pattern_name(in) + " pattern; valid: " + (sparse_group(in) == 2 ? "4, e" : "4, 8, 9, c, d, e");
}

std::vector<int> selected_positions(const Instruction& in, std::span<const std::uint8_t> meta) {
  const int groups = sparse_meta_count(in), g = sparse_group(in);
  if (static_cast<int>(meta.size()) != groups)
    throw std::invalid_argument(in.name + ": metadata has " + std::to_string(meta.size()) + " values; K = " +
                                std::to_string(in.k) + " needs " + std::to_string(groups) + " (one per " +
                                std::to_string(g) + " elements)");
  std::vector<int> pos;
  pos.reserve(static_cast<std::size_t>(in.k / 2));
  for (int q = 0; q < groups; ++q) {
    const std::uint32_t v = meta[static_cast<std::size_t>(q)];
    if (!valid_sparse_meta(in, v)) throw std::invalid_argument(in.name + ": " + invalid_sparse_meta_message(in, v, q));
    int in_group[4];
    const int n = selected_in_group(in, v, in_group);
    for (int i = 0; i < n; ++i) pos.push_back(q * g + in_group[i]);
  }
  return pos;
}

Instruction selected_form(const Instruction& sparse) {
  require_sparse(sparse);
  Instruction in = sparse;
  in.sparse = false;
  in.k = sparse.k / 2;
  return in;
}

std::vector<std::uint32_t> gather_selected(const Instruction& in, std::span<const std::uint8_t> meta,
                                           std::span<const std::uint32_t> b) {
  if (static_cast<int>(b.size()) != in.k)
    throw std::invalid_argument(in.name + ": B has " + std::to_string(b.size()) + " elements; K = " + std::to_string(in.k));
  std::vector<std::uint32_t> out;
  for (int k : selected_positions(in, meta)) out.push_back(b[static_cast<std::size_t>(k)]);
  return out;
}

std::vector<std::uint32_t> expand_sparse_a(const Instruction& in, std::span<const std::uint32_t> a_stored,
                                           std::span<const std::uint8_t> meta) {
  if (static_cast<int>(a_stored.size()) != in.a_elements())
    throw std::invalid_argument(in.name + ": sparse A has " + std::to_string(a_stored.size()) +
                                " stored elements; K = " + std::to_string(in.k) + " needs " + std::to_string(in.a_elements()));
  std::vector<std::uint32_t> out(static_cast<std::size_t>(in.k), zero_bits(in.a_type, false));
  const std::vector<int> pos = selected_positions(in, meta);
  for (std::size_t s = 0; s < pos.size(); ++s) out[static_cast<std::size_t>(pos[s])] = a_stored[s];
  return out;
}

CompressedRow compress_sparse_a(const Instruction& in, std::span<const std::uint32_t> a_logical) {
  const int g = sparse_group(in), u = sparse_unit(in), units = g / u, keep = units / 2;
  if (static_cast<int>(a_logical.size()) != in.k)
    throw std::invalid_argument(in.name + ": A's logical row has " + std::to_string(a_logical.size()) +
                                " elements; K = " + std::to_string(in.k));
  auto zero_unit = [&](int q, int i) {
    for (int e = 0; e < u; ++e)
      if (!decode(in.a_type, a_logical[static_cast<std::size_t>(q * g + i * u + e)]).is_zero()) return false;
    return true;
  };
  CompressedRow row;
  for (int q = 0; q < in.k / g; ++q) {
    int chosen[2] = {-1, -1}, n = 0;
    for (int i = 0; i < units; ++i)
      if (!zero_unit(q, i)) {
        if (n == keep)
          throw std::invalid_argument(in.name + ": A's group " + std::to_string(q) + " (k = " + std::to_string(q * g) +
                                      ".." + std::to_string(q * g + g - 1) + ") has more than " + std::to_string(keep) +
                                      (u == 1 ? " non-zero elements; " : " pairs with a non-zero element; ") +
                                      pattern_name(in) + " sparsity allows " + std::to_string(keep));
        chosen[n++] = i;
      }
    for (int i = 0; i < units && n < keep; ++i)  // fill with the lowest-placed zeros
      if (i != chosen[0]) {
        chosen[n++] = i;
        if (n == 2 && chosen[0] > chosen[1]) std::swap(chosen[0], chosen[1]);
      }
    for (int i = 0; i < keep; ++i)
      for (int e = 0; e < u; ++e) row.a.push_back(a_logical[static_cast<std::size_t>(q * g + chosen[i] * u + e)]);
    row.meta.push_back(static_cast<std::uint8_t>(g == 2 ? (chosen[0] == 0 ? 0x4 : 0xe) : (chosen[0] | chosen[1] << 2)));
  }
  return row;
}

std::uint32_t sparse_element(const DatapathParams& p, const Instruction& in, std::span<const std::uint32_t> a,
                             std::span<const std::uint32_t> b, std::uint32_t c, std::span<const std::uint8_t> meta) {
  if (static_cast<int>(a.size()) != in.a_elements())
    throw std::invalid_argument(in.name + ": sparse A has " + std::to_string(a.size()) + " stored elements; needs " +
                                std::to_string(in.a_elements()));
  const std::vector<std::uint32_t> sel = gather_selected(in, meta, b);
  return mma_element(p, selected_form(in), a, sel, c);
}

std::string sparse_meta_hex(std::span<const std::uint8_t> meta) {
  std::string s;
  for (std::uint8_t v : meta) s += "0123456789abcdef"[v & 15u];
  return s;
}

}  // namespace tcnum
