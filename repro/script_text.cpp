// The Python a reproducer script holds besides the program: kept as text here so that every
// script says the same thing the same way (docs/repro.md).
#include "repro/script_text.h"

#include <utility>

namespace epsmith::repro_text {

// A storage is a list of values, or its bytes where a value has no exact literal (a NaN's
// payload, a bool byte other than 0 or 1, a dtype torch.tensor cannot take from Python
// numbers). Views are detached, so each is a leaf as a parameter is. One helper makes a
// tensor from its values where no two tensors share a storage, the common case.
std::string tensorHelpers(bool ref, bool shared) {
  std::string read =
      "        s = torch.tensor(values, dtype=dtype) if isinstance(values, list) else "
      "torch.frombuffer(bytearray(values), dtype=dtype)\n";
  std::string moved = "s.to(device)";
  if (ref) {
    read += "        wide = torch.complex128 if s.is_complex() else torch.float64\n";
    moved = "s.to(device, wide if ref and (s.is_floating_point() or s.is_complex()) else dtype)";
  }
  const std::string leaf = ".as_strided(size, stride, offset).detach().requires_grad_(grad)\n\n";
  if (shared) {
    return "    def storage(values, dtype):\n" + read + "        return " + moved +
           "\n\n    def view(s, size, stride, offset=0, grad=False):\n        return s" + leaf;
  }
  if (ref) read += "        s = " + std::exchange(moved, "s") + "\n";
  return "    def tensor(values, dtype, size, stride, offset=0, grad=False):\n" + read + "        return " + moved +
         leaf;
}

// Note [The fp64 rule in scripts]
// PyTorch's triage takes a numeric difference only where the tested path strays from an
// fp64 run further than eager does (torch._dynamo.utils.same with fp64_ref): values within
// 1e-4 agree; otherwise the path's RMSE against fp64 must stay within 3x eager's (2x for
// tensors of 1 000 elements or more in float32) plus 1e-5. Non-finite elements have no RMSE,
// so they are counted apart: the path may not miss more of fp64's infs and NaNs than eager.
const std::string_view kCompare = R"PY(def state(m):
    return {**dict(m.named_parameters()), **dict(m.named_buffers())}


def eager(m, args):
    return m(*args), state(m)


def run(path, ref=False, device="cpu"):
    """Outputs, inputs and state after path(m, args), by name; or the exception it raised."""
    m, args = make(ref, device)
    try:
        out, after = path(m, args)
    except Exception as e:  # noqa: BLE001 - what it raised is the result
        return e
    return {**{f"output {i}": v for i, v in enumerate(out)}, **{f"input {i}": v for i, v in enumerate(args)}, **after}


def same(a, b, ref):
    """PyTorch's fp64 rule: b may stray from the fp64 result ref no further than a does."""
    if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
        return type(a) is type(b) and (a == b or a != a and b != b)
    a, b = a.detach().cpu(), b.detach().cpu()
    if a.dtype != b.dtype or a.shape != b.shape or not (a.is_floating_point() or a.is_complex()):
        return a.dtype == b.dtype and a.shape == b.shape and torch.equal(a, b)
    close = torch.allclose(a, b, rtol=1e-4, atol=1e-4, equal_nan=True)
    if close or not isinstance(ref, torch.Tensor):
        return close
    ref = ref.detach().cpu().to(torch.complex128 if a.is_complex() else torch.float64)

    def error(t):  # elements missing fp64's infs and NaNs, and the RMSE over the others
        t = t.to(ref.dtype)
        finite = ref.isfinite() & t.isfinite()
        missed = (~finite & (t != ref) & ~(t.isnan() & ref.isnan())).sum().item()
        return missed, (t - ref)[finite].abs().square().mean().sqrt().nan_to_num().item()

    (a_missed, a_rmse), (b_missed, b_rmse) = error(a), error(b)
    multiplier = 2.0 if a.numel() >= 1000 and a.dtype == torch.float32 else 3.0
    return b_missed <= a_missed and b_rmse <= multiplier * a_rmse + 1e-5


def show(result):
    return "raised %s: %s" % (type(result).__name__, str(result).strip().split("\n")[0])


)PY";

// Note [Scripts that look for an exception]
// Most findings attributed to PyTorch are an exception in one run alone: the path raises
// where eager runs (or the reverse), or the process dies. Such a finding's script runs eager
// and the path and says which raised; it compares no values and makes no fp64 run, which
// the bug is not about (a script with both runs alike shows no exception, and a difference
// of values there is another finding, which a check of its own files). That keeps the
// script to what a maintainer reads: the module, its inputs, the two runs. A mismatch's
// script compares every output, input and state by the fp64 rule.
const std::string_view kRunForAnException = R"PY(def run(path, device="cpu"):
    m, args = make(device)
    try:
        path(m, args)
    except Exception as e:  # noqa: BLE001 - what it raised is the result
        return e


)PY";

// Note [Scripts name the step that raised]
// torch.export.export, run_decompositions, .module() and the module's run are each a line of
// `path`, so that a script looking for an exception can say which of them raised (the line
// of `path` in the exception's traceback) and the issue draft names that API in its title:
// a decomposition torch.export.export already applies raises there, not in
// run_decompositions. A script that looks for an exception returns no state, which it does
// not compare.
std::string pathFunction(ReproPath path, bool an_exception, const ExportArguments& export_arguments) {
  const std::string ran = an_exception ? "    return m(*args)\n" : "    return m(*args), state(m)\n";
  std::string exported = "torch.export.export(m, args";
  // Note [Preserved submodules in scripts]
  if (!export_arguments.preserved.empty())
    exported += ", preserve_module_call_signature=(\"" + export_arguments.preserved + "\",)";
  if (!export_arguments.dynamic_shapes.empty()) {
    exported = export_arguments.dims + "    ep = " + exported + ", dynamic_shapes=" + export_arguments.dynamic_shapes;
  } else {
    exported = "    ep = " + exported;
  }
  exported += ")";
  switch (path) {
    case ReproPath::Functionalize:
      return an_exception ? R"PY(def path(m, args):
    tensors = {**dict(m.named_parameters()), **dict(m.named_buffers())}
    return torch.func.functionalize(lambda s, a: torch.func.functional_call(m, s, a))(tensors, args)
)PY"
                          : R"PY(def path(m, args):
    tensors = state(m)
    out = torch.func.functionalize(lambda s, a: torch.func.functional_call(m, s, a))(tensors, args)
    return out, tensors
)PY";
    case ReproPath::Cuda:  // factories too make their tensors on CUDA, as epsmith's CUDA run does
      return "def path(m, args):\n    with torch.device(\"cuda\"):\n    " + ran;
    case ReproPath::NativeRT:  // not written: reproPathOf refuses it before
      break;
    case ReproPath::FunctionalForm:  // Note [The functional form in scripts]
      return an_exception ? "def path(m, args):\n    return F.forward(m, *args)\n"
                          : "def path(m, args):\n    return F.forward(m, *args), state(m)\n";
    case ReproPath::Export: return "def path(m, args):\n" + exported + "\n    m = ep.module()\n" + ran;
    case ReproPath::SaveLoad:
      return "def path(m, args):\n    buffer = io.BytesIO()\n" + exported +
             "\n    torch.export.save(ep, buffer)\n    buffer.seek(0)\n    m = torch.export.load(buffer).module()\n" +
             ran;
    case ReproPath::Decompose:
      return "def path(m, args):\n" + exported + "\n    ep = ep.run_decompositions({})\n    m = ep.module()\n" + ran;
  }
  return "";
}

std::string_view pathGuard(ReproPath path) {
  if (path == ReproPath::Cuda) {
    return R"PY(    if not torch.cuda.is_available():
        print("CUDA is not available here")
        return 2
)PY";
  }
  return "";
}

// Note [A script on a release without its op]
// A release may lack an op the program calls (shallow_copy_data_ is new in 2.14): eager and
// the path then both raise AttributeError at torch.ops, which is "no difference", and the
// releases a finding affects would call 2.13 a release where it passes, and 2.14.1 a
// regression. Eager's run tells: the script calls only torch.ops and tensor methods, so an
// AttributeError from it means the op is missing, and the script cannot run here (exit 2).
const std::string_view kOpGuard = R"PY(    if isinstance(expected, AttributeError):  # an op this torch does not have
        print("cannot run here: %s" % expected)
        return 2
)PY";

const std::string_view kMain = R"PY(    if isinstance(expected, Exception) or isinstance(actual, Exception):
        both = isinstance(expected, Exception) and isinstance(actual, Exception)
        found = [] if both else ["eager %s; the path %s" % tuple(show(r) if isinstance(r, Exception) else "ran" for r in (expected, actual))]
    else:
        ref = reference if isinstance(reference, dict) else {}
        found = ["%s: eager %s; the path %s" % (k, expected[k], actual.get(k, "nothing")) for k in expected
                 if k not in actual or not same(expected[k], actual[k], ref.get(k))]
    print("\n".join(found + ["the bug shows"]) if found else "no difference: the bug does not show")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
)PY";

bool pathHasSteps(ReproPath path) {
  return path == ReproPath::Export || path == ReproPath::SaveLoad || path == ReproPath::Decompose;
}

std::string mainForAnException(bool name_step) {
  const std::string said =
      "    said = [\"ran\" if r is None else \"raised %s: %s\" % (type(r).__name__, "
      "str(r).strip().split(\"\\n\")[0]) for r in (expected, actual)]\n";
  const std::string print =
      name_step ? "    at = [f.line for f in traceback.extract_tb(actual.__traceback__) if f.name == \"path\"] if "
                  "actual else []\n"
                  "    print(\"eager %s; the path %s%s\\nthe bug shows\" % (*said, \" in `%s`\" % at[-1] if at else "
                  "\"\"))\n"
                : "    print(\"eager %s; the path %s\\nthe bug shows\" % tuple(said))\n";
  return "    if (expected is None) == (actual is None):\n"
         "        print(\"no exception in one run alone: the bug does not show\")\n"
         "        return 0\n" +
         said + print + "    return 1\n\n\nif __name__ == \"__main__\":\n    sys.exit(main())\n";
}

}  // namespace epsmith::repro_text
