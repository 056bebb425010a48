# rmmjs_addon(<target> [JS_ENVIRONMENT] SOURCES <files...> [INCLUDES <dirs...>])
# A Node-API addon (built by cmake-js) against @rmmjs/core's C ABI and node-addon-api.
# JS_ENVIRONMENT adds core's rmmjs/js_environment.hpp support, for resources that call JavaScript.
# The output is build/Release/<target>.node. No CUDA toolkit is needed.
cmake_minimum_required(VERSION 3.18)

if(NOT DEFINED RMMJS_CORE_INCLUDE)
  set(RMMJS_CORE_INCLUDE "${CMAKE_CURRENT_LIST_DIR}/../../packages/core/include")
endif()

execute_process(
  COMMAND node -p "require('node-addon-api').include_dir"
  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
  OUTPUT_VARIABLE NODE_ADDON_API_DIR
  OUTPUT_STRIP_TRAILING_WHITESPACE)

function(rmmjs_addon target)
  cmake_parse_arguments(ARG "JS_ENVIRONMENT" "" "SOURCES;INCLUDES" ${ARGN})
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
  target_link_libraries(${target} PRIVATE ${CMAKE_JS_LIB} ${CMAKE_DL_LIBS} pthread)
endfunction()

# rmmjs_c_test_addon(<target> <source> [<definitions>...]): a test-only addon in plain C11 that
# uses nothing but node_api.h and the C ABI headers, as a third party's would. The project must
# enable C (enable_language(C) at file scope).
function(rmmjs_c_test_addon target source)
  add_library(${target} SHARED ${source} ${CMAKE_JS_SRC})
  set_target_properties(${target} PROPERTIES PREFIX "" SUFFIX ".node" C_STANDARD 11 C_STANDARD_REQUIRED ON
    C_VISIBILITY_PRESET hidden)
  target_include_directories(${target} PRIVATE ${CMAKE_JS_INC} ${RMMJS_CORE_INCLUDE})
  target_compile_definitions(${target} PRIVATE NAPI_VERSION=8 ${ARGN})
  target_compile_options(${target} PRIVATE -Wall -Wextra -Werror -Wno-unused-parameter)
  target_link_libraries(${target} PRIVATE ${CMAKE_JS_LIB})
endfunction()
