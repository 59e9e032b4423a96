"""AlphaZero-style search and self-play: PUCT guided by one policy+value network, for every game.

1. One MLP with two heads (agents.alphazero.model, the only module importing TensorFlow): the
   policy's logits and a tanh value; Keras for training, a numpy copy for acting.
2. Search (agents.search.puct): PUCT over many states at once, the new leaves of all their
   trees scored in one network call per simulation round. Hidden information: every simulation
   starts from `resample_hidden` of the searching player, never from the true state.
3. Self-play (agents.alphazero.trainer): games in lock-step, Dirichlet noise at the roots, a
   temperature for the first moves; policy targets are visit distributions, value targets the
   final outcome from the mover's view; replay; the loop and run folder of agents/learning.
4. The agent (agents.alphazero.agent): spec `az:MODEL[,sims=N][,c=F]`, the most visited action.

Modules: `config` (AlphaZeroConfig, per-game defaults, `load_config`), `agent` (AlphaZeroAgent, the spec),
`model`, `features`, `trainer` (AlphaZeroLearner, `self_play`, `train`). The package imports none of them, so that
`agents.make` reaches the agent without loading the trainer.
"""
