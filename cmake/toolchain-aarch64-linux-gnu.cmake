# Cross-building for aarch64 (Grace hosts) with Debian's cross toolchain (g++-aarch64-linux-gnu)
# and arm64 multiarch libraries (zlib1g-dev:arm64, libgtest-dev:arm64, ...): .ci/aarch64 uses it.
# Executables are linked statically, so qemu-aarch64 runs them (ctest's emulator below, and
# TCNUM_NUMPROBE in test_numprobe_cli) without an arm64 loader or library path.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64)
