"""PyTorch's own export stack as epsmith's peer: the checks D5, D7 and D8 of docs/design.md,
asked of the installed torch, one program after another, over a pipe.

The C++ driver starts `python epsmith_peer.py` once per worker and keeps it; each request is
a program as torch.export.save's archive (and, for D7, corruptions of it). The peer loads,
verifies, runs and decomposes with torch and sends back verdicts and results; every
comparison is made by the driver's comparator, so the peer judges nothing itself.

Protocol (docs/design.md, "The torch peer"). Both directions: one line of JSON, then the
payloads it announces, back to back.
  request  {"checks": ["D5", "D7", "D8", "resave"], "archives": [n0, n1, ...]}  archive 0
           is the program, the others are only loaded (D7's verdicts on corruptions)
  reply    {"torch": VERSION, "verdicts": [VERDICT per archive],
            "D5": {"error": ERROR|null, "results": n},
            "D8": {"error": ERROR|null, "results": n, "signature": SIGNATURE},
            "resaved": {"error": ERROR|null, "results": n}}
           then the D5 results, then the D8 results (torch.save of
           (outputs, [[name, tensor], ...]), as RunResult holds them), then the program
           as this torch.export.save writes it
  VERDICT  {"accepts": true} or {"accepts": false, "stage": "verify"|"load", "type", "message"}
  ERROR    {"stage": "run"|"decompose"|"save", "type", "message"}
A first reply {"torch": VERSION, "ready": true, "planted": [FAULT, ...]} is sent once torch
is imported.
EPSMITH_PLANTED_FAULT entries for the peer (Note [Planted faults in the peer]) are read
at start.
"""

import contextlib
import copy
import io
import json
import logging
import os
import sys
import warnings


def _error(stage, e):
    message = str(e).strip().split("\n")[0]
    return {"stage": stage, "type": type(e).__name__, "message": message}


class Peer:
    def __init__(self, torch, off_by_one=(), raising=(), resave=()):
        self.torch = torch
        self.off_by_one = off_by_one  # Note [Planted faults in the peer]
        self.raising = raising
        self.resave_faults = resave
        from torch.export.graph_signature import InputKind, OutputKind

        self.InputKind, self.OutputKind = InputKind, OutputKind
        from torch._export.verifier import SpecViolationError

        self.SpecViolationError = SpecViolationError

    def load(self, data):
        """(program or None, verdict)."""
        try:
            ep = self.torch.export.load(io.BytesIO(data))
        except self.SpecViolationError as e:
            return None, {"accepts": False, **_error("verify", e)}
        except Exception as e:  # noqa: BLE001 - any refusal is a verdict
            return None, {"accepts": False, **_error("load", e)}
        return ep, {"accepts": True}

    def run(self, ep, original):
        """ep.module() on a copy of `original`'s example inputs and of `ep` (a run writes the
        state it is handed, and the next run must start from the archive's): (outputs,
        finals) as RunResult holds them, user inputs named as `original` names them."""
        torch = self.torch
        ep = copy.deepcopy(ep)
        args, kwargs = copy.deepcopy(original.example_inputs or ((), {}))
        module = ep.module()
        if self.raising and _calls_any(original, self.raising):
            raise ValueError("not enough values to unpack (expected 2, got 1)")
        out = module(*args, **kwargs)
        # None is an output of its own, as the program's output specs list it.
        leaves, _ = torch.utils._pytree.tree_flatten(out, is_leaf=lambda v: v is None)
        outputs = [_plain(v) for v in leaves]
        if self.off_by_one and _calls_any(original, self.off_by_one):
            outputs = [v + 1 if isinstance(v, torch.Tensor) and v.is_floating_point() else v for v in outputs]
        # Named and ordered as epsmith's runs list final values (oracle/run.cpp's liftInputs):
        # lifted state in input-spec order, then the user inputs; the comparator matches
        # them by name.
        finals = []
        for spec in ep.graph_signature.input_specs:
            if spec.kind == self.InputKind.PARAMETER:
                finals.append(["parameter:" + spec.target, _plain(module.get_parameter(spec.target))])
            elif spec.kind == self.InputKind.BUFFER:
                finals.append(["buffer:" + spec.target, _plain(module.get_buffer(spec.target))])
        flat_user = torch.utils._pytree.tree_leaves((args, kwargs))
        user_names = [s.arg.name for s in original.graph_signature.input_specs if s.kind == self.InputKind.USER_INPUT]
        for name, value in zip(user_names, flat_user):
            if isinstance(value, torch.Tensor):
                finals.append(["user_input:" + name, _plain(value)])
        return outputs, finals

    def signature(self, ep):
        """The input and output specs as kinds and targets, user inputs by their place, so
        two programs with other placeholder names compare
        (Note [Signatures compared by kind and target])."""
        user = {}
        inputs, outputs = [], []
        for spec in ep.graph_signature.input_specs:
            if spec.kind == self.InputKind.USER_INPUT:
                user[spec.arg.name] = len(user)
                inputs.append([spec.kind.name, "#%d" % user[spec.arg.name]])
            else:
                inputs.append([spec.kind.name, spec.target or ""])
        for spec in ep.graph_signature.output_specs:
            target = spec.target or ""
            if spec.kind == self.OutputKind.USER_INPUT_MUTATION:
                target = "#%d" % user.get(target, -1)
            outputs.append([spec.kind.name, target])
        return {"inputs": inputs, "outputs": outputs}

    def answer(self, checks, archives):
        torch = self.torch
        reply = {"torch": torch.__version__, "verdicts": []}
        payloads = []
        program = None
        for i, data in enumerate(archives):
            ep, verdict = self.load(data)
            reply["verdicts"].append(verdict)
            if i == 0:
                program = ep
        if program is None:
            return reply, payloads
        if "D5" in checks:
            reply["D5"] = self.results_of(lambda: self.run(program, program), "run", payloads)
        if "D8" in checks:
            try:
                decomposed = self.export_form(program).run_decompositions({})
            except Exception as e:  # noqa: BLE001 - a refusal is the check's answer
                reply["D8"] = {"error": _error("decompose", e), "results": 0}
            else:
                reply["D8"] = self.results_of(lambda: self.run(decomposed, program), "run", payloads)
                reply["D8"]["signature"] = self.signature(decomposed)
        if "resave" in checks:
            reply["resaved"] = self.resave(program, payloads)
        return reply, payloads

    def resave(self, program, payloads):
        """The program as this release's torch.export.save writes it, for another release to
        load (Note [Save and load across releases])."""
        buf = io.BytesIO()
        try:
            if "perturb" in self.resave_faults:
                program = copy.deepcopy(program)
                for t in program.state_dict.values():
                    if t.is_floating_point():
                        t.data.add_(1)
            self.torch.export.save(program, buf)
        except Exception as e:  # noqa: BLE001 - a refusal to save is the answer
            return {"error": _error("save", e), "results": 0}
        saved = buf.getvalue()
        payloads.append(saved[: len(saved) // 2] if "truncate" in self.resave_faults else saved)
        return {"error": None, "results": len(payloads[-1])}

    # Note [Grad regions in export's form]
    # torch.export's TRAINING programs never hold a bare torch._C._set_grad_enabled call:
    # export's last pass (replace_set_grad_with_hop_pass, torch/export/_trace.py) turns each
    # grad-mode region into a wrap_with_set_grad_enabled call of a submodule, or inlines it
    # where it changes nothing. epsmith's programs spell the regions bare, which
    # torch.export.load and the verifier accept, but 2.13's run_decompositions fails on them
    # in assorted ways (IndexError: list index out of range for a lone
    # _set_grad_enabled(True); autograd's complaints about views made under no_grad): six of
    # thirteen D8 root causes of a 10-minute campaign, none what a user meets. So D8
    # decomposes the program in the form export would have made it.
    def export_form(self, ep):
        torch = self.torch
        if not any(n.target is torch._C._set_grad_enabled for n in ep.graph.nodes):
            return ep
        from torch._export.passes.replace_set_grad_with_hop_pass import replace_set_grad_with_hop_pass

        ep = copy.deepcopy(ep)  # the pass rewrites the graph module in place
        gm, signature = replace_set_grad_with_hop_pass(ep.graph_module, ep.graph_signature)
        return torch.export.ExportedProgram(
            root=gm,
            graph=gm.graph,
            graph_signature=signature,
            state_dict=ep.state_dict,
            range_constraints=ep.range_constraints,
            module_call_graph=ep.module_call_graph,
            example_inputs=ep.example_inputs,
            constants=ep.constants,
            verifiers=ep.verifiers,
        )

    def results_of(self, f, stage, payloads):
        try:
            outputs, finals = f()
            buf = io.BytesIO()
            self.torch.save((outputs, finals), buf)
        except Exception as e:  # noqa: BLE001 - the run's exception is its result
            return {"error": _error(stage, e), "results": 0}
        payloads.append(buf.getvalue())
        return {"error": None, "results": len(payloads[-1])}


def _plain(v):
    """A value as the driver's comparator takes it: tensors detached and contiguous (a view
    would pickle its whole base), numbers as they are; a tensor of a dtype LibTorch's C++
    unpickler cannot read as its bits (Note [Tensors LibTorch's unpickler cannot read])."""
    import torch

    if not isinstance(v, torch.Tensor):
        return v
    v = v.detach().clone()
    if v.dtype in torch.storage._new_dtypes():
        return ["epsmith:bits", str(v.dtype).split(".")[-1], list(v.shape), v.contiguous().reshape(-1).view(torch.uint8)]
    return v


# Note [Planted faults in the peer]
# Tests that need D5, D7 or D8 to find something must not depend on a bug of torch still
# existing (Note [Planted faults]). EPSMITH_PLANTED_FAULT entries read here:
# `torch:aten::NAME` makes every run of a program that calls aten::NAME (any overload) in
# this process return its floating outputs plus one, as a torch runtime that miscompiled
# the op would, so ep.module() and the decomposed program disagree with epsmith's runs (D5
# and D8 value mismatches) and minimization keeps the op; `torch-raise:aten::NAME` makes
# such a run raise the ValueError an unpacking in torch's own Python raises, as a bug of
# ep.module() would; `torch-verifier:accept-all` makes
# torch's verifier accept every program, so D7 reports each corruption epsmith's verifier
# rejects; `torch-resave:truncate` cuts what torch.export.save writes short, and
# `torch-resave:perturb` saves every floating parameter and buffer plus one, as a release
# whose serializer broke would (D7 across releases: Note [Save and load across releases]).
# The driver reports each fault planted on standard error.
def plant_faults(torch, planted):
    off_by_one, raising, resave = set(), set(), set()
    for entry in os.environ.get("EPSMITH_PLANTED_FAULT", "").split(","):
        kind, _, name = entry.partition(":")
        if kind == "torch" and name.startswith("aten::"):
            off_by_one.add(name[len("aten::"):])
        elif kind == "torch-raise" and name.startswith("aten::"):
            raising.add(name[len("aten::"):])
        elif kind == "torch-verifier" and name == "accept-all":
            from torch._export.verifier import Verifier

            Verifier.check = lambda self, ep: None
        elif kind == "torch-resave" and name in ("truncate", "perturb"):
            resave.add(name)
        else:
            continue
        planted.append(entry)
    return off_by_one, raising, resave


# Note [Peer shortcuts that change no answer]
# Most of a question's time is torch's own fixed cost, paid again on every program (2.13,
# Python 3.11, the development machine: ~0.3 s a question, 16% of a default campaign):
# - run_decompositions collects every preservable CompositeImplicitAutograd op of every
#   op namespace on each call (~40 ms); torch caches the aten part and not the rest,
#   because Python can register custom ops later. A peer registers none, so the set is
#   the same on every call and is computed once.
# - OperatorBase.py_impl, which run_decompositions calls ~10 000 times a program, defines
#   a nested function annotated `collections.abc.Callable[_P, _T]`; Python 3.11 builds
#   that annotation on every call (~50 ms). typing.Callable's subscriptions are memoized.
# - The .pt2 reader turns JSON into the schema's dataclasses and asks
#   typing.get_type_hints of each class for each object (~7 ms a load); the hints of a
#   class are fixed, so they are asked once.
# None changes what torch computes: tests/oracle/peer_shortcuts_test.py asks the same
# questions with and without them and requires equal answers. Each applies only where
# the torch at hand has the function it replaces; EPSMITH_PEER_PLAIN=1 turns them off.
def take_shortcuts(torch):
    import collections.abc
    import functools
    import types
    import typing

    taken = []
    import torch._export.utils as export_utils
    import torch.export.exported_program as exported_program

    collect = getattr(export_utils, "_collect_all_valid_cia_ops", None)
    if collect is not None and getattr(exported_program, "_collect_all_valid_cia_ops", None) is collect:
        once = functools.lru_cache(maxsize=1)(collect)
        export_utils._collect_all_valid_cia_ops = exported_program._collect_all_valid_cia_ops = once
        taken.append("cia-ops-once")
    if getattr(torch._ops, "Callable", None) is collections.abc.Callable:
        torch._ops.Callable = typing.Callable
        taken.append("py-impl-annotation")
    import torch._export.serde.serialize as serialize

    if getattr(serialize, "typing", None) is typing:
        hints = {}

        def get_type_hints(obj, globalns=None, localns=None, include_extras=False):
            key = (obj, id(globalns), include_extras)
            if localns is not None or not isinstance(obj, type):
                return typing.get_type_hints(obj, globalns, localns, include_extras)
            if key not in hints:
                hints[key] = typing.get_type_hints(obj, globalns, localns, include_extras)
            return hints[key]

        cached = types.ModuleType("typing")
        cached.__dict__.update(typing.__dict__)
        cached.get_type_hints = get_type_hints
        serialize.typing = cached
        taken.append("schema-hints-once")
    return taken


def _calls_any(ep, names):
    for node in ep.graph.nodes:
        packet = getattr(node.target, "_overloadpacket", None)
        if node.op == "call_function" and packet is not None and packet.__name__ in names:
            return True
    return False


def main():
    # The protocol owns the real standard output; anything torch prints goes to stderr.
    channel = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    logging.disable(logging.WARNING)
    warnings.filterwarnings("ignore")
    # Note [The peer sees no GPU]
    # The peer runs every program on CPU, and a zygote forks its peers: on a CUDA torch
    # (2.11+cu130) the zygote's warm-up (an export, a run, a decomposition) started CUDA, and
    # every forked peer then failed D8 with "Cannot re-initialize CUDA in forked subprocess".
    # With the GPUs hidden before torch is imported, no process of the peer can start CUDA.
    os.environ["CUDA_VISIBLE_DEVICES"] = ""
    try:
        import torch
    except ImportError as e:
        # The driver says so in one line and runs on without D5, D7 and D8: no traceback.
        _send(channel, {"ready": False, "error": f"{sys.executable} cannot import torch: {e}"}, [])
        return 0

    planted = []
    peer = Peer(torch, *plant_faults(torch, planted))
    if not os.environ.get("EPSMITH_PEER_PLAIN"):
        take_shortcuts(torch)
    if not os.environ.get("EPSMITH_PEER_VERBOSE"):
        # torch's warnings and the tracebacks FX prints beside the exceptions it raises are
        # noise in a campaign's log; the exceptions themselves reach the driver.
        quiet = os.open(os.devnull, os.O_WRONLY)
        os.dup2(quiet, 1)
        os.dup2(quiet, 2)
    greeting = {"torch": torch.__version__, "ready": True, "planted": planted}
    if len(sys.argv) == 3 and sys.argv[1] == "--zygote":
        return zygote(sys.argv[2], peer, greeting, channel)
    _send(channel, greeting, [])
    return serve(peer, sys.stdin.buffer, channel)


def serve(peer, source, channel):
    while True:
        line = source.readline()
        if not line:
            return 0
        request = json.loads(line)
        archives = [_read_exactly(source, n) for n in request.get("archives", [])]
        reply, payloads = peer.answer(request.get("checks", []), archives)
        _send(channel, reply, payloads)


# Note [A zygote for campaign peers]
# Importing torch takes seconds, and a campaign's workers are replaced every few thousand
# cases (Note [Recycled workers]): a peer started per worker would import torch again and
# again, inside a case's time limit. So a campaign starts one zygote (`--zygote PATH`): it
# imports torch once, greets on standard output, and listens on the Unix socket PATH; each
# worker that asks connects, and the zygote forks a peer for that connection alone, torch
# already imported (a fork costs milliseconds). A peer ends when its worker closes the
# connection; the zygote ends when its standard input closes, i.e. with the campaign,
# however the campaign ended (a test's forked child leaves by _exit, a killed campaign runs
# no exit handlers). So the zygote removes its socket and the directory holding it, which
# the driver made for it alone, on its way out.
def warm_up(peer):
    """One question of each kind, answered once here: torch imports much of itself lazily
    on a first export, load and decomposition (a second or more), and every peer forked
    after this starts with it done."""
    torch = peer.torch

    class Warm(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("calls", torch.zeros(2))

        def forward(self, x):
            self.calls.add_(1)
            return x.t().sin()

    buf = io.BytesIO()
    torch.export.save(torch.export.export(Warm(), (torch.ones(2, 3),)), buf)
    try:
        peer.answer(["D5", "D8"], [buf.getvalue()])
    except Exception:  # noqa: BLE001 - a warm-up that fails leaves the peers cold, not wrong
        pass


def zygote(path, peer, greeting, channel):
    import signal
    import socket

    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # peers are reaped by the kernel
    warm_up(peer)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(64)
    try:
        _send(channel, greeting, [])
        return _fork_peers(server, peer, greeting)
    finally:
        for remove, what in ((os.unlink, path), (os.rmdir, os.path.dirname(path))):
            with contextlib.suppress(FileNotFoundError):
                remove(what)


def _fork_peers(server, peer, greeting):
    import selectors

    waiting = selectors.DefaultSelector()
    waiting.register(server, selectors.EVENT_READ)
    waiting.register(sys.stdin.buffer, selectors.EVENT_READ)
    while True:
        for key, _ in waiting.select():
            if key.fileobj is not server:
                return 0  # the campaign closed our standard input
            conn, _ = server.accept()
            if os.fork() == 0:
                code = 1
                try:  # a peer never returns into the zygote's loop
                    server.close()
                    connection = conn.makefile("rwb")
                    _send(connection, {**greeting, "pid": os.getpid()}, [])
                    code = serve(peer, connection, connection)
                finally:
                    os._exit(code)
            conn.close()


def _read_exactly(source, n):
    data = source.read(n)
    if len(data) != n:
        raise EOFError("the driver closed the pipe inside a request")
    return data


def _send(channel, header, payloads):
    channel.write(json.dumps(header).encode() + b"\n")
    for p in payloads:
        channel.write(p)
    channel.flush()


if __name__ == "__main__":
    sys.exit(main())
