file(REMOVE_RECURSE
  "CMakeFiles/xpose_reference.dir/cpu/reference.cpp.o"
  "CMakeFiles/xpose_reference.dir/cpu/reference.cpp.o.d"
  "libxpose_reference.a"
  "libxpose_reference.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/xpose_reference.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
