// f64 DMMA (mma.m8n8k4.f64.f64.f64.f64 on sm_80+, mma.m16n8k4/k8/k16.f64 on sm_90): one output
// element, as the H100 computes it (docs/models.md §8.6): a chain of IEEE binary64 fused
// multiply-adds in ascending k, d = c, then d = fma(a_k, b_k, d) for k = 0 … K-1, each rounded to
// nearest even (subnormals kept, signed zeros as IEEE 754 fma gives them). NaN: a step with a
// NaN operand returns B's NaN first, else the running sum's (C's), else A's, quieted; a step that
// makes a NaN from numbers (∞·0, ∞ − ∞) returns 0xfff8000000000000. Not a catalog instruction:
// the catalog's raw fields (Case, corpus lines) are 32 bits wide.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tcnum {

// a, b: the K elements of a row of A and a column of B as raw binary64 bits; c: C's bits.
// Returns D's bits. Throws std::invalid_argument when a and b differ in length.
std::uint64_t dmma_element(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b, std::uint64_t c);

// The same on values (NaN payloads and signs as the raw-bit form gives them).
double dmma_element(std::span<const double> a, std::span<const double> b, double c);

// The f64 DMMA forms by PTX name, beside the catalog (whose raw fields are 32 bits): what
// `numprobe list` shows for an architecture. Their model is dmma_element; their corpus lines carry
// 16 hex digits per binary64 (corpora/h100-f64/*.tcf64.gz, docs/corpus-format.md), replayed by
// tests/test_dmma.cpp, not by `numprobe replay`.
struct DmmaForm {
  std::string name;  // "mma.m16n8k8.f64.f64.f64.f64"
  int m = 0, n = 0, k = 0;
  int min_sm = 0;         // m8n8k4: sm_80; m16n8k{4,8,16}: sm_90 (ptxas: "requires .target sm_90 or higher")
  bool h100_validated = false;  // every form: corpora/h100-f64 (sm_90)
};
std::vector<DmmaForm> dmma_forms_for(int sm);  // NVIDIA sm_80 and later; none elsewhere
// A DMMA name (".sync.aligned" and ".row.col" allowed), on any architecture; nullopt if it is none.
std::optional<DmmaForm> find_dmma_form(std::string_view name);
// Why a 32-bit path (Case, corpus line, mma_element, gemm, record, check, fuzz) refuses `name`,
// and what to use instead.
std::string dmma_not_in_catalog_message(const DmmaForm& form);

}  // namespace tcnum
