src/CMakeFiles/xpose.dir/core/status.cpp.o: \
 /work/main/src/core/status.cpp /usr/include/stdc-predef.h \
 /work/main/include/xpose/status.hpp
