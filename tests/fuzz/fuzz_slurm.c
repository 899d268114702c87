/* tests/fuzz/fuzz_slurm.c — the Slurm job-script generator (slurm_script,
 * src/sweep/sweep_slurm.h) on any sweep name, paths and options.
 *
 * Input: fields separated by NUL bytes — the sweep name, the sweep file's
 * path, the output directory, --partition, --mem, --time, the binary's path
 * (an empty option field is "not given").  The generator either refuses
 * with a message or writes a script that, read the way bash and sbatch read
 * it, says exactly what it was given and nothing more:
 *   - "#!/bin/bash", then comment and #SBATCH lines only, then ONE command
 *     line, ending the script;
 *   - the job name only letters, digits and "._-"; the --output directive's
 *     value the output directory + "/slurm/%A_%a.out" with no white space;
 *   - the command, split into words by bash's quoting rules, is exactly
 *     exec EXE sweep FILE --quiet --out OUT --threads N [--no-memo]
 *     --point "$SLURM_ARRAY_TASK_ID", with no unquoted metacharacter.
 * Anything else aborts (a finding). */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweep/sweep_slurm.h"

enum { F_NAME, F_FILE, F_OUT, F_PART, F_MEM, F_TIME, F_EXE, NF };

/* The next bash word of the command line from *p into w (at most cap - 1
 * bytes); 1 on a word, 0 at the end; aborts on what this generator must
 * never write outside quotes. */
static int word(const char **p, char *w, size_t cap) {
  const char *s = *p;
  while (*s == ' ') s++;
  if (!*s || *s == '\n') {
    if (*s == '\n' && s[1]) abort(); /* text after the command line */
    *p = s;
    return 0;
  }
  size_t n = 0;
  while (*s && *s != ' ' && *s != '\n') {
    if (*s == '\'') { /* single quotes: everything literal up to the next one */
      for (s++; *s != '\''; s++) {
        if (!*s) abort(); /* unterminated */
        if (n + 1 < cap) w[n++] = *s;
      }
      s++;
    } else if (*s == '\\') { /* an escaped byte */
      if (!s[1]) abort();
      if (n + 1 < cap) w[n++] = s[1];
      s += 2;
    } else if (*s == '"') { /* only the task id is written in double quotes */
      if (strncmp(s, "\"$SLURM_ARRAY_TASK_ID\"", 22)) abort();
      const char *v = "$SLURM_ARRAY_TASK_ID";
      for (; *v; v++)
        if (n + 1 < cap) w[n++] = *v;
      s += 22;
    } else {
      if (!isalnum((unsigned char)*s) && !strchr("-_./=", *s)) abort(); /* a bare metacharacter */
      if (n + 1 < cap) w[n++] = *s;
      s++;
    }
  }
  w[n] = 0;
  *p = s;
  return 1;
}

static void expect_word(const char **p, const char *want) {
  static char w[1 << 16];
  if (!word(p, w, sizeof w) || strcmp(w, want)) abort();
}

static void check(const char *script, char *const f[NF], const slurm_opts *o) {
  if (strncmp(script, "#!/bin/bash\n", 12)) abort();
  const char *line = script, *cmd = NULL;
  int job = 0, output = 0, array = 0;
  while (*line) {
    const char *end = strchr(line, '\n');
    if (!end) abort(); /* every line ends */
    if (line[0] != '#') {
      if (cmd) abort(); /* one command */
      cmd = line;
    } else if (cmd) {
      abort(); /* a directive or comment after the command */
    } else if (!strncmp(line, "#SBATCH ", 8)) {
      for (const char *c = line + 8; c < end; c++)
        if (isspace((unsigned char)*c)) abort(); /* sbatch would split the value */
      if (!strncmp(line, "#SBATCH --job-name=ccsim-", 25)) {
        job++;
        for (const char *c = line + 25; c < end; c++)
          if (!isalnum((unsigned char)*c) && !strchr("._-", *c)) abort();
      } else if (!strncmp(line, "#SBATCH --output=", 17)) {
        output++;
        const size_t lo = strlen(f[F_OUT]);
        if ((size_t)(end - line - 17) != lo + strlen("/slurm/%A_%a.out") || strncmp(line + 17, f[F_OUT], lo) ||
            strncmp(line + 17 + lo, "/slurm/%A_%a.out", 16))
          abort();
      } else if (!strncmp(line, "#SBATCH --array=", 16)) {
        array++;
      }
    }
    line = end + 1;
  }
  if (!cmd || job != 1 || output != 1 || array != 1) abort();
  const char *p = cmd;
  expect_word(&p, "exec");
  expect_word(&p, f[F_EXE]);
  expect_word(&p, "sweep");
  expect_word(&p, f[F_FILE]);
  expect_word(&p, "--quiet");
  expect_word(&p, "--out");
  expect_word(&p, f[F_OUT]);
  expect_word(&p, "--threads");
  char n[32];
  snprintf(n, sizeof n, "%d", o->threads > 0 ? o->threads : o->cpus_per_task);
  expect_word(&p, n);
  if (o->no_memo) expect_word(&p, "--no-memo");
  expect_word(&p, "--point");
  expect_word(&p, "$SLURM_ARRAY_TASK_ID");
  char w[8];
  if (word(&p, w, sizeof w)) abort(); /* nothing more */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *buf = malloc(size + 1);
  if (!buf) return 0;
  memcpy(buf, data, size);
  buf[size] = 0;
  char *f[NF];
  char *at = buf, *const stop = buf + size;
  for (int i = 0; i < NF; i++) { /* NUL-separated fields; missing ones empty */
    f[i] = at < stop ? at : stop;
    at = f[i] + strlen(f[i]) + 1;
    if (at > stop) at = stop;
  }
  if (!f[F_EXE][0]) f[F_EXE] = "/usr/bin/ccsim";
  slurm_opts o = {.throttle = (int)(size % 5), .cpus_per_task = 1 + (int)(size % 3),
                  .partition = f[F_PART][0] ? f[F_PART] : NULL, .mem = f[F_MEM][0] ? f[F_MEM] : NULL,
                  .time = f[F_TIME][0] ? f[F_TIME] : NULL, .threads = (int)(size % 4), .no_memo = (int)(size & 1)};
  const size_t todo[3] = {0, 2, 5};
  ccsim_error err = {0};
  char *s = slurm_script(f[F_NAME], f[F_EXE], f[F_FILE], f[F_OUT], 6, todo, 3, &o, &err);
  if (!s) {
    if (!err.msg[0]) abort(); /* a refusal without a message */
  } else {
    check(s, f, &o);
    free(s);
  }
  free(buf);
  return 0;
}
