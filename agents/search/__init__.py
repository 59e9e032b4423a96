"""Tree search for every game: two searches over one tree, their leaf evaluators and one proof rule.

- `uct`: UCT (UCB1) with rollouts, one state at a time; determinized for hidden information
  (the `mcts:` spec, parsed in `mcts_spec`);
- `puct`: PUCT guided by priors and values, many states at once (the `az:` agents and AlphaZero's
  self-play);
- `evaluators`: what a leaf is worth — rollouts (random or heuristic, with a learned value mixed
  in) for UCT, a policy+value or Q-network for PUCT (OpenSpiel's MCTSBot + Evaluator split);
- `tree`: the node both searches grow, their back-up of returns and MCTS-Solver, the proof rule
  both apply in games without hidden information.
"""
