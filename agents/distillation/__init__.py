"""Distilling an afterstate battler into an action scorer (agents/distillation/trainer.py reads top to
bottom): the student scores each legal action from the observation and the action's features
(agents.action_scores), trained on the teacher's afterstate values of the states the student itself
reaches (Rusu et al., "Policy Distillation", ICLR 2016; Ross, Gordon and Bagnell's DAgger, AISTATS 2011)."""
