"""What every learner shares, and nothing of any one learner (no module here imports a learner):

- `loop`: the `Learner` protocol and the one training loop (`train_learner`) that drives it;
- `runfolder`: the run folder, its files and the checkpoint reader;
- `config`: the config base dataclass, loading it, its checks and the linear schedules;
- `keras_helpers`: TensorFlow set-up, Adam state, weights as numpy, `.keras` files, TensorBoard;
- `replay`: the replay buffer (named numpy columns, a ring);
- `seating`: opponent mixes, who sits where in self-play, and the mirrors of a decision;
- `shards`: self-play split into seeded shards that worker processes play on numpy weights.

A new learner is one module: a class implementing `loop.Learner` and a config subclassing
`config.LearnerConfig` (tests/test_learning.py shows a tiny one).
"""
