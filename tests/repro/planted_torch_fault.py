"""Runs a reproducer script after planting a fault in torch, so that tests see a script's
"the bug shows" exit without depending on a bug of torch still existing
(tests/repro/repro_test.cpp).

  python -I planted_torch_fault.py FAULT SCRIPT

FAULT is `none`; `functionalize:OP`, a kernel for aten OP at torch's Functionalize key
that raises, as a broken functionalization kernel would (torch.func.functionalize and
run_decompositions meet it, eager does not); `cpu:OP`, a CPU kernel for aten OP that
raises, as a kernel broken in one form of an op would (only calls of that overload meet it); `export:raise`, torch.export.export raising
before it makes a program, as a decomposition it applies would; or `module:plus-one`, every
ExportedProgram.module() adding one to its floating outputs, as a runtime that miscompiled
them would; or `missing:OP`, torch.ops.aten without OP, as a release before the op would be.

With EPSMITH_TEST_TORCH_VERSION set, torch.__version__ says that release, so that one
torch stands for two releases in the tests of the releases a finding affects."""
import os
import runpy
import sys

import torch


def refusing_kernel(op, key, where):
    """A kernel for aten `op` at dispatch key `key` that raises; the library holding it."""
    library = torch.library.Library("aten", "IMPL")

    def refuse(*args, **kwargs):
        raise RuntimeError("planted fault: aten::%s refused %s" % (op, where))

    library.impl(op, refuse, key)
    return library


def plant(fault):
    kind, _, what = fault.partition(":")
    if kind == "functionalize":
        return refusing_kernel(what, "Functionalize", "under functionalization")
    if kind == "cpu":
        return refusing_kernel(what, "CPU", "on the CPU")
    if kind == "export":
        def refuse(*args, **kwargs):
            raise RuntimeError("planted fault: torch.export.export refused the module")

        torch.export.export = refuse
    if kind == "module":
        original = torch.export.ExportedProgram.module

        def module(self, *args, **kwargs):
            m = original(self, *args, **kwargs)
            forward = m.forward
            m.forward = lambda *a: tuple(o + 1 if isinstance(o, torch.Tensor) and o.is_floating_point() else o
                                         for o in forward(*a))
            return m

        torch.export.ExportedProgram.module = module
    if kind == "missing":
        lookup = type(torch.ops.aten).__getattr__

        def without(self, name):
            if self.name == "aten" and name == what:
                raise AttributeError("'_OpNamespace' 'aten' object has no attribute '%s'" % name)
            return lookup(self, name)

        type(torch.ops.aten).__getattr__ = without
        vars(torch.ops.aten).pop(what, None)  # a packet looked up before is cached there
    return None


if __name__ == "__main__":
    kept = plant(sys.argv[1])
    if os.environ.get("EPSMITH_TEST_TORCH_VERSION"):
        torch.__version__ = os.environ["EPSMITH_TEST_TORCH_VERSION"]
    sys.argv = sys.argv[2:]
    try:
        runpy.run_path(sys.argv[0], run_name="__main__")
    except SystemExit as e:
        sys.exit(e.code)
