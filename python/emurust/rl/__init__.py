"""Training on emurust's environments: PPO (:mod:`emurust.rl.ppo`), the ``emurust train`` and
``emurust play`` commands (:mod:`emurust.rl.cli`). Needs the ``rl`` extra (torch)."""
