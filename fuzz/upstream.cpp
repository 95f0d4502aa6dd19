// Confirming a finding with torch alone and drafting its issue (fuzz/upstream.h).
#include "fuzz/upstream.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <sstream>
#include <thread>
#include <vector>

#include "functionalizer/functionalize.h"
#include "fuzz/report_messages.h"
#include "fuzz/root_cause.h"
#include "oracle/program_io.h"
#include "oracle/torch_peer.h"
#include "repro/python_repro.h"

namespace epsmith {
namespace {

namespace fs = std::filesystem;

// Runs `argv` in `cwd` with its output in `log`, ended (its whole process group) after
// `timeout_seconds`. The exit code, or -1 with `signal` or `timed_out` set.
int runWithTimeout(const std::vector<std::string>& argv, const fs::path& cwd, const fs::path& log, int timeout_seconds,
                   int& signal, bool& timed_out) {
  // Everything the child needs is made before the fork: a child of a process with threads
  // may call only async-signal-safe functions, and malloc is not one.
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    ::setpgid(0, 0);
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int null = ::open("/dev/null", O_RDONLY);
    if (fd < 0 || null < 0 || ::chdir(cwd.c_str()) != 0) ::_exit(127);
    ::dup2(null, 0), ::dup2(fd, 1), ::dup2(fd, 2);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      timed_out = true;
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (WIFSIGNALED(status)) signal = WTERMSIG(status);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

fs::path freshDirectory() {
  std::string tmpl = (fs::temp_directory_path() / "epsmith-repro.XXXXXX").string();
  return ::mkdtemp(tmpl.data()) ? fs::path(tmpl) : fs::path();
}

// The output's lines from the verdict on: what differs, without the torch banner.
std::string verdictLines(const std::string& output) {
  std::istringstream in(output);
  std::string line, kept;
  while (std::getline(in, line)) {
    // torch's own log lines ("E1205 11:29:56.039000 10452 fake_tensor.py:3090] ...") are no verdict
    const bool logged =
        line.size() > 5 && std::strchr("EWI", line[0]) && std::isdigit(static_cast<unsigned char>(line[1]));
    if (line.rfind("torch ", 0) == 0 || line == "the bug shows" || logged || line.find("Warning") != std::string::npos)
      continue;
    if (!kept.empty()) kept += " | ";
    kept += line;
  }
  return kept.size() > 400 ? kept.substr(0, 400) + " ..." : kept;
}

// `s` with each number written N, as message templates write them, so that a message and
// its template compare.
std::string numbersAsN(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) {
      out += s[i++];
      continue;
    }
    out += 'N';
    while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
  }
  return out;
}

// `s` with Python's torch.Size([2, 3]) written [2, 3] and torch.FloatTensor written
// CPUFloatType, as LibTorch's C++ messages write them: a check raised from Python (a
// decomposition, torch.Tensor's printing) says the same in Python's words. A graph module
// torch.export traced is of class '<lambda>', one torch.export.load rebuilt of class
// 'GraphModule': D8 decomposes what load made, a script what export traced, and a message
// naming the module's class says the same of either.
std::string inLibTorchsWords(const std::string& s) {
  static const std::regex kSize(R"(torch\.Size\((\[[^\]]*\])\))");
  static const std::regex kType(R"(torch\.(\w+)Tensor\b)");
  static const std::regex kTraced(R"('<lambda>' object)");
  const std::string words = std::regex_replace(std::regex_replace(s, kSize, "$1"), kType, "CPU$1Type");
  return std::regex_replace(words, kTraced, "'GraphModule' object");
}

// The part of a finding's message a script's output must repeat: without the exception's
// class, numbers as N, up to the first quoted name after its first character (the
// program's own), at most 40 characters.
std::string messageKey(std::string message) {
  if (auto colon = message.find(": ");
      colon != std::string::npos && colon >= 5 && colon < 40 && message.compare(colon - 5, 5, "Error") == 0) {
    message = message.substr(colon + 2);
  }
  message = numbersAsN(message);
  // A message that opens with a quote quotes a kernel's name, not the program's.
  message = message.substr(0, std::min<size_t>(message.find_first_of("'\"`", 1), 40));
  while (!message.empty() && message.back() == ' ') message.pop_back();
  return message;
}

// Whether the difference a script printed is the case's: an exception with the case's
// message where the case raised in one run, a difference of values where it mismatched.
// A case converted from format 1 kept no message, and its report holds it; a case with
// neither says nothing a script could repeat, so no exception shows it. A crash may show in
// a script as the internal assert a freed block still intact trips, and does so by turns
// (Note [One memory error, several signals]): that path's assert shows a crash's case.
bool showsTheFinding(const CaseFile& c, const std::string& output) {
  const bool raised = output.find(" raised ") != std::string::npos;
  if (c.finding.kind.find("mismatch") != std::string::npos) return !raised;
  if (c.finding.kind.rfind("crash", 0) == 0 && output.find("the path raised") != std::string::npos &&
      output.find("INTERNAL ASSERT FAILED") != std::string::npos) {
    return true;
  }
  std::string message = c.finding.message;
  if (message.empty()) message = exceptionInReport(c.finding.report);
  if (constexpr std::string_view side = "in expected only: "; message.rfind(side, 0) == 0)
    message.erase(0, side.size());
  const std::string key = messageKey(inLibTorchsWords(std::string(outsideSubgraphs(message))));
  return raised && !key.empty() && numbersAsN(inLibTorchsWords(output)).find(key) != std::string::npos;
}

}  // namespace

ScriptRun runReproScript(const std::string& script, int timeout_seconds, const std::string& python) {
  ScriptRun run;
  const fs::path dir = freshDirectory();
  if (dir.empty() || writeFileAtomically((dir / "repro.py").string(), script)) {
    run.output = "cannot write the script into a temporary directory";
    return run;
  }
  const fs::path cwd = dir / "cwd";
  fs::create_directory(cwd);
  run.exit_code =
      runWithTimeout({python.empty() ? torchPython() : python, "-I", "-W", "ignore", (dir / "repro.py").string()}, cwd,
                     dir / "output.txt", timeout_seconds, run.signal, run.timed_out);
  auto output = readFileBytes((dir / "output.txt").string());
  if (output.ok()) run.output = output.value();
  const size_t at = run.output.rfind("torch ", 0) == 0 ? 0 : run.output.find("\ntorch ");
  if (at != std::string::npos) {
    const size_t from = at + (at == 0 ? 6 : 7);
    run.torch = run.output.substr(from, run.output.find('\n', from) - from);
  }
  removeTree(dir.string());
  return run;
}

UpstreamRecord classifyScriptRun(const CaseFile& c, const ScriptRun& run) {
  UpstreamRecord r;
  r.torch = run.torch;
  r.date = utcNow();
  if (run.signal == SIGSEGV || run.signal == SIGABRT || run.signal == SIGBUS) {
    // A Python process that torch kills is a crash of torch's whatever the case recorded
    // (Note [One memory error, several signals]: an exception in one run may be one).
    r.cls = UpstreamClass::TorchConfirmed;
    r.reason = "the script's process died of " + std::string(strsignal(run.signal)) + ": a crash in torch";
  } else if (run.exit_code == 1 && run.output.find("\nthe bug shows") == std::string::npos) {
    r.reason = "the script failed before its verdict: " + verdictLines(run.output);  // a traceback
  } else if (run.exit_code == 1 && showsTheFinding(c, run.output)) {
    r.cls = UpstreamClass::TorchConfirmed;
    r.reason = verdictLines(run.output);
  } else if (run.exit_code == 1) {
    r.reason = "the script shows another difference than the case's: " + verdictLines(run.output);
  } else if (run.exit_code == 0 && c.check == "D2") {
    r.cls = UpstreamClass::CppOnly;
    r.reason =
        "torch.func.functionalize agrees with eager: only LibTorch's C++ functionalization, without Python, shows it";
  } else if (run.exit_code == 0) {
    r.reason = "the script shows no difference on torch " + run.torch;
  } else if (run.timed_out) {
    r.reason = "the script ran out of time";
  } else if (run.exit_code == 2) {
    r.reason = "the script cannot run here: " + verdictLines(run.output);
  } else {
    r.reason = "the script failed (exit " + std::to_string(run.exit_code) + ", signal " + std::to_string(run.signal) +
               "): " + verdictLines(run.output);
  }
  return r;
}

// Note [A memory error in a script shows when it will]
// torch.func.functionalize reading a tensor after it was freed kills the script's process
// on some runs and fails an internal assert on others (`!isFunctionalTensor(tensor)`): what
// the read finds depends on where the allocator put things, and that changes with address
// layout randomization from one run to the next. A crash of torch confirms any case
// (Note [One memory error, several signals]), so a run that shows neither the case's
// difference nor a crash, for a case that recorded a crash or a run that met an internal
// assert, is repeated, up to kMemoryErrorRuns runs; a script that shows its difference runs
// once, and so does one that shows nothing of a memory error. A known-bugs entry's script is
// repeated whatever it showed (known --check), since the entry claims it shows: a memory
// error may also surface as any other exception (a dispatch to a backend no tensor has), and
// CI must not call an entry wrong by chance; it is a few scripts, not a campaign's hundreds.
ScriptRun runCaseScript(const CaseFile& c, const std::string& script, int timeout_seconds, const std::string& python,
                        bool until_shown) {
  const bool recorded_crash = c.finding.kind.rfind("crash", 0) == 0;
  ScriptRun run;
  for (int i = 0; i < kMemoryErrorRuns; ++i) {
    run = runReproScript(script, timeout_seconds, python);
    if (classifyScriptRun(c, run).cls == UpstreamClass::TorchConfirmed) break;
    if (!until_shown && !recorded_crash && run.output.find("INTERNAL ASSERT FAILED") == std::string::npos) break;
  }
  return run;
}

ReproRequest reproRequestOf(const CaseFile& c, ReproPath path) {
  // Note [Scripts that look for an exception]
  const ReproLooksFor looks_for =
      isMismatchKind(c.finding.kind) ? ReproLooksFor::AnyDifference : ReproLooksFor::AnException;
  return {path, c.check + " " + c.finding.kind + (c.finding.op.empty() ? "" : " at " + c.finding.op), looks_for};
}

Expected<std::string> reproScriptOf(const ExportedProgram& p, ReproRequest request) {
  if (request.path != ReproPath::FunctionalForm) return writeReproScript(p, request);
  auto functional = functionalize(p);  // Note [The functional form in scripts]
  if (!functional.ok()) {
    return Diagnostic{functional.error().where,
                      "epsmith's functionalizer refuses the program: " + functional.error().message};
  }
  request.functional_form = &functional.value();
  return writeReproScript(p, request);
}

Expected<std::string> caseReproScript(const CaseFile& c) {
  auto path = reproPathOf(c.check);
  if (!path.ok()) return path.error();
  if (path.value() == ReproPath::FunctionalForm && c.status != CaseStatus::KnownUpstream) {
    return Diagnostic{"",
                      "D1 tests epsmith's functionalizer: a finding of it is epsmith's bug, with no upstream "
                      "script, unless its case says known-upstream (a person judged it LibTorch's)"};
  }
  if (c.check == "D7" && c.finding.kind.rfind("across-releases", 0) == 0) {
    // Note [Save and load across releases]: its case keeps the program; the two torches it
    // needs are `epsmith check`'s (replay shows it).
    return Diagnostic{"",
                      "a finding across two releases needs both torches in one run, which no torch-only script of one "
                      "Python has: replay it with both installed"};
  }
  if (!c.program) return Diagnostic{"", "the case keeps no program to write"};
  return reproScriptOf(*c.program, reproRequestOf(c, path.value()));
}

std::optional<Diagnostic> recordUpstream(const std::string& path, CaseFile& c, const UpstreamRecord& r) {
  c.upstream = r;
  auto text = writeCaseFileText(c);
  if (!text.ok()) return text.error();
  return writeFileAtomically(path, text.value());
}

const std::string& torchEnvironment() {
  static const std::string environment = [] {
    ScriptRun run =
        runReproScript("import runpy\nrunpy.run_module('torch.utils.collect_env', run_name='__main__')\n", 120);
    return run.exit_code == 0 ? run.output : std::string();
  }();
  return environment;
}

}  // namespace epsmith
