"""The shipped ``ranking`` config (conf/config.yaml), composed once: the tournament objects of the tests take their
values from it, as a session's do, or change one value of it with ``dataclasses.replace``."""

from __future__ import annotations

from cosci.config.load import compose, validate
from cosci.tournament.elo import EloRule
from cosci.tournament.engine import TournamentCfg
from cosci.tournament.judging import DualOrderCfg
from cosci.tournament.pairing import PairingCfg
from cosci.tournament.uncertainty import UncertaintyCfg

RANKING = validate(compose([])).ranking
ELO = EloRule.from_config(RANKING)
PAIRING = PairingCfg.from_config(RANKING)
UNCERTAINTY = UncertaintyCfg.from_config(RANKING)
DUAL = DualOrderCfg.from_config(RANKING)
TOURNAMENT = TournamentCfg.from_config(RANKING)
