/* tests/test_corpus.c — dataset "corpus-text" (src/train/corpus.c): the
 * tokenizer, vocabulary and samples on a small text whose answer is known,
 * its errors, and the King James Bible as the workloads load it: loaded
 * twice it is the same bit for bit, and its test split (seed 0, 20%) has
 * the majority-class rate tests/corpus_text.sh compares training with.
 * argv[1]: the KJV text (scripts/kjv-corpus.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "train/data.h"

static const char *write_tmp(const char *text) {
  static char path[64];
  snprintf(path, sizeof path, "/tmp/ccsim-corpus-%d.txt", (int)getpid());
  FILE *f = fopen(path, "w");
  if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
    fprintf(stderr, "cannot write %s\n", path);
    exit(1);
  }
  return path;
}

/* Row i's context word in block k (the one-hot's index), -1 if none. */
static int hot(const tdataset *d, size_t i, size_t k, size_t V) {
  int at = -1, ones = 0;
  for (size_t j = 0; j < V + 1; j++)
    if (d->X[i * d->features + k * (V + 1) + j] != 0) at = (int)j, ones++;
  return ones == 1 ? at : -1;
}

/* "the" x3, "cat" x2, "a" x2, "dog" x1, "s" x1 (from "Cat's"): with V = 3
 * the ids are the 0, a 1 (ties: byte order), cat 2, and dog, s are <unk> 3. */
static void check_small(void) {
  const char *p = write_tmp("The cat, THE dog.\n12 a Cat's a the");
  ccsim_error err = {0};
  const tcorpus_spec sp = {3, 2, 7}; /* 9 words, 7 positions with 2 before */
  tdataset *d = tdata_corpus_text(p, &sp, &err);
  CHECK(d != NULL, "small corpus: %s", err.msg);
  if (!d) return;
  CHECK(d->n == 7 && d->features == 8 && d->classes == 4, "shape %zu x %zu, %zu classes", d->n,
        d->features, d->classes);
  /* words: the cat the dog a cat s a the = 0 2 0 3 1 2 3 1 0; every
   * position 2..8 is taken (7 of 7), in order */
  const int w[9] = {0, 2, 0, 3, 1, 2, 3, 1, 0};
  for (size_t i = 0; i < 7; i++) {
    const size_t pos = i + 2;
    CHECK(d->y[i] == w[pos], "row %zu label %d, expected %d", i, d->y[i], w[pos]);
    CHECK(hot(d, i, 0, 3) == w[pos - 1], "row %zu previous word %d, expected %d", i, hot(d, i, 0, 3),
          w[pos - 1]);
    CHECK(hot(d, i, 1, 3) == w[pos - 2], "row %zu word before %d, expected %d", i, hot(d, i, 1, 3),
          w[pos - 2]);
  }
  tdata_free(d);
  /* errors: too many samples, vocabulary larger than the distinct words,
   * a missing file */
  const tcorpus_spec many = {3, 2, 8}, wide = {6, 1, 3};
  CHECK(!tdata_corpus_text(p, &many, &err) && strstr(err.msg, "fewer than the 8 samples"), "%s",
        err.msg);
  CHECK(!tdata_corpus_text(p, &wide, &err) && strstr(err.msg, "5 distinct words"), "%s", err.msg);
  CHECK(!tdata_corpus_text("/nonexistent/kjv.txt", &wide, &err) && strstr(err.msg, "cannot open"),
        "%s", err.msg);
  unlink(p);
}

/* The workloads' setting: vocab 1000, context 1, 20000 samples, split 0.2
 * with seed 0 (trainer.c). */
static void check_kjv(const char *path) {
  ccsim_error err = {0};
  const tcorpus_spec sp = {1000, 1, 20000};
  tdataset *a = tdata_corpus_text(path, &sp, &err);
  CHECK(a != NULL, "%s (scripts/install-deps.sh writes the corpus with scripts/kjv-corpus.sh)",
        err.msg);
  if (!a) return;
  tdataset *b = tdata_corpus_text(path, &sp, &err);
  CHECK(b && memcmp(a->X, b->X, a->n * a->features * sizeof *a->X) == 0 &&
            memcmp(a->y, b->y, a->n * sizeof *a->y) == 0,
        "two loads differ");
  tdata_free(b);
  /* the most frequent words of the KJV: "the" (63,919 of 791,679 words),
   * "and", "of" */
  size_t counts[1001] = {0};
  tdata_class_counts(a, counts);
  CHECK(counts[0] > counts[1] && counts[1] > counts[2] && counts[2] > counts[3],
        "ids not in frequency order: %zu %zu %zu %zu", counts[0], counts[1], counts[2], counts[3]);
  tdataset *train = NULL, *test = NULL;
  CHECK(tdata_split(a, 0.2, 0, &train, &test, &err) == 0, "%s", err.msg);
  if (test) {
    memset(counts, 0, sizeof counts);
    tdata_class_counts(test, counts);
    size_t best = 0;
    for (size_t c = 1; c <= 1000; c++)
      if (counts[c] > counts[best]) best = c;
    const double rate = (double)counts[best] / (double)test->n;
    printf("kjv test split: %zu samples, majority class %zu (<unk> = 1000), rate %.4f\n", test->n,
           best, rate);
    /* <unk> (11.1% of the corpus's words at V = 1000) is the majority: 436 of 4000 */
    CHECK(test->n == 4000 && best == 1000 && counts[best] == 436,
          "test split %zu samples, majority %zu at %.4f", test->n, best, rate);
  }
  tdata_free(train);
  tdata_free(test);
  tdata_free(a);
}

int main(int argc, char **argv) {
  check_small();
  if (argc > 1) check_kjv(argv[1]);
  else CHECK(0, "usage: test_corpus KJV-TEXT");
  return check_status("corpus");
}
