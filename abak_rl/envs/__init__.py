"""The engines as environments for other RL code: PettingZoo AEC (make_aec) and a Gymnasium
vector environment over the lockstep engine (make_vector). Needs the `envs` extra
(pip install 'abak-rl[envs]'). See docs/envs.md."""

from __future__ import annotations


def make_aec(variant: str = "standard", **options):
    from .aec import make_aec as _make
    return _make(variant, **options)


def make_vector(variant: str = "standard", num_envs: int = 16, **options):
    from .vector import make_vector as _make
    return _make(variant, num_envs, **options)


def __getattr__(name):
    if name == "MovementAgent":
        from .agent import MovementAgent
        return MovementAgent
    raise AttributeError(name)
