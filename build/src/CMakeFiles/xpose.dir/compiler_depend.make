# Empty compiler generated dependencies file for xpose.
# This may be replaced when dependencies are built.
