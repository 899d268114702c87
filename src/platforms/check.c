/* src/platforms/check.c — ccsim's own check of a SimGrid platform file
 * (check.h).  SimGrid 3.32 aborts the process on a zero bandwidth ("The
 * Impossible Did Happen" at the first transfer) and accepts a zero speed
 * until something computes; both are refused here, naming the element. */
#include "platforms/check.h"

#include "input/input.h"

#include <errno.h>
#include <expat.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* How an attribute's value must be: > 0 (a capacity) or >= 0 (a delay). */
enum rule { POSITIVE, NON_NEGATIVE };

typedef struct attr_rule {
  const char *element, *attribute;
  enum rule rule;
  const char *what;
} attr_rule;

/* Every numeric resource attribute of SimGrid 3.32's simgrid.dtd (v4.1). */
static const attr_rule rules[] = {
    {"host", "speed", POSITIVE, "speed"},
    {"host", "core", POSITIVE, "core count"},
    {"link", "bandwidth", POSITIVE, "bandwidth"},
    {"link", "latency", NON_NEGATIVE, "latency"},
    {"backbone", "bandwidth", POSITIVE, "bandwidth"},
    {"backbone", "latency", NON_NEGATIVE, "latency"},
    {"cluster", "speed", POSITIVE, "speed"},
    {"cluster", "core", POSITIVE, "core count"},
    {"cluster", "bw", POSITIVE, "bandwidth"},
    {"cluster", "lat", NON_NEGATIVE, "latency"},
    {"cluster", "bb_bw", POSITIVE, "backbone bandwidth"},
    {"cluster", "bb_lat", NON_NEGATIVE, "backbone latency"},
    {"cluster", "loopback_bw", POSITIVE, "loopback bandwidth"},
    {"cluster", "loopback_lat", NON_NEGATIVE, "loopback latency"},
    {"cluster", "limiter_link", POSITIVE, "limiter bandwidth"},
    {"cabinet", "speed", POSITIVE, "speed"},
    {"cabinet", "bw", POSITIVE, "bandwidth"},
    {"cabinet", "lat", NON_NEGATIVE, "latency"},
    {"peer", "speed", POSITIVE, "speed"},
    {"peer", "bw_in", POSITIVE, "bandwidth"},
    {"peer", "bw_out", POSITIVE, "bandwidth"},
    {"peer", "lat", NON_NEGATIVE, "latency"},
};

typedef struct checker {
  XML_Parser parser;
  const char *file;
  ccsim_error *err;
  int failed, depth;
  unsigned long long hosts; /* hosts declared so far, clusters' radicals expanded */
} checker;

/* Hosts a radical ("0-99", "1,3,5-7") declares, or ULLONG_MAX when it is
 * not a list of numbers and ranges (SimGrid then refuses it itself: 0 is
 * returned so only the count is judged here). */
static unsigned long long radical_hosts(const char *r) {
  unsigned long long total = 0;
  const char *p = r;
  while (*p) {
    char *end;
    errno = 0;
    const unsigned long long a = strtoull(p, &end, 10);
    if (end == p || errno) return 0;
    unsigned long long b = a;
    p = end;
    if (*p == '-') {
      b = strtoull(p + 1, &end, 10);
      if (end == p + 1 || errno) return 0;
      p = end;
    }
    if (b >= a) total += b - a + 1 > ULLONG_MAX - total ? ULLONG_MAX - total : b - a + 1;
    if (*p == ',') p++;
    else if (*p) return 0;
  }
  return total;
}

/* An element and its id for messages: <link id="l1">. */
static void element_name(char *out, size_t len, const char *el, const char **attrs) {
  const char *id = NULL;
  for (size_t i = 0; attrs[i]; i += 2)
    if (!strcmp(attrs[i], "id")) id = attrs[i + 1];
  if (id) snprintf(out, len, "<%s id=\"%.80s\">", el, id);
  else snprintf(out, len, "<%s>", el);
}

/* 0 when every comma-separated number of value obeys rule (a unit may
 * follow each number: SimGrid checks units, ccsim checks the numbers). */
static int value_ok(const char *value, enum rule rule) {
  const char *p = value;
  for (;;) {
    while (*p == ' ' || *p == '\t') p++;
    char *end;
    errno = 0;
    const double v = strtod(p, &end);
    if (end == p || !isfinite(v) || (rule == POSITIVE ? !(v > 0) : !(v >= 0))) return -1;
    p = strchr(end, ',');
    if (!p) return 0;
    p++;
  }
}

static void fail_at(checker *c, const char *fmt, const char *a, const char *b, const char *d, const char *v) {
  if (c->failed) return;
  c->failed = 1;
  char msg[512];
  snprintf(msg, sizeof msg, fmt, a, b, d, v);
  ccsim_fail(c->err, CCSIM_ERR_INPUT, "%s:%lu: %s", c->file, (unsigned long)XML_GetCurrentLineNumber(c->parser),
             msg);
  XML_StopParser(c->parser, XML_FALSE);
}

static void XMLCALL on_start(void *data, const char *el, const char **attrs) {
  checker *c = data;
  if (c->failed) return;
  char name[128];
  element_name(name, sizeof name, el, attrs);
  if (c->depth++ == 0 && strcmp(el, "platform")) {
    fail_at(c, "%s: not a SimGrid platform (the root element must be <platform>)%s%s%s", name, "", "", "");
    return;
  }
  /* SimGrid builds every host a file declares: a cluster of 10^8 hosts
   * would take minutes and gigabytes before any check could run */
  if (!strcmp(el, "host") || !strcmp(el, "peer")) c->hosts++;
  if (!strcmp(el, "cluster") || !strcmp(el, "cabinet"))
    for (size_t i = 0; attrs[i]; i += 2)
      if (!strcmp(attrs[i], "radical")) {
        const unsigned long long n = radical_hosts(attrs[i + 1]);
        c->hosts += n > ULLONG_MAX - c->hosts ? ULLONG_MAX - c->hosts : n;
      }
  if (c->hosts > PLATFORM_MAX_HOSTS) {
    char limit[32];
    snprintf(limit, sizeof limit, "%u", PLATFORM_MAX_HOSTS);
    fail_at(c, "%s: the platform declares more than %s hosts so far%s%s (ccsim simulates at most that many)", name,
            limit, "", "");
    return;
  }
  for (size_t i = 0; attrs[i]; i += 2)
    for (size_t r = 0; r < sizeof rules / sizeof *rules; r++)
      if (!strcmp(rules[r].element, el) && !strcmp(rules[r].attribute, attrs[i]) &&
          value_ok(attrs[i + 1], rules[r].rule)) {
        fail_at(c, "%s: %s \"%.60s\" must be a finite number %s", name, attrs[i], attrs[i + 1],
                rules[r].rule == POSITIVE ? "> 0" : ">= 0");
        return;
      }
}

static void XMLCALL on_end(void *data, const char *el) {
  (void)el;
  ((checker *)data)->depth--;
}

/* Entities are refused: a platform needs none, and a document that
 * declares them could expand without bound ("billion laughs"). */
static void XMLCALL on_entity(void *data, const XML_Char *name, int is_param, const XML_Char *value, int vlen,
                              const XML_Char *base, const XML_Char *sys, const XML_Char *pub,
                              const XML_Char *notation) {
  (void)is_param, (void)value, (void)vlen, (void)base, (void)sys, (void)pub, (void)notation;
  fail_at(data, "entity \"%.60s\" declared: a SimGrid platform needs none%s%s%s", name, "", "", "");
}

int platform_check_buffer(const char *buf, size_t len, const char *file, ccsim_error *err) {
  checker c = {.file = file, .err = err};
  c.parser = XML_ParserCreate(NULL);
  if (!c.parser) return ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s: out of memory for the XML parser", file);
  XML_SetUserData(c.parser, &c);
  XML_SetElementHandler(c.parser, on_start, on_end);
  XML_SetEntityDeclHandler(c.parser, on_entity);
  int rc = 0;
  /* expat takes an int length: feed large files in pieces */
  const size_t chunk = 1u << 30;
  size_t off = 0;
  do {
    const size_t n = len - off < chunk ? len - off : chunk;
    const int last = off + n == len;
    if (XML_Parse(c.parser, buf + off, (int)n, last) == XML_STATUS_ERROR && !c.failed) {
      rc = ccsim_fail(err, CCSIM_ERR_INPUT, "%s:%lu:%lu: not well-formed XML: %s", file,
                      (unsigned long)XML_GetCurrentLineNumber(c.parser),
                      (unsigned long)XML_GetCurrentColumnNumber(c.parser),
                      XML_ErrorString(XML_GetErrorCode(c.parser)));
      break;
    }
    off += n;
  } while (off < len && !c.failed);
  if (c.failed) rc = CCSIM_ERR_INPUT;
  XML_ParserFree(c.parser);
  return rc;
}

int platform_check_file(const char *path, ccsim_error *err) {
  size_t len;
  char *buf;
  int rc = cfg_read_file(path, "platform file", PLATFORM_CHECK_MAX_BYTES, &buf, &len, err);
  if (rc) return rc;
  rc = platform_check_buffer(buf, len, path, err);
  free(buf);
  return rc;
}
