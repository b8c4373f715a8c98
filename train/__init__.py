"""LoRA training through live environments (importable as ``gym_mcp.train``; needs the ``[train]`` extra).

`GymTrainer` is the trainer (TRL's shape: a config, a class whose steps a subclass overrides, and
`train` as the one-call entry); `TrainConfig` its settings. The rooms:

- `gym_mcp.train.config`: `TrainConfig`, its validation and TOML loading, what a resumed run may change;
- `gym_mcp.train.trainer`: `GymTrainer`, `train`;
- `gym_mcp.train.loading`: the model with fresh LoRA adapters, and its call grammar;
- `gym_mcp.policies.decoding`: the one decode loop (shared with `gym_mcp.policies.LocalModel`);
- `gym_mcp.train.rollouts`: the model playing environments, GRPO groups (and every access
  training makes past an environment's public API);
- `gym_mcp.train.losses`: SFT and GRPO losses and the updates they drive;
- `gym_mcp.train.schedule`: the SFT learning-rate schedule (transformers' schedulers);
- `gym_mcp.train.data`: tasks to conversations to token ids; the split and the SFT batches;
- `gym_mcp.train.evaluation`: held-out evaluation of a model in training;
- `gym_mcp.train.reporting`: the tables, timings and the plot of a run;
- `gym_mcp.train.export`: a finished run as a folder plain transformers + peft load anywhere;
- `gym_mcp.train.trl`: the environments as TRL ``environment_factory`` tools.

Importing it loads no torch: the trainer imports the ML libraries when it sets up.
"""

from gym_mcp.train.config import TrainConfig
from gym_mcp.train.trainer import GymTrainer, SampledGroup, train

__all__ = ["GymTrainer", "SampledGroup", "TrainConfig", "train"]
