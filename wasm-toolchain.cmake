# CMake toolchain file for WebAssembly with Debian's Emscripten (3.1.6):
#   cmake -G Ninja -DCMAKE_TOOLCHAIN_FILE=wasm-toolchain.cmake -S . -B build/wasm
# Works without emcmake. It locates Emscripten (EMSCRIPTEN env var, or the
# directory behind `emcc` on PATH, or Debian's /usr/share/emscripten) and
# then includes Emscripten's own platform file, which sets
# CMAKE_SYSTEM_NAME=Emscripten and the emcc/em++/emar tools.
if(NOT EMSCRIPTEN_ROOT_PATH)
  if(DEFINED ENV{EMSCRIPTEN} AND EXISTS "$ENV{EMSCRIPTEN}/emcc.py")
    set(EMSCRIPTEN_ROOT_PATH "$ENV{EMSCRIPTEN}")
  else()
    find_program(_shrew_emcc emcc)
    if(_shrew_emcc)
      get_filename_component(_shrew_emcc_real "${_shrew_emcc}" REALPATH)
      get_filename_component(_shrew_emcc_dir "${_shrew_emcc_real}" DIRECTORY)
      if(EXISTS "${_shrew_emcc_dir}/emcc.py")
        set(EMSCRIPTEN_ROOT_PATH "${_shrew_emcc_dir}")
      endif()
    endif()
    if(NOT EMSCRIPTEN_ROOT_PATH AND EXISTS "/usr/share/emscripten/emcc.py")
      set(EMSCRIPTEN_ROOT_PATH "/usr/share/emscripten")
    endif()
  endif()
endif()
if(NOT EMSCRIPTEN_ROOT_PATH)
  message(FATAL_ERROR "Emscripten not found: install Debian's `emscripten` package or set EMSCRIPTEN")
endif()
set(EMSCRIPTEN_ROOT_PATH "${EMSCRIPTEN_ROOT_PATH}" CACHE PATH "Emscripten root")
# Debian's emcc wrapper is the compiler to use (it sets up its config).
set(CMAKE_C_COMPILER "emcc" CACHE FILEPATH "")
set(CMAKE_CXX_COMPILER "em++" CACHE FILEPATH "")
include("${EMSCRIPTEN_ROOT_PATH}/cmake/Modules/Platform/Emscripten.cmake")
