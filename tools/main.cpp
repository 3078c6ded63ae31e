#include <iostream>

#include "commands.hpp"

int main(int argc, char** argv) { return xpose::cli::run(argc, argv, std::cout, std::cerr); }
