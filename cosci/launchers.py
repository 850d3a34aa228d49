"""What a sweep's launcher needs on this machine, checked before Hydra starts anything (design.md#launchers).

Hydra instantiates a launcher only once the sweep has begun; a missing plugin or a missing SLURM command then
surfaces as a traceback from Hydra or submitit. :func:`check_launcher` turns both into one line naming what is
missing (``python -m cosci.run`` prints it and exits 2, nothing written).

Launcher options (``conf/hydra/launcher/``): ``parallel`` (hydra-joblib-launcher), ``ray`` / ``ray_cluster``
(hydra-ray-launcher), ``slurm`` (hydra-submitit-launcher on SLURM), ``slurm_local`` (the same plugin on
submitit's local executor); the plugins' own option names (``joblib``, ``submitit_slurm``, ``submitit_local``,
``ray_aws``) are recognised too.
"""

from __future__ import annotations

import importlib.util
import shutil
import warnings
from collections.abc import Sequence

from cosci.config.load import ConfigError

PLUGINS = {
    "hydra_plugins.hydra_joblib_launcher": ("pip install -e '.[joblib]'", ("parallel", "joblib")),
    "hydra_plugins.hydra_ray_launcher": (
        "pip install -e '.[ray]' && pip install --no-deps 'hydra-ray-launcher==1.2.2'",
        ("ray", "ray_cluster", "ray_aws"),
    ),
    "hydra_plugins.hydra_submitit_launcher": (
        "pip install -e '.[slurm]'",
        ("slurm", "slurm_local", "submitit_slurm", "submitit_local"),
    ),
}
"""Plugin module → (the command that installs it, the launcher options that need it). hydra-ray-launcher 1.2.2
pins ``cloudpickle<3``, which pip can only satisfy by taking Prefect back to 3.5 (docs/ARCHITECTURE.md
"Launchers"); it is installed without its dependencies, next to the ``ray`` extra."""
SLURM_LAUNCHERS = ("slurm", "submitit_slurm")
SLURM_COMMANDS = ("sbatch", "srun", "sacct")
"""What submitit runs for a SLURM sweep: ``sbatch`` submits, ``srun`` starts the job inside the allocation,
``sacct`` reports job states (submitit 1.5, ``submitit/slurm/slurm.py``)."""


def launcher_choice(job: Sequence[str]) -> str | None:
    """The ``hydra/launcher=`` option a job's overrides pick (the last one wins, as in Hydra), or ``None``."""
    choice = None
    for override in job:
        key, sep, value = override.partition("=")
        if sep and key.lstrip("+~") == "hydra/launcher":
            choice = value.strip()
    return choice


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def check_launcher(job: Sequence[str]) -> None:
    """Refuse, in one line, a launcher whose plugin or commands are missing on this machine.

    Raises:
        ConfigError: the launcher's Hydra plugin (or Ray itself) is not installed (the line gives the install
            command), or a SLURM launcher is chosen and ``sbatch``, ``srun`` or ``sacct`` is not on ``PATH``.
    """
    choice = launcher_choice(job)
    if not choice:
        return
    for module, (install, options) in PLUGINS.items():
        needs_ray = "ray" in module and not _installed("ray")
        if choice in options and (not _installed(module) or needs_ray):
            raise ConfigError(
                f"hydra/launcher={choice}: the {module.split('.')[-1].replace('_', '-')} plugin is not installed; "
                f"run `{install}` (docs/sweeps.md, \"Sweeps beyond one machine\")"
            )
    if choice in SLURM_LAUNCHERS:
        missing = [cmd for cmd in SLURM_COMMANDS if shutil.which(cmd) is None]
        if missing:
            raise ConfigError(
                f"hydra/launcher={choice}: SLURM command(s) not found on PATH: {', '.join(missing)}; run the sweep "
                "on a SLURM login node, or use hydra/launcher=slurm_local to run the same jobs on this machine"
            )


def quiet_schema_warning() -> None:
    """Silence Hydra's deprecation notice that ``hydra/launcher/ray`` (conf/hydra/launcher/ray.yaml) is validated
    against the plugin's schema of the same name: the validation is wanted, the four-line notice is noise."""
    warnings.filterwarnings(
        "ignore", message=r"\s*'hydra/launcher/ray' is validated against ConfigStore schema", category=UserWarning
    )
