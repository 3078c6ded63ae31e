# Empty dependencies file for xpose_reference.
# This may be replaced when dependencies are built.
