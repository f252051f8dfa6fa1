# CMake toolchain of the HoloLens 2 build (scripts/build-hololens.sh): the
# OpenXR loader that openxr-sys (feature static) builds, for ARM64 Windows,
# through the zig wrappers beside this file and Debian's LLVM archiver.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR ARM64)
set(CMAKE_C_COMPILER "${CMAKE_CURRENT_LIST_DIR}/zig-gcc")
set(CMAKE_CXX_COMPILER "${CMAKE_CURRENT_LIST_DIR}/zig-g++")
set(CMAKE_RC_COMPILER "${CMAKE_CURRENT_LIST_DIR}/zig-windres")
set(CMAKE_AR "$ENV{HOLOTERRAIN_LLVM_BIN}/llvm-ar")
set(CMAKE_RANLIB "$ENV{HOLOTERRAIN_LLVM_BIN}/llvm-ranlib")
