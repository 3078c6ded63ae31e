# Third-party dependencies, each found by its CMake package first and, where a machine ships only
# the headers (the GPU machine's image does, for some), by its header. Nothing is downloaded.

# fmt: used header-only (no shared-library dependency at run time).
find_package(fmt QUIET)
if(NOT TARGET fmt::fmt-header-only)
  find_path(XPOSE_FMT_INCLUDE fmt/format-inl.h REQUIRED)
  add_library(fmt::fmt-header-only INTERFACE IMPORTED)
  set_target_properties(fmt::fmt-header-only PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${XPOSE_FMT_INCLUDE}" INTERFACE_COMPILE_DEFINITIONS FMT_HEADER_ONLY=1)
endif()

if(XPOSE_BUILD_TOOLS OR XPOSE_BUILD_TESTS)
  find_package(CLI11 QUIET)
  if(NOT TARGET CLI11::CLI11)
    find_path(XPOSE_CLI11_INCLUDE CLI/CLI.hpp REQUIRED)
    add_library(CLI11::CLI11 INTERFACE IMPORTED)
    set_target_properties(CLI11::CLI11 PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${XPOSE_CLI11_INCLUDE}")
  endif()
  find_package(nlohmann_json QUIET)
  if(NOT TARGET nlohmann_json::nlohmann_json)
    find_path(XPOSE_JSON_INCLUDE nlohmann/json.hpp REQUIRED)
    add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
    set_target_properties(nlohmann_json::nlohmann_json PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${XPOSE_JSON_INCLUDE}")
  endif()
endif()

if(XPOSE_BUILD_TESTS)
  find_package(GTest QUIET)
  if(NOT TARGET GTest::gtest_main)
    # Debian/Ubuntu's googletest package ships the sources; build them here.
    if(EXISTS /usr/src/googletest/CMakeLists.txt)
      set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
      set(BUILD_GMOCK OFF CACHE BOOL "" FORCE)
      add_subdirectory(/usr/src/googletest ${CMAKE_BINARY_DIR}/_googletest EXCLUDE_FROM_ALL)
      add_library(GTest::gtest_main ALIAS gtest_main)
    else()
      message(FATAL_ERROR "GoogleTest not found: run scripts/deps.sh (Debian: libgtest-dev)")
    endif()
  endif()
endif()
