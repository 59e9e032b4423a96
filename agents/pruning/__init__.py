"""MCTS with pruning networks (Papagiannis, Alexandridis & Stafylopatis, Mathematics 2022).

bandits.py   UCB1 on Bernoulli bandits: the Safety and Probability datasets; the bimodal arm
             distribution fitted to our MCTS root values
model.py     the two Keras networks (the only TensorFlow module here)
networks.py  their numpy forward passes and .npz files (play time)
schedule.py  Algorithm 1: when to prune the root and how many actions to keep; hard and soft
make.py      datasets + training + files (`deckopt train-pruning`)

Used through the mcts spec: `mcts:300,prune=uniform`, `mcts:300,prune=bimodal,soft=1`.
"""
