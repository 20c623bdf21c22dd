// libFuzzer: schedule JSON text through parse_schedule. Besides "no crash, no UB": the only
// exception is std::invalid_argument; a parsed schedule survives schedule_to_json ->
// parse_schedule unchanged; resolving it for a K taken from the input either throws
// std::invalid_argument or gives slices that tile [0, K) exactly once, and a 1×1×K gemm under it
// runs (every reduction tree, format and C entry through the driver).
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "tcnum/core/gemm.hpp"
#include "tcnum/core/schedule.hpp"

namespace {

// Every k in [0, K) covered by exactly one step, every step inside [0, K) and at most in.k long.
bool tiles_k_once(const tcnum::ResolvedSchedule& r, int k, int ik) {
  std::vector<int> seen(static_cast<std::size_t>(k), 0);
  for (const auto& slice : r.slices)
    for (const tcnum::KStep& st : slice) {
      if (st.begin < 0 || st.length < 1 || st.length > ik || st.begin + st.length > k) return false;
      for (int x = st.begin; x < st.begin + st.length; ++x) ++seen[static_cast<std::size_t>(x)];
    }
  for (const int c : seen)
    if (c != 1) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  tcnum::Schedule s;
  try {
    s = tcnum::parse_schedule(text);
  } catch (const std::invalid_argument&) {
    return 0;  // any other exception type escapes and libFuzzer reports it
  }
  if (!(tcnum::parse_schedule(tcnum::schedule_to_json(s)) == s)) std::abort();
  static const tcnum::Instruction in = tcnum::find_instruction("mma.m16n8k16.f32.bf16.bf16.f32", 90);
  const int k = 1 + static_cast<int>(size % 3000);
  try {
    const tcnum::ResolvedSchedule r = tcnum::resolve_schedule(s, in, k);
    if (!tiles_k_once(r, k, in.k)) std::abort();
    tcnum::GemmOptions opt;
    opt.schedule = s;
    opt.threads = 1;
    const std::vector<std::uint32_t> a(static_cast<std::size_t>(k), 0x3f80), b(static_cast<std::size_t>(k), 0x3f80);
    const auto d = tcnum::gemm(tcnum::builtin_model(90), in, 1, 1, k, a, b, {0}, opt);
    if (d.size() != 1) std::abort();
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
