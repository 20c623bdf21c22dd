// The probes component through the installed package: says whether a GPU is there (built
// wherever tcnum was built with CUDA; run.sh runs it only to check that it links and starts).
#include <tcnum/probes/device.hpp>

#include <cstdio>
#include <string>

int main() {
  std::string why_not;
  const bool gpu = tcnum::device::available(&why_not);
  std::printf("tcnum consumer (probes): %s\n", gpu ? tcnum::device::info().name.c_str() : why_not.c_str());
  return 0;
}
