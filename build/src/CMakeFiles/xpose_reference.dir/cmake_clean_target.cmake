file(REMOVE_RECURSE
  "libxpose_reference.a"
)
