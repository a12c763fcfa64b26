"""Masked PPO (CleanRL style, one file) on abak-rl's Gymnasium vector environment, then a match
against the `random` bot with `abak-rl evaluate` through the python: agent spec.

    python examples/train_ppo.py --variant standard --minutes 3          # vs the random bot
    python examples/train_ppo.py --opponent self --minutes 3             # self-play

The policy sees the environment's observation (the variant's feature vector of the board seen
from the player to move, and the dice left) and picks one checker movement among those the
action mask allows. In self-play both seats are the same policy and every observation is seen
from the player to move, so the advantage of a step is taken from its actor's side: where the
next step belongs to the other player, the next value and advantage change sign (zero-sum).
The policy is saved to --out; examples/ppo_agent.py plays it as an Agent.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

import numpy as np
import torch
import torch.nn as nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from abak_rl.envs import make_vector  # noqa: E402


class Policy(nn.Module):
    def __init__(self, n_obs: int, n_actions: int, hidden: int = 128):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(n_obs, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh())
        self.actor = nn.Linear(hidden, n_actions)
        self.critic = nn.Linear(hidden, 1)
        nn.init.orthogonal_(self.actor.weight, 0.01)

    def forward(self, x, mask):
        h = self.body(x)
        logits = self.actor(h).masked_fill(~mask, -1e9)
        return logits, self.critic(h).squeeze(-1)


def policy_input(obs) -> torch.Tensor:
    """Features and the dice left (scaled), one row per game."""
    x = np.concatenate([obs["observation"], obs["dice"].astype(np.float32) / 6.0], axis=1)
    return torch.as_tensor(x, dtype=torch.float32)


def train(args) -> str:
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    env = make_vector(args.variant, args.num_envs, opponent=None if args.opponent == "self" else args.opponent)
    obs, info = env.reset(seed=args.seed)
    n_obs = int(env.single_observation_space["observation"].shape[0]) + 4
    n_act = int(env.single_action_space.n)
    net = Policy(n_obs, n_act)
    opt = torch.optim.Adam(net.parameters(), lr=args.lr, eps=1e-5)
    T, N = args.steps, args.num_envs
    start, updates, games, wins, points = time.time(), 0, 0, 0, 0.0
    while time.time() - start < args.seconds:
        X, M, A, LP, V, R, D, S = [], [], [], [], [], [], [], []
        for _ in range(T):
            x = policy_input(obs)
            mask = torch.as_tensor(info["action_mask"])
            with torch.no_grad():
                logits, value = net(x, mask)
                dist = torch.distributions.Categorical(logits=logits)
                a = dist.sample()
            seat = info["seat"].copy()
            obs, reward, term, trunc, info = env.step(a.numpy())
            X.append(x); M.append(mask); A.append(a); LP.append(dist.log_prob(a)); V.append(value)
            R.append(torch.as_tensor(reward)); D.append(torch.as_tensor(term | trunc, dtype=torch.float32))
            S.append(torch.as_tensor(np.where(info["seat"] == seat, 1.0, -1.0), dtype=torch.float32))
            ended = term | trunc
            games += int(ended.sum())
            if args.opponent != "self":
                wins += int((reward[ended] > 0).sum())
                points += float(reward[ended].sum())
        with torch.no_grad():
            _, next_v = net(policy_input(obs), torch.as_tensor(info["action_mask"]))
        adv = torch.zeros(T, N)
        last = torch.zeros(N)
        for t in reversed(range(T)):
            nv = next_v if t == T - 1 else V[t + 1]
            keep = 1.0 - D[t]
            delta = R[t] + args.gamma * S[t] * nv * keep - V[t]
            last = delta + args.gamma * args.gae_lambda * S[t] * keep * last
            adv[t] = last
        ret = adv + torch.stack(V)
        bx, bm, ba = torch.cat(X), torch.cat(M), torch.cat(A)
        blp, badv, bret = torch.cat(LP), adv.reshape(-1), ret.reshape(-1)
        idx = np.arange(T * N)
        for _ in range(args.epochs):
            np.random.shuffle(idx)
            for mb in np.array_split(idx, args.minibatches):
                logits, value = net(bx[mb], bm[mb])
                dist = torch.distributions.Categorical(logits=logits)
                ratio = (dist.log_prob(ba[mb]) - blp[mb]).exp()
                a_mb = badv[mb]
                a_mb = (a_mb - a_mb.mean()) / (a_mb.std() + 1e-8)
                pg = torch.max(-a_mb * ratio, -a_mb * ratio.clamp(1 - args.clip, 1 + args.clip)).mean()
                vf = 0.5 * ((value - bret[mb]) ** 2).mean()
                loss = pg + args.vf_coef * vf - args.ent_coef * dist.entropy().mean()
                opt.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(net.parameters(), 0.5)
                opt.step()
        updates += 1
        if updates % 10 == 0 or time.time() - start >= args.seconds:
            vs = (f", vs {args.opponent} while training: {wins / max(games, 1):.1%} wins, "
                  f"{points / max(games, 1):+.3f} ppg" if args.opponent != "self" else "")
            print(f"{time.time() - start:6.0f}s  update {updates}  steps {updates * T * N}  games {games}{vs}",
                  flush=True)
            games, wins, points = 0, 0, 0.0
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    torch.save({"variant": args.variant, "n_obs": n_obs, "n_actions": n_act, "state_dict": net.state_dict(),
                "steps": updates * T * N, "seconds": round(time.time() - start)}, args.out)
    print(f"saved {args.out} after {updates * T * N} steps in {time.time() - start:.0f}s")
    return args.out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--variant", default="standard")
    p.add_argument("--opponent", default="random", help="'self' for self-play, or an agent spec (random, pubeval, ...)")
    p.add_argument("--minutes", type=float, default=3.0)
    p.add_argument("--seconds", type=float, default=None, help="overrides --minutes")
    p.add_argument("--num-envs", type=int, default=64)
    p.add_argument("--steps", type=int, default=64, help="steps per environment per update")
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--gamma", type=float, default=0.999)
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--clip", type=float, default=0.2)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--minibatches", type=int, default=4)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="runs/ppo/policy.pt")
    p.add_argument("--eval-games", type=int, default=1000, help="games of the final match vs random (0: none)")
    args = p.parse_args(argv)
    if args.seconds is None:
        args.seconds = args.minutes * 60
    if args.num_envs < 1 or args.steps < 1 or args.seconds < 0:
        p.error("--num-envs and --steps must be at least 1, --minutes/--seconds not negative")
    path = train(args)
    if args.eval_games:
        cmd = [sys.executable, "-m", "abak_rl.cli", "evaluate", f"variant={args.variant}",
               "agent=python:examples.ppo_agent:PPOAgent", "opponent=random", f"games={args.eval_games}"]
        print("$ ABAK_PPO_POLICY=" + path + " abak-rl " + " ".join(cmd[3:]), flush=True)
        root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
        return subprocess.call(cmd, cwd=root, env=dict(os.environ, ABAK_PPO_POLICY=os.path.abspath(path)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
