#----------------------------------------------------------------
# Generated CMake target import file for configuration "Release".
#----------------------------------------------------------------

# Commands may need to know the format version.
set(CMAKE_IMPORT_FILE_VERSION 1)

# Import target "xpose::xpose" for configuration "Release"
set_property(TARGET xpose::xpose APPEND PROPERTY IMPORTED_CONFIGURATIONS RELEASE)
set_target_properties(xpose::xpose PROPERTIES
  IMPORTED_LINK_INTERFACE_LANGUAGES_RELEASE "CUDA;CXX"
  IMPORTED_LOCATION_RELEASE "${_IMPORT_PREFIX}/lib/libxpose.a"
  )

list(APPEND _cmake_import_check_targets xpose::xpose )
list(APPEND _cmake_import_check_files_for_xpose::xpose "${_IMPORT_PREFIX}/lib/libxpose.a" )

# Commands beyond this point should not need to know the version.
set(CMAKE_IMPORT_FILE_VERSION)
