// src/engine/cfg_check.cpp — see cfg_check.h.  The only C++ in ccsim: SimGrid
// reports a bad configuration item by a C++ exception, which only C++ can catch.
#include "engine/cfg_check.h"

#include <simgrid/engine.h>
#include <xbt/config.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

extern "C" {
#include "suggest.h"
}

namespace {

// SimGrid's option names, as its help() lists them ("   NAME: description"),
// joined "a, b, c" for suggest_in_list; help() writes to stdout, caught in a
// temporary file.
std::string option_names() {
  std::string names;
  FILE* tmp = tmpfile();
  if (!tmp) return names;
  fflush(stdout);
  const int saved = dup(1);
  dup2(fileno(tmp), 1);
  simgrid::config::help();
  fflush(stdout);
  dup2(saved, 1);
  close(saved);
  rewind(tmp);
  char line[1024];
  while (fgets(line, sizeof line, tmp)) {
    const char* p = line;
    while (*p == ' ') p++;
    if (p - line != 3) continue;  // option lines are indented by 3, their types by 7
    const size_t n = strcspn(p, ":");
    if (p[n] != ':' || n == 0 || strchr(std::string(p, n).c_str(), ' ')) continue;
    if (!names.empty()) names += ", ";
    names.append(p, n);
  }
  fclose(tmp);
  return names;
}

// The child: SimGrid's configuration started, then every item set in turn.
// Writes "INDEX\tKIND\tTEXT" for the first refused one (KIND 'k' an unknown
// key, with the closest name as TEXT; 'v' a refused value; 'n' a number
// SimGrid took that is not finite) and exits 2.
[[noreturn]] void child(char* const* cfg, int ncfg, int out) {
  int argc = 2;
  char prog[] = "ccsim", quiet[] = "--log=root.thresh:critical";
  char* argv[] = {prog, quiet, nullptr};
  simgrid_init(&argc, argv);
  for (int i = 0; i < ncfg; i++) {
    if (strncmp(cfg[i], "--cfg=", 6)) continue;
    const std::string item = cfg[i] + 6;
    try {
      simgrid::config::set_parse(item);
      // SimGrid takes "nan" and "inf" for a number: no option means one
      // (TCP-gamma:nan would silently mean no window bound)
      const std::string key = item.substr(0, item.find(':'));
      double v = 0;
      try {
        v = simgrid::config::get_value<double>(key);
      } catch (const std::exception&) {  // not a double option
      }
      if (!std::isfinite(v)) {
        dprintf(out, "%d\tn\t%s", i, "-");
        _exit(2);
      }
    } catch (const std::out_of_range& e) {  // "Bad config key: KEY"
      const std::string key = item.substr(0, item.find(':'));
      char near[128] = "";
      suggest_in_list(key.c_str(), option_names().c_str(), near, sizeof near);
      dprintf(out, "%d\tk\t%s", i, near);
      _exit(2);
    } catch (const std::exception& e) {
      dprintf(out, "%d\tv\t%s", i, e.what());
      _exit(2);
    }
  }
  _exit(0);
}

}  // namespace

extern "C" int engine_cfg_check(char* const* cfg, int ncfg, ccsim_error* err) {
  int any = 0;
  for (int i = 0; i < ncfg; i++) {
    if (strncmp(cfg[i], "--cfg=", 6)) continue;
    any = 1;
    const char* colon = strchr(cfg[i] + 6, ':');
    if (!colon || colon == cfg[i] + 6)  // SimGrid aborts with a backtrace on these
      return ccsim_fail(err, CCSIM_ERR_INPUT, "--cfg %s: expected KEY:VALUE, e.g. --cfg maxmin/precision:1e-9",
                        cfg[i] + 6);
  }
  if (!any) return 0;
  int fd[2], efd[2];
  if (pipe(fd) || pipe(efd)) return ccsim_fail(err, CCSIM_ERR_RUNTIME, "cannot check the --cfg items: pipe failed");
  fflush(stdout);
  fflush(stderr);
  const pid_t pid = fork();
  if (pid < 0) return ccsim_fail(err, CCSIM_ERR_RUNTIME, "cannot check the --cfg items: fork failed");
  if (pid == 0) {
    close(fd[0]);
    close(efd[0]);
    dup2(efd[1], 2);  // what SimGrid says when it aborts instead of throwing
    child(cfg, ncfg, fd[1]);
  }
  close(fd[1]);
  close(efd[1]);
  std::string said, log;
  char buf[4096];
  for (ssize_t n; (n = read(fd[0], buf, sizeof buf)) > 0;) said.append(buf, (size_t)n);
  for (ssize_t n; (n = read(efd[0], buf, sizeof buf)) > 0;) log.append(buf, (size_t)n);
  close(fd[0]);
  close(efd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return 0;
  int i = -1;
  char kind = 0;
  const size_t t1 = said.find('\t'), t2 = t1 == std::string::npos ? t1 : said.find('\t', t1 + 1);
  if (t2 != std::string::npos) i = atoi(said.c_str()), kind = said[t1 + 1];
  if (i >= 0 && i < ncfg) {
    const std::string item = cfg[i] + 6, text = said.substr(t2 + 1);
    const std::string key = item.substr(0, item.find(':'));
    const std::string value = item.find(':') == std::string::npos ? "" : item.substr(item.find(':') + 1);
    if (kind == 'k' && !text.empty())
      return ccsim_fail(err, CCSIM_ERR_INPUT, "--cfg %s: SimGrid has no configuration option \"%s\" (did you mean \"%s\"?)",
                        item.c_str(), key.c_str(), text.c_str());
    if (kind == 'k')
      return ccsim_fail(err, CCSIM_ERR_INPUT,
                        "--cfg %s: SimGrid has no configuration option \"%s\" (its options: SimGrid's documentation, "
                        "\"Configuring SimGrid\")", item.c_str(), key.c_str());
    if (kind == 'n')
      return ccsim_fail(err, CCSIM_ERR_INPUT, "--cfg %s: expected a finite number for %s, got \"%s\"", item.c_str(),
                        key.c_str(), value.c_str());
    return ccsim_fail(err, CCSIM_ERR_INPUT, "--cfg %s: SimGrid refuses the value \"%s\" of %s: %s", item.c_str(),
                      value.c_str(), key.c_str(), text.c_str());
  }
  // an abort inside SimGrid: its last line says why
  while (!log.empty() && (log.back() == '\n' || log.back() == ' ')) log.pop_back();
  const size_t nl = log.rfind('\n');
  const std::string last = nl == std::string::npos ? log : log.substr(nl + 1);
  return ccsim_fail(err, CCSIM_ERR_INPUT, "SimGrid refuses the --cfg items: %s",
                    last.empty() ? "it stopped without a message" : last.c_str());
}
