# The HTML report inlines Vega, Vega-Lite and vega-embed (npm, see package.json). Their minified
# builds are embedded into the binary at build time, so a report never depends on node_modules
# (or a network) when it is written or opened. Without them (scripts/setup not run), the build
# still succeeds and `infergap report` says what to do.
set(INFERGAP_REPORT_JS
  ${PROJECT_SOURCE_DIR}/node_modules/vega/build/vega.min.js
  ${PROJECT_SOURCE_DIR}/node_modules/vega-lite/build/vega-lite.min.js
  ${PROJECT_SOURCE_DIR}/node_modules/vega-embed/build/vega-embed.min.js)
set(INFERGAP_REPORT_ASSETS_CPP ${CMAKE_BINARY_DIR}/generated/report_assets.cpp)
set(INFERGAP_REPORT_JS_FOUND ON)
foreach(js ${INFERGAP_REPORT_JS})
  if(NOT EXISTS ${js})
    set(INFERGAP_REPORT_JS_FOUND OFF)
  endif()
endforeach()
if(INFERGAP_REPORT_JS_FOUND)
  string(REPLACE ";" "|" js_arg "${INFERGAP_REPORT_JS}")
  add_custom_command(OUTPUT ${INFERGAP_REPORT_ASSETS_CPP}
    COMMAND ${CMAKE_COMMAND} -DOUTPUT=${INFERGAP_REPORT_ASSETS_CPP} -DINPUTS=${js_arg}
      -P ${CMAKE_CURRENT_LIST_DIR}/embed_assets.cmake
    DEPENDS ${INFERGAP_REPORT_JS} ${CMAKE_CURRENT_LIST_DIR}/embed_assets.cmake
    COMMENT "Embedding vega, vega-lite and vega-embed into the report writer" VERBATIM)
else()
  message(WARNING "infergap report: vega/vega-lite/vega-embed not in node_modules; run "
    "scripts/setup and re-run cmake, or `infergap report` will refuse to write a report")
  execute_process(COMMAND ${CMAKE_COMMAND} -DOUTPUT=${INFERGAP_REPORT_ASSETS_CPP} -DINPUTS=
    -P ${CMAKE_CURRENT_LIST_DIR}/embed_assets.cmake)
  # Re-configure once package.json changes (setup installs what it lists).
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/package.json)
endif()
list(APPEND INFERGAP_CORE_SOURCES ${INFERGAP_REPORT_ASSETS_CPP})
