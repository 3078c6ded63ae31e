file(REMOVE_RECURSE
  "libxpose.a"
)
