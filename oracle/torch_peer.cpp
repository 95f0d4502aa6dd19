// See torch_peer.h; the protocol is python/epsmith_peer.py's docstring.
#include "oracle/torch_peer.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <torch/csrc/jit/serialization/pickle.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <iterator>
#include <sstream>

#include "formats/json.h"
#include "ir/program.h"

extern char** environ;

namespace epsmith {
namespace {

#ifndef EPSMITH_PEER_PYTHON
#define EPSMITH_PEER_PYTHON "python3"
#endif
#ifndef EPSMITH_PEER_SCRIPT
#define EPSMITH_PEER_SCRIPT "python/epsmith_peer.py"
#endif
#ifndef EPSMITH_RELEASE_PYTHONS
#define EPSMITH_RELEASE_PYTHONS ""
#endif

std::string fromEnv(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

struct Spawned {
  pid_t pid;
  int to, from;  // its standard input and output
};

// `python` running the peer script with `args` after it, standard input and output on pipes.
Expected<Spawned> spawnPeer(const std::string& python, const std::vector<std::string>& args) {
  const std::string script = fromEnv("EPSMITH_PEER", EPSMITH_PEER_SCRIPT);
  if (access(script.c_str(), R_OK) != 0) return Diagnostic{"", "no torch peer script at " + script + " (EPSMITH_PEER)"};
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) != 0) return Diagnostic{"", std::string("pipe: ") + std::strerror(errno)};
  if (pipe2(out, O_CLOEXEC) != 0) {
    close(in[0]), close(in[1]);
    return Diagnostic{"", std::string("pipe: ") + std::strerror(errno)};
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  std::vector<std::string> words{python, script};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, python.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(in[0]), close(out[1]);
  if (rc != 0) {
    close(in[1]), close(out[0]);
    return Diagnostic{"", "cannot start " + python + ": " + std::strerror(rc) + " (EPSMITH_PYTHON)"};
  }
  return Spawned{pid, in[1], out[0]};
}

int connectTo(const std::string& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.size() >= sizeof address.sun_path) {
    errno = ENAMETOOLONG;
    return -1;
  }
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  if (connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    const int saved = errno;
    close(fd);
    errno = saved;
    return -1;
  }
  return fd;
}

// The peer's first line, which says torch imported, or why not (a Python without torch);
// the reason where it is not. `announce`: report the faults it planted on standard error.
template <typename Channel>
std::optional<std::string> readGreeting(Channel& peer, bool announce, pid_t* pid = nullptr) {
  auto ready = peer.readLine();
  if (!ready.ok()) return "the torch peer did not start: " + ready.error().message;
  std::optional<std::string> refused;
  auto greeting = readJson(ready.value(), "", [&](const JsonAt& at) {
    if (auto error = at.optional("error")) {
      refused = error->string();
      return true;
    }
    at.field("torch").string();
    if (auto p = at.optional("pid"); p && pid) *pid = static_cast<pid_t>(p->integer());
    if (auto planted = at.optional("planted"); planted && announce) {
      for (const std::string& f : planted->strings()) {
        std::fprintf(stderr, "epsmith: torch peer fault planted: %s (EPSMITH_PLANTED_FAULT)\n", f.c_str());
      }
    }
    return true;
  });
  if (!greeting.ok()) return "the torch peer's first line is not its greeting: " + ready.value();
  return refused;
}

// Note [One peer per process]
// The peer is a child of the process that asked first. Campaign workers fork (minimization
// steps, Note [Minimizing in forked steps]); a forked child inherits the pipes but must not
// speak on them, or two processes would interleave requests to one peer. So a peer belongs
// to the pid that started it, and another pid starts its own, leaving its parent's alone.
// A peer that dies or times out is ended and reaped; the next request starts another. In a
// campaign the peer is forked by the zygote instead (Note [A zygote for campaign peers]).
class Peer {
 public:
  // `python`: the other release's (Note [Save and load across releases]); "": the own one's.
  explicit Peer(std::string python = "") : python_(std::move(python)) {}
  ~Peer() { end(false); }

  std::optional<std::string> ensure() {
    if (to_ >= 0 && owner_ == getpid()) return std::nullopt;
    if (to_ >= 0) forget();
    if (unavailable_ && owner_ == getpid()) return unavailable_;
    owner_ = getpid();
    unavailable_ = start();
    return unavailable_;
  }

  Expected<std::string> exchange(const std::string& request, int timeout_seconds) {
    deadline_ = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
    if (auto e = writeAll(request)) return fail(*e);
    return readLine();
  }

  Expected<std::string> readBytes(size_t n) {
    std::string out;
    while (buffered_.size() < n) {
      if (auto e = fill()) return fail(*e);
    }
    out = buffered_.substr(0, n);
    buffered_.erase(0, n);
    return out;
  }

  Expected<std::string> readLine() {
    size_t nl;
    while ((nl = buffered_.find('\n')) == std::string::npos) {
      if (auto e = fill()) return fail(*e);
    }
    std::string line = buffered_.substr(0, nl);
    buffered_.erase(0, nl + 1);
    return line;
  }

  // Ends a peer that broke the protocol; the next request starts another.
  Diagnostic fail(const std::string& why) {
    end(true);
    return Diagnostic{"torch peer", why};
  }

  // Starts the zygote (Note [A zygote for campaign peers]) as this object's peer.
  std::optional<std::string> startZygote(const std::string& path) {
    owner_ = getpid();
    unavailable_ = start({"--zygote", path});
    return unavailable_;
  }

 private:
  std::optional<std::string> start(const std::vector<std::string>& args = {}) {
    // A peer that dies while a request is written must be an error of the write, not the
    // end of this process.
    ::signal(SIGPIPE, SIG_IGN);
    buffered_.clear();
    deadline_ = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    // The zygote is the own release's; the other release's peer is spawned once per process.
    const char* zygote = args.empty() && python_.empty() ? std::getenv("EPSMITH_PEER_ZYGOTE") : nullptr;
    if (zygote && *zygote) {
      const int fd = connectTo(zygote);
      if (fd < 0) return std::string("cannot reach the torch peer zygote at ") + zygote + ": " + std::strerror(errno);
      pid_ = 0, to_ = fd, from_ = dup(fd);
      // The zygote's child, not ours: its pid lets a hung one be killed.
      auto greeting = readGreeting(*this, false, &pid_);
      if (greeting) end(true);  // no peer to ask: the next question starts over
      return greeting ? std::optional<std::string>("the torch peer zygote's peer: " + *greeting) : std::nullopt;
    }
    auto spawned = spawnPeer(python_.empty() ? torchPython() : python_, args);
    if (!spawned.ok()) return spawned.error().message;
    pid_ = spawned->pid, to_ = spawned->to, from_ = spawned->from;
    auto greeting = readGreeting(*this, true);
    if (greeting) end(true);  // one that greeted with why it cannot serve (no torch) has ended
    return greeting;
  }

  std::optional<std::string> writeAll(const std::string& data) {
    size_t done = 0;
    while (done < data.size()) {
      if (auto e = await(to_, POLLOUT)) return e;
      const ssize_t n = write(to_, data.data() + done, data.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return "the torch peer stopped reading" + exitStatus();
      done += static_cast<size_t>(n);
    }
    return std::nullopt;
  }

  std::optional<std::string> fill() {
    if (auto e = await(from_, POLLIN)) return e;
    char chunk[1 << 16];
    const ssize_t n = read(from_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) return std::nullopt;
    if (n <= 0) return "the torch peer died" + exitStatus();
    buffered_.append(chunk, static_cast<size_t>(n));
    return std::nullopt;
  }

  std::optional<std::string> await(int fd, short events) {
    for (;;) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - std::chrono::steady_clock::now());
      if (left.count() <= 0) return "the torch peer took too long (a hang in torch, or a program too big for it)";
      pollfd p{fd, events, 0};
      const int rc = poll(&p, 1, static_cast<int>(left.count()));
      if (rc > 0) return std::nullopt;
      if (rc < 0 && errno != EINTR) return std::string("poll: ") + std::strerror(errno);
    }
  }

  // ", killed by signal 11" once the peer is reaped; "" while it still runs.
  std::string exitStatus() {
    int status = 0;
    if (pid_ <= 0 || waitpid(pid_, &status, WNOHANG) != pid_) return "";
    pid_ = -1;
    if (WIFSIGNALED(status)) return " (killed by signal " + std::to_string(WTERMSIG(status)) + ")";
    return " (exit status " + std::to_string(WEXITSTATUS(status)) + ")";
  }

  void end(bool kill_it) {
    if (owner_ != getpid()) return forget();
    if (to_ >= 0) close(to_);
    if (from_ >= 0) close(from_);
    if (pid_ > 0) {
      if (kill_it) kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);  // closing its stdin ends a healthy peer
    }
    pid_ = -1, to_ = -1, from_ = -1;
  }

  // A forked child's copy of its parent's peer: closed, never spoken to.
  void forget() {
    if (to_ >= 0) close(to_);
    if (from_ >= 0) close(from_);
    pid_ = -1, to_ = -1, from_ = -1;
    unavailable_.reset();
  }

  std::string python_;
  pid_t pid_ = -1, owner_ = -1;
  int to_ = -1, from_ = -1;
  std::string buffered_;
  std::optional<std::string> unavailable_;
  std::chrono::steady_clock::time_point deadline_;
};

Peer& thePeer(PeerRelease release = PeerRelease::Own) {
  // Never destroyed: a peer outlives static destruction order.
  static Peer* own = new Peer;
  static Peer* other = new Peer(otherReleasePython());
  return release == PeerRelease::Own ? *own : *other;
}

std::string requestHeader(const PeerRequest& r) {
  JsonWriter w;
  w.beginObject();
  w.key("checks").beginArray();
  if (r.module_run) w.string("D5");
  if (r.decompose) w.string("D8");
  if (r.resave) w.string("resave");
  w.endArray();
  w.key("archives").beginArray();
  for (const auto& a : r.archives) w.unsignedInteger(a.size());
  w.endArray();
  w.endObject();
  return w.str() + "\n";
}

}  // namespace

namespace {

// Note [Tensors LibTorch's unpickler cannot read]
// torch.save writes a tensor of a dtype newer than its legacy storages (uint16/32/64, the
// float8 types) with torch._utils._rebuild_tensor_v3, which LibTorch's C++ unpickler does
// not know ("Unpickler found unknown type"). So the peer and the tests' eager driver send
// such a tensor as ["epsmith:bits", dtype name, sizes, its bytes as a flat uint8 tensor]
// (epsmith_peer.py's _plain), read back here into the tensor it was.
c10::IValue fromBits(const c10::IValue& v) {
  if (!v.isList()) return v;
  const auto parts = v.toListRef();
  if (parts.size() != 4 || !parts[0].isString() || parts[0].toStringRef() != "epsmith:bits") return v;
  static const std::pair<const char*, c10::ScalarType> kNames[] = {
      {"uint16", c10::ScalarType::UInt16},
      {"uint32", c10::ScalarType::UInt32},
      {"uint64", c10::ScalarType::UInt64},
      {"float8_e4m3fn", c10::ScalarType::Float8_e4m3fn},
      {"float8_e5m2", c10::ScalarType::Float8_e5m2},
      {"float8_e4m3fnuz", c10::ScalarType::Float8_e4m3fnuz},
      {"float8_e5m2fnuz", c10::ScalarType::Float8_e5m2fnuz},
      {"float8_e8m0fnu", c10::ScalarType::Float8_e8m0fnu},
  };
  const std::string& name = parts[1].toStringRef();
  std::vector<int64_t> sizes;  // unpickled as a list of IValues, not an int list
  for (const c10::IValue& s : parts[2].toListRef()) sizes.push_back(s.toInt());
  for (const auto& [known, dtype] : kNames) {
    if (name == known) return parts[3].toTensor().view(dtype).reshape(sizes);
  }
  throw std::runtime_error("a tensor of dtype " + name + ", which epsmith does not read");
}

}  // namespace

RunResult decodeTorchRun(const std::string& bytes) {
  c10::IValue v = torch::jit::pickle_load(std::vector<char>(bytes.begin(), bytes.end()));
  RunResult r;
  const auto parts = v.toTupleRef().elements();
  if (parts.size() != 2) throw std::runtime_error("a run's results are not (outputs, finals)");
  for (const c10::IValue& o : parts[0].toListRef()) r.outputs.push_back(fromBits(o));
  for (const c10::IValue& f : parts[1].toListRef()) {
    const auto pair = f.toListRef();
    r.final_inputs.emplace_back(pair.at(0).toStringRef(), fromBits(pair.at(1)).toTensor());
  }
  return r;
}

namespace {

RunResult raised(const JsonAt& error) {
  RunResult r;
  r.error = RunError{"", "", error.field("type").string() + ": " + error.field("message").string()};
  return r;
}

SpecList readSpecList(const JsonAt& at) {
  SpecList s;
  auto pairs = [](const JsonAt& list, auto& out) {
    for (size_t i = 0; i < list.size(); ++i) out.emplace_back(list[i][0].string(), list[i][1].string());
  };
  pairs(at.field("inputs"), s.inputs);
  pairs(at.field("outputs"), s.outputs);
  return s;
}

// What the header promises, read; the payloads follow it in the order D5, D8.
struct Header {
  PeerReply reply;
  std::optional<size_t> module_results, decomposed_results, resaved_bytes;
};

Header readHeader(const JsonAt& at) {
  Header h;
  h.reply.torch_version = at.field("torch").string();
  const JsonAt verdicts = at.field("verdicts");
  for (size_t i = 0; i < verdicts.size(); ++i) {
    PeerVerdict v;
    v.accepts = verdicts[i].field("accepts").boolean();
    if (!v.accepts) {
      v.stage = verdicts[i].field("stage").string();
      v.type = verdicts[i].field("type").string();
      v.message = verdicts[i].field("message").string();
    }
    h.reply.verdicts.push_back(std::move(v));
  }
  if (auto d5 = at.optional("D5")) {
    if (auto e = d5->optional("error"))
      h.reply.module_run = raised(*e);
    else
      h.module_results = d5->field("results").unsignedInteger();
  }
  if (auto d8 = at.optional("D8")) {
    if (auto e = d8->optional("error")) {
      if (e->field("stage").view() == "decompose") {
        h.reply.decompose_error = e->field("type").string() + ": " + e->field("message").string();
      } else {
        h.reply.decomposed_run = raised(*e);
      }
    } else {
      h.decomposed_results = d8->field("results").unsignedInteger();
    }
    if (auto s = d8->optional("signature")) h.reply.decomposed_signature = readSpecList(*s);
  }
  if (auto resaved = at.optional("resaved")) {
    if (auto e = resaved->optional("error"))
      h.reply.resave_error = e->field("type").string() + ": " + e->field("message").string();
    else
      h.resaved_bytes = resaved->field("results").unsignedInteger();
  }
  return h;
}

}  // namespace

std::string torchPython() { return fromEnv("EPSMITH_PYTHON", EPSMITH_PEER_PYTHON); }

namespace {

std::string environmentOf(const std::string& python) {
  return std::filesystem::absolute(python).lexically_normal().string();
}

}  // namespace

std::vector<std::string> releasePythons() {
  std::vector<std::string> pythons{torchPython()};
  std::vector<std::string> seen{environmentOf(pythons.front())};
  const char* listed = std::getenv("EPSMITH_RELEASE_PYTHONS");
  std::istringstream in(listed ? listed : EPSMITH_RELEASE_PYTHONS);
  for (std::string path; std::getline(in, path, ':');) {
    std::error_code ec;
    if (path.empty() || !std::filesystem::exists(path, ec)) continue;
    if (std::find(seen.begin(), seen.end(), environmentOf(path)) != seen.end()) continue;
    seen.push_back(environmentOf(path));
    pythons.push_back(path);
  }
  return pythons;
}

std::string otherReleasePython() {
  static const std::string python = [] {
    if (const char* named = std::getenv("EPSMITH_OTHER_PYTHON")) return std::string(named);
    const std::vector<std::string> all = releasePythons();
    return all.size() > 1 ? all[1] : std::string();
  }();
  return python;
}

std::optional<std::string> torchPeerUnavailable() { return thePeer().ensure(); }

std::optional<std::string> startTorchZygote() {
  static Peer* zygote = nullptr;  // kept: its pipe's end is what keeps the zygote alive
  static std::optional<std::string> why;
  if (zygote) return why;
  zygote = new Peer;
  char dir[] = "/tmp/epsmith-peer-XXXXXX";
  if (!mkdtemp(dir)) return why = std::string("mkdtemp: ") + std::strerror(errno);
  // The zygote removes the socket and `dir` when it ends
  // (Note [A zygote for campaign peers]); one that never started leaves them to us.
  const std::string path = std::string(dir) + "/zygote";
  why = zygote->startZygote(path);
  if (why) {
    unlink(path.c_str());
    rmdir(dir);
  } else {
    ::setenv("EPSMITH_PEER_ZYGOTE", path.c_str(), 1);
  }
  return why;
}

Expected<PeerReply> askTorchPeer(const PeerRequest& request, int timeout_seconds, PeerRelease release) {
  if (release == PeerRelease::Other && otherReleasePython().empty()) {
    return Diagnostic{"torch peer", "no other release's torch is installed (EPSMITH_OTHER_PYTHON)"};
  }
  Peer& peer = thePeer(release);
  if (auto why = peer.ensure()) return Diagnostic{"torch peer", *why};
  std::string message = requestHeader(request);
  for (const auto& a : request.archives) message += a;
  auto line = peer.exchange(message, timeout_seconds);
  if (!line.ok()) return line.error();
  auto header = readJson(line.value(), "torch peer reply", readHeader);
  if (!header.ok()) return peer.fail(header.error().str());
  Header h = std::move(header).value();
  for (auto [size, into] :
       {std::pair{h.module_results, &h.reply.module_run}, std::pair{h.decomposed_results, &h.reply.decomposed_run}}) {
    if (!size) continue;
    auto bytes = peer.readBytes(*size);
    if (!bytes.ok()) return bytes.error();
    try {
      *into = decodeTorchRun(bytes.value());
    } catch (const std::exception& e) {
      return Diagnostic{"torch peer", std::string("cannot read a run's results: ") + e.what()};
    }
  }
  if (h.resaved_bytes) {
    auto bytes = peer.readBytes(*h.resaved_bytes);
    if (!bytes.ok()) return bytes.error();
    h.reply.resaved = std::move(bytes).value();
  }
  return std::move(h.reply);
}

// Note [Signatures compared by kind and target]
// torch and epsmith name placeholders apart (torch after the module's arguments, epsmith
// as its generator chose), so a signature compares as the kinds of its specs, in order,
// with the FQN they target; a user input by its place among the user inputs ("#0"), and a
// user-input mutation by the place of the input it writes. The peer makes the same list
// of torch's program (epsmith_peer.py's Peer.signature).
namespace {

// torch's InputKind / OutputKind enum names: the serialized union tags upper-cased, but the
// one the schema spells in the other order.
std::string torchKindName(std::string_view tag) {
  if (tag == "tensor_constant") return "CONSTANT_TENSOR";
  std::string out(tag);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

SpecList specList(const ExportedProgram& p) {
  SpecList s;
  std::vector<std::pair<std::string, int>> user;
  for (const InputSpec& in : p.signature.input_specs) {
    std::string target = in.target.value_or("");
    if (in.kind == InputKind::UserInput) {
      user.emplace_back(in.arg.name, static_cast<int>(user.size()));
      target = "#" + std::to_string(user.back().second);
    }
    s.inputs.emplace_back(torchKindName(inputKindName(in.kind)), target);
  }
  for (const OutputSpec& out : p.signature.output_specs) {
    std::string target = out.target.value_or("");
    if (out.kind == OutputKind::UserInputMutation) {
      int place = -1;
      for (const auto& [name, i] : user) {
        if (name == target) place = i;
      }
      target = "#" + std::to_string(place);
    }
    s.outputs.emplace_back(torchKindName(outputKindName(out.kind)), target);
  }
  return s;
}

}  // namespace epsmith
