file(REMOVE_RECURSE
  "CMakeFiles/xpose.dir/core/status.cpp.o"
  "CMakeFiles/xpose.dir/core/status.cpp.o.d"
  "CMakeFiles/xpose.dir/cpu/naive.cpp.o"
  "CMakeFiles/xpose.dir/cpu/naive.cpp.o.d"
  "CMakeFiles/xpose.dir/dispatch/execute.cpp.o"
  "CMakeFiles/xpose.dir/dispatch/execute.cpp.o.d"
  "CMakeFiles/xpose.dir/dispatch/registry.cpp.o"
  "CMakeFiles/xpose.dir/dispatch/registry.cpp.o.d"
  "CMakeFiles/xpose.dir/gpu/configure.cpp.o"
  "CMakeFiles/xpose.dir/gpu/configure.cpp.o.d"
  "CMakeFiles/xpose.dir/gpu/device.cu.o"
  "CMakeFiles/xpose.dir/gpu/device.cu.o.d"
  "CMakeFiles/xpose.dir/gpu/errors.cpp.o"
  "CMakeFiles/xpose.dir/gpu/errors.cpp.o.d"
  "CMakeFiles/xpose.dir/gpu/seed_variants.cu.o"
  "CMakeFiles/xpose.dir/gpu/seed_variants.cu.o.d"
  "CMakeFiles/xpose.dir/plan/normalize.cpp.o"
  "CMakeFiles/xpose.dir/plan/normalize.cpp.o.d"
  "CMakeFiles/xpose.dir/plan/planner.cpp.o"
  "CMakeFiles/xpose.dir/plan/planner.cpp.o.d"
  "CMakeFiles/xpose.dir/plan/validate.cpp.o"
  "CMakeFiles/xpose.dir/plan/validate.cpp.o.d"
  "libxpose.a"
  "libxpose.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CUDA CXX)
  include(CMakeFiles/xpose.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
