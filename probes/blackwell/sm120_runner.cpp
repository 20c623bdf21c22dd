// Runner and layout self-check for the sm_120a kernels (mma_sm120_kernels.cu): packs tiles into
// registers with sm120_fragments.hpp, runs them, unpacks D. Compiled with nvcc (.ci/run checks it
// when nvcc is present); not part of the CMake build until an RTX 50xx has run the self-check.
#include "sm120_runner.hpp"

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

#include "sm120_fragments.hpp"
#include "sm120_kernels.hpp"
#include "device_buffer.hpp"
#include "exact_self_check.hpp"
#include "tcnum/core/format.hpp"

namespace tcnum::sm120 {
namespace {

using blackwell::check;
using blackwell::DeviceBuffer;

const Kernel& kernel_for(const Instruction& in) {
  for (const Kernel& k : kernels())
    if (in.name == k.name) return k;
  throw std::invalid_argument("no sm_120a probe kernel for " + in.name);
}

}  // namespace

std::vector<std::uint32_t> run_tiles(const Instruction& in, int tiles, const std::vector<std::uint32_t>& a,
                                     const std::vector<std::uint32_t>& b, const std::vector<std::uint32_t>& c,
                                     const std::vector<std::uint32_t>& scale_a, const std::vector<std::uint32_t>& scale_b,
                                     int device) {
  const Kernel& k = kernel_for(in);
  const std::size_t at = static_cast<std::size_t>(in.m) * in.k, bt = static_cast<std::size_t>(in.n) * in.k;
  const std::size_t ct = static_cast<std::size_t>(in.m) * in.n;
  const std::size_t sat = static_cast<std::size_t>(in.m) * in.scales_per_row(),
                    sbt = static_cast<std::size_t>(in.n) * in.scales_per_row();
  const auto n = static_cast<std::size_t>(tiles);
  if (a.size() != n * at || b.size() != n * bt || c.size() != n * ct || scale_a.size() != n * sat || scale_b.size() != n * sbt)
    throw std::invalid_argument(in.name + ": operand sizes do not match " + std::to_string(tiles) + " tiles");
  std::vector<std::uint32_t> ra, rb, rc, rsa, rsb;
  for (std::size_t t = 0; t < n; ++t) {
    const WarpRegisters w = pack(in, a.data() + t * at, b.data() + t * bt, c.data() + t * ct,
                                 sat ? scale_a.data() + t * sat : nullptr, sbt ? scale_b.data() + t * sbt : nullptr);
    ra.insert(ra.end(), w.a.begin(), w.a.end());
    rb.insert(rb.end(), w.b.begin(), w.b.end());
    rc.insert(rc.end(), w.c.begin(), w.c.end());
    rsa.insert(rsa.end(), w.scale_a.begin(), w.scale_a.end());
    rsb.insert(rsb.end(), w.scale_b.begin(), w.scale_b.end());
  }
  check(cudaSetDevice(device), "selecting the device");
  const std::size_t dwords = n * kLanes * cd_registers(in.d_type);
  DeviceBuffer da(ra), db(rb), dc(rc), dsa(rsa), dsb(rsb), dd{std::vector<std::uint32_t>(dwords)};
  check(launch(k, da.p, db.p, dc.p, dsa.p, dsb.p, dd.p, tiles, 3, nullptr), "launching " + in.name);
  check(cudaDeviceSynchronize(), "running " + in.name);
  std::vector<std::uint32_t> regs(dwords);
  check(cudaMemcpy(regs.data(), dd.p, dwords * 4, cudaMemcpyDeviceToHost), "copying D back");
  std::vector<std::uint32_t> d;
  d.reserve(n * ct);
  for (std::size_t t = 0; t < n; ++t) {
    const auto tile = unpack_d(in, regs.data() + t * kLanes * cd_registers(in.d_type));
    d.insert(d.end(), tile.begin(), tile.end());
  }
  return d;
}

std::string self_check(const Instruction& in, int device) {
  return blackwell::exact_self_check(in, 7, 0x5120, [device](auto&&... args) { return run_tiles(args..., device); });
}

}  // namespace tcnum::sm120
