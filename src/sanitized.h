/* src/sanitized.h — CCSIM_SANITIZED: 1 when this file is compiled under
 * AddressSanitizer or ThreadSanitizer (GCC's macros, clang's features),
 * whose malloc is not glibc's and whose shadow memory takes address space
 * a limit (ulimit -v) would count; else 0. */
#ifndef CCSIM_SANITIZED_H
#define CCSIM_SANITIZED_H

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CCSIM_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define CCSIM_SANITIZED 1
#endif
#endif
#ifndef CCSIM_SANITIZED
#define CCSIM_SANITIZED 0
#endif

#endif
