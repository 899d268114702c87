/* src/train/idx.c — the idx format of MNIST and Fashion-MNIST, and the
 * Fashion-MNIST loader.
 *
 * An idx file (LeCun et al., the MNIST page; Fashion-MNIST ships the same
 * format) is: two zero bytes, a type byte (0x08: unsigned bytes, the only
 * one these datasets use), a byte holding the number of dimensions, then
 * that many 32-bit big-endian sizes, then the product of the sizes in bytes.
 * Files are read through zlib, which reads a plain file unchanged, so both
 * the shipped .gz files and unpacked copies work.  The whole payload is read
 * and its size compared with the header's before anything is used: a file
 * cut short, or one with bytes after the payload, is refused. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "input/input.h"
#include "train/data.h"

#define IDX_UBYTE 0x08
#define IDX_MAX_DIMS 4
#define FMNIST_CLASSES 10

/* A whole idx file: dims[ndims] and data[product of dims]. */
typedef struct idx_file {
  unsigned ndims;
  size_t dims[IDX_MAX_DIMS];
  size_t count;
  uint8_t *data;
} idx_file;

/* Read exactly n bytes; returns n, or fewer at the end of the stream, or -1
 * on a zlib error (message in *zmsg). */
static long long read_exact(gzFile gz, void *buf, size_t n, const char **zmsg) {
  size_t got = 0;
  while (got < n) {
    const size_t want = n - got > (1u << 30) ? (1u << 30) : n - got;
    const int r = gzread(gz, (uint8_t *)buf + got, (unsigned)want);
    if (r < 0) {
      int zerr;
      *zmsg = gzerror(gz, &zerr);
      if (zerr == Z_ERRNO) *zmsg = strerror(errno);
      return -1;
    }
    if (r == 0) {
      int zerr;
      const char *m = gzerror(gz, &zerr);
      if (zerr != Z_OK && zerr != Z_BUF_ERROR) {
        *zmsg = m;
        return -1;
      }
      /* Z_BUF_ERROR at the end: a gzip stream cut short */
      if (zerr == Z_BUF_ERROR) {
        *zmsg = "unexpected end of the gzip stream";
        return -1;
      }
      break;
    }
    got += (size_t)r;
  }
  return (long long)got;
}

/* Read an idx file of unsigned bytes with `ndims` dimensions; errors name the
 * file and what was expected. */
static int idx_read(const char *path, unsigned ndims, idx_file *f, ccsim_error *err) {
  memset(f, 0, sizeof *f);
  /* a regular file only: a FIFO or device would block or never end */
  int fd = cfg_open_regular(path, "idx file", NULL, err);
  if (fd < 0) return err ? err->code : CCSIM_ERR_INPUT;
  gzFile gz = gzdopen(fd, "rb");
  if (!gz) {
    close(fd);
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s: out of memory", path);
  }
  const char *zmsg = "";
  uint8_t head[4 + 4 * IDX_MAX_DIMS];
  int rc = 0;
  long long got = read_exact(gz, head, 4, &zmsg);
  if (got < 0) {
    rc = ccsim_fail(err, CCSIM_ERR_INPUT, "%s: corrupt or truncated gzip data: %s", path, zmsg);
    goto done;
  }
  if (got < 4) {
    rc = ccsim_fail(err, CCSIM_ERR_INPUT, "%s: truncated: %lld bytes, an idx header needs 4",
                    path, got);
    goto done;
  }
  if (head[0] != 0 || head[1] != 0 || head[2] != IDX_UBYTE || head[3] != ndims) {
    rc = ccsim_fail(err, CCSIM_ERR_INPUT,
                    "%s: bad magic %02x %02x %02x %02x: expected 00 00 08 %02x (idx, unsigned "
                    "bytes, %u dimensions)",
                    path, head[0], head[1], head[2], head[3], ndims, ndims);
    goto done;
  }
  got = read_exact(gz, head + 4, 4 * ndims, &zmsg);
  if (got < 0 || got < 4 * (long long)ndims) {
    rc = ccsim_fail(err, CCSIM_ERR_INPUT, "%s: truncated idx header: %s", path,
                    got < 0 ? zmsg : "fewer size fields than dimensions");
    goto done;
  }
  f->ndims = ndims;
  size_t count = 1;
  for (unsigned d = 0; d < ndims; d++) {
    const uint8_t *p = head + 4 + 4 * d;
    const size_t v = (size_t)p[0] << 24 | (size_t)p[1] << 16 | (size_t)p[2] << 8 | p[3];
    if (v == 0) {
      rc = ccsim_fail(err, CCSIM_ERR_INPUT, "%s: dimension %u has size 0", path, d);
      goto done;
    }
    /* the product must fit and stay below 2^40 bytes, far above any idx set */
    if (count > ((size_t)1 << 40) / v) {
      rc = ccsim_fail(err, CCSIM_ERR_INPUT, "%s: the sizes overflow: dimension %u of %zu makes "
                      "more than 2^40 bytes", path, d, v);
      goto done;
    }
    count *= v;
    f->dims[d] = v;
  }
  f->count = count;
  f->data = malloc(count + 1);
  if (!f->data) {
    rc = ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s: out of memory for %zu bytes", path, count);
    goto done;
  }
  got = read_exact(gz, f->data, count + 1, &zmsg);
  if (got < 0) {
    rc = ccsim_fail(err, CCSIM_ERR_INPUT, "%s: corrupt or truncated gzip data: %s", path, zmsg);
  } else if ((size_t)got < count) {
    rc = ccsim_fail(err, CCSIM_ERR_INPUT, "%s: truncated: %lld of the header's %zu data bytes",
                    path, got, count);
  } else if ((size_t)got > count) {
    rc = ccsim_fail(err, CCSIM_ERR_INPUT, "%s: more data than the header's %zu bytes", path,
                    count);
  }
done:
  gzclose(gz);
  if (rc) {
    free(f->data);
    f->data = NULL;
  }
  return rc;
}

tdataset *tdata_load_idx(const char *images, const char *labels, ccsim_error *err) {
  idx_file im, lb;
  if (idx_read(images, 3, &im, err)) return NULL;
  if (idx_read(labels, 1, &lb, err)) {
    free(im.data);
    return NULL;
  }
  tdataset *d = NULL;
  if (lb.dims[0] != im.dims[0]) {
    ccsim_fail(err, CCSIM_ERR_INPUT, "%s: %zu labels, but %s holds %zu images", labels,
               lb.dims[0], images, im.dims[0]);
    goto done;
  }
  for (size_t i = 0; i < lb.dims[0]; i++)
    if (lb.data[i] >= FMNIST_CLASSES) {
      ccsim_fail(err, CCSIM_ERR_INPUT, "%s: label %zu is %u: expected 0..%d", labels, i,
                 lb.data[i], FMNIST_CLASSES - 1);
      goto done;
    }
  d = calloc(1, sizeof *d);
  const size_t n = im.dims[0], f = im.dims[1] * im.dims[2];
  if (d) {
    d->n = n;
    d->features = f;
    d->classes = FMNIST_CLASSES;
    d->X = malloc(n * f * sizeof *d->X);
    d->y = malloc(n * sizeof *d->y);
  }
  if (!d || !d->X || !d->y) {
    tdata_free(d);
    d = NULL;
    ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s: out of memory for %zu images", images, n);
    goto done;
  }
  for (size_t t = 0; t < n * f; t++) d->X[t] = (float)im.data[t] / 255.0f;
  for (size_t i = 0; i < n; i++) d->y[i] = lb.data[i];
done:
  free(im.data);
  free(lb.data);
  return d;
}

int tdata_load_fashion_mnist(const char *dir, tdataset **train, tdataset **test,
                             ccsim_error *err) {
  *train = *test = NULL;
  char im[4096], lb[4096];
  static const char *const parts[2][2] = {
      {"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"},
      {"t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"}};
  for (int p = 0; p < 2; p++) {
    snprintf(im, sizeof im, "%s/%s", dir, parts[p][0]);
    snprintf(lb, sizeof lb, "%s/%s", dir, parts[p][1]);
    tdataset *d = tdata_load_idx(im, lb, err);
    if (d && d->features != 28 * 28) {
      ccsim_fail(err, CCSIM_ERR_INPUT, "%s: images of %zu pixels: expected 28 x 28", im,
                 d->features);
      tdata_free(d);
      d = NULL;
    }
    if (!d) {
      tdata_free(*train);
      *train = NULL;
      return err ? err->code : CCSIM_ERR_INPUT;
    }
    *(p ? test : train) = d;
  }
  return 0;
}
