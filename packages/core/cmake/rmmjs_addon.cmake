# rmmjs_addon(<target> [JS_ENVIRONMENT] SOURCES <files...> [INCLUDES <dirs...>] [SHIPS <targets...>])
# Shipped in @rmmjs/core (cmake/); a package's CMakeLists.txt includes it from the @rmmjs/core it
# resolves, so that `cmake-js compile` builds an installed package with only core installed.
# A Node-API addon (built by cmake-js) against @rmmjs/core's C ABI and node-addon-api.
# JS_ENVIRONMENT adds core's rmmjs/js_environment.hpp support, for resources that call JavaScript.
# SHIPS names shared libraries the addon loads, which its prebuild ships beside it.
# The output is build/Release/<target>.node. No CUDA toolkit is needed.
# The addon (and what it SHIPS) is also copied to prebuilds/<platform>-<arch>/<target>.napi.<libc>.node,
# where node-gyp-build (core's loadAddon) finds it in a package installed without a compiler: that
# is what a published package ships. Not in a source build of an installed package (a folder under
# node_modules/): there build/Release/ is loaded first, and a package manager's store is left alone.
cmake_minimum_required(VERSION 3.18)

# -DRMMJS_PREBUILDS=ON|OFF decides instead.
if(NOT DEFINED RMMJS_PREBUILDS)
  if(CMAKE_SOURCE_DIR MATCHES "/node_modules/")
    set(RMMJS_PREBUILDS OFF)
  else()
    set(RMMJS_PREBUILDS ON)
  endif()
endif()

# Core's headers, beside this file in @rmmjs/core.
if(NOT DEFINED RMMJS_CORE_INCLUDE)
  set(RMMJS_CORE_INCLUDE "${CMAKE_CURRENT_LIST_DIR}/../include")
endif()

# node-addon-api's headers, as the package being built resolves it (a devDependency here; in an
# installed package, the project's).
execute_process(
  COMMAND node -p "require('node-addon-api').include_dir"
  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
  RESULT_VARIABLE NODE_ADDON_API_STATUS
  OUTPUT_VARIABLE NODE_ADDON_API_DIR
  ERROR_QUIET
  OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT NODE_ADDON_API_STATUS EQUAL 0)
  message(FATAL_ERROR "rmmjs: node-addon-api cannot be found from ${CMAKE_SOURCE_DIR}: install it in your project (npm install --save-dev node-addon-api@8)")
endif()

if(RMMJS_PREBUILDS)
  # The folder and libc tag as node-gyp-build computes them for the Node that builds.
  execute_process(
    COMMAND node -p "process.platform + '-' + process.arch + ' ' + (require('fs').existsSync('/etc/alpine-release') ? 'musl' : 'glibc')"
    OUTPUT_VARIABLE RMMJS_PREBUILD_TUPLE
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  separate_arguments(RMMJS_PREBUILD_TUPLE)
  list(GET RMMJS_PREBUILD_TUPLE 0 RMMJS_PREBUILD_DIR)
  list(GET RMMJS_PREBUILD_TUPLE 1 RMMJS_PREBUILD_LIBC)
  set(RMMJS_PREBUILD_DIR "${CMAKE_SOURCE_DIR}/prebuilds/${RMMJS_PREBUILD_DIR}")
endif()

function(rmmjs_addon target)
  cmake_parse_arguments(ARG "JS_ENVIRONMENT" "" "SOURCES;INCLUDES;SHIPS" ${ARGN})
  if(ARG_JS_ENVIRONMENT)
    list(APPEND ARG_SOURCES ${RMMJS_CORE_INCLUDE}/../addon-support/js_environment.cc)
  endif()
  add_library(${target} SHARED ${ARG_SOURCES} ${CMAKE_JS_SRC})
  set_target_properties(${target} PROPERTIES
    PREFIX "" SUFFIX ".node"
    CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON
    CXX_VISIBILITY_PRESET hidden C_VISIBILITY_PRESET hidden
    POSITION_INDEPENDENT_CODE ON)
  target_include_directories(${target} PRIVATE
    ${CMAKE_JS_INC} ${NODE_ADDON_API_DIR} ${RMMJS_CORE_INCLUDE} ${ARG_INCLUDES})
  # A C++ exception thrown while the environment is terminating (worker.terminate()) would abort
  # the process: node-addon-api drops it instead.
  target_compile_definitions(${target} PRIVATE NAPI_VERSION=8 NAPI_CPP_EXCEPTIONS NODE_API_SWALLOW_UNTHROWABLE_EXCEPTIONS)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wno-unused-parameter -O2)
  target_link_libraries(${target} PRIVATE ${CMAKE_JS_LIB} ${CMAKE_DL_LIBS} pthread ${ARG_SHIPS})
  if(RMMJS_PREBUILDS)
    set(prebuilds ${RMMJS_PREBUILD_DIR}/${target}.napi.${RMMJS_PREBUILD_LIBC}.node)
    set(copies COMMAND ${CMAKE_COMMAND} -E copy $<TARGET_FILE:${target}> ${RMMJS_PREBUILD_DIR}/${target}.napi.${RMMJS_PREBUILD_LIBC}.node)
    foreach(library ${ARG_SHIPS})
      list(APPEND prebuilds ${RMMJS_PREBUILD_DIR}/${CMAKE_SHARED_LIBRARY_PREFIX}${library}${CMAKE_SHARED_LIBRARY_SUFFIX})
      list(APPEND copies COMMAND ${CMAKE_COMMAND} -E copy $<TARGET_FILE:${library}> ${RMMJS_PREBUILD_DIR}/)
    endforeach()
    # Made again whenever the addon (or a library it ships) is rebuilt, or a prebuild is missing.
    add_custom_command(OUTPUT ${prebuilds}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${RMMJS_PREBUILD_DIR}
      ${copies}
      DEPENDS ${target} ${ARG_SHIPS}
      VERBATIM)
    add_custom_target(${target}_prebuild ALL DEPENDS ${prebuilds})
  endif()
endfunction()
