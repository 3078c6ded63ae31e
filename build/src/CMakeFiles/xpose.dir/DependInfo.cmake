
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/src/gpu/device.cu" "src/CMakeFiles/xpose.dir/gpu/device.cu.o" "gcc" "src/CMakeFiles/xpose.dir/gpu/device.cu.o.d"
  "/work/main/src/gpu/seed_variants.cu" "src/CMakeFiles/xpose.dir/gpu/seed_variants.cu.o" "gcc" "src/CMakeFiles/xpose.dir/gpu/seed_variants.cu.o.d"
  "/work/main/src/core/status.cpp" "src/CMakeFiles/xpose.dir/core/status.cpp.o" "gcc" "src/CMakeFiles/xpose.dir/core/status.cpp.o.d"
  "/work/main/src/cpu/naive.cpp" "src/CMakeFiles/xpose.dir/cpu/naive.cpp.o" "gcc" "src/CMakeFiles/xpose.dir/cpu/naive.cpp.o.d"
  "/work/main/src/dispatch/execute.cpp" "src/CMakeFiles/xpose.dir/dispatch/execute.cpp.o" "gcc" "src/CMakeFiles/xpose.dir/dispatch/execute.cpp.o.d"
  "/work/main/src/dispatch/registry.cpp" "src/CMakeFiles/xpose.dir/dispatch/registry.cpp.o" "gcc" "src/CMakeFiles/xpose.dir/dispatch/registry.cpp.o.d"
  "/work/main/src/gpu/configure.cpp" "src/CMakeFiles/xpose.dir/gpu/configure.cpp.o" "gcc" "src/CMakeFiles/xpose.dir/gpu/configure.cpp.o.d"
  "/work/main/src/gpu/errors.cpp" "src/CMakeFiles/xpose.dir/gpu/errors.cpp.o" "gcc" "src/CMakeFiles/xpose.dir/gpu/errors.cpp.o.d"
  "/work/main/src/plan/normalize.cpp" "src/CMakeFiles/xpose.dir/plan/normalize.cpp.o" "gcc" "src/CMakeFiles/xpose.dir/plan/normalize.cpp.o.d"
  "/work/main/src/plan/planner.cpp" "src/CMakeFiles/xpose.dir/plan/planner.cpp.o" "gcc" "src/CMakeFiles/xpose.dir/plan/planner.cpp.o.d"
  "/work/main/src/plan/validate.cpp" "src/CMakeFiles/xpose.dir/plan/validate.cpp.o" "gcc" "src/CMakeFiles/xpose.dir/plan/validate.cpp.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
