"""``cosci investigate``: hypotheses tested by running code (docs/design.md#investigation).

Task format and check (:mod:`.task`, :mod:`.check`), one evaluation in the sandbox (:mod:`.harness`), rubric
adjudication and the two gates (:mod:`.rubrics`, :mod:`.gates`), program trees by content (:mod:`.digest`), the
idea bundle and the other records (:mod:`.records`), the agents and their workspace (:mod:`.agents`,
:mod:`.workspace`), one research cycle (:mod:`.cycle`), the boundary between rounds (:mod:`.boundary`), the run
folder (:mod:`.folder`), the aggregator and the evidence (:mod:`.evidence`), the report and its claim check
(:mod:`.report`, :mod:`.claims`), and the link to a co-scientist session (:mod:`.session_link`). The Prefect flow
is ``flows/investigation.py``; MLflow is ``cosci/tracking/investigation_runs.py``.
"""
