# Warnings and sanitizers for the project's own targets.
function(neuron_target_defaults target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Werror)
endfunction()

if(NEURON_SANITIZE)
  set(_flags -fsanitize=${NEURON_SANITIZE} -fno-omit-frame-pointer)
  if(NEURON_SANITIZE MATCHES "undefined")
    list(APPEND _flags -fno-sanitize-recover=all)
  endif()
  # With sanitizer instrumentation g++ 12 reports maybe-uninitialized inside
  # libstdc++'s <regex> (a known false positive); keep it a warning there.
  list(APPEND _flags -Wno-error=maybe-uninitialized)
  add_compile_options(${_flags})
  add_link_options(${_flags})
endif()
