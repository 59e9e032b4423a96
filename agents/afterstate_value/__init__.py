"""Afterstate values by Monte-Carlo or lambda-returns (agents/afterstate_value/trainer.py reads top to bottom):
a value network of the state each legal action leads to, seen by the mover, trained on the final
returns of lock-step self-play, acting by the best-valued afterstate (agents.afterstate)."""
