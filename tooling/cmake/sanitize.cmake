# The sanitizer build of `pnpm test:asan` (tooling/scripts/asan.mjs): included after every
# project() call (-DCMAKE_PROJECT_INCLUDE=<this file>), so that every target of the build, C and
# C++, addon or not, is compiled and linked with ASan and UBSan. Not CMAKE_CXX_FLAGS: cmake-js sets
# that one itself (-DBUILDING_NODE_EXTENSION), after and over any --CD given on its command line.
# -g1: the line tables the reports' stacks need, for a quarter less compile time than -g.
add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -g1)
add_link_options(-fsanitize=address,undefined)
