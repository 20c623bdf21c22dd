// Runner and layout self-check of the sm_100a block-scaled tcgen05.mma probe (tcgen05_block_scale.cu).
// Compiled with nvcc (.ci/run checks it when nvcc is present); not part of the CMake build until a
// B200 has run the self-check.
#include "tcgen05_runner.hpp"

#include <cuda_runtime_api.h>

#include <cstring>
#include <stdexcept>

#include "tcgen05_kernels.hpp"
#include "tcgen05_layout.hpp"
#include "device_buffer.hpp"
#include "exact_self_check.hpp"
#include "tcnum/core/format.hpp"

namespace tcnum::tcgen05 {
namespace {

using blackwell::check;
using blackwell::DeviceBuffer;

int form_of(const Instruction& in) {
  if (in.kind == "mxf8f6f4") return 0;
  if (in.kind == "mxf4") return 1;
  return in.scale_block == 32 ? 2 : 3;  // mxf4nvf4: scale_vec::2X (ue8m0) or 4X
}

void append_words(std::vector<std::uint32_t>& out, const std::vector<std::uint8_t>& bytes) {
  const std::size_t at = out.size();
  out.resize(at + bytes.size() / 4);
  std::memcpy(out.data() + at, bytes.data(), bytes.size());  // little-endian words, as the GPU reads them
}

}  // namespace

std::vector<std::uint32_t> run_tiles(const Instruction& in, int tiles, const std::vector<std::uint32_t>& a,
                                     const std::vector<std::uint32_t>& b, const std::vector<std::uint32_t>& c,
                                     const std::vector<std::uint32_t>& scale_a, const std::vector<std::uint32_t>& scale_b,
                                     int device) {
  if (!supported(in)) throw std::invalid_argument("tcgen05 probe: " + in.name + " is outside the probe's scope");
  const std::size_t at = static_cast<std::size_t>(in.m) * in.k, bt = static_cast<std::size_t>(in.n) * in.k;
  const std::size_t ct = static_cast<std::size_t>(in.m) * in.n, s = static_cast<std::size_t>(in.scales_per_row());
  const auto n = static_cast<std::size_t>(tiles);
  if (a.size() != n * at || b.size() != n * bt || c.size() != n * ct || scale_a.size() != n * in.m * s ||
      scale_b.size() != n * in.n * s)
    throw std::invalid_argument(in.name + ": operand sizes do not match " + std::to_string(tiles) + " tiles");
  std::vector<std::uint32_t> ia, ib, isa, isb;
  for (std::size_t t = 0; t < n; ++t) {
    const Images im = images(in, a.data() + t * at, b.data() + t * bt, scale_a.data() + t * in.m * s,
                             scale_b.data() + t * in.n * s);
    append_words(ia, im.a);
    append_words(ib, im.b);
    append_words(isa, im.scale_a);
    append_words(isb, im.scale_b);
  }
  check(cudaSetDevice(device), "selecting the device");
  DeviceBuffer da(ia), db(ib), dsa(isa), dsb(isb), dc(c), dd{std::vector<std::uint32_t>(n * ct)};
  check(launch_block_scaled(form_of(in), da.p, db.p, dsa.p, dsb.p, dc.p, dd.p, tiles, in.n, instruction_descriptor(in),
                            nullptr),
        "launching " + in.name);
  check(cudaDeviceSynchronize(), "running " + in.name);
  std::vector<std::uint32_t> d(n * ct);
  check(cudaMemcpy(d.data(), dd.p, d.size() * 4, cudaMemcpyDeviceToHost), "copying D back");
  return d;
}

std::string self_check(const Instruction& in, int device) {
  return blackwell::exact_self_check(in, 3, 0x100a, [device](auto&&... args) { return run_tiles(args..., device); });
}

}  // namespace tcnum::tcgen05
