"""D2 value-mismatch, found by a fuzzer (epsmith).

torch.func.functionalize (the C++ functionalization kernels), against eager; numbers by PyTorch's fp64 rule.
Exits 1 when the bug shows, 0 when it does not, 2 when it cannot run here."""
import sys

import torch


class M(torch.nn.Module):
    def forward(self, b_running0, getitem_2_cut, getitem_1_cut, getitem_cut):
        binary_cross_entropy = torch.ops.aten.binary_cross_entropy.out(getitem_cut, getitem_2_cut, out=b_running0)
        return (getitem_1_cut,)


def make(ref=False, device="cpu"):
    """A fresh module and its inputs; ref=True widens floating tensors to float64."""
    def tensor(values, dtype, size, stride, offset=0, grad=False):
        s = torch.tensor(values, dtype=dtype) if isinstance(values, list) else torch.frombuffer(bytearray(values), dtype=dtype)
        wide = torch.complex128 if s.is_complex() else torch.float64
        s = s.to(device, wide if ref and (s.is_floating_point() or s.is_complex()) else dtype)
        return s.as_strided(size, stride, offset).detach().requires_grad_(grad)

    b_running0 = tensor([-0.5], torch.bfloat16, (), ())
    getitem_2_cut = tensor([], torch.bfloat16, (1, 0, 6, 5), (30, 30, 5, 1))
    getitem_1_cut = tensor([-2.0], torch.float32, (1, 1, 1, 1), (1, 1, 1, 1))
    getitem_cut = tensor([], torch.bfloat16, (1, 0, 6, 5), (30, 30, 5, 1))
    return M(), (b_running0, getitem_2_cut, getitem_1_cut, getitem_cut)


def state(m):
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


def path(m, args):
    tensors = state(m)
    out = torch.func.functionalize(lambda s, a: torch.func.functional_call(m, s, a))(tensors, args)
    return out, tensors


def main():
    print("torch", torch.__version__, flush=True)
    expected, reference = run(eager), run(eager, ref=True)
    actual = run(path)
    if isinstance(expected, Exception) or isinstance(actual, Exception):
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
