// D7: torch.export.load (torch's deserializer and verifier) accepts the program and rejects
// the corruptions of it that epsmith's verifier rejects; across two installed releases, each
// loads what the other saved.
#include "fuzz/check_steps.h"

#include <optional>
#include <string>

#include "oracle/pt2_archive.h"

namespace epsmith::check_detail {

namespace {

// Note [Save and load across releases]
// A program saved by one release is served by the next (a model exported and saved with
// torch 2.13, loaded by a server on 2.14), and torch.export's serialized schema is versioned
// for that: a release must load what an older one wrote, or refuse it by the schema's
// major version, and what it loads must be the same program. So D7, where a second
// release's torch is installed beside the peer's (otherReleasePython(): .venv-2.14 beside
// .venv's 2.13, and the other way round), has each release load epsmith's .pt2, run it and
// save it again with its own torch.export.save, then the other release load what it saved
// and run that: both directions. A release that cannot load what the other wrote, while
// both load epsmith's .pt2, is a finding (`across-releases-rejects`, with the schema
// versions of the writer's archive named); so is what it loaded computing otherwise than
// the program it loads from epsmith's .pt2, on the same release, inputs and kernels
// (`across-releases-` and the mismatch's kind), which no numerics change between releases
// can explain. It costs four more questions, two of a second peer spawned once per process
// (no zygote: Note [A zygote for campaign peers] is the peer's own release's), so a campaign
// asks it on one in `--across-every` of the cases that ask torch.
struct Saved {
  PeerReply reply;  // the release's answer about epsmith's .pt2: verdict, run, its own save
  std::string torch;
};

std::string schemaOf(const std::string& archive) {
  auto program = readProgramPt2(archive);
  if (!program.ok()) return "a schema epsmith cannot read";
  return "schema " + std::to_string(program->schema_version.major) + "." +
         std::to_string(program->schema_version.minor);
}

// `loader` loading what `saver` saved: a finding where it refuses it or runs it otherwise
// than the program it loads from epsmith's .pt2.
std::optional<CheckOutcome> acrossOneWay(const ExportedProgram& p, const Saved& saver, const Saved& loader,
                                         const PeerReply& loaded, PhaseTimes* times) {
  const PeerVerdict& v = loaded.verdicts.at(0);
  const std::string way = "torch " + loader.torch + " loading what torch " + saver.torch +
                          "'s torch.export.save wrote (" + schemaOf(*saver.reply.resaved) + ")";
  if (!v.accepts) {
    CheckOutcome o = finding(DiffCheck::D7, std::string(kAcrossReleases) + "-rejects", "",
                             way + " refuses it, though both load epsmith's .pt2: " + verdictText(v));
    o.message = withoutNodeNames(v.type + ": " + v.message, p);
    return o;
  }
  if (!loader.reply.module_run || !loaded.module_run) return std::nullopt;
  CheckOutcome o = compareWithTorch(p, DiffCheck::D7, *loader.reply.module_run, *loaded.module_run, way, times);
  if (o.status != Status::Finding) return std::nullopt;
  o.kind = std::string(kAcrossReleases) + "-" + o.kind;
  return o;
}

CheckOutcome acrossReleases(const ExportedProgram& p, PhaseTimes* times) {
  const auto ask = [times](const PeerRequest& request, PeerRelease release) {
    PhaseClock clock(times, Phase::Torch);
    return askTorchPeer(request, 120, release);
  };
  auto archive = writeProgramPt2(p);
  if (!archive.ok()) return skip(DiffCheck::D7, "its .pt2 cannot be written");
  PeerRequest first;
  first.module_run = first.resave = true;
  first.archives = {archive.value()};
  auto own = ask(first, PeerRelease::Own);
  auto other = ask(first, PeerRelease::Other);
  if (!other.ok() && otherReleasePython().empty()) return skip(DiffCheck::D7, other.error().message);
  for (const auto* r : {&own, &other}) {
    if (!r->ok())
      return finding(DiffCheck::D7, "torch-peer-failed", "",
                     "torch died or hung on this program: " + r->error().message);
  }
  const Saved a{own.value(), own->torch_version}, b{other.value(), other->torch_version};
  if (!a.reply.verdicts.at(0).accepts || !b.reply.verdicts.at(0).accepts || !a.reply.resaved || !b.reply.resaved) {
    CheckOutcome o = pass(DiffCheck::D7);
    o.report = "across releases: not both load and save epsmith's .pt2";
    return o;
  }
  for (const auto& [saver, loader, release] :
       {std::tuple{&a, &b, PeerRelease::Other}, std::tuple{&b, &a, PeerRelease::Own}}) {
    PeerRequest load;
    load.module_run = true;
    load.archives = {*saver->reply.resaved};
    auto loaded = ask(load, release);
    if (!loaded.ok())
      return finding(DiffCheck::D7, "torch-peer-failed", "",
                     "torch died or hung on this program: " + loaded.error().message);
    if (auto o = acrossOneWay(p, *saver, *loader, loaded.value(), times)) return *o;
  }
  CheckOutcome o = pass(DiffCheck::D7);
  o.report = "torch " + a.torch + " and torch " + b.torch + " each load and run what the other saved";
  return o;
}

}  // namespace

CheckOutcome d7(const ExportedProgram& p, const TorchAnswer& a, const CheckOptions& options) {
  if (auto o = unanswered(DiffCheck::D7, a)) return *o;
  const std::string torch = "torch " + a.reply.torch_version;
  const PeerVerdict& own = a.reply.verdicts.at(0);
  if (!own.accepts) {
    CheckOutcome o = finding(
        DiffCheck::D7, "torch-rejects", "",
        "epsmith's verifier accepts the program; torch.export.load (" + torch + ") refuses it: " + verdictText(own));
    o.message = withoutNodeNames(own.type + ": " + own.message, p);
    return o;
  }
  for (size_t i = 0; i < a.corruptions.size(); ++i) {
    if (a.reply.verdicts.at(i + 1).accepts) {
      const std::string id(checkIdName(a.corruptions[i]->check));
      return finding(DiffCheck::D7, "torch-accepts:" + id, "",
                     std::string(a.corruptions[i]->what) + ": epsmith's verifier rejects it (" + a.rejected_as[i] +
                         "); torch.export.load (" + torch + ") accepts it",
                     id);
    }
  }
  if (options.across_releases) {
    CheckOutcome across = acrossReleases(p, options.times);
    if (across.status == Status::Finding) return across;
  }
  CheckOutcome o = pass(DiffCheck::D7);
  o.report = "torch.export.load accepts the program and rejects " + std::to_string(a.corruptions.size()) +
             " corruption(s) of it, as epsmith's verifier does";
  return o;
}

CheckOutcome runD7(CheckContext& c) { return d7(c.program, torchAnswer(c), c.options); }

void focusD7(const CheckOutcome& finding, CheckOptions& options) {
  options.across_releases = finding.kind.rfind(kAcrossReleases, 0) == 0;
  if (!finding.variant.empty()) options.corruption = checkIdFromName(finding.variant);
}

}  // namespace epsmith::check_detail
