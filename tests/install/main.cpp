#include <xpose/xpose.hpp>
#include <cstdio>
#include <vector>
int main() {
  xpose::transpose_desc d{.rows = 3, .cols = 2, .elem_bytes = 4};
  xpose::plan p;
  std::string why;
  if (xpose::make_plan(d, {.where = xpose::backend::kCpu}, &p, &why) != xpose::status::kSuccess) { std::puts(why.c_str()); return 1; }
  std::vector<float> in = {1, 2, 3, 4, 5, 6}, out(6);
  if (xpose::execute(p, in.data(), out.data()) != xpose::status::kSuccess) return 1;
  for (float v : out) std::printf("%g ", v);
  std::printf("\n%s\n", p.summary().c_str());
  return 0;
}
