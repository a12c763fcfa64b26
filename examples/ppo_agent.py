"""The policy examples/train_ppo.py saved, as an Agent for the python: spec:

    ABAK_PPO_POLICY=runs/ppo/policy.pt abak-rl evaluate agent=python:examples.ppo_agent:PPOAgent opponent=random

It plays each turn movement by movement, taking the most probable legal movement.
"""

from __future__ import annotations

import os

import torch

from abak_rl.envs.agent import MovementAgent
from examples.train_ppo import Policy, policy_input


class PPOAgent(MovementAgent):
    def __init__(self, variant):
        path = os.environ.get("ABAK_PPO_POLICY", "runs/ppo/policy.pt")
        if not os.path.exists(path):
            raise ValueError(f"no PPO policy at {path}: run examples/train_ppo.py or set ABAK_PPO_POLICY")
        torch.set_num_threads(1)   # small matrices: more threads only contend
        saved = torch.load(path, weights_only=True)
        if saved["variant"] != variant.name:
            raise ValueError(f"{path} was trained on {saved['variant']}, not {variant.name}")
        net = Policy(saved["n_obs"], saved["n_actions"])
        net.load_state_dict(saved["state_dict"])
        net.eval()

        def act(obs, mask):
            with torch.no_grad():
                logits, _ = net(policy_input(obs), torch.as_tensor(mask))
            return logits.argmax(dim=1).numpy()

        super().__init__(act, name="ppo")
