# Which LibTorch epsmith builds against, and the C++ standard that follows from it.
#
# By default, the torch wheel in the project's virtual environment (.venv, made by
# ci/install-deps.sh): its LibTorch is appended to CMAKE_PREFIX_PATH, so a LibTorch named
# there first (a CUDA build, a nightly) still wins. EPSMITH_VENV names another environment
# (the `2.14` preset's .venv-2.14); EPSMITH_LIBTORCH_FROM_VENV=OFF (the `nativert` preset)
# leaves the search to CMAKE_PREFIX_PATH.
option(EPSMITH_LIBTORCH_FROM_VENV "Build against the torch wheel in EPSMITH_VENV" ON)
set(EPSMITH_VENV "${PROJECT_SOURCE_DIR}/.venv" CACHE PATH "The virtual environment holding torch")

if(EPSMITH_LIBTORCH_FROM_VENV)
  if(NOT EXISTS "${EPSMITH_VENV}/bin/python")
    message(FATAL_ERROR "no virtual environment at ${EPSMITH_VENV}: run ci/install-deps.sh, "
                        "or configure with -DEPSMITH_LIBTORCH_FROM_VENV=OFF "
                        "to use a LibTorch from CMAKE_PREFIX_PATH")
  endif()
  execute_process(
    COMMAND "${EPSMITH_VENV}/bin/python" -c "import torch.utils; print(torch.utils.cmake_prefix_path)"
    OUTPUT_VARIABLE _epsmith_torch_prefix OUTPUT_STRIP_TRAILING_WHITESPACE
    RESULT_VARIABLE _epsmith_torch_status ERROR_VARIABLE _epsmith_torch_error)
  if(NOT _epsmith_torch_status EQUAL 0)
    message(FATAL_ERROR "${EPSMITH_VENV}/bin/python cannot import torch: ${_epsmith_torch_error}"
                        "run ci/install-deps.sh")
  endif()
  list(APPEND CMAKE_PREFIX_PATH "${_epsmith_torch_prefix}")
endif()

# A system MKL can trip the wheel's caffe2::mkl target; epsmith calls no MKL of its own.
set(CMAKE_DISABLE_FIND_PACKAGE_MKL TRUE)
find_package(Torch REQUIRED)

# Note [LibTorch versions epsmith supports] (oracle/libtorch_compat.h).
if(Torch_VERSION VERSION_LESS 2.11)
  message(FATAL_ERROR "LibTorch ${Torch_VERSION} (${Torch_DIR}) is not supported: epsmith "
                      "builds against LibTorch 2.11 or newer")
endif()
message(STATUS "LibTorch ${Torch_VERSION} from ${Torch_DIR}")

# Note [A CUDA LibTorch on the CPU]
# PyPI's CUDA wheels link libtorch.so and libtorch_cuda.so against CUDA's own libraries
# (cuBLAS, cuDNN, NCCL, ...), which a machine without a GPU lacks, and TorchConfig.cmake
# links them without --as-needed, so nothing built that way starts there.
# EPSMITH_LIBTORCH_CPU_ONLY links torch_cpu and c10 alone: the dispatcher and the CPU
# kernels, which is all epsmith calls by name (CUDA's kernels are reached through the
# dispatcher too). Where a GPU is, preloading libtorch_cuda.so registers its kernels and
# hooks as linking it would (docs/gpu.md). libtorch_cpu.so still needs CUDA's runtime
# (libcudart, libcupti), which the CUDA toolkit installs.
option(EPSMITH_LIBTORCH_CPU_ONLY "Link only LibTorch's CPU libraries (torch_cpu, c10)" OFF)
if(EPSMITH_LIBTORCH_CPU_ONLY)
  set(TORCH_LIBRARIES torch_cpu_library c10)
endif()

# Note [LibTorch's libraries from its own prefix]
# TorchConfig.cmake finds some libraries by name (find_library(c10_LIBRARY c10 PATHS
# <its prefix>/lib)), and CMake searches the system's directories before PATHS: with Debian's
# libtorch-dev installed beside the wheel, a wheel build linked Debian's libc10.so and
# libtorch.so too. Every library TORCH_LIBRARIES names by path outside the LibTorch found is
# replaced by its namesake there, where it has one (Debian's own build finds its libraries
# under its multiarch directory, which has none of them, and is left as it is).
set(_epsmith_torch_lib "${TORCH_INSTALL_PREFIX}/lib")
set(_epsmith_libraries)
foreach(_lib IN LISTS TORCH_LIBRARIES)
  if(IS_ABSOLUTE "${_lib}")
    get_filename_component(_dir "${_lib}" DIRECTORY)
    get_filename_component(_name "${_lib}" NAME)
    if(NOT _dir STREQUAL _epsmith_torch_lib AND EXISTS "${_epsmith_torch_lib}/${_name}")
      set(_lib "${_epsmith_torch_lib}/${_name}")
    endif()
  endif()
  list(APPEND _epsmith_libraries "${_lib}")
endforeach()
set(TORCH_LIBRARIES ${_epsmith_libraries})

# LibTorch 2.14's headers require C++20; older ones build as C++17. EPSMITH_CXX_STANDARD
# overrides (CI builds 2.13 as C++20 so the code stays C++20-clean).
if(Torch_VERSION VERSION_GREATER_EQUAL 2.14)
  set(_epsmith_std 20)
else()
  set(_epsmith_std 17)
endif()
set(EPSMITH_CXX_STANDARD "" CACHE STRING "C++ standard (empty: the one the LibTorch needs)")
if(EPSMITH_CXX_STANDARD)
  if(EPSMITH_CXX_STANDARD LESS _epsmith_std)
    message(FATAL_ERROR "LibTorch ${Torch_VERSION} needs C++${_epsmith_std}, not C++${EPSMITH_CXX_STANDARD}")
  endif()
  set(_epsmith_std ${EPSMITH_CXX_STANDARD})
endif()
set(CMAKE_CXX_STANDARD ${_epsmith_std})
set(CMAKE_CXX_STANDARD_REQUIRED ON)

# The torch.export serialized schema of the release at hand (SCHEMA_VERSION in
# torch/_export/serde/schema.py beside the wheel's LibTorch), stamped on the programs
# epsmith makes. A LibTorch unpacked without its Python files has no schema.py: programs made
# on it carry the newest schema epsmith writes (ir/program.h's SchemaVersion).
set(_epsmith_schema_py "${Torch_DIR}/../../../_export/serde/schema.py")
if(EXISTS "${_epsmith_schema_py}")
  file(STRINGS "${_epsmith_schema_py}" _epsmith_schema_line REGEX "^SCHEMA_VERSION = \\([0-9]+, [0-9]+\\)")
  string(REGEX MATCH "([0-9]+), ([0-9]+)" _ "${_epsmith_schema_line}")
  if(CMAKE_MATCH_1)
    set(EPSMITH_EXPORT_SCHEMA_MAJOR ${CMAKE_MATCH_1})
    set(EPSMITH_EXPORT_SCHEMA_MINOR ${CMAKE_MATCH_2})
    message(STATUS "torch.export schema ${CMAKE_MATCH_1}.${CMAKE_MATCH_2} (${_epsmith_schema_py})")
  endif()
endif()
