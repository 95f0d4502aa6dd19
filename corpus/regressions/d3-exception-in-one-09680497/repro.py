"""D3 exception-in-one at aten::transpose_, found by a fuzzer (epsmith).

the module on CUDA, against eager: an exception in one run alone.
Exits 1 when the bug shows, 0 when it does not, 2 when it cannot run here."""
import sys

import torch


class M(torch.nn.Module):
    def forward(self, p_weight0, log1p_cut):
        aminmax = torch.ops.aten.aminmax.default(p_weight0, keepdim=True)
        getitem = aminmax[0]
        getitem_1 = aminmax[1]
        transpose_ = torch.ops.aten.transpose_.default(getitem, 0, 1)
        return (log1p_cut,)


def make(device="cpu"):
    """A fresh module and its inputs."""
    def tensor(values, dtype, size, stride, offset=0, grad=False):
        s = torch.tensor(values, dtype=dtype) if isinstance(values, list) else torch.frombuffer(bytearray(values), dtype=dtype)
        return s.to(device).as_strided(size, stride, offset).detach().requires_grad_(grad)

    p_weight0 = tensor([1.5], torch.float32, (1, 1, 1), (1, 1, 1))
    log1p_cut = tensor([0.6931472], torch.float32, (1, 1, 1), (1, 1, 1))
    return M(), (p_weight0, log1p_cut)


def run(path, device="cpu"):
    m, args = make(device)
    try:
        path(m, args)
    except Exception as e:  # noqa: BLE001 - what it raised is the result
        return e
    return None


def path(m, args):
    with torch.device("cuda"):
        return m(*args)


def main():
    print("torch", torch.__version__, flush=True)
    if not torch.cuda.is_available():
        print("CUDA is not available here")
        return 2
    expected = run(lambda m, args: m(*args))
    actual = run(path, device="cuda")
    if (expected is None) == (actual is None):
        print("no exception in one run alone: the bug does not show")
        return 0
    said = ["ran" if r is None else "raised %s: %s" % (type(r).__name__, str(r).strip().split("\n")[0]) for r in (expected, actual)]
    print("eager %s; the path %s\nthe bug shows" % tuple(said))
    return 1


if __name__ == "__main__":
    sys.exit(main())
