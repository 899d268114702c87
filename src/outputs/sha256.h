/* src/outputs/sha256.h — SHA-256 (FIPS 180-4), for the content hashes
 * summary.json records: the same digest `sha256sum FILE` prints, so a
 * reader can check an input against its record. */
#ifndef CCSIM_SHA256_H
#define CCSIM_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct sha256_ctx {
  uint32_t h[8];
  uint64_t bytes;         /* message length so far */
  unsigned char buf[64];  /* a partial block */
  size_t fill;
} sha256_ctx;

void sha256_init(sha256_ctx *c);
void sha256_update(sha256_ctx *c, const void *data, size_t n);
/* The digest as 64 lowercase hex digits into hex[65]. */
void sha256_hex(sha256_ctx *c, char hex[65]);

#endif
