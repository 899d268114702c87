/* src/sweep/sweep_slurm.c — see sweep_slurm.h. */
#include "sweep/sweep_slurm.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Slurm's own syntax, checked loosely so that a typo fails here, not in sbatch. */
static int plain(const char *s, const char *allowed) {
  if (!s || !*s) return 0;
  for (; *s; s++)
    if (!isalnum((unsigned char)*s) && !strchr(allowed, *s)) return 0;
  return 1;
}

int slurm_check(const slurm_opts *o, ccsim_error *err) {
  if (o->mem && (!plain(o->mem, "") || !isdigit((unsigned char)o->mem[0])))
    return ccsim_fail(err, CCSIM_ERR_INPUT, "--mem: expected a size as Slurm writes it (e.g. 4G, 500M), got \"%s\"", o->mem);
  if (o->time && (!plain(o->time, ":-") || strspn(o->time, "0123456789:-") != strlen(o->time)))
    return ccsim_fail(err, CCSIM_ERR_INPUT, "--time: expected minutes, MM:SS, HH:MM:SS or D-HH:MM:SS, got \"%s\"", o->time);
  if (o->partition && !plain(o->partition, "_-.,"))
    return ccsim_fail(err, CCSIM_ERR_INPUT, "--partition: expected a partition name, got \"%s\"", o->partition);
  return 0;
}

/* The first control character of s (newline, tab, DEL, ...), or 0. */
static int control_char(const char *s) {
  for (; *s; s++)
    if ((unsigned char)*s < 0x20 || *s == 0x7f) return (unsigned char)*s;
  return 0;
}

/* A path may stand in an #SBATCH line only when sbatch reads it back as it
 * is: no white space or control character (sbatch splits and ends
 * directives there), no quote or backslash (sbatch's directive parser
 * interprets them), no '%' (Slurm's file-name patterns). */
static int sbatch_path_ok(const char *s, int *bad) {
  for (; *s; s++)
    if ((unsigned char)*s <= 0x20 || *s == 0x7f || strchr("\"'\\%", *s)) {
      *bad = (unsigned char)*s;
      return 0;
    }
  return 1;
}

/* The sweep name as a Slurm job name: letters, digits and "._-" kept,
 * every other byte '_', at most 64 bytes; never empty. */
static void job_name(const char *name, char *buf, size_t len) {
  size_t i = 0;
  for (; name[i] && i + 1 < len && i < 64; i++)
    buf[i] = isalnum((unsigned char)name[i]) || strchr("._-", name[i]) ? name[i] : '_';
  buf[i] = 0;
  if (!i) snprintf(buf, len, "sweep");
}

int slurm_check_paths(const char *sweep_file, const char *out, ccsim_error *err) {
  int c = control_char(sweep_file);
  if (c)
    return ccsim_fail(err, CCSIM_ERR_INPUT,
                      "%s: a sweep file whose path holds a control character (0x%02x) cannot be run by Slurm",
                      sweep_file, c);
  if (!sbatch_path_ok(out, &c))
    return ccsim_fail(err, CCSIM_ERR_INPUT,
                      "--out \"%s\": with --slurm the output directory must have no white space, control "
                      "character, quote, backslash or '%%' (sbatch's #SBATCH --output cannot carry 0x%02x)",
                      out, c);
  return 0;
}

/* out/slurm/NAME into buf; -1 when it does not fit (never truncated). */
static int path_in(const char *out, const char *name, char *buf, size_t len) {
  return (size_t)snprintf(buf, len, "%s/slurm/%s", out, name) < len ? 0 : -1;
}

/* A file with text, written whole (temporary name, then rename). */
static int write_file(const char *path, const char *text, ccsim_error *err) {
  char tmp[PATH_MAX + 16];
  if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp", path) >= sizeof tmp)
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s: path too long", path);
  FILE *f = fopen(tmp, "w");
  if (!f) return ccsim_fail(err, CCSIM_ERR_RUNTIME, "cannot write %s: %s", tmp, strerror(errno));
  int bad = fputs(text, f) < 0;
  bad |= fclose(f) != 0;
  if (bad || rename(tmp, path) != 0)
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "cannot write %s: %s", path, strerror(errno));
  return 0;
}

/* Appends to a growing string; exits on no memory is not allowed: returns -1. */
static int append(char **s, size_t *len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
#include <stdarg.h>
static int append(char **s, size_t *len, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *g = realloc(*s, *len + (size_t)n + 1);
  if (!g) return -1;
  *s = g;
  va_start(ap, fmt);
  vsnprintf(*s + *len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  *len += (size_t)n;
  return 0;
}

/* A shell word in single quotes. */
static int quoted(char **s, size_t *len, const char *w) {
  if (append(s, len, "'")) return -1;
  for (const char *p = w; *p; p++)
    if (*p == '\'' ? append(s, len, "'\\''") : append(s, len, "%c", *p)) return -1;
  return append(s, len, "'");
}

char *slurm_script(const char *name, const char *exe, const char *sweep_file, const char *out,
                   size_t npoints, const size_t *todo, size_t ntodo, const slurm_opts *o, ccsim_error *err) {
  /* Every value below is data: the name reduced to a job name, the paths
   * checked for sbatch (slurm_check_paths) and single-quoted for bash, the
   * options checked by slurm_check; nothing from the input reaches a line
   * as code, and every #SBATCH line comes before the first command. */
  if (slurm_check(o, err) || slurm_check_paths(sweep_file, out, err)) return NULL;
  if (strchr(exe, '\n')) {
    ccsim_fail(err, CCSIM_ERR_RUNTIME, "the ccsim binary's path holds a newline; a job script cannot run it");
    return NULL;
  }
  char jn[80];
  job_name(name, jn, sizeof jn);
  char *s = NULL;
  size_t len = 0;
  int bad = append(&s, &len, "#!/bin/bash\n# ccsim sweep %s: %zu of %zu points, one per array task\n",
                   jn, ntodo, npoints);
  bad |= append(&s, &len, "#SBATCH --job-name=ccsim-%s\n#SBATCH --array=", jn);
  for (size_t i = 0; i < ntodo; i++) bad |= append(&s, &len, "%s%zu", i ? "," : "", todo[i]);
  if (o->throttle > 0) bad |= append(&s, &len, "%%%d", o->throttle);
  bad |= append(&s, &len, "\n#SBATCH --cpus-per-task=%d\n", o->cpus_per_task);
  if (o->mem) bad |= append(&s, &len, "#SBATCH --mem=%s\n", o->mem);
  if (o->time) bad |= append(&s, &len, "#SBATCH --time=%s\n", o->time);
  if (o->partition) bad |= append(&s, &len, "#SBATCH --partition=%s\n", o->partition);
  bad |= append(&s, &len, "#SBATCH --output=%s/slurm/%%A_%%a.out\nexec ", out);
  bad |= quoted(&s, &len, exe);
  bad |= append(&s, &len, " sweep ");
  bad |= quoted(&s, &len, sweep_file);
  bad |= append(&s, &len, " --quiet --out ");
  bad |= quoted(&s, &len, out);
  bad |= append(&s, &len, " --threads %d%s%s --point \"$SLURM_ARRAY_TASK_ID\"\n",
                o->threads > 0 ? o->threads : o->cpus_per_task, o->no_memo ? " --no-memo" : "",
                o->timing_simgrid ? " --timing simgrid" : "");
  if (bad) {
    free(s);
    ccsim_fail(err, CCSIM_ERR_RUNTIME, "out of memory writing the job script");
    return NULL;
  }
  return s;
}

int slurm_submit(const char *name, const char *sweep_file, const char *out, char *const *ids,
                 size_t npoints, const size_t *todo, size_t ntodo, const slurm_opts *o,
                 ccsim_error *err) {
  char exe[PATH_MAX], dir[PATH_MAX], p[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return ccsim_fail(err, CCSIM_ERR_RUNTIME, "cannot find the ccsim binary: %s", strerror(errno));
  exe[n] = 0;
  if (path_in(out, "", dir, sizeof dir) || path_in(out, "status", p, sizeof p))
    return ccsim_fail(err, CCSIM_ERR_INPUT, "%s: path too long", out);
  char *s = slurm_script(name, exe, sweep_file, out, npoints, todo, ntodo, o, err);
  if (!s) return err->code;
  if ((mkdir(dir, 0777) && errno != EEXIST) || (mkdir(p, 0777) && errno != EEXIST)) {
    free(s);
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "cannot create %s: %s", p, strerror(errno));
  }
  /* task index -> point id, and the sweep file, for the tasks and --collect */
  char *map = NULL;
  size_t mlen = 0;
  int bad = 0;
  for (size_t i = 0; i < npoints; i++) bad |= append(&map, &mlen, "%zu %s\n", i, ids[i]);
  if (bad) {
    free(s), free(map);
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "out of memory writing the job script");
  }
  if (o->print_only) {
    fputs(s, stdout);
    free(s), free(map);
    return 0;
  }
  /* the tasks about to run have not ended yet, whatever an earlier job left */
  for (size_t i = 0; i < ntodo; i++) {
    char name[64], st[PATH_MAX];
    snprintf(name, sizeof name, "status/%zu", todo[i]);
    if (path_in(out, name, st, sizeof st) == 0) unlink(st);
  }
  char script[PATH_MAX], pts[PATH_MAX], sf[PATH_MAX];
  int rc = 0;
  if (path_in(out, "sweep.sbatch", script, sizeof script) || path_in(out, "points.txt", pts, sizeof pts) ||
      path_in(out, "sweep.path", sf, sizeof sf))
    rc = ccsim_fail(err, CCSIM_ERR_INPUT, "%s: path too long", out);
  char *sfl = NULL;
  size_t sfn = 0;
  if (!rc && append(&sfl, &sfn, "%s\n", sweep_file)) rc = ccsim_fail(err, CCSIM_ERR_RUNTIME, "out of memory");
  if (!rc) rc = write_file(script, s, err);
  if (!rc) rc = write_file(pts, map, err);
  if (!rc) rc = write_file(sf, sfl, err);
  free(s), free(map), free(sfl);
  if (rc) return rc;
  /* sbatch --parsable prints "jobid[;cluster]" */
  fflush(NULL);
  int fd[2];
  if (pipe(fd)) return ccsim_fail(err, CCSIM_ERR_RUNTIME, "pipe: %s", strerror(errno));
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fd[1], 1);
    close(fd[0]), close(fd[1]);
    signal(SIGPIPE, SIG_DFL); /* ccsim ignores it (process.c); sbatch gets its default */
    execlp("sbatch", "sbatch", "--parsable", script, (char *)NULL);
    fprintf(stderr, "ccsim sweep: cannot run sbatch: %s\n", strerror(errno));
    _exit(127);
  }
  close(fd[1]);
  char id[128] = "";
  ssize_t got = read(fd[0], id, sizeof id - 1);
  close(fd[0]);
  int st = 0;
  waitpid(pid, &st, 0);
  if (got <= 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "sbatch %s failed (exit %d); the script is kept",
                      script, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
  id[got] = 0;
  id[strcspn(id, ";\n")] = 0;
  printf("%s\n", id);
  fprintf(stderr, "ccsim sweep %s: submitted job %s, %zu array tasks (%s); collect with: ccsim sweep --collect %s\n",
          name, id, ntodo, script, out);
  return 0;
}

int slurm_sweep_file(const char *out, char *buf, size_t len, ccsim_error *err) {
  char p[PATH_MAX];
  if (path_in(out, "sweep.path", p, sizeof p)) return ccsim_fail(err, CCSIM_ERR_INPUT, "%s: path too long", out);
  FILE *f = fopen(p, "r");
  if (!f)
    return ccsim_fail(err, CCSIM_ERR_INPUT, "%s: not a sweep submitted with --slurm (cannot read %s: %s)", out,
                      p, strerror(errno));
  int ok = fgets(buf, (int)len, f) != NULL;
  fclose(f);
  size_t l = ok ? strlen(buf) : 0;
  if (!ok || l == 0 || buf[l - 1] != '\n') return ccsim_fail(err, CCSIM_ERR_INPUT, "%s: unreadable or truncated", p);
  buf[l - 1] = 0;
  return 0;
}

int slurm_check_point(const char *out, size_t k, const char *id, ccsim_error *err) {
  char p[PATH_MAX], line[1200];
  if (path_in(out, "points.txt", p, sizeof p)) return ccsim_fail(err, CCSIM_ERR_INPUT, "%s: path too long", out);
  FILE *f = fopen(p, "r");
  if (!f) return ccsim_fail(err, CCSIM_ERR_INPUT, "cannot read %s: %s", p, strerror(errno));
  int found = 0;
  while (!found && fgets(line, sizeof line, f)) {
    char *end;
    unsigned long long i = strtoull(line, &end, 10);
    if (i != k || *end != ' ') continue;
    end[strcspn(end, "\n")] = 0;
    found = strcmp(end + 1, id) == 0 ? 1 : -1;
  }
  fclose(f);
  if (found != 1)
    return ccsim_fail(err, CCSIM_ERR_INPUT, "task %zu: the sweep changed since it was submitted (%s has no point %s at %zu); submit again",
                      k, p, id, k);
  return 0;
}

void slurm_record_status(const char *out, size_t k, int status) {
  char name[64], p[PATH_MAX], text[32];
  snprintf(name, sizeof name, "status/%zu", k);
  ccsim_error err = {0};
  snprintf(text, sizeof text, "%d\n", status);
  if (path_in(out, name, p, sizeof p) == 0 && write_file(p, text, &err))
    fprintf(stderr, "ccsim sweep: %s\n", err.msg);
}

int slurm_status(const char *out, size_t k) {
  char name[64], p[PATH_MAX];
  snprintf(name, sizeof name, "status/%zu", k);
  if (path_in(out, name, p, sizeof p)) return -1;
  FILE *f = fopen(p, "r");
  if (!f) return -1;
  int v = -1;
  if (fscanf(f, "%d", &v) != 1) v = -1;
  fclose(f);
  return v;
}
