/* src/suggest.c — see suggest.h. */
#include "suggest.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

enum { MAXLEN = 64 };

int suggest_distance(const char *a, const char *b) {
  size_t n = strlen(a), m = strlen(b);
  if (n > MAXLEN || m > MAXLEN) return 255;
  /* three rows of the optimal-string-alignment table */
  int d0[MAXLEN + 1], d1[MAXLEN + 1], d2[MAXLEN + 1];
  int *pp = d0, *p = d1, *c = d2;
  for (size_t j = 0; j <= m; j++) p[j] = (int)j;
  for (size_t i = 1; i <= n; i++) {
    c[0] = (int)i;
    for (size_t j = 1; j <= m; j++) {
      const int ai = tolower((unsigned char)a[i - 1]), bj = tolower((unsigned char)b[j - 1]);
      int best = p[j - 1] + (ai != bj);
      if (p[j] + 1 < best) best = p[j] + 1;
      if (c[j - 1] + 1 < best) best = c[j - 1] + 1;
      if (i > 1 && j > 1 && ai == tolower((unsigned char)b[j - 2]) && tolower((unsigned char)a[i - 2]) == bj &&
          pp[j - 2] + 1 < best)
        best = pp[j - 2] + 1;
      c[j] = best;
    }
    int *t = pp;
    pp = p, p = c, c = t;
  }
  return p[m] > 255 ? 255 : p[m];
}

/* word's distance to name, or to name's leaf after its last '/' when that
 * is closer; *longer = the length of the longer string compared. */
static int closeness(const char *word, const char *name, size_t *longer) {
  int d = suggest_distance(word, name);
  size_t lw = strlen(word), ln = strlen(name);
  *longer = lw > ln ? lw : ln;
  const char *leaf = strrchr(name, '/');
  if (leaf && !strchr(word, '/')) {
    int dl = suggest_distance(word, leaf + 1);
    size_t ll = strlen(leaf + 1);
    if (dl < d) d = dl, *longer = lw > ll ? lw : ll;
  }
  return d;
}

/* 1 when name beats the best so far (*bd) and is close enough. */
static int better(const char *word, const char *name, int *bd) {
  size_t longer;
  int d = closeness(word, name, &longer);
  if (d <= 2 && (size_t)d * 3 <= longer && d < *bd) {
    *bd = d;
    return 1;
  }
  return 0;
}

const char *suggest_closest(const char *word, const char *const *names) {
  const char *best = NULL;
  int bd = 3;
  for (; names && *names; names++) {
    if (!strcmp(word, *names)) return NULL;
    if (better(word, *names, &bd)) best = *names;
  }
  return best;
}

const char *suggest_in_list(const char *word, const char *list, char *out, size_t len) {
  int bd = 3, found = 0;
  for (const char *s = list; s && *s;) {
    while (*s == ' ' || *s == ',') s++;
    size_t n = strcspn(s, ",");
    while (n && s[n - 1] == ' ') n--;
    char name[MAXLEN + 2];
    if (n && n <= MAXLEN) {
      memcpy(name, s, n);
      name[n] = 0;
      if (!strcmp(word, name)) return NULL;
      if (better(word, name, &bd)) snprintf(out, len, "%s", name), found = 1;
    }
    s += strcspn(s, ",");
  }
  return found ? out : NULL;
}

const char *suggest_hint(const char *word, const char *const *names, const char *list, char *out, size_t len) {
  char fromlist[MAXLEN + 2];
  const char *a = suggest_closest(word, names), *b = suggest_in_list(word, list, fromlist, sizeof fromlist);
  const char *pick = a;
  if (b && (!a || suggest_distance(word, b) < suggest_distance(word, a))) pick = b;
  if (pick) snprintf(out, len, "did you mean \"%s\"? ", pick);
  else if (len) out[0] = 0;
  return out;
}
