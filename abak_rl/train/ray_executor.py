"""Self-play in Ray actors; the learner (run.py's loop, unchanged) trains on their games.

    abak-rl train executor=ray ray.workers=4              # a local Ray instance on this machine
    abak-rl train executor=ray ray.address=auto           # the cluster started with `ray start`

Each actor (SelfPlayWorker) holds its own SelfPlay of train.batch_games lockstep games, a CPU
copy of the net and a Scorer. One task, play(version, weights, steps, epsilon), loads the
weights if their version changed, plays `ray.steps_per_task` lockstep steps and returns the
games that ended, concatenated into one FinishedGames (compact NumPy arrays, padded to the
longest game).

RayExecutor.step(scorer, epsilon), called by the learner where SelfPlay.step was:
  1. publishes the learner's weights when they changed since the last step: ray.put of the
     state_dict as NumPy arrays, once, shared by every actor through the object store;
  2. waits (ray.wait) for whichever actor's task finishes first, resubmits that actor at once
     with the latest weights (so no actor idles while the learner trains), returns its games.
So each task plays with the weights of at most one learner step earlier than its submission.

An actor that dies (ray.kill, a crash, a lost node) surfaces as RayActorError when its task is
collected: it is replaced by a new actor (with a new seed) and the run goes on. Seeds: actor
number k of a run (counting replacements and actors created after a resume) plays with seed
actor_seed(seed, k), a SplitMix64 hash, so no two actors share dice streams.

Checkpoints: the learner's part (weights, optimizer, sample queue, counters, random states) is
saved exactly as in a local run. The self-play part is only the number of actors created so
far: a resumed Ray run starts fresh games in new actors (with seeds no earlier actor used)
instead of continuing the games that were in flight, so resuming is not bit-exact on this path.
"""

from __future__ import annotations

import sys
import time
import weakref

import numpy as np
import ray
import torch
from omegaconf import DictConfig, OmegaConf

from ..engine import dice as dice_mod
from .selfplay import FinishedGames, SelfPlay

_ACTOR_SEED_KEY = 0xA5C0_7E11
_LIVE: weakref.WeakSet = weakref.WeakSet()


def live_executors() -> list:
    """The RayExecutors of this process not yet closed (for tests and debugging)."""
    return list(_LIVE)


def actor_seed(seed: int, k: int) -> int:
    """The self-play seed of the run's k-th actor (a 63-bit hash of seed and k)."""
    w = dice_mod.random_words(seed ^ _ACTOR_SEED_KEY, np.array([k]), np.zeros(1, np.int64))
    return int(w[0] >> np.uint64(1))


def empty_games(width: int) -> FinishedGames:
    return FinishedGames(np.zeros((0, 0, width), np.int8), np.zeros((0, 0, 5), np.float32),
                         np.zeros((0, 0), bool), np.zeros(0, np.int64), np.zeros(0, np.int64))


def concat_games(parts: list[FinishedGames], width: int) -> FinishedGames:
    """Several steps' finished games as one FinishedGames, padded (with zeros) to the longest."""
    parts = [p for p in parts if p.length.size]
    if not parts:
        return empty_games(width)
    T = max(p.boards.shape[1] for p in parts)

    def cat(name):
        arrays = []
        for p in parts:
            a = getattr(p, name)
            if a.ndim >= 2 and a.shape[1] < T:
                pad = [(0, 0)] * a.ndim
                pad[1] = (0, T - a.shape[1])
                a = np.pad(a, pad)
            arrays.append(a)
        return np.concatenate(arrays)
    return FinishedGames(*(cat(n) for n in ("boards", "probs", "again", "length", "points")))


def weights_to_numpy(net: torch.nn.Module) -> dict:
    return {k: v.detach().cpu().numpy() for k, v in net.state_dict().items()}


def worker_spec(cfg: DictConfig) -> dict:
    """Everything an actor needs to rebuild the variant, feature set and net (plain data)."""
    from .config import variant_options
    return {"variant": str(cfg.variant.name), "variant_options": variant_options(cfg),
            "features": str(cfg.model.features), "model": OmegaConf.to_container(cfg.model, resolve=True),
            "batch_games": int(cfg.train.batch_games), "max_turns": int(cfg.train.max_turns),
            "one_two_k": int(cfg.train.one_two_top_k), "threads": int(cfg.threads),
            "random_opening": int(cfg.train.get("random_opening", 0))}


class SelfPlayWorker:
    """A Ray actor (wrapped with ray.remote by RayExecutor): one SelfPlay and a CPU net."""

    def __init__(self, spec: dict, seed: int):
        from ..engine.variants import get_variant
        from ..features import feature_set_for
        from ..model.net import build_net
        from ..model.scorer import Scorer
        torch.set_num_threads(int(spec["threads"]))
        variant = get_variant(spec["variant"], **spec["variant_options"])
        features = feature_set_for(variant.name, spec["features"])
        self.net = build_net(features.size, spec["model"], features)
        self.scorer = Scorer(self.net, features, variant, torch.device("cpu"))
        self.play_ = SelfPlay(variant, int(spec["batch_games"]), int(seed), int(spec["max_turns"]),
                              one_two_k=int(spec["one_two_k"]),
                              random_opening=int(spec.get("random_opening", 0)))
        self.width, self.seed, self.version = variant.width, int(seed), None

    def play(self, version: int, weights: list, steps: int, epsilon: float):
        """Play `steps` lockstep steps with the weights of `version` (weights[0] is their
        ObjectRef, fetched only when the version changed); returns (games, info)."""
        t0 = time.perf_counter()
        if version != self.version:
            state = ray.get(weights[0])
            self.net.load_state_dict({k: torch.from_numpy(np.array(v)) for k, v in state.items()})
            self.version = version
        parts = [self.play_.step(self.scorer, epsilon) for _ in range(steps)]
        games = concat_games(parts, self.width)
        return games, {"seed": self.seed, "version": version, "steps": steps,
                       "aborted": self.play_.aborted, "seconds": time.perf_counter() - t0}


class RayExecutor:
    """Self-play in `workers` Ray actors, one task in flight per actor (see the module doc)."""

    name = "ray"

    def __init__(self, spec: dict, seed: int, workers: int = 2, steps_per_task: int = 8,
                 cpus_per_worker: float = 1, address: str | None = None, num_cpus: int | None = None,
                 wait_timeout_s: float = 600):
        self.spec, self.seed, self.workers = spec, int(seed), int(workers)
        self.steps_per_task, self.wait_timeout_s = int(steps_per_task), float(wait_timeout_s)
        self.started_ray = False
        if not ray.is_initialized():
            kwargs = {"include_dashboard": False, "configure_logging": False}
            if address is None and num_cpus is not None:
                kwargs["num_cpus"] = int(num_cpus)
            try:
                ray.init(address=address, **kwargs)
            except ConnectionError as e:
                raise RuntimeError(f"ray.address={address!r}: no Ray cluster to connect to ({e}); start one "
                                   f"with `ray start --head` (docs/ray.md) or leave ray.address=null "
                                   f"for a local instance") from None
            self.started_ray = True
        self.actor_cls = ray.remote(num_cpus=cpus_per_worker, max_restarts=0)(SelfPlayWorker)
        cpus = ray.cluster_resources().get("CPU", 0)
        if cpus_per_worker and self.workers * cpus_per_worker > cpus:
            print(f"abak-rl train: ray.workers={self.workers} x ray.cpus_per_worker={cpus_per_worker} "
                  f"CPUs > the cluster's {cpus:g}: only {int(cpus // cpus_per_worker)} actors can run "
                  f"(the others wait for CPUs)", file=sys.stderr, flush=True)
        self.actors: dict[int, object] = {}     # slot -> actor handle
        self.tasks: dict[object, int] = {}      # ObjectRef of an in-flight play() -> slot
        self.created = 0                        # actors created in this run (the next one's k)
        self.replaced = 0                       # actors that died and were replaced
        self.failures_in_a_row = 0
        self.version = -1
        self.weights_ref = None
        self._weights_key = None
        self.epsilon = 0.0
        self.last_info: dict = {}
        _LIVE.add(self)

    @classmethod
    def from_config(cls, cfg: DictConfig, variant=None) -> RayExecutor:
        from .executors import ray_options
        o = ray_options(cfg)
        return cls(worker_spec(cfg), int(cfg.seed), workers=o["workers"], steps_per_task=o["steps_per_task"],
                   cpus_per_worker=o["cpus_per_worker"], address=o["address"], num_cpus=o["num_cpus"],
                   wait_timeout_s=o["wait_timeout_s"])

    # -- weights -----------------------------------------------------------------------------
    def publish(self, net: torch.nn.Module) -> bool:
        """Put the net's weights in the object store if they changed; True if they did.

        A change is seen through the parameters' version counters (every in-place update,
        optimizer steps and load_state_dict included, bumps them), so an unchanged net is not
        copied again."""
        tensors = list(net.parameters()) + list(net.buffers())
        key = tuple((id(t), getattr(t, "_version", None)) for t in tensors)
        if self.weights_ref is not None and key == self._weights_key and None not in (k[1] for k in key):
            return False
        self.weights_ref = ray.put(weights_to_numpy(net))
        self.version += 1
        self._weights_key = key
        return True

    # -- actors ------------------------------------------------------------------------------
    def _new_actor(self, slot: int) -> None:
        k = self.created
        self.created += 1
        self.actors[slot] = self.actor_cls.remote(self.spec, actor_seed(self.seed, k))

    def _submit(self, slot: int) -> None:
        ref = self.actors[slot].play.remote(self.version, [self.weights_ref], self.steps_per_task, self.epsilon)
        self.tasks[ref] = slot

    def _replace(self, slot: int, error: Exception) -> None:
        self.replaced += 1
        self.failures_in_a_row += 1
        if self.failures_in_a_row > 3 * self.workers:
            raise RuntimeError(f"self-play actors keep dying ({self.failures_in_a_row} in a row without "
                               f"a finished task); last error: {error}") from error
        print(f"abak-rl train: self-play actor {slot} died ({type(error).__name__}); replacing it",
              file=sys.stderr, flush=True)
        try:
            ray.kill(self.actors[slot], no_restart=True)
        except Exception:  # noqa: BLE001 - it is already gone
            pass
        self._new_actor(slot)

    def step(self, scorer, epsilon: float = 0.0) -> FinishedGames:
        """The games of the next actor task to finish (see the module doc)."""
        self.epsilon = float(epsilon)
        self.publish(scorer.net)
        for slot in range(self.workers):
            if slot not in self.actors:
                self._new_actor(slot)
        busy = set(self.tasks.values())
        for slot in range(self.workers):
            if slot not in busy:
                self._submit(slot)
        while True:
            ready, _ = ray.wait(list(self.tasks), num_returns=1, timeout=self.wait_timeout_s)
            if not ready:
                raise RuntimeError(
                    f"no self-play task finished in {self.wait_timeout_s:.0f} s (ray.wait_timeout_s): "
                    f"can the cluster place ray.workers={self.workers} actors? available: "
                    f"{ray.available_resources()}")
            ref = ready[0]
            slot = self.tasks.pop(ref)
            try:
                games, info = ray.get(ref)
            except ray.exceptions.RayActorError as e:
                self._replace(slot, e)
                self._submit(slot)
                continue
            self.failures_in_a_row = 0
            self.last_info = info
            self._submit(slot)            # keep the actor busy while the learner trains
            return games

    # -- checkpoints and shutdown ------------------------------------------------------------
    def state_dict(self) -> dict:
        """Only what a resumed run needs to give its new actors unused seeds (see module doc)."""
        return {"executor": "ray", "seed": self.seed, "actors_created": self.created}

    def load_state_dict(self, d: dict) -> None:
        """Continue the numbering of actors (and so their seeds) of a saved Ray run; a local
        run's state is accepted too: its games used seed itself, which no actor uses."""
        if d.get("executor") == "ray":
            self.created = max(self.created, int(d["actors_created"]))

    def close(self) -> None:
        for actor in self.actors.values():
            try:
                ray.kill(actor, no_restart=True)
            except Exception:  # noqa: BLE001 - already gone
                pass
        self.actors.clear()
        self.tasks.clear()
        _LIVE.discard(self)
        if self.started_ray and ray.is_initialized():
            ray.shutdown()
            self.started_ray = False
