"""D2 exception-in-one at aten::mode, found by a fuzzer (epsmith).

torch.func.functionalize (the C++ functionalization kernels), against eager: an exception in one run alone.
Exits 1 when the bug shows, 0 when it does not, 2 when it cannot run here."""
import sys

import torch


class M(torch.nn.Module):
    def forward(self, x1):
        vsplit = torch.ops.aten.vsplit.array(x1, [0])
        getitem = vsplit[0]
        getitem_1 = vsplit[1]
        kaiser_window = torch.ops.aten.kaiser_window.out(0, out=x1)
        mode = torch.ops.aten.mode.default(getitem_1)
        getitem_2 = mode[0]
        getitem_3 = mode[1]
        return (x1,)


def make(device="cpu"):
    """A fresh module and its inputs."""
    def tensor(values, dtype, size, stride, offset=0, grad=False):
        s = torch.tensor(values, dtype=dtype) if isinstance(values, list) else torch.frombuffer(bytearray(values), dtype=dtype)
        return s.to(device).as_strided(size, stride, offset).detach().requires_grad_(grad)

    x1 = tensor([1.0], torch.float32, (1, 1, 1, 1), (1, 1, 1, 1))
    return M(), (x1,)


def run(path, device="cpu"):
    m, args = make(device)
    try:
        path(m, args)
    except Exception as e:  # noqa: BLE001 - what it raised is the result
        return e
    return None


def path(m, args):
    tensors = {**dict(m.named_parameters()), **dict(m.named_buffers())}
    return torch.func.functionalize(lambda s, a: torch.func.functional_call(m, s, a))(tensors, args)


def main():
    print("torch", torch.__version__, flush=True)
    expected = run(lambda m, args: m(*args))
    actual = run(path)
    if (expected is None) == (actual is None):
        print("no exception in one run alone: the bug does not show")
        return 0
    said = ["ran" if r is None else "raised %s: %s" % (type(r).__name__, str(r).strip().split("\n")[0]) for r in (expected, actual)]
    print("eager %s; the path %s\nthe bug shows" % tuple(said))
    return 1


if __name__ == "__main__":
    sys.exit(main())
